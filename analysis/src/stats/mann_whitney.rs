//! The Mann–Whitney U test, two-sided, as `scipy.stats.mannwhitneyu(x, y)`
//! computes it with its default `method='auto'`: the exact null distribution
//! when one sample has at most 8 values and there are no ties, else the
//! normal approximation with the tie correction and the continuity
//! correction. Google Benchmark's compare.py reports this test.

use super::spearman::average_ranks;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

/// How the p-value was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    Exact,
    Asymptotic,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MannWhitney {
    /// U of the first sample (scipy's `statistic`): the pairs (x, y) with
    /// x > y, ties counting one half.
    pub u: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    pub method: Method,
}

/// Above this many counts the exact distribution would not fit in i128;
/// scipy still computes it there, the normal approximation is then within
/// far less than any printed digit.
const EXACT_MAX_COUNTS: usize = 1_000_000;

/// The test of `x` against `y`; `None` when either is empty or a value is
/// not finite.
pub fn mann_whitney(x: &[f64], y: &[f64]) -> Option<MannWhitney> {
    let (n1, n2) = (x.len(), y.len());
    if n1 == 0 || n2 == 0 || x.iter().chain(y).any(|v| !v.is_finite()) {
        return None;
    }
    let all: Vec<f64> = x.iter().chain(y).copied().collect();
    let ranks = average_ranks(&all);
    let r1: f64 = ranks[..n1].iter().sum();
    let (f1, f2) = (n1 as f64, n2 as f64);
    let u1 = r1 - f1 * (f1 + 1.0) / 2.0;
    let u2 = f1 * f2 - u1;
    let u = u1.max(u2);
    // Tie sizes from the sorted pooled values.
    let mut sorted = all;
    sorted.sort_by(f64::total_cmp);
    let mut tie_term = 0.0;
    let mut ties = false;
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i + 1;
        while j < sorted.len() && sorted[j] == sorted[i] {
            j += 1;
        }
        let t = (j - i) as f64;
        if j - i > 1 {
            ties = true;
        }
        tie_term += t * t * t - t;
        i = j;
    }
    let (small, large) = (n1.min(n2), n1.max(n2));
    if small <= 8 && !ties && small * large < EXACT_MAX_COUNTS {
        if let Some(sf) = exact_sf(u.round() as usize, small, large) {
            return Some(MannWhitney {
                u: u1,
                p_value: (2.0 * sf).clamp(0.0, 1.0),
                method: Method::Exact,
            });
        }
    }
    let n = f1 + f2;
    let mu = f1 * f2 / 2.0;
    let s = (f1 * f2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)))).sqrt();
    let p = if s > 0.0 {
        let z = (u - mu - 0.5) / s;
        let normal = Normal::new(0.0, 1.0).ok()?;
        2.0 * normal.sf(z)
    } else {
        // Every value equal: z is −∞ and scipy gives 1.
        1.0
    };
    Some(MannWhitney {
        u: u1,
        p_value: p.clamp(0.0, 1.0),
        method: Method::Asymptotic,
    })
}

/// P(U ≥ u) under the null with no ties, samples of `m` ≤ `n` values. The
/// counts of U are the coefficients of the Gaussian binomial [m + n, m]_q =
/// Π_{i=1..m} (1 − q^(n+i)) / (1 − q^i), built factor by factor in exact
/// integers (after factor i the polynomial is [n + i, i]_q, whose
/// coefficients sum to C(n + i, i)).
fn exact_sf(u: usize, m: usize, n: usize) -> Option<f64> {
    let deg = m * n;
    let mut p: Vec<i128> = vec![0; deg + 1];
    p[0] = 1;
    for i in 1..=m {
        let a = n + i;
        for k in (a..=deg).rev() {
            p[k] = p[k].checked_sub(p[k - a])?;
        }
        for k in i..=deg {
            p[k] = p[k].checked_add(p[k - i])?;
        }
    }
    let total: f64 = p.iter().map(|&c| c as f64).sum();
    let tail: f64 = p.get(u..)?.iter().map(|&c| c as f64).sum();
    Some(tail / total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_counts_are_the_gaussian_binomial() {
        // m = 2, n = 2: U takes 0..4 with counts 1, 1, 2, 1, 1 (C(4, 2) = 6).
        assert_eq!(exact_sf(0, 2, 2), Some(1.0));
        assert_eq!(exact_sf(2, 2, 2), Some(4.0 / 6.0));
        assert_eq!(exact_sf(4, 2, 2), Some(1.0 / 6.0));
        // Fully separated 3 vs 3: 2 / C(6, 3).
        let r = mann_whitney(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
        assert_eq!(r.method, Method::Exact);
        assert_eq!(r.u, 0.0);
        assert!((r.p_value - 0.1).abs() < 1e-15);
    }

    #[test]
    fn degenerate() {
        assert!(mann_whitney(&[], &[1.0]).is_none());
        assert!(mann_whitney(&[f64::NAN], &[1.0]).is_none());
        let same = mann_whitney(&[1.0; 10], &[1.0; 10]).unwrap();
        assert_eq!(same.p_value, 1.0);
    }
}
