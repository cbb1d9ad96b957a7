//! The comparison's verdicts on real pairs made here
//! (`tests/fixtures/compare/`, README there) against each tool's own
//! comparison of the same files: Google Benchmark's compare.py (its U test
//! at 0.05, dumped with `--dump_to_json`), Criterion.rs's change report
//! (`change/estimates.json`, "Performance has regressed") and pyperf's
//! compare_to (its significance per benchmark). Every item measured in one
//! process gets a verdict. Series of one file against a reference: against
//! hyperfine's printed summary and compare.py's `filters` mode; two runs a
//! side against pyperf's merged files (`pyperf convert --add`).

use serde_json::Value;
use std::path::{Path, PathBuf};
use tickbook_analysis::read::read_document_within;
use tickbook_analysis::report::compare::series::{ReferenceChoice, RelativeSpeed};
use tickbook_analysis::report::compare::{
    compare_files, compare_sides, CompareSettings, ComparisonReport, ItemComparison,
    PairComparison, Rule, Verdict,
};
use tickbook_analysis::report::{compare_series_bytes, Options};

fn pairs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/compare")
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn json(p: &Path) -> Value {
    serde_json::from_slice(&read(p)).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn item<'a>(r: &'a ComparisonReport, key: &str) -> (&'a ItemComparison, &'a PairComparison) {
    let it = r.suites[0]
        .items
        .iter()
        .find(|i| i.key == key)
        .unwrap_or_else(|| panic!("no item {key}"));
    (it, &it.against_baseline[0])
}

/// Shown: the rule finds a difference that the ratio's CI agrees with.
fn shown(p: &PairComparison) -> bool {
    matches!(p.verdict, Verdict::Different | Verdict::WithinThreshold)
}

#[test]
fn google_benchmark_verdicts_agree_with_compare_py() {
    let dir = pairs().join("googlebench");
    let (o0, o2) = (read(&dir.join("O0.json")), read(&dir.join("O2.json")));
    let r = compare_files(
        &[("O0.json", &o0), ("O2.json", &o2)],
        &Options::default(),
        false,
    );
    let tool = json(&dir.join("compare.json"));
    let mut checked = 0;
    for b in tool.as_array().expect("compare.py's list") {
        // Its per-benchmark entries with a U test (not the aggregates).
        let Some(u) = b.get("utest").filter(|u| u.get("time_pvalue").is_some()) else {
            continue;
        };
        let name = b["name"].as_str().expect("name");
        for (which, key) in [("real_time", "time_pvalue"), ("cpu_time", "cpu_pvalue")] {
            let tool_p = u[key].as_f64().expect("p");
            let (_, p) = item(&r, &format!("{name} {which}"));
            assert_eq!(p.rule, Some(Rule::RankTest), "{name}");
            let ours = p.test.expect("a U test").p_value;
            // The same test on the same values: scipy's p to rounding.
            assert!(
                (ours - tool_p).abs() <= 1e-9 * tool_p.max(1e-300),
                "{name} {which}: p {ours} vs compare.py {tool_p}"
            );
            assert_eq!(shown(p), tool_p < 0.05, "{name} {which}: {:?}", p.verdict);
            // compare.py's change of the means, (new − old) / old, is on
            // its `_mean` row.
            let mean = tool
                .as_array()
                .and_then(|l| l.iter().find(|e| e["name"] == format!("{name}_mean")))
                .expect("a _mean row");
            let change = mean["measurements"][0][if which == "real_time" { "time" } else { "cpu" }]
                .as_f64()
                .expect("change");
            let ratio = p.ratio.as_ref().expect("a ratio").estimate;
            assert!(
                (ratio - 1.0 - change).abs() < 1e-9 * (1.0 + change.abs()),
                "{name} {which}: ratio {ratio} vs compare.py change {change}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 6, "three benchmarks, real and CPU time");
    // Every item of the pair has a verdict, none "no estimate".
    assert!(r.suites[0].items.iter().all(|i| !matches!(
        i.against_baseline[0].verdict,
        Verdict::NoEstimate | Verdict::Missing
    )));
}

/// A Criterion.rs tree's saved baseline `fib15/` (`--save-baseline fib15`)
/// and `new/` as the two bundles `tickbook analyze --compare DIR` makes of
/// them.
fn criterion_runs(root: &Path) -> (Vec<u8>, Vec<u8>) {
    let mut base = Vec::new();
    let mut new = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("folder") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p
                .strip_prefix(root)
                .expect("inside")
                .to_string_lossy()
                .replace('\\', "/");
            let parts: Vec<&str> = rel.split('/').collect();
            if parts.contains(&"fib15") {
                let renamed: Vec<&str> = parts
                    .iter()
                    .map(|c| if *c == "fib15" { "new" } else { c })
                    .collect();
                base.push((renamed.join("/"), read(&p)));
            } else if parts.contains(&"new") {
                new.push((rel, read(&p)));
            }
        }
    }
    (
        tickbook_analysis::import::folder_bundle(&base),
        tickbook_analysis::import::folder_bundle(&new),
    )
}

#[test]
fn criterion_verdict_agrees_with_its_change_report() {
    let dir = pairs().join("criterion");
    let (base, new) = criterion_runs(&dir.join("target-criterion"));
    let r = compare_files(
        &[("fib15", &base), ("new", &new)],
        &Options::default(),
        false,
    );
    assert_eq!(r.suites.len(), 1, "{:?}", r.files);
    let it = &r.suites[0].items[0];
    let p = &it.against_baseline[0];
    // Criterion: "Performance has regressed", p = 0.00 < 0.05.
    assert_eq!(p.verdict, Verdict::Different);
    assert_eq!(p.rule, Some(Rule::RankTest));
    assert_eq!(p.faster, Some(0), "fib(15), the baseline, is faster");
    assert!(p.test.expect("U test").p_value < 0.05);
    // Its change of the mean (new / base − 1) is our ratio of means less 1,
    // and its interval overlaps ours.
    let change = json(&dir.join("target-criterion/cmp/fib/change/estimates.json"));
    let mean = &change["mean"];
    let point = mean["point_estimate"].as_f64().expect("mean change");
    let ratio = p.ratio.as_ref().expect("ratio");
    assert!(
        (ratio.estimate - 1.0 - point).abs() < 1e-9,
        "ratio {} vs Criterion's change {point}",
        ratio.estimate
    );
    let (lo, hi) = (
        mean["confidence_interval"]["lower_bound"]
            .as_f64()
            .expect("lo"),
        mean["confidence_interval"]["upper_bound"]
            .as_f64()
            .expect("hi"),
    );
    assert!(
        ratio.lo - 1.0 <= hi && lo <= ratio.hi - 1.0,
        "{ratio:?} vs [{lo}, {hi}]"
    );
}

#[test]
fn pyperf_verdicts_agree_with_compare_to() {
    let dir = pairs().join("pyperf");
    let (a, b) = (read(&dir.join("a.json")), read(&dir.join("b.json")));
    let r = compare_files(
        &[("a.json", &a), ("b.json", &b)],
        &Options::default(),
        false,
    );
    // Warm-ups are not results: four benchmarks, four rows.
    assert_eq!(r.suites[0].items.len(), 4);
    assert_eq!(r.suites[0].warm_ups_left_out, 4);
    let tool = json(&dir.join("compare_to.json"));
    for (name, t) in tool.as_object().expect("per benchmark") {
        let (_, p) = item(&r, name);
        let significant = t["significant"].as_bool().expect("significant");
        assert_eq!(
            shown(p),
            significant,
            "{name}: {:?} vs compare_to {t}",
            p.verdict
        );
        // pyperf's ratio of means is ours.
        let ratio = t["ratio_of_means"].as_f64().expect("ratio");
        let ours = p.ratio.as_ref().expect("ratio").estimate;
        assert!(
            (ours - ratio).abs() < 1e-9 * ratio,
            "{name}: {ours} vs {ratio}"
        );
    }
}

/// hyperfine's relative speed as it prints it: `1.38 ± 0.33`.
fn speed(s: &RelativeSpeed) -> String {
    format!("{:.2} ± {:.2}", s.factor, s.factor_error.expect("an error"))
}

#[test]
fn hyperfine_series_agree_with_its_printed_summary() {
    let dir = pairs().join("hyperfine");
    let bytes = read(&dir.join("series.json"));
    let r = compare_series_bytes(
        "series.json",
        &bytes,
        None,
        &Options::default(),
        false,
        false,
    )
    .expect("series");
    assert_eq!(r.groups.len(), 1, "one unit: seconds");
    let g = &r.groups[0];
    // hyperfine's summary: "'A' ran" then "X ± E times faster than 'B'".
    let printed = String::from_utf8(read(&dir.join("hyperfine-output.txt"))).expect("text");
    let summary: Vec<&str> = printed
        .lines()
        .skip_while(|l| l.trim() != "Summary")
        .skip(1)
        .map(str::trim)
        .collect();
    assert_eq!(summary[0], format!("'{}' ran", g.series[0]), "the fastest");
    assert_eq!(g.reference, ReferenceChoice::Lowest);
    let lines = &summary[1..];
    assert_eq!(lines.len(), g.series.len() - 1);
    for line in lines {
        let (figure, rest) = line
            .split_once(" times faster than ")
            .expect("a summary line");
        let name = rest.trim_matches('\'');
        let k = g.series.iter().position(|s| s == name).expect("the series");
        let s = g.relative_speed[k - 1].expect("a relative speed");
        assert!(s.reference_lower);
        assert_eq!(speed(&s), figure, "{name}");
        // The engine's ratio of means is hyperfine's ratio too, and its
        // verdict (the rank test: one run per process) agrees with its CI.
        let p = &g.against_reference[k - 1];
        let ratio = p.ratio.as_ref().expect("a ratio");
        assert!((ratio.estimate - s.ratio).abs() < 1e-12 * s.ratio);
        assert_eq!(p.rule, Some(Rule::RankTest));
        assert_eq!(p.verdict, Verdict::Different, "{name}: {p:?}");
        assert_eq!(p.lower, Some(0));
    }
}

#[test]
fn series_in_one_file_agree_with_compare_py_filters_mode() {
    let dir = pairs().join("googlebench");
    let bytes = read(&dir.join("O2.json"));
    let tool = json(&dir.join("compare-filters.json"));
    let rows = tool.as_array().expect("compare.py's list");
    let row = |suffix: &str| {
        rows.iter()
            .find(|e| e["name"] == format!("[BM_Accumulate vs. BM_Sort/512]{suffix}"))
            .unwrap_or_else(|| panic!("no row {suffix:?}"))
    };
    for (which, p_key, change_key) in [
        ("real_time", "time_pvalue", "time"),
        ("cpu_time", "cpu_pvalue", "cpu"),
    ] {
        let reference = format!("BM_Accumulate {which}");
        let r = compare_series_bytes(
            "O2.json",
            &bytes,
            Some(&reference),
            &Options::default(),
            false,
            false,
        )
        .expect("series");
        let g = r
            .groups
            .iter()
            .find(|g| g.series[0] == reference)
            .expect("the reference's group");
        assert_eq!(g.reference, ReferenceChoice::Named);
        let k = g
            .series
            .iter()
            .position(|s| *s == format!("BM_Sort/512 {which}"))
            .expect("the contender");
        let p = &g.against_reference[k - 1];
        let tool_p = row("")["utest"][p_key].as_f64().expect("p");
        let ours = p.test.expect("a U test").p_value;
        assert!(
            (ours - tool_p).abs() <= 1e-9 * tool_p,
            "{which}: {ours} vs {tool_p}"
        );
        assert_eq!(
            matches!(p.verdict, Verdict::Different | Verdict::WithinThreshold),
            tool_p < 0.05
        );
        // compare.py's change of the means, (contender − baseline) / baseline.
        let change = row("_mean")["measurements"][0][change_key]
            .as_f64()
            .expect("change");
        let ratio = p.ratio.as_ref().expect("a ratio").estimate;
        assert!(
            (ratio - (1.0 + change)).abs() < 1e-9,
            "{which}: {ratio} vs 1 + {change}"
        );
        assert_eq!(p.lower, Some(0), "the reference is faster");
    }
}

/// pyperf's mean as `pyperf show` prints it: three significant digits in
/// its unit (`33.8 us`, `1.18 us`, `91.8 us`, `112 us`, `15.6 ns`).
fn pyperf_digits(seconds: f64) -> String {
    let (x, unit) = if seconds >= 1e-3 {
        (seconds * 1e3, "ms")
    } else if seconds >= 1e-6 {
        (seconds * 1e6, "us")
    } else {
        (seconds * 1e9, "ns")
    };
    let d = if x >= 100.0 {
        0
    } else if x >= 10.0 {
        1
    } else {
        2
    };
    format!("{x:.d$} {unit}")
}

#[test]
fn two_runs_per_side_agree_with_pyperf_merged_files() {
    let dir = pairs();
    let o = Options::default();
    let side = |names: [&str; 2]| {
        names
            .iter()
            .map(|n| {
                let b = read(&dir.join(n));
                (
                    n.to_string(),
                    read_document_within(n, &b, &o.limits).map_err(|e| e.to_string()),
                )
            })
            .collect::<Vec<_>>()
    };
    let sides = vec![
        side(["pyperf/a.json", "pyperf-runs/a2.json"]),
        side(["pyperf/b.json", "pyperf-runs/b2.json"]),
    ];
    let r = compare_sides(&sides, &o, CompareSettings::default());
    let runs = dir.join("pyperf-runs");
    let tool = json(&runs.join("compare_to.json"));
    let shown = String::from_utf8(read(&runs.join("show.txt"))).expect("text");
    let printed: Vec<&str> = shown
        .lines()
        .filter_map(|l| l.strip_prefix("Mean +- std dev: "))
        .map(|l| l.split(" +- ").next().expect("a mean"))
        .collect();
    let names = ["sort", "add_small", "sum", "join"];
    assert_eq!(printed.len(), 2 * names.len(), "{printed:?}");
    for (k, name) in names.iter().enumerate() {
        let (it, p) = item(&r, name);
        let t = &tool[name];
        // The pooled means are pyperf's means of the merged files.
        for (side, key, at) in [(0, "mean_a", k), (1, "mean_b", names.len() + k)] {
            let ours = it.values[side].expect("a value").estimate;
            let theirs = t[key].as_f64().expect("mean");
            assert!((ours - theirs).abs() <= 1e-12 * theirs, "{name} {key}");
            assert_eq!(pyperf_digits(ours), printed[at], "{name} {key}");
        }
        // 24 executions a side: the executions' rule.
        assert_eq!(p.rule, Some(Rule::DisjointCis), "{name}");
        let ratio = p.ratio.as_ref().expect("a ratio").estimate;
        let tool_ratio = t["ratio_of_means"].as_f64().expect("ratio");
        assert!((ratio - tool_ratio).abs() <= 1e-12 * tool_ratio, "{name}");
        assert!(t["significant"].as_bool().expect("significant"), "{name}");
    }
    // sort and add_small: B slower, as compare_to says.
    for name in ["sort", "add_small"] {
        let (_, p) = item(&r, name);
        assert_eq!(
            (p.verdict, p.faster),
            (Verdict::Different, Some(0)),
            "{name}"
        );
    }
    // sum and join are the same code on both sides (bench_ab.py): compare_to
    // calls the merged files' difference significant, its t-test taking the
    // 78 values as independent; the runs disagree with each other (first
    // pair: neither significant, compare_to.txt; second: sum 1.59x faster,
    // compare_to-run2.txt), and tickbook, comparing by execution, does not
    // call either different.
    for name in ["sum", "join"] {
        let (_, p) = item(&r, name);
        assert!(
            matches!(p.verdict, Verdict::Same | Verdict::Unclear),
            "{name}: {:?}",
            p.verdict
        );
    }
}
