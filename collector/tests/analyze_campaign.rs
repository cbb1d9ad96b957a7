//! `tickbook analyze --campaign` on generated files with a known answer:
//! four machines of three executions each, one machine 15 % slower. The
//! outlier is the one that stands out, the machine level holds most of the
//! variance, the F test finds the machine effect, and the terminal's
//! shares, means, factors, intervals and p-values equal `--json`'s to the
//! digits printed.

mod common;

use common::{agree, analyze_both, arr, f, num};
use serde_json::{json, Value};

/// A small deterministic generator (no rand in the collector's tests).
fn noise(state: &mut u64) -> f64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*state >> 11) as f64 / (1u64 << 53) as f64) - 0.5
}

#[test]
fn machines_side_by_side_and_the_variance_split() {
    let dir = std::env::temp_dir().join(format!("tickbook-campaign-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut s = 7u64;
    for m in 0..4 {
        let machine = 100.0 + 2.0 * noise(&mut s) + if m == 3 { 15.0 } else { 0.0 };
        for e in 0..3 {
            let execution = machine + noise(&mut s);
            let values: Vec<f64> = (0..40).map(|_| execution + 0.5 * noise(&mut s)).collect();
            let file = json!({
                "format": "tickbook", "format_version": "1.0", "kind": "samples",
                "host": {"hostname": format!("node{m}")},
                "series": [{"name": "x", "unit": "ns", "executions": [values]}],
            });
            std::fs::write(dir.join(format!("n{m}-e{e}.json")), file.to_string()).expect("write");
        }
    }
    let args = ["--campaign".to_string(), dir.display().to_string()];
    let (text, json) = analyze_both(&args, 0);
    assert_eq!(arr(&json, "machines").len(), 4, "{json}");
    let item = &arr(&arr(&json, "suites")[0], "items")[0];
    let machines = arr(item, "machines");
    let out: Vec<bool> = machines
        .iter()
        .map(|m| m["stands_out"] == Value::Bool(true))
        .collect();
    assert_eq!(out, [false, false, false, true]);
    let levels = arr(&item["components"], "levels");
    assert!(
        f(&levels[2], "share") > 0.8,
        "machines hold most of the variance: {levels:?}"
    );
    // The terminal: each machine's mean, each share, each factor.
    let row = |heading: &str| -> Vec<String> {
        let at = text
            .find(heading)
            .unwrap_or_else(|| panic!("no {heading:?} in\n{text}"));
        let line = text[at..].lines().nth(2).expect("the item's row");
        line.split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(String::from)
            .collect()
    };
    let side = row("machines side by side");
    for (m, cell) in machines.iter().enumerate() {
        agree(
            num(&side[m + 1]),
            f(cell, "mean"),
            &format!("machine {m} mean"),
        );
    }
    let split = row("variance split");
    for (i, l) in levels.iter().enumerate() {
        agree(
            num(&split[i + 1]),
            f(l, "share"),
            &format!("share of level {i}"),
        );
    }
    // "1.23× [1.05×, 4.56×], p = 0.0012": the factor, its interval and the
    // F test's p-value as --json has them.
    let cell = &split[5];
    let (factor, rest) = cell.split_once(" [").expect("an interval");
    let (ends, p) = rest.split_once("], ").expect("a p-value");
    let (lo, hi) = ends.split_once(", ").expect("two ends");
    let ci = &levels[2]["impact_ci"];
    agree(num(factor), f(ci, "estimate"), "machine impact factor");
    agree(num(lo), f(ci, "lo"), "its lower end");
    agree(num(hi), f(ci, "hi"), "its upper end");
    assert_eq!(ci["method"], "F");
    let p_json = f(&levels[2], "p_value");
    agree(
        num(p.strip_prefix("p = ").expect("p = …")),
        p_json,
        "the machine level's p-value",
    );
    // A machine 15 % slower than three alike is a machine effect the F test
    // finds, and the factor's interval excludes 1.
    assert!(p_json < 0.025 && f(ci, "lo") > 1.0, "{cell}");
    std::fs::remove_dir_all(&dir).ok();
}
