//! cargo-criterion's `--message-format=json` stream: one JSON object per
//! line, told apart by `reason`. `benchmark-complete` messages carry `id`,
//! `iteration_count` and `measured_values` (per sample, in `unit`) and the
//! tool's estimates (`typical`, `mean`, `median`, `median_abs_dev`, `slope`,
//! each `{estimate, lower_bound, upper_bound, unit}`). Other messages
//! (`group-complete`, cargo's own) are skipped. Per-iteration values are
//! `measured_values[i] / iteration_count[i]`; one execution per benchmark
//! (one process ran all its samples).

use super::consistency::check_mean;
use super::{first_json_line, metadata, samples_file, About, Importer, Shape};
use crate::error::{Checker, ReadError};
use crate::format::{Alternatives, SamplesFile, Series};
use serde_json::{json, Map, Value};

pub struct CargoCriterion;

fn is_message(v: &Value) -> bool {
    v.get("reason").is_some_and(Value::is_string)
}

impl Importer for CargoCriterion {
    fn about(&self) -> About {
        About {
            id: "cargo_criterion",
            label: "cargo-criterion JSON stream",
            tried: "cargo-criterion --message-format=json (objects with \"reason\")",
            name: "cargo-criterion",
            shape: Shape::Stream { key: "reason" },
            fixtures: &["criterion/cargo-criterion.ndjson"],
        }
    }

    /// A stream of one line (or a document whose first line holds it all).
    fn recognises_document(&self, v: &Value) -> bool {
        v.is_object() && is_message(v)
    }

    /// The first line that is not blank is a JSON object with a string
    /// `reason`.
    fn recognises_bytes(&self, bytes: &[u8]) -> bool {
        first_json_line(bytes).is_some_and(|v| is_message(&v))
    }

    /// Why the first line, an object, is not a message.
    fn why_not(&self, bytes: &[u8]) -> Option<String> {
        first_json_line(bytes)?;
        Some("its \"reason\" is not a string".into())
    }

    fn cut_short(&self, head: &str) -> Option<&'static str> {
        (head.contains("\"reason\"")
            && (head.contains("benchmark-complete") || head.contains("group-complete")))
        .then_some(self.about().label)
    }

    fn read_document(&self, cx: &Checker, v: &Value) -> Result<SamplesFile, ReadError> {
        read_value_lines(cx, std::iter::once((1, v)))
    }

    fn read_bytes(&self, cx: &Checker, bytes: &[u8]) -> Result<SamplesFile, ReadError> {
        let values = super::json_lines(cx, bytes, "object")?;
        read_value_lines(cx, values.iter().map(|(n, v)| (*n, v)))
    }
}

fn read_value_lines<'v>(
    cx: &Checker,
    lines: impl Iterator<Item = (usize, &'v Value)>,
) -> Result<SamplesFile, ReadError> {
    let mut series = Vec::new();
    let mut warnings = Vec::new();
    // The messages other than benchmark-complete, for the message when there
    // is none: "group-complete ×2, compiler-artifact ×14".
    let mut reasons: Vec<String> = Vec::new();
    let mut counts: Vec<(String, usize)> = Vec::new();
    for (line, v) in lines {
        let at = format!("line {line}");
        let o = cx.obj(v, &at)?;
        let reason = o.get("reason").and_then(Value::as_str).unwrap_or("(no reason)");
        if reason != "benchmark-complete" {
            match counts.iter_mut().find(|(r, _)| r == reason) {
                Some((_, n)) => *n += 1,
                None => counts.push((reason.to_string(), 1)),
            }
            reasons = counts.iter().map(|(r, n)| format!("{r} ×{n}")).collect();
            continue;
        }
        let id = cx.str(cx.field(o, "id", &at)?, &format!("{at}.id"))?;
        let iters = cx.arr(
            cx.field(o, "iteration_count", &at)?,
            &format!("{at}.iteration_count"),
        )?;
        let vals = cx.samples(
            cx.field(o, "measured_values", &at)?,
            &format!("{at}.measured_values"),
        )?;
        if iters.len() != vals.len() || vals.is_empty() {
            return Err(cx.err(
                Some(format!("{at}.measured_values")),
                format!(
                    "{} measured values but {} iteration counts: expected one count per value, at least one",
                    vals.len(),
                    iters.len()
                ),
            ));
        }
        let xs = iters
            .iter()
            .zip(&vals)
            .enumerate()
            .map(|(k, (n, t))| {
                cx.per_iteration(
                    *t,
                    &format!("measured_values[{k}]"),
                    n,
                    &format!("{at}.iteration_count[{k}]"),
                )
            })
            .collect::<Result<Vec<f64>, ReadError>>()?;
        let unit = o.get("unit").and_then(Value::as_str).unwrap_or("ns");
        let mut stats = Map::new();
        for key in ["typical", "mean", "median", "median_abs_dev", "slope"] {
            if let Some(x) = o.get(key).filter(|x| !x.is_null()) {
                stats.insert(key.into(), x.clone());
            }
        }
        let mut extra = Map::new();
        for key in ["report_directory", "throughput", "change"] {
            if let Some(x) = o.get(key) {
                extra.insert(key.into(), x.clone());
            }
        }
        extra.insert("unit_note".into(), json!(format!("{unit} per iteration")));
        let s = Series {
            name: id.to_string(),
            unit: unit.to_string(),
            executions: vec![xs],
            metadata: metadata("cargo-criterion", Some(Value::Object(stats)), extra),
            // A Criterion group's functions are alternatives; groups are not.
            group: Some(id.split('/').next().unwrap_or_default().to_string()),
        };
        let mean = o.get("mean").and_then(|m| m.get("estimate")).and_then(Value::as_f64);
        if let Some(m) = mean {
            warnings.extend(check_mean(cx, &format!("{at}.mean.estimate"), &s, m));
        }
        series.push(s);
    }
    if series.is_empty() {
        return Err(cx.err(
            None,
            if reasons.is_empty() {
                "no message in the stream: run cargo criterion --message-format=json and \
                 keep its standard output"
                    .to_string()
            } else {
                format!(
                    "no benchmark-complete message (the stream holds {}): the benchmarks did \
                     not run or their messages were left out; run cargo criterion \
                     --message-format=json and keep its whole standard output",
                    reasons.join(", ")
                )
            },
        ));
    }
    let mut file = samples_file(
        cx,
        "cargo-criterion (--message-format=json)".into(),
        Some(
            "Imported from cargo-criterion: each sample is a measurement per iteration (its value \
             over its exact iteration count); one execution per benchmark."
                .into(),
        ),
        None,
        series,
    )?;
    file.warnings = warnings;
    file.alternatives = Alternatives::Groups;
    Ok(file)
}
