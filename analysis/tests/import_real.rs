//! Result files other people wrote with the tools and committed to public
//! repositories (tests/fixtures/import/real, each folder's README gives the
//! source): every benchmark's mean and median equal the tool's own figure
//! (`expected.json` beside the files: what the tool printed or stored, or
//! for Go and perf the value on each line) to 1e-9 relative, and files with
//! nothing to read are refused with a message a user can act on.

use serde_json::Value;
use std::path::{Path, PathBuf};
use tickbook_analysis::report::{analyze_bytes, analyze_entries, FileReport, Options};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/import/real")
}

fn bytes(rel: &str) -> Vec<u8> {
    std::fs::read(dir().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// A folder's files as (path relative to it, bytes), as the command line
/// and the page hand a folder to the analysis.
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
    out.sort();
    out
}

/// Seconds per unit of a time unit as the tools and tickbook write them.
fn seconds(unit: &str) -> Option<f64> {
    Some(match unit {
        "ns" | "ns/op" => 1e-9,
        "us" | "us/op" | "µs/op" => 1e-6,
        "ms" | "ms/op" | "msec" => 1e-3,
        "s" | "s/op" | "second" | "seconds" => 1.0,
        _ => return None,
    })
}

/// The tool's figure in tickbook's unit for the series.
fn in_unit(x: f64, tool_unit: &str, unit: &str) -> f64 {
    match (seconds(tool_unit), seconds(unit)) {
        (Some(a), Some(b)) => x * a / b,
        _ => {
            // Not a time: the unit is kept as the tool wrote it (a count is
            // written without one).
            assert!(
                tool_unit == unit || (tool_unit.is_empty() && unit == "count"),
                "unit {unit:?} for the tool's {tool_unit:?}"
            );
            x
        }
    }
}

fn close(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 1e-9 * b.abs() || a == b,
        "{what}: tickbook {a} vs the tool's {b}"
    );
}

/// Check every entry of `folder/expected.json` whose file `report_of`
/// reads; returns how many series were checked.
fn check(folder: &str, report_of: &dyn Fn(&str) -> FileReport) -> usize {
    let expected: Value =
        serde_json::from_slice(&bytes(&format!("{folder}/expected.json"))).unwrap();
    let mut checked = 0;
    let mut reports: Vec<(String, FileReport)> = Vec::new();
    for e in expected.as_array().unwrap() {
        let file = e["file"].as_str().unwrap();
        if !reports.iter().any(|(f, _)| f == file) {
            let r = report_of(file);
            assert!(r.ok, "{folder}/{file}: {:?}", r.error);
            // The tool's statistics agree with its samples in every real file.
            assert!(
                !r.warnings
                    .iter()
                    .any(|w| w.contains("the mean of its samples")),
                "{folder}/{file}: {:?}",
                r.warnings
            );
            reports.push((file.to_string(), r));
        }
        let r = &reports.iter().find(|(f, _)| f == file).unwrap().1;
        let name = e["series"].as_str().unwrap();
        let all = &r.samples.as_ref().unwrap().series;
        let s = all.iter().find(|x| x.name == name).unwrap_or_else(|| {
            panic!(
                "{folder}/{file}: no series {name:?} in {:?}",
                all.iter().map(|x| &x.name).collect::<Vec<_>>()
            )
        });
        let tool_unit = e["tool_unit"].as_str().unwrap();
        let what = format!("{folder}/{file} {name}");
        close(
            s.summary.mean,
            in_unit(e["mean"].as_f64().unwrap(), tool_unit, &s.unit),
            &format!("{what} mean"),
        );
        close(
            s.summary.median,
            in_unit(e["median"].as_f64().unwrap(), tool_unit, &s.unit),
            &format!("{what} median"),
        );
        checked += 1;
    }
    checked
}

fn file_report(folder: &str) -> impl Fn(&str) -> FileReport + '_ {
    move |file: &str| {
        let rel = format!("{folder}/{file}");
        analyze_bytes(&rel, &bytes(&rel), &Options::default())
    }
}

#[test]
fn go_configurations_are_kept_apart_as_benchstat_keeps_them() {
    assert_eq!(check("go", &file_report("go")), 6);
    // The example: before 114.8 ns, after 78.8 ns, never pooled.
    let r = file_report("go")("issue19634.txt");
    let names: Vec<_> = r
        .samples
        .as_ref()
        .unwrap()
        .series
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "BenchmarkFloatSub/100 (note=before)",
            "BenchmarkFloatSub/100 (note=after)"
        ]
    );
}

#[test]
fn pyperf_and_google_benchmark_test_files_match_their_tools() {
    assert_eq!(check("pyperf", &file_report("pyperf")), 4);
    assert_eq!(check("googlebench", &file_report("googlebench")), 28);
}

#[test]
fn criterion_0_3_folders_match_their_estimates() {
    let report = |folder: &str| {
        let rel = format!("criterion-0.3/{folder}");
        analyze_entries(&rel, &entries(&rel), &Options::default())
    };
    assert_eq!(check("criterion-0.3", &report), 6);
    let r = report("hash_vs_btree_memoization");
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn jmh_files_match_score_and_median_and_an_empty_fork_is_a_warning() {
    assert_eq!(check("jmh", &file_report("jmh")), 54);
    // JMH's own golden output: two secondary metrics have a fork with no
    // iterations; they are named, everything else is read.
    let r = file_report("jmh")("output-golden.json");
    assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
    assert!(
        r.warnings[0].contains("benchmark_0")
            && r.warnings[0].contains("secondary3")
            && r.warnings[0].contains("[0].secondaryMetrics[\"secondary3\"].rawData[2]")
            && r.warnings[0].contains("a fork with no iterations"),
        "{:?}",
        r.warnings
    );
    assert!(r.warnings[1].contains("[3].secondaryMetrics[\"secondary3\"].rawData[3]"));
}

#[test]
fn perf_stat_printed_tables_match_the_value_on_each_line() {
    assert_eq!(check("perf-text", &file_report("perf-text")), 30);
    // `-r 10` in a pt_BR locale: perf's relative deviation and the runs.
    let r = file_report("perf-text")("meas.log");
    let s = r.samples.as_ref().unwrap();
    let cycles = s.series.iter().find(|x| x.name == "cycles").unwrap();
    assert_eq!(cycles.unit, "count");
    let r = file_report("perf-text")("base_r_stats.txt");
    assert!(r.ok && r.warnings.is_empty(), "{:?}", r.warnings);
}

/// The message of a file refused.
fn refusal(rel: &str) -> String {
    let r = analyze_bytes(rel, &bytes(rel), &Options::default());
    assert!(!r.ok, "{rel} was read");
    r.error.unwrap().to_string()
}

#[test]
fn test2json_streams_without_package_load_or_say_why_not() {
    assert_eq!(check("test2json", &file_report("test2json")), 1);
    let e = refusal("test2json/benchfail.json");
    assert!(
        e.contains("go test -json stream: no benchmark result: line 2: \"--- FAIL: BenchmarkFoo\""),
        "{e}"
    );
    let e = refusal("test2json/panic.json");
    assert!(
        e.contains("the test binary panicked (line 3: \"panic: oops [recovered]\")"),
        "{e}"
    );
    let e = refusal("test2json/benchshort.json");
    assert!(
        e.contains("the stream ends in the middle of a result line (the output, line 5)"),
        "{e}"
    );
    // A benchmark's results, then a panic: read, with a warning naming the line.
    let mut both = bytes("test2json/bench.json");
    both.extend(bytes("test2json/panic.json"));
    let r = analyze_bytes("both.json", &both, &Options::default());
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(
        r.warnings[0].contains("at line 18") && r.warnings[0].contains("panicked"),
        "{:?}",
        r.warnings
    );
}

#[test]
fn a_file_whose_statistics_contradict_its_samples_is_named() {
    // cargo-criterion's stream with one benchmark's measured values
    // replaced by hand (one ns per iteration).
    let real = std::fs::read_to_string(dir().join("../criterion/cargo-criterion.ndjson")).unwrap();
    let mut edited = Vec::new();
    let mut id = String::new();
    let mut mean = 0.0;
    for line in real.lines() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if id.is_empty() && v["reason"] == "benchmark-complete" {
            id = v["id"].as_str().unwrap().to_string();
            mean = v["mean"]["estimate"].as_f64().unwrap();
            v["measured_values"] = v["iteration_count"].clone();
        }
        edited.push(v.to_string());
    }
    let r = analyze_bytes(
        "edited.ndjson",
        edited.join("\n").as_bytes(),
        &Options::default(),
    );
    assert!(r.ok, "{:?}", r.error);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    let w = &r.warnings[0];
    assert!(
        w.contains(&format!("\"{id}\": the file's own mean is")),
        "{w}"
    );
    assert!(w.contains("but the mean of its samples is 1 ns"), "{w}");
    assert!(
        w.contains(".mean.estimate") && w.contains("tickbook shows the samples' figures"),
        "{w}"
    );
    assert!(mean > 10.0, "{mean}");
    let s = r
        .samples
        .as_ref()
        .unwrap()
        .series
        .iter()
        .find(|s| s.name == id)
        .unwrap();
    assert_eq!(s.summary.mean, 1.0);
}

#[test]
fn files_with_nothing_to_read_say_what_to_do() {
    let e = refusal("pytest-benchmark/0001_saved-without-data.json");
    assert!(
        e.contains("has only pytest-benchmark's statistics, not its rounds")
            && e.contains("--benchmark-save-data"),
        "{e}"
    );
    // A cargo-criterion stream in which no benchmark completed.
    let stream = "{\"reason\":\"group-complete\",\"group_name\":\"fib\",\"benchmarks\":[],\"report_directory\":\"x\"}\n";
    let r = analyze_bytes("s.ndjson", stream.as_bytes(), &Options::default());
    let e = r.error.unwrap().to_string();
    assert!(
        e.contains("no benchmark-complete message (the stream holds group-complete ×1)")
            && e.contains("cargo criterion --message-format=json"),
        "{e}"
    );
}

#[test]
fn a_stream_no_reader_accepts_names_the_closest_format_without_contradiction() {
    let stream = b"{\"Action\":\"weird\"}\n{\"Action\":\"weird\"}\n";
    let r = analyze_bytes("s.json", stream, &Options::default());
    let e = r.error.unwrap().to_string();
    assert!(
        e.contains("line 1 (\"{\"Action\":\"weird\"}\") has \"Action\", as a go test -json stream line has, but its \"Action\" \"weird\" is not one go test writes"),
        "{e}"
    );
    assert!(!e.contains("is not an object with"), "{e}");
    let stream = b"{\"counter-value\":\"1\"}\n{\"counter-value\":\"2\"}\n";
    let e = analyze_bytes("p.json", stream, &Options::default())
        .error
        .unwrap()
        .to_string();
    assert!(
        e.contains("as a perf stat -j JSON line has, but it has no \"event\""),
        "{e}"
    );
}
