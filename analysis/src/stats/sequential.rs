//! Intervals that stay valid however long one keeps looking: a confidence
//! sequence covers the mean at every round at once, so a run may stop when
//! its interval is narrow (or be interrupted at any round) and the interval
//! at the stop keeps its level. A fixed-sample interval looked at after
//! every round does not: the chance that it excludes the truth at some
//! round grows with the rounds looked at.
//!
//! [`asymptotic_cs`] is the two-sided asymptotic confidence sequence of
//! Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas, "Time-uniform central
//! limit theory and asymptotic confidence sequences" (Annals of Statistics,
//! 2024; arXiv:2103.06476), Theorem 2.2: Robbins' normal-mixture boundary
//! with the sample standard deviation in place of the known one,
//!
//!   mean_t ± sd_t · √( 2(tρ² + 1) / (t²ρ²) · ln(√(tρ² + 1) / α) ),
//!
//! valid as t grows for independent rounds with a finite variance (no
//! bounds or distribution assumed). ρ sets the round at which it is
//! tightest ([`rho_for`], the paper's closed-form choice).

use serde::{Deserialize, Serialize};

/// The mixture's ρ that makes the boundary tightest near round `t_opt`
/// (the paper's approximation, its eq. after Theorem 2.2).
pub fn rho_for(t_opt: f64, alpha: f64) -> f64 {
    let l = -2.0 * alpha.ln();
    ((l + (l + 1.0).ln()) / t_opt).sqrt()
}

/// The half-width multiplier of the standard deviation at round `t`.
pub fn radius(t: f64, alpha: f64, rho: f64) -> f64 {
    let r2 = rho * rho;
    (2.0 * (t * r2 + 1.0) / (t * t * r2) * ((t * r2 + 1.0).sqrt() / alpha).ln()).sqrt()
}

/// How a run that stops on precision was set up, recorded in its file so
/// that the analysis reports the interval the stop was decided on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PrecisionRule {
    /// Stop once the ratio's interval reaches ± this share of the ratio.
    pub target: f64,
    /// Rounds before the first check.
    pub min_rounds: usize,
    /// The round the sequence is tuned to be tightest at.
    pub t_opt: f64,
}

impl PrecisionRule {
    pub const MIN_ROUNDS: usize = 10;
    pub const T_OPT: f64 = 100.0;

    pub fn new(target: f64) -> PrecisionRule {
        PrecisionRule {
            target,
            min_rounds: Self::MIN_ROUNDS,
            t_opt: Self::T_OPT,
        }
    }

    /// Whether the rounds' log ratios give an interval narrow enough.
    pub fn reached(&self, log_ratios: &[f64], alpha: f64) -> bool {
        log_ratios.len() >= self.min_rounds
            && asymptotic_cs(log_ratios, alpha, self.t_opt)
                .is_some_and(|(_, lo, hi)| half_width_share(lo, hi) <= self.target)
    }
}

/// Half the interval's width as a share of its centre, for an interval of
/// the ratio exp(lo)..exp(hi) of log ratios lo..hi: ±this much.
pub fn half_width_share(lo: f64, hi: f64) -> f64 {
    (hi.exp() - lo.exp()) / 2.0 / ((lo + hi) / 2.0).exp()
}

/// (mean, lo, hi) of the two-sided (1 − α) asymptotic confidence sequence
/// at round n = `xs.len()`; `None` below two rounds or for a value that is
/// not finite.
pub fn asymptotic_cs(xs: &[f64], alpha: f64, t_opt: f64) -> Option<(f64, f64, f64)> {
    let n = xs.len();
    if n < 2 || xs.iter().any(|x| !x.is_finite()) || !(alpha > 0.0 && alpha < 1.0) {
        return None;
    }
    let t = n as f64;
    let m = xs.iter().sum::<f64>() / t;
    // The paper's variance estimate divides by t.
    let sd = (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / t).sqrt();
    let w = sd * radius(t, alpha, rho_for(t_opt, alpha));
    Some((m, m - w, m + w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundary_by_hand() {
        // α = 0.05: l = 5.9915, ρ² = (l + ln(l + 1)) / t_opt.
        let l = -2.0 * 0.05f64.ln();
        let rho = rho_for(100.0, 0.05);
        assert!((rho * rho - (l + (l + 1.0).ln()) / 100.0).abs() < 1e-15);
        // At t_opt the half-width is 3.04 standard errors (1.55 times the
        // fixed 1.96: the price of looking at every round), and it shrinks
        // like √(log t / t) later.
        let at = radius(100.0, 0.05, rho) * 10.0;
        assert!((at - 3.0352).abs() < 1e-3, "{at}");
        assert!(radius(10_000.0, 0.05, rho) * 100.0 > at);
        assert!(radius(10_000.0, 0.05, rho) < radius(100.0, 0.05, rho));
    }

    #[test]
    fn sequence_of_a_known_sample() {
        let xs = [1.0, 3.0];
        let (m, lo, hi) = asymptotic_cs(&xs, 0.05, 100.0).unwrap();
        let w = 1.0 * radius(2.0, 0.05, rho_for(100.0, 0.05));
        assert_eq!(m, 2.0);
        assert!((lo - (2.0 - w)).abs() < 1e-12 && (hi - (2.0 + w)).abs() < 1e-12);
        assert!(asymptotic_cs(&[1.0], 0.05, 100.0).is_none());
        assert!(asymptotic_cs(&[1.0, f64::NAN], 0.05, 100.0).is_none());
        assert!((half_width_share(-0.01, 0.01) - 0.0100001667).abs() < 1e-9);
    }
}
