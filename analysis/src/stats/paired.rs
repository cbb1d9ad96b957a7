//! Paired comparisons: two commands measured once each per round, compared
//! round by round. The ratio of a round's pair removes what the two runs of
//! a round share (a load spike, the CPU's frequency at that moment), so the
//! spread left is of the commands, not of the machine over time.
//!
//! - [`geometric_mean_ratio`]: exp(mean of the rounds' log ratios) with a
//!   percentile CI by resampling whole rounds (the crate's seeded bootstrap).
//! - [`wilcoxon`]: the Wilcoxon signed-rank test of the log ratios, two-sided,
//!   as `scipy.stats.wilcoxon(d)` computes it with its defaults
//!   (`zero_method='wilcox'`: zeros dropped; no continuity correction): the
//!   exact null distribution for at most 50 differences with no zeros and no
//!   ties, else the normal approximation with the tie correction. (scipy
//!   enumerates a permutation distribution for ≤ 13 differences with ties;
//!   times of a monotonic clock in ns rarely tie, and the normal form is
//!   used there.) Written here because statrs has no signed-rank test.

use super::bootstrap::{mean, percentile_ci, BootstrapCi, BootstrapOptions};
use super::spearman::average_ranks;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

pub use super::mann_whitney::Method;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SignedRank {
    /// scipy's `statistic` for the two-sided test: min(R⁺, R⁻).
    pub statistic: f64,
    /// The sum of the ranks of the positive differences.
    pub r_plus: f64,
    /// Differences used (non-zero ones).
    pub n: usize,
    pub p_value: f64,
    pub method: Method,
}

/// Above this many differences scipy's `auto` takes the normal form.
const EXACT_MAX: usize = 50;

/// The two-sided signed-rank test of `d` against a median of 0. `None` when
/// a value is not finite or no difference is non-zero.
pub fn wilcoxon(d: &[f64]) -> Option<SignedRank> {
    if d.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let zeros = d.iter().filter(|x| **x == 0.0).count();
    let nz: Vec<f64> = d.iter().copied().filter(|x| *x != 0.0).collect();
    let n = nz.len();
    if n == 0 {
        return None;
    }
    let abs: Vec<f64> = nz.iter().map(|x| x.abs()).collect();
    let ranks = average_ranks(&abs);
    let r_plus: f64 = nz
        .iter()
        .zip(&ranks)
        .filter(|(x, _)| **x > 0.0)
        .map(|(_, r)| r)
        .sum();
    let f = n as f64;
    let total = f * (f + 1.0) / 2.0;
    let r_minus = total - r_plus;
    let mut sorted = abs;
    sorted.sort_by(f64::total_cmp);
    let (mut tie_term, mut ties) = (0.0, false);
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && sorted[j] == sorted[i] {
            j += 1;
        }
        let t = (j - i) as f64;
        ties |= j - i > 1;
        tie_term += t * t * t - t;
        i = j;
    }
    let statistic = r_plus.min(r_minus);
    if d.len() <= EXACT_MAX && zeros == 0 && !ties {
        // Counts of subsets of 1..=n by their sum: the null distribution of
        // R⁺ (every sign equally likely). At most 50·51/2 + 1 sums.
        let max = n * (n + 1) / 2;
        let mut counts = vec![0f64; max + 1];
        counts[0] = 1.0;
        for k in 1..=n {
            for s in (k..=max).rev() {
                counts[s] += counts[s - k];
            }
        }
        let all = 2f64.powi(n as i32);
        let w = r_plus.round() as usize;
        let cdf: f64 = counts[..=w.min(max)].iter().sum::<f64>() / all;
        let sf: f64 = counts[w.min(max)..].iter().sum::<f64>() / all;
        return Some(SignedRank {
            statistic,
            r_plus,
            n,
            p_value: (2.0 * cdf.min(sf)).min(1.0),
            method: Method::Exact,
        });
    }
    let mn = total / 2.0;
    let se = ((f * (f + 1.0) * (2.0 * f + 1.0) - tie_term / 2.0) / 24.0).sqrt();
    let p_value = if se > 0.0 {
        let z = (r_plus - mn) / se;
        let normal = Normal::new(0.0, 1.0).ok()?;
        (2.0 * normal.sf(z.abs())).min(1.0)
    } else {
        1.0
    };
    Some(SignedRank {
        statistic,
        r_plus,
        n,
        p_value,
        method: Method::Asymptotic,
    })
}

/// exp(mean of `log_ratios`) with its percentile CI, the rounds resampled
/// with replacement (`percentile_ci`: the crate's seeded stream). `None`
/// for no rounds or a value that is not finite.
pub fn geometric_mean_ratio(log_ratios: &[f64], opts: &BootstrapOptions) -> Option<BootstrapCi> {
    if log_ratios.is_empty() || log_ratios.iter().any(|x| !x.is_finite()) {
        return None;
    }
    percentile_ci(log_ratios, |xs| mean(xs).exp(), opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_cases_by_hand() {
        // Five positive differences: R⁺ = 15, the most extreme of 32 sign
        // patterns; two-sided p = 2/32.
        let t = wilcoxon(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert_eq!(
            (t.r_plus, t.statistic, t.method),
            (15.0, 0.0, Method::Exact)
        );
        assert!((t.p_value - 0.0625).abs() < 1e-15);
        // Symmetric: p = 1.
        let t = wilcoxon(&[1.0, -2.0, -3.0, 4.0, 5.0, -6.5, 6.0, -4.5]).unwrap();
        assert!(t.p_value > 0.5);
        assert!(wilcoxon(&[0.0, 0.0]).is_none());
        assert!(wilcoxon(&[1.0, f64::NAN]).is_none());
    }

    #[test]
    fn geometric_mean_of_equal_ratios() {
        let l = vec![(1.1f64).ln(); 20];
        let ci = geometric_mean_ratio(&l, &BootstrapOptions::default()).unwrap();
        assert!((ci.estimate - 1.1).abs() < 1e-12);
        assert!((ci.lo - 1.1).abs() < 1e-12 && (ci.hi - 1.1).abs() < 1e-12);
    }
}
