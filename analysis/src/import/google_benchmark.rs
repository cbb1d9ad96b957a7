//! Google Benchmark JSON (`--benchmark_out=FILE --benchmark_out_format=json`
//! or `--benchmark_format=json`).
//!
//! Entries with `run_type: "iteration"` are measurements: each repetition is
//! one, its `real_time` and `cpu_time` already the mean per iteration over
//! `iterations` iterations, in `time_unit`. Repetitions run in the same
//! process, so a benchmark is one execution. Entries with `run_type:
//! "aggregate"` (`_mean`, `_median`, `_stddev`, `_cv`, BigO, RMS) are the
//! tool's statistics: never samples, kept under `metadata.tool_statistics`.
//! Each benchmark gives two series, `NAME real_time` and `NAME cpu_time`.

use super::{metadata, samples_file};
use crate::error::{Checker, ReadError};
use crate::format::{SamplesFile, Series};
use serde_json::{json, Map, Value};

struct Bench {
    name: String,
    unit: String,
    real: Vec<f64>,
    cpu: Vec<f64>,
    iterations: Vec<Value>,
    aggregates: Map<String, Value>,
    errors: Vec<String>,
}

pub(crate) fn read(cx: &Checker, v: &Value) -> Result<SamplesFile, ReadError> {
    let top = cx.obj(v, "")?;
    let context = cx.obj(cx.field(top, "context", "")?, "context")?;
    let entries = cx.arr(cx.field(top, "benchmarks", "")?, "benchmarks")?;
    let mut benches: Vec<Bench> = Vec::new();
    let mut aggregates_only = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let at = format!("benchmarks[{i}]");
        let o = cx.obj(e, &at)?;
        let name = cx.str(cx.field(o, "name", &at)?, &format!("{at}.name"))?;
        let run_name = match o.get("run_name") {
            Some(r) => cx.str(r, &format!("{at}.run_name"))?,
            None => name,
        };
        // Old versions write no run_type; their aggregates carry an
        // aggregate_name all the same.
        let aggregate = match o.get("run_type").and_then(Value::as_str) {
            Some("aggregate") => true,
            Some(_) => false,
            None => o.contains_key("aggregate_name"),
        };
        let unit = o.get("time_unit").and_then(Value::as_str).unwrap_or("ns");
        let idx = match benches.iter().position(|b| b.name == run_name) {
            Some(k) => k,
            None => {
                benches.push(Bench {
                    name: run_name.to_string(),
                    unit: unit.to_string(),
                    real: Vec::new(),
                    cpu: Vec::new(),
                    iterations: Vec::new(),
                    aggregates: Map::new(),
                    errors: Vec::new(),
                });
                benches.len() - 1
            }
        };
        let b = &mut benches[idx];
        if aggregate {
            let agg = o
                .get("aggregate_name")
                .and_then(Value::as_str)
                .unwrap_or(name)
                .to_string();
            let mut a = Map::new();
            for key in [
                "real_time",
                "cpu_time",
                "time_unit",
                "aggregate_unit",
                "iterations",
            ] {
                if let Some(x) = o.get(key) {
                    a.insert(key.into(), x.clone());
                }
            }
            b.aggregates.insert(agg, Value::Object(a));
            continue;
        }
        if o.get("error_occurred").and_then(Value::as_bool) == Some(true) {
            let msg = o
                .get("error_message")
                .and_then(Value::as_str)
                .unwrap_or("no message");
            b.errors.push(format!("{at}: {msg}"));
            continue;
        }
        if unit != b.unit {
            return Err(cx.err(
                Some(format!("{at}.time_unit")),
                format!(
                    "time_unit \"{unit}\" differs from the \"{}\" of earlier repetitions",
                    b.unit
                ),
            ));
        }
        b.real
            .push(cx.sample(cx.field(o, "real_time", &at)?, &format!("{at}.real_time"))?);
        b.cpu
            .push(cx.sample(cx.field(o, "cpu_time", &at)?, &format!("{at}.cpu_time"))?);
        b.iterations
            .push(o.get("iterations").cloned().unwrap_or(Value::Null));
    }
    let mut series = Vec::new();
    let mut failed = Vec::new();
    for b in benches {
        if b.real.is_empty() {
            if !b.errors.is_empty() {
                failed.push(format!("{} ({})", b.name, b.errors.join("; ")));
            } else if !b.aggregates.is_empty() {
                aggregates_only.push(b.name);
            }
            continue;
        }
        for (which, xs) in [("real_time", b.real), ("cpu_time", b.cpu)] {
            let stats: Map<String, Value> = b
                .aggregates
                .iter()
                .filter_map(|(k, a)| {
                    let x = a.get(which)?;
                    let unit = a
                        .get("aggregate_unit")
                        .and_then(Value::as_str)
                        .unwrap_or("time");
                    Some((k.clone(), json!({"value": x, "aggregate_unit": unit})))
                })
                .collect();
            let mut extra = Map::new();
            extra.insert("time".into(), json!(which));
            extra.insert("iterations".into(), Value::Array(b.iterations.clone()));
            extra.insert("time_unit".into(), json!(b.unit));
            if !b.errors.is_empty() {
                extra.insert("failed_repetitions".into(), json!(b.errors));
            }
            series.push(Series {
                name: format!("{} {which}", b.name),
                unit: b.unit.clone(),
                executions: vec![xs],
                metadata: metadata(
                    "Google Benchmark",
                    (!stats.is_empty()).then_some(Value::Object(stats)),
                    extra,
                ),
            });
        }
    }
    let mut description = String::from(
        "Imported from Google Benchmark: repetitions are measurements (each the mean time \
         per iteration) of one execution, since they run in one process; the tool's \
         aggregates are kept apart.",
    );
    if !aggregates_only.is_empty() {
        description.push_str(&format!(
            " Only aggregates, no repetitions (run without --benchmark_report_aggregates_only to import them): {}.",
            aggregates_only.join(", ")
        ));
    }
    if !failed.is_empty() {
        description.push_str(&format!(" Failed: {}.", failed.join(", ")));
    }
    let version = context.get("library_version").and_then(Value::as_str);
    let source = format!(
        "Google Benchmark{}{}",
        version.map(|v| format!(" {v}")).unwrap_or_default(),
        context
            .get("executable")
            .and_then(Value::as_str)
            .map(|e| format!(" ({e})"))
            .unwrap_or_default()
    );
    let host = context.get("host_name").map(|h| {
        json!({"hostname": h, "num_cpus": context.get("num_cpus"), "mhz_per_cpu": context.get("mhz_per_cpu"),
               "cpu_scaling_enabled": context.get("cpu_scaling_enabled"),
               "library_build_type": context.get("library_build_type")})
    });
    samples_file(cx, source, Some(description), host, series)
}
