//! Perturbation: workloads sampled per interval at several instrumentation
//! levels (METHODS.md §003).

mod data;
pub mod report;

pub use data::*;
pub use report::*;
