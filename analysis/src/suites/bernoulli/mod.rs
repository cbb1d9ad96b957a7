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
    if let Some(c) = &t.chunks {
        chunks(cx, t, c, &format!("{path}.chunks"))?;
    }
    Ok(())
}

/// The chunk columns: one value per chunk each, m ≤ n in every chunk, and
/// summing to the trials' n and m (the chunks are every trial).
fn chunks(
    cx: &Checker,
    t: &BernoulliTrials,
    c: &BernoulliChunks,
    path: &str,
) -> Result<(), ReadError> {
    let len = c.n.len();
    let columns = [
        ("m", Some(c.m.len())),
        ("steps_ns", Some(c.steps_ns.len())),
        ("coarse_ns", Some(c.coarse_ns.len())),
        ("wall_ns", Some(c.wall_ns.len())),
        ("cpu_ns", Some(c.cpu_ns.len())),
        (
            "involuntary_switches",
            c.involuntary_switches.as_ref().map(Vec::len),
        ),
        ("steal_ns", c.steal_ns.as_ref().map(Vec::len)),
        ("reference_ns", c.reference_ns.as_ref().map(Vec::len)),
    ];
    for (name, l) in columns {
        if let Some(l) = l.filter(|l| *l != len) {
            return Err(cx.err(
                Some(format!("{path}.{name}")),
                format!("expected one value per chunk ({len}, as in n), found {l}"),
            ));
        }
    }
    if let Some(i) = (0..len).find(|&i| c.m[i] > c.n[i]) {
        return Err(cx.err(
            Some(format!("{path}.m[{i}]")),
            format!(
                "expected m ≤ n in a chunk, found m = {} and n = {}",
                c.m[i], c.n[i]
            ),
        ));
    }
    // Checked sums: a file's counts are untrusted and may overflow.
    let total = |xs: &[u64]| xs.iter().try_fold(0u64, |a, &x| a.checked_add(x));
    let (n, m) = match (total(&c.n), total(&c.m)) {
        (Some(n), Some(m)) => (n, m),
        _ => {
            return Err(cx.err(
                Some(path.to_string()),
                "expected the chunks' trial counts to sum to at most 2^64 − 1",
            ))
        }
    };
    if n != t.n || m != t.m {
        return Err(cx.err(
            Some(path.to_string()),
            format!(
                "expected the chunks to sum to the trials' n = {} and m = {}, found {n} and {m}",
                t.n, t.m
            ),
        ));
    }
    Ok(())
}
