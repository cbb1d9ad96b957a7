//! Samples: named series grouped by execution, from a samples file or an
//! import.

pub mod report;

pub use report::*;
