//! Importers of other harnesses' results (docs/importers.md): every fixture
//! in tests/fixtures/import loads, its mean and spread agree with what the
//! tool itself reported for the same file, executions are grouped where the
//! format records them, and truncated or mixed-up files get a message naming
//! the format and the JSON path.

use serde_json::Value;
use std::path::{Path, PathBuf};
use tickbook_analysis::limits::Limits;
use tickbook_analysis::read::{read_document, read_document_within, Document};
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
    entries("criterion/target-criterion")
}

/// A fixture folder's files as (path relative to it, bytes), as the command
/// line and the page hand a folder to the analysis.
fn entries(rel: &str) -> Vec<(String, Vec<u8>)> {
    let root = dir().join(rel);
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

fn text(rel: &str) -> String {
    String::from_utf8(bytes(rel)).unwrap()
}

fn samples_doc(rel: &str) -> tickbook_analysis::format::SamplesFile {
    match read_document(rel, &bytes(rel)) {
        Ok(Document::Samples(s)) => s,
        Ok(_) => panic!("{rel}: not a samples document"),
        Err(e) => panic!("{rel}: {e}"),
    }
}

#[test]
fn pytest_benchmark_matches_its_stats() {
    let rel = "pytest-benchmark/pytest.json";
    let r = report(rel);
    let doc = json(rel);
    assert_eq!(
        r.info.as_ref().unwrap().source.as_deref(),
        Some(format!("pytest-benchmark {}", doc["version"].as_str().unwrap()).as_str())
    );
    let imported = samples_doc(rel);
    let benches = doc["benchmarks"].as_array().unwrap();
    assert_eq!(r.samples.as_ref().unwrap().series.len(), benches.len());
    for b in benches {
        let name = b["name"].as_str().unwrap();
        let st = &b["stats"];
        let s = series(&r, name);
        // All rounds in the one pytest process: one execution.
        assert_eq!((s.unit.as_str(), s.unit_ns), ("s", Some(1e9)));
        assert_eq!(
            (s.executions, s.measurements as u64),
            (1, st["rounds"].as_u64().unwrap())
        );
        let f = |k: &str| st[k].as_f64().unwrap();
        close(s.summary.mean, f("mean"), "pytest-benchmark mean");
        close(sd(s), f("stddev"), "pytest-benchmark stddev");
        close(s.summary.median, f("median"), "pytest-benchmark median");
        close(s.summary.min, f("min"), "pytest-benchmark min");
        close(s.summary.max, f("max"), "pytest-benchmark max");
        // The tool's own statistics, without the rounds themselves.
        let ts = s.tool_statistics.as_ref().unwrap();
        assert_eq!(ts["ops"], st["ops"]);
        assert_eq!(ts["iqr"], st["iqr"]);
        assert!(ts.get("data").is_none());
        // Name and parameters kept.
        let m = &imported
            .series
            .iter()
            .find(|x| x.name == name)
            .unwrap()
            .metadata;
        assert_eq!(m["params"], b["params"]);
        assert_eq!(m["fullname"], b["fullname"]);
        assert_eq!(m["iterations_per_round"], st["iterations"]);
    }
    // Parametrised tests keep their parameter id in the name.
    assert!(benches.iter().any(|b| b["name"] == "test_sum[10000]"));
}

/// The table pytest-benchmark printed for the same run (`pytest.table.txt`,
/// "Name (time in us)", 4 decimals): tickbook's summary, rounded the same way.
#[test]
fn pytest_benchmark_matches_its_printed_table() {
    let r = report("pytest-benchmark/pytest.json");
    let table = text("pytest-benchmark/pytest.table.txt");
    assert!(table.contains("Name (time in us)"));
    let mut rows = 0;
    for line in table
        .lines()
        .filter(|l| l.starts_with("test_") && l.contains(" ("))
    {
        // name, then "value (ratio)" for Min Max Mean StdDev Median IQR,
        // Outliers, "OPS (ratio)", Rounds, Iterations.
        let f: Vec<&str> = line.split_whitespace().collect();
        let printed = |i: usize| -> f64 { f[1 + 2 * i].parse().unwrap() };
        let s = series(&r, f[0]);
        let us = |x: f64| (x * 1e6 * 1e4).round() / 1e4;
        let ours = [
            s.summary.min,
            s.summary.max,
            s.summary.mean,
            sd(s),
            s.summary.median,
        ];
        for (i, x) in ours.into_iter().enumerate() {
            assert_eq!(us(x), printed(i), "{}: column {i}", f[0]);
        }
        assert_eq!(f[f.len() - 2].parse::<usize>().unwrap(), s.measurements);
        rows += 1;
    }
    assert_eq!(rows, 3);
}

/// pytest-benchmark also writes "benchmarks" and "version", as pyperf does:
/// each is read as itself, and a saved file without its rounds says why it
/// cannot be analysed.
#[test]
fn pytest_benchmark_is_not_taken_for_pyperf() {
    let s = samples_doc("pytest-benchmark/pytest.json");
    assert!(s.source.unwrap().starts_with("pytest-benchmark"));
    let s = samples_doc("pyperf/suite.json");
    assert!(s.source.unwrap().starts_with("pyperf"));
    let e = error_of(
        "saved.json",
        &bytes("pytest-benchmark/saved-without-data.json"),
    );
    assert!(
        e.message.starts_with("pytest-benchmark JSON: ")
            && e.message.contains("--benchmark-save-data"),
        "{e}"
    );
    assert_eq!(e.path.as_deref(), Some("benchmarks[0].stats"));
}

/// Each unit's values of one benchmark, in the order the units appear.
type GoUnits = Vec<(String, Vec<f64>)>;

/// The rows Go printed, read independently: {name as printed: [(unit, [values])]}.
fn go_rows(text: &str) -> Vec<(String, GoUnits)> {
    let mut out: Vec<(String, GoUnits)> = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 4 || !f[0].starts_with("Benchmark") || f[1].parse::<u64>().is_err() {
            continue;
        }
        let k = match out.iter().position(|(n, _)| n == f[0]) {
            Some(k) => k,
            None => {
                out.push((f[0].to_string(), Vec::new()));
                out.len() - 1
            }
        };
        for p in f[2..].chunks(2) {
            let x: f64 = p[0].parse().unwrap();
            let units = &mut out[k].1;
            match units.iter_mut().find(|(u, _)| u == p[1]) {
                Some((_, xs)) => xs.push(x),
                None => units.push((p[1].to_string(), vec![x])),
            }
        }
    }
    out
}

fn check_go(rel: &str, printed: &str, source: &str) {
    let r = report(rel);
    assert_eq!(r.info.as_ref().unwrap().source.as_deref(), Some(source));
    let doc = samples_doc(rel);
    let rows = go_rows(printed);
    assert_eq!(rows.len(), 3, "{rel}: three benchmarks");
    let mut n = 0;
    for (go_name, units) in &rows {
        // GOMAXPROCS (the -2 of BenchmarkJoin-2) is not part of the name.
        let name = go_name.rsplit_once('-').unwrap().0;
        for (unit, values) in units {
            let (series_name, tb_unit) = match unit.as_str() {
                "ns/op" => (name.to_string(), "ns"),
                u => (format!("{name} [{u}]"), u),
            };
            let s = series(&r, &series_name);
            assert_eq!(s.unit, tb_unit);
            // One test process; each -count row a measurement, exactly as printed.
            assert_eq!((s.executions, s.measurements), (1, values.len()));
            let got = &doc
                .series
                .iter()
                .find(|x| x.name == series_name)
                .unwrap()
                .executions;
            assert_eq!(got, &vec![values.clone()], "{series_name}");
            let mean = values.iter().sum::<f64>() / values.len() as f64;
            close(s.summary.mean, mean, "mean of Go's printed values");
            n += 1;
        }
    }
    // ns/op, B/op, allocs/op for each; MB/s for the one with SetBytes.
    assert_eq!(n, 3 * 3 + 1, "{rel}");
    assert_eq!(series(&r, "BenchmarkFib/n=10").unit_ns, Some(1.0));
    assert_eq!(series(&r, "BenchmarkJoin [MB/s]").unit_ns, None);
}

#[test]
fn go_bench_text_and_json_match_the_printed_rows() {
    check_go(
        "gobench/go-bench.txt",
        &text("gobench/go-bench.txt"),
        "go test -bench (text)",
    );
    // The -json stream's output events, joined, are the text Go printed.
    let mut printed = String::new();
    for line in text("gobench/go-bench.json").lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["Action"] == "output" {
            printed.push_str(v["Output"].as_str().unwrap());
        }
    }
    check_go("gobench/go-bench.json", &printed, "go test -bench -json");
}

/// "0.76 msec task-clock", "1 context-switches": perf stat's own report of
/// the recorded run, read independently.
fn perf_report(text: &str) -> Vec<(String, f64, bool)> {
    text.lines()
        .filter(|l| !l.contains("<not"))
        .filter_map(|l| {
            let f: Vec<&str> = l.split('#').next()?.split_whitespace().collect();
            let value: f64 = f.first()?.replace(',', "").parse().ok()?;
            match f.as_slice() {
                [_, "msec", event] => Some((event.to_string(), value, true)),
                [_, event] => Some((event.to_string(), value, false)),
                _ => None,
            }
        })
        .collect()
}

/// `perf stat -x, -r 3 -o FILE`: the "# started on" line skipped, the
/// value perf's mean over the runs, its variance kept as the tool's figure.
#[test]
fn perf_stat_repeated_keeps_its_variance() {
    let r = report("perf/perf-stat-r3.csv");
    let s = series(&r, "task-clock");
    assert_eq!((s.unit.as_str(), s.summary.mean), ("ms", 198.56));
    let ts = s.tool_statistics.as_ref().unwrap();
    assert_eq!(ts["variance_percent"], 4.05);
    assert_eq!(ts["metric_unit"], "CPUs utilized");
    assert_eq!(series(&r, "page-faults").summary.mean, 9311.0);
    let doc = samples_doc("perf/perf-stat-r3.csv");
    assert!(doc.description.unwrap().contains("mean over its runs"));
    assert_eq!(
        doc.series[0].metadata["started_on"],
        "Wed Nov 25 01:31:53 2026"
    );
}

#[test]
fn perf_stat_csv_and_json_match_perf_report() {
    let printed = perf_report(&text("perf/perf-stat.report.txt"));
    assert!(printed.len() >= 4, "{printed:?}");
    for (rel, source) in [
        ("perf/perf-stat.csv", "perf stat -x, (CSV)"),
        ("perf/perf-stat.json", "perf stat -j (JSON)"),
    ] {
        let r = report(rel);
        assert_eq!(r.info.as_ref().unwrap().source.as_deref(), Some(source));
        for (event, value, msec) in &printed {
            let s = series(&r, event);
            // One run: one execution of one measurement.
            assert_eq!((s.executions, s.measurements), (1, 1), "{rel} {event}");
            if *msec {
                // A time, scaled as one: perf prints msec with 2 decimals.
                assert_eq!((s.unit.as_str(), s.unit_ns), ("ms", Some(1e6)));
                assert_eq!(
                    (s.summary.mean * 100.0).round() / 100.0,
                    *value,
                    "{rel} {event}"
                );
            } else {
                assert_eq!((s.unit.as_str(), s.unit_ns), ("count", None));
                assert_eq!(s.summary.mean, *value, "{rel} {event}");
            }
            assert!(s.tool_statistics.as_ref().unwrap()["event_runtime"].is_number());
        }
        // Events perf could not count are named, never measured.
        let s = samples_doc(rel);
        assert!(s.series.iter().all(|x| x.name != "cycles"));
        assert!(s.description.unwrap().contains("cycles (<not supported>)"));
    }
}

/// Each new format is read as itself, whatever its file is called, and the
/// JSON ones are not taken for another tool's.
#[test]
fn new_formats_are_detected_by_content() {
    for (rel, source) in [
        ("pytest-benchmark/pytest.json", "pytest-benchmark"),
        ("gobench/go-bench.txt", "go test -bench (text)"),
        ("gobench/go-bench.json", "go test -bench -json"),
        ("perf/perf-stat.csv", "perf stat -x,"),
        ("perf/perf-stat.json", "perf stat -j"),
    ] {
        let r = analyze_bytes("renamed.dat", &bytes(rel), &Options::default());
        assert!(r.ok, "{rel}: {:?}", r.error);
        assert!(r.info.unwrap().source.unwrap().starts_with(source), "{rel}");
    }
}

/// A stream of one line is one JSON document (`perf stat -j -e task-clock`,
/// a lone `go test -json` event): read by its shape, as the stream would be.
#[test]
fn one_line_streams_are_read_by_their_shape() {
    let perf = text("perf/perf-stat.json");
    let first = perf.lines().next().unwrap();
    let r = analyze_bytes("one.json", first.as_bytes(), &Options::default());
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(series(&r, "task-clock").summary.mean, 201.205189);
    let go = r#"{"Action":"output","Package":"p","Output":"BenchmarkX-2 10 5.5 ns/op\n"}"#;
    let r = analyze_bytes("one.json", go.as_bytes(), &Options::default());
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(series(&r, "BenchmarkX").summary.mean, 5.5);
}

#[test]
fn a_file_no_reader_accepts_lists_each_format_and_why() {
    for (text, why) in [
        ("hello\nworld\n", "line 1 (\"hello\")"),
        ("a,b,c\n1,2,3\n", "line 1: 3 field(s)"),
        ("Benchmark results\n", "line 1"),
    ] {
        let e = error_of("x.txt", text.as_bytes());
        assert!(e.message.starts_with("not valid JSON"), "{e}");
        for f in [
            "pyperf",
            "pytest-benchmark",
            "JMH",
            "Google Benchmark",
            "hyperfine",
            "Criterion.rs",
            "cargo-criterion",
            "go test -json",
            "perf stat -j",
            "Go test -bench text: no result line",
            "perf stat -x, CSV: ",
        ] {
            assert!(e.message.contains(f), "{text:?} lacks {f}: {e}");
        }
        assert!(e.message.contains(why), "{text:?}: {e}");
    }
    // A JSON document of no known shape: each format with what it needs.
    let e = error_of("x.json", br#"{"a": 1}"#);
    for f in [
        "pytest-benchmark JSON (--benchmark-json: \"benchmarks\" and \"machine_info\"",
        "go test -json (objects with \"Action\")",
        "perf stat -j (objects with \"counter-value\" and \"event\")",
        "go test -bench (lines \"BenchmarkName N VALUE UNIT…\")",
        "perf stat -x, (lines VALUE,UNIT,EVENT,…)",
    ] {
        assert!(e.message.contains(f), "lacks {f}: {e}");
    }
}

/// Broken files in the new formats: the format and the line or JSON path.
#[test]
fn broken_new_formats_name_format_and_place() {
    let mut v = json("pytest-benchmark/pytest.json");
    v["benchmarks"][1]["stats"]["data"][2] = "slow".into();
    let e = error_of("p", &serde_json::to_vec(&v).unwrap());
    assert_eq!(
        e.path.as_deref(),
        Some("benchmarks[1].stats.data[2]"),
        "{e}"
    );
    assert!(
        e.message
            .starts_with("pytest-benchmark JSON: expected a number"),
        "{e}"
    );

    let go = text("gobench/go-bench.txt");
    let at = go.lines().position(|l| l.starts_with("Benchmark")).unwrap() + 1;
    let broken = go.replacen(" ns/op", " ns/op\t12", 1);
    let e = error_of("g", broken.as_bytes());
    assert_eq!(e.path, Some(format!("line {at}")), "{e}");
    assert!(e.message.starts_with("Go test -bench text: "), "{e}");

    // The first row makes the file perf's; a later broken row is named.
    let csv = text("perf/perf-stat.csv").replacen("90,,", "ninety,,", 1);
    let e = error_of("c", csv.as_bytes());
    assert_eq!(e.path.as_deref(), Some("line 2"), "{e}");
    assert!(
        e.message
            .starts_with("perf stat -x, CSV: \"ninety\" is not a count"),
        "{e}"
    );

    for (rel, label) in [
        ("pytest-benchmark/pytest.json", "pytest-benchmark JSON"),
        ("gobench/go-bench.json", "go test -json stream"),
        ("perf/perf-stat.json", "perf stat -j JSON"),
    ] {
        let b = bytes(rel);
        let e = error_of(rel, &b[..b.len() / 2 + 7]);
        assert!(e.message.starts_with(label), "{rel}: {e}");
    }
}

/// Criterion's printed `time: [lo estimate hi]` of a benchmark, in ns, from
/// the saved console output of the run that wrote the folder.
fn criterion_printed(console: &str, bench: &str) -> [f64; 3] {
    let lines: Vec<&str> = console.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with(bench))
        .unwrap_or_else(|| panic!("{bench} not in the console output"));
    let line = lines[at..].iter().find(|l| l.contains("time:")).unwrap();
    let inside = line.split('[').nth(1).unwrap().split(']').next().unwrap();
    let parts: Vec<&str> = inside.split_whitespace().collect();
    let scale = |u: &str| match u {
        "ps" => 1e-3,
        "ns" => 1.0,
        "µs" | "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        other => panic!("unit {other}"),
    };
    let v = |i: usize| parts[2 * i].parse::<f64>().unwrap() * scale(parts[2 * i + 1]);
    [v(0), v(1), v(2)]
}

/// Agreement to the 5 significant digits Criterion and others print.
fn printed_close(a: f64, printed: f64, what: &str) {
    assert!(
        (a - printed).abs() <= 5e-5 * printed.abs(),
        "{what}: tickbook {a} vs printed {printed}"
    );
}

/// Flat sampling writes `"slope": null` in estimates.json; the folder used
/// to be refused whole for it. Criterion then prints the mean's CI.
#[test]
fn criterion_flat_sampling_and_throughput_are_read() {
    let root = "criterion/target-criterion-flat";
    let r = analyze_entries(root, &entries(root), &Options::default());
    assert!(r.ok, "{:?}", r.error);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let console = String::from_utf8(bytes("criterion/flat-console.txt")).unwrap();
    for (bench, mode) in [("flat/fib 15", "Flat"), ("linear/sum 4096 bytes", "Linear")] {
        let est = json(&format!("{root}/{bench}/new/estimates.json"));
        let sample = json(&format!("{root}/{bench}/new/sample.json"));
        let s = series(&r, bench);
        let pe = |k: &str| est[k]["point_estimate"].as_f64().unwrap();
        close(s.summary.mean, pe("mean"), "criterion mean");
        close(sd(s), pe("std_dev"), "criterion std_dev");
        close(s.summary.median, pe("median"), "criterion median");
        let meta = s.metadata.as_ref().unwrap();
        assert_eq!(meta["sampling_mode"], mode);
        assert_eq!(sample["sampling_mode"], mode);
        let ts = s.tool_statistics.as_ref().unwrap();
        let printed = criterion_printed(&console, bench);
        if mode == "Flat" {
            assert!(est["slope"].is_null());
            assert!(ts.get("slope").is_none());
            let iters = sample["iters"].as_array().unwrap();
            assert!(iters.iter().all(|n| *n == iters[0]), "flat: one count");
            // Criterion prints the mean when there is no slope.
            printed_close(s.summary.mean, printed[1], "printed mean");
        } else {
            assert_eq!(
                ts["slope"]["point_estimate"],
                est["slope"]["point_estimate"]
            );
            printed_close(pe("slope"), printed[1], "printed slope");
        }
    }
    let bench = json(&format!("{root}/linear/sum 4096 bytes/new/benchmark.json"));
    assert_eq!(bench["throughput"]["Bytes"], 4096);
    let s = series(&r, "linear/sum 4096 bytes");
    assert_eq!(
        s.metadata.as_ref().unwrap()["throughput"],
        bench["throughput"]
    );
    assert!(series(&r, "flat/fib 15")
        .metadata
        .as_ref()
        .unwrap()
        .get("throughput")
        .is_none());
}

/// One unreadable benchmark is named in a warning; the others are read.
#[test]
fn one_bad_criterion_benchmark_does_not_hide_the_others() {
    let cut = |entries: &mut Vec<(String, Vec<u8>)>, file: &str| {
        let e = entries.iter_mut().find(|(p, _)| p == file).unwrap();
        e.1.truncate(e.1.len() / 2);
    };
    let mut e = criterion_entries();
    cut(&mut e, "tiny/sum 100/new/sample.json");
    let r = analyze_entries("target-criterion", &e, &Options::default());
    assert!(r.ok, "{:?}", r.error);
    let s = r.samples.as_ref().unwrap();
    assert_eq!(
        s.series.iter().map(|x| x.name.as_str()).collect::<Vec<_>>(),
        ["tiny/fib 10"]
    );
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(
        r.warnings[0].starts_with(
            "benchmark \"tiny/sum 100\" not read: target-criterion/tiny/sum 100/new/sample.json: "
        ),
        "{}",
        r.warnings[0]
    );
    // Broken estimates: the samples are read, the estimates named.
    let mut e = criterion_entries();
    cut(&mut e, "tiny/fib 10/new/estimates.json");
    let r = analyze_entries("target-criterion", &e, &Options::default());
    assert_eq!(r.samples.as_ref().unwrap().series.len(), 2);
    assert!(series(&r, "tiny/fib 10").tool_statistics.is_none());
    assert!(
        r.warnings[0].contains("not Criterion's estimates"),
        "{:?}",
        r.warnings
    );
    // Every benchmark broken: an error, the first one's.
    let mut e = criterion_entries();
    cut(&mut e, "tiny/sum 100/new/sample.json");
    cut(&mut e, "tiny/fib 10/new/sample.json");
    let r = analyze_entries("target-criterion", &e, &Options::default());
    let err = r.error.unwrap();
    assert_eq!(err.file, "target-criterion/tiny/fib 10/new/sample.json");
    assert!(err.message.contains("1 other benchmarks"), "{err}");
}

/// `--benchmark_report_aggregates_only=true`: no repetitions in the file,
/// only the tool's statistics; they used to be refused.
#[test]
fn google_benchmark_aggregates_only_are_the_tools_statistics() {
    let rel = "googlebench/aggregates.json";
    let r = report(rel);
    let doc = json(rel);
    let entries = doc["benchmarks"].as_array().unwrap();
    assert!(entries.iter().all(|e| e["run_type"] == "aggregate"));
    let mut checked = 0;
    for e in entries.iter().filter(|e| e["aggregate_name"] == "mean") {
        let run = e["run_name"].as_str().unwrap();
        for which in ["real_time", "cpu_time"] {
            let s = series(&r, &format!("{run} {which}"));
            assert_eq!((s.executions, s.measurements), (1, 1));
            assert_eq!(s.summary.mean, e[which].as_f64().unwrap());
            let ts = s.tool_statistics.as_ref().unwrap();
            for a in entries.iter().filter(|a| a["run_name"] == run) {
                let k = a["aggregate_name"].as_str().unwrap();
                if matches!(k, "BigO" | "RMS") {
                    continue;
                }
                assert_eq!(ts[k]["value"], a[which], "{run} {k}");
            }
            assert_eq!(s.metadata.as_ref().unwrap()["repetitions"], e["iterations"]);
            checked += 1;
        }
    }
    assert!(checked >= 4, "{checked}");
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("aggregates only") && w.contains("no raw samples")),
        "{:?}",
        r.warnings
    );
    // What the tool printed for the same run: its mean real time per
    // benchmark, to the digits it prints.
    let console = String::from_utf8(bytes("googlebench/aggregates-console.txt")).unwrap();
    let mut printed = 0;
    for line in console.lines() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        let Some(run) = cols.first().and_then(|c| c.strip_suffix("_mean")) else {
            continue;
        };
        let s = series(&r, &format!("{run} real_time"));
        let shown: f64 = cols[1].parse().unwrap();
        assert!(
            (s.summary.mean - shown).abs() <= 0.5 + 1e-9 * shown,
            "{run}: {} vs printed {shown}",
            s.summary.mean
        );
        printed += 1;
    }
    assert_eq!(printed * 2, checked);
}

/// User counters, iteration counts and a family's complexity fit were
/// dropped; they are the series' metadata now.
#[test]
fn google_benchmark_counters_iterations_and_big_o_are_kept() {
    let rel = "googlebench/complexity.json";
    let r = report(rel);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let doc = json(rel);
    let entries = doc["benchmarks"].as_array().unwrap();
    let big_o = entries
        .iter()
        .find(|e| e["aggregate_name"] == "BigO")
        .unwrap();
    let rms = entries
        .iter()
        .find(|e| e["aggregate_name"] == "RMS")
        .unwrap();
    let reps: Vec<&Value> = entries
        .iter()
        .filter(|e| e["run_name"] == "BM_Sort/256" && e["run_type"] == "iteration")
        .collect();
    assert!(reps.len() >= 2);
    for which in ["real_time", "cpu_time"] {
        let s = series(&r, &format!("BM_Sort/256 {which}"));
        let m = s.metadata.as_ref().unwrap();
        for counter in ["items_per_second", "sorts", "len"] {
            let want: Vec<&Value> = reps.iter().map(|e| &e[counter]).collect();
            let got: Vec<&Value> = m["counters"][counter].as_array().unwrap().iter().collect();
            assert_eq!(got, want, "{counter}");
        }
        let iters: Vec<&Value> = reps.iter().map(|e| &e["iterations"]).collect();
        assert_eq!(
            m["iterations"]
                .as_array()
                .unwrap()
                .iter()
                .collect::<Vec<_>>(),
            iters
        );
        assert_eq!(m["complexity"]["BigO"]["big_o"], big_o["big_o"]);
        assert_eq!(
            m["complexity"]["BigO"]["cpu_coefficient"],
            big_o["cpu_coefficient"]
        );
        assert_eq!(m["complexity"]["RMS"]["rms"], rms["rms"]);
    }
    // Not a family member: no fit.
    let acc = series(&r, "BM_Accumulate real_time");
    assert!(acc.metadata.as_ref().unwrap().get("complexity").is_none());
    assert!(acc.metadata.as_ref().unwrap()["counters"]["bytes_per_second"].is_array());
    // The older fixture's counter was dropped too.
    let r = report("googlebench/repetitions.json");
    assert!(series(&r, "BM_Sort/64 real_time")
        .metadata
        .as_ref()
        .unwrap()["counters"]["items_per_second"]
        .is_array());
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// pyperf writes `.json.gz`; any format may be compressed. They used to be
/// "not valid JSON".
#[test]
fn gzip_input_is_read_by_its_content_within_the_limit() {
    let rel = "pyperf/gz/timeit.json.gz";
    let r = report(rel);
    let expected = json("pyperf/gz-expected.json");
    for e in expected["timeit.json.gz"].as_array().unwrap() {
        let s = series(&r, e["name"].as_str().unwrap());
        close(s.summary.mean, e["mean"].as_f64().unwrap(), "pyperf mean");
        close(sd(s), e["stdev"].as_f64().unwrap(), "pyperf stdev");
        close(
            s.summary.median,
            e["median"].as_f64().unwrap(),
            "pyperf median",
        );
        assert_eq!(s.executions as u64, e["runs_with_values"].as_u64().unwrap());
    }
    // Any format: a hyperfine file compressed here reads as the file itself.
    let plain = report("hyperfine/sleep.json");
    let packed = analyze_bytes(
        "sleep.json.gz",
        &gzip(&bytes("hyperfine/sleep.json")),
        &Options::default(),
    );
    assert!(packed.ok, "{:?}", packed.error);
    let (a, b) = (plain.samples.unwrap(), packed.samples.unwrap());
    for (x, y) in a.series.iter().zip(&b.series) {
        assert_eq!((&x.name, x.summary.mean), (&y.name, y.summary.mean));
    }
    // The size limit applies to what the file inflates to.
    let text = bytes("pyperf/suite.json");
    let small = Limits {
        file_bytes: text.len() as u64 - 1,
        ..Limits::default()
    };
    let e = match read_document_within("suite.json.gz", &gzip(&text), &small) {
        Err(e) => e,
        Ok(_) => panic!("inflated beyond the limit, yet read"),
    };
    assert!(e.message.contains("decompresses to more than"), "{e}");
    let fits = Limits {
        file_bytes: text.len() as u64,
        ..Limits::default()
    };
    assert!(read_document_within("suite.json.gz", &gzip(&text), &fits).is_ok());
}

/// A folder bundle without Criterion results: every file is read (it used
/// to be refused unless it held exactly one file).
#[test]
fn a_folder_of_several_result_files_reads_each() {
    let e = vec![
        ("timeit.json".to_string(), bytes("pyperf/timeit.json")),
        ("suite.json".to_string(), bytes("pyperf/suite.json")),
    ];
    let r = analyze_entries("runs", &e, &Options::default());
    assert!(r.ok, "{:?}", r.error);
    let direct = report("pyperf/suite.json");
    let s = series(&r, "suite.json: sort 100");
    close(
        s.summary.mean,
        series(&direct, "sort 100").summary.mean,
        "same numbers",
    );
    assert_eq!(r.samples.as_ref().unwrap().series.len(), 4 + 2);
    assert!(r
        .info
        .unwrap()
        .source
        .unwrap()
        .starts_with("2 files of runs: suite.json (pyperf 2.10.0"));
    // The page's bundle of the same folder.
    let bundle = serde_json::json!({"tickbook_folder": 1, "entries": e.iter()
        .map(|(p, b)| serde_json::json!({"path": p, "text": String::from_utf8_lossy(b)}))
        .collect::<Vec<_>>()});
    let r = analyze_bytes(
        "runs/",
        &serde_json::to_vec(&bundle).unwrap(),
        &Options::default(),
    );
    assert!(r.ok, "{:?}", r.error);
    // One bad file is named; the other is read.
    let mut bad = e.clone();
    bad[0].1.truncate(100);
    let r = analyze_entries("runs", &bad, &Options::default());
    assert!(r.ok, "{:?}", r.error);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.starts_with("not read: runs/timeit.json: ")),
        "{:?}",
        r.warnings
    );
}

/// Exit codes and parameters were dropped, and a command whose every run
/// failed was analysed without a word.
#[test]
fn hyperfine_exit_codes_parameters_and_failed_runs() {
    let rel = "hyperfine/exit-codes.json";
    let r = report(rel);
    let results = json(rel)["results"].as_array().unwrap().clone();
    let mut all_failed = 0;
    for res in &results {
        let command = res["command"].as_str().unwrap();
        let s = series(&r, command);
        close(
            s.summary.mean,
            res["mean"].as_f64().unwrap(),
            "hyperfine mean",
        );
        let m = s.metadata.as_ref().unwrap();
        assert_eq!(m["exit_codes"], res["exit_codes"]);
        assert_eq!(m["parameters"], res["parameters"]);
        let codes = res["exit_codes"].as_array().unwrap();
        let failing = codes.iter().all(|c| c != 0);
        let warned = r
            .warnings
            .iter()
            .any(|w| w.starts_with(&format!("\"{command}\": every run failed")));
        assert_eq!(warned, failing, "{command}: {:?}", r.warnings);
        all_failed += usize::from(failing);
    }
    assert_eq!(all_failed, 1);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
}

/// What a tool writes beside the times reaches the report (and from there
/// the terminal and the page).
#[test]
fn pyperf_metadata_is_in_the_report() {
    let r = report("pyperf/suite.json");
    let doc = json("pyperf/suite.json");
    let s = series(&r, "sort 100");
    let m = &s.metadata.as_ref().unwrap()["pyperf_metadata"];
    assert_eq!(m["name"], "sort 100");
    assert_eq!(m["perf_version"], doc["metadata"]["perf_version"]);
    assert!(s.metadata.as_ref().unwrap().get("tool").is_none());
}

/// A Criterion folder with a baseline saved by `--save-baseline fib15`
/// beside `new/` showed each benchmark twice; Criterion's own report shows
/// the latest run (`new/`), and so does the analysis of the folder.
#[test]
fn a_saved_criterion_baseline_is_not_a_second_benchmark() {
    let root = dir().join("../compare/criterion/target-criterion");
    let mut e = Vec::new();
    for run in ["fib15", "new", "change"] {
        for f in [
            "benchmark.json",
            "estimates.json",
            "sample.json",
            "tukey.json",
        ] {
            let p = root.join("cmp/fib").join(run).join(f);
            if let Ok(b) = std::fs::read(&p) {
                e.push((format!("cmp/fib/{run}/{f}"), b));
            }
        }
    }
    let r = analyze_entries("target-criterion", &e, &Options::default());
    assert!(r.ok, "{:?}", r.error);
    let names: Vec<&str> = r
        .samples
        .as_ref()
        .unwrap()
        .series
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(names, ["cmp/fib"]);
    let est: Value =
        serde_json::from_slice(&std::fs::read(root.join("cmp/fib/new/estimates.json")).unwrap())
            .unwrap();
    close(
        series(&r, "cmp/fib").summary.mean,
        est["mean"]["point_estimate"].as_f64().unwrap(),
        "the latest run's mean",
    );
    // A baseline alone (no new/ beside it) is still read.
    let only: Vec<_> = e
        .iter()
        .filter(|(p, _)| p.contains("/fib15/"))
        .cloned()
        .collect();
    let r = analyze_entries("target-criterion", &only, &Options::default());
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.samples.as_ref().unwrap().series.len(), 1);
}

/// A folder of `perf stat` files (`-x,` or `-j`), one run of the command
/// each, is several runs of the same events: one series per event with one
/// execution per file, each the value perf itself printed for that run.
#[test]
fn a_folder_of_perf_stat_runs_is_one_execution_per_file() {
    // perf's report of each run, in file order.
    let report_text = text("perf/runs.report.txt");
    let runs: Vec<Vec<(String, f64, bool)>> = report_text
        .split("== run")
        .skip(1)
        .map(perf_report)
        .collect();
    assert_eq!(runs.len(), 3);
    for (folder, source) in [
        ("perf/runs-csv", "perf stat -x, (CSV)"),
        ("perf/runs-json", "perf stat -j (JSON)"),
    ] {
        let mut e = entries(folder);
        e.reverse(); // the files' order, not the listing's, decides
        let r = analyze_entries(folder, &e, &Options::default());
        assert!(r.ok, "{folder}: {:?}", r.error);
        let s = r.samples.as_ref().unwrap();
        assert_eq!(
            s.series.iter().map(|x| x.name.as_str()).collect::<Vec<_>>(),
            [
                "task-clock",
                "context-switches",
                "cpu-migrations",
                "page-faults"
            ],
            "{folder}: one series per event, not per file"
        );
        let info = r.info.as_ref().unwrap();
        assert!(
            info.source
                .as_deref()
                .is_some_and(|x| x.starts_with(source) && x.contains("3 runs")),
            "{folder}: {:?}",
            info.source
        );
        let doc = match tickbook_analysis::read::read_folder(folder, &e).unwrap() {
            Document::Samples(d) => d,
            Document::Run(_) => panic!("a run"),
        };
        for x in &s.series {
            assert_eq!(
                (x.executions, x.measurements),
                (3, 3),
                "{folder} {}",
                x.name
            );
            let got = &doc
                .series
                .iter()
                .find(|d| d.name == x.name)
                .unwrap()
                .executions;
            for (k, run) in runs.iter().enumerate() {
                let (_, printed, msec) = run.iter().find(|(ev, _, _)| *ev == x.name).unwrap();
                assert_eq!(got[k].len(), 1);
                let v = got[k][0];
                if *msec {
                    assert_eq!(x.unit, "ms");
                    assert_eq!(
                        (v * 100.0).round() / 100.0,
                        *printed,
                        "{folder} {} run {k}",
                        x.name
                    );
                } else {
                    assert_eq!(
                        (x.unit.as_str(), v),
                        ("count", *printed),
                        "{folder} {} run {k}",
                        x.name
                    );
                }
            }
            // Between- and within-run statistics exist now that there are runs.
            assert!(x.execution_stats.is_some(), "{folder} {}", x.name);
            // perf's own figures of each run, in file order.
            let ts = x.tool_statistics.as_ref().unwrap();
            assert_eq!(
                ts["event_runtime"].as_array().map(Vec::len),
                Some(3),
                "{ts}"
            );
        }
        assert!(doc
            .description
            .unwrap()
            .contains("cycles (<not supported>)"));
    }
    // Files of different events: each event from the files that have it,
    // and a warning names the files that lack it.
    let mut e = entries("perf/runs-csv");
    e.sort_by(|a, b| a.0.cmp(&b.0));
    let first = String::from_utf8(e[0].1.clone()).unwrap();
    e[0].1 = first
        .lines()
        .filter(|l| !l.contains("page-faults"))
        .collect::<Vec<_>>()
        .join("\n")
        .into_bytes();
    let r = analyze_entries("runs-csv", &e, &Options::default());
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(series(&r, "page-faults").executions, 2);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("page-faults") && w.contains("run1.csv")),
        "{:?}",
        r.warnings
    );
}

/// hyperfine 1.20 records each run's peak memory: `COMMAND [max RSS]` in
/// bytes beside the times, each run one execution, the values the file's;
/// the times agree with what hyperfine printed (`memory-console.txt`).
#[test]
fn hyperfine_memory_is_a_series_in_bytes() {
    let rel = "hyperfine/memory.json";
    let r = report(rel);
    let doc = json(rel);
    let console = text("hyperfine/memory-console.txt");
    let printed: Vec<(f64, f64)> = console
        .lines()
        .filter_map(|l| {
            let rest = l.split("Time (mean ± σ):").nth(1)?;
            let f: Vec<&str> = rest.split_whitespace().collect();
            // "282.8 ms ±  29.1 ms"
            Some((f[0].parse().ok()?, f[3].parse().ok()?))
        })
        .collect();
    assert_eq!(printed.len(), 2, "{console}");
    for (res, (mean_ms, sd_ms)) in doc["results"].as_array().unwrap().iter().zip(printed) {
        let cmd = res["command"].as_str().unwrap();
        let t = series(&r, cmd);
        assert_eq!((t.unit.as_str(), t.executions), ("s", 5));
        assert_eq!((t.summary.mean * 1e4).round() / 10.0, mean_ms, "{cmd}");
        assert_eq!((sd(t) * 1e4).round() / 10.0, sd_ms, "{cmd}");
        let m = series(&r, &format!("{cmd} [max RSS]"));
        assert_eq!(
            (m.unit.as_str(), m.unit_ns, m.executions),
            ("bytes", None, 5)
        );
        let bytes: Vec<f64> = res["memory_usage_byte"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_f64().unwrap())
            .collect();
        close(
            m.summary.mean,
            bytes.iter().sum::<f64>() / bytes.len() as f64,
            "mean peak memory",
        );
        assert_eq!(m.summary.max, bytes.iter().cloned().fold(0.0, f64::max));
    }
}

/// `perf_stat::recognises` (which groups a folder's perf runs; the page has
/// the same test, tests/unit/intake.test.mjs) is true exactly for perf's
/// `-x,`, `-j` and printed-table fixtures.
#[test]
fn perf_stat_output_is_told_from_every_other_fixture() {
    let root = dir().join("..");
    let mut stack = vec![root.join("import"), root.join("compare")];
    let (mut perf, mut other) = (0, 0);
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if rel.ends_with(".gz") || rel.ends_with(".data") {
                continue;
            }
            let want = (rel.starts_with("import/perf/")
                && (rel.ends_with(".csv")
                    || rel.ends_with(".json")
                    || rel.ends_with(".report.txt")))
                || (rel.starts_with("import/real/perf-text/")
                    && (rel.ends_with(".txt") || rel.ends_with(".log")));
            let b = std::fs::read(&p).unwrap();
            assert_eq!(
                tickbook_analysis::import::perf_stat::recognises(&b),
                want,
                "{rel}"
            );
            if want {
                perf += 1;
            } else {
                other += 1;
            }
        }
    }
    assert!(
        perf >= 9 && other >= 30,
        "{perf} perf files, {other} others"
    );
}

fn refusal(name: &str, text: &str) -> String {
    match read_document(name, text.as_bytes()) {
        Ok(_) => panic!("{name} was read"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_file_no_reader_takes_names_the_format_it_most_looks_like_and_what_failed_there() {
    // Google Benchmark's benchmarks without its context.
    let m = refusal(
        "h.json",
        r#"{"benchmarks":[{"name":"x","real_time":3,"cpu_time":3,"time_unit":"ns"}]}"#,
    );
    assert!(
        m.contains("closest to Google Benchmark JSON")
            && m.contains("\"real_time\"")
            && m.contains("missing \"context\""),
        "{m}"
    );
    assert!(
        !m.contains("tried pyperf"),
        "one format, not the whole list: {m}"
    );
    // JMH's objects without their metric.
    let m = refusal("f.json", r#"[{"benchmark":"a.b","mode":"avgt"}]"#);
    assert!(
        m.contains("closest to JMH JSON") && m.contains("missing \"primaryMetric\""),
        "{m}"
    );
    // pytest-benchmark saved without its rounds: its own advice.
    let m = refusal(
        "i.json",
        r#"{"benchmarks":[{"name":"x","fullname":"t::x","stats":{"mean":1}}]}"#,
    );
    assert!(
        m.contains("closest to pytest-benchmark JSON") && m.contains("--benchmark-save-data"),
        "{m}"
    );
    // Nothing close: every format tried, and none named closest.
    let m = refusal("c.json", r#"{"foo":1,"benchmarks":[]}"#);
    assert!(
        !m.contains("closest") && m.contains("tried pyperf JSON"),
        "{m}"
    );
    // Text: Go's configuration lines with no result line that reads.
    let m = refusal(
        "k.txt",
        "goos: linux\ngoarch: amd64\nBenchmarkFoo 100 abc ns/op\n",
    );
    assert!(
        m.contains("It is closest to Go test -bench text (no result line"),
        "{m}"
    );
    let m = refusal("d.txt", "hello\nworld\n");
    assert!(!m.contains("closest"), "{m}");
}
