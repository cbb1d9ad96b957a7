//! Shuffles of a series' measurements across its executions (each keeps its
//! size), the impact factor's null, made three ways: value by value (the
//! pool shuffled whole, each execution's sums taken as it is dealt), by
//! counts of bins of near-equal values for a big series (stats::binned),
//! and lazily, only at the positions the paper's statistic reads.

use super::paper::{paper_statistic, Groups, Scratch};
use super::starts;
use crate::stats::binned::{Bins, ShuffleScratch, BINNED_FROM};
use crate::stats::bootstrap::{index, index_u32, lemire};
use crate::stats::moments::Welford;
use crate::stats::pcg::Pcg32;

/// A shuffle of a series' measurements across its executions (each keeps
/// its size), made only where it is read: the values at the positions read
/// are drawn from the pool without replacement in the order they are first
/// read, which is how a uniformly random permutation shows at those
/// positions. The paper's statistic reads a few thousand of a big series'
/// measurements; this spares dealing out all of them.
struct LazyShuffle<'a> {
    pool: &'a [f64],
    /// Pool positions moved by the sparse Fisher–Yates shuffle.
    moved: std::collections::HashMap<usize, usize>,
    /// Values already dealt, by position in the shuffled series.
    dealt: std::collections::HashMap<usize, f64>,
    next: usize,
}

impl<'a> LazyShuffle<'a> {
    fn new(pool: &'a [f64]) -> Self {
        LazyShuffle {
            pool,
            moved: Default::default(),
            dealt: Default::default(),
            next: 0,
        }
    }

    /// A fresh shuffle.
    fn reset(&mut self) {
        self.moved.clear();
        self.dealt.clear();
        self.next = 0;
    }
}

impl Groups for LazyShuffle<'_> {
    fn get(&mut self, at: usize, r: &mut impl rand::Rng) -> f64 {
        if let Some(&x) = self.dealt.get(&at) {
            return x;
        }
        let i = self.next;
        let j = i + index(r, self.pool.len() - i);
        let pick = *self.moved.get(&j).unwrap_or(&j);
        let here = *self.moved.get(&i).unwrap_or(&i);
        self.moved.insert(j, here);
        self.next += 1;
        let x = self.pool[pick];
        self.dealt.insert(at, x);
        x
    }
}

/// Shuffles of a series' measurements across its executions (each keeps its
/// size), for the impact factor's null.
pub(super) enum Shuffle<'a> {
    /// A big series: each shuffle dealt out by bins (stats::binned), and
    /// the paper's statistic reading a shuffle made where it reads.
    Binned(Box<BinnedShuffle<'a>>),
    /// Value by value: the pool shuffled whole, execution e at
    /// `starts[e]..starts[e + 1]`.
    Values {
        pool: Vec<f64>,
        starts: Vec<usize>,
        /// The pool's mean, the shift of the executions' sums.
        centre: f64,
    },
}

pub(super) struct BinnedShuffle<'a> {
    bins: Bins,
    centre: f64,
    sizes: Vec<usize>,
    deal: ShuffleScratch,
    lazy: LazyShuffle<'a>,
}

impl<'a> Shuffle<'a> {
    pub(super) fn new(pooled: &'a [f64], executions: &[Vec<f64>]) -> Self {
        let sizes: Vec<usize> = executions.iter().map(Vec::len).collect();
        match binned_pool(pooled, executions) {
            Some((bins, centre)) => Shuffle::Binned(Box::new(BinnedShuffle {
                bins,
                centre,
                lazy: LazyShuffle::new(pooled),
                sizes,
                deal: ShuffleScratch::default(),
            })),
            None => Shuffle::Values {
                pool: pooled.to_vec(),
                starts: starts(&sizes),
                centre: pooled.iter().sum::<f64>() / pooled.len().max(1) as f64,
            },
        }
    }

    /// The next shuffle's executions' moments.
    pub(super) fn next(&mut self, stream: &mut Pcg32) -> Vec<Welford> {
        match self {
            Shuffle::Binned(b) => {
                let BinnedShuffle {
                    bins,
                    centre,
                    sizes,
                    deal,
                    lazy,
                } = b.as_mut();
                lazy.reset();
                let w: Vec<Welford> = bins
                    .shuffle_sums(sizes, stream, deal)
                    .iter()
                    .zip(sizes.iter())
                    .map(|(&(s1, s2), &n)| Welford::from_shifted_sums(n as u64, *centre, s1, s2))
                    .collect();
                w
            }
            Shuffle::Values {
                pool,
                starts,
                centre,
            } => {
                // Fisher–Yates from the end: positions from i on are final
                // once i is swapped, so each execution's sums are taken as
                // soon as its positions are dealt, from the pool itself (no
                // copy into executions). The first execution gets what is
                // left, in whatever order: its sums, and the measurement a
                // uniform index picks from it, do not depend on the order,
                // so its positions are not shuffled.
                let c = *centre;
                // The generator in a local, out of the swaps' way (see
                // `paper_statistic`).
                let mut r = stream.clone();
                let mut w = vec![Welford::new(); starts.len() - 1];
                for e in (0..w.len()).rev() {
                    let (from, to) = (starts[e], starts[e + 1]);
                    if e > 0 {
                        // Position i − 1 swaps with one of 0..i: two
                        // swaps' draws from one step of the generator's
                        // chain, the same draws as one at a time.
                        let mut i = to;
                        let last = from.max(1);
                        while i >= last + 2 {
                            let (n1, n2) = (i as u32, (i - 1) as u32);
                            let (u1, u2, after_first) = r.pair();
                            let m1 = u64::from(u1) * u64::from(n1);
                            let (j1, j2) = if (m1 as u32) < n1 {
                                // The first may be redrawn: go on from it
                                // one draw at a time.
                                r = after_first;
                                let j1 = lemire(m1, n1, &mut r);
                                (j1, index_u32(&mut r, n2))
                            } else {
                                let m2 = u64::from(u2) * u64::from(n2);
                                ((m1 >> 32) as u32, lemire(m2, n2, &mut r))
                            };
                            pool.swap(i - 1, j1 as usize);
                            pool.swap(i - 2, j2 as usize);
                            i -= 2;
                        }
                        while i > last {
                            pool.swap(i - 1, index(&mut r, i));
                            i -= 1;
                        }
                    }
                    let (s1, s2) = shifted_sums(&pool[from..to], c);
                    w[e] = Welford::from_shifted_sums((to - from) as u64, c, s1, s2);
                }
                *stream = r;
                w
            }
        }
    }
}

impl Shuffle<'_> {
    /// The paper's statistic on the last shuffle (a shuffle dealt whole is
    /// read as a flat series: no dispatch per measurement). A method of its
    /// own: with the match written in its caller the samples analysis
    /// measured 5 % slower, natively and in wasm.
    pub(super) fn paper_statistic<R: rand::Rng + Clone>(
        &mut self,
        slots: &mut [usize],
        order: &[usize],
        g: usize,
        pairs: usize,
        stream: &mut R,
        s: &mut Scratch,
    ) -> Option<f64> {
        match self {
            Shuffle::Binned(b) => paper_statistic(&mut b.lazy, slots, order, g, pairs, stream, s),
            Shuffle::Values { pool, .. } => {
                paper_statistic(&mut &pool[..], slots, order, g, pairs, stream, s)
            }
        }
    }
}

/// The pooled measurements of a series binned for its shuffles
/// ([`Bins::shuffle_sums`]), with the centre of the bins' deviations: when
/// the series is big and the bins few enough per execution for dealing out
/// counts to cost less than dealing out values.
fn binned_pool(pooled: &[f64], executions: &[Vec<f64>]) -> Option<(Bins, f64)> {
    if pooled.len() < BINNED_FROM {
        return None;
    }
    let centre = pooled.iter().sum::<f64>() / pooled.len() as f64;
    let bins = Bins::new(pooled, centre);
    // A hypergeometric draw per bin and execution costs tens of swaps.
    (bins.bins() * executions.len() * 32 <= pooled.len()).then_some((bins, centre))
}

/// Σd and Σd² (d = x − c) over `xs`, taken in order into four sums in
/// turn: one sum's additions wait on each other (a floating-point add's
/// latency), four overlap.
fn shifted_sums(xs: &[f64], c: f64) -> (f64, f64) {
    let (mut a, mut b) = ([0.0f64; 4], [0.0f64; 4]);
    let mut quads = xs.chunks_exact(4);
    for q in &mut quads {
        for k in 0..4 {
            let d = q[k] - c;
            a[k] += d;
            b[k] += d * d;
        }
    }
    for &x in quads.remainder() {
        let d = x - c;
        a[0] += d;
        b[0] += d * d;
    }
    ((a[0] + a[1]) + (a[2] + a[3]), (b[0] + b[1]) + (b[2] + b[3]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::bootstrap::rng;
    use rand::SeedableRng;

    /// A value-by-value shuffle deals the pool out uniformly: over 24,000
    /// shuffles of 0, 1, 2, 3 (in that order) into executions of 2, 1 and
    /// 1, each of the 12 ordered pairs of the last two executions' values
    /// comes up about 2,000 times (a chi-square with 11 degrees of freedom
    /// below 35, p ≈ 0.0002), and the first execution holds the other two.
    #[test]
    fn a_value_shuffle_deals_uniformly() {
        let executions = vec![vec![0.0, 1.0], vec![2.0], vec![3.0]];
        let pooled: Vec<f64> = executions.iter().flatten().copied().collect();
        let mut shuffle = Shuffle::new(&pooled, &executions);
        let mut r = Pcg32::seed_from_u64(3);
        let mut counts = [[0u32; 4]; 4];
        let rounds = 24_000;
        for _ in 0..rounds {
            // From the same order every time: a shuffle that only moved
            // values along (one that never left a value in place, say)
            // would still look uniform over a chain of shuffles.
            if let Shuffle::Values { pool, .. } = &mut shuffle {
                pool.copy_from_slice(&pooled);
            }
            shuffle.next(&mut r);
            let Shuffle::Values { pool, .. } = &shuffle else {
                panic!("a small series is shuffled value by value");
            };
            let (a, b) = (pool[2] as usize, pool[3] as usize);
            assert_ne!(a, b);
            let mut rest: Vec<f64> = pool[..2].to_vec();
            rest.sort_by(f64::total_cmp);
            let expected: Vec<f64> = (0..4)
                .filter(|&v| v != a && v != b)
                .map(|v| v as f64)
                .collect();
            assert_eq!(rest, expected);
            counts[a][b] += 1;
        }
        let e = rounds as f64 / 12.0;
        let chi2: f64 = (0..4)
            .flat_map(|a| (0..4).filter(move |&b| b != a).map(move |b| (a, b)))
            .map(|(a, b)| (f64::from(counts[a][b]) - e).powi(2) / e)
            .sum();
        assert!(chi2 < 35.0, "χ² = {chi2}, counts {counts:?}");
    }

    #[test]
    fn a_lazy_shuffle_read_whole_is_a_uniform_permutation() {
        let pool: Vec<f64> = (0..12).map(f64::from).collect();
        let mut lazy = LazyShuffle::new(&pool);
        let mut r = rng(4);
        let mut first = [0usize; 12];
        for _ in 0..24_000 {
            lazy.reset();
            // Read out of order and twice: a position keeps its value.
            let mut seen: Vec<f64> = Vec::new();
            for at in [11, 0, 7, 11] {
                let x = lazy.get(at, &mut r);
                if at == 11 && !seen.is_empty() {
                    assert_eq!(x, seen[0]);
                    continue;
                }
                seen.push(x);
            }
            first[seen[0] as usize] += 1;
            let mut all: Vec<f64> = (0..12).map(|at| lazy.get(at, &mut r)).collect();
            all.sort_by(f64::total_cmp);
            assert_eq!(all, pool);
        }
        // Each value first 2,000 times, SD about 43.
        assert!(first.iter().all(|&c| c.abs_diff(2000) < 200), "{first:?}");
    }
}
