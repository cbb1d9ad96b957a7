//! The terminal renderer of `tickbook analyze`: the page's cells as text
//! tables, one file per cell (`clocks`, `bernoulli`, `ops`, `copy`, `alloc`,
//! `trace`, `bottleneck`, `samples`), `compare` for `--compare`, and what
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
mod clocks;
mod clustering;
mod compare;
mod copy;
mod executions;
mod numbers;
mod ops;
mod samples;
mod table;
mod trace;

use std::fmt::Write as _;
use tickbook_analysis::report::{
    AllocReport, BernoulliReport, BottleneckReport, ClocksReport, ComparisonReport, CopyReport,
    FileReport, OpsReport, SamplesReport, TraceReport,
};

pub(crate) use table::clean_lines;

/// `--compare`: the page's Comparison cell as text.
pub(crate) fn render_comparison(r: &ComparisonReport) -> String {
    compare::render(r)
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
    for cell in cells(r) {
        render_cell(out, cell);
    }
    let _ = writeln!(out);
}

/// A cell to render: one suite's report (or the samples cell's).
// Stands in for the analysis crate's registry-made `Cell` until it lands;
// then this enum and `cells` go, and `r.cells()` feeds `render_cell`.
enum Cell<'a> {
    Clocks(&'a ClocksReport),
    Bernoulli(&'a BernoulliReport),
    Ops(&'a OpsReport),
    Copy(&'a CopyReport),
    Alloc(&'a AllocReport),
    Trace(&'a TraceReport),
    Bottleneck(&'a BottleneckReport),
    Samples(&'a SamplesReport),
}

/// The cells `r` has, in the page's display order. The report is taken
/// apart field by field, so a cell added to `FileReport` does not compile
/// here until it is given a place.
fn cells(r: &FileReport) -> Vec<Cell<'_>> {
    let FileReport {
        file: _,
        ok: _,
        error: _,
        kind: _,
        info: _,
        warnings: _,
        clocks,
        samples,
        bernoulli,
        ops,
        copy,
        alloc,
        bottleneck,
        trace,
        options: _,
    } = r;
    [
        clocks.as_ref().map(Cell::Clocks),
        bernoulli.as_ref().map(Cell::Bernoulli),
        ops.as_ref().map(Cell::Ops),
        copy.as_ref().map(Cell::Copy),
        alloc.as_ref().map(Cell::Alloc),
        trace.as_ref().map(Cell::Trace),
        bottleneck.as_ref().map(Cell::Bottleneck),
        samples.as_ref().map(Cell::Samples),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// One cell, by the file that renders it.
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
    }
}
