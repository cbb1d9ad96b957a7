//! Dynamic time warping in dtw-python's semantics (Giorgino, `dtw(x, y)`):
//! local cost |xᵢ − yⱼ| (the Euclidean norm of the difference for
//! multivariate records, dtw-python's default `dist_method`), step patterns
//! `symmetric1` and `symmetric2`, an optional Sakoe–Chiba band |i − j| ≤ w
//! (`window_type='sakoechiba'`, no slant for unequal lengths), no open ends.
//!
//! Hand-written rather than taken from a crate: the crates on crates.io do
//! not reproduce dtw-python's step weights, tie order and band definition,
//! and the page needs the path of 3000 × 3000 in well under 100 ms. Memory is
//! two cost rows of f64 plus one direction byte per cell (9 MB for
//! 3000 × 3000) instead of the full cost matrix.
//!
//! Ties: like dtw-python (the R package's `computeCM`), the first step of the
//! pattern with the strictly smallest cost wins, in pattern order diagonal,
//! then (i, j−1), then (i−1, j). The path is backtracked from (n−1, m−1).

use serde::{Deserialize, Serialize};

/// dtw-python's step patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum StepPattern {
    /// g = d + min(g(i−1,j−1), g(i,j−1), g(i−1,j)); not normalizable.
    Symmetric1,
    /// Diagonal steps weigh 2d, the others d (dtw-python's default);
    /// normalizable by n + m.
    #[default]
    Symmetric2,
}

impl StepPattern {
    pub fn name(self) -> &'static str {
        match self {
            StepPattern::Symmetric1 => "symmetric1",
            StepPattern::Symmetric2 => "symmetric2",
        }
    }
}

/// An alignment: its distance and the warping path.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alignment {
    /// The cumulative cost at (n−1, m−1) (dtw-python `distance`).
    pub distance: f64,
    /// distance / (n + m) for symmetric2; `None` for symmetric1, which
    /// dtw-python does not normalise (its `normalizedDistance` is NaN).
    pub normalized_distance: Option<f64>,
    /// Path rows in x (dtw-python `index1`), 0-based, from (0, 0).
    pub index1: Vec<usize>,
    /// Path rows in y (dtw-python `index2`).
    pub index2: Vec<usize>,
}

const NONE: u8 = 0;
const DIAG: u8 = 1;
const LEFT: u8 = 2; // from (i, j−1)
const UP: u8 = 3; // from (i−1, j)

/// DTW of two univariate series.
pub fn dtw(
    x: &[f64],
    y: &[f64],
    pattern: StepPattern,
    band: Option<usize>,
) -> Result<Alignment, String> {
    if let Some(i) = x.iter().chain(y).position(|v| !v.is_finite()) {
        return Err(format!("value {i} of the series is not a finite number"));
    }
    core(
        x.len(),
        y.len(),
        |i, lo, out| {
            // One row of local costs at a time: a tight loop the compiler
            // vectorises, and the DP loop below reads a plain slice.
            let xi = x[i];
            for (o, &yj) in out.iter_mut().zip(&y[lo..]) {
                *o = (xi - yj).abs();
            }
        },
        pattern,
        band,
    )
}

/// DTW of two multivariate series (records of equal width), local cost the
/// Euclidean distance between records (dtw-python's `dist_method` default).
pub fn dtw_multi(
    x: &[Vec<f64>],
    y: &[Vec<f64>],
    pattern: StepPattern,
    band: Option<usize>,
) -> Result<Alignment, String> {
    let width = x.first().map(Vec::len).unwrap_or(0);
    if x.iter().chain(y).any(|r| r.len() != width) {
        return Err("records of the two series differ in width".into());
    }
    if x.iter().chain(y).flatten().any(|v| !v.is_finite()) {
        return Err("a value of the series is not a finite number".into());
    }
    dtw_with(
        x.len(),
        y.len(),
        |i, j| {
            x[i].iter()
                .zip(&y[j])
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>()
                .sqrt()
        },
        pattern,
        band,
    )
}

/// DTW over any local cost `cost(i, j)` (finite, ≥ 0) of an n × m grid.
pub fn dtw_with(
    n: usize,
    m: usize,
    cost: impl Fn(usize, usize) -> f64,
    pattern: StepPattern,
    band: Option<usize>,
) -> Result<Alignment, String> {
    core(
        n,
        m,
        |i, lo, out| {
            for (k, o) in out.iter_mut().enumerate() {
                *o = cost(i, lo + k);
            }
        },
        pattern,
        band,
    )
}

/// The DP. `row_cost(i, lo, out)` fills `out[k]` with the local cost of
/// (i, lo + k) for the row's cells inside the band.
fn core(
    n: usize,
    m: usize,
    mut row_cost: impl FnMut(usize, usize, &mut [f64]),
    pattern: StepPattern,
    band: Option<usize>,
) -> Result<Alignment, String> {
    if n == 0 || m == 0 {
        return Err("DTW needs two non-empty series".into());
    }
    if let Some(w) = band {
        // dtw-python: with n and m further apart than the band, no path
        // reaches (n−1, m−1).
        if n.abs_diff(m) > w {
            return Err(format!(
                "no warping path: the lengths {n} and {m} differ by more than the band {w}"
            ));
        }
    }
    let cells = n
        .checked_mul(m)
        .filter(|&c| c <= 400_000_000)
        .ok_or_else(|| format!("DTW of {n} × {m} records is too large"))?;
    let diag_weight = match pattern {
        StepPattern::Symmetric1 => 1.0,
        StepPattern::Symmetric2 => 2.0,
    };
    const INF: f64 = f64::INFINITY;
    let mut dir = vec![NONE; cells];
    // Unreachable cells (outside the band) cost +∞: like dtw-python's NaN,
    // they never win a strict comparison.
    let mut prev = vec![INF; m];
    let mut cur = vec![INF; m];
    let mut local = vec![0.0; m];
    for i in 0..n {
        let (lo, hi) = match band {
            Some(w) => (i.saturating_sub(w), (i + w).min(m - 1)),
            None => (0, m - 1),
        };
        cur.fill(INF);
        let d = &mut local[..=hi - lo];
        row_cost(i, lo, d);
        let row = &mut dir[i * m..(i + 1) * m];
        let mut start = lo;
        // `left` = g(i, j−1), `diag` = g(i−1, j−1) as j advances.
        let mut left = INF;
        if lo == 0 {
            // Column 0: only the step from (i−1, 0), or the first cell.
            if i == 0 {
                cur[0] = d[0];
            } else if prev[0] < INF {
                cur[0] = prev[0] + d[0];
                row[0] = UP;
            }
            left = cur[0];
            start = 1;
        }
        if start > hi {
            std::mem::swap(&mut prev, &mut cur);
            continue;
        }
        let mut diag = prev[start - 1];
        let span = start..=hi;
        let cells = cur[span.clone()]
            .iter_mut()
            .zip(&prev[span.clone()])
            .zip(&mut row[span])
            .zip(&d[start - lo..]);
        for (((g, &up), step), &c) in cells {
            // Ties go to the first of diagonal, (i, j−1), (i−1, j), as in
            // dtw-python (strict comparisons in pattern order).
            let mut best = diag + diag_weight * c;
            let mut s = DIAG;
            let l = left + c;
            if l < best {
                best = l;
                s = LEFT;
            }
            let u = up + c;
            if u < best {
                best = u;
                s = UP;
            }
            if best < INF {
                *g = best;
                *step = s;
            }
            left = *g;
            diag = up;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let distance = prev[m - 1];
    if !distance.is_finite() {
        return Err("no warping path compatible with the band".into());
    }
    let (mut i, mut j) = (n - 1, m - 1);
    let mut index1 = vec![i];
    let mut index2 = vec![j];
    while i > 0 || j > 0 {
        match dir[i * m + j] {
            DIAG => {
                i -= 1;
                j -= 1;
            }
            LEFT => j -= 1,
            UP => i -= 1,
            _ => return Err("no warping path compatible with the band".into()),
        }
        index1.push(i);
        index2.push(j);
    }
    index1.reverse();
    index2.reverse();
    Ok(Alignment {
        distance,
        normalized_distance: match pattern {
            StepPattern::Symmetric1 => None,
            StepPattern::Symmetric2 => Some(distance / (n + m) as f64),
        },
        index1,
        index2,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use StepPattern::*;

    const A: [f64; 8] = [1.0, 2.0, 3.0, 4.0, 2.0, 1.0, 0.0, 1.0];
    const B: [f64; 9] = [0.0, 1.0, 1.0, 2.0, 4.0, 3.0, 1.0, 0.0, 0.0];

    fn path(a: &Alignment) -> Vec<(usize, usize)> {
        a.index1
            .iter()
            .copied()
            .zip(a.index2.iter().copied())
            .collect()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
    }

    // Reference vectors: dtw-python 1.9 on A and B (its step patterns and
    // normalisation).
    #[test]
    fn reference_vector_symmetric1() {
        let r = dtw(&A, &B, Symmetric1, None).unwrap();
        assert_eq!(r.distance, 4.0);
        assert_eq!(r.normalized_distance, None);
        assert_eq!(
            path(&r),
            vec![
                (0, 0),
                (0, 1),
                (0, 2),
                (1, 3),
                (2, 3),
                (3, 4),
                (4, 5),
                (5, 6),
                (6, 7),
                (7, 8)
            ]
        );
        assert_eq!(dtw(&A, &B, Symmetric1, Some(1)).unwrap().distance, 5.0);
    }

    // Checked with dtw-python 1.9.0: dtw(a, b) and dtw(a, b,
    // window_type='sakoechiba', window_args={'window_size': 1}).
    #[test]
    fn symmetric2_and_bands_match_dtw_python() {
        let r = dtw(&A, &B, Symmetric2, None).unwrap();
        assert_eq!(r.distance, 5.0);
        assert!(close(r.normalized_distance.unwrap(), 0.29411764705882354));
        assert_eq!(
            path(&r),
            vec![
                (0, 0),
                (0, 1),
                (0, 2),
                (1, 3),
                (2, 3),
                (3, 4),
                (4, 5),
                (5, 6),
                (6, 7),
                (6, 8),
                (7, 8)
            ]
        );
        let r = dtw(&A, &B, Symmetric2, Some(1)).unwrap();
        assert_eq!(r.distance, 9.0);
        assert!(close(r.normalized_distance.unwrap(), 0.5294117647058824));
        assert_eq!(
            path(&r),
            vec![
                (0, 0),
                (0, 1),
                (1, 2),
                (2, 3),
                (3, 4),
                (4, 5),
                (5, 6),
                (6, 7),
                (7, 8)
            ]
        );
    }

    #[test]
    fn no_path_is_an_error() {
        assert!(dtw(&A, &B[..6], Symmetric2, Some(1)).is_err());
        assert!(dtw(&A, &[], Symmetric2, None).is_err());
        assert!(dtw(&[1.0, f64::NAN], &A, Symmetric2, None).is_err());
    }

    #[test]
    fn identical_series_align_on_the_diagonal_at_zero_cost() {
        let r = dtw(&A, &A, Symmetric2, Some(0)).unwrap();
        assert_eq!(r.distance, 0.0);
        assert_eq!(r.index1, (0..8).collect::<Vec<_>>());
        assert_eq!(r.index2, (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn multivariate_of_one_column_equals_univariate() {
        let a: Vec<Vec<f64>> = A.iter().map(|&v| vec![v]).collect();
        let b: Vec<Vec<f64>> = B.iter().map(|&v| vec![v]).collect();
        for p in [Symmetric1, Symmetric2] {
            for w in [None, Some(1), Some(3)] {
                assert_eq!(dtw_multi(&a, &b, p, w), dtw(&A, &B, p, w));
            }
        }
    }

    include!("dtw_cases.rs");
}
