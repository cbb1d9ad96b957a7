//! Spearman's rank correlation in `scipy.stats.spearmanr`'s conventions:
//! tied values share the average of their ranks (`rankdata(method='average')`),
//! then Pearson's r of the ranks. Undefined cases (a constant column, fewer
//! than two values, lengths that differ) are an `Err` with the reason, never
//! NaN or a panic. The ranking is here rather than in `compare` because
//! `compare::ranks` ranks estimates with a threshold, a different concept.

use super::regression::pearson;

/// 1-based ranks of `xs`, ties given the average of the ranks they span
/// (`scipy.stats.rankdata(xs, method='average')`). Values must be finite;
/// a NaN sorts last (total order) so the result is still defined.
pub fn average_ranks(xs: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut ranks = vec![0.0; xs.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && xs[order[j]] == xs[order[i]] {
            j += 1;
        }
        // Positions i..j (0-based) hold one tied value: ranks i+1 ..= j.
        let avg = (i + 1 + j) as f64 / 2.0;
        for &k in &order[i..j] {
            ranks[k] = avg;
        }
        i = j;
    }
    ranks
}

/// Why a correlation could not be computed.
pub fn undefined_reason(x: &[f64], y: &[f64]) -> Option<&'static str> {
    if x.len() != y.len() {
        Some("the two series have different lengths")
    } else if x.len() < 2 {
        Some("fewer than two values")
    } else if x.iter().any(|v| !v.is_finite()) || y.iter().any(|v| !v.is_finite()) {
        Some("a value is not finite")
    } else if is_constant(x) || is_constant(y) {
        Some("a series is constant (its ranks carry no order)")
    } else {
        None
    }
}

fn is_constant(x: &[f64]) -> bool {
    x.iter().all(|&v| v == x[0])
}

/// Spearman's ρ of two series, or the reason it is undefined.
pub fn spearman(x: &[f64], y: &[f64]) -> Result<f64, &'static str> {
    if let Some(why) = undefined_reason(x, y) {
        return Err(why);
    }
    pearson(&average_ranks(x), &average_ranks(y)).ok_or("a series is constant")
}

/// The Spearman matrix of `columns` (each the same length): entry (a, b) is
/// ρ of columns a and b, `None` where undefined (a constant column). Each
/// column is ranked once. The diagonal is 1 for non-constant columns.
pub fn spearman_matrix(columns: &[Vec<f64>]) -> Vec<Vec<Option<f64>>> {
    let ranks: Vec<Option<Vec<f64>>> = columns
        .iter()
        .map(|c| {
            let ok = c.len() >= 2 && c.iter().all(|v| v.is_finite()) && !is_constant(c);
            ok.then(|| average_ranks(c))
        })
        .collect();
    let k = columns.len();
    let mut m = vec![vec![None; k]; k];
    for a in 0..k {
        for b in a..k {
            let v = match (&ranks[a], &ranks[b]) {
                (Some(ra), Some(rb)) if ra.len() == rb.len() => {
                    if a == b {
                        Some(1.0)
                    } else {
                        pearson(ra, rb)
                    }
                }
                _ => None,
            };
            m[a][b] = v;
            m[b][a] = v;
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
    }

    #[test]
    fn average_ranks_match_scipy_rankdata() {
        assert_eq!(
            average_ranks(&[1.0, 2.0, 2.0, 3.0, 5.0, 5.0, 5.0, 8.0]),
            vec![1.0, 2.5, 2.5, 4.0, 6.0, 6.0, 6.0, 8.0]
        );
        assert_eq!(
            average_ranks(&[2.0, 1.0, 4.0, 4.0, 3.0, 7.0, 7.0, 9.0]),
            vec![2.0, 1.0, 4.5, 4.5, 3.0, 6.5, 6.5, 8.0]
        );
        assert_eq!(average_ranks(&[3.0, 3.0, 3.0]), vec![2.0, 2.0, 2.0]);
        assert_eq!(average_ranks(&[]), Vec::<f64>::new());
    }

    // Values from scipy 1.17.1 `scipy.stats.spearmanr(x, y).statistic`.
    #[test]
    fn spearman_matches_scipy_with_ties() {
        let r = spearman(
            &[1.0, 2.0, 2.0, 3.0, 5.0, 5.0, 5.0, 8.0],
            &[2.0, 1.0, 4.0, 4.0, 3.0, 7.0, 7.0, 9.0],
        )
        .unwrap();
        assert!(close(r, 0.7889568540593018), "{r}");
        let r = spearman(
            &[4.0, 3.1, 4.8, 3.5, 6.6, 4.2, 3.9, 5.3, 3.4, 4.4],
            &[2.3, 1.9, 4.1, 3.8, 5.6, 4.9, 7.2, 6.1, 1.9, 4.1],
        )
        .unwrap();
        assert!(close(r, 0.6646465023178236), "{r}");
        let r = spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5.0, 6.0, 7.0, 8.0, 7.0]).unwrap();
        assert!(close(r, 0.8207826816681233), "{r}");
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Ok(-1.0));
    }

    // Random cases, many ties, from scipy 1.17.1 `spearmanr(x, y).statistic`
    // (numpy default_rng(7): integers 0..5 and 0..4, or normals rounded).
    #[test]
    fn random_cases_match_scipy() {
        #[allow(clippy::type_complexity)]
        let cases: &[(&[f64], &[f64], f64)] = &[
            (
                &[
                    3.0, 3.0, 4.0, 2.0, 3.0, 4.0, 1.0, 0.0, 1.0, 1.0, 4.0, 4.0, 0.0, 2.0, 4.0, 0.0,
                    3.0, 0.0, 2.0,
                ],
                &[
                    3.0, 1.0, 1.0, 1.0, 2.0, 1.0, 3.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0,
                    2.0, 2.0, 1.0,
                ],
                -0.07434521426664759,
            ),
            (
                &[
                    -1.84, -0.24, -1.27, 0.27, 0.16, -0.19, -2.52, -0.54, -0.05, 0.11, -1.53,
                    -0.48, -0.98, -0.81, 1.06, -0.81, -0.03, 0.88, -0.58,
                ],
                &[
                    -1.0, -0.0, -0.6, -1.1, 0.2, 1.3, -2.8, 0.6, 0.1, -0.6, 1.2, 0.5, -1.7, -0.3,
                    1.1, -0.6, 0.7, 0.4, 0.4,
                ],
                0.3676346936459306,
            ),
            (
                &[2.0, 2.0, 3.0, 2.0, 3.0, 2.0, 3.0, 4.0, 0.0, 2.0],
                &[1.0, 1.0, 0.0, 0.0, 1.0, 3.0, 0.0, 1.0, 3.0, 3.0],
                -0.5348383021589468,
            ),
            (
                &[-0.79, 0.65, -1.99, -0.46, -0.1, 1.26, 0.69],
                &[-0.7, -0.0, -1.2, 1.3, -0.5, 0.3, 0.7],
                0.6071428571428572,
            ),
            (
                &[4.0, 4.0, 3.0, 2.0, 2.0, 0.0, 1.0, 4.0, 2.0, 1.0],
                &[0.0, 2.0, 0.0, 3.0, 3.0, 2.0, 1.0, 3.0, 2.0, 1.0],
                0.0,
            ),
            (
                &[-0.01, 0.58, -1.29, 0.35, -1.69, -2.04, -0.3, -0.9, 0.16],
                &[2.2, -0.5, -1.3, 0.4, -0.4, -1.2, -0.4, 0.3, 0.6],
                0.4769916229907622,
            ),
            (
                &[4.0, 1.0, 0.0, 2.0, 3.0, 3.0, 4.0, 3.0, 0.0, 4.0],
                &[1.0, 3.0, 3.0, 3.0, 0.0, 3.0, 2.0, 1.0, 3.0, 3.0],
                -0.5004966724180794,
            ),
            (
                &[
                    -2.0, -1.13, 0.36, -2.13, 0.85, -1.75, 0.76, -0.85, 0.78, 0.13, -1.54, 1.25,
                ],
                &[
                    0.4, -0.6, -0.1, -1.2, -0.6, 0.2, -0.2, -0.5, -0.4, -0.6, -2.0, 1.9,
                ],
                0.2605698416254795,
            ),
            (
                &[2.0, 2.0, 4.0, 3.0, 1.0, 3.0],
                &[3.0, 2.0, 2.0, 1.0, 2.0, 0.0],
                -0.43771377963650565,
            ),
            (
                &[
                    1.46, -0.38, -0.3, -1.38, -0.81, 1.65, -0.67, -1.05, 0.34, 1.41, -1.45, -0.21,
                    -0.63, -1.76,
                ],
                &[
                    1.5, -0.2, -0.1, -1.4, 0.0, 0.3, -0.5, -1.6, -1.0, 2.0, -1.2, 0.2, -0.3, -1.3,
                ],
                0.8065934065934066,
            ),
        ];
        for (k, (x, y, r)) in cases.iter().enumerate() {
            let got = spearman(x, y).unwrap();
            assert!(close(got, *r), "case {k}: {got} vs {r}");
        }
    }

    #[test]
    fn undefined_cases_are_errors_not_nan() {
        assert!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]).is_err());
        assert!(spearman(&[1.0], &[2.0]).is_err());
        assert!(spearman(&[1.0, 2.0], &[1.0]).is_err());
        assert!(spearman(&[1.0, f64::NAN, 2.0], &[1.0, 2.0, 3.0]).is_err());
    }

    #[test]
    fn matrix_is_symmetric_with_undefined_constant_columns() {
        let cols = vec![
            vec![1.0, 2.0, 2.0, 3.0, 5.0, 5.0, 5.0, 8.0],
            vec![2.0, 1.0, 4.0, 4.0, 3.0, 7.0, 7.0, 9.0],
            vec![4.0; 8],
        ];
        let m = spearman_matrix(&cols);
        assert_eq!(m[0][0], Some(1.0));
        assert!(close(m[0][1].unwrap(), 0.7889568540593018));
        assert_eq!(m[0][1], m[1][0]);
        assert_eq!(m[2][2], None);
        assert_eq!(m[0][2], None);
        assert_eq!(m[2][1], None);
    }

    #[test]
    fn invariant_under_monotone_transforms() {
        let x = [0.3, 1.7, 0.9, 2.2, 5.0, 4.1, 0.05];
        let y = [1.0, 0.2, 3.3, 2.0, 7.0, 1.5, 0.7];
        let ex: Vec<f64> = x.iter().map(|v: &f64| v.exp()).collect();
        let y3: Vec<f64> = y.iter().map(|v| v * v * v).collect();
        assert_eq!(spearman(&x, &y), spearman(&ex, &y3));
    }
}
