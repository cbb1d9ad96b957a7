//! JMH JSON (`-rf json`): an array of benchmark results. Each result's
//! `primaryMetric.rawData` holds one array per fork (a separate JVM) of the
//! measured iterations' scores: forks become executions, iterations
//! measurements. JMH writes no warm-up iterations to the file. Secondary
//! metrics (`·gc.alloc.rate`, …) with raw data become series of their own.
//!
//! Units are JMH's: `ns/op` (and other time-per-operation units) keep their
//! time unit so the page can scale them; throughput (`ops/s`, …) is not a
//! time and stays as written. JMH's own `score`, `scoreError` (99.9 %),
//! `scoreConfidence` and `scorePercentiles` are kept under
//! `metadata.tool_statistics`.

use super::{metadata, samples_file, About, Importer, Shape};
use crate::error::{Checker, ReadError};
use crate::format::{Alternatives, SamplesFile, Series};
use serde_json::{json, Map, Value};

pub struct Jmh;

impl Importer for Jmh {
    fn about(&self) -> About {
        About {
            id: "jmh",
            label: "JMH JSON",
            tried: "JMH JSON (-rf json: an array of objects with \"jmhVersion\" or \"primaryMetric\")",
            name: "JMH",
            shape: Shape::Document,
            fixtures: &["jmh/result.json"],
        }
    }

    fn marks(&self) -> &'static [&'static str] {
        &["jmhVersion", "benchmark", "mode", "primaryMetric", "secondaryMetrics", "params"]
    }

    fn recognises_document(&self, v: &Value) -> bool {
        let Some(first) = v.as_array().and_then(|a| a.first()).and_then(Value::as_object) else {
            return false;
        };
        first.contains_key("jmhVersion")
            || (first.contains_key("benchmark") && first.contains_key("primaryMetric"))
    }

    fn cut_short(&self, head: &str) -> Option<&'static str> {
        (head.contains("\"jmhVersion\"") || head.contains("\"primaryMetric\""))
            .then_some(self.about().label)
    }

    fn read_document(&self, cx: &Checker, v: &Value) -> Result<SamplesFile, ReadError> {
        read(cx, v)
    }
}

fn read(cx: &Checker, v: &Value) -> Result<SamplesFile, ReadError> {
    let items = cx.arr(v, "")?;
    let mut series = Vec::new();
    let mut skipped = Vec::new();
    let mut version = None;
    let mut jvm = None;
    let mut vm: Option<String> = None;
    let mut warnings = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("[{i}]");
        let o = cx.obj(item, &at)?;
        let bench = cx.str(cx.field(o, "benchmark", &at)?, &format!("{at}.benchmark"))?;
        let mode = o.get("mode").and_then(Value::as_str).unwrap_or("?");
        if version.is_none() {
            version = o
                .get("jmhVersion")
                .and_then(Value::as_str)
                .map(str::to_string);
            jvm = o
                .get("jdkVersion")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        if vm.is_none() {
            vm = match (o.get("vmName").and_then(Value::as_str), o.get("vmVersion").and_then(Value::as_str)) {
                (Some(n), Some(v)) => Some(format!("{n} {v}")),
                (n, v) => n.or(v).map(str::to_string),
            };
        }
        let params = match o.get("params") {
            Some(p) => cx.obj(p, &format!("{at}.params"))?.clone(),
            None => Map::new(),
        };
        let name = if params.is_empty() {
            bench.to_string()
        } else {
            let ps: Vec<String> = params
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{k}={}",
                        v.as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| v.to_string())
                    )
                })
                .collect();
            format!("{bench} ({})", ps.join(", "))
        };
        let mut shared = Map::new();
        for key in [
            "mode",
            "threads",
            "forks",
            "warmupIterations",
            "warmupTime",
            "warmupBatchSize",
            "measurementIterations",
            "measurementTime",
            "measurementBatchSize",
            "jvmArgs",
            "jdkVersion",
            "vmName",
            "vmVersion",
        ] {
            if let Some(x) = o.get(key) {
                shared.insert(key.into(), x.clone());
            }
        }
        shared.insert("params".into(), Value::Object(params));
        let pm_at = format!("{at}.primaryMetric");
        let pm = cx.field(o, "primaryMetric", &at)?;
        // A metric with a fork of no iterations (JMH's own formatter writes
        // such secondary metrics) is named in a warning; the file's other
        // metrics are read. A value of the wrong type still refuses the file.
        if let Some(w) = empty_fork(pm, &pm_at) {
            warnings.push(format!("\"{name}\" not read: {w}"));
        } else {
            match metric(cx, pm, &pm_at, &name, mode, &shared)? {
                Some(mut s) => {
                    // A method's @Param values are a scan of one benchmark.
                    s.group = Some(format!("{bench} {mode}"));
                    warnings.extend(score_check(cx, pm, &pm_at, &s));
                    series.push(s);
                }
                None => skipped.push(format!("{name} ({mode}: no rawData)")),
            }
        }
        if let Some(sec) = o.get("secondaryMetrics") {
            let sat = format!("{at}.secondaryMetrics");
            for (key, m) in cx.obj(sec, &sat)? {
                let mname = format!("{name} {key}");
                let mat = format!("{sat}[\"{key}\"]");
                if let Some(w) = empty_fork(m, &mat) {
                    warnings.push(format!("\"{mname}\" not read: {w}"));
                } else if let Some(mut s) = metric(cx, m, &mat, &mname, mode, &shared)? {
                    s.group = Some(format!("{bench} {mode} {key}"));
                    warnings.extend(score_check(cx, m, &mat, &s));
                    series.push(s);
                }
            }
        }
    }
    if series.is_empty() && !warnings.is_empty() {
        return Err(cx.err(
            None,
            format!("nothing could be read: {}", warnings.join("; ")),
        ));
    }
    let mut description = String::from(
        "Imported from JMH: one execution per fork (a separate JVM), one measurement per \
         measured iteration; JMH writes no warm-up iterations to its JSON.",
    );
    if !skipped.is_empty() {
        description.push_str(&format!(
            " Not shown (JMH wrote no per-iteration raw data): {}.",
            skipped.join("; ")
        ));
    }
    let source = format!(
        "JMH {}{}",
        version.as_deref().unwrap_or("(version not recorded)"),
        jvm.map(|j| format!(", JDK {j}")).unwrap_or_default()
    );
    // JMH records the JVM, not the machine.
    let host = vm.map(|v| json!({ "platform": v }));
    let mut file = samples_file(cx, source, Some(description), host, series)?;
    file.warnings = warnings;
    // JMH compares nothing within a file: a class's methods are unrelated.
    file.alternatives = Alternatives::Groups;
    Ok(file)
}

/// JMH's `score` (the mean of every iteration of every fork) against the
/// series read from `rawData`.
fn score_check(cx: &Checker, m: &Value, at: &str, s: &Series) -> Option<String> {
    let score = m.get("score").and_then(Value::as_f64)?;
    super::consistency::check_mean(cx, &format!("{at}.score"), s, score)
}

/// Where a metric's `rawData` has a fork with no iterations, as a warning's
/// place and reason.
fn empty_fork(m: &Value, at: &str) -> Option<String> {
    let forks = m.get("rawData")?.as_array()?;
    let f = forks
        .iter()
        .position(|x| x.as_array().is_some_and(Vec::is_empty))?;
    Some(format!("at {at}.rawData[{f}]: a fork with no iterations"))
}

/// One metric (primary or secondary) as a series, or `None` when it has no
/// `rawData` (sample-mode histograms only).
fn metric(
    cx: &Checker,
    m: &Value,
    at: &str,
    name: &str,
    mode: &str,
    shared: &Map<String, Value>,
) -> Result<Option<Series>, ReadError> {
    let o = cx.obj(m, at)?;
    let score_unit = cx.str(cx.field(o, "scoreUnit", at)?, &format!("{at}.scoreUnit"))?;
    let Some(raw) = o.get("rawData") else {
        return Ok(None);
    };
    let raw_at = format!("{at}.rawData");
    let forks = cx.arr(raw, &raw_at)?;
    let mut executions = Vec::new();
    for (f, fork) in forks.iter().enumerate() {
        let xs = cx.samples(fork, &format!("{raw_at}[{f}]"))?;
        if xs.is_empty() {
            return Err(cx.err(Some(format!("{raw_at}[{f}]")), "a fork with no iterations"));
        }
        executions.push(xs);
    }
    if executions.is_empty() {
        return Err(cx.err(Some(raw_at), "no forks"));
    }
    // `ns/op` is a time per operation: keep the time unit so it scales;
    // anything else (ops/s, MB/sec, B/op) is shown as JMH wrote it.
    let unit = match score_unit.strip_suffix("/op") {
        Some(t) if crate::units::ns_per_unit(t).is_some() => t.to_string(),
        _ => score_unit.to_string(),
    };
    let mut stats = Map::new();
    for key in ["score", "scoreError", "scoreConfidence", "scorePercentiles"] {
        if let Some(x) = o.get(key) {
            stats.insert(key.into(), x.clone());
        }
    }
    stats.insert("confidence".into(), json!(0.999));
    let mut extra = shared.clone();
    extra.insert("mode".into(), json!(mode));
    extra.insert("score_unit".into(), json!(score_unit));
    Ok(Some(Series {
        name: name.to_string(),
        unit,
        executions,
        metadata: metadata("JMH", Some(Value::Object(stats)), extra),
        group: None,
    }))
}
