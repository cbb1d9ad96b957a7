//! Operations: primitive operations timed as sequences of n and 2n copies;
//! cost table, summary, clustering, modes and the calibration of portable
//! timings against the cycle counter.

mod calibration;
mod data;
pub mod report;

pub use data::*;
pub use report::*;
