//! The `ops` suite's `data`: the types its section of a run file reads to.

use serde::{Deserialize, Serialize};

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
    /// The one-cycle ALU operations timed again, in the same way, before
    /// the table and after it: whether the core's issue width was this
    /// thread's alone at both ends of the suite (`issue.rs`). Absent in
    /// files before format 1.4.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub probes: Vec<OpsProbe>,
}

/// One probe of the one-cycle ALU operations (`start` or `end` of the
/// suite).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct OpsProbe {
    pub at: String,
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
        if self.ticks_2n.is_empty() {
            let n = self.adds as f64;
            self.ticks.iter().map(|t| t / n).collect()
        } else {
            crate::stats::differential::per_copy(&self.ticks, &self.ticks_2n, self.adds)
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
