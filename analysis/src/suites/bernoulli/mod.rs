//! Bernoulli timing: events of known length timed by Bernoulli trials of a
//! coarse clock (Lambert & Power).

mod data;
pub mod report;

pub use data::*;
pub use report::*;

use super::{Context, Suite};
use crate::error::{Checker, ReadError};

pub struct Bernoulli;

impl Suite for Bernoulli {
    const NAME: &'static str = "bernoulli";
    const TITLE: &'static str = "Bernoulli timing";
    const ORDER: u8 = 1;
    const COST: u8 = 1;
    type Data = BernoulliData;
    type Report = BernoulliReport;

    fn check(data: &BernoulliData, cx: &Checker, at: &str) -> Result<(), ReadError> {
        validate(cx, data, at)
    }

    fn report(data: &BernoulliData, cx: &mut Context) -> BernoulliReport {
        bernoulli_report(data, cx.options)
    }
}

fn validate(cx: &Checker, d: &BernoulliData, prefix: &str) -> Result<(), ReadError> {
    cx.check_positive(d.tick_ns, &format!("{prefix}.tick_ns"))?;
    if !(d.epsilon > 0.0 && d.confidence > 0.0 && d.confidence < 1.0) {
        return Err(cx.err(
            Some(format!("{prefix}.confidence")),
            format!(
                "expected epsilon > 0 and 0 < confidence < 1, found {} and {}",
                d.epsilon, d.confidence
            ),
        ));
    }
    trials(cx, &d.overhead, &format!("{prefix}.overhead"))?;
    cx.check_samples(
        &d.reference_overhead_ns,
        &format!("{prefix}.reference_overhead_ns"),
    )?;
    for (i, e) in d.events.iter().enumerate() {
        let at = format!("{prefix}.events[{i}]");
        trials(cx, &e.trials, &format!("{at}.trials"))?;
        cx.check_samples(&e.reference_ns, &format!("{at}.reference_ns"))?;
    }
    Ok(())
}

fn trials(cx: &Checker, t: &BernoulliTrials, path: &str) -> Result<(), ReadError> {
    if t.n == 0 || t.m > t.n {
        return Err(cx.err(
            Some(path.to_string()),
            format!(
                "expected 0 ≤ m ≤ n and n > 0, found m = {} and n = {}",
                t.m, t.n
            ),
        ));
    }
    Ok(())
}
