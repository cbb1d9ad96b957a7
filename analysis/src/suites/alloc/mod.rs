//! Allocation and page placement: workloads under page-placement strategies
//! and allocators, each configuration run as separate executions (METHODS.md
//! §002).

mod data;
pub mod report;

pub use data::*;
pub use report::*;
