//! The `browser` suite's `data`: what the page's "Measure this browser"
//! writes (the `browser-measure` crate, run in a dedicated worker).

use crate::suites::clocks::ClockMeasurement;
use serde::{Deserialize, Serialize};

/// `data` of the `browser` suite: the browser as a host, its clocks, and
/// WebAssembly operations timed by long runs and by Bernoulli trials.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BrowserData {
    /// `navigator.userAgent`.
    pub user_agent: String,
    /// `navigator.platform` (empty when the browser hides it).
    #[serde(default)]
    pub platform: String,
    /// `navigator.userAgentData.brands` as `name version`, when exposed.
    #[serde(default)]
    pub brands: Vec<String>,
    #[serde(default)]
    pub hardware_concurrency: Option<u32>,
    /// `crossOriginIsolated` in the worker: whether the page was served
    /// with COOP and COEP (the clocks are finer when it was).
    pub cross_origin_isolated: bool,
    /// A quick run (fewer repetitions, shorter runs).
    #[serde(default)]
    pub quick: bool,
    /// The clock that timed the read-cost batches (`performance.now`).
    pub reference: String,
    /// `performance.now`, `Date.now`, `performance.timeOrigin + now`; every
    /// value in ns (`unit` is `ns`), scans as in the `clocks` suite.
    pub clocks: Vec<ClockMeasurement>,
    pub wasm: WasmOps,
}

/// WebAssembly operations: modules emitted at run time, one per operation
/// and form, each a loop of n (or 2n) copies of the instruction.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct WasmOps {
    /// The clock of the long runs and the trials (`performance.now`).
    pub clock: String,
    /// n: copies in the short sequence (the long one has 2n).
    pub copies: u32,
    pub repetitions: u32,
    pub ops: Vec<WasmOp>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct WasmOp {
    /// The instruction, e.g. `i64.add`, `f64.sqrt`,
    /// `f64.convert_i64_s+i64.trunc_f64_s` (a round trip).
    pub name: String,
    /// `integer`, `float`, `conversion`, `memory`, `call`.
    pub group: String,
    /// `latency` (each copy depends on the previous) or `throughput`
    /// (copies spread over independent accumulators).
    pub form: String,
    /// The native `ops` operation it corresponds to, e.g. `add_i64`.
    #[serde(default)]
    pub native: Option<String>,
    /// Loop iterations of each long run (the same for n and 2n).
    pub iterations: u64,
    /// Per repetition: one long run of n copies and one of 2n (ns).
    pub long_n_ns: Vec<f64>,
    pub long_2n_ns: Vec<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bernoulli: Option<WasmTrials>,
}

/// Bernoulli trials of one pass of the sequence (one loop iteration) between
/// two reads of the clock, for n and for 2n copies.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct WasmTrials {
    /// The tick the planner was given (ns): the clock's modal step as the
    /// worker scanned it.
    pub planned_tick_ns: f64,
    pub trials_n: u64,
    /// Trials in which the clock changed.
    pub ticks_n: u64,
    pub trials_2n: u64,
    pub ticks_2n: u64,
    /// The trials as they ran, in chunks (one timed call of the module's
    /// `go` each), with each chunk's wall time: a chunk much slower per
    /// trial than its sequence's others was disturbed (the worker
    /// descheduled, a collection) and is set aside by the analysis. Their
    /// sums are the totals above.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chunks_n: Vec<TrialChunk>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chunks_2n: Vec<TrialChunk>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct TrialChunk {
    pub trials: u64,
    pub ticks: u64,
    /// Wall time of the chunk by the same clock (ns).
    pub elapsed_ns: f64,
}
