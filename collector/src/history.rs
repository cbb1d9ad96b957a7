//! `tickbook history FILE|DIR...`: one result per commit, in order, and for
//! every benchmark the commits where it changed (the cell across files
//! `history`, `tickbook_analysis::report::across::history`). Exits 3 with
//! `--fail-if-regressed PCT` when the latest commit starts, or lies inside,
//! a regression larger than PCT: the gate a CI job runs.

use crate::load::load_inputs;
use crate::terminal::{self, Style};
use clap::{Args, ValueEnum};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use tickbook_analysis::report::across::history::{
    history, latest_regressions, HistoryReport, OrderChoice,
};
use tickbook_analysis::report::kept::KeptFile;
use tickbook_analysis::report::Options;

#[derive(Args)]
pub struct HistoryArgs {
    /// One result per commit (a file, or a Criterion.rs folder), oldest
    /// first; a folder of result files is each file in it, ordered by the
    /// commit or run date they record, else by name.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print the report as JSON (the page's numbers).
    #[arg(long)]
    json: bool,
    /// Output format: text tables, JSON, Markdown or CSV (one row per change).
    #[arg(long, value_enum, default_value_t = HistoryFormat::Text)]
    format: HistoryFormat,
    /// `auto`: by commit date, else run date, else name; `given`: as listed.
    #[arg(long, value_enum, default_value_t = OrderArg::Auto)]
    order: OrderArg,
    /// Exit with status 3 when the latest commit starts, or lies inside, a
    /// regression larger than PCT percent in any series.
    #[arg(long, value_name = "PCT", value_parser = parse_pct)]
    fail_if_regressed: Option<f64>,
    /// Confidence level of the intervals.
    #[arg(long, default_value_t = 0.95)]
    confidence: f64,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum HistoryFormat {
    Text,
    Json,
    Md,
    Csv,
}

#[derive(Clone, Copy, ValueEnum)]
enum OrderArg {
    Auto,
    Given,
}

/// `5`, `5%` or `2.5 %`: not negative, finite.
fn parse_pct(s: &str) -> Result<f64, String> {
    let t = s.trim().trim_end_matches('%').trim();
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "expected a percentage such as 5 or 2.5%, got {s:?}"
        )),
    }
}

pub fn run(args: HistoryArgs) -> ExitCode {
    let limits = match crate::load::limits() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let opts = Options {
        confidence: args.confidence,
        limits,
        ..Options::default()
    };
    if let Err(e) = opts.validate() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let mut failed = false;
    let mut files = Vec::new();
    for input in load_inputs(&args.files, &opts.limits) {
        match input.bytes {
            Ok(b) => files.push(KeptFile::read(&input.name, &b, &opts)),
            Err(e) => {
                eprintln!("error: {}: {e}", input.name);
                failed = true;
            }
        }
    }
    // One unreadable file is named and left out; the others still make a history.
    for f in files.iter_mut().filter(|f| f.document().is_none()) {
        match f.report(&opts).error {
            Some(e) => eprintln!("error: {e}"),
            None => eprintln!("error: {}: unreadable", f.name()),
        }
        failed = true;
    }
    let docs: Vec<_> = files
        .iter()
        .filter_map(|f| f.document().map(|d| (f.name(), d)))
        .collect();
    if docs.len() < 3 {
        eprintln!(
            "error: a history needs three or more readable results ({} given)",
            docs.len()
        );
        return ExitCode::from(2);
    }
    let order = match args.order {
        OrderArg::Auto => OrderChoice::Auto,
        OrderArg::Given => OrderChoice::Given,
    };
    let report = history(&docs, &opts, order);
    let format = if args.json {
        HistoryFormat::Json
    } else {
        args.format
    };
    let text = match format {
        HistoryFormat::Json => match serde_json::to_string_pretty(&report) {
            Ok(s) => s + "\n",
            Err(e) => {
                eprintln!("error: cannot print the history as JSON: {e}");
                return ExitCode::FAILURE;
            }
        },
        HistoryFormat::Text => terminal::render_history(&report, Style::Text),
        HistoryFormat::Md => terminal::render_history(&report, Style::Markdown),
        HistoryFormat::Csv => terminal::render_history(&report, Style::Csv),
    };
    // The text's own table names the order; Markdown and CSV hold only the changes.
    if matches!(format, HistoryFormat::Md | HistoryFormat::Csv) {
        eprintln!("{}", order_line(&report));
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write to stdout: {e}");
            return ExitCode::FAILURE;
        }
    }
    if let Some(pct) = args.fail_if_regressed {
        let hits = latest_regressions(&report, pct);
        if !hits.is_empty() {
            for (s, c) in &hits {
                eprintln!(
                    "regressed: {} is {:+.2}% at {} (more than {pct}%)",
                    terminal::clean(&s.name),
                    (c.ratio.estimate - 1.0) * 100.0,
                    terminal::clean(&c.file)
                );
            }
            return ExitCode::from(3);
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The order used, as one line for stderr.
fn order_line(r: &HistoryReport) -> String {
    let how = serde_json::to_value(r.order)
        .ok()
        .and_then(|v| v.as_str().map(|s| s.replace('_', " ")))
        .unwrap_or_default();
    format!("history of {} results, ordered by {how}", r.files.len())
}
