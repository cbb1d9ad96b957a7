//! One folder per cell: a suite's data types (what its section of a run
//! file reads to), its checks and its report. `samples` is the cell of
//! samples files and imports.

pub mod alloc;
pub mod bernoulli;
pub mod bottleneck;
pub mod clocks;
pub mod copy;
pub mod executions;
pub mod ops;
pub mod samples;
pub mod trace;
