//! `tickbook analyze --compare` as a CI job runs it, on the real pairs of
//! `tests/fixtures/compare/`: `--fail-if-slower` exits 0 when the new build
//! is faster and 3 when it is slower; a Criterion.rs folder holding a saved
//! baseline beside `new/` compares the two; the Markdown and CSV tables carry units
//! and uncertainty; hyperfine 1.20's peak memory compares as memory (MiB,
//! larger or smaller); the terminal agrees with `--json`.

mod common;

use common::{compared_names, comparison_agrees_with_json, tickbook};
use std::path::{Path, PathBuf};
use std::process::Output;

fn pairs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/compare")
}

fn run(args: &[&std::ffi::OsStr]) -> Output {
    tickbook()
        .arg("analyze")
        .arg("--compare")
        .args(args)
        .output()
        .expect("tickbook runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn fail_if_slower_gates_a_ci_job() {
    let gb = pairs().join("googlebench");
    let (o0, o2) = (gb.join("O0.json"), gb.join("O2.json"));
    let gate = std::ffi::OsStr::new("--fail-if-slower");
    let pct = std::ffi::OsStr::new("5%");
    // -O0 as the baseline, -O2 new: faster everywhere, the gate passes.
    let out = run(&[o0.as_os_str(), o2.as_os_str(), gate, pct]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("slower"));
    // -O2 as the baseline, -O0 new: slower, the gate trips with status 3
    // and names the items.
    let out = run(&[o2.as_os_str(), o0.as_os_str(), gate, pct]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("slower: samples: BM_Sort/512 real_time is B slower than A"),
        "{err}"
    );
    assert!(err.contains("--fail-if-slower"), "{err}");
    // Above the largest slow-down nothing trips.
    let out = run(&[
        o2.as_os_str(),
        o0.as_os_str(),
        gate,
        std::ffi::OsStr::new("10000"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // A bad percentage is a usage error.
    let out = run(&[
        o2.as_os_str(),
        o0.as_os_str(),
        gate,
        std::ffi::OsStr::new("x"),
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_criterion_folder_compares_its_saved_baseline_with_new() {
    let dir = pairs().join("criterion/target-criterion");
    let out = run(&[
        dir.as_os_str(),
        std::ffi::OsStr::new("--json"),
        std::ffi::OsStr::new("--fail-if-slower"),
        std::ffi::OsStr::new("5"),
    ]);
    // fib(16) in new/ against fib(15) in fib15/: slower, the gate trips.
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let names = compared_names(&json);
    assert!(
        names[0].ends_with("(fib15)") && names[1].ends_with("(new)"),
        "{names:?}"
    );
    let p = &json["suites"][0]["items"][0]["against_baseline"][0];
    assert_eq!(p["verdict"], "different", "{p}");
    assert_eq!(p["lower"], 0, "the baseline, fib(15), is lower");
    assert_eq!(p["rule"], "rank_test");
    // The terminal's table agrees with the JSON.
    comparison_agrees_with_json(&[dir]);
}

#[test]
fn markdown_and_csv_tables_carry_units_and_uncertainty() {
    let py = pairs().join("pyperf");
    let (a, b) = (py.join("a.json"), py.join("b.json"));
    let out = run(&[
        a.as_os_str(),
        b.as_os_str(),
        std::ffi::OsStr::new("--format"),
        std::ffi::OsStr::new("md"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let md = text(&out.stdout);
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| sort ")).collect();
    assert_eq!(rows.len(), 1, "{md}");
    // `| sort | 1.234 µs [1.230, 1.240] | … |`: a scaled time with its CI.
    let cells: Vec<&str> = rows[0].split(" | ").collect();
    assert!(
        cells[1].contains(" ns [") || cells[1].contains(" µs ["),
        "{}",
        rows[0]
    );
    assert!(!md.contains("0.0000 s"), "{md}");
    assert!(md.contains("| --- |"), "{md}");
    // Warm-ups are left out and said to be.
    assert!(!md.contains("[warm-up]"), "{md}");
    assert!(md.contains("warm-up series left out"), "{md}");

    let out = run(&[
        a.as_os_str(),
        b.as_os_str(),
        std::ffi::OsStr::new("--format"),
        std::ffi::OsStr::new("csv"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let csv = text(&out.stdout);
    let mut lines = csv.lines();
    assert!(lines
        .next()
        .is_some_and(|h| h.starts_with("suite,item,unit,quantity,baseline,file,")));
    assert_eq!(lines.count(), 4, "one row per benchmark: {csv}");

    // The terminal's table agrees with the JSON, warm-ups or not.
    comparison_agrees_with_json(&[a.as_os_str(), b.as_os_str()]);
    comparison_agrees_with_json(&[
        a.as_os_str(),
        b.as_os_str(),
        std::ffi::OsStr::new("--warm-ups"),
    ]);
}

/// hyperfine 1.20's peak memory (`[max RSS]`, bytes) compares as memory:
/// scaled to MiB with its interval, "larger", never "slower"; the time
/// beside it stays a time; `--fail-if-slower` is not tripped by memory.
#[test]
fn hyperfine_memory_rows_are_mib_and_larger() {
    let hf = pairs().join("hyperfine");
    let (a, b) = (hf.join("a.json"), hf.join("b.json"));
    let out = run(&[a.as_os_str(), b.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    let mem = table
        .lines()
        .find(|l| l.contains("[max RSS]"))
        .unwrap_or_else(|| panic!("no memory row in:\n{table}"));
    assert!(mem.contains("16.974 MiB [16.953, 16.995]"), "{mem}");
    assert!(mem.contains("51.193 MiB [51.180, 51.206]"), "{mem}");
    assert!(mem.contains("B 3.02× larger"), "{mem}");
    assert!(!mem.contains("slower") && !mem.contains("faster"), "{mem}");
    comparison_agrees_with_json(&[a.clone(), b.clone()]);
    // B is 69 % slower in time: a 100 % gate passes, though memory tripled.
    let out = run(&[
        a.as_os_str(),
        b.as_os_str(),
        std::ffi::OsStr::new("--fail-if-slower"),
        std::ffi::OsStr::new("100"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}
