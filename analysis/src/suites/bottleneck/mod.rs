//! Bottlenecks: MTOOL's predictions from operation counts and costs against
//! timed regions (METHODS.md §004).

mod data;
pub mod report;

pub use data::*;
pub use report::*;
