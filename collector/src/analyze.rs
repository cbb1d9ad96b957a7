//! `tickbook analyze`: the page's analyses in the terminal (the tables are
//! drawn by `terminal`), as JSON with `--json`, or side by side with
//! `--compare`.
//!
//! Every number comes from `tickbook_analysis::report`, the same model the
//! page renders, so `--json` prints exactly what the page shows. Bad files get
//! one line each on stderr and a non-zero exit; good files are still shown.

use crate::load::{criterion_baselines, load_inputs, read_file};
use crate::terminal::{
    clean_lines, render_campaign, render_compare, render_file, render_native, render_run_markdown,
    slower_than, Style,
};
use clap::Args;
use rayon::prelude::*;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use tickbook_analysis::read::{read_document_within, Document, ReadError};
use tickbook_analysis::report::across::compare::{CompareParams, CompareReport};
use tickbook_analysis::report::across::{Across, Campaign, Compare, Native};
use tickbook_analysis::report::compare::{compare_sides, CompareSettings};
use tickbook_analysis::report::kept::KeptFile;
use tickbook_analysis::report::{
    analyze_bytes, apply_calibration, CalibrationFit, FileReport, OpsView, Options, ReferenceClock,
};
use tickbook_analysis::stats::bootstrap::BootstrapOptions;
use tickbook_analysis::stats::cluster::Linkage;
use tickbook_analysis::stats::QuantileType;

#[derive(Args)]
#[command(group(clap::ArgGroup::new("comparing").args(["compare", "compare_series"])))]
pub struct AnalyzeArgs {
    /// Result files (tickbook runs, `samples` files, other harnesses'
    /// results) and folders: a Criterion.rs folder is one file, any other
    /// folder each JSON file in it.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print a JSON array of per-file reports (keys in docs/cli.md) instead of tables.
    #[arg(long)]
    json: bool,
    /// Output format: text (tables), json (as --json), and with --compare
    /// also md (Markdown tables) or csv.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Hyndman–Fan quantile definition, 1 to 9 (7 = R's default, numpy's linear).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u8).range(1..=9))]
    quantile_type: u8,
    /// Confidence level of intervals, e.g. 0.95.
    #[arg(long, default_value_t = 0.95)]
    confidence: f64,
    /// Bootstrap resamples.
    #[arg(long)]
    resamples: Option<usize>,
    /// Bootstrap seed (the same seed gives the same intervals everywhere).
    #[arg(long)]
    seed: Option<u64>,
    /// Relative difference two results must exceed, besides disjoint CIs, to
    /// count as different (0.03 = 3 %).
    #[arg(long, default_value_t = 0.03)]
    threshold: f64,
    /// Tukey's outlier rule: outliers beyond K·IQR from the quartiles,
    /// extreme ones beyond 2K·IQR.
    #[arg(long, default_value_t = 1.5)]
    outlier_k: f64,
    /// ops suite: the clock whose per-operation times the summary, outliers,
    /// clustering and modes are of: portable (the paper's) or counter (the
    /// cycle counter; files without one fall back to portable and say so).
    #[arg(long, value_name = "portable|counter", default_value = "portable")]
    reference_clock: ReferenceClock,
    /// Linkage for clustering operation costs.
    #[arg(long, value_enum, default_value_t = LinkageArg::Average)]
    linkage: LinkageArg,
    /// Write the file's calibration fit (portable against counter ns per op)
    /// to OUT as JSON, to apply to other files with --calibrate-with. Needs
    /// exactly one FILE.
    #[arg(long, value_name = "OUT")]
    export_fit: Option<PathBuf>,
    /// The form whose fit --export-fit writes: latency or throughput.
    #[arg(long, default_value = "latency", requires = "export_fit")]
    form: String,
    /// Apply a fit written by --export-fit to each file's portable per-op
    /// times (table, or `ops.calibrated` in --json).
    #[arg(long, value_name = "FIT")]
    calibrate_with: Option<PathBuf>,
    /// trace suite: DTW step pattern of the outer perturbation
    /// (dtw-python's symmetric1 or symmetric2).
    #[arg(long, value_enum, default_value_t = StepPatternArg::Symmetric2)]
    step_pattern: StepPatternArg,
    /// trace suite: Sakoe–Chiba band of the DTW alignment in records
    /// (|i − j| ≤ BAND); no band when absent.
    #[arg(long, value_name = "BAND")]
    band: Option<usize>,
    /// Compare the FILEs side by side instead: for every suite in two or
    /// more files, each item of each file against the first file's, with
    /// the ratio's CI and a verdict by --threshold (JSON keys in docs/cli.md).
    #[arg(long, conflicts_with_all = ["export_fit", "calibrate_with"])]
    compare: bool,
    /// Analyse the FILEs (or folders) as one campaign instead: each file an
    /// execution, grouped by machine (a campaign task's node, else the
    /// hostname); every item's machines side by side and its variance split
    /// into machine, execution and measurement components (docs/methods.md).
    #[arg(long, conflicts_with_all = ["compare", "compare_series", "export_fit", "calibrate_with"])]
    campaign: bool,
    /// With --compare: the FILEs are one side (runs of one configuration,
    /// their executions pooled) and the FILEs after --vs the other (the
    /// baseline is the FILEs' side). `--compare A1 A2 --vs B1 B2`.
    #[arg(long, value_name = "FILE", num_args = 1.., requires = "compare", conflicts_with = "pool")]
    vs: Vec<PathBuf>,
    /// With --compare: also pool executions of the same configuration on
    /// the same host from several files (samples series, alloc configs).
    #[arg(long, requires = "compare")]
    pool: bool,
    /// Compare the series of one FILE (a samples file or an import) with
    /// each other: in each unit, every series against a reference series
    /// (the lowest, e.g. hyperfine's fastest command, or --reference).
    #[arg(long, conflicts_with_all = ["export_fit", "calibrate_with", "compare"])]
    compare_series: bool,
    /// A browser measurement (the page's "Measure this browser") against
    /// NATIVE, an `ops` run of the same machine: wasm against native per
    /// paired operation, their regression and the operations the engine
    /// does badly. Needs exactly one FILE.
    #[arg(long, value_name = "NATIVE", conflicts_with_all = ["compare", "compare_series", "campaign", "export_fit", "calibrate_with"])]
    native: Option<PathBuf>,
    /// With --compare-series: the reference series, by name (every series
    /// of its unit is compared with it).
    #[arg(long, value_name = "NAME", requires = "compare_series")]
    reference: Option<String>,
    /// With --compare-series: compare every series with the others of its
    /// unit, also where the file's tool holds them unrelated (a pyperformance
    /// run, a Go package, a JMH class: by default only one benchmark's
    /// configurations or parameters are compared with each other).
    #[arg(long, requires = "compare_series")]
    every_series: bool,
    /// With --compare or --compare-series: show only the items with a
    /// `different` verdict (the counts and geometric means still cover
    /// every item).
    #[arg(long, requires = "comparing")]
    only_different: bool,
    /// With --compare or --compare-series: compare warm-up series (pyperf's)
    /// too; they are left out by default.
    #[arg(long, requires = "comparing")]
    warm_ups: bool,
    /// With --compare: exit with status 3 when any time-like item of a file
    /// is shown slower than the baseline (verdict different or within the
    /// threshold) with a ratio above 1 + PCT/100 — a CI gate. `5` or `5%`.
    #[arg(long, value_name = "PCT", requires = "compare", value_parser = parse_pct)]
    fail_if_slower: Option<f64>,
}

/// The exit status of a `--fail-if-slower` gate that trips.
const EXIT_SLOWER: u8 = 3;

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
    Md,
    Csv,
}

/// `5`, `5%` or `12.5 %` as a share (0.05); not negative, finite.
fn parse_pct(s: &str) -> Result<f64, String> {
    let t = s.trim().trim_end_matches('%').trim();
    match t.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x / 100.0),
        _ => Err(format!("expected a percentage such as 5 or 5%, not {s:?}")),
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum StepPatternArg {
    Symmetric1,
    Symmetric2,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum LinkageArg {
    Single,
    Complete,
    Average,
    Weighted,
    Ward,
    Centroid,
    Median,
}

impl From<LinkageArg> for Linkage {
    fn from(l: LinkageArg) -> Linkage {
        match l {
            LinkageArg::Single => Linkage::Single,
            LinkageArg::Complete => Linkage::Complete,
            LinkageArg::Average => Linkage::Average,
            LinkageArg::Weighted => Linkage::Weighted,
            LinkageArg::Ward => Linkage::Ward,
            LinkageArg::Centroid => Linkage::Centroid,
            LinkageArg::Median => Linkage::Median,
        }
    }
}

pub fn run(args: AnalyzeArgs) -> ExitCode {
    let defaults = Options::default();
    let limits = match crate::load::limits() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let opts = Options {
        quantile_type: QuantileType::new(args.quantile_type).unwrap_or_default(),
        confidence: args.confidence,
        bootstrap: BootstrapOptions {
            resamples: args.resamples.unwrap_or(defaults.bootstrap.resamples),
            seed: args.seed.unwrap_or(defaults.bootstrap.seed),
            confidence: args.confidence,
        },
        linkage: args.linkage.into(),
        threshold: args.threshold,
        outlier_k: args.outlier_k,
        reference_clock: args.reference_clock,
        dtw: tickbook_analysis::report::DtwOptions {
            step_pattern: match args.step_pattern {
                StepPatternArg::Symmetric1 => {
                    tickbook_analysis::stats::dtw::StepPattern::Symmetric1
                }
                StepPatternArg::Symmetric2 => {
                    tickbook_analysis::stats::dtw::StepPattern::Symmetric2
                }
            },
            band: args.band,
        },
        limits,
        ..defaults
    };
    if let Err(e) = opts.validate() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    if args.compare {
        return compare(&args, &opts);
    }
    if args.compare_series {
        return compare_series(&args, &opts);
    }
    if args.campaign {
        return campaign(&args, &opts);
    }
    if let Some(native) = &args.native {
        return native_comparison(&args, native, &opts);
    }
    if args.format == Format::Csv {
        eprintln!("error: --format csv is for --compare; a file's report is text, json or (for tickbook run's files) md");
        return ExitCode::from(2);
    }
    let inputs = load_inputs(&args.files, &opts.limits);
    if args.format == Format::Md {
        let reports = analyze_inputs(&inputs, &opts);
        let mut failed = false;
        for e in reports.iter().filter_map(|r| r.error.as_ref()) {
            failed = true;
            eprintln!("error: {e}");
        }
        return match render_run_markdown(&reports) {
            Some(text) => print_and_exit(&text, failed),
            None => {
                eprintln!("error: --format md of a file is for tickbook run's files (a commands section); other files' reports are text or json, or md with --compare");
                ExitCode::from(2)
            }
        };
    }
    if args.export_fit.is_some() && inputs.len() != 1 {
        eprintln!("error: --export-fit takes exactly one FILE (the fit is one file's)");
        return ExitCode::from(2);
    }
    let fit = match &args.calibrate_with {
        None => None,
        Some(path) => {
            let name = path.display().to_string();
            match read_file(path, &name, &opts.limits)
                .map_err(|e| format!("{name}: {e}"))
                .and_then(|b| CalibrationFit::from_json(&name, &b))
            {
                Ok(f) => Some(f),
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            }
        }
    };
    let mut reports = analyze_inputs(&inputs, &opts);

    let mut failed = false;
    for r in &reports {
        if let Some(e) = &r.error {
            failed = true;
            eprintln!("error: {e}");
        }
    }
    if let (Some(out), Some(r)) = (&args.export_fit, reports.first()) {
        if r.ok {
            if let Err(e) = export_fit(r, &args.form, out) {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if let Some(fit) = &fit {
        for r in reports.iter_mut().filter(|r| r.ok) {
            let Some(ops) = r.ops.as_mut() else {
                eprintln!("warning: {}: no ops suite, nothing to calibrate", r.file);
                continue;
            };
            match OpsView::of(ops).and_then(|v| apply_calibration(&v, fit)) {
                Ok(c) => ops.calibrated = Some(c),
                Err(e) => {
                    failed = true;
                    eprintln!("error: {}: {e}", r.file);
                }
            }
        }
    }
    let json = args.json || args.format == Format::Json;
    print_report(&reports, json, "the reports", failed, |reports| {
        let mut out = String::new();
        for r in reports.iter().filter(|r| r.ok) {
            render_file(&mut out, r);
        }
        clean_lines(&out)
    })
}

/// Print `value` as `--json` does (pretty JSON, one final newline), or as
/// `text` renders it, then exit as [`print_and_exit`]. `what` names the
/// value in the error when it cannot be printed as JSON.
fn print_report<T: serde::Serialize>(
    value: &T,
    json: bool,
    what: &str,
    failed: bool,
    text: impl FnOnce(&T) -> String,
) -> ExitCode {
    if !json {
        return print_and_exit(&text(value), failed);
    }
    match serde_json::to_string_pretty(value) {
        Ok(s) => print_and_exit(&(s + "\n"), failed),
        Err(e) => {
            eprintln!("error: cannot print {what} as JSON: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Write `text` to stdout; failure when `failed` or stdout broke. A reader
/// that stops early (`| head`) is not an error worth a message.
fn print_and_exit(text: &str, failed: bool) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            eprintln!("error: cannot write to stdout: {e}");
            return ExitCode::FAILURE;
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Write `r`'s fit of `form` to `out`.
fn export_fit(r: &FileReport, form: &str, out: &std::path::Path) -> Result<(), String> {
    let ops = r
        .ops
        .as_ref()
        .ok_or_else(|| format!("{}: no ops suite, so no calibration fit", r.file))?;
    let info = r.info.as_ref();
    let fit = CalibrationFit::export(
        &r.file,
        info.and_then(|i| i.host.as_deref()),
        info.and_then(|i| i.cpu.as_deref()),
        &OpsView::of(ops)?,
        form,
    )?;
    let json = serde_json::to_string_pretty(&fit)
        .map_err(|e| format!("cannot write the fit as JSON: {e}"))?;
    std::fs::write(out, json + "\n").map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    eprintln!(
        "wrote the {form} fit of {} to {} (y = {:.6} + {:.6}·x, r = {:.6}, n = {})",
        r.file,
        out.display(),
        fit.intercept,
        fit.slope,
        fit.r,
        fit.n
    );
    Ok(())
}

/// A file that cannot even be opened is reported like any other bad file.
/// Every input's report, over the pool's threads (main.rs), in the inputs'
/// order; an unreadable one is a report with its error.
fn analyze_inputs(inputs: &[crate::load::Input], opts: &Options) -> Vec<FileReport> {
    inputs
        .par_iter()
        .map(|input| match &input.bytes {
            Ok(bytes) => analyze_bytes(&input.name, bytes, opts),
            Err(message) => unreadable(&input.name, message, opts),
        })
        .collect()
}

fn unreadable(name: &str, message: &str, opts: &Options) -> FileReport {
    let mut r = analyze_bytes(name, b"", opts);
    r.error = Some(ReadError {
        file: name.to_string(),
        path: None,
        message: message.to_string(),
    });
    r
}

/// `--compare-series`: one file's series against a reference series (the
/// Comparison cell across files, of one file).
fn compare_series(args: &AnalyzeArgs, opts: &Options) -> ExitCode {
    let inputs = load_inputs(&args.files, &opts.limits);
    let [input] = &inputs[..] else {
        eprintln!(
            "error: --compare-series takes one FILE ({} given): its series are compared with each other",
            inputs.len()
        );
        return ExitCode::from(2);
    };
    let bytes = match &input.bytes {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {}: {e}", input.name);
            return ExitCode::FAILURE;
        }
    };
    let file = KeptFile::read(&input.name, bytes, opts);
    let params = CompareParams {
        series: true,
        reference: args.reference.clone(),
        warm_ups: args.warm_ups,
        every: args.every_series,
        ..CompareParams::default()
    };
    match Compare::compute(&[&file], opts, &params) {
        Ok(report) => print_compare(args, &report, false),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The Comparison cell (files side by side or one file's series) as
/// `--format` asks.
fn print_compare(args: &AnalyzeArgs, report: &CompareReport, failed: bool) -> ExitCode {
    let format = if args.json { Format::Json } else { args.format };
    let style = match format {
        Format::Md => Style::Markdown,
        Format::Csv => Style::Csv,
        Format::Text | Format::Json => Style::Text,
    };
    print_report(
        report,
        format == Format::Json,
        "the comparison",
        failed,
        |r| render_compare(r, style, args.only_different),
    )
}

/// One side's files: (name, document or why it is unreadable).
type Side = Vec<(String, Result<Document, String>)>;

/// `--compare A1 A2 --vs B1 B2`: each side's files read, then compared as
/// sides of pooled runs. (The read documents, whether any failed.)
fn read_sides(args: &AnalyzeArgs, opts: &Options) -> (Vec<Side>, bool) {
    let mut failed = false;
    let mut sides = Vec::new();
    for paths in [&args.files, &args.vs] {
        let mut side = Vec::new();
        for input in load_inputs(paths, &opts.limits) {
            let doc = match input.bytes {
                Ok(b) => {
                    read_document_within(&input.name, &b, &opts.limits).map_err(|e| e.to_string())
                }
                Err(e) => Err(format!("{}: {e}", input.name)),
            };
            if let Err(e) = &doc {
                eprintln!("error: {e}");
                failed = true;
            }
            side.push((input.name, doc));
        }
        sides.push(side);
    }
    (sides, failed)
}

/// `--compare`: the page's Comparison cell in the terminal (or its JSON).
fn compare(args: &AnalyzeArgs, opts: &Options) -> ExitCode {
    let settings = CompareSettings {
        pool: args.pool,
        warm_ups: args.warm_ups,
    };
    let (report, failed) = if args.vs.is_empty() {
        match compare_inputs(args, opts, settings) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        let (sides, failed) = read_sides(args, opts);
        (
            CompareReport::Files(compare_sides(&sides, opts, settings)),
            failed,
        )
    };
    let code = print_compare(args, &report, failed);
    let CompareReport::Files(report) = report else {
        return code;
    };
    // An unreadable file fails the run first: the gate saw only part of it.
    let Some(share) = args.fail_if_slower.filter(|_| !failed) else {
        return code;
    };
    let slower = slower_than(&report, share);
    if slower.is_empty() {
        return code;
    }
    for line in &slower {
        eprintln!("slower: {}", clean_lines(line));
    }
    eprintln!(
        "error: {} item(s) slower than the baseline by more than {} (--fail-if-slower)",
        slower.len(),
        fmt_share(share)
    );
    ExitCode::from(EXIT_SLOWER)
}

/// `--compare FILE…`: files and folders read as `analyze` reads them (a
/// Criterion.rs folder's saved baseline beside its latest run), compared
/// (the Comparison cell across files).
fn compare_inputs(
    args: &AnalyzeArgs,
    opts: &Options,
    settings: CompareSettings,
) -> Result<(CompareReport, bool), String> {
    let inputs = criterion_baselines(&args.files, &opts.limits)
        .unwrap_or_else(|| load_inputs(&args.files, &opts.limits));
    let (files, mut failed) = read_inputs(inputs, opts);
    let refs: Vec<&KeptFile> = files.iter().collect();
    let params = CompareParams {
        pool: settings.pool,
        warm_ups: settings.warm_ups,
        ..CompareParams::default()
    };
    let report = Compare::compute(&refs, opts, &params)?;
    if let CompareReport::Files(r) = &report {
        for f in r.files.iter().filter(|f| !f.ok) {
            failed = true;
            eprintln!("error: {}", f.error.as_deref().unwrap_or("unreadable"));
        }
    }
    Ok((report, failed))
}

/// Inputs read and kept, as the page keeps its files; those that could not
/// be opened get one line each on stderr (and the second value is true).
fn read_inputs(inputs: Vec<crate::load::Input>, opts: &Options) -> (Vec<KeptFile>, bool) {
    let mut files = Vec::new();
    let mut failed = false;
    for input in inputs {
        match input.bytes {
            Ok(b) => files.push(KeptFile::read(&input.name, &b, opts)),
            Err(e) => {
                eprintln!("error: {}: {e}", input.name);
                failed = true;
            }
        }
    }
    (files, failed)
}

/// `--native`: one browser file against a native `ops` file (the cell
/// across files WebAssembly against native).
fn native_comparison(args: &AnalyzeArgs, native: &std::path::Path, opts: &Options) -> ExitCode {
    let mut inputs = load_inputs(&args.files, &opts.limits);
    inputs.extend(load_inputs(
        std::slice::from_ref(&native.to_path_buf()),
        &opts.limits,
    ));
    let [browser, native] = &inputs[..] else {
        eprintln!("error: --native takes one FILE (the browser measurement) and one NATIVE file");
        return ExitCode::from(2);
    };
    let (b, n) = match (&browser.bytes, &native.bytes) {
        (Ok(b), Ok(n)) => (b, n),
        (Err(e), _) => {
            eprintln!("error: {}: {e}", browser.name);
            return ExitCode::FAILURE;
        }
        (_, Err(e)) => {
            eprintln!("error: {}: {e}", native.name);
            return ExitCode::FAILURE;
        }
    };
    let files = [
        KeptFile::read(&browser.name, b, opts),
        KeptFile::read(&native.name, n, opts),
    ];
    let report = match Native::compute(&[&files[0], &files[1]], opts, &Default::default()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let json = args.json || args.format == Format::Json;
    print_report(&report, json, "the comparison", false, |r| {
        clean_lines(&render_native(r))
    })
}

/// `--campaign`: the files as one campaign (the cell across files), in the
/// terminal or as JSON.
fn campaign(args: &AnalyzeArgs, opts: &Options) -> ExitCode {
    if matches!(args.format, Format::Md | Format::Csv) {
        eprintln!("error: --format md and csv are for --compare; a campaign is text or json");
        return ExitCode::from(2);
    }
    let (files, mut failed) = read_inputs(load_inputs(&args.files, &opts.limits), opts);
    let refs: Vec<&KeptFile> = files.iter().collect();
    let report = match Campaign::compute(&refs, opts, &Default::default()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    for f in report.files.iter().filter(|f| !f.ok) {
        failed = true;
        eprintln!("error: {}", f.error.as_deref().unwrap_or("unreadable"));
    }
    let json = args.json || args.format == Format::Json;
    print_report(&report, json, "the campaign", failed, |r| {
        clean_lines(&render_campaign(r))
    })
}

/// 0.05 as `5%`.
fn fmt_share(share: f64) -> String {
    format!("{}%", share * 100.0)
}
