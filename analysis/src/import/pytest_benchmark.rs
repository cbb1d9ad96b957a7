//! pytest-benchmark JSON (`pytest --benchmark-json=FILE`, or a file saved by
//! `--benchmark-save`/`--benchmark-autosave` under `.benchmarks/`).
//!
//! `{"machine_info": {…}, "commit_info": {…}, "benchmarks": [{"group",
//! "name", "fullname", "params", "param", "extra_info", "options", "stats":
//! {"min", "max", "mean", "stddev", "rounds", "median", "iqr", "q1", "q3",
//! …, "data": […], "iterations"}}…], "datetime", "version"}`.
//!
//! Every round runs in the one pytest process, so a benchmark is one
//! execution; each round's time (`stats.data`, seconds, already divided by
//! the round's `iterations`) is a measurement. `--benchmark-json` always
//! writes the rounds; a saved file holds them only with
//! `--benchmark-save-data`, and without them there is nothing to analyse: the
//! benchmark is refused with that reason. The rest of `stats` is the tool's
//! own statistics. Warm-up rounds are never written by the tool.

use super::consistency::check_mean;
use super::{metadata, samples_file, About, Importer, Shape};
use crate::error::{Checker, ReadError};
use crate::format::{Alternatives, Revision, SamplesFile, Series};
use serde_json::{json, Map, Value};

pub struct PytestBenchmark;

impl Importer for PytestBenchmark {
    fn about(&self) -> About {
        About {
            id: "pytest_benchmark",
            label: "pytest-benchmark JSON",
            tried: "pytest-benchmark JSON (--benchmark-json: \"benchmarks\" and \"machine_info\" or \"commit_info\")",
            name: "pytest-benchmark",
            shape: Shape::Document,
            fixtures: &["pytest-benchmark/pytest.json"],
        }
    }

    /// A file with Google Benchmark's "context" is Google Benchmark's.
    fn marks(&self) -> &'static [&'static str] {
        &["benchmarks", "machine_info", "commit_info", "datetime", "fullname", "stats"]
    }

    fn recognises_document(&self, v: &Value) -> bool {
        let has = |k: &str| v.get(k).is_some();
        v.is_object() && has("benchmarks") && (has("machine_info") || has("commit_info")) && !has("context")
    }

    /// pytest-benchmark writes them first: a long machine_info can push
    /// "benchmarks" out of the head.
    fn cut_short(&self, head: &str) -> Option<&'static str> {
        (head.contains("\"machine_info\"") && head.contains("\"commit_info\""))
            .then_some(self.about().label)
    }

    fn read_document(&self, cx: &Checker, v: &Value) -> Result<SamplesFile, ReadError> {
        read(cx, v)
    }
}

fn read(cx: &Checker, v: &Value) -> Result<SamplesFile, ReadError> {
    let top = cx.obj(v, "")?;
    let benches = cx.arr(cx.field(top, "benchmarks", "")?, "benchmarks")?;
    let mut parsed = Vec::with_capacity(benches.len());
    for (i, b) in benches.iter().enumerate() {
        let at = format!("benchmarks[{i}]");
        let o = cx.obj(b, &at)?;
        let name = cx.str(cx.field(o, "name", &at)?, &format!("{at}.name"))?;
        let fullname = match o.get("fullname") {
            Some(f) => Some(cx.str(f, &format!("{at}.fullname"))?),
            None => None,
        };
        let sat = format!("{at}.stats");
        let stats = cx.obj(cx.field(o, "stats", &at)?, &sat)?;
        let Some(data) = stats.get("data") else {
            return Err(cx.err(
                Some(sat),
                format!(
                    "benchmark \"{name}\" has only pytest-benchmark's statistics, not its \
                     rounds (\"data\"): a file saved without --benchmark-save-data; write it \
                     with --benchmark-json=FILE or save it with --benchmark-save-data"
                ),
            ));
        };
        let rounds = cx.samples(data, &format!("{sat}.data"))?;
        if rounds.is_empty() {
            return Err(cx.err(Some(format!("{sat}.data")), "no rounds"));
        }
        let mut tool = stats.clone();
        tool.remove("data");
        let mut extra = Map::new();
        for key in [
            "fullname",
            "group",
            "params",
            "param",
            "extra_info",
            "options",
        ] {
            if let Some(x) = o.get(key).filter(|x| !x.is_null()) {
                extra.insert(key.into(), x.clone());
            }
        }
        if let Some(it) = stats.get("iterations") {
            extra.insert("iterations_per_round".into(), it.clone());
        }
        let mean = stats
            .get("mean")
            .and_then(Value::as_f64)
            .map(|m| (format!("{sat}.mean"), m));
        parsed.push((name, fullname, rounds, tool, extra, mean));
    }
    // The test's name (with its parameter id, `test_sum[100]`) unless two
    // tests in different modules share it: then the full node id.
    let mut series = Vec::with_capacity(parsed.len());
    let mut warnings = Vec::new();
    for (name, fullname, rounds, tool, extra, mean) in &parsed {
        let shared = parsed.iter().filter(|p| p.0 == *name).count() > 1;
        let shown = match fullname {
            Some(f) if shared => f.to_string(),
            _ => name.to_string(),
        };
        series.push(Series {
            name: shown,
            unit: "s".into(),
            executions: vec![rounds.clone()],
            metadata: metadata(
                "pytest-benchmark",
                Some(Value::Object(tool.clone())),
                extra.clone(),
            ),
            // pytest-benchmark's tables: one per group, the ungrouped
            // tests in one of their own.
            group: Some(
                extra
                    .get("group")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
            ),
        });
        if let (Some((at, m)), Some(s)) = (mean, series.last()) {
            warnings.extend(check_mean(cx, at, s, *m));
        }
    }
    let host = top.get("machine_info").and_then(Value::as_object).map(|m| {
        json!({
            "hostname": m.get("node"),
            "cpu_model_name": m.get("cpu").and_then(|c| c.get("brand_raw")),
            "platform": m.get("platform"),
            "python": m.get("python_version"),
            "date": top.get("datetime"),
        })
    });
    let revision = top.get("commit_info").and_then(Value::as_object).map(|c| {
        let text = |k: &str| c.get(k).and_then(Value::as_str).map(str::to_string);
        Revision {
            commit: text("id"),
            branch: text("branch"),
            dirty: c.get("dirty").and_then(Value::as_bool),
            // The commit's date (`time`), else its author's.
            date: text("time").or_else(|| text("author_time")),
        }
    });
    let version = top.get("version").and_then(Value::as_str);
    let source = format!(
        "pytest-benchmark {}",
        version.unwrap_or("(version not recorded)")
    );
    samples_file(
        cx,
        source,
        Some(
            "Imported from pytest-benchmark: all rounds run in one process (one \
             execution); each round's time per iteration is a measurement."
                .into(),
        ),
        host,
        series,
    )
    .map(|mut f| {
        f.warnings = warnings;
        f.alternatives = Alternatives::Groups;
        f.revision = revision.filter(|r| *r != Revision::default()).map(Box::new);
        f
    })
}
