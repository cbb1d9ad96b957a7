//! The `bernoulli` suite's `data`: the types its section of a run file reads to.

use serde::{Deserialize, Serialize};

/// `data` of the `bernoulli` suite: events of known length timed by
/// Bernoulli trials of a coarse clock (Lambert & Power) and, as the
/// reference, by the TSC.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BernoulliData {
    /// The coarse clock the trials read, e.g. `CLOCK_MONOTONIC_COARSE`.
    pub clock: String,
    /// Its tick Tc in ns, as observed at the start of the suite (the modal
    /// non-zero step of a scan).
    pub tick_ns: f64,
    /// The clock that timed the reference samples (e.g. `tsc_lfence_rdtsc`).
    pub reference: String,
    /// Requested relative error ε and confidence for eq. 5.
    pub epsilon: f64,
    pub confidence: f64,
    /// Wall-time budget per event in seconds; trial counts are capped by it.
    pub budget_s: f64,
    /// Trials of an empty event: the timer overhead To (eq. 6).
    pub overhead: BernoulliTrials,
    /// The empty event timed by the reference clock (ns per sample): the
    /// reference's own overhead, subtracted from `reference_ns` before
    /// comparing, as To is subtracted from the trials.
    #[serde(default)]
    pub reference_overhead_ns: Vec<f64>,
    pub events: Vec<BernoulliEvent>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BernoulliEvent {
    /// e.g. `busy_100ns`.
    pub name: String,
    /// The length the busy work was calibrated to, in ns.
    pub target_ns: f64,
    /// Iterations of the busy loop that make one event.
    pub work_units: u64,
    pub trials: BernoulliTrials,
    /// The same event timed by the reference clock, ns per sample; every
    /// sample kept.
    pub reference_ns: Vec<f64>,
}

/// Raw outcomes of n trials: m of them saw the clock tick.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct BernoulliTrials {
    pub n: u64,
    pub m: u64,
    /// Sum of the clock steps seen in the trials that ticked, in ns (equals
    /// m · tick when every tick was a single tick).
    pub sum_steps_ns: f64,
    /// Trials eq. 5 asks for: at the trials' own p once they hold 30
    /// ticks (the collector re-plans as it goes), else at the pilot's p.
    pub planned: u64,
    /// Whether the time budget cut the trials below `planned`.
    pub capped: bool,
    /// Ticks seen in each consecutive block of `block_size` trials (the last
    /// block may be shorter), so drift during the run can be checked.
    #[serde(default)]
    pub block_size: u64,
    #[serde(default)]
    pub block_m: Vec<u64>,
    /// Trials set aside, not counted in `n` and `m`: those of chunks that
    /// took far longer than their trials can although the thread was not
    /// descheduled (the host took the vCPU). A trial spanning such a gap
    /// almost surely sees a tick, and the gap falls at any phase of the
    /// tick, so dropping its chunk removes a load-dependent upward bias
    /// without biasing p. Preempted chunks are kept: the guest preempts at
    /// its scheduler tick, when the coarse clock steps, so dropping them
    /// would drop ticks. Kept here, raw, so the choice can be checked.
    #[serde(default)]
    pub disturbed_chunks: u64,
    #[serde(default)]
    pub disturbed_n: u64,
    #[serde(default)]
    pub disturbed_m: u64,
    #[serde(default)]
    pub disturbed_sum_steps_ns: f64,
    /// Every chunk of trials as the collector ran it, in order (absent in
    /// files from before chunks were recorded). Their sums are `n`, `m` and
    /// `sum_steps_ns`: no chunk is set aside any more, so p = m/n over all
    /// of them is the uncorrected estimate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunks: Option<BernoulliChunks>,
}

/// One value per chunk of trials (a few ms of them), in run order: how much
/// of the chunk's wall time the thread really ran, so the analysis can tell
/// and correct trials that lost the CPU.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct BernoulliChunks {
    /// Trials in the chunk.
    pub n: Vec<u64>,
    /// Trials that saw the clock change.
    pub m: Vec<u64>,
    /// Sum of the clock steps those trials saw, in ns: a trial that lost the
    /// CPU for longer than a tick sees a step of several ticks.
    pub steps_ns: Vec<u64>,
    /// How far the coarse clock advanced over the chunk (read just before
    /// its first trial and just after its last), in ns: the ticks there
    /// were to see. On a busy machine the clock need not step every Tc
    /// while the thread runs.
    pub coarse_ns: Vec<u64>,
    /// Wall time of the chunk (monotonic clock), in ns.
    pub wall_ns: Vec<u64>,
    /// The chunk timed by the reference clock (`reference`), in ns: the
    /// trials' own time by a fine clock, which the estimate is checked
    /// against. Absent in files written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_ns: Option<Vec<u64>>,
    /// CPU time of the measuring thread in the chunk
    /// (`CLOCK_THREAD_CPUTIME_ID`), in ns.
    pub cpu_ns: Vec<u64>,
    /// Involuntary context switches of the thread in the chunk
    /// (`getrusage(RUSAGE_THREAD)`); absent where that could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub involuntary_switches: Option<Vec<u64>>,
    /// Steal time of the CPU the thread was pinned to in the chunk
    /// (`/proc/stat`, in its 10 ms units, as ns); absent where that could
    /// not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_ns: Option<Vec<u64>>,
}
