//! `tickbook analyze --compare-series` and `--compare … --vs …` run as a
//! user runs them, on the real fixtures of `tests/fixtures/compare/`: the
//! series summary prints hyperfine's own summary lines for the same file;
//! `--reference` names the reference and an unknown name is refused with
//! the series listed; two runs a side print pyperf's merged means.

mod common;

use common::tickbook;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/compare")
}

fn analyze(args: &[&str], files: &[PathBuf]) -> (Option<i32>, String, String) {
    let out = tickbook()
        .arg("analyze")
        .args(args)
        .args(files)
        .output()
        .expect("tickbook runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn series_summary_prints_hyperfines_lines() {
    let dir = fixtures().join("hyperfine");
    let (code, out, err) = analyze(&["--compare-series"], &[dir.join("series.json")]);
    assert_eq!(code, Some(0), "{err}");
    let printed = std::fs::read_to_string(dir.join("hyperfine-output.txt")).expect("output");
    let summary: Vec<&str> = printed
        .lines()
        .skip_while(|l| l.trim() != "Summary")
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(summary.len(), 3, "{printed}");
    let ours: Vec<&str> = out.lines().map(str::trim).collect();
    for line in &summary {
        assert!(ours.contains(line), "{line:?} not in\n{out}");
    }
    // A named reference; an unknown one lists the series.
    let (code, out, err) = analyze(
        &[
            "--compare-series",
            "--reference",
            "sleep 0.01",
            "--format",
            "csv",
        ],
        &[dir.join("series.json")],
    );
    assert_eq!(code, Some(0), "{err}");
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(rows.iter().all(|r| r.starts_with("s,sleep 0.01,")), "{out}");
    let (code, _, err) = analyze(
        &["--compare-series", "--reference", "sleep 1"],
        &[dir.join("series.json")],
    );
    assert_eq!(code, Some(1));
    assert!(
        err.contains("\"sleep 1\"") && err.contains("\"sleep 0.005\""),
        "{err}"
    );
    // Two files are not one file's series.
    let (code, _, err) = analyze(
        &["--compare-series"],
        &[dir.join("series.json"), dir.join("series.json")],
    );
    assert_eq!(code, Some(2), "{err}");
}

#[test]
fn two_runs_a_side_print_pyperfs_merged_means() {
    let c = fixtures();
    let out = tickbook()
        .args(["analyze", "--compare", "--json"])
        .arg(c.join("pyperf/a.json"))
        .arg(c.join("pyperf-runs/a2.json"))
        .arg("--vs")
        .arg(c.join("pyperf/b.json"))
        .arg(c.join("pyperf-runs/b2.json"))
        .output()
        .expect("tickbook runs");
    assert_eq!(out.status.code(), Some(0));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(r["files"].as_array().map(Vec::len), Some(2));
    assert_eq!(r["files"][0]["parts"].as_array().map(Vec::len), Some(2));
    let tool: serde_json::Value = serde_json::from_slice(
        &std::fs::read(c.join("pyperf-runs/compare_to.json")).expect("compare_to.json"),
    )
    .expect("JSON");
    let items = r["suites"][0]["items"].as_array().expect("items");
    assert_eq!(items.len(), 4, "warm-ups left out");
    for it in items {
        let name = it["key"].as_str().expect("key");
        for (k, key) in [(0, "mean_a"), (1, "mean_b")] {
            let ours = it["values"][k]["estimate"].as_f64().expect("value");
            let theirs = tool[name][key].as_f64().expect("mean");
            assert!((ours - theirs).abs() <= 1e-12 * theirs, "{name} {key}");
        }
    }
    // --vs is for --compare, and not with --pool.
    let (code, _, _) = analyze(&["--vs"], &[c.join("pyperf/a.json")]);
    assert_eq!(code, Some(2));
}
