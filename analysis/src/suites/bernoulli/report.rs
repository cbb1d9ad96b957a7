//! The Bernoulli cell: events shorter than a clock's tick, estimated from
//! tick counts (Lambert & Power, eqs. 1, 2, 5, 6) and checked against the
//! TSC reference; plus the trial planner (the paper's Table 1).

use super::{BernoulliData, BernoulliTrials};
use crate::options::Options;
use crate::stats::bernoulli::{estimate, plan, Interval};
use crate::stats::{quantile, QuantileType, Summary};
use serde::Serialize;

/// Events at least this long take part in the coverage check (the issue's
/// acceptance: the reference inside the interval for ≥ 90 % of them).
pub const COVERAGE_MIN_NS: f64 = 100.0;

#[derive(Debug, Clone, Serialize)]
pub struct BernoulliReport {
    pub clock: String,
    pub tick_ns: f64,
    pub reference: String,
    /// ε and confidence the collector planned the trials with.
    pub planned_epsilon: f64,
    pub planned_confidence: f64,
    /// Confidence of the intervals shown here (the analysis option).
    pub confidence: f64,
    /// The timer overhead To from the empty-event trials.
    pub overhead: Option<TrialsRow>,
    /// Median of the reference clock's own overhead, subtracted from the
    /// reference samples.
    pub reference_overhead_ns: Option<f64>,
    pub events: Vec<EventRow>,
    pub coverage: Coverage,
    /// Trials and wall time for a range of event lengths at this tick and
    /// overhead (Lambert & Power's Table 1, for this machine).
    pub planner: Vec<PlanRow>,
}

/// n trials of which m ticked, as an estimate of (event + overhead).
#[derive(Debug, Clone, Serialize)]
pub struct TrialsRow {
    pub n: u64,
    pub m: u64,
    pub p: f64,
    /// p · Tc: event plus timer overhead, in ns (eq. 1).
    pub raw_ns: f64,
    pub raw_interval_ns: Interval,
    /// Wilson's interval was used (m or n − m small); else the normal one.
    pub wilson_used: bool,
    pub planned: u64,
    pub capped: bool,
    /// eq. 5 for the observed p at the planned ε and confidence.
    pub trials_needed: Option<u64>,
    /// n / trials_needed.
    pub trials_ratio: Option<f64>,
    /// Mean clock step among trials that ticked, in ns (≈ Tc when each
    /// tick was a single tick).
    pub mean_step_ns: Option<f64>,
    /// Trials set aside as disturbed (descheduled), not in n and m.
    pub disturbed_n: u64,
    pub disturbed_m: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct EventRow {
    pub name: String,
    pub target_ns: f64,
    pub trials: TrialsRow,
    /// Te = p·Tc − To (eq. 6), in ns.
    pub estimate_ns: f64,
    /// Interval for Te: the trial interval less To, widened by To's own
    /// uncertainty (half-widths added in quadrature, each side).
    pub interval_ns: Interval,
    /// The reference samples (ns, raw).
    pub reference: Option<Summary>,
    /// Reference median less the reference clock's median overhead, in ns.
    /// The median, because a reference sample hit by an interrupt or a
    /// preemption is milliseconds long and a few of them move the mean of a
    /// thousand samples far more than they move the Bernoulli estimate,
    /// which averages over millions of trials.
    pub reference_ns: Option<f64>,
    /// Whether `reference_ns` lies inside `interval_ns`.
    pub covered: Option<bool>,
    /// (estimate − reference) / reference.
    pub relative_error: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Coverage {
    pub min_target_ns: f64,
    pub events: usize,
    pub covered: usize,
    pub share: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PlanRow {
    pub event_ns: f64,
    pub epsilon: f64,
    pub trials: u64,
    pub wall_time_ns: f64,
}

fn trials_row(t: &BernoulliTrials, d: &BernoulliData, confidence: f64) -> Option<TrialsRow> {
    let e = estimate(t.m, t.n, d.tick_ns, d.epsilon, confidence)?;
    let needed = crate::stats::bernoulli::trials_needed(e.p, d.epsilon, d.planned_confidence());
    Some(TrialsRow {
        n: t.n,
        m: t.m,
        p: e.p,
        raw_ns: e.duration,
        raw_interval_ns: e.interval,
        wilson_used: e.wilson_used,
        planned: t.planned,
        capped: t.capped,
        trials_needed: needed,
        trials_ratio: needed.map(|k| t.n as f64 / k as f64),
        mean_step_ns: (t.m > 0).then(|| t.sum_steps_ns / t.m as f64),
        disturbed_n: t.disturbed_n,
        disturbed_m: t.disturbed_m,
    })
}

impl BernoulliData {
    fn planned_confidence(&self) -> f64 {
        self.confidence
    }
}

pub fn bernoulli_report(d: &BernoulliData, opts: &Options) -> BernoulliReport {
    let conf = opts.confidence;
    let overhead = trials_row(&d.overhead, d, conf);
    let (to, to_lo, to_hi) = match &overhead {
        Some(o) => (o.raw_ns, o.raw_interval_ns.lo, o.raw_interval_ns.hi),
        None => (0.0, 0.0, 0.0),
    };
    let ref_overhead = quantile(&d.reference_overhead_ns, 0.5, QuantileType::TYPE7);

    let events: Vec<EventRow> = d
        .events
        .iter()
        .filter_map(|ev| {
            let tr = trials_row(&ev.trials, d, conf)?;
            let estimate_ns = tr.raw_ns - to;
            let lo = estimate_ns
                - ((tr.raw_ns - tr.raw_interval_ns.lo).powi(2) + (to_hi - to).powi(2)).sqrt();
            let hi = estimate_ns
                + ((tr.raw_interval_ns.hi - tr.raw_ns).powi(2) + (to - to_lo).powi(2)).sqrt();
            let mut sorted = ev.reference_ns.clone();
            sorted.sort_by(f64::total_cmp);
            let reference = Summary::of_sorted(&sorted, opts.quantile_type);
            let reference_ns = reference
                .as_ref()
                .map(|s| s.median - ref_overhead.unwrap_or(0.0));
            Some(EventRow {
                name: ev.name.clone(),
                target_ns: ev.target_ns,
                estimate_ns,
                covered: reference_ns.map(|r| r >= lo && r <= hi),
                relative_error: reference_ns
                    .filter(|r| *r > 0.0)
                    .map(|r| (estimate_ns - r) / r),
                interval_ns: Interval { lo, hi },
                reference,
                reference_ns,
                trials: tr,
            })
        })
        .collect();

    let considered: Vec<&EventRow> = events
        .iter()
        .filter(|e| e.target_ns >= COVERAGE_MIN_NS && e.covered.is_some())
        .collect();
    let covered = considered
        .iter()
        .filter(|e| e.covered == Some(true))
        .count();
    let coverage = Coverage {
        min_target_ns: COVERAGE_MIN_NS,
        events: considered.len(),
        covered,
        share: (!considered.is_empty()).then(|| covered as f64 / considered.len() as f64),
    };

    let mut planner = Vec::new();
    for event_ns in [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6] {
        for epsilon in [0.1, 0.05, 0.01] {
            if let Some(p) = plan(event_ns, d.tick_ns, to.max(0.0), epsilon, conf) {
                planner.push(PlanRow {
                    event_ns,
                    epsilon,
                    trials: p.trials,
                    wall_time_ns: p.wall_time,
                });
            }
        }
    }

    BernoulliReport {
        clock: d.clock.clone(),
        tick_ns: d.tick_ns,
        reference: d.reference.clone(),
        planned_epsilon: d.epsilon,
        planned_confidence: d.confidence,
        confidence: conf,
        overhead,
        reference_overhead_ns: ref_overhead,
        events,
        coverage,
        planner,
    }
}

#[cfg(test)]
mod tests {
    use super::super::BernoulliEvent;
    use super::*;

    fn trials(n: u64, m: u64) -> BernoulliTrials {
        BernoulliTrials {
            n,
            m,
            sum_steps_ns: m as f64 * 1e6,
            planned: n,
            capped: false,
            block_size: 0,
            block_m: vec![],
            ..BernoulliTrials::default()
        }
    }

    fn data() -> BernoulliData {
        BernoulliData {
            clock: "CLOCK_MONOTONIC_COARSE".into(),
            tick_ns: 1e6,
            reference: "tsc_lfence_rdtsc".into(),
            epsilon: 0.05,
            confidence: 0.95,
            budget_s: 1.0,
            // To = 10 ns: p = 1e-5.
            overhead: trials(100_000_000, 1000),
            reference_overhead_ns: vec![20.0, 20.0, 21.0],
            events: vec![BernoulliEvent {
                name: "busy_237us".into(),
                target_ns: 237_000.0,
                work_units: 1,
                trials: trials(1000, 237),
                reference_ns: vec![237_010.0, 237_030.0, 240_000.0],
            }],
        }
    }

    #[test]
    fn reference_vector_and_overhead_subtraction() {
        let r = bernoulli_report(&data(), &Options::default());
        let ev = &r.events[0];
        // eq. 1 with the reference vector: p = 0.237, Tc = 1 ms.
        assert!((ev.trials.raw_ns - 237_000.0).abs() < 1e-6);
        assert!((ev.trials.raw_interval_ns.lo - 210_643.694_492_494_98).abs() < 1e-6);
        assert_eq!(ev.trials.trials_needed, Some(4947));
        // eq. 6: To = 10 ns comes off.
        assert!((ev.estimate_ns - 236_990.0).abs() < 1e-6);
        // The reference median less its 20 ns overhead: 237 010 ns, inside
        // (the preempted 240 µs sample does not move it).
        assert!((ev.reference_ns.unwrap() - 237_010.0).abs() < 1e-9);
        assert_eq!(ev.covered, Some(true));
        assert_eq!((r.coverage.events, r.coverage.covered), (1, 1));
        assert_eq!(ev.trials.mean_step_ns, Some(1e6));
    }

    #[test]
    fn planner_rows_follow_eq5() {
        let r = bernoulli_report(&data(), &Options::default());
        let row = r
            .planner
            .iter()
            .find(|p| p.event_ns == 1e3 && p.epsilon == 0.05)
            .unwrap();
        let p = (1e3 + 10.0) / 1e6;
        let want = crate::stats::bernoulli::trials_needed(p, 0.05, 0.95).unwrap();
        assert_eq!(row.trials, want);
        assert!((row.wall_time_ns - want as f64 * 1010.0).abs() < 1e-3);
    }
}
