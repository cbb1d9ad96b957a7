//! Quantiles of the normal and Student t distributions (statrs), with the
//! argument checks callers would otherwise repeat.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// z such that P(Z ≤ z) = p for a standard normal; `None` outside (0, 1).
pub fn z_quantile(p: f64) -> Option<f64> {
    if !(p > 0.0 && p < 1.0) {
        return None;
    }
    Normal::new(0.0, 1.0).ok().map(|n| n.inverse_cdf(p))
}

/// t such that P(T ≤ t) = p with `df` degrees of freedom; `None` outside
/// (0, 1) or for df ≤ 0.
pub fn t_quantile(p: f64, df: f64) -> Option<f64> {
    if !(p > 0.0 && p < 1.0 && df > 0.0) {
        return None;
    }
    StudentsT::new(0.0, 1.0, df).ok().map(|t| t.inverse_cdf(p))
}

/// The two-sided critical value z(1 − α/2) for a confidence level such as 0.95.
pub fn z_two_sided(confidence: f64) -> Option<f64> {
    z_quantile(1.0 - (1.0 - confidence) / 2.0)
}

/// The two-sided critical value t(1 − α/2, df).
pub fn t_two_sided(confidence: f64, df: f64) -> Option<f64> {
    t_quantile(1.0 - (1.0 - confidence) / 2.0, df)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() <= 1e-12 * b.abs(), "{a} vs {b}");
    }

    #[test]
    fn reference_quantiles() {
        close(z_quantile(0.975).unwrap(), 1.959963984540054);
        close(z_quantile(0.95).unwrap(), 1.6448536269514722);
        let t = [
            12.706204736174694,
            4.302652729749462,
            3.1824463052837078,
            2.7764451051977934,
            2.5705818356363146,
        ];
        for (nu, want) in t.iter().enumerate() {
            close(t_quantile(0.975, nu as f64 + 1.0).unwrap(), *want);
        }
        close(t_two_sided(0.95, 6.0).unwrap(), 2.4469118511449786);
        assert_eq!(z_quantile(1.0), None);
        assert_eq!(t_quantile(0.5, 0.0), None);
    }
}
