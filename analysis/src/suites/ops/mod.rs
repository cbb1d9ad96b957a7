//! Operations: primitive operations timed as sequences of n and 2n copies;
//! cost table, summary, clustering, modes and the calibration of portable
//! timings against the cycle counter.

mod calibration;
mod data;
pub mod issue;
pub mod published;
pub mod report;
mod row;

pub use data::*;
pub use report::*;

use super::{Context, Item, Measurements, Suite};
use crate::error::{Checker, ReadError};
use crate::stats::differential::per_copy;

pub struct Ops;

impl Suite for Ops {
    const NAME: &'static str = "ops";
    const TITLE: &'static str = "Operations";
    const ORDER: u8 = 2;
    const COST: u8 = 3;
    const COMPARED: Option<&'static str> = Some("median ns per operation (portable clock)");
    type Data = OpsData;
    type Report = OpsReport;

    fn check(data: &OpsData, cx: &Checker, at: &str) -> Result<(), ReadError> {
        validate(cx, data, at)
    }

    fn report(data: &OpsData, cx: &mut Context) -> OpsReport {
        let mut r = ops_report(data, cx.options);
        r.issue = issue::check(data, cx.host);
        let shared = r
            .issue
            .as_ref()
            .filter(|i| i.shared)
            .map(|i| i.text.as_str());
        r.published = published::compare(&r.ops, cx.host, shared);
        r.published_absent = published::absent_for(cx.host);
        r
    }

    fn items(data: &OpsData) -> Vec<Item> {
        data.ops
            .iter()
            .filter(|op| op.available)
            .map(|op| {
                // As the ops cell: (t(2n) − t(n)) / n per repetition.
                let xs = per_copy(&op.portable_n_ns, &op.portable_2n_ns, data.copies.into());
                Item {
                    key: format!("{} · {}", op.name, op.form),
                    unit: "ns".into(),
                    data: Measurements::Flat(xs),
                    warm_up: false,
                }
            })
            .collect()
    }
}

fn validate(cx: &Checker, d: &OpsData, prefix: &str) -> Result<(), ReadError> {
    if d.copies == 0 {
        return Err(cx.err(
            Some(format!("{prefix}.copies")),
            "expected at least one copy",
        ));
    }
    if let Some(hz) = d.counter_hz {
        cx.check_positive(hz, &format!("{prefix}.counter_hz"))?;
    }
    if let Some(c) = &d.core_clock {
        cx.check_samples(&c.ticks, &format!("{prefix}.core_clock.ticks"))?;
        cx.check_samples(&c.ticks_2n, &format!("{prefix}.core_clock.ticks_2n"))?;
        if !c.ticks_2n.is_empty() && c.ticks_2n.len() != c.ticks.len() {
            return Err(cx.err(
                Some(format!("{prefix}.core_clock.ticks_2n")),
                format!(
                    "{} samples of 2n adds but {} of n adds; expected one pair per sample",
                    c.ticks_2n.len(),
                    c.ticks.len()
                ),
            ));
        }
        if c.adds == 0 {
            return Err(cx.err(
                Some(format!("{prefix}.core_clock.adds")),
                "expected at least one add per sample",
            ));
        }
    }
    for (i, op) in d.ops.iter().enumerate() {
        let at = format!("{prefix}.ops[{i}]");
        for (name, a, b) in [
            ("portable", &op.portable_n_ns, &op.portable_2n_ns),
            ("counter", &op.counter_n_ticks, &op.counter_2n_ticks),
        ] {
            if a.len() != b.len() {
                return Err(cx.err(
                    Some(at.clone()),
                    format!(
                        "{name}: {} n-copy samples but {} 2n-copy samples; expected one pair per repetition",
                        a.len(),
                        b.len()
                    ),
                ));
            }
        }
        cx.check_samples(&op.portable_n_ns, &format!("{at}.portable_n_ns"))?;
        cx.check_samples(&op.portable_2n_ns, &format!("{at}.portable_2n_ns"))?;
        cx.check_samples(&op.counter_n_ticks, &format!("{at}.counter_n_ticks"))?;
        cx.check_samples(&op.counter_2n_ticks, &format!("{at}.counter_2n_ticks"))?;
    }
    Ok(())
}
