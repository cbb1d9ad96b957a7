//! Planning repetitions (Kalibera & Jones): the measurements per execution
//! that minimise the cost of a precision, and the executions (or any
//! top-level units) a CI half-width needs.

use super::RandomEffects;
use crate::stats::dist::t_two_sided;

/// Measurements per execution that minimise the cost of a given precision
/// (Kalibera & Jones): r₁ = sqrt(c₂·T₁² / (c₁·T₂²)), where one execution
/// costs `cost_ratio` = c₂/c₁ measurements. `None` when T₂² = 0 (then no
/// repetition of executions buys precision beyond what measurements give).
pub fn optimal_measurements(t1_sq: f64, t2_sq: f64, cost_ratio: f64) -> Option<u64> {
    if !(t2_sq > 0.0 && cost_ratio > 0.0 && t1_sq >= 0.0) {
        return None;
    }
    Some(whole_count((cost_ratio * t1_sq / t2_sq).sqrt()))
}

/// The largest count a plan gives: 2⁵³ − 1, the largest whole number a
/// JavaScript number holds exactly. A variance component that is tiny but
/// not zero asks for absurd counts (a plan of 9.3·10¹⁵ machines was seen),
/// which the page could not be given at all.
pub const MAX_COUNT: u64 = (1 << 53) - 1;

/// A count from a real number: rounded up, at least 1, at most
/// [`MAX_COUNT`] (NaN gives 1).
pub fn whole_count(x: f64) -> u64 {
    (x.ceil() as u64).clamp(1, MAX_COUNT)
}

/// Executions needed so that the CI half-width of the mean is at most
/// `rel_half_width`·mean with `r1` measurements each, from the variance
/// components: Var(Ȳ) = (T₂² + T₁²/r₁)/r₂, t with r₂ − 1 degrees of freedom.
pub fn executions_needed(
    re: &RandomEffects,
    r1: u64,
    rel_half_width: f64,
    confidence: f64,
) -> Option<u64> {
    let per = re.t2_sq? + re.t1_sq / r1.max(1) as f64;
    units_needed(per, rel_half_width * re.mean.abs(), confidence)
}

/// The fewest top-level units r (executions, machines) for which
/// t(1 − α/2, r − 1)·sqrt(`per_unit` / r) ≤ `half_width`, where `per_unit`
/// is the variance one unit's mean adds; `None` past a million or for a
/// target that is not positive.
pub fn units_needed(per_unit: f64, half_width: f64, confidence: f64) -> Option<u64> {
    if half_width.is_nan() || half_width <= 0.0 {
        return None;
    }
    let enough = |r: u64| {
        t_two_sided(confidence, (r - 1) as f64)
            .is_some_and(|t| t * (per_unit / r as f64).sqrt() <= half_width)
    };
    // The half-width falls as r grows, so the first r that is enough is
    // found by doubling, then bisecting (a linear scan evaluated thousands
    // of t quantiles).
    const MAX: u64 = 1_000_000;
    let (mut lo, mut hi) = (1u64, 2u64); // enough(lo) is false (or lo < 2)
    while !enough(hi) {
        if hi == MAX {
            return None;
        }
        lo = hi;
        hi = (hi * 2).min(MAX);
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if enough(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optimal_counts() {
        // T₁² = 100, T₂² = 1, one execution costs 100 measurements: r₁ = 100.
        assert_eq!(optimal_measurements(100.0, 1.0, 100.0), Some(100));
        let re = RandomEffects {
            executions: 10,
            measurements_per_execution: 10.0,
            balanced: true,
            mean: 100.0,
            s1_sq: 100.0,
            s2_sq: Some(11.0),
            t1_sq: 100.0,
            t2_sq: Some(1.0),
            ci: None,
            confidence: 0.95,
        };
        // Var per execution = 1 + 100/100 = 2; 1% of 100 = 1 ⇒ r₂ ≈ t²·2.
        let r2 = executions_needed(&re, 100, 0.01, 0.95).unwrap();
        let t = t_two_sided(0.95, (r2 - 1) as f64).unwrap();
        assert!(t * (2.0 / r2 as f64).sqrt() <= 1.0);
        let t_prev = t_two_sided(0.95, (r2 - 2) as f64).unwrap();
        assert!(t_prev * (2.0 / (r2 - 1) as f64).sqrt() > 1.0);
    }
}
