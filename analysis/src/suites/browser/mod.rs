//! The `browser` suite: the browser measured from the page ("Measure this
//! browser", the `browser-measure` crate in a dedicated worker) — its
//! clocks and WebAssembly operation costs. No `tickbook collect` runs it.

mod data;
pub mod report;

pub use data::*;
pub use report::*;

use super::{Context, Suite};
use crate::error::{Checker, ReadError};

pub struct Browser;

impl Suite for Browser {
    const NAME: &'static str = "browser";
    const TITLE: &'static str = "Browser";
    const ORDER: u8 = 8;
    const COST: u8 = 8;
    type Data = BrowserData;
    type Report = BrowserReport;

    fn check(data: &BrowserData, cx: &Checker, at: &str) -> Result<(), ReadError> {
        for (i, op) in data.wasm.ops.iter().enumerate() {
            let here = format!("{at}.wasm.ops[{i}]");
            cx.check_samples(&op.long_n_ns, &format!("{here}.long_n_ns"))?;
            cx.check_samples(&op.long_2n_ns, &format!("{here}.long_2n_ns"))?;
            if op.long_n_ns.len() != op.long_2n_ns.len() {
                return Err(cx.err(
                    Some(format!("{here}.long_2n_ns")),
                    format!(
                        "{} long runs of 2n copies for {} of n: they are paired",
                        op.long_2n_ns.len(),
                        op.long_n_ns.len()
                    ),
                ));
            }
            if !op.long_n_ns.is_empty() && (op.iterations == 0 || data.wasm.copies == 0) {
                return Err(cx.err(
                    Some(format!("{here}.iterations")),
                    "iterations and copies must be positive",
                ));
            }
            if let Some(b) = &op.bernoulli {
                if b.ticks_n > b.trials_n || b.ticks_2n > b.trials_2n {
                    return Err(cx.err(Some(format!("{here}.bernoulli")), "more ticks than trials"));
                }
                for (chunks, trials, ticks, key) in [
                    (&b.chunks_n, b.trials_n, b.ticks_n, "chunks_n"),
                    (&b.chunks_2n, b.trials_2n, b.ticks_2n, "chunks_2n"),
                ] {
                    if chunks.is_empty() {
                        continue;
                    }
                    let sum = chunks.iter().fold((0u64, 0u64), |(n, m), c| {
                        (n.saturating_add(c.trials), m.saturating_add(c.ticks))
                    });
                    let bad = chunks.iter().position(|c| {
                        c.ticks > c.trials || !(c.elapsed_ns.is_finite() && c.elapsed_ns >= 0.0)
                    });
                    if sum != (trials, ticks) || bad.is_some() {
                        return Err(cx.err(
                            Some(format!("{here}.bernoulli.{key}")),
                            "chunks must add up to the totals, each with ticks ≤ trials and a time ≥ 0",
                        ));
                    }
                }
                if !(b.planned_tick_ns.is_finite() && b.planned_tick_ns > 0.0) {
                    return Err(cx.err(
                        Some(format!("{here}.bernoulli.planned_tick_ns")),
                        "expected a positive tick",
                    ));
                }
            }
        }
        Ok(())
    }

    fn report(data: &BrowserData, cx: &mut Context) -> BrowserReport {
        browser_report(data, cx.fallbacks.to_vec(), cx.options)
    }
}
