//! The Perturbation cell (trace suite) in the terminal.

use super::numbers::{fmt_ns, mark, opt_ns, sig, signed_pct};
use super::table::{cell_title, subtitle, Table};
use std::fmt::Write as _;
use tickbook_analysis::report::{Change, TraceReport};

/// The Perturbation cell (trace suite): unavailable metrics, then per
/// workload the levels, the inner and outer correlations against the
/// baseline spread, the aligned examples and every run.
pub(crate) fn render(out: &mut String, t: &TraceReport) {
    let band = t
        .band
        .map(|b| format!(", Sakoe–Chiba band {b}"))
        .unwrap_or_else(|| ", no band".into());
    cell_title(
        out,
        "Perturbation",
        &format!(
            "Spearman inner and outer correlations; DTW {}{band}",
            t.step_pattern.name()
        ),
    );
    for u in &t.unavailable {
        let _ = writeln!(
            out,
            "   unavailable: {} ({}): {}",
            u.name, u.source, u.reason
        );
    }
    let r3 = |v: Option<f64>| v.map(|x| sig(x, 3)).unwrap_or_else(|| "—".into());
    for w in &t.workloads {
        subtitle(
            out,
            &format!(
                "Workload {}: {} · sampled every {} · {} runs, {} baseline",
                w.name,
                w.description,
                fmt_ns(w.interval_ns),
                w.runs.len(),
                w.baseline.runs
            ),
        );
        if let Some(n) = &w.class_note {
            let _ = writeln!(out, "   no hardware metrics: {n}");
        }
        for n in &w.notes {
            let _ = writeln!(out, "   note: {n}");
        }
        let _ = writeln!(
            out,
            "   metrics analysed ({}): {}",
            w.class,
            w.metrics.join(", ")
        );
        for l in w.levels.iter().filter(|l| !l.description.is_empty()) {
            let _ = writeln!(out, "   level {} instruments: {}", l.level, l.description);
        }
        let mut tab = Table::new(&[
            "level",
            "runs",
            "mean wall time",
            "overhead",
            "overhead CI",
            "counter increments/run",
            "flagged pairs",
            "flagged metrics",
        ]);
        for l in &w.levels {
            tab.row(vec![
                l.level.to_string(),
                l.runs.to_string(),
                opt_ns(l.wall_ns_mean),
                l.overhead.map(signed_pct).unwrap_or_else(|| "—".into()),
                l.overhead_ci
                    .map(|(a, b)| format!("{} to {}", signed_pct(a), signed_pct(b)))
                    .unwrap_or_else(|| "—".into()),
                l.instrumentation_mean
                    .map(|v| format!("{v:.0}"))
                    .unwrap_or_else(|| "—".into()),
                format!("{}/{}", l.flagged_inner, l.inner.len()),
                format!("{}/{}", l.flagged_outer, l.outer.len()),
            ]);
        }
        tab.render(out);
        let instrumented: Vec<_> = w.levels.iter().filter(|l| l.level > 0).collect();
        let level_cols: Vec<String> = instrumented
            .iter()
            .map(|l| format!("level {} ρ", l.level))
            .collect();
        // One column per level: its mean correlation, `*` when the change
        // from the baseline exceeds the baseline spread.
        let marked = |c: &Change| format!("{}{}", r3(c.correlation), mark(c.flagged));
        if !w.pairs.is_empty() {
            subtitle(
                out,
                "Inner correlation per pair: baseline mean and spread (range over baseline runs), then each level's mean; * = changed by more than the spread",
            );
            let mut head = vec!["pair", "baseline ρ", "baseline spread"];
            head.extend(level_cols.iter().map(String::as_str));
            let mut tab = Table::new(&head);
            for (i, p) in w.pairs.iter().enumerate() {
                let mut row = vec![
                    p.label.clone(),
                    r3(w.baseline.inner_mean.get(i).copied().flatten()),
                    r3(w.baseline.inner_spread.get(i).copied().flatten()),
                ];
                row.extend(
                    instrumented
                        .iter()
                        .map(|l| l.inner.get(i).map(marked).unwrap_or_else(|| "—".into())),
                );
                tab.row(row);
            }
            tab.render(out);
        }
        if w.reference.is_some() && !w.metrics.is_empty() {
            subtitle(
                out,
                "Outer correlation per metric (each run aligned to the first baseline run; 1 = unperturbed): baseline runs' mean and largest drop below 1, then each level's mean; * = dropped by more than that",
            );
            let mut head = vec!["metric", "baseline outer ρ", "baseline spread"];
            head.extend(level_cols.iter().map(String::as_str));
            let mut tab = Table::new(&head);
            for (i, m) in w.metrics.iter().enumerate() {
                let mut row = vec![
                    m.clone(),
                    r3(w.baseline.outer_mean.get(i).copied().flatten()),
                    r3(w.baseline.outer_spread.get(i).copied().flatten()),
                ];
                row.extend(
                    instrumented
                        .iter()
                        .map(|l| l.outer.get(i).map(marked).unwrap_or_else(|| "—".into())),
                );
                tab.row(row);
            }
            tab.render(out);
            if let Some(r) = &w.reference {
                for e in &w.examples {
                    let _ = writeln!(
                        out,
                        "   aligned example: level {} run {} against baseline run {}, a warping path of {} steps",
                        e.level,
                        e.repetition,
                        r.repetition,
                        e.index1.len()
                    );
                }
            }
        }
        subtitle(out, &format!("Every run of {}", w.name));
        let mut tab = Table::new(&[
            "level",
            "run",
            "records",
            "wall time",
            "counter increments",
            "DTW distance",
            "normalized",
            "notes",
        ]);
        for r in &w.runs {
            let mut notes = r.alignment_error.clone().unwrap_or_else(|| {
                if r.outer.is_some() {
                    ""
                } else {
                    "the reference"
                }
                .into()
            });
            if !r.undefined.is_empty() {
                if !notes.is_empty() {
                    notes.push_str("; ");
                }
                notes.push_str(&r.undefined.join("; "));
            }
            tab.row(vec![
                r.level.to_string(),
                r.repetition.to_string(),
                r.records.to_string(),
                fmt_ns(r.wall_ns),
                r.instrumentation_count.to_string(),
                r.dtw_distance
                    .map(|v| sig(v, 4))
                    .unwrap_or_else(|| "—".into()),
                r.dtw_normalized_distance
                    .map(|v| sig(v, 4))
                    .unwrap_or_else(|| "—".into()),
                notes,
            ]);
        }
        tab.render(out);
    }
}
