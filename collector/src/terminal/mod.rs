//! The terminal renderer of `tickbook analyze`: the page's cells as text
//! tables, one file per cell (`clocks`, `bernoulli`, `ops`, `copy`, `alloc`,
//! `trace`, `bottleneck`, `samples`, `browser` with `--native`, `commands`), `fitness`
//! (the file's fitness, first; also `tickbook doctor`'s table), `compare` for `--compare`, `compare_series` for
//! `--compare-series`, `campaign` for `--campaign`, and what
//! they share: `table` (titles, aligned columns, escaping), `numbers` (units
//! and significant digits), `clustering` (Operations and Samples) and
//! `executions` (the impact factor table of Samples and Allocation).
//!
//! Every number comes from `tickbook_analysis::report`, the same model the
//! page renders; this module only formats. Each cell file has
//! `render(out, report)`; nothing here imports the command (`analyze.rs`).

mod alloc;
mod bernoulli;
mod bottleneck;
mod browser;
mod campaign;
mod clocks;
mod clustering;
mod commands;
mod compare;
mod compare_series;
mod copy;
mod executions;
pub(crate) mod fitness;
mod history;
mod numbers;
mod ops;
mod samples;
mod table;
mod trace;

use std::fmt::Write as _;
use tickbook_analysis::report::across::compare::CompareReport;
use tickbook_analysis::report::{Cell, FileReport};

pub(crate) use table::{clean, clean_lines};

/// How `--compare` and `--compare-series` print: tables in the terminal,
/// Markdown (`--format md`) or CSV (`--format csv`).
#[derive(Clone, Copy)]
pub(crate) enum Style {
    Text,
    Markdown,
    Csv,
}

/// `--compare` and `--compare-series`: the page's Comparison cell, of files
/// side by side or of one file's series.
pub(crate) fn render_compare(r: &CompareReport, style: Style, only_different: bool) -> String {
    match (r, style) {
        (CompareReport::Files(r), Style::Text) => clean_lines(&compare::render(r, only_different)),
        (CompareReport::Files(r), Style::Markdown) => compare::render_markdown(r, only_different),
        (CompareReport::Files(r), Style::Csv) => compare::render_csv(r, only_different),
        (CompareReport::Series(r), Style::Text) => {
            clean_lines(&compare_series::render(r, only_different))
        }
        (CompareReport::Series(r), Style::Markdown) => {
            compare_series::render_markdown(r, only_different)
        }
        (CompareReport::Series(r), Style::Csv) => compare_series::render_csv(r, only_different),
    }
}

/// `tickbook history`: the changes of each series over the commits.
pub(crate) fn render_history(
    r: &tickbook_analysis::report::across::history::HistoryReport,
    style: Style,
) -> String {
    history::render(r, style)
}

/// `--campaign`: machines side by side and the variance split.
pub(crate) fn render_campaign(r: &tickbook_analysis::report::campaign::CampaignReport) -> String {
    campaign::render(r)
}

/// `analyze --native`: a browser file against a native ops file.
pub(crate) fn render_native(r: &tickbook_analysis::report::NativeComparison) -> String {
    let mut out = String::new();
    browser::render_native(&mut out, r);
    out
}

pub(crate) use compare::slower_than;

/// `tickbook doctor`: every configuration check, then the findings.
pub(crate) fn render_doctor(
    env: &tickbook_analysis::format::Environment,
    f: &tickbook_analysis::fitness::Fitness,
) -> String {
    let mut out = String::new();
    fitness::render_checks(&mut out, env);
    fitness::render(&mut out, f, false);
    fitness::render_advice(&mut out, f);
    out
}

/// One file: its header, then every cell the page shows, in the page's
/// order.
pub(crate) fn render_file(out: &mut String, r: &FileReport) {
    let _ = writeln!(out, "== {}", r.file);
    if let Some(i) = &r.info {
        let mut parts = Vec::new();
        for (label, v) in [
            ("host", &i.host),
            ("cpu", &i.cpu),
            ("kernel", &i.kernel),
            ("hypervisor", &i.hypervisor),
            ("clocksource", &i.clocksource),
            ("started", &i.started_at),
            ("status", &i.status),
            ("source", &i.source),
        ] {
            if let Some(v) = v {
                parts.push(format!("{label}: {v}"));
            }
        }
        let _ = writeln!(out, "   {}", parts.join(" | "));
    }
    for w in &r.warnings {
        let _ = writeln!(out, "   warning: {}", table::clean(w));
    }
    if let Some(f) = &r.fitness {
        fitness::render(out, f, true);
    }
    for cell in r.cells() {
        let mut one = String::new();
        render_cell(&mut one, cell);
        let notes: Vec<String> = r
            .fitness
            .iter()
            .flat_map(|f| &f.affects)
            .filter(|a| a.cell == cell.name())
            .map(|a| format!("   fitness: {}\n", table::clean(&a.text)))
            .collect();
        // Beside the numbers: under the cell's title line.
        let title_end = one
            .find("-- ")
            .and_then(|t| one[t..].find('\n').map(|i| t + i));
        match title_end {
            Some(i) if !notes.is_empty() => {
                out.push_str(&one[..=i]);
                out.push_str(&notes.concat());
                out.push_str(&one[i + 1..]);
            }
            _ => out.push_str(&one),
        }
    }
    let _ = writeln!(out);
}

/// `tickbook run`'s closing summary: the file's warnings and its Commands
/// cell.
pub(crate) fn render_run_summary(r: &FileReport) -> String {
    let mut out = String::new();
    for w in &r.warnings {
        let _ = writeln!(out, "   warning: {}", table::clean(w));
    }
    for cell in r.cells() {
        if let Cell::Commands(c) = cell {
            commands::render(&mut out, c);
        }
    }
    clean_lines(&out)
}

/// `analyze --format md` of run files: each one's Commands cell as a
/// Markdown table; `None` when a file has none.
pub(crate) fn render_run_markdown(reports: &[FileReport]) -> Option<String> {
    let mut out = String::new();
    for r in reports.iter().filter(|r| r.ok) {
        let c = r.cells().into_iter().find_map(|cell| match cell {
            Cell::Commands(c) => Some(c),
            _ => None,
        })?;
        if reports.len() > 1 {
            let _ = writeln!(out, "### {}\n", table::md(&r.file));
        }
        commands::markdown(&mut out, c);
        let _ = writeln!(out);
    }
    Some(out.trim_end().to_string() + "\n")
}

/// One cell, by the file that renders it: a suite added to the registry
/// does not compile here until it has its terminal file.
fn render_cell(out: &mut String, cell: Cell<'_>) {
    match cell {
        Cell::Clocks(r) => clocks::render(out, r),
        Cell::Bernoulli(r) => bernoulli::render(out, r),
        Cell::Ops(r) => ops::render(out, r),
        Cell::Copy(r) => copy::render(out, r),
        Cell::Alloc(r) => alloc::render(out, r),
        Cell::Trace(r) => trace::render(out, r),
        Cell::Bottleneck(r) => bottleneck::render(out, r),
        Cell::Samples(r) => samples::render(out, r),
        Cell::Browser(r) => browser::render(out, r),
        Cell::Commands(r) => commands::render(out, r),
    }
}
