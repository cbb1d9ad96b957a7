//! Perturbation: workloads sampled per interval at several instrumentation
//! levels (Mytkowicz et al.).

mod data;
pub mod report;

pub use data::*;
pub use report::*;

use super::{Context, Suite};
use crate::error::{Checker, ReadError};

pub struct Trace;

impl Suite for Trace {
    const NAME: &'static str = "trace";
    const TITLE: &'static str = "Perturbation";
    const ORDER: u8 = 5;
    const COST: u8 = 5;
    type Data = TraceData;
    type Report = TraceReport;

    fn check(data: &TraceData, cx: &Checker, at: &str) -> Result<(), ReadError> {
        validate(cx, data, at)
    }

    fn report(data: &TraceData, cx: &mut Context) -> TraceReport {
        trace_report(data, cx.options)
    }
}

/// Every record has one finite value per column, and every column is a
/// declared metric.
fn validate(cx: &Checker, d: &TraceData, prefix: &str) -> Result<(), ReadError> {
    for (w, wl) in d.workloads.iter().enumerate() {
        for (r, run) in wl.runs.iter().enumerate() {
            let at = format!("{prefix}.workloads[{w}].runs[{r}]");
            for (c, col) in run.columns.iter().enumerate() {
                if !d.metrics.iter().any(|m| &m.name == col) {
                    return Err(cx.err(
                        Some(format!("{at}.columns[{c}]")),
                        format!("column \"{col}\" is not one of the suite's metrics"),
                    ));
                }
            }
            for (i, rec) in run.records.iter().enumerate() {
                if rec.len() != run.columns.len() {
                    return Err(cx.err(
                        Some(format!("{at}.records[{i}]")),
                        format!(
                            "record has {} values: expected one per column ({})",
                            rec.len(),
                            run.columns.len()
                        ),
                    ));
                }
                if let Some(j) = rec.iter().position(|v| !v.is_finite()) {
                    return Err(cx.err(
                        Some(format!("{at}.records[{i}][{j}]")),
                        "expected a finite number",
                    ));
                }
            }
            if !(run.wall_ns.is_finite() && run.wall_ns > 0.0) {
                return Err(cx.err(Some(format!("{at}.wall_ns")), "expected a positive number"));
            }
        }
    }
    Ok(())
}
