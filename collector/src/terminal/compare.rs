//! `tickbook analyze --compare` in the terminal: the page's Comparison cell
//! (web/src/cells/compare.js) as tables — the files, then per suite each item's
//! estimate in every file and each file against the baseline, then the
//! pooled executions. `--json` has every field.

use super::numbers::{ci_with, factor, fmt_ns, level, pct, sig};
use super::table::{cell_title, subtitle, Table};
use std::fmt::Write as _;
use tickbook_analysis::report::compare::{ItemComparison, Verdict};
use tickbook_analysis::report::ComparisonReport;

/// A, B, …, Z, then F27, F28, … (the page's letters).
fn letter(i: usize) -> String {
    match u8::try_from(i) {
        Ok(n) if n < 26 => char::from(b'A' + n).to_string(),
        _ => format!("F{}", i + 1),
    }
}

/// A value in the item's unit: times scaled (ns, µs, ms, s), anything else
/// with four significant digits and its unit.
fn value(x: f64, item_unit: &str, unit_ns: Option<f64>) -> String {
    match unit_ns {
        Some(k) => fmt_ns(x * k),
        None => format!("{} {item_unit}", sig(x, 4)),
    }
}

/// `estimate [lo, hi]`, each end in the item's unit.
fn estimate(e: Option<&tickbook_analysis::stats::compare::Est>, item: &ItemComparison) -> String {
    match e {
        Some(e) => format!(
            "{} [{}, {}]",
            value(e.estimate, &item.unit, item.unit_ns),
            value(e.lo, &item.unit, item.unit_ns),
            value(e.hi, &item.unit, item.unit_ns)
        ),
        None => "—".into(),
    }
}

/// The comparison as text: the files with their letters, each suite's items
/// against the baseline file, then the pooled executions. The caller escapes
/// control characters (`clean_lines`).
pub(crate) fn render(r: &ComparisonReport) -> String {
    let mut out = String::new();
    let conf = r.options.bootstrap.confidence;
    cell_title(
        &mut out,
        "Comparison",
        &format!(
            "{} files; each estimate with its {} CI, each file against the baseline as a ratio with a bootstrap CI; different = CIs disjoint and a difference above {}",
            r.files.len(),
            level(conf),
            level(r.options.threshold)
        ),
    );
    let mut t = Table::new(&["", "file", "host", "started", "suites"]);
    for (i, f) in r.files.iter().enumerate() {
        if f.ok {
            t.row(vec![
                letter(i),
                f.name.clone(),
                f.host.clone().unwrap_or_else(|| "—".into()),
                f.started_at.clone().unwrap_or_else(|| "—".into()),
                f.suites.join(", "),
            ]);
        } else {
            t.row(vec![
                letter(i),
                f.name.clone(),
                format!("unreadable: {}", f.error.as_deref().unwrap_or("no reason")),
            ]);
        }
    }
    t.render(&mut out);
    if r.suites.is_empty() {
        let _ = writeln!(
            out,
            "   No suite is present in two or more readable files: nothing to compare."
        );
    }
    for s in &r.suites {
        let Some(&base) = s.files.first() else {
            continue;
        };
        subtitle(
            &mut out,
            &format!(
                "{}: {} · baseline {} · {} of {} items different",
                s.suite,
                s.statistic,
                letter(base),
                s.different,
                s.items.len()
            ),
        );
        let mut heads = vec!["item".to_string(), format!("{} (baseline)", letter(base))];
        for &f in &s.files[1..] {
            heads.push(letter(f));
            heads.push(format!("{} / {}", letter(f), letter(base)));
            heads.push(format!("verdict {}", letter(f)));
        }
        let head: Vec<&str> = heads.iter().map(String::as_str).collect();
        let mut t = Table::new(&head);
        for it in &s.items {
            let mut row = vec![
                it.key.clone(),
                estimate(it.values.first().and_then(Option::as_ref), it),
            ];
            for k in 1..s.files.len() {
                row.push(estimate(it.values.get(k).and_then(Option::as_ref), it));
                let p = it.against_baseline.get(k - 1);
                row.push(ci_with(p.and_then(|p| p.ratio.as_ref()), factor));
                row.push(match p {
                    None => "no estimate".into(),
                    Some(p) => match p.verdict {
                        Verdict::Same => "same".into(),
                        Verdict::Missing => "no estimate".into(),
                        Verdict::Different => format!(
                            "different: {} faster{}",
                            p.faster.map(letter).unwrap_or_else(|| "?".into()),
                            p.relative_difference
                                .map(|d| format!(" by {}", pct(d)))
                                .unwrap_or_default()
                        ),
                    },
                });
            }
            t.row(row);
        }
        t.render(&mut out);
    }
    if r.pooling {
        if r.pooled.is_empty() {
            subtitle(
                &mut out,
                "Pooled executions: no configuration appears in two or more files of the same host",
            );
        } else {
            subtitle(
                &mut out,
                "Pooled executions of the same configuration on the same host, analysed as one set",
            );
            let mut t = Table::new(&[
                "suite",
                "item",
                "host",
                "files pooled",
                "executions",
                "mean [CI]",
                "CV within",
                "impact factor",
            ]);
            for p in &r.pooled {
                let s = p.stats.as_ref();
                let unit = |x: f64| value(x, &p.unit, p.unit_ns);
                let mean = match s.and_then(|s| s.random_effects.as_ref()) {
                    Some(re) => match re.ci {
                        Some((lo, hi)) => format!("{} [{}, {}]", unit(re.mean), unit(lo), unit(hi)),
                        None => unit(re.mean),
                    },
                    None => ci_with(s.and_then(|s| s.mean_bootstrap.as_ref()), unit),
                };
                t.row(vec![
                    p.suite.clone(),
                    p.key.clone(),
                    p.host.clone().unwrap_or_else(|| "—".into()),
                    p.files
                        .iter()
                        .zip(&p.executions_per_file)
                        .map(|(f, n)| format!("{} ({n})", letter(*f)))
                        .collect::<Vec<_>>()
                        .join(", "),
                    s.map(|s| s.executions.to_string())
                        .unwrap_or_else(|| "—".into()),
                    mean,
                    ci_with(s.and_then(|s| s.cv_within.as_ref()), pct),
                    ci_with(s.and_then(|s| s.impact_factor.as_ref()), factor),
                ]);
            }
            t.render(&mut out);
        }
    }
    out
}
