//! `tickbook analyze` in the terminal: every cell of every importer fixture
//! and hand-written fixture printed as tables whose numbers agree with
//! `--json`; `--compare` reading folders as plain `analyze` does. (The
//! freshly collected suites are checked the same way by the `collect_*`
//! tests, on the files they collect.)

mod common;

use common::{comparison_agrees_with_json, terminal_agrees_with_json, tickbook};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

/// One real file of every importer format (tests/e2e/harness.mjs
/// IMPORT_FIXTURES, with `more`, and tests/e2e/import.test.mjs's PRINTED):
/// each tool's files, the Criterion.rs folders and the folders of perf
/// stat runs.
fn import_fixtures() -> Vec<PathBuf> {
    let import = fixtures().join("import");
    [
        "pyperf/timeit.json",
        "pyperf/suite.json",
        "jmh/result.json",
        "googlebench/repetitions.json",
        "hyperfine/sleep.json",
        "hyperfine/param.json",
        "criterion/cargo-criterion.ndjson",
        "criterion/target-criterion",
        "pyperf/gz/timeit.json.gz",
        "googlebench/aggregates.json",
        "googlebench/complexity.json",
        "hyperfine/exit-codes.json",
        "criterion/target-criterion-flat",
        "pytest-benchmark/pytest.json",
        "gobench/go-bench.txt",
        "gobench/go-bench.json",
        "perf/perf-stat.csv",
        "perf/perf-stat.json",
        "perf/runs-csv",
        "perf/runs-json",
        "hyperfine/memory.json",
    ]
    .iter()
    .map(|f| import.join(f))
    .collect()
}

#[test]
fn every_importer_fixture_prints_its_cells_as_the_json_has_them() {
    for f in import_fixtures() {
        let seen = terminal_agrees_with_json(&[&f]);
        assert_eq!(seen, ["samples"], "{}", f.display());
    }
}

#[test]
fn hand_written_fixtures_print_every_cell_as_the_json_has_it() {
    let mut seen = Vec::new();
    for f in [
        "run-clocks.json",
        "samples-3x5.json",
        "trace-small.json",
        "hostile-names.json",
        "run-bernoulli-stressed.json",
        "run-commands.json",
    ] {
        seen.extend(terminal_agrees_with_json(&[fixtures().join(f)]));
    }
    for cell in ["clocks", "samples", "trace", "bernoulli", "commands"] {
        assert!(
            seen.iter().any(|s| s == cell),
            "{cell} not checked: {seen:?}"
        );
    }
}

/// A name from a file cannot drive the terminal: control characters are
/// printed escaped.
#[test]
fn control_characters_in_names_are_escaped() {
    let dir = std::env::temp_dir().join(format!("tickbook-term-esc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("esc.json");
    std::fs::write(
        &file,
        r#"{"format":"tickbook","format_version":"1.0","kind":"samples",
            "series":[{"name":"evil\u001b[2Jname\nsecond line","unit":"ns","executions":[[1,2,3]]}]}"#,
    )
    .expect("write the file");
    let out = tickbook()
        .arg("analyze")
        .arg(&file)
        .output()
        .expect("run tickbook");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(!text.contains('\u{1b}'), "{text}");
    assert!(text.contains(r"evil\u{1b}[2Jname\nsecond line"), "{text}");
}

/// `--compare` reads its FILEs through the same loader as `analyze`: the
/// Criterion.rs folder beside cargo-criterion's file of the same benchmarks,
/// and a folder of result files (each file in it one input).
#[test]
fn compare_accepts_a_criterion_folder_and_a_folder_of_result_files() {
    let crit = fixtures().join("import/criterion");
    let json = comparison_agrees_with_json(&[
        crit.join("target-criterion"),
        crit.join("cargo-criterion.ndjson"),
    ]);
    let files = json["files"].as_array().expect("files");
    assert_eq!(files.len(), 2);
    assert!(files.iter().all(|f| f["ok"] == true), "{files:?}");
    let items = json["suites"][0]["items"].as_array().expect("items");
    assert_eq!(items.len(), 2, "both benchmarks matched by name");

    // A folder of result files: two copies of one samples file, pooled.
    let dir = std::env::temp_dir().join(format!("tickbook-term-cmp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for name in ["a.json", "b.json"] {
        std::fs::copy(fixtures().join("samples-3x5.json"), dir.join(name)).expect("copy");
    }
    let json = comparison_agrees_with_json(&[std::ffi::OsStr::new("--pool"), dir.as_os_str()]);
    let _ = std::fs::remove_dir_all(&dir);
    let names = common::compared_names(&json);
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names[0].ends_with("a.json") && names[1].ends_with("b.json"));
    // The same data twice: every item the same, ratio 1.
    for it in json["suites"][0]["items"].as_array().expect("items") {
        assert_eq!(it["against_baseline"][0]["verdict"], "same", "{it}");
        assert_eq!(it["against_baseline"][0]["ratio"]["estimate"], 1.0);
    }
    assert!(!json["pooled"].as_array().expect("pooled").is_empty());
}

/// `analyze` reads a folder of result files as its files.
#[test]
fn analyze_reads_a_folder_of_result_files_as_its_files() {
    let seen = terminal_agrees_with_json(&[fixtures().join("import/hyperfine")]);
    assert_eq!(seen, ["samples"; 4]);
}

/// An importer's warnings (a command whose every run failed, a file of
/// aggregates only) are printed with the file, as `--json` has them.
#[test]
fn import_warnings_are_printed() {
    for f in ["hyperfine/exit-codes.json", "googlebench/aggregates.json"] {
        let (text, json) = common::analyze_both(&[fixtures().join("import").join(f)], 0);
        let warnings = json[0]["warnings"].as_array().expect("warnings");
        assert!(!warnings.is_empty(), "{f}: a warning");
        for w in warnings {
            let line = format!("   warning: {}", w.as_str().unwrap());
            assert!(text.lines().any(|l| l == line), "{f}: {line} not printed");
        }
    }
}

/// Counts are whole numbers and print as such (`90 count`, `320 B/op`,
/// `1 allocs/op`, counters `[64, 64, 64]`), never as `90.000 count`;
/// fractional values keep their significant digits.
#[test]
fn whole_counts_print_as_integers() {
    let import = fixtures().join("import");
    let (text, _) = common::analyze_both(&[import.join("perf/perf-stat.csv")], 0);
    let lines: Vec<&str> = text.lines().collect();
    let t = common::table(&lines, &["series", "executions", "n", "min"]);
    for (event, shown) in [
        ("context-switches", "90 count"),
        ("cpu-migrations", "28 count"),
        ("page-faults", "9380 count"),
    ] {
        let row = t.row(&[event]);
        for col in ["min", "median", "mean", "max"] {
            assert_eq!(t.get(row, col), shown, "{event} {col}");
        }
    }
    assert_eq!(t.get(t.row(&["task-clock"]), "mean"), "201.2 ms");
    assert!(
        text.contains("pcnt_running 100,") || text.contains("pcnt_running 100\n"),
        "{text}"
    );

    let (text, _) = common::analyze_both(&[import.join("gobench/go-bench.txt")], 0);
    let lines: Vec<&str> = text.lines().collect();
    let t = common::table(&lines, &["series", "executions", "n", "min"]);
    assert_eq!(
        t.get(t.row(&["BenchmarkJoin [B/op]"]), "median"),
        "320 B/op"
    );
    assert_eq!(
        t.get(t.row(&["BenchmarkJoin [allocs/op]"]), "median"),
        "1 allocs/op"
    );
    assert_eq!(
        t.get(t.row(&["BenchmarkJoin [MB/s]"]), "median"),
        "329.18 MB/s"
    );

    let (text, _) = common::analyze_both(&[import.join("googlebench/complexity.json")], 0);
    assert!(text.contains("counters.len [64, 64, 64]"), "{text}");
    assert!(
        text.contains("iterations [401214, 401214, 401214]"),
        "{text}"
    );
}
