//! `tickbook history`: the changes of every series that changed, largest
//! first (one row per change), the quiet series counted, the commits that
//! look like a change of the machine, and the files in the order used.

use super::numbers::{sig, signed_pct};
use super::table::{cell_title, clean, csv, csv_num, md, subtitle, Table};
use super::Style;
use std::fmt::Write as _;
use tickbook_analysis::report::across::history::{
    Cause, ChangeKind, ChangePoint, HistoryReport, Interval,
};

const HEADER: [&str; 8] = [
    "series",
    "kind",
    "at",
    "before",
    "after",
    "change [CI]",
    "p",
    "cause",
];

pub(crate) fn render(r: &HistoryReport, style: Style) -> String {
    match style {
        Style::Text => text(r),
        Style::Markdown => markdown(r),
        Style::Csv => csv_rows(r),
    }
}

/// One row per change: the header's cells, plain.
fn rows(r: &HistoryReport) -> Vec<Vec<String>> {
    let names = short_names(r);
    let mut out = Vec::new();
    for s in &r.series {
        for c in &s.change_points {
            out.push(vec![
                s.name.clone(),
                what(c),
                at(&names, c),
                value(&c.before, &s.unit),
                value(&c.after, &s.unit),
                format!(
                    "{} [{}, {}]",
                    signed_pct(c.ratio.estimate - 1.0),
                    signed_pct(c.ratio.low - 1.0),
                    signed_pct(c.ratio.high - 1.0)
                ),
                p_value(c.p),
                match c.cause {
                    Cause::Code => "code".into(),
                    Cause::Machine => "machine?".into(),
                },
            ]);
        }
    }
    out
}

/// A p-value with two significant digits; below 1e-4 as `<0.0001`.
fn p_value(p: f64) -> String {
    if p < 1e-4 {
        "<0.0001".into()
    } else {
        sig(p, 2)
    }
}

/// The files' names without the folder they all share.
fn short_names(r: &HistoryReport) -> Vec<String> {
    let dir = |n: &str| n.rfind('/').map_or(0, |i| i + 1);
    let first = r
        .files
        .first()
        .map(|f| &f.name[..dir(&f.name)])
        .unwrap_or("");
    let shared = if r.files.iter().all(|f| f.name.starts_with(first)) {
        first.len()
    } else {
        0
    };
    r.files
        .iter()
        .map(|f| f.name[shared..].to_string())
        .collect()
}

/// `step`, `drift`, with regression or improvement.
fn what(c: &ChangePoint) -> String {
    let kind = match c.kind {
        ChangeKind::Drift => "drift",
        _ => "step",
    };
    let way = match c.regression {
        Some(true) => " (regression)",
        Some(false) => " (improvement)",
        None => "",
    };
    format!("{kind}{way}")
}

/// The commit (a drift's first and last) by position and file.
fn at(names: &[String], c: &ChangePoint) -> String {
    let name = |i: usize| {
        names
            .get(i)
            .map(|f| format!("#{i} {f}"))
            .unwrap_or_default()
    };
    match c.kind {
        ChangeKind::Drift => format!("{} .. {}", name(c.index), name(c.end)),
        _ => name(c.index),
    }
}

fn value(v: &Interval, unit: &str) -> String {
    format!("{} {unit}", sig(v.estimate, 4))
}

fn text(r: &HistoryReport) -> String {
    let mut out = String::new();
    let changed = r.series.len() - r.quiet;
    cell_title(
        &mut out,
        "History",
        &format!(
            "{} commits, {} series: {changed} changed, {} quiet",
            r.files.len(),
            r.series.len(),
            r.quiet
        ),
    );
    if changed > 0 {
        let mut t = Table::new(&HEADER).text(0).text(1).text(2).text(7);
        for row in rows(r) {
            t.row(row);
        }
        t.render(&mut out);
    }
    for m in &r.machine_changes {
        let _ = writeln!(
            out,
            "   {} of {} series changed at #{} {}: likely a change of the machine, not of the code",
            m.series,
            m.of,
            m.index,
            clean(&m.file)
        );
    }
    let disturbed: usize = r.series.iter().map(|s| s.disturbed.len()).sum();
    if disturbed > 0 {
        let _ = writeln!(
            out,
            "   {disturbed} commit values left out as one-off disturbances (--json: each series' \"disturbed\")"
        );
    }
    for w in &r.warnings {
        let _ = writeln!(out, "   warning: {}", clean(w));
    }
    let how = serde_json::to_value(r.order)
        .ok()
        .and_then(|v| v.as_str().map(|s| s.replace('_', " ")))
        .unwrap_or_default();
    let n = r.files.len();
    // A long history shows its ends; --json lists every file.
    let shown: Vec<usize> = if n <= 30 {
        (0..n).collect()
    } else {
        (0..10).chain(n - 10..n).collect()
    };
    subtitle(&mut out, &format!("Order used: by {how}"));
    let names = short_names(r);
    let mut t = Table::new(&["#", "file", "commit", "date"])
        .text(1)
        .text(2)
        .text(3);
    for (k, &i) in shown.iter().enumerate() {
        let f = &r.files[i];
        if k > 0 && shown[k - 1] + 1 != i {
            t.row(vec![
                "…".into(),
                format!("({} more)", i - shown[k - 1] - 1),
                String::new(),
                String::new(),
            ]);
        }
        t.row(vec![
            i.to_string(),
            names[i].clone(),
            f.commit
                .as_deref()
                .map(|c| {
                    let short: String = c.chars().take(12).collect();
                    if f.dirty == Some(true) {
                        format!("{short} (dirty)")
                    } else {
                        short
                    }
                })
                .unwrap_or_default(),
            f.date.clone().unwrap_or_default(),
        ]);
    }
    t.render(&mut out);
    super::clean_lines(&out)
}

fn markdown(r: &HistoryReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "| {} |", HEADER.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(HEADER.len()));
    for row in rows(r) {
        let cells: Vec<String> = row.iter().map(|c| md(c)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    let _ = writeln!(
        out,
        "\n{} commits; {} series quiet (no change).",
        r.files.len(),
        r.quiet
    );
    out
}

fn csv_rows(r: &HistoryReport) -> String {
    let mut out = String::from(
        "series,unit,kind,index,end,file,before,after,ratio,ratio_low,ratio_high,p,cause,regression\n",
    );
    for s in &r.series {
        for c in &s.change_points {
            let kind = match c.kind {
                ChangeKind::Drift => "drift",
                _ => "step",
            };
            let _ = writeln!(
                out,
                "{},{},{kind},{},{},{},{},{},{},{},{},{},{},{}",
                csv(&s.name),
                csv(&s.unit),
                c.index,
                c.end,
                csv(&c.file),
                csv_num(Some(c.before.estimate)),
                csv_num(Some(c.after.estimate)),
                csv_num(Some(c.ratio.estimate)),
                csv_num(Some(c.ratio.low)),
                csv_num(Some(c.ratio.high)),
                csv_num(Some(c.p)),
                match c.cause {
                    Cause::Code => "code",
                    Cause::Machine => "machine",
                },
                c.regression.map(|b| b.to_string()).unwrap_or_default()
            );
        }
    }
    out
}
