//! `tickbook analyze --compare-series` in the terminal: one file's series,
//! per unit, against the group's reference series — each series' estimate,
//! its ratio to the reference with the CI, the rank test's p, the verdict,
//! and hyperfine's relative speed (`1.38 ± 0.33`), then the summary lines
//! hyperfine prints for the same data. Markdown and CSV carry the same
//! rows. Formatting only: every number and verdict comes from the analysis.

use super::compare::{est_text, p_text, ratio_text, verdict_words};
use super::numbers::{level, sig};
use super::table::{cell_title, csv, csv_num as num, json_word, md, subtitle, Table};
use std::fmt::Write as _;
use tickbook_analysis::format::Alternatives;
use tickbook_analysis::report::compare::series::{ReferenceChoice, RelativeSpeed, SeriesGroup};
use tickbook_analysis::report::compare::{ItemComparison, PairComparison, Verdict};
use tickbook_analysis::report::SeriesComparisonReport;

/// The group's unit as an item, for the shared scaling of values.
fn unit_item(g: &SeriesGroup) -> ItemComparison {
    ItemComparison {
        key: g.unit.clone(),
        unit: g.unit.clone(),
        unit_ns: g.unit_ns,
        unit_bytes: g.unit_bytes,
        quantity: g.quantity,
        warm_up: false,
        values: Vec::new(),
        against_baseline: Vec::new(),
    }
}

/// hyperfine's figure: `1.38 ± 0.33` (its two decimals).
pub(crate) fn speed_text(s: Option<&RelativeSpeed>) -> String {
    match s {
        Some(s) => match s.factor_error {
            Some(e) => format!("{:.2} ± {:.2}", s.factor, e),
            None => format!("{:.2}", s.factor),
        },
        None => "—".into(),
    }
}

/// The verdict in words, from the series' side.
fn verdict(p: &PairComparison, g: &SeriesGroup) -> String {
    verdict_words(p, &unit_item(g), &|i| {
        g.series.get(i).cloned().unwrap_or_default()
    })
}

/// The rows a table shows: the reference and every other series, or with
/// `only_different` the reference and the different ones. (index, pair).
fn rows(g: &SeriesGroup, only_different: bool) -> Vec<(usize, Option<&PairComparison>)> {
    let mut out = vec![(0, None)];
    for (k, p) in g.against_reference.iter().enumerate() {
        if !only_different || p.verdict == Verdict::Different {
            out.push((k + 1, Some(p)));
        }
    }
    out
}

fn group_line(g: &SeriesGroup) -> String {
    format!(
        "{}{} · reference {} ({}) · {} of {} series different",
        g.group
            .as_deref()
            .map(|n| format!("{n} · "))
            .unwrap_or_default(),
        g.unit,
        g.series.first().map(String::as_str).unwrap_or("—"),
        match g.reference {
            ReferenceChoice::Named => "named",
            ReferenceChoice::Lowest => "the lowest",
        },
        g.different,
        g.series.len().saturating_sub(1)
    )
}

/// hyperfine's summary of a time group: `'A' ran` then one line per series.
fn summary_lines(g: &SeriesGroup) -> Vec<String> {
    let mut out = vec![format!(
        "'{}' ran",
        g.series.first().map(String::as_str).unwrap_or("")
    )];
    for (k, s) in g.relative_speed.iter().enumerate() {
        let Some(s) = s else { continue };
        let word = if s.reference_lower {
            "faster"
        } else {
            "slower"
        };
        out.push(format!(
            "  {} times {word} than '{}'",
            speed_text(Some(s)),
            g.series.get(k + 1).map(String::as_str).unwrap_or("")
        ));
    }
    out
}

pub(crate) fn render(r: &SeriesComparisonReport, only_different: bool) -> String {
    let mut out = String::new();
    let conf = r.options.bootstrap.confidence;
    cell_title(
        &mut out,
        "Series comparison",
        &format!(
            "{}; per unit, each series against the reference as a ratio with a bootstrap CI, by the rules files are compared by (Mann–Whitney U at p < {} for one process or one measurement per process, disjoint {} CIs for executions); different when above {}; hyperfine's relative speed ± its propagated error",
            r.file.name,
            sig(1.0 - conf, 2),
            level(conf),
            level(r.options.threshold)
        ),
    );
    if r.warm_ups_left_out > 0 {
        let _ = writeln!(
            out,
            "   {} warm-up series left out (--warm-ups compares them)",
            r.warm_ups_left_out
        );
    }
    if r.groups.is_empty() {
        let _ = writeln!(out, "   No two series share a unit: nothing to compare.");
    }
    for g in &r.groups {
        subtitle(&mut out, &group_line(g));
        let item = unit_item(g);
        let mut t = Table::new(&[
            "series",
            "estimate",
            "ratio to reference",
            "p",
            "verdict",
            "hyperfine",
        ]);
        for (i, p) in rows(g, only_different) {
            let name = g.series.get(i).cloned().unwrap_or_default();
            let value = est_text(g.values.get(i).and_then(Option::as_ref), &item);
            match p {
                None => t.row(vec![
                    format!("{name} (reference)"),
                    value,
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                ]),
                Some(p) => t.row(vec![
                    name,
                    value,
                    ratio_text(Some(p)),
                    p_text(Some(p)),
                    verdict(p, g),
                    speed_text(g.relative_speed.get(i - 1).and_then(Option::as_ref)),
                ]),
            }
        }
        t.render(&mut out);
        let _ = writeln!(out, "   hyperfine's summary:");
        for line in summary_lines(g) {
            let _ = writeln!(out, "     {line}");
        }
    }
    if let Some(line) = scope_line(r) {
        let _ = writeln!(out, "   {line}");
    }
    if !r.alone.is_empty() {
        let _ = writeln!(out, "   {}: {}", alone_words(r), r.alone.join(", "));
    }
    out
}

/// Which series were compared, for a file whose tool holds its benchmarks
/// unrelated (the page's note above the tables).
fn scope_line(r: &SeriesComparisonReport) -> Option<String> {
    if r.alternatives != Alternatives::Groups {
        return None;
    }
    Some(if r.by_group {
        format!(
            "Only the series of one benchmark (its configurations, parameters or group) are compared with each other ({} such groups): the file's tool holds its benchmarks unrelated; --every-series compares them all.",
            r.groups.len()
        )
    } else {
        "Every series of a unit is compared, although the file's tool holds its benchmarks unrelated.".to_string()
    })
}

fn alone_words(r: &SeriesComparisonReport) -> &'static str {
    if r.by_group {
        "Not compared (no other series of their benchmark and unit)"
    } else {
        "Alone in their unit, not compared"
    }
}

pub(crate) fn render_markdown(r: &SeriesComparisonReport, only_different: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## Series comparison: `{}`", md(&r.file.name));
    for g in &r.groups {
        let item = unit_item(g);
        let _ = writeln!(out, "\n### {}\n", md(&group_line(g)));
        let _ = writeln!(
            out,
            "| series | estimate | ratio to reference | p | verdict | hyperfine |"
        );
        let _ = writeln!(out, "| --- | ---: | ---: | ---: | --- | ---: |");
        for (i, p) in rows(g, only_different) {
            let name = md(&g.series.get(i).cloned().unwrap_or_default());
            let value = md(&est_text(g.values.get(i).and_then(Option::as_ref), &item));
            let row = match p {
                None => format!("| {name} (reference) | {value} | | | | |"),
                Some(p) => format!(
                    "| {name} | {value} | {} | {} | {} | {} |",
                    md(&ratio_text(Some(p))),
                    p_text(Some(p)),
                    md(&verdict(p, g)),
                    speed_text(g.relative_speed.get(i - 1).and_then(Option::as_ref))
                ),
            };
            let _ = writeln!(out, "{row}");
        }
    }
    out
}

/// One row per compared series, numbers in the unit at full precision.
pub(crate) fn render_csv(r: &SeriesComparisonReport, only_different: bool) -> String {
    let mut out = String::from(
        "unit,reference,series,reference_estimate,estimate,lo,hi,ratio,ratio_lo,ratio_hi,p_value,verdict,relative_speed,relative_speed_error\n",
    );
    for g in &r.groups {
        let reference = g.series.first().cloned().unwrap_or_default();
        let base = g.values.first().copied().flatten();
        for (i, p) in rows(g, only_different) {
            let Some(p) = p else { continue };
            let v = g.values.get(i).copied().flatten();
            let s = g.relative_speed.get(i - 1).copied().flatten();
            let fields = [
                csv(&g.unit),
                csv(&reference),
                csv(&g.series.get(i).cloned().unwrap_or_default()),
                num(base.map(|e| e.estimate)),
                num(v.map(|e| e.estimate)),
                num(v.map(|e| e.lo)),
                num(v.map(|e| e.hi)),
                num(p.ratio.as_ref().map(|c| c.estimate)),
                num(p.ratio.as_ref().map(|c| c.lo)),
                num(p.ratio.as_ref().map(|c| c.hi)),
                num(p.test.map(|t| t.p_value)),
                json_word(serde_json::to_value(p.verdict)),
                num(s.map(|s| s.ratio)),
                num(s.and_then(|s| s.error)),
            ];
            let _ = writeln!(out, "{}", fields.join(","));
        }
    }
    out
}
