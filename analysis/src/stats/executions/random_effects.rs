//! Random effects for two levels, measurements within executions (Kalibera
//! & Jones 2013): the variance each level adds, from the estimators per
//! level with the corrected T² (negative clamps to 0), and the CI of the
//! mean from the execution means.

use crate::stats::dist::t_two_sided;
use crate::stats::moments::Welford;
use serde::Serialize;

/// Random-effects estimates for two levels (measurements within executions).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RandomEffects {
    /// Executions (r₂).
    pub executions: usize,
    /// Measurements per execution: the harmonic mean of the counts (r₁;
    /// exactly r₁ when balanced).
    pub measurements_per_execution: f64,
    pub balanced: bool,
    /// Mean of the execution means (Ȳ).
    pub mean: f64,
    /// S₁²: pooled variance within executions.
    pub s1_sq: f64,
    /// S₂²: variance of the execution means (None for one execution).
    pub s2_sq: Option<f64>,
    /// T₁² = S₁², T₂² = S₂² − S₁²/r₁ clamped at 0: the variance each level
    /// adds.
    pub t1_sq: f64,
    pub t2_sq: Option<f64>,
    /// Ȳ ± t(1 − α/2, r₂ − 1)·sqrt(S₂²/r₂).
    pub ci: Option<(f64, f64)>,
    pub confidence: f64,
}

/// `None` when there is no execution or an execution has no measurement.
pub fn random_effects(executions: &[Vec<f64>], confidence: f64) -> Option<RandomEffects> {
    let r2 = executions.len();
    if r2 == 0 || executions.iter().any(|e| e.is_empty()) {
        return None;
    }
    let moments: Vec<Welford> = executions.iter().map(|e| Welford::from_slice(e)).collect();
    let means: Vec<f64> = moments.iter().filter_map(|w| w.mean()).collect();
    let top = Welford::from_slice(&means);
    let mean = top.mean()?;
    // Pooled within-execution variance: Σ SSᵢ / Σ (rᵢ − 1); equals
    // Kalibera & Jones's S₁² when the design is balanced.
    let ss: f64 = moments
        .iter()
        .map(|w| w.population_variance().unwrap_or(0.0) * w.count() as f64)
        .sum();
    let df: usize = executions.iter().map(|e| e.len() - 1).sum();
    let s1_sq = if df > 0 { ss / df as f64 } else { 0.0 };
    let balanced = executions.iter().all(|e| e.len() == executions[0].len());
    let r1 = if balanced {
        executions[0].len() as f64
    } else {
        r2 as f64 / executions.iter().map(|e| 1.0 / e.len() as f64).sum::<f64>()
    };
    let s2_sq = top.variance();
    let t2_sq = s2_sq.map(|s2| (s2 - s1_sq / r1).max(0.0));
    let ci = match (s2_sq, t_two_sided(confidence, (r2 as f64) - 1.0)) {
        (Some(s2), Some(t)) => {
            let half = t * (s2 / r2 as f64).sqrt();
            Some((mean - half, mean + half))
        }
        _ => None,
    };
    Some(RandomEffects {
        executions: r2,
        measurements_per_execution: r1,
        balanced,
        mean,
        s1_sq,
        s2_sq,
        t1_sq: s1_sq,
        t2_sq,
        ci,
        confidence,
    })
}

#[cfg(test)]
mod tests {
    use super::super::plan::optimal_measurements;
    use super::super::testing::{generate, reference};
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() <= 1e-12 * b.abs(), "{a} vs {b}");
    }

    #[test]
    fn reference_random_effects() {
        let re = random_effects(&reference(), 0.95).unwrap();
        close(re.s1_sq, 229.0 / 18.0);
        close(re.s2_sq.unwrap(), 57.0 / 16.0);
        close(re.t2_sq.unwrap(), 55.0 / 144.0);
        close(re.mean, 6.5);
        let (lo, hi) = re.ci.unwrap();
        close(lo, 1.8112928904681684);
        close(hi, 11.188707109531832);
        assert!(re.balanced);
        assert_eq!(re.measurements_per_execution, 4.0);
    }

    #[test]
    fn negative_t2_clamps_to_zero() {
        // Execution means identical, lots of within noise.
        let re = random_effects(&[vec![1., 9.], vec![9., 1.], vec![5., 5.]], 0.95).unwrap();
        assert_eq!(re.t2_sq, Some(0.0));
        assert!(optimal_measurements(re.t1_sq, 0.0, 100.0).is_none());
    }

    /// The random-effects CI covers the true mean at about its level.
    #[test]
    fn random_effects_ci_covers_the_mean() {
        let mut covered = 0;
        for seed in 0..200 {
            let d = generate(seed, 10, 20, 3.0, 1.0);
            let (lo, hi) = random_effects(&d, 0.95).unwrap().ci.unwrap();
            covered += usize::from(lo <= 100.0 && 100.0 <= hi);
        }
        assert!(covered >= 180, "covered {covered} of 200");
    }
}
