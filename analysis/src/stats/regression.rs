//! Ordinary least squares y = α + βx with standard errors, t-based CIs and
//! residuals, and Pearson's r — `scipy.stats.linregress` conventions.
//! Sums are taken about the means (never Σx² − (Σx)²/n).

use super::dist::t_two_sided;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    pub n: usize,
    pub intercept: f64,
    pub slope: f64,
    pub r: f64,
    pub slope_se: f64,
    pub intercept_se: f64,
    pub confidence: f64,
    /// t(1 − α/2, n − 2).
    pub t: f64,
    pub slope_ci: (f64, f64),
    pub intercept_ci: (f64, f64),
    /// yᵢ − (α + βxᵢ), in input order.
    pub residuals: Vec<f64>,
}

/// Pearson's r; `None` when fewer than two pairs or either side is constant.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let (sxx, syy, sxy, _, _) = centred_sums(x, y)?;
    if sxx == 0.0 || syy == 0.0 {
        return None;
    }
    Some((sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0))
}

/// OLS fit; `None` with fewer than three points (no residual degrees of
/// freedom), mismatched lengths, or constant x.
pub fn ols(x: &[f64], y: &[f64], confidence: f64) -> Option<Fit> {
    let n = x.len();
    if n < 3 {
        return None;
    }
    let (sxx, syy, sxy, mx, my) = centred_sums(x, y)?;
    if sxx == 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let residuals: Vec<f64> = x
        .iter()
        .zip(y)
        .map(|(&xi, &yi)| yi - (intercept + slope * xi))
        .collect();
    let df = (n - 2) as f64;
    let s2 = residuals.iter().map(|r| r * r).sum::<f64>() / df;
    let slope_se = (s2 / sxx).sqrt();
    let intercept_se = (s2 * (1.0 / n as f64 + mx * mx / sxx)).sqrt();
    let t = t_two_sided(confidence, df)?;
    let r = if syy == 0.0 {
        0.0
    } else {
        (sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0)
    };
    Some(Fit {
        n,
        intercept,
        slope,
        r,
        slope_se,
        intercept_se,
        confidence,
        t,
        slope_ci: (slope - t * slope_se, slope + t * slope_se),
        intercept_ci: (intercept - t * intercept_se, intercept + t * intercept_se),
        residuals,
    })
}

/// (Sxx, Syy, Sxy, mean x, mean y) about the means.
fn centred_sums(x: &[f64], y: &[f64]) -> Option<(f64, f64, f64, f64, f64)> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    let n = x.len() as f64;
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let (mut sxx, mut syy, mut sxy) = (0.0, 0.0, 0.0);
    for (&a, &b) in x.iter().zip(y) {
        let (dx, dy) = (a - mx, b - my);
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    Some((sxx, syy, sxy, mx, my))
}

/// Geometric mean of positive values; `None` if empty or any value ≤ 0.
pub fn geometric_mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || xs.iter().any(|&x| !(x > 0.0 && x.is_finite())) {
        return None;
    }
    Some((xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() <= 1e-12 * b.abs(), "{a} vs {b}");
    }

    #[test]
    fn reference_linregress() {
        let x = [1., 2., 3., 4., 5., 6., 7., 8.];
        let y = [2.3, 1.9, 4.1, 3.8, 5.6, 4.9, 7.2, 6.1];
        let f = ols(&x, &y, 0.95).unwrap();
        close(f.slope, 191.0 / 280.0);
        close(f.intercept, 397.0 / 280.0);
        close(f.r, 0.9125464958539382);
        close(f.slope_se, 0.12480710740561572);
        close(f.intercept_se, 0.6302449987928511);
        close(f.t, 2.4469118511449786);
        close(f.slope_ci.0, 0.3767508669249318);
        close(f.slope_ci.1, 0.9875348473607826);
        let exact = [
            1.0 / 5.0,
            -247.0 / 280.0,
            89.0 / 140.0,
            -97.0 / 280.0,
            27.0 / 35.0,
            -171.0 / 280.0,
            141.0 / 140.0,
            -31.0 / 40.0,
        ];
        for (g, w) in f.residuals.iter().zip(exact) {
            assert!((g - w).abs() < 1e-13, "{g} vs {w}");
        }
        close(pearson(&x, &y).unwrap(), 0.9125464958539382);
    }

    #[test]
    fn degenerate_inputs() {
        assert!(ols(&[1., 1., 1.], &[1., 2., 3.], 0.95).is_none());
        assert!(ols(&[1., 2.], &[1., 2.], 0.95).is_none());
        assert!(pearson(&[1., 2., 3.], &[5., 5., 5.]).is_none());
        assert!(pearson(&[1., 2.], &[1.]).is_none());
    }

    #[test]
    fn reference_geometric_mean() {
        close(
            geometric_mean(&[1.10, 0.95, 1.30, 0.80]).unwrap(),
            1.021027424897966,
        );
        assert!(geometric_mean(&[1.0, 0.0]).is_none());
    }
}
