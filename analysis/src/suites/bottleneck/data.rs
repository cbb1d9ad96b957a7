//! The `bottleneck` suite's `data`: the types its section of a run file reads to.

use crate::format::NamedSize;
use crate::suites::ops::OpMeasurement;
use serde::{Deserialize, Serialize};

/// `data` of the `bottleneck` suite (MTOOL): kernels with
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
