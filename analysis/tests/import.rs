//! Importers of other harnesses' results (docs/importers.md): every fixture
//! in tests/fixtures/import loads, its mean and spread agree with what the
//! tool itself reported for the same file, executions are grouped where the
//! format records them, and truncated or mixed-up files get a message naming
//! the format and the JSON path.

use serde_json::Value;
use std::path::{Path, PathBuf};
use tickbook_analysis::read::{read_document, Document};
use tickbook_analysis::report::{
    analyze_bytes, analyze_entries, FileReport, Options, SeriesReport,
};
use tickbook_analysis::stats::dist::t_quantile;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/import")
}

fn bytes(rel: &str) -> Vec<u8> {
    std::fs::read(dir().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn json(rel: &str) -> Value {
    serde_json::from_slice(&bytes(rel)).unwrap()
}

fn report(rel: &str) -> FileReport {
    let r = analyze_bytes(rel, &bytes(rel), &Options::default());
    assert!(r.ok, "{rel}: {:?}", r.error);
    r
}

fn series<'a>(r: &'a FileReport, name: &str) -> &'a SeriesReport {
    let s = r.samples.as_ref().unwrap();
    s.series.iter().find(|x| x.name == name).unwrap_or_else(|| {
        panic!(
            "no series {name:?} in {:?}",
            s.series.iter().map(|x| &x.name).collect::<Vec<_>>()
        )
    })
}

/// Relative agreement to 1e-9 (both sides are double-precision means of the
/// same numbers, summed in different orders).
fn close(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 1e-9 * b.abs().max(1e-300),
        "{what}: tickbook {a} vs tool {b}"
    );
}

fn sd(s: &SeriesReport) -> f64 {
    s.summary.sd.unwrap()
}

fn error_of(name: &str, b: &[u8]) -> tickbook_analysis::read::ReadError {
    match read_document(name, b) {
        Ok(d) => panic!(
            "{name}: read although broken: {:?}",
            matches!(d, Document::Samples(_))
        ),
        Err(e) => e,
    }
}

#[test]
fn pyperf_matches_pyperf_stats() {
    let expected = json("pyperf/expected.json");
    for file in ["timeit.json", "suite.json"] {
        let r = report(&format!("pyperf/{file}"));
        let info = r.info.as_ref().unwrap();
        assert_eq!(
            info.source.as_deref(),
            Some("pyperf 2.10.0 (file format 1.0)")
        );
        assert_eq!(info.host.as_deref(), Some("vm"));
        for e in expected[file].as_array().unwrap() {
            let name = e["name"].as_str().unwrap();
            let s = series(&r, name);
            assert_eq!(s.unit, "s");
            assert_eq!(s.unit_ns, Some(1e9));
            close(s.summary.mean, e["mean"].as_f64().unwrap(), "pyperf mean");
            close(sd(s), e["stdev"].as_f64().unwrap(), "pyperf stdev");
            close(
                s.summary.median,
                e["median"].as_f64().unwrap(),
                "pyperf median",
            );
            // One execution per worker process that produced values.
            assert_eq!(s.executions as u64, e["runs_with_values"].as_u64().unwrap());
            assert_eq!(s.measurements as u64, e["values"].as_u64().unwrap());
            let es = s.execution_stats.as_ref().unwrap();
            assert!(es.random_effects.is_some() && es.impact_factor.is_some());
            // Warm-ups are a series of their own, never pooled with the values.
            let w = series(&r, &format!("{name} [warm-up]"));
            assert_eq!(w.executions, s.executions);
        }
    }
}

#[test]
fn hyperfine_matches_its_mean_and_stddev() {
    for file in ["sleep.json", "param.json"] {
        let rel = format!("hyperfine/{file}");
        let r = report(&rel);
        for res in json(&rel)["results"].as_array().unwrap() {
            let s = series(&r, res["command"].as_str().unwrap());
            close(
                s.summary.mean,
                res["mean"].as_f64().unwrap(),
                "hyperfine mean",
            );
            close(sd(s), res["stddev"].as_f64().unwrap(), "hyperfine stddev");
            close(
                s.summary.median,
                res["median"].as_f64().unwrap(),
                "hyperfine median",
            );
            close(s.summary.min, res["min"].as_f64().unwrap(), "hyperfine min");
            // Every run is its own process: one execution of one measurement each.
            let n = res["times"].as_array().unwrap().len();
            assert_eq!((s.executions, s.measurements), (n, n));
            let es = s.execution_stats.as_ref().unwrap();
            assert!(es.single_measurement && es.mean_bootstrap.is_some());
            let ts = s.tool_statistics.as_ref().unwrap();
            assert_eq!(ts["user"], res["user"]);
        }
    }
}

#[test]
fn google_benchmark_repetitions_are_samples_and_aggregates_are_not() {
    let rel = "googlebench/repetitions.json";
    let r = report(rel);
    assert!(r
        .info
        .as_ref()
        .unwrap()
        .source
        .as_deref()
        .unwrap()
        .starts_with("Google Benchmark"));
    let doc = json(rel);
    let entries = doc["benchmarks"].as_array().unwrap();
    let mut checked = 0;
    for e in entries.iter().filter(|e| e["run_type"] == "aggregate") {
        let run = e["run_name"].as_str().unwrap();
        let reps = entries
            .iter()
            .filter(|x| x["run_name"] == run && x["run_type"] == "iteration")
            .count();
        for which in ["real_time", "cpu_time"] {
            let s = series(&r, &format!("{run} {which}"));
            assert_eq!(s.unit, "ns");
            assert_eq!(
                (s.executions, s.measurements),
                (1, reps),
                "{run}: aggregates are not samples"
            );
            let tool = e[which].as_f64().unwrap();
            match e["aggregate_name"].as_str().unwrap() {
                "mean" => close(s.summary.mean, tool, "gbench mean"),
                "median" => close(s.summary.median, tool, "gbench median"),
                "stddev" => close(sd(s), tool, "gbench stddev"),
                "cv" => close(s.summary.cv.unwrap(), tool, "gbench cv"),
                other => panic!("aggregate {other}"),
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 3 * 4 * 2);
}

#[test]
fn jmh_score_and_error_per_fork() {
    let rel = "jmh/result.json";
    let r = report(rel);
    assert_eq!(
        r.info.as_ref().unwrap().source.as_deref(),
        Some("JMH 1.37, JDK 17.0.15")
    );
    for b in json(rel).as_array().unwrap() {
        let params = b["params"].as_object();
        let name = match params {
            Some(p) => format!(
                "{} ({})",
                b["benchmark"].as_str().unwrap(),
                p.iter()
                    .map(|(k, v)| format!("{k}={}", v.as_str().unwrap()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => b["benchmark"].as_str().unwrap().to_string(),
        };
        let pm = &b["primaryMetric"];
        let s = series(&r, &name);
        let forks = pm["rawData"].as_array().unwrap().len();
        assert_eq!(s.executions, forks, "{name}: one execution per fork");
        close(s.summary.mean, pm["score"].as_f64().unwrap(), "JMH score");
        // JMH's scoreError: t(0.9995, n − 1)·sd/√n over all iterations pooled.
        let n = s.measurements as f64;
        let err = t_quantile(0.9995, n - 1.0).unwrap() * sd(s) / n.sqrt();
        close(err, pm["scoreError"].as_f64().unwrap(), "JMH scoreError");
        let es = s.execution_stats.as_ref().unwrap();
        let re = es.random_effects.as_ref().unwrap();
        assert_eq!(re.executions, forks);
        match pm["scoreUnit"].as_str().unwrap() {
            "ns/op" => assert_eq!((s.unit.as_str(), s.unit_ns), ("ns", Some(1.0))),
            "ops/s" => assert_eq!((s.unit.as_str(), s.unit_ns), ("ops/s", None)),
            u => panic!("unit {u}"),
        }
        for (key, m) in b["secondaryMetrics"].as_object().unwrap() {
            let sec = series(&r, &format!("{name} {key}"));
            close(
                sec.summary.mean,
                m["score"].as_f64().unwrap(),
                "JMH secondary score",
            );
            assert_eq!(sec.unit, m["scoreUnit"].as_str().unwrap());
        }
    }
}

fn criterion_entries() -> Vec<(String, Vec<u8>)> {
    let root = dir().join("criterion/target-criterion");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

#[test]
fn criterion_directory_matches_estimates() {
    let entries = criterion_entries();
    let r = analyze_entries("target-criterion", &entries, &Options::default());
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.samples.as_ref().unwrap().series.len(), 2);
    for bench in ["fib 10", "sum 100"] {
        let est = json(&format!(
            "criterion/target-criterion/tiny/{bench}/new/estimates.json"
        ));
        let s = series(&r, &format!("tiny/{bench}"));
        assert_eq!(
            (s.unit.as_str(), s.executions, s.measurements),
            ("ns", 1, 10)
        );
        let pe = |k: &str| est[k]["point_estimate"].as_f64().unwrap();
        close(s.summary.mean, pe("mean"), "criterion mean");
        close(sd(s), pe("std_dev"), "criterion std_dev");
        close(s.summary.median, pe("median"), "criterion median");
        assert_eq!(
            s.tool_statistics.as_ref().unwrap()["slope"]["point_estimate"],
            est["slope"]["point_estimate"]
        );
    }
    // A lone sample.json loads (named after the file); estimates.json alone says why not.
    let lone = "criterion/target-criterion/tiny/fib 10/new/sample.json";
    let r = report(lone);
    assert_eq!(r.samples.as_ref().unwrap().series[0].measurements, 10);
    let e = error_of(
        "estimates.json",
        &bytes("criterion/target-criterion/tiny/fib 10/new/estimates.json"),
    );
    assert!(
        e.message.starts_with("Criterion.rs estimates.json: "),
        "{e}"
    );
    // A folder with nothing of Criterion's names what was tried.
    let r = analyze_entries(
        "empty",
        &[
            ("a.txt".into(), b"x".to_vec()),
            ("b.txt".into(), b"y".to_vec()),
        ],
        &Options::default(),
    );
    assert!(
        !r.ok
            && r.error
                .unwrap()
                .message
                .contains("no Criterion.rs sample.json")
    );
}

#[test]
fn cargo_criterion_stream_matches_its_estimates() {
    let rel = "criterion/cargo-criterion.ndjson";
    let r = report(rel);
    let text = String::from_utf8(bytes(rel)).unwrap();
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let m: Value = serde_json::from_str(line).unwrap();
        if m["reason"] != "benchmark-complete" {
            continue;
        }
        let s = series(&r, m["id"].as_str().unwrap());
        close(
            s.summary.mean,
            m["mean"]["estimate"].as_f64().unwrap(),
            "cargo-criterion mean",
        );
        close(
            s.summary.median,
            m["median"]["estimate"].as_f64().unwrap(),
            "cargo-criterion median",
        );
        n += 1;
    }
    assert_eq!(n, 2);
}

/// Every fixture cut in half: the message names the format.
#[test]
fn truncated_files_name_their_format() {
    for (rel, label) in [
        ("pyperf/timeit.json", "pyperf JSON"),
        ("jmh/result.json", "JMH JSON"),
        ("googlebench/repetitions.json", "Google Benchmark JSON"),
        ("hyperfine/sleep.json", "hyperfine JSON"),
        (
            "criterion/target-criterion/tiny/fib 10/new/sample.json",
            "Criterion.rs sample.json",
        ),
        (
            "criterion/cargo-criterion.ndjson",
            "cargo-criterion JSON stream",
        ),
    ] {
        let b = bytes(rel);
        let e = error_of(rel, &b[..b.len() / 2]);
        assert!(e.message.starts_with(label), "{rel}: {e}");
        assert!(
            e.message.contains("truncated") || e.message.contains("line"),
            "{rel}: {e}"
        );
    }
}

/// Wrong types and shapes inside each format: the format and the JSON path.
#[test]
fn mixed_up_files_name_format_and_path() {
    let edit = |rel: &str, f: &dyn Fn(&mut Value)| {
        let mut v = json(rel);
        f(&mut v);
        serde_json::to_vec(&v).unwrap()
    };
    let cases: Vec<(&str, Vec<u8>, &str, &str)> = vec![
        (
            "JMH",
            edit("jmh/result.json", &|v| {
                v[2]["primaryMetric"]["rawData"][0][3] = "fast".into()
            }),
            "[2].primaryMetric.rawData[0][3]",
            "JMH JSON: expected a number, found a string",
        ),
        (
            "JMH no unit",
            edit("jmh/result.json", &|v| {
                v[0]["primaryMetric"]
                    .as_object_mut()
                    .unwrap()
                    .remove("scoreUnit");
            }),
            "[0].primaryMetric",
            "JMH JSON: missing \"scoreUnit\"",
        ),
        (
            "pyperf",
            edit("pyperf/suite.json", &|v| {
                v["benchmarks"][1]["runs"][2]["values"][0] = (-1.0).into()
            }),
            "benchmarks[1].runs[2].values[0]",
            "pyperf JSON: measurement is -1",
        ),
        (
            "gbench",
            edit("googlebench/repetitions.json", &|v| {
                v["benchmarks"][0]["real_time"] = Value::Null
            }),
            "benchmarks[0].real_time",
            "Google Benchmark JSON: expected a number, found null",
        ),
        (
            "hyperfine",
            edit("hyperfine/sleep.json", &|v| {
                v["results"][1].as_object_mut().unwrap().remove("times");
            }),
            "results[1]",
            "hyperfine JSON: missing \"times\"",
        ),
        (
            "criterion",
            edit(
                "criterion/target-criterion/tiny/fib 10/new/sample.json",
                &|v| {
                    v["iters"].as_array_mut().unwrap().pop();
                },
            ),
            "times",
            "Criterion.rs sample.json: 10 times but 9 iteration counts",
        ),
    ];
    for (what, b, path, message) in cases {
        let e = error_of(what, &b);
        assert_eq!(e.path.as_deref(), Some(path), "{what}: {e}");
        assert!(e.message.starts_with(message), "{what}: {e}");
    }
    let text = String::from_utf8(bytes("criterion/cargo-criterion.ndjson")).unwrap();
    let broken = text.replacen("\"measured_values\":[", "\"measured_values\":[\"x\",", 1);
    let e = error_of("cc", broken.as_bytes());
    assert_eq!(e.path.as_deref(), Some("line 1.measured_values[0]"), "{e}");
    assert!(
        e.message
            .starts_with("cargo-criterion JSON stream: expected a number"),
        "{e}"
    );
    let e = error_of("cc", format!("{text}not json\n").as_bytes());
    assert!(e.message.contains("line 4: not a JSON object"), "{e}");
}

#[test]
fn unknown_json_lists_what_was_tried() {
    for text in [r#"{"a": 1}"#, "[1, 2]", r#"[{"x": 1}]"#] {
        let e = error_of("x.json", text.as_bytes());
        for f in [
            "pyperf",
            "JMH",
            "Google Benchmark",
            "hyperfine",
            "Criterion.rs",
            "cargo-criterion",
        ] {
            assert!(e.message.contains(f), "{text}: {e}");
        }
    }
}

/// The page bundles a dropped folder's JSON files (web/src/app/intake.js); the
/// bundle reads as the folder does.
#[test]
fn folder_bundle_reads_like_the_folder() {
    let entries: Vec<Value> = criterion_entries()
        .into_iter()
        .map(|(path, b)| serde_json::json!({"path": path, "text": String::from_utf8(b).unwrap()}))
        .collect();
    let bundle =
        serde_json::to_vec(&serde_json::json!({"tickbook_folder": 1, "entries": entries})).unwrap();
    let r = analyze_bytes("target-criterion/", &bundle, &Options::default());
    assert!(r.ok, "{:?}", r.error);
    let direct = analyze_entries(
        "target-criterion",
        &criterion_entries(),
        &Options::default(),
    );
    let (a, b) = (r.samples.unwrap(), direct.samples.unwrap());
    assert_eq!(a.series.len(), b.series.len());
    for (x, y) in a.series.iter().zip(&b.series) {
        assert_eq!((&x.name, x.summary.mean), (&y.name, y.summary.mean));
    }
    let bad = br#"{"tickbook_folder": 1, "entries": [{"path": "x/new/sample.json", "text": "{\"iters\": [1], \"times\": [\"a\"]}"}]}"#;
    let e = error_of("dir/", bad);
    assert_eq!(e.file, "dir/x/new/sample.json");
    assert_eq!(e.path.as_deref(), Some("times[0]"));
}
