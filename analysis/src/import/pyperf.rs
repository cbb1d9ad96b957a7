//! pyperf JSON (`python -m pyperf … -o FILE`, pyperf's file format 1.0).
//!
//! `{"version": "1.0", "metadata": {…common…}, "benchmarks": [{"metadata":
//! {…}, "runs": [{"metadata": {…}, "warmups": [[loops, value]…], "values":
//! […]}…]}…]}`. Each run is one worker process: its values become one
//! execution. Values are already per loop iteration (pyperf divides raw
//! timings by loops × inner_loops before writing them). Runs without values
//! are calibration runs and are counted, not measured. Warm-ups are kept apart
//! as a series `NAME [warm-up]` (one execution per worker run), never mixed
//! with the values pyperf's own statistics use.

use super::{metadata, samples_file, About, Importer, Shape};
use crate::error::{Checker, ReadError};
use crate::format::{Alternatives, Revision, SamplesFile, Series};
use serde_json::{json, Map, Value};

pub struct Pyperf;

impl Importer for Pyperf {
    fn about(&self) -> About {
        About {
            id: "pyperf",
            label: "pyperf JSON",
            tried: "pyperf JSON (-o: an object with \"benchmarks\" and \"version\" or \"metadata\")",
            name: "pyperf",
            shape: Shape::Document,
            fixtures: &["pyperf/suite.json", "pyperf/timeit.json"],
        }
    }

    /// pytest-benchmark writes "benchmarks" and "version" too, and Google
    /// Benchmark may write "metadata": their files are theirs.
    fn marks(&self) -> &'static [&'static str] {
        &["benchmarks", "version", "metadata", "runs"]
    }

    fn recognises_document(&self, v: &Value) -> bool {
        let has = |k: &str| v.get(k).is_some();
        v.is_object()
            && has("benchmarks")
            && (has("version") || has("metadata"))
            && !has("context")
            && !has("machine_info")
            && !has("commit_info")
    }

    fn cut_short(&self, head: &str) -> Option<&'static str> {
        let has = |s: &str| head.contains(s);
        (has("\"benchmarks\"")
            && (has("\"runs\"") || has("\"perf_version\""))
            && !has("\"machine_info\""))
        .then_some(self.about().label)
    }

    fn read_document(&self, cx: &Checker, v: &Value) -> Result<SamplesFile, ReadError> {
        read(cx, v)
    }
}

/// Keep in `first` the earliest of it and `date` (ISO 8601 without a zone,
/// all from one clock, so the earliest sorts first).
fn earliest(first: &mut Option<String>, date: Option<&Value>) {
    if let Some(d) = date.and_then(Value::as_str) {
        if first.as_deref().map_or(true, |f| d < f) {
            *first = Some(d.to_string());
        }
    }
}

/// The host keys of the common metadata and the first run's date.
fn host_of(common: &Map<String, Value>, date: Option<String>) -> Option<Value> {
    (["hostname", "cpu_model_name", "platform", "cpu_count"]
        .iter()
        .any(|k| common.contains_key(*k))
        || date.is_some())
    .then(|| json!({"hostname": common.get("hostname"), "cpu_model_name": common.get("cpu_model_name"),
            "platform": common.get("platform"), "cpu_count": common.get("cpu_count"), "date": date}))
}

/// pyperformance's metadata of the Python it measured (`compile` runs).
fn revision_of(common: &Map<String, Value>) -> Option<Box<Revision>> {
    let text = |k: &str| common.get(k).and_then(Value::as_str).map(str::to_string);
    let r = Revision {
        commit: text("commit_id"),
        branch: text("commit_branch"),
        dirty: None,
        date: text("commit_date"),
    };
    (r != Revision::default()).then(|| Box::new(r))
}

fn read(cx: &Checker, v: &Value) -> Result<SamplesFile, ReadError> {
    let top = cx.obj(v, "")?;
    let common = match top.get("metadata") {
        Some(m) => cx.obj(m, "metadata")?.clone(),
        None => Map::new(),
    };
    let file_version = top.get("version").and_then(Value::as_str).unwrap_or("?");
    let benches = cx.arr(cx.field(top, "benchmarks", "")?, "benchmarks")?;
    let mut series = Vec::new();
    let mut first_date: Option<String> = common
        .get("date")
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut perf_version = common
        .get("perf_version")
        .and_then(Value::as_str)
        .map(str::to_string);
    for (i, b) in benches.iter().enumerate() {
        let at = format!("benchmarks[{i}]");
        let bo = cx.obj(b, &at)?;
        let mut meta = common.clone();
        if let Some(m) = bo.get("metadata") {
            meta.extend(cx.obj(m, &format!("{at}.metadata"))?.clone());
        }
        if perf_version.is_none() {
            perf_version = meta
                .get("perf_version")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        let name = meta
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("benchmark {i}"));
        let pyperf_unit = meta.get("unit").and_then(Value::as_str).unwrap_or("second");
        let unit = match pyperf_unit {
            "second" => "s",
            "byte" => "bytes",
            "integer" => "count",
            other => other,
        };
        let runs = cx.arr(cx.field(bo, "runs", &at)?, &format!("{at}.runs"))?;
        let mut values = Vec::new();
        let mut warmups = Vec::new();
        let mut calibration_runs = 0usize;
        let mut value_loops = Vec::new();
        for (j, r) in runs.iter().enumerate() {
            let rat = format!("{at}.runs[{j}]");
            let ro = cx.obj(r, &rat)?;
            earliest(&mut first_date, ro.get("metadata").and_then(|m| m.get("date")));
            let vals = match ro.get("values") {
                Some(x) => cx.samples(x, &format!("{rat}.values"))?,
                None => Vec::new(),
            };
            let mut w = Vec::new();
            if let Some(ws) = ro.get("warmups") {
                for (k, pair) in cx.arr(ws, &format!("{rat}.warmups"))?.iter().enumerate() {
                    let pat = format!("{rat}.warmups[{k}]");
                    let p = cx.arr(pair, &pat)?;
                    if p.len() != 2 {
                        return Err(cx.err(
                            Some(pat),
                            format!("expected a [loops, value] pair, found {} items", p.len()),
                        ));
                    }
                    cx.positive(&p[0], &format!("{pat}[0]"))?;
                    w.push(cx.sample(&p[1], &format!("{pat}[1]"))?);
                }
            }
            if vals.is_empty() {
                // A calibration run (loops found by warming up): its warm-ups
                // run at growing loop counts, so they are not comparable.
                calibration_runs += 1;
                continue;
            }
            if let Some(l) = ro
                .get("metadata")
                .and_then(|m| m.get("loops"))
                .or_else(|| meta.get("loops"))
            {
                value_loops.push(l.clone());
            }
            values.push(vals);
            if !w.is_empty() {
                warmups.push(w);
            }
        }
        if values.is_empty() {
            return Err(cx.err(
                Some(format!("{at}.runs")),
                format!("benchmark \"{name}\" has no run with values (only {calibration_runs} calibration runs)"),
            ));
        }
        let mut extra = Map::new();
        extra.insert("pyperf_metadata".into(), Value::Object(meta.clone()));
        extra.insert("pyperf_unit".into(), json!(pyperf_unit));
        extra.insert("calibration_runs".into(), json!(calibration_runs));
        extra.insert("runs_with_values".into(), json!(values.len()));
        series.push(Series {
            name: name.clone(),
            unit: unit.to_string(),
            executions: values,
            metadata: metadata("pyperf", None, extra),
            group: None,
        });
        if !warmups.is_empty() {
            let mut extra = Map::new();
            extra.insert("warm_up_of".into(), json!(name));
            series.push(Series {
                name: format!("{name} [warm-up]"),
                unit: unit.to_string(),
                executions: warmups,
                metadata: metadata("pyperf", None, extra),
                group: None,
            });
        }
    }
    let host = host_of(&common, first_date);
    let source = format!(
        "pyperf {} (file format {file_version})",
        perf_version.as_deref().unwrap_or("(version not recorded)")
    );
    samples_file(
        cx,
        source,
        Some(
            "Imported from pyperf: one execution per worker process; values per loop \
             iteration; warm-ups in separate \"[warm-up]\" series."
                .into(),
        ),
        host,
        series,
    )
    // pyperf compares files (`compare_to`), never the benchmarks of one: a
    // pyperformance run holds dozens of unrelated ones.
    .map(|mut f| {
        f.alternatives = Alternatives::Groups;
        f.revision = revision_of(&common);
        f
    })
}
