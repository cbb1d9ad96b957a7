//! Bottlenecks: MTOOL's predictions from operation counts and costs against
//! timed regions (MTOOL).

mod data;
pub mod report;

pub use data::*;
pub use report::*;

use super::{Context, Suite};
use crate::error::{Checker, ReadError};

pub struct Bottleneck;

impl Suite for Bottleneck {
    const NAME: &'static str = "bottleneck";
    const TITLE: &'static str = "Bottlenecks";
    const ORDER: u8 = 6;
    const COST: u8 = 6;
    type Data = BottleneckData;
    type Report = BottleneckReport;

    fn check(data: &BottleneckData, cx: &Checker, at: &str) -> Result<(), ReadError> {
        validate(cx, data, at)
    }

    fn report(data: &BottleneckData, cx: &mut Context) -> BottleneckReport {
        bottleneck_report(data, cx.options)
    }
}

/// Times and costs are durations in the declared unit; ticks need a
/// frequency; cost pairs match.
fn validate(cx: &Checker, d: &BottleneckData, prefix: &str) -> Result<(), ReadError> {
    match (d.unit.as_str(), d.counter_hz) {
        ("counter_ticks", Some(hz)) => cx.check_positive(hz, &format!("{prefix}.counter_hz"))?,
        ("counter_ticks", None) => {
            return Err(cx.err(
                Some(format!("{prefix}.counter_hz")),
                "unit is counter_ticks: expected the counter frequency",
            ))
        }
        ("ns", _) => {}
        (other, _) => {
            return Err(cx.err(
                Some(format!("{prefix}.unit")),
                format!("expected \"counter_ticks\" or \"ns\", found \"{other}\""),
            ))
        }
    }
    cx.check_positive(d.tick, &format!("{prefix}.tick"))?;
    if d.copies == 0 {
        return Err(cx.err(
            Some(format!("{prefix}.copies")),
            "expected at least one copy",
        ));
    }
    cx.check_samples(&d.read_cost, &format!("{prefix}.read_cost"))?;
    for (i, op) in d.costs.iter().enumerate() {
        let at = format!("{prefix}.costs[{i}]");
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
            cx.check_samples(a, &format!("{at}.{name}_n"))?;
            cx.check_samples(b, &format!("{at}.{name}_2n"))?;
        }
    }
    for (i, c) in d.cases.iter().enumerate() {
        let at = format!("{prefix}.cases[{i}]");
        if c.times.is_empty() {
            return Err(cx.err(
                Some(format!("{at}.times")),
                "expected at least one repetition",
            ));
        }
        cx.check_samples(&c.times, &format!("{at}.times"))?;
    }
    Ok(())
}
