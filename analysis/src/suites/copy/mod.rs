//! Copy: the array-copy benchmark (METHODS.md §001).

mod data;
pub mod report;

pub use data::*;
pub use report::*;
