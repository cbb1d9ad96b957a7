//! Bernoulli timing: events of known length timed by Bernoulli trials of a
//! coarse clock (METHODS.md §000).

mod data;
pub mod report;

pub use data::*;
pub use report::*;
