//! Timing events shorter than a clock's tick by Bernoulli trials
//! (Lambert & Power, eqs. 1, 2, 5, 6).
//!
//! Each trial reads the clock before and after one event and scores 1 when
//! the clock ticked in between; with m ticks in n trials, p = m/n estimates
//! Te/Tc, so Te = p·Tc (eq. 1).

use super::dist::z_two_sided;
use serde::Serialize;

/// Below this many successes (or failures) the normal interval is not
/// trusted and Wilson's score interval is reported instead (the usual
/// np ≥ 10 and n(1 − p) ≥ 10 rule).
pub const NORMAL_MIN_COUNT: u64 = 10;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
}

/// eq. 2: p ± z·sqrt(p(1 − p)/n). `None` for n = 0.
pub fn normal_interval(m: u64, n: u64, confidence: f64) -> Option<Interval> {
    if n == 0 || m > n {
        return None;
    }
    let z = z_two_sided(confidence)?;
    let p = m as f64 / n as f64;
    let half = z * (p * (1.0 - p) / n as f64).sqrt();
    Some(Interval {
        lo: p - half,
        hi: p + half,
    })
}

/// Wilson's score interval, valid for m near 0 or n. `None` for n = 0.
pub fn wilson_interval(m: u64, n: u64, confidence: f64) -> Option<Interval> {
    if n == 0 || m > n {
        return None;
    }
    let z = z_two_sided(confidence)?;
    let nf = n as f64;
    let p = m as f64 / nf;
    let z2 = z * z;
    let denom = 1.0 + z2 / nf;
    let centre = (p + z2 / (2.0 * nf)) / denom;
    let half = z / denom * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt();
    // At m = 0 (or n) the bound is exactly 0 (or 1); rounding must not move it.
    let lo = if m == 0 { 0.0 } else { centre - half };
    let hi = if m == n { 1.0 } else { centre + half };
    Some(Interval { lo, hi })
}

/// eq. 5: trials needed for relative error ε at `confidence` when the
/// event covers a fraction p of the tick: n = z²·p·q / (ε·p)². `None` when p
/// is not in (0, 1] or ε ≤ 0.
pub fn trials_needed(p: f64, epsilon: f64, confidence: f64) -> Option<u64> {
    if !(p > 0.0 && p <= 1.0 && epsilon > 0.0) {
        return None;
    }
    let z = z_two_sided(confidence)?;
    let n = z * z * p * (1.0 - p) / (epsilon * p).powi(2);
    // Guard the ceiling against n landing a rounding error above an integer.
    Some((n * (1.0 - 4.0 * f64::EPSILON)).ceil().max(1.0) as u64)
}

/// One event's estimate from m ticks in n trials of a clock with tick `tick`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    pub m: u64,
    pub n: u64,
    pub p: f64,
    /// Te + To (event plus timer overhead) = p · tick, in the tick's unit.
    pub duration: f64,
    /// Interval for the duration, in the tick's unit: Wilson when
    /// `wilson` is set, else the normal one.
    pub interval: Interval,
    pub normal: Option<Interval>,
    pub wilson: Interval,
    /// Set when m or n − m is below [`NORMAL_MIN_COUNT`]: the normal
    /// interval is unreliable and Wilson's is the one reported.
    pub wilson_used: bool,
    /// eq. 5's trial count for this p; `None` when p = 0.
    pub trials_needed: Option<u64>,
}

pub fn estimate(m: u64, n: u64, tick: f64, epsilon: f64, confidence: f64) -> Option<Estimate> {
    let wilson = wilson_interval(m, n, confidence)?;
    let normal = normal_interval(m, n, confidence);
    let p = m as f64 / n as f64;
    let wilson_used = m.min(n - m) < NORMAL_MIN_COUNT;
    let chosen = if wilson_used {
        &wilson
    } else {
        normal.as_ref()?
    };
    Some(Estimate {
        m,
        n,
        p,
        duration: p * tick,
        interval: Interval {
            lo: chosen.lo * tick,
            hi: chosen.hi * tick,
        },
        trials_needed: trials_needed(p, epsilon, confidence),
        normal,
        wilson,
        wilson_used,
    })
}

/// The planner (the paper's Table 1 for any inputs): trials for an event of
/// `event` length with a clock of `tick`, and the wall time they take when
/// each trial costs the event plus `overhead` (two clock reads).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub p: f64,
    pub trials: u64,
    /// trials × (event + overhead), in the unit of the inputs.
    pub wall_time: f64,
}

pub fn plan(event: f64, tick: f64, overhead: f64, epsilon: f64, confidence: f64) -> Option<Plan> {
    if !(event > 0.0 && tick > 0.0 && overhead >= 0.0) {
        return None;
    }
    let p = ((event + overhead) / tick).min(1.0);
    let trials = trials_needed(p, epsilon, confidence)?;
    Some(Plan {
        p,
        trials,
        wall_time: trials as f64 * (event + overhead),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() <= 1e-12 * b.abs().max(1e-300), "{a} vs {b}");
    }

    #[test]
    fn reference_coarse_clock_timing() {
        let e = estimate(237, 1000, 1e-3, 0.05, 0.95).unwrap();
        close(e.duration, 2.37e-4);
        let n = e.normal.clone().unwrap();
        close(n.lo, 0.21064369449249498);
        close(n.hi, 0.263356305507505);
        close(e.wilson.lo, 0.21168136426041648);
        close(e.wilson.hi, 0.26433151070298555);
        assert_eq!(e.trials_needed, Some(4947));
        assert!(!e.wilson_used);
        close(e.interval.lo, 0.21064369449249498e-3);
    }

    #[test]
    fn wilson_at_zero_successes() {
        let w = wilson_interval(0, 50, 0.95).unwrap();
        assert_eq!(w.lo, 0.0);
        close(w.hi, 0.07134759913335874);
        let e = estimate(0, 50, 1.0, 0.05, 0.95).unwrap();
        assert!(e.wilson_used);
        assert_eq!(e.trials_needed, None);
        let all = wilson_interval(50, 50, 0.95).unwrap();
        assert_eq!(all.hi, 1.0);
        close(all.lo, 1.0 - 0.07134759913335874);
    }

    #[test]
    fn planner_explodes_with_precision() {
        // 10 ns event, 1 ms tick: p = 1e-5, so ~1.5e9 trials at 5 %.
        let a = plan(10.0, 1e6, 0.0, 0.05, 0.95).unwrap();
        let b = plan(10.0, 1e6, 0.0, 0.005, 0.95).unwrap();
        assert!((b.trials as f64 / a.trials as f64 - 100.0).abs() < 0.01);
        assert_eq!(a.trials, trials_needed(1e-5, 0.05, 0.95).unwrap());
        close(a.wall_time, a.trials as f64 * 10.0);
        assert!(plan(0.0, 1.0, 0.0, 0.05, 0.95).is_none());
    }
}
