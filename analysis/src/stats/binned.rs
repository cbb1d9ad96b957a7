//! Resampling big executions by counts of near-equal values.
//!
//! A bootstrap replicate of an execution of n measurements draws n of them
//! with replacement; a shuffle of a series deals its measurements out to the
//! executions. Done value by value, both cost O(n) random reads per replicate:
//! a series of 10⁶ measurements and 2,000 replicates is 2·10⁹ reads. The
//! statistics that read them (execution means and variances) need only each
//! resampled group's sums Σd and Σd² (d: deviations from a centre), and those
//! follow from how many values each stretch of the sorted data received:
//!
//! * the sorted values are cut into bins no wider than [`WIDTH`] times the
//!   data's SD (a value alone is a bin, so an outlier is always its own);
//! * the counts per bin are drawn exactly: multinomial (with replacement)
//!   or multivariate hypergeometric (a shuffle), as conditional binomial or
//!   hypergeometric draws, one per bin;
//! * a bin's share of the sums is exact when its values are equal or it
//!   received few of them (those are drawn one by one); otherwise its values'
//!   deviation from the bin's mean is summed as a normal variable with the
//!   exact mean and variance. That term's SD is at most [`WIDTH`]/2 · √(c/n)
//!   of the group's (c draws of n), so it changes replicates by well under
//!   1 % of their spread; analysis/tests/binned.rs checks intervals against the
//!   value-by-value resampling.
//!
//! No library offers this (bootstrap crates resample values); the draws
//! themselves come from rand_distr.

use rand::RngExt;
use rand_distr::{Binomial, Distribution, Hypergeometric, StandardNormal};

/// Executions (and, for shuffles, series) from this many measurements on
/// are resampled by bins; shorter ones value by value, as every bootstrap
/// does. Below it the bins would cost about what the values do.
pub const BINNED_FROM: usize = 32_768;

/// A bin spans at most this fraction of the data's SD.
pub const WIDTH: f64 = 1.0 / 32.0;

/// A bin that receives at most this many draws has them made one by one.
const EXACT_UP_TO: u64 = 16;

/// A bin of at most this many values is dealt out exactly in a shuffle.
const EXACT_BIN: usize = 64;

/// Sorted deviations from a centre, cut into narrow bins.
#[derive(Debug, Clone)]
pub struct Bins {
    /// Deviations from the centre, sorted.
    sorted: Vec<f64>,
    /// Where each bin starts in `sorted`, then `sorted.len()`.
    starts: Vec<usize>,
    /// Each bin's mean deviation.
    mean: Vec<f64>,
    /// Each bin's variance about its mean (divisor: its size).
    var: Vec<f64>,
}

impl Bins {
    /// `values` less `centre`, sorted and binned. Non-finite values make no
    /// sense here: callers resample finite data.
    pub fn new(values: &[f64], centre: f64) -> Bins {
        let mut sorted: Vec<f64> = values.iter().map(|x| x - centre).collect();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len().max(1) as f64;
        let mean = sorted.iter().sum::<f64>() / n;
        let sd = (sorted.iter().map(|d| (d - mean) * (d - mean)).sum::<f64>() / n).sqrt();
        let width = WIDTH * sd;
        let mut starts = Vec::new();
        let mut i = 0;
        while i < sorted.len() {
            starts.push(i);
            let lo = sorted[i];
            i += sorted[i..].partition_point(|&d| d - lo <= width);
        }
        starts.push(sorted.len());
        let (mut means, mut vars) = (Vec::new(), Vec::new());
        for w in starts.windows(2) {
            let bin = &sorted[w[0]..w[1]];
            let k = bin.len() as f64;
            let m = bin.iter().sum::<f64>() / k;
            means.push(m);
            vars.push(bin.iter().map(|d| (d - m) * (d - m)).sum::<f64>() / k);
        }
        Bins {
            sorted,
            starts,
            mean: means,
            var: vars,
        }
    }

    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// Bins made.
    pub fn bins(&self) -> usize {
        self.mean.len()
    }

    fn bin(&self, b: usize) -> &[f64] {
        &self.sorted[self.starts[b]..self.starts[b + 1]]
    }

    /// Σd and Σd² of a with-replacement resample of as many values as there
    /// are (the bootstrap's draw of one execution).
    // Inline: its callers, the bootstrap's loops in stats::executions, are
    // in other modules (see the release profile's codegen-units).
    #[inline]
    pub fn resample_sums(&self, r: &mut impl rand::Rng) -> (f64, f64) {
        let (mut s1, mut s2) = (0.0, 0.0);
        let mut draws = self.sorted.len() as u64;
        let mut values = draws;
        for b in 0..self.bins() {
            if draws == 0 {
                break;
            }
            let bin = self.bin(b);
            let size = bin.len() as u64;
            let c = if size == values {
                draws
            } else {
                binomial(r, draws, size as f64 / values as f64)
            };
            values -= size;
            draws -= c;
            if c == 0 {
                continue;
            }
            let (m, v) = (self.mean[b], self.var[b]);
            let cf = c as f64;
            if v == 0.0 {
                s1 += cf * m;
                s2 += cf * m * m;
            } else if c <= EXACT_UP_TO {
                for _ in 0..c {
                    let d = bin[super::bootstrap::index(r, bin.len())];
                    s1 += d;
                    s2 += d * d;
                }
            } else {
                let e1 = (cf * v).sqrt() * r.sample::<f64, _>(StandardNormal);
                s1 += cf * m + e1;
                s2 += cf * m * m + 2.0 * m * e1 + cf * v;
            }
        }
        (s1, s2)
    }

    /// Σd and Σd² of each group when the values are dealt out at random to
    /// groups of `sizes` (summing to the values): a shuffle of the series
    /// cut into its executions. `scratch` keeps its allocation between calls.
    // Inline, as `resample_sums`.
    #[inline]
    pub fn shuffle_sums(
        &self,
        sizes: &[usize],
        r: &mut impl rand::Rng,
        scratch: &mut ShuffleScratch,
    ) -> Vec<(f64, f64)> {
        let bins = self.bins();
        let s = scratch;
        s.left.clear();
        s.left
            .extend((0..bins).map(|b| (self.starts[b + 1] - self.starts[b]) as u64));
        // The deviations from its mean a bin still holds, in sum.
        s.rest.clear();
        s.rest.resize(bins, 0.0);
        // The exact bins' values, taken by swaps within their bin: any order
        // of a bin's values serves the next shuffle as well, so they are
        // copied once, not per shuffle.
        if s.values.len() != self.sorted.len() {
            s.values.clone_from(&self.sorted);
        }
        let mut out = vec![(0.0, 0.0); sizes.len()];
        let mut pool: u64 = self.sorted.len() as u64;
        for (g, &n) in sizes.iter().enumerate() {
            let last = g + 1 == sizes.len();
            let mut need = n as u64;
            let mut unseen = pool;
            let (mut s1, mut s2) = (0.0, 0.0);
            for b in 0..bins {
                if need == 0 {
                    break;
                }
                let left = s.left[b];
                if left == 0 {
                    continue;
                }
                let k = if last || left == unseen {
                    need.min(left)
                } else {
                    hypergeometric(r, unseen, left, need)
                };
                unseen -= left;
                need -= k;
                if k == 0 {
                    continue;
                }
                let (m, v) = (self.mean[b], self.var[b]);
                let start = self.starts[b];
                let size = self.starts[b + 1] - start;
                let kf = k as f64;
                if v == 0.0 {
                    s1 += kf * m;
                    s2 += kf * m * m;
                } else if size <= EXACT_BIN {
                    // Take k of the bin's remaining values (its first `left`
                    // slots), each swapped to the end of them.
                    let bin = &mut s.values[start..start + size];
                    let mut l = left as usize;
                    for _ in 0..k {
                        let j = super::bootstrap::index(r, l);
                        let d = bin[j];
                        s1 += d;
                        s2 += d * d;
                        bin.swap(j, l - 1);
                        l -= 1;
                    }
                } else {
                    // The bin's remaining values sum to `rest` about its mean;
                    // k of `left` of them drawn without replacement sum to
                    // about k/left of it, with the finite-population variance.
                    let e1 = if k == left {
                        s.rest[b]
                    } else {
                        let lf = left as f64;
                        let var = kf * v * (lf - kf) / (lf - 1.0);
                        kf / lf * s.rest[b] + var.sqrt() * r.sample::<f64, _>(StandardNormal)
                    };
                    s.rest[b] -= e1;
                    s1 += kf * m + e1;
                    s2 += kf * m * m + 2.0 * m * e1 + kf * v;
                }
                s.left[b] = left - k;
            }
            pool -= n as u64;
            out[g] = (s1, s2);
        }
        out
    }
}

/// Scratch space for [`Bins::shuffle_sums`].
#[derive(Debug, Default)]
pub struct ShuffleScratch {
    left: Vec<u64>,
    rest: Vec<f64>,
    values: Vec<f64>,
}

/// Binomial(n, p); p outside (0, 1) gives 0 or n.
fn binomial(r: &mut impl rand::Rng, n: u64, p: f64) -> u64 {
    if p <= 0.0 {
        return 0;
    }
    if p >= 1.0 {
        return n;
    }
    match Binomial::new(n, p) {
        Ok(d) => d.sample(r),
        Err(_) => 0,
    }
}

/// Successes among `draws` taken without replacement from `total` items of
/// which `good` succeed. rand_distr's sampler, for a small mean, sets up
/// its inversion with a loop over the whole population (tens of
/// microseconds for a million); here that case inverts from P(0) by
/// log-gamma, and rand_distr's H2PE takes the rest.
fn hypergeometric(r: &mut impl rand::Rng, total: u64, good: u64, draws: u64) -> u64 {
    if good == 0 || draws == 0 {
        return 0;
    }
    if good >= total {
        return draws;
    }
    if draws >= total {
        return good;
    }
    // Count the rarer kind among the smaller side: successes among the
    // draws are the draws less the failures among them, and the successes
    // less those left undrawn.
    let (g, flip_good) = if good > total - good {
        (total - good, true)
    } else {
        (good, false)
    };
    let (d, flip_draws) = if draws > total / 2 {
        (total - draws, true)
    } else {
        (draws, false)
    };
    let mut x = hypergeometric_small_side(r, total, g, d);
    if flip_draws {
        x = g - x;
    }
    if flip_good {
        x = draws - x;
    }
    x
}

/// [`hypergeometric`] with `good` and `draws` at most half of `total`.
fn hypergeometric_small_side(r: &mut impl rand::Rng, total: u64, good: u64, draws: u64) -> u64 {
    let mean = good as f64 * draws as f64 / total as f64;
    if mean >= 16.0 {
        if let Ok(h) = Hypergeometric::new(total, good, draws) {
            return h.sample(r);
        }
    }
    use statrs::function::gamma::ln_gamma;
    let ln_choose = |n: u64, k: u64| {
        ln_gamma(n as f64 + 1.0) - ln_gamma(k as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0)
    };
    // P(0) = C(total − good, draws) / C(total, draws), then
    // P(x + 1) = P(x)·(good − x)(draws − x) / ((x + 1)(total − good − draws + x + 1)).
    let mut p = (ln_choose(total - good, draws) - ln_choose(total, draws)).exp();
    let mut u: f64 = r.random();
    let top = good.min(draws);
    let mut x = 0u64;
    while u > p && x < top {
        u -= p;
        p *= (good - x) as f64 * (draws - x) as f64
            / ((x + 1) as f64 * (total - good - draws + x + 1) as f64);
        x += 1;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::bootstrap::rng;

    #[test]
    fn bins_are_narrow_sorted_and_cover_every_value() {
        let mut r = rng(3);
        let xs: Vec<f64> = (0..50_000)
            .map(|i| {
                let u: f64 = r.random();
                if i % 997 == 0 {
                    1e4 * u
                } else {
                    100.0 + u
                }
            })
            .collect();
        let b = Bins::new(&xs, 100.0);
        assert_eq!(b.len(), xs.len());
        assert_eq!(*b.starts.last().unwrap(), xs.len());
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
        for k in 0..b.bins() {
            let bin = b.bin(k);
            assert!(!bin.is_empty());
            assert!(bin[bin.len() - 1] - bin[0] <= WIDTH * sd * (1.0 + 1e-12));
        }
        assert!(b.sorted.windows(2).all(|w| w[0] <= w[1]));
        assert!(b.bins() < xs.len() / 20, "{} bins", b.bins());
    }

    #[test]
    fn hypergeometric_draws_have_the_exact_mean_and_variance() {
        // Mean k·K/N, variance k·(K/N)(1 − K/N)(N − k)/(N − 1), across the
        // inversion, H2PE and every flip; 20,000 draws put the sample mean
        // within 5 SE.
        let mut r = rng(11);
        for (total, good, draws) in [
            (1_000_000u64, 40, 200_000),
            (1_000_000, 999_950, 200_000),
            (1_000_000, 40, 900_000),
            (1_000_000, 5_000, 200_000),
            (1_000_000, 600_000, 700_000),
            (50, 7, 9),
        ] {
            let (n, k, d) = (total as f64, good as f64, draws as f64);
            let mean = d * k / n;
            let var = d * (k / n) * (1.0 - k / n) * (n - d) / (n - 1.0);
            let xs: Vec<f64> = (0..20_000)
                .map(|_| hypergeometric(&mut r, total, good, draws) as f64)
                .collect();
            assert!(xs.iter().all(|&x| x <= d.min(k)));
            let m = xs.iter().sum::<f64>() / xs.len() as f64;
            let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (xs.len() - 1) as f64;
            let se = (var / xs.len() as f64).sqrt();
            assert!(
                (m - mean).abs() < 5.0 * se,
                "{total} {good} {draws}: mean {m} vs {mean}"
            );
            assert!(
                (v / var - 1.0).abs() < 0.1,
                "{total} {good} {draws}: variance {v} vs {var}"
            );
        }
    }

    #[test]
    fn equal_values_resample_to_themselves() {
        let b = Bins::new(&vec![5.0; 40_000], 2.0);
        let (s1, s2) = b.resample_sums(&mut rng(1));
        assert_eq!(s1, 3.0 * 40_000.0);
        assert_eq!(s2, 9.0 * 40_000.0);
        let sums = b.shuffle_sums(
            &[10_000, 30_000],
            &mut rng(2),
            &mut ShuffleScratch::default(),
        );
        assert_eq!(sums, vec![(30_000.0, 90_000.0), (90_000.0, 270_000.0)]);
    }

    #[test]
    fn a_shuffle_deals_out_every_value_once() {
        // The groups' sums add up to the whole's, exactly for a data set of
        // few distinct values (every bin exact) and to rounding otherwise.
        let mut r = rng(5);
        let xs: Vec<f64> = (0..60_000)
            .map(|i| f64::from(i % 7) + 0.5 * r.random::<f64>())
            .collect();
        let b = Bins::new(&xs, 3.0);
        let total1: f64 = xs.iter().map(|x| x - 3.0).sum();
        let total2: f64 = xs.iter().map(|x| (x - 3.0) * (x - 3.0)).sum();
        let mut scratch = ShuffleScratch::default();
        for seed in 0..5 {
            let sums = b.shuffle_sums(&[20_000, 15_000, 25_000], &mut rng(seed), &mut scratch);
            let s1: f64 = sums.iter().map(|s| s.0).sum();
            let s2: f64 = sums.iter().map(|s| s.1).sum();
            assert!(
                (s1 - total1).abs() < 1e-6 * total2.sqrt(),
                "{s1} vs {total1}"
            );
            // Σd² of the approximated bins carries each bin's exact variance
            // once over all groups.
            assert!((s2 - total2).abs() < 1e-9 * total2, "{s2} vs {total2}");
        }
    }
}
