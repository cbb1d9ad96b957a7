//! The `alloc` suite (METHODS.md §002): workloads under page-placement
//! strategies and allocators, each configuration run as many separate child
//! executions.

// The copy suite uses the mappings already; the rest serves the alloc suite.
#[allow(dead_code)]
pub mod mem;
