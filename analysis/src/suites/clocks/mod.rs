//! Clocks: every clock's read cost, resolution, monotonicity and frequency
//! sources.

mod data;
pub mod report;

pub use data::*;
pub use report::*;
