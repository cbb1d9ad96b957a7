//! `tickbook history` as a user and a CI job run it, on per-commit files
//! written here with a known answer: the change found and printed as
//! `--json` has it, the order by the dates the files record, Markdown and
//! CSV rows, an unreadable file named and left out, and the gate
//! `--fail-if-regressed` exiting 3 only for a regression at the latest
//! commit, there and on the real measured files of tests/fixtures/history,
//! where the unchanged series and the disturbed commits show no change.

mod common;

use common::tickbook;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Output;

/// Commit `c` of one series at `level` with a fixed, commit-to-commit
/// wobble of ±0.4 % (deterministic: the test needs no generator) and
/// three executions; `date` is the run's.
fn write_commit(dir: &Path, name: &str, c: usize, level: f64, date: &str) -> PathBuf {
    let wobble = [0.0, 0.004, -0.003, 0.002, -0.004, 0.001, 0.003, -0.002][c % 8];
    let ex: Vec<Vec<f64>> = (0..3)
        .map(|e| {
            (0..4)
                .map(|k| level * (1.0 + wobble + 0.001 * (e as f64 - 1.0) + 0.0005 * k as f64))
                .collect()
        })
        .collect();
    let doc = json!({"format": "tickbook", "format_version": "1.3", "kind": "samples",
        "host": {"hostname": "ci", "date": date},
        "series": [{"name": "decode", "unit": "us", "executions": ex},
                   {"name": "encode", "unit": "us", "executions": [[50.0, 50.1], [50.2, 49.9]]}]});
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    path
}

/// A folder of `n` commits whose `decode` steps up 10 % from `step_at`;
/// names run backwards so that only the dates give the order.
fn history_dir(tag: &str, n: usize, step_at: usize) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("history-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for c in 0..n {
        let level = if c >= step_at { 110.0 } else { 100.0 };
        let date = format!("2026-03-{:02} 12:00:00", c + 1);
        write_commit(&dir, &format!("build-{:02}.json", n - c), c, level, &date);
    }
    dir
}

fn run(args: &[&std::ffi::OsStr]) -> Output {
    tickbook()
        .arg("history")
        .args(args)
        .output()
        .expect("tickbook runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_step_is_found_printed_and_ordered_by_date() {
    let dir = history_dir("step", 24, 12);
    let out = run(&[dir.as_os_str(), "--json".as_ref()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["order"], "run_date");
    assert!(r["files"][0]["name"]
        .as_str()
        .unwrap()
        .ends_with("build-24.json"));
    let s = &r["series"][0];
    assert_eq!(s["name"], "decode");
    assert_eq!(r["quiet"], 1);
    let c = &s["change_points"][0];
    assert_eq!(
        (c["index"].as_u64(), c["kind"].as_str()),
        (Some(12), Some("step"))
    );
    let ratio = c["ratio"]["estimate"].as_f64().unwrap();
    assert!((ratio - 1.10).abs() < 0.005, "{ratio}");
    // The terminal row carries the same change, in percent, at the same commit.
    let out = run(&[dir.as_os_str()]);
    let t = text(&out.stdout);
    let pct = format!("+{:.2}%", (ratio - 1.0) * 100.0);
    let row = t
        .lines()
        .find(|l| l.trim_start().starts_with("decode"))
        .unwrap_or_else(|| panic!("{t}"));
    assert!(
        row.contains(&pct) && row.contains("#12 build-12.json") && row.contains("regression"),
        "{row}\n{pct}"
    );
    assert!(
        t.contains("1 quiet") && t.contains("Order used: by run date"),
        "{t}"
    );
    let md = text(&run(&[dir.as_os_str(), "--format".as_ref(), "md".as_ref()]).stdout);
    assert!(
        md.lines()
            .any(|l| l.starts_with("| decode | step (regression) | #12 build-12.json")),
        "{md}"
    );
    let csv = text(&run(&[dir.as_os_str(), "--format".as_ref(), "csv".as_ref()]).stdout);
    let line = csv.lines().nth(1).unwrap_or_default();
    assert!(line.starts_with("decode,us,step,12,12,"), "{csv}");
}

#[test]
fn a_bad_file_is_named_and_the_rest_still_make_a_history() {
    let dir = history_dir("bad", 10, 20);
    let bad = dir.join("broken.json");
    std::fs::write(&bad, b"{\"format\": \"tickbook\", \"kind\": ").unwrap();
    let out = run(&[dir.as_os_str(), "--json".as_ref()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("broken.json"),
        "{}",
        text(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["files"].as_array().unwrap().len(), 10);
    assert_eq!(r["quiet"], 2);
    let two = [dir.join("build-01.json"), dir.join("build-02.json")];
    let out = run(&[two[0].as_os_str(), two[1].as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("three or more"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_gate_fails_a_regression_at_the_latest_commit_only() {
    let gate = |dir: &Path, pct: &str| {
        let out = run(&[
            dir.as_os_str(),
            "--fail-if-regressed".as_ref(),
            pct.as_ref(),
        ]);
        (out.status.code(), text(&out.stderr))
    };
    let latest = history_dir("latest", 16, 15);
    let (code, err) = gate(&latest, "5");
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains("regressed: decode is +9.") && err.contains("build-01.json"),
        "{err}"
    );
    assert_eq!(gate(&latest, "15%").0, Some(0));
    let earlier = history_dir("earlier", 16, 8);
    assert_eq!(gate(&earlier, "5").0, Some(0));
}

/// The study's real per-commit files (tests/fixtures/history): up to
/// commit 73 nothing regressed at the latest commit; with commit 74, which
/// ran under a CPU burst (every run about twice as long), the gate trips —
/// for each tool's files.
#[test]
fn the_gate_on_real_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/history");
    for tool in ["hyperfine", "pyperf", "tickbook"] {
        let files: Vec<PathBuf> = (0..75)
            .map(|c| root.join(tool).join(format!("commit-{c:03}.json")))
            .collect();
        let run_on = |upto: usize| {
            let out = tickbook()
                .arg("history")
                .args(&files[..upto])
                .args(["--fail-if-regressed", "20"])
                .output()
                .expect("tickbook runs");
            (out.status.code(), text(&out.stderr))
        };
        let (code, err) = run_on(74);
        assert_eq!(code, Some(0), "{tool}: {err}");
        let (code, err) = run_on(75);
        assert_eq!(code, Some(3), "{tool}: {err}");
        assert!(
            err.contains("commit-074.json (more than 20%)"),
            "{tool}: {err}"
        );
    }
}

/// The study's real files, all 80 commits, of both measured histories:
/// the unchanged series `aa` has no change on any tool's files, and no
/// change starts at a commit measured under the CPU burst (10, 55, 74) or
/// at the one after it.
#[test]
fn real_files_keep_the_unchanged_series_and_the_bursts_quiet() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    for study in ["history", "history-2"] {
        for tool in ["hyperfine", "pyperf", "tickbook"] {
            quiet_where_nothing_changed(
                &fixtures.join(study).join(tool),
                &format!("{study}/{tool}"),
            );
        }
    }
}

/// [`real_files_keep_the_unchanged_series_and_the_bursts_quiet`] on one
/// tool's 80 files in `dir`.
fn quiet_where_nothing_changed(dir: &Path, tool: &str) {
    let files: Vec<PathBuf> = (0..80)
        .map(|c| dir.join(format!("commit-{c:03}.json")))
        .collect();
    let out = tickbook()
        .args(["history", "--json", "--order", "given"])
        .args(&files)
        .output()
        .expect("tickbook runs");
    assert_eq!(out.status.code(), Some(0), "{tool}: {}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    let series = report["series"].as_array().expect("series");
    assert_eq!(series.len(), 3, "{tool}");
    for s in series {
        let changes = s["change_points"].as_array().expect("change_points");
        if s["name"] == "aa" {
            assert!(changes.is_empty(), "{tool}: aa {changes:?}");
        }
        for c in changes {
            let i = c["index"].as_u64().expect("index");
            assert!(
                ![10, 11, 55, 56, 74, 75].contains(&i),
                "{tool}: {} changes at a burst: {c}",
                s["name"]
            );
        }
    }
}
