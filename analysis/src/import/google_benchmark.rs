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
//!
//! A file written with `--benchmark_report_aggregates_only=true` has no
//! repetitions: its series hold the tool's `_mean` as their one measurement,
//! its aggregates are the tool's statistics, and a warning says there are no
//! raw samples. User counters (`items_per_second`, custom ones) are kept per
//! repetition under `metadata.counters`, the iteration counts under
//! `metadata.iterations`, and a family's complexity fit (`_BigO`, `_RMS`)
//! under `metadata.complexity` of each of its benchmarks.

use super::{metadata, samples_file, About, Importer, Shape};
use crate::error::{Checker, ReadError};
use crate::format::{Alternatives, SamplesFile, Series};
use serde_json::{json, Map, Value};

struct Bench {
    name: String,
    family: Option<u64>,
    unit: String,
    real: Vec<f64>,
    cpu: Vec<f64>,
    iterations: Vec<Value>,
    /// Counter name → its value in each repetition (null where a
    /// repetition lacks it).
    counters: Map<String, Value>,
    aggregates: Map<String, Value>,
    errors: Vec<String>,
}

/// Keys of a benchmark entry that are not user counters.
const KNOWN: [&str; 24] = [
    "name",
    "family_index",
    "per_family_instance_index",
    "run_name",
    "run_type",
    "repetitions",
    "repetition_index",
    "threads",
    "iterations",
    "real_time",
    "cpu_time",
    "time_unit",
    "aggregate_name",
    "aggregate_unit",
    "error_occurred",
    "error_message",
    "label",
    "big_o",
    "cpu_coefficient",
    "real_coefficient",
    "rms",
    "complexity_n",
    "skipped",
    "skip_message",
];

/// An entry's user counters: its numeric keys that are not the tool's own.
fn counters(o: &Map<String, Value>) -> impl Iterator<Item = (&String, &Value)> {
    o.iter()
        .filter(|(k, v)| v.is_number() && !KNOWN.contains(&k.as_str()))
}

pub struct GoogleBenchmark;

impl Importer for GoogleBenchmark {
    fn about(&self) -> About {
        About {
            id: "google_benchmark",
            label: "Google Benchmark JSON",
            tried: "Google Benchmark JSON (--benchmark_out_format=json: \"benchmarks\" and \"context\")",
            name: "Google Benchmark",
            shape: Shape::Document,
            fixtures: &[
                "googlebench/repetitions.json",
                "googlebench/aggregates.json",
                "googlebench/complexity.json",
            ],
        }
    }

    fn marks(&self) -> &'static [&'static str] {
        &["benchmarks", "context", "run_name", "run_type", "real_time", "cpu_time", "time_unit"]
    }

    fn recognises_document(&self, v: &Value) -> bool {
        v.is_object() && v.get("benchmarks").is_some() && v.get("context").is_some()
    }

    fn cut_short(&self, head: &str) -> Option<&'static str> {
        (head.contains("\"benchmarks\"")
            && (head.contains("\"context\"") || head.contains("\"run_type\"")))
        .then_some(self.about().label)
    }

    fn read_document(&self, cx: &Checker, v: &Value) -> Result<SamplesFile, ReadError> {
        read(cx, v)
    }
}

/// A family's complexity fit (`_BigO`, `_RMS`): the family's run_name, its
/// family_index, which of the two, the fit.
struct Fit {
    family: String,
    index: Option<u64>,
    kind: String,
    fit: Value,
}

fn read(cx: &Checker, v: &Value) -> Result<SamplesFile, ReadError> {
    let top = cx.obj(v, "")?;
    let context = cx.obj(cx.field(top, "context", "")?, "context")?;
    let entries = cx.arr(cx.field(top, "benchmarks", "")?, "benchmarks")?;
    let (benches, complexity) = gather(cx, entries)?;
    let mut series = Vec::new();
    let mut aggregates_only = Vec::new();
    let mut failed = Vec::new();
    for b in benches {
        let name = b.name.clone();
        match bench_series(cx, b, &complexity)? {
            Outcome::Series(s) => series.extend(s),
            Outcome::AggregatesOnly(s) => {
                series.extend(s);
                aggregates_only.push(name);
            }
            Outcome::Failed(why) => failed.push(why),
            Outcome::Nothing => {}
        }
    }
    let (description, warnings) = description(&aggregates_only, &failed);
    let mut file = samples_file(cx, source(context), Some(description), host(context), series)?;
    file.warnings = warnings;
    file.alternatives = Alternatives::Groups;
    Ok(file)
}

/// The file's entries, each benchmark's repetitions and aggregates
/// gathered under its run_name, and the complexity fits.
fn gather(cx: &Checker, entries: &[Value]) -> Result<(Vec<Bench>, Vec<Fit>), ReadError> {
    let mut benches: Vec<Bench> = Vec::new();
    let mut complexity: Vec<Fit> = Vec::new();
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
        let agg_name = o.get("aggregate_name").and_then(Value::as_str);
        if aggregate && matches!(agg_name, Some("BigO" | "RMS")) {
            // A complexity fit over a family's arguments: its run_name is the
            // family's, not one benchmark's.
            complexity.push(Fit {
                family: run_name.to_string(),
                index: o.get("family_index").and_then(Value::as_u64),
                kind: agg_name.unwrap_or_default().to_string(),
                fit: picked(
                    o,
                    &[
                        "big_o",
                        "cpu_coefficient",
                        "real_coefficient",
                        "rms",
                        "time_unit",
                    ],
                ),
            });
            continue;
        }
        let idx = match benches.iter().position(|b| b.name == run_name) {
            Some(k) => k,
            None => {
                benches.push(Bench {
                    name: run_name.to_string(),
                    family: o.get("family_index").and_then(Value::as_u64),
                    unit: unit.to_string(),
                    real: Vec::new(),
                    cpu: Vec::new(),
                    iterations: Vec::new(),
                    counters: Map::new(),
                    aggregates: Map::new(),
                    errors: Vec::new(),
                });
                benches.len() - 1
            }
        };
        let b = &mut benches[idx];
        if aggregate {
            b.add_aggregate(o, agg_name.unwrap_or(name));
        } else {
            b.add_repetition(cx, o, &at, unit)?;
        }
    }
    Ok((benches, complexity))
}

/// The keys of `o` among `keys` that it has, as an object.
fn picked(o: &Map<String, Value>, keys: &[&str]) -> Value {
    let mut a = Map::new();
    for key in keys {
        if let Some(x) = o.get(*key) {
            a.insert((*key).into(), x.clone());
        }
    }
    Value::Object(a)
}

impl Bench {
    /// An aggregate (`_mean`, `_median`, …): the tool's statistics.
    fn add_aggregate(&mut self, o: &Map<String, Value>, agg: &str) {
        let mut a = picked(
            o,
            &[
                "real_time",
                "cpu_time",
                "time_unit",
                "aggregate_unit",
                "iterations",
            ],
        );
        let c: Map<String, Value> = counters(o).map(|(k, v)| (k.clone(), v.clone())).collect();
        if let (false, Value::Object(a)) = (c.is_empty(), &mut a) {
            a.insert("counters".into(), Value::Object(c));
        }
        self.aggregates.insert(agg.to_string(), a);
    }

    /// A repetition: a measurement, or a failure named in the metadata.
    fn add_repetition(
        &mut self,
        cx: &Checker,
        o: &Map<String, Value>,
        at: &str,
        unit: &str,
    ) -> Result<(), ReadError> {
        if o.get("error_occurred").and_then(Value::as_bool) == Some(true) {
            let msg = o
                .get("error_message")
                .and_then(Value::as_str)
                .unwrap_or("no message");
            self.errors.push(format!("{at}: {msg}"));
            return Ok(());
        }
        if unit != self.unit {
            return Err(cx.err(
                Some(format!("{at}.time_unit")),
                format!(
                    "time_unit \"{unit}\" differs from the \"{}\" of earlier repetitions",
                    self.unit
                ),
            ));
        }
        self.real
            .push(cx.sample(cx.field(o, "real_time", at)?, &format!("{at}.real_time"))?);
        self.cpu
            .push(cx.sample(cx.field(o, "cpu_time", at)?, &format!("{at}.cpu_time"))?);
        self.iterations
            .push(o.get("iterations").cloned().unwrap_or(Value::Null));
        let rep = self.real.len() - 1;
        for (k, v) in counters(o) {
            let list = self
                .counters
                .entry(k.clone())
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(xs) = list {
                xs.resize(rep, Value::Null);
                xs.push(v.clone());
            }
        }
        Ok(())
    }
}

/// What a benchmark gives.
enum Outcome {
    /// Its two series (real and CPU time) from its repetitions.
    Series(Vec<Series>),
    /// Its two series, each the tool's mean alone.
    AggregatesOnly(Vec<Series>),
    /// Nothing: why, for the warning.
    Failed(String),
    /// Nothing, and nothing to say (no repetition, no aggregate).
    Nothing,
}

/// A benchmark's series, `NAME real_time` and `NAME cpu_time`.
fn bench_series(cx: &Checker, mut b: Bench, complexity: &[Fit]) -> Result<Outcome, ReadError> {
    let fits: Map<String, Value> = complexity
        .iter()
        .filter(|f| match (f.index, b.family) {
            (Some(i), Some(fam)) => i == fam,
            _ => b.name.starts_with(&format!("{}/", f.family)) || b.name == f.family,
        })
        .map(|f| (f.kind.clone(), f.fit.clone()))
        .collect();
    let only_aggregates = b.real.is_empty();
    if only_aggregates {
        if !b.errors.is_empty() {
            return Ok(Outcome::Failed(format!("{} ({})", b.name, b.errors.join("; "))));
        }
        // Aggregates only: the tool's mean is the one measurement.
        let mean = b.aggregates.get("mean");
        let get = |which: &str| mean.and_then(|m| m.get(which)).and_then(Value::as_f64);
        let (Some(r), Some(c)) = (get("real_time"), get("cpu_time")) else {
            return Ok(if b.aggregates.is_empty() {
                Outcome::Nothing
            } else {
                Outcome::Failed(format!("{} (only aggregates, without a mean)", b.name))
            });
        };
        b.real
            .push(cx.sample(&r.into(), &format!("{} mean real_time", b.name))?);
        b.cpu
            .push(cx.sample(&c.into(), &format!("{} mean cpu_time", b.name))?);
        if let Some(u) = mean
            .and_then(|m| m.get("time_unit"))
            .and_then(Value::as_str)
        {
            b.unit = u.to_string();
        }
    }
    let mut series = Vec::new();
    let real = std::mem::take(&mut b.real);
    let cpu = std::mem::take(&mut b.cpu);
    for (which, xs) in [("real_time", real), ("cpu_time", cpu)] {
        series.push(Series {
            name: format!("{} {which}", b.name),
            unit: b.unit.clone(),
            executions: vec![xs],
            metadata: series_metadata(&b, which, only_aggregates, &fits),
            // A family's arguments (`BM_x/8`, `BM_x/64`) are a scan of one
            // benchmark; families are unrelated.
            group: Some(format!(
                "{} {which}",
                b.name.split('/').next().unwrap_or(&b.name)
            )),
        });
    }
    Ok(if only_aggregates {
        Outcome::AggregatesOnly(series)
    } else {
        Outcome::Series(series)
    })
}

/// The metadata of a benchmark's series of `which` time: the tool's
/// aggregates of it, iterations, counters, complexity fits, failures.
fn series_metadata(
    b: &Bench,
    which: &str,
    only_aggregates: bool,
    fits: &Map<String, Value>,
) -> Value {
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
    extra.insert("time_unit".into(), json!(b.unit));
    if only_aggregates {
        extra.insert(
            "aggregates_only".into(),
            json!("no repetitions in the file: the one measurement is the tool's mean"),
        );
        let counters: Map<String, Value> = b
            .aggregates
            .iter()
            .filter_map(|(k, a)| Some((k.clone(), a.get("counters")?.clone())))
            .collect();
        if !counters.is_empty() {
            extra.insert("counters".into(), Value::Object(counters));
        }
        if let Some(n) = b.aggregates.get("mean").and_then(|m| m.get("iterations")) {
            extra.insert("repetitions".into(), n.clone());
        }
    } else {
        extra.insert("iterations".into(), Value::Array(b.iterations.clone()));
        if !b.counters.is_empty() {
            extra.insert("counters".into(), Value::Object(b.counters.clone()));
        }
    }
    if !fits.is_empty() {
        extra.insert("complexity".into(), Value::Object(fits.clone()));
    }
    if !b.errors.is_empty() {
        extra.insert("failed_repetitions".into(), json!(b.errors));
    }
    metadata(
        "Google Benchmark",
        (!stats.is_empty()).then_some(Value::Object(stats)),
        extra,
    )
}

/// The file's description and warnings: benchmarks with aggregates only,
/// benchmarks that failed.
fn description(aggregates_only: &[String], failed: &[String]) -> (String, Vec<String>) {
    let mut description = String::from(
        "Imported from Google Benchmark: repetitions are measurements (each the mean time \
         per iteration) of one execution, since they run in one process; the tool's \
         aggregates are kept apart.",
    );
    let mut warnings = Vec::new();
    if !aggregates_only.is_empty() {
        let w = format!(
            "aggregates only (--benchmark_report_aggregates_only): no raw samples for {}; each series holds the tool's mean as its one measurement, and its mean, median, stddev and cv are the tool's own. Run without that option to import the repetitions",
            aggregates_only.join(", ")
        );
        description.push_str(&format!(" {w}."));
        warnings.push(w);
    }
    if !failed.is_empty() {
        description.push_str(&format!(" Failed: {}.", failed.join(", ")));
        warnings.push(format!("benchmarks that failed: {}", failed.join(", ")));
    }
    (description, warnings)
}

/// The file's source: the library's version and the executable.
fn source(context: &Map<String, Value>) -> String {
    let version = context.get("library_version").and_then(Value::as_str);
    format!(
        "Google Benchmark{}{}",
        version.map(|v| format!(" {v}")).unwrap_or_default(),
        context
            .get("executable")
            .and_then(Value::as_str)
            .map(|e| format!(" ({e})"))
            .unwrap_or_default()
    )
}

/// The host as the file's context describes it.
fn host(context: &Map<String, Value>) -> Option<Value> {
    let any = ["host_name", "num_cpus", "mhz_per_cpu"]
        .iter()
        .any(|k| context.contains_key(*k));
    any.then(|| {
        json!({"hostname": context.get("host_name"), "date": context.get("date"), "cpu_count": context.get("num_cpus"), "mhz_per_cpu": context.get("mhz_per_cpu"),
               "cpu_scaling_enabled": context.get("cpu_scaling_enabled"),
               "library_build_type": context.get("library_build_type")})
    })
}
