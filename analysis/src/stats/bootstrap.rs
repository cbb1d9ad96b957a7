//! Percentile bootstrap with a seeded, portable PRNG (Xoshiro256++): the same
//! seed gives the same interval natively and in wasm, and the seed is part of
//! every result so a reader can reproduce it.

use super::quantile::{quantile_in_place, QuantileType};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BootstrapOptions {
    pub resamples: usize,
    pub confidence: f64,
    pub seed: u64,
}

impl Default for BootstrapOptions {
    fn default() -> Self {
        BootstrapOptions {
            resamples: 10_000,
            confidence: 0.95,
            // "tick" in ASCII; seeds stay below 2^53 so JavaScript carries them exactly.
            seed: 0x7469_636b,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BootstrapCi {
    /// The statistic on the original data.
    pub estimate: f64,
    pub lo: f64,
    pub hi: f64,
    pub resamples: usize,
    pub confidence: f64,
    pub seed: u64,
}

impl BootstrapCi {
    /// An interval as tickbook reports every bootstrap CI: the ends moved
    /// out to the estimate when they miss it. A percentile interval of a
    /// biased or skewed statistic (a median of few values, a ratio, a
    /// variance ratio) can lie wholly on one side of the estimate; the
    /// reported interval is then the smallest one holding both the
    /// percentile interval and the estimate, so an estimate is never shown
    /// outside its own interval.
    pub fn around(
        estimate: f64,
        lo: f64,
        hi: f64,
        resamples: usize,
        opts: &BootstrapOptions,
    ) -> BootstrapCi {
        let (lo, hi) = if estimate.is_finite() {
            (lo.min(estimate), hi.max(estimate))
        } else {
            (lo, hi)
        };
        BootstrapCi {
            estimate,
            lo,
            hi,
            resamples,
            confidence: opts.confidence,
            seed: opts.seed,
        }
    }
}

/// The PRNG every resampling in tickbook uses.
pub fn rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

/// Which side of a ratio a resampling is for. Each side has its own stream
/// (the denominator's is the seed's jumped 2¹²⁸ ahead), so a baseline
/// compared with many files or configurations is resampled once and its
/// replicates shared, and a statistic's replicates over the seed's stream
/// are both its own CI and the numerator of its ratios.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Over,
    Under,
}

/// The stream of `side` for `seed`.
pub fn side_rng(seed: u64, side: Side) -> Xoshiro256PlusPlus {
    let mut r = rng(seed);
    if side == Side::Under {
        r.jump();
    }
    r
}

/// A statistic on the data and its bootstrap replicates.
#[derive(Debug, Clone)]
pub struct Replicates {
    pub estimate: f64,
    pub reps: Vec<f64>,
}

impl Replicates {
    /// The percentile CI of the statistic.
    pub fn ci(&self, opts: &BootstrapOptions) -> Option<BootstrapCi> {
        interval_from(self.estimate, self.reps.clone(), opts)
    }

    /// Percentile CI of self's statistic over `under`'s, replicate by
    /// replicate (both made with the same options, from their sides' streams).
    pub fn ratio_ci(&self, under: &Replicates, opts: &BootstrapOptions) -> Option<BootstrapCi> {
        let ratios = self
            .reps
            .iter()
            .zip(&under.reps)
            .map(|(a, b)| a / b)
            .collect();
        interval_from(self.estimate / under.estimate, ratios, opts)
    }
}

/// A uniform index in 0..n (n ≥ 1), exactly uniform, by Lemire's
/// multiply-shift with rejection on a 32-bit draw (the upper half of one
/// Xoshiro256++ output): index = ⌊u·n / 2³²⌋, u redrawn while the low half
/// of u·n is below 2³² mod n (at most n / 2³² of draws, about 1 in 4,300
/// for a million values). A 32 × 32 → 64-bit product is one instruction in
/// WebAssembly, where the former 64 × 64 → 128-bit one was emulated and
/// made the draw 3.7 times slower than natively. Counts of 2³² or more take
/// one 64-bit draw (bias below n / 2⁶⁴). The same stream on every platform.
#[inline(always)]
pub fn index(r: &mut impl rand::Rng, n: usize) -> usize {
    match u32::try_from(n) {
        Ok(n32) if n32 > 0 => index_u32(r, n32) as usize,
        _ => ((u128::from(r.next_u64()) * n as u128) >> 64) as usize,
    }
}

/// [`index`] for a count known to fit 32 bits (the same draws): spares
/// the width test where counts are checked once, not per draw. 0 for n = 0.
#[inline(always)]
pub fn index_u32(r: &mut impl rand::Rng, n: u32) -> u32 {
    lemire(u64::from(r.next_u32()) * u64::from(n), n, r)
}

/// The rest of [`index_u32`] once its first draw u is made: `m` = u·n,
/// redrawn from `r` while rejected.
#[inline(always)]
pub fn lemire(mut m: u64, n: u32, r: &mut impl rand::Rng) -> u32 {
    if (m as u32) < n {
        // 2³² mod n: the draws of the low half below it are the surplus
        // that would favour the first indices.
        let t = n.wrapping_neg() % n;
        while (m as u32) < t {
            m = u64::from(r.next_u32()) * u64::from(n);
        }
    }
    (m >> 32) as u32
}

/// Percentile bootstrap CI of `stat` over `data` (resampled with
/// replacement, same size). `None` for empty data, no resamples, or a
/// confidence outside (0, 1).
pub fn percentile_ci(
    data: &[f64],
    mut stat: impl FnMut(&[f64]) -> f64,
    opts: &BootstrapOptions,
) -> Option<BootstrapCi> {
    if data.is_empty() || opts.resamples == 0 || !(opts.confidence > 0.0 && opts.confidence < 1.0) {
        return None;
    }
    let mut r = rng(opts.seed);
    let mut buf = vec![0.0; data.len()];
    let mut stats = Vec::with_capacity(opts.resamples);
    for _ in 0..opts.resamples {
        for b in buf.iter_mut() {
            *b = data[index(&mut r, data.len())];
        }
        stats.push(stat(&buf));
    }
    interval_from(stat(data), stats, opts)
}

/// Percentile interval from already computed bootstrap replicates
/// (non-finite replicates are dropped), held to contain the estimate
/// ([`BootstrapCi::around`]).
pub fn interval_from(
    estimate: f64,
    mut replicates: Vec<f64>,
    opts: &BootstrapOptions,
) -> Option<BootstrapCi> {
    replicates.retain(|x| x.is_finite());
    let alpha = 1.0 - opts.confidence;
    // By selection, not a sort: the same values, in a fraction of the time.
    let lo = quantile_in_place(&mut replicates, alpha / 2.0, QuantileType::TYPE7)?;
    let hi = quantile_in_place(&mut replicates, 1.0 - alpha / 2.0, QuantileType::TYPE7)?;
    Some(BootstrapCi::around(
        estimate,
        lo,
        hi,
        replicates.len(),
        opts,
    ))
}

/// The type 7 median (a statistic for [`percentile_ci`]); NaN when empty.
pub fn median(xs: &[f64]) -> f64 {
    median_in_place(&mut xs.to_vec())
}

/// The type 7 median, reordering `xs`: selection instead of a sort (bootstraps
/// take thousands of medians), with `quantile_sorted`'s arithmetic
/// ((1 − h)·lo + h·hi, h = ½), so the value is the same to the bit.
pub fn median_in_place(xs: &mut [f64]) -> f64 {
    let n = xs.len();
    if n == 0 {
        return f64::NAN;
    }
    let (_, m, upper) = xs.select_nth_unstable_by((n - 1) / 2, f64::total_cmp);
    let lo = *m;
    if n % 2 == 1 {
        return lo;
    }
    let hi = upper.iter().copied().min_by(f64::total_cmp).unwrap_or(lo);
    if lo == hi {
        lo
    } else {
        0.5 * lo + 0.5 * hi
    }
}

/// Medians of bootstrap resamples without selecting in each resample: the
/// data is ranked once, a resample's indices are counted by rank, and its
/// median is read off the cumulative counts (the data sorted once is
/// monotone in rank). The same indices as [`percentile_ci`] draws, in the
/// same order, and [`median_in_place`]'s arithmetic, so every replicate is
/// the same to the bit; the selection was most of a median bootstrap's time.
pub struct MedianResampler<'a> {
    data: &'a [f64],
    sorted: Vec<f64>,
    rank: Vec<u32>,
    counts: Vec<u32>,
}

impl<'a> MedianResampler<'a> {
    /// `None` for empty data (or more values than ranks fit in u32).
    pub fn new(data: &'a [f64]) -> Option<Self> {
        let n = data.len();
        if n == 0 || u32::try_from(n).is_err() {
            return None;
        }
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by(|&i, &j| data[i as usize].total_cmp(&data[j as usize]));
        let mut rank = vec![0u32; n];
        for (r, &i) in order.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        let sorted = order.iter().map(|&i| data[i as usize]).collect();
        Some(MedianResampler {
            data,
            sorted,
            rank,
            counts: vec![0; n],
        })
    }

    /// The median of one resample (n draws with replacement from `r`).
    pub fn resample(&mut self, r: &mut impl rand::Rng) -> f64 {
        let n = self.data.len();
        self.counts.fill(0);
        for _ in 0..n {
            self.counts[self.rank[index(r, n)] as usize] += 1;
        }
        // The k-th and (k+1)-th smallest (0-based) of the resample.
        let k = (n - 1) / 2;
        let mut seen = 0usize;
        let mut lo = None;
        for (rank, &c) in self.counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            seen += c as usize;
            if lo.is_none() && seen > k {
                lo = Some(self.sorted[rank]);
                if n % 2 == 1 {
                    break;
                }
            }
            if lo.is_some() && seen > k + 1 {
                let lo = lo.unwrap_or(f64::NAN);
                let hi = self.sorted[rank];
                return if lo == hi { lo } else { 0.5 * lo + 0.5 * hi };
            }
        }
        lo.unwrap_or(f64::NAN)
    }

    /// The median of the data itself.
    pub fn median(&self) -> f64 {
        let n = self.sorted.len();
        let lo = self.sorted[(n - 1) / 2];
        if n % 2 == 1 {
            return lo;
        }
        let hi = self.sorted[n / 2];
        if lo == hi {
            lo
        } else {
            0.5 * lo + 0.5 * hi
        }
    }
}

/// [`percentile_ci`] of the median, the same interval to the bit, faster
/// (see [`MedianResampler`]).
pub fn median_ci(data: &[f64], opts: &BootstrapOptions) -> Option<BootstrapCi> {
    if data.is_empty() || opts.resamples == 0 || !(opts.confidence > 0.0 && opts.confidence < 1.0) {
        return None;
    }
    median_replicates(data, opts, Side::Over)?.ci(opts)
}

/// The median of `data` and `resamples` bootstrap replicates of it from
/// `side`'s stream of `opts.seed` (`None` for empty data); over the seed's
/// own stream, `median_ci`'s.
pub fn median_replicates(data: &[f64], opts: &BootstrapOptions, side: Side) -> Option<Replicates> {
    let mut m = MedianResampler::new(data)?;
    let mut r = side_rng(opts.seed, side);
    let reps = (0..opts.resamples).map(|_| m.resample(&mut r)).collect();
    Some(Replicates {
        estimate: m.median(),
        reps,
    })
}

/// The mean (a statistic for [`percentile_ci`]); NaN when empty.
pub fn mean(xs: &[f64]) -> f64 {
    super::moments::Welford::from_slice(xs)
        .mean()
        .unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::quantile::quantile_sorted;
    use rand::RngExt;

    #[test]
    fn median_ci_is_percentile_ci_of_the_median_to_the_bit() {
        let mut r = rng(3);
        for n in [1usize, 2, 3, 4, 7, 10, 31, 100, 501] {
            // Ties included: values on a coarse grid.
            let xs: Vec<f64> = (0..n)
                .map(|_| (r.random_range(0..40) as f64) * 0.25)
                .collect();
            let o = BootstrapOptions {
                resamples: 300,
                ..BootstrapOptions::default()
            };
            assert_eq!(
                median_ci(&xs, &o),
                percentile_ci(&xs, median, &o),
                "n = {n}"
            );
        }
    }

    #[test]
    fn index_is_in_range_and_uniform() {
        let mut r = rng(7);
        assert!((0..1000).all(|_| index(&mut r, 1) == 0));
        assert!((0..100_000).all(|_| index(&mut r, 1000) < 1000));
        let mut counts = [0usize; 3];
        for _ in 0..300_000 {
            counts[index(&mut r, 3)] += 1;
        }
        // Each within 1 % of 100,000 (the binomial SD is about 260).
        assert!(
            counts.iter().all(|&c| c.abs_diff(100_000) < 1000),
            "{counts:?}"
        );
    }

    /// A generator replaying given 32-bit draws (as the upper halves of its
    /// 64-bit outputs, as Xoshiro256++ gives them).
    struct Replay(Vec<u32>);
    impl rand::TryRng for Replay {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            Ok(self.0.remove(0))
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            Ok(u64::from(self.try_next_u32()?) << 32)
        }
        fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
            Ok(())
        }
    }

    /// The draws Lemire's method rejects are redrawn, the others map to
    /// ⌊u·n / 2³²⌋: for n = 3, 2³² mod 3 = 1, so only u = 0 is rejected;
    /// for n = 2³¹ + 1, 2³² mod n = 2³¹ − 1, so u = 2 (low half 2) is and
    /// u = 1 (low half 2³¹ + 1) is not.
    #[test]
    fn index_rejects_exactly_the_surplus_draws() {
        let mut r = Replay(vec![0, 5, u32::MAX]);
        assert_eq!(index(&mut r, 3), 0); // 0 rejected, 5 → 0
        assert_eq!(index(&mut r, 3), 2);
        assert!(r.0.is_empty());
        let n = (1usize << 31) + 1;
        let mut r = Replay(vec![2, 1, 3]);
        assert_eq!(index(&mut r, n), 0); // 2 rejected, 1 → 0
        assert_eq!(index(&mut r, n), 1); // 3·n = 2³² + 2³¹ + 3: low half 2³¹ + 3 ≥ t
        assert!(r.0.is_empty());
    }

    #[test]
    fn median_by_selection_equals_the_sorted_type_7_median() {
        let mut r = rng(3);
        for n in 1..40 {
            let xs: Vec<f64> = (0..n).map(|_| r.random_range(-1e3..1e3) / 7.0).collect();
            let mut v = xs.clone();
            v.sort_by(f64::total_cmp);
            let want = quantile_sorted(&v, 0.5, QuantileType::TYPE7).unwrap();
            assert_eq!(median(&xs).to_bits(), want.to_bits(), "n = {n}");
        }
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn deterministic_for_a_seed() {
        let data: Vec<f64> = (0..50).map(|i| (i as f64 * 0.37).sin() + 2.0).collect();
        let o = BootstrapOptions {
            resamples: 2000,
            ..Default::default()
        };
        let a = percentile_ci(&data, mean, &o).unwrap();
        let b = percentile_ci(&data, mean, &o).unwrap();
        assert_eq!(a, b);
        let c = percentile_ci(&data, mean, &BootstrapOptions { seed: 1, ..o }).unwrap();
        assert_ne!(a.lo, c.lo);
        assert!(a.lo < a.estimate && a.estimate < a.hi);
    }

    /// For the mean of n normal-ish values the percentile interval is close
    /// to mean ± z·s/√n.
    #[test]
    fn agrees_with_the_normal_interval_for_the_mean() {
        let mut r = rng(42);
        let data: Vec<f64> = (0..400)
            .map(|_| (0..12).map(|_| r.random::<f64>()).sum::<f64>() - 6.0)
            .collect();
        let ci = percentile_ci(&data, mean, &BootstrapOptions::default()).unwrap();
        let w = super::super::moments::Welford::from_slice(&data);
        let half = 1.959963984540054 * w.sd().unwrap() / 20.0;
        assert!(
            (ci.hi - ci.lo - 2.0 * half).abs() / (2.0 * half) < 0.08,
            "{ci:?} {half}"
        );
    }

    #[test]
    fn degenerate() {
        assert!(percentile_ci(&[], mean, &BootstrapOptions::default()).is_none());
        let one = percentile_ci(&[3.0], mean, &BootstrapOptions::default()).unwrap();
        assert_eq!((one.lo, one.hi), (3.0, 3.0));
    }
}
