//! The `trace` suite's `data`: the types its section of a run file reads to.

use serde::{Deserialize, Serialize};

/// `data` of the `trace` suite: workloads sampled per interval, at several
/// instrumentation levels, to see whether measuring changed what was
/// measured (Mytkowicz et al.).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TraceData {
    /// Every metric a record may carry, with where it comes from.
    pub metrics: Vec<TraceMetric>,
    /// Metrics that were asked for but could not be read here, and why
    /// (e.g. hardware counters refused by the kernel).
    #[serde(default)]
    pub unavailable: Vec<UnavailableMetric>,
    pub workloads: Vec<TraceWorkload>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TraceMetric {
    /// Column name used in [`TraceRun::columns`], e.g. `instructions`,
    /// `task_clock`, `minor_faults`, `progress`.
    pub name: String,
    /// `count`, `ns`, `cycles`, `work units`, …
    pub unit: String,
    /// `hardware` (perf hardware/cache events), `software` (perf software
    /// events, rusage, TSC) or `progress` (the workload's own count).
    pub class: String,
    /// Where the value is read: `perf_event`, `getrusage`, `tsc`,
    /// `clock_gettime`, `workload`, …
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct UnavailableMetric {
    pub name: String,
    pub source: String,
    /// Why it could not be read, e.g. `perf_event_open: Operation not supported (EOPNOTSUPP)`.
    pub reason: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TraceWorkload {
    /// e.g. `compress`, `game_tree`, `simulate`.
    pub name: String,
    pub description: String,
    /// The sampling interval chosen for this workload.
    pub interval_ns: f64,
    /// Instrumentation levels 0…k; level 0 is uninstrumented.
    pub levels: Vec<InstrumentationLevel>,
    /// Every run: several baselines (level 0) and runs at each level.
    pub runs: Vec<TraceRun>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct InstrumentationLevel {
    pub level: u32,
    /// What this level instruments (which hot functions count what).
    pub description: String,
    /// Software counters incremented at this level (cumulative).
    pub counters: u32,
}

/// One run of a workload at one level: a time series of records.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TraceRun {
    pub level: u32,
    /// Repetition number among runs of the same level (0, 1, …), in the
    /// order they ran.
    pub repetition: u32,
    /// Wall time of the whole run in ns (the overhead of a level comes
    /// from these).
    pub wall_ns: f64,
    /// Instrumentation increments executed during the run (0 at level 0).
    pub instrumentation_count: u64,
    /// Metric names of the record columns (each in [`TraceData::metrics`]).
    pub columns: Vec<String>,
    /// One row per interval, values in `columns` order: the change of each
    /// metric over that interval (counts and times are deltas, not totals).
    pub records: Vec<Vec<f64>>,
}
