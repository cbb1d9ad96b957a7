//! The `clocks` suite's `data`: the types its section of a run file reads to.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
