//! Result format v1, the envelope: what every run file (`RunFile`: tool,
//! host, one untyped section per suite) and every samples file
//! (`SamplesFile`, also what importers produce) holds, and the values
//! several suites share (`Cache`, `NamedSize`). Each suite's `data` is typed
//! in its own folder (`suites/<name>/data.rs`).
//!
//! `docs/format.md` explains each field and `docs/tickbook.schema.json` is the
//! JSON Schema; keep them and the types in step. Readers ignore unknown fields
//! (no `deny_unknown_fields`) so that minor versions can add fields.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The value of the top-level `format` field.
pub const FORMAT_TAG: &str = "tickbook";
/// The major version this build reads; files of another major are rejected by name.
pub const FORMAT_MAJOR: u64 = 1;
/// The version this build writes.
pub const FORMAT_VERSION: &str = "1.4";

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
    /// Where this run sits in a campaign (`tickbook campaign`, added in 1.1);
    /// absent for a run collected by hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub campaign: Option<Campaign>,
    /// The machine's configuration for timing and what disturbed it while
    /// the run measured (added in 1.2); absent in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<Environment>,
    /// The source revision of the working directory the run was collected
    /// in, when it is a git checkout (added in 1.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<Revision>,
    pub suites: Vec<Suite>,
}

/// Which version of the measured program a file is of: what orders a
/// history of files (`report::across::history`). Every field is optional.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Revision {
    /// The commit id (git's full hash, or whatever the tool recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The working tree had uncommitted changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty: Option<bool>,
    /// When the commit was made (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
}

/// How fit the machine was to measure on: its configuration (checks made
/// once, at the start) and samples of what disturbs timing, taken at the
/// start, between suites and at the end. Counts are cumulative since boot;
/// the analysis turns differences between samples into findings.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Environment {
    /// `sysconf(_SC_CLK_TCK)`: the unit of `/proc/stat`'s CPU times.
    #[serde(default)]
    pub user_hz: Option<u64>,
    #[serde(default)]
    pub checks: Vec<EnvCheck>,
    #[serde(default)]
    pub samples: Vec<EnvSample>,
    /// What could not be read or sampled, and why.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// One configuration check, as pyperf's `system show` makes them.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct EnvCheck {
    /// e.g. `cpu_governor`, `aslr`, `clocksource`.
    pub name: String,
    /// The value as read; `null` when it could not be read.
    #[serde(default)]
    pub value: Option<String>,
    /// Whether the value is the one quiet timing wants; `null` when there
    /// is nothing to judge (unreadable, or informational only).
    #[serde(default)]
    pub quiet: Option<bool>,
    /// What the value means for timing.
    pub meaning: String,
    /// The command that would change it, when one would.
    #[serde(default)]
    pub change: Option<String>,
    /// Why it could not be read.
    #[serde(default)]
    pub not_readable: Option<String>,
}

/// The disturbance counters at one moment of the run.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct EnvSample {
    /// `start`, `after <suite>`, `middle of <suite>`, `end`.
    pub at: String,
    /// `CLOCK_MONOTONIC_RAW`, ns.
    pub monotonic_ns: u64,
    /// The cycle counter (TSC, CNTVCT_EL0) read with the monotonic clock.
    #[serde(default)]
    pub counter: Option<u64>,
    /// Counter ticks per core cycle: the median over a few short dependent
    /// add chains (one add a cycle) timed by the counter.
    #[serde(default)]
    pub counter_ticks_per_cycle: Option<f64>,
    /// The CPU the measuring thread was on (`sched_getcpu`).
    #[serde(default)]
    pub cpu: Option<u32>,
    /// Every CPU's times from `/proc/stat` and interrupts from `/proc/interrupts`.
    #[serde(default)]
    pub cpus: Vec<CpuTimes>,
    /// The collector process (`getrusage(RUSAGE_SELF)`).
    #[serde(default)]
    pub process: Option<ProcessUsage>,
    /// The measuring thread (`/proc/thread-self/schedstat`).
    #[serde(default)]
    pub thread: Option<ThreadSched>,
}

/// One CPU's cumulative times in `user_hz` ticks, and its interrupts.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CpuTimes {
    pub cpu: u32,
    pub user: u64,
    pub nice: u64,
    pub system: u64,
    pub idle: u64,
    pub iowait: u64,
    pub irq: u64,
    pub softirq: u64,
    pub steal: u64,
    /// The CPU's column of `/proc/interrupts`, summed.
    #[serde(default)]
    pub interrupts: Option<u64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ProcessUsage {
    pub user_us: u64,
    pub system_us: u64,
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
}

/// The scheduler's account of the measuring thread.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ThreadSched {
    /// Time on a CPU, ns.
    pub run_ns: u64,
    /// Time runnable but waiting for a CPU, ns: what other tasks took.
    pub wait_ns: u64,
    pub timeslices: u64,
}

/// One task of a campaign: which node and execution it is, the Slurm job it
/// ran as, and the CPUs it ran on.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Campaign {
    /// The campaign's name (its manifest's `name`).
    pub name: String,
    /// The task's number in the campaign, 0-based: node index × executions + execution.
    pub task: u32,
    /// The node it ran on (Slurm's node name, `SLURMD_NODENAME`).
    pub node: String,
    /// Which execution on that node, 0-based.
    pub execution: u32,
    /// Executions planned per node.
    pub executions: u32,
    #[serde(default)]
    pub slurm: Option<SlurmJob>,
    #[serde(default)]
    pub cpus: Option<CpuPinning>,
}

/// The Slurm job an array task ran as, from its environment.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SlurmJob {
    /// `SLURM_JOB_ID`: this task's own job id.
    #[serde(default)]
    pub job_id: Option<u64>,
    /// `SLURM_ARRAY_JOB_ID`: the array's job id (one per submission).
    #[serde(default)]
    pub array_job_id: Option<u64>,
    /// `SLURM_ARRAY_TASK_ID`: the index in the array (equal to `task`).
    #[serde(default)]
    pub array_task_id: Option<u32>,
    #[serde(default)]
    pub cluster: Option<String>,
    #[serde(default)]
    pub partition: Option<String>,
    #[serde(default)]
    pub account: Option<String>,
    /// `SLURM_CPUS_ON_NODE`: CPUs allocated to the job on its node.
    #[serde(default)]
    pub cpus_on_node: Option<u32>,
}

/// The CPUs the task was given and the ones it pinned itself to.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct CpuPinning {
    /// The affinity mask the task started with (`sched_getaffinity`), e.g. `0-3`.
    #[serde(default)]
    pub allowed: Option<String>,
    /// The CPUs Slurm allocated (`scontrol show job -d`: `CPU_IDs`).
    #[serde(default)]
    pub allocated: Option<String>,
    /// The mask the run measured under; `null` when it could not pin.
    #[serde(default)]
    pub pinned: Option<String>,
    /// How: `slurm` (the task plugin had already bound it to its
    /// allocation), `allocated` (it bound itself to `allocated`) or
    /// `none` (with the reason in `note`).
    pub how: String,
    #[serde(default)]
    pub note: Option<String>,
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
    /// The source revision measured, when the tool recorded it (added in
    /// 1.3; boxed: most files have none, and a document's size is this).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<Box<Revision>>,
    pub series: Vec<Series>,
    /// Which series are alternatives of one another, compared by default.
    #[serde(default, skip_serializing_if = "Alternatives::is_all")]
    pub alternatives: Alternatives,
    /// What the reader of the file should know, shown as the file's
    /// warnings: an importer says here what it could not read (a benchmark
    /// of a folder, a command whose every run failed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
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
    /// With `alternatives: groups`: the series it is compared with by
    /// default are those of the same group (one benchmark under several
    /// configurations, a parameter scan, a Criterion group).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// Which series of a samples file a reader compares with each other
/// without being asked: the tools differ. hyperfine's commands are
/// alternatives of one command's job; a pyperformance run, a Go package or
/// a JMH class holds unrelated benchmarks, which their tools never compare
/// with each other.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Alternatives {
    /// Every series with the others of its unit (hand-written files,
    /// hyperfine).
    #[default]
    All,
    /// Only series of the same `group`; a series without one is compared
    /// on request.
    Groups,
}

impl Alternatives {
    pub fn is_all(&self) -> bool {
        *self == Alternatives::All
    }
}

/// A size in bytes with its name, e.g. a cache's (`L1d`, `L2`): shared by
/// the suites whose lengths are chosen around the host's caches.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct NamedSize {
    pub name: String,
    pub bytes: u64,
}
