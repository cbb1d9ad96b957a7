use crate::stats::sequential::PrecisionRule;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `data` of the `commands` suite (`tickbook run`): the commands, how their
/// runs were ordered, and every run in time order. Each run is one process
/// and one execution of its command's series.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CommandsData {
    pub commands: Vec<CommandSpec>,
    /// `interleaved` (each round's order drawn afresh from `seed`) or
    /// `sequential` (every run of the first command, then the next's).
    pub order: String,
    pub seed: u64,
    /// The shell each command ran in (`sh -c`-like), null for `-N`.
    #[serde(default)]
    pub shell: Option<String>,
    /// The shell's own start-up, measured before the runs and subtracted
    /// from every run's times (null without a shell).
    #[serde(default)]
    pub shell_spawn: Option<ShellSpawn>,
    /// Warm-up runs of each command before the first round (not recorded).
    #[serde(default)]
    pub warmup: u32,
    /// Each finished round's order: indices into `commands`, in the order
    /// they ran.
    pub rounds: Vec<Vec<usize>>,
    /// Every run of the finished rounds, in the order they ran.
    pub runs: Vec<RunRecord>,
    /// Set when the run stopped on precision (`--precision`): the paired
    /// ratios' intervals are then the confidence sequence the stop was
    /// decided on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<PrecisionRule>,
    /// The perf events counted for each run, and why those not counted are
    /// not (absent in files written before they were counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counters: Option<Counters>,
}

/// How each run's perf events were counted: from the child's `exec`, its
/// children included (`inherit`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Counters {
    /// Whether kernel-mode work is counted (false where
    /// `perf_event_paranoid` allows user mode only).
    pub kernel: bool,
    /// Each event asked for (`task_clock`, `instructions`, `cycles`) that
    /// could not be counted, with why; an event counted is not here.
    #[serde(default)]
    pub unavailable: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CommandSpec {
    pub name: String,
    /// The command exactly as run (parameters substituted).
    pub command: String,
    /// The parameter values of `--parameter-scan`/`--parameter-list`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub parameters: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ShellSpawn {
    /// Runs of the shell with an empty command.
    pub runs: u32,
    /// Their means, subtracted from every run (results below 0 are 0).
    pub wall_ns: f64,
    pub user_ns: f64,
    pub sys_ns: f64,
    /// The means of its perf event counts, subtracted likewise (absent
    /// for an event not counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_clock_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunRecord {
    /// Index into `commands`.
    pub command: usize,
    /// The round (0-based), and the place in it (0-based). In `sequential`
    /// order the round is the run's index among its command's runs.
    pub round: usize,
    pub position: usize,
    /// When it started, ns after the first round began (monotonic clock).
    pub start_ns: f64,
    /// Wall time by the monotonic clock, user and system CPU time of the
    /// child (`wait4`), the shell's start-up subtracted from each.
    pub wall_ns: f64,
    pub user_ns: f64,
    pub sys_ns: f64,
    /// The child's maximum resident set size (`ru_maxrss`), KiB.
    pub max_rss_kib: u64,
    /// Involuntary context switches of the child and what it waited for
    /// (`ru_nivcsw`): how often it was preempted. Null in files from before
    /// they were recorded.
    #[serde(default)]
    pub nivcsw: Option<u64>,
    /// Voluntary context switches (`ru_nvcsw`): waits the run chose (I/O,
    /// sleep, its children).
    #[serde(default)]
    pub nvcsw: Option<u64>,
    /// Exit code, or null when a signal ended it.
    pub exit_code: Option<i32>,
    #[serde(default)]
    pub signal: Option<i32>,
    /// Perf event counts from the child's `exec`, its children included,
    /// the shell's start-up subtracted (absent where not counted:
    /// `CommandsData::counters` says why). Task-clock is ns on a CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_clock_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<f64>,
}
