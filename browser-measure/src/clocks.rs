//! The browser's clocks, measured as `measure/src/clocks.rs` measures native
//! ones: a read-cost batch timed by `performance.now`, and a scan of
//! back-to-back reads keeping every change of value (run-length encoded),
//! so the analysis finds the tick, the steps' spread and backward steps.

use std::hint::black_box;
use tickbook_analysis::stats::tick::single_tick;
use tickbook_analysis::suites::clocks::{ClockMeasurement, ClockScan, ReadCost};
use web_sys::Performance;

/// How long and how much each clock is scanned and its reads timed.
pub struct ClockPlan {
    pub max_steps: usize,
    /// The scan stops after this long once `min_steps` changes were seen…
    pub max_duration_ms: f64,
    pub min_steps: usize,
    /// …and after this long whatever it saw.
    pub hard_max_duration_ms: f64,
    pub batches: usize,
    pub batch: u32,
}

impl ClockPlan {
    pub fn new(quick: bool) -> Self {
        if quick {
            ClockPlan {
                max_steps: 2_000,
                max_duration_ms: 150.0,
                min_steps: 50,
                hard_max_duration_ms: 400.0,
                batches: 50,
                batch: 1_000,
            }
        } else {
            ClockPlan {
                max_steps: 20_000,
                max_duration_ms: 1_500.0,
                min_steps: 500,
                hard_max_duration_ms: 4_000.0,
                batches: 300,
                batch: 1_000,
            }
        }
    }
}

pub const REFERENCE: &str = "performance.now";

/// A clock's value in whole ns (every browser clock reads ms as a double).
fn ns(ms: f64) -> i64 {
    (ms * 1e6).round() as i64
}

/// Measure one clock, `read` giving its value in ms.
pub fn measure(
    name: &str,
    read: impl Fn() -> f64,
    perf: &Performance,
    plan: &ClockPlan,
) -> ClockMeasurement {
    let mut samples_ns = Vec::with_capacity(plan.batches);
    for _ in 0..plan.batches {
        let t0 = perf.now();
        for _ in 0..plan.batch {
            black_box(read());
        }
        let t1 = perf.now();
        samples_ns.push(((t1 - t0) * 1e6 / f64::from(plan.batch)).max(0.0));
    }

    let start = perf.now();
    let mut prev = ns(read());
    let mut reads: u64 = 1;
    let mut unchanged: u64 = 0;
    let mut steps = Vec::with_capacity(plan.max_steps);
    let mut reads_between = Vec::with_capacity(plan.max_steps);
    let stopped_by = loop {
        // The reference is looked at every 64 reads, as the native scan does,
        // so the scan is mostly back-to-back reads of the clock itself.
        for _ in 0..64 {
            let v = ns(read());
            reads += 1;
            if v == prev {
                unchanged += 1;
            } else {
                steps.push(v.wrapping_sub(prev));
                reads_between.push(unchanged);
                unchanged = 0;
                prev = v;
            }
        }
        if steps.len() >= plan.max_steps {
            break "max_steps";
        }
        let elapsed = perf.now() - start;
        if (elapsed >= plan.max_duration_ms && steps.len() >= plan.min_steps)
            || elapsed >= plan.hard_max_duration_ms
        {
            break "max_duration";
        }
    };
    let duration_ns = (perf.now() - start) * 1e6;
    ClockMeasurement {
        name: name.to_string(),
        available: true,
        unavailable_reason: None,
        unit: "ns".into(),
        ns_per_unit: Some(1.0),
        nominal_resolution_ns: None,
        nominal_resolution_source: None,
        read_cost: Some(ReadCost {
            batch: plan.batch,
            reference: REFERENCE.into(),
            samples_ns,
        }),
        scan: Some(ClockScan {
            reads,
            duration_ns,
            steps,
            reads_between,
            stopped_by: Some(stopped_by.into()),
        }),
    }
}

/// The modal single-tick step of a scan (ns), as the analysis finds it:
/// the tick the planner is given.
pub fn tick_ns(m: &ClockMeasurement) -> Option<f64> {
    single_tick(&m.scan.as_ref()?.steps).map(|t| t as f64)
}
