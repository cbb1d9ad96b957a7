//! The `alloc` suite's `data`: the types its section of a run file reads to.

use crate::format::Cache;
use serde::{Deserialize, Serialize};

/// `data` of the `alloc` suite: workloads under page-placement strategies and
/// allocators, each configuration run as many separate child executions
/// (Hocko & Kalibera).
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
