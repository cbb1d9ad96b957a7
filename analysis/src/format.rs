//! Result format v1: the types a collector writes and every reader accepts.
//!
//! `docs/format.md` explains each field and `docs/tickbook.schema.json` is the
//! JSON Schema; keep all three in step. Readers ignore unknown fields (no
//! `deny_unknown_fields`) so that minor versions can add fields.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The value of the top-level `format` field.
pub const FORMAT_TAG: &str = "tickbook";
/// The major version this build reads; files of another major are rejected by name.
pub const FORMAT_MAJOR: u64 = 1;
/// The version this build writes.
pub const FORMAT_VERSION: &str = "1.0";

/// `kind` of a file written by a collector run.
pub const KIND_RUN: &str = "run";
/// `kind` of a hand-written (or converted) file of named series.
pub const KIND_SAMPLES: &str = "samples";

/// One collector run: host description plus one section per suite.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunFile {
    pub format: String,
    pub format_version: String,
    pub kind: String,
    pub tool: Tool,
    /// RFC 3339, UTC.
    pub started_at: String,
    /// RFC 3339, UTC; absent while the run is still in flight (the file is
    /// rewritten after every finished suite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    /// `in_progress` until the last suite is written, then `complete`;
    /// `interrupted` when the run was stopped by a signal.
    pub status: String,
    pub command_line: Vec<String>,
    pub host: Host,
    pub suites: Vec<Suite>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

/// What the machine is, as far as it could be read. Everything that could not
/// be read is `None` and explained in `notes`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Host {
    pub hostname: String,
    /// `std::env::consts::OS`.
    pub os: String,
    /// `std::env::consts::ARCH`.
    pub arch: String,
    #[serde(default)]
    pub kernel: Option<String>,
    #[serde(default)]
    pub cpu: Cpu,
    /// Cache geometry from sysfs, one entry per cache seen by cpu0.
    #[serde(default)]
    pub caches: Vec<Cache>,
    /// e.g. `KVMKVMKVM` from CPUID 0x40000000, or `/sys/hypervisor/type`.
    #[serde(default)]
    pub hypervisor: Option<String>,
    #[serde(default)]
    pub clocksource: Option<String>,
    #[serde(default)]
    pub available_clocksources: Vec<String>,
    /// Transparent huge pages mode, e.g. `madvise` (the bracketed choice).
    #[serde(default)]
    pub thp: Option<String>,
    #[serde(default)]
    pub cpu_governor: Option<String>,
    #[serde(default)]
    pub memory_bytes: Option<u64>,
    #[serde(default)]
    pub page_size: Option<u64>,
    #[serde(default)]
    pub is_root: Option<bool>,
    #[serde(default)]
    pub perf_event_paranoid: Option<i64>,
    /// What could not be read, and why.
    #[serde(default)]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Cpu {
    #[serde(default)]
    pub vendor: Option<String>,
    #[serde(default)]
    pub model_name: Option<String>,
    #[serde(default)]
    pub family: Option<u32>,
    #[serde(default)]
    pub model: Option<u32>,
    #[serde(default)]
    pub stepping: Option<u32>,
    /// Timing-relevant feature flags that are present (tsc, constant_tsc,
    /// nonstop_tsc, rdtscp, invariant_tsc, tsc_known_freq, avx2, erms, …).
    #[serde(default)]
    pub flags: Vec<String>,
    #[serde(default)]
    pub logical_cpus: Option<u32>,
    /// sysfs `online` list, e.g. `0-1`.
    #[serde(default)]
    pub online: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Cache {
    pub level: u32,
    /// `Data`, `Instruction` or `Unified`.
    pub kind: String,
    #[serde(default)]
    pub size_bytes: Option<u64>,
    #[serde(default)]
    pub ways: Option<u32>,
    #[serde(default)]
    pub line_bytes: Option<u32>,
    #[serde(default)]
    pub sets: Option<u32>,
    #[serde(default)]
    pub shared_cpu_list: Option<String>,
}

/// One suite's section. `data` is kept untyped here so that a reader meeting
/// a suite it does not know (from a newer minor version) can skip it and still
/// show the rest; known suites are parsed from it by [`crate::read`].
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Suite {
    pub suite: String,
    /// `complete` or `failed` (with `error`).
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub started_at: String,
    pub ended_at: String,
    /// The suite's configuration as run (flags, counts, durations).
    #[serde(default)]
    pub config: Value,
    /// Every fallback the suite took (a clock missing, a source refused), with
    /// the reason. Never empty silently: if it fell back, it is here.
    #[serde(default)]
    pub fallbacks: Vec<String>,
    #[serde(default)]
    pub data: Value,
}

/// `data` of the `clocks` suite.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ClocksData {
    /// The clock that timed the read-cost batches and scans (e.g.
    /// `tsc_lfence_rdtsc`, or `CLOCK_MONOTONIC_RAW` where there is no TSC).
    pub reference: String,
    /// Nanoseconds per unit of the reference, as used by the collector.
    pub reference_ns_per_unit: f64,
    /// The TSC frequency (Hz) the collector used to convert ticks to ns, when
    /// it has a TSC; one of `tsc_frequency`'s sources (named in
    /// `tsc_hz_source`).
    #[serde(default)]
    pub tsc_hz: Option<f64>,
    #[serde(default)]
    pub tsc_hz_source: Option<String>,
    pub clocks: Vec<ClockMeasurement>,
    /// Every TSC (or generic timer) frequency source tried, readable or not.
    #[serde(default)]
    pub tsc_frequency: Vec<FrequencySource>,
    /// Monotonicity across CPUs: the thread migrates between `cpus` and
    /// reads the clock just before and just after each move.
    #[serde(default)]
    pub cross_cpu: Vec<CrossCpuCheck>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CrossCpuCheck {
    pub clock: String,
    /// Unit of `steps` and `min_step`: `ns` or `tick`.
    #[serde(default)]
    pub unit: String,
    pub cpus: Vec<u32>,
    pub migrations: u64,
    /// Moves after which the thread was not on the other CPU (not counted).
    #[serde(default)]
    pub not_moved: u64,
    /// Steps (read after the move minus read before it) that were negative.
    pub backwards: u64,
    /// Smallest step, in the clock's unit: a skew larger than this would
    /// have shown as a backward step; smaller skews cannot be seen.
    #[serde(default)]
    pub min_step: Option<i64>,
    #[serde(default)]
    pub ns_per_unit: Option<f64>,
    /// Every step, in the clock's unit.
    #[serde(default)]
    pub steps: Vec<i64>,
    #[serde(default)]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ClockMeasurement {
    /// `tsc_rdtsc`, `tsc_lfence_rdtsc`, `tsc_rdtscp`, `cntvct_el0`,
    /// `CLOCK_MONOTONIC`, …, `std::time::Instant`.
    pub name: String,
    pub available: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable_reason: Option<String>,
    /// Unit of `scan.steps`: `ns` or `tick`.
    #[serde(default)]
    pub unit: String,
    /// Nanoseconds per unit (1 for ns clocks; 1e9 / frequency for counters).
    #[serde(default)]
    pub ns_per_unit: Option<f64>,
    /// What the platform claims (`clock_getres`, 1 / counter frequency).
    #[serde(default)]
    pub nominal_resolution_ns: Option<f64>,
    #[serde(default)]
    pub nominal_resolution_source: Option<String>,
    #[serde(default)]
    pub read_cost: Option<ReadCost>,
    #[serde(default)]
    pub scan: Option<ClockScan>,
}

/// Read cost: batches of `batch` back-to-back reads of the clock, each batch
/// timed by the reference clock; one sample per batch, in ns per read.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ReadCost {
    pub batch: u32,
    pub reference: String,
    /// Every batch's cost per read, in ns (reference clock overhead included,
    /// amortised over the batch).
    pub samples_ns: Vec<f64>,
}

/// A scan reads the clock back to back for a while and keeps every change of
/// value, run-length encoded: before step `i` the value stayed the same for
/// `reads_between[i]` further reads. Negative steps are monotonicity
/// violations. This is lossless for the sequence of values read.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ClockScan {
    /// Total reads in the scan.
    pub reads: u64,
    /// Scan length in ns as measured by the reference clock.
    pub duration_ns: f64,
    /// Every non-zero difference between consecutive reads, in `unit`.
    pub steps: Vec<i64>,
    /// Reads that returned an unchanged value before each step.
    pub reads_between: Vec<u64>,
    /// Why the scan stopped: `max_steps` or `max_duration`.
    #[serde(default)]
    pub stopped_by: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FrequencySource {
    /// `cpuid_0x15`, `cpuid_0x16`, `cpuid_hypervisor_0x40000010`,
    /// `perf_mmap_page`, `kernel_log`, `calibration_monotonic_raw`, `cntfrq_el0`.
    pub name: String,
    #[serde(default)]
    pub hz: Option<f64>,
    /// Why the source gave no frequency (not present, refused, zero).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Raw values the frequency was derived from (e.g. `time_mult`, `time_shift`).
    #[serde(default)]
    pub detail: Value,
    /// For calibration: every window tried, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<CalibrationWindow>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CalibrationWindow {
    pub window_ns: f64,
    pub ticks: f64,
    pub hz: f64,
}

/// A file of named series written by hand or converted from another tool.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SamplesFile {
    pub format: String,
    pub format_version: String,
    pub kind: String,
    /// Where the numbers came from (tool, command), free text.
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// Free-form host description; optional for hand-written files.
    #[serde(default)]
    pub host: Option<Value>,
    pub series: Vec<Series>,
}

/// Measurements of one quantity, grouped by execution (one group per process
/// run; a single group is fine).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Series {
    pub name: String,
    /// `ns`, `us`, `ms`, `s`, `cycles`, … (time units are scaled for display).
    pub unit: String,
    pub executions: Vec<Vec<f64>>,
    #[serde(default)]
    pub metadata: Value,
}

/// `data` of the `bernoulli` suite: events of known length timed by
/// Bernoulli trials of a coarse clock (METHODS.md §000) and, as the
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
}

/// `data` of the `ops` suite: primitive operations timed as homogeneous
/// sequences of n and 2n copies, by the portable clock and by the TSC.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct OpsData {
    /// The portable clock (`std::time::Instant`).
    pub portable_clock: String,
    /// The cycle counter (`tsc_lfence_rdtsc`, `cntvct_el0`), if any.
    #[serde(default)]
    pub counter_clock: Option<String>,
    /// Counter frequency used to convert ticks to ns.
    #[serde(default)]
    pub counter_hz: Option<f64>,
    /// n: copies in the short sequence (the long one has 2n).
    pub copies: u32,
    pub repetitions: u32,
    /// A long chain of dependent adds, which retire at one core cycle each:
    /// gives core cycles per counter tick.
    #[serde(default)]
    pub core_clock: Option<CoreClock>,
    pub ops: Vec<OpMeasurement>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CoreClock {
    /// Dependent adds per sample (n).
    pub adds: u64,
    /// Counter ticks per sample of n adds, every sample kept.
    pub ticks: Vec<f64>,
    /// Counter ticks for 2n adds, paired with `ticks` (same length). When
    /// present a sample's cost is `(ticks_2n − ticks) / adds`, which cancels
    /// the counter reads; files without it divide `ticks` by `adds`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ticks_2n: Vec<f64>,
}

impl CoreClock {
    /// Counter ticks per dependent add (one core cycle), one per sample.
    pub fn ticks_per_add(&self) -> Vec<f64> {
        let n = self.adds as f64;
        if self.ticks_2n.is_empty() {
            self.ticks.iter().map(|t| t / n).collect()
        } else {
            self.ticks
                .iter()
                .zip(&self.ticks_2n)
                .map(|(a, b)| (b - a) / n)
                .collect()
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct OpMeasurement {
    /// e.g. `add_i64`, `div_f64`, `cvt_f64_i32`, `branch_unpredictable`.
    pub name: String,
    /// `integer`, `float`, `conversion`, `branch`, `memory`, `bit`.
    pub group: String,
    /// `latency` (a dependency chain) or `throughput` (independent copies).
    pub form: String,
    /// `asm` (an exact instruction sequence) or `portable` (compiled Rust).
    pub implementation: String,
    /// The instruction(s) one copy executes, e.g. `add rax, rcx`.
    #[serde(default)]
    pub instruction: Option<String>,
    pub available: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable_reason: Option<String>,
    /// Per repetition: n copies and 2n copies timed by the portable clock (ns).
    #[serde(default)]
    pub portable_n_ns: Vec<f64>,
    #[serde(default)]
    pub portable_2n_ns: Vec<f64>,
    /// Per repetition: the same sequences timed by the counter (ticks).
    #[serde(default)]
    pub counter_n_ticks: Vec<f64>,
    #[serde(default)]
    pub counter_2n_ticks: Vec<f64>,
}

/// `data` of the `copy` suite: the array-copy benchmark of METHODS.md §001
/// — 8 variants × alignments × implementations × lengths.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CopyData {
    /// The clock that timed the samples (`tsc_lfence_rdtsc`, `std::time::Instant`).
    pub clock: String,
    /// Copies per timed sample; each sample is the time of one copy in ns
    /// (the timed total divided by this).
    pub copies_per_sample: u32,
    pub repetitions: u32,
    /// Cache sizes (bytes) the lengths were chosen around, e.g. `L1d`, `L2`, `L3`.
    #[serde(default)]
    pub cache_bytes: Vec<NamedSize>,
    pub cases: Vec<CopyCase>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct NamedSize {
    pub name: String,
    pub bytes: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CopyCase {
    /// `std_copy_nonoverlapping`, `std_copy` (memmove), `rep_movsb`,
    /// `sse2_loop16`, `avx2_loop32`, `byte_loop`.
    pub implementation: String,
    /// 1–8, as the seed's ArrayCopyTest3: 1–4 distinct arrays, 5–8 the same
    /// array, with offsets (0,0), (off,0), (0,off), (off,off).
    pub variant: u8,
    pub same_array: bool,
    pub src_offset: u64,
    pub dst_offset: u64,
    /// The alignment the offset and length were rounded to (`i − i % align`).
    pub alignment: u64,
    /// Bytes copied.
    pub length: u64,
    pub available: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable_reason: Option<String>,
    /// ns per copy, every sample.
    #[serde(default)]
    pub samples_ns: Vec<f64>,
    /// Copies per timed sample in this case when it differs from
    /// `CopyData.copies_per_sample` (long copies are timed one per sample).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copies_per_sample: Option<u32>,
}

/// `data` of the `alloc` suite: workloads under page-placement strategies and
/// allocators, each configuration run as many separate child executions
/// (METHODS.md §002).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AllocData {
    pub executions_per_config: u32,
    pub measurements_per_execution: u32,
    /// Page colours of the cache used for colouring (None where unknown).
    #[serde(default)]
    pub colours: Option<u32>,
    /// The cache the colours come from, e.g. `L2` (size, ways, line size).
    #[serde(default)]
    pub colour_cache: Option<Cache>,
    /// Seed of the randomized execution order and environment padding.
    pub schedule_seed: u64,
    pub configs: Vec<AllocConfig>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AllocConfig {
    /// `fft`, `sor`, `lu`, `sparse_matmul`, `monte_carlo`, `stream`.
    pub workload: String,
    /// Working set as a multiple of `cache` (0.5, 1, 2).
    pub size_factor: f64,
    /// The cache the size factor refers to, e.g. `L2`.
    pub cache: String,
    pub working_set_bytes: u64,
    /// `default_4k`, `thp_madvise`, `page_colouring`, `bin_hopping`.
    pub strategy: String,
    /// `system`, `mimalloc`, `jemalloc`.
    pub allocator: String,
    pub available: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable_reason: Option<String>,
    /// Unit of the measurements (`ns`).
    pub unit: String,
    pub executions: Vec<AllocExecution>,
}

/// One child process run of a configuration.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AllocExecution {
    /// Position in the randomized schedule of the whole suite.
    pub order: u32,
    /// `false` when the child failed; `error` says how. Kept, not dropped.
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Bytes of random environment padding the child was started with.
    pub env_padding_bytes: u64,
    /// Every measurement of the workload in this execution.
    #[serde(default)]
    pub measurements: Vec<f64>,
    /// Pages per colour actually obtained (colouring strategies), from
    /// `/proc/self/pagemap`; for the other strategies the kernel's own
    /// colours of the same pages (with `colour_misses` absent).
    #[serde(default)]
    pub colour_histogram: Vec<u64>,
    /// Pages whose colour differed from the one the strategy asked for.
    #[serde(default)]
    pub colour_misses: Option<u64>,
    /// Bytes of the workload's arrays in transparent huge pages, read after
    /// the measurements (`/proc/kpageflags`, else `AnonHugePages` of the
    /// mappings holding them): shows whether `thp_madvise` got them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub huge_page_bytes: Option<u64>,
}

/// `data` of the `trace` suite: workloads sampled per interval, at several
/// instrumentation levels, to see whether measuring changed what was
/// measured (METHODS.md §003).
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

/// `data` of the `bottleneck` suite (METHODS.md §004, MTOOL): kernels with
/// known operation counts over working sets that cross the caches, each
/// region timed, plus the operation costs (measured in the same run) that
/// predict each region's time as if every access hit L1.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BottleneckData {
    /// The clock that timed the regions and the costs' sequences
    /// (`tsc_lfence_rdtsc`, `cntvct_el0`, `std::time::Instant`).
    pub clock: String,
    /// Unit of every time in this section: `counter_ticks` or `ns`.
    pub unit: String,
    /// Counter frequency converting ticks to ns (None when `unit` is `ns`).
    #[serde(default)]
    pub counter_hz: Option<f64>,
    /// One tick of the clock, in `unit` (1 for a cycle counter).
    pub tick: f64,
    /// Cost of one clock read, in `unit`: one sample per batch of
    /// back-to-back reads.
    pub read_cost: Vec<f64>,
    /// A region is timable when its shortest repetition lasts at least
    /// this many ticks…
    pub min_tick_multiple: f64,
    /// …and this many clock reads (median read cost).
    pub min_read_multiple: f64,
    /// n of the operation sequences in `costs` (the long ones have 2n).
    pub copies: u32,
    /// The operations the predictions use, timed like the ops suite's
    /// (`counter_*` when `unit` is `counter_ticks`, else `portable_*`).
    pub costs: Vec<OpMeasurement>,
    /// Cache sizes of the host, smallest first (`L1d`, `L2`, `L3`).
    #[serde(default)]
    pub cache_bytes: Vec<NamedSize>,
    pub kernels: Vec<BottleneckKernel>,
    pub cases: Vec<BottleneckCase>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BottleneckKernel {
    /// `triad`, `strided_sum`, `pointer_chase`, `matmul_naive`,
    /// `matmul_blocked`, `stencil`.
    pub name: String,
    pub description: String,
    /// `throughput` (independent operations: the busiest resource bounds
    /// the time) or `latency` (one dependency chain bounds it).
    pub model: String,
    /// `asm` (exact instruction sequence) or `portable` (compiled Rust;
    /// counts are the source's operations).
    pub implementation: String,
    /// Largest working set run, and why the sizes stop there.
    pub max_working_set_bytes: u64,
    #[serde(default)]
    pub size_note: Option<String>,
}

/// One timed region: a kernel at one working-set size, `passes` sweeps over
/// its data, timed `times.len()` times.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BottleneckCase {
    pub kernel: String,
    /// Bytes the kernel's arrays occupy (what must fit in a cache).
    pub working_set_bytes: u64,
    /// The kernel's dimensions, e.g. `m=170` or `n=64 tile=32`.
    pub shape: String,
    /// Sweeps over the data inside one timed region.
    pub passes: u64,
    /// Operations executed in one region, by operation name
    /// (`load_u64`, `store_u64`, `add_f64`, `mul_f64`, `fma_f64`,
    /// `add_i64`, `branch_taken`), exactly from the loop bounds.
    pub counts: std::collections::BTreeMap<String, u64>,
    /// Operations on the region's dependency chain (latency model), by name.
    #[serde(default)]
    pub chain: std::collections::BTreeMap<String, u64>,
    /// Time of each repetition of the region, in `unit`.
    pub times: Vec<f64>,
    pub timable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub untimable_reason: Option<String>,
}
