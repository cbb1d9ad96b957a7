//! `tickbook analyze`: the page's analyses in the terminal.
//!
//! Every number comes from `tickbook_analysis::report`, the same model the
//! page renders, so `--json` prints exactly what the page shows. Bad files get
//! one line each on stderr and a non-zero exit; good files are still shown.

use crate::load::load_inputs;
use clap::Args;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use tickbook_analysis::read::ReadError;
use tickbook_analysis::report::compare_files;
use tickbook_analysis::report::{
    analyze_bytes, apply_calibration, CalibrationFit, ClocksReport, ExecutionStats, FileReport,
    OpsView, Options, ReferenceClock, SamplesReport,
};
use tickbook_analysis::stats::bootstrap::BootstrapOptions;
use tickbook_analysis::stats::cluster::Linkage;
use tickbook_analysis::stats::QuantileType;

#[derive(Args)]
pub struct AnalyzeArgs {
    /// Result files (tickbook runs, `samples` files, other harnesses'
    /// results) and folders: a Criterion.rs folder is one file, any other
    /// folder each JSON file in it.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print a JSON array of per-file reports (keys in docs/cli.md) instead of tables.
    #[arg(long)]
    json: bool,
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
    /// With --compare: also pool executions of the same configuration on
    /// the same host from several files (samples series, alloc configs).
    #[arg(long, requires = "compare")]
    pool: bool,
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
    let inputs = load_inputs(&args.files, &opts.limits);
    if args.export_fit.is_some() && inputs.len() != 1 {
        eprintln!("error: --export-fit takes exactly one FILE (the fit is one file's)");
        return ExitCode::from(2);
    }
    let fit = match &args.calibrate_with {
        None => None,
        Some(path) => {
            let name = path.display().to_string();
            match std::fs::read(path)
                .map_err(|e| format!("{name}: cannot read the file: {e}"))
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
    let mut reports: Vec<FileReport> = inputs
        .iter()
        .map(|input| match &input.bytes {
            Ok(bytes) => analyze_bytes(&input.name, bytes, &opts),
            Err(message) => unreadable(&input.name, message, &opts),
        })
        .collect();

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
    let text = if args.json {
        match serde_json::to_string_pretty(&reports) {
            Ok(s) => s + "\n",
            Err(e) => {
                eprintln!("error: cannot print the reports as JSON: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        let mut out = String::new();
        for r in reports.iter().filter(|r| r.ok) {
            render_file(&mut out, r);
        }
        clean_lines(&out)
    };
    print_and_exit(&text, failed)
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
fn unreadable(name: &str, message: &str, opts: &Options) -> FileReport {
    let mut r = analyze_bytes(name, b"", opts);
    r.error = Some(ReadError {
        file: name.to_string(),
        path: None,
        message: message.to_string(),
    });
    r
}

/// One file: its header, then every cell the page shows, in the page's order
/// (web/src/notebook.js). The report is taken apart field by field, so a
/// cell added to `FileReport` does not compile here until it has a table.
fn render_file(out: &mut String, r: &FileReport) {
    let FileReport {
        file,
        ok: _,
        error: _,
        kind: _,
        info,
        warnings,
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
    let _ = writeln!(out, "== {file}");
    if let Some(i) = info {
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
    for w in warnings {
        let _ = writeln!(out, "   warning: {}", clean(w));
    }
    if let Some(c) = clocks {
        render_clocks(out, c);
    }
    if let Some(b) = bernoulli {
        crate::analyze_timing::render_bernoulli(out, b);
    }
    if let Some(o) = ops {
        crate::analyze_timing::render_ops(out, o);
    }
    if let Some(c) = copy {
        crate::analyze_memory::render_copy(out, c);
    }
    if let Some(a) = alloc {
        crate::analyze_memory::render_alloc(out, a);
    }
    if let Some(t) = trace {
        render_trace(out, t);
    }
    if let Some(b) = bottleneck {
        crate::analyze_memory::render_bottleneck(out, b);
    }
    if let Some(s) = samples {
        render_samples(out, s);
    }
    let _ = writeln!(out);
}

/// A cell's first line: `-- Title (what it is of)`, the page's cell title.
pub(crate) fn cell_title(out: &mut String, title: &str, detail: &str) {
    if detail.is_empty() {
        let _ = writeln!(out, "\n-- {title}");
    } else {
        let _ = writeln!(out, "\n-- {title} ({detail})");
    }
}

/// A table's title line inside a cell.
pub(crate) fn subtitle(out: &mut String, text: &str) {
    let _ = writeln!(out, "\n   {text}");
}

/// The Clocks cell: the clock table, scans, steps, the cross-CPU check, the
/// TSC frequency sources and the fallbacks.
fn render_clocks(out: &mut String, c: &ClocksReport) {
    cell_title(
        out,
        "Clocks",
        &format!("read cost timed by {}", c.reference),
    );
    let mut t = Table::new(&[
        "clock",
        "nominal",
        "tick",
        "modal step",
        "median read",
        "p99 read",
        "backwards",
    ]);
    for row in &c.clocks {
        if !row.available {
            t.row(vec![
                row.name.clone(),
                format!(
                    "unavailable: {}",
                    row.unavailable_reason
                        .as_deref()
                        .unwrap_or("no reason recorded")
                ),
            ]);
            continue;
        }
        t.row(vec![
            row.name.clone(),
            opt_ns(row.nominal_resolution_ns),
            opt_ns(row.observed_tick_ns),
            opt_ns(row.modal_step_ns),
            opt_ns(row.read_cost.as_ref().map(|s| s.median)),
            opt_ns(row.read_cost_p99_ns),
            match row.largest_violation_ns {
                Some(back) if row.violations > 0 => {
                    format!("{}, up to {} back", row.violations, fmt_ns(back))
                }
                _ => row.violations.to_string(),
            },
        ]);
    }
    t.render(out);

    subtitle(
        out,
        "Scans (reads back to back) and read-cost batches; steps: the most frequent steps between consecutive reads",
    );
    let mut t = Table::new(&[
        "clock",
        "scan reads",
        "scan time",
        "stopped by",
        "batch",
        "timed by",
        "steps (count)",
    ])
    .text(6);
    for row in c.clocks.iter().filter(|r| r.available) {
        let mut bins: Vec<&tickbook_analysis::report::StepBin> =
            row.step_histogram.iter().collect();
        bins.sort_by(|a, b| b.count.cmp(&a.count).then(a.step_ns.total_cmp(&b.step_ns)));
        let shown = 4;
        let mut steps: Vec<String> = steps_text(&bins[..bins.len().min(shown)]);
        let others: u64 =
            bins.iter().skip(shown).map(|b| b.count).sum::<u64>() + row.steps_not_shown;
        if others > 0 {
            steps.push(format!("{others} other"));
        }
        t.row(vec![
            row.name.clone(),
            row.scan_reads.to_string(),
            opt_ns(row.scan_duration_ns),
            row.scan_stopped_by.clone().unwrap_or_else(|| "—".into()),
            row.read_cost_batch
                .map(|b| b.to_string())
                .unwrap_or_else(|| "—".into()),
            row.read_cost_reference
                .clone()
                .unwrap_or_else(|| c.reference.clone()),
            if steps.is_empty() {
                "—".into()
            } else {
                steps.join(", ")
            },
        ]);
    }
    t.render(out);

    if !c.cross_cpu.is_empty() {
        subtitle(
            out,
            "Across CPUs: reads just before and after moving the thread; a skew below the smallest step cannot show",
        );
        let mut t = Table::new(&[
            "clock",
            "CPUs",
            "moves",
            "not moved",
            "backwards",
            "smallest step",
            "median step",
        ]);
        for x in &c.cross_cpu {
            t.row(vec![
                x.clock.clone(),
                x.cpus
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
                x.migrations.to_string(),
                x.not_moved.to_string(),
                x.backwards.to_string(),
                opt_ns(x.min_step_ns),
                opt_ns(x.median_step_ns),
            ]);
        }
        t.render(out);
    }

    let f = &c.frequency;
    subtitle(out, "TSC frequency sources");
    let mut t = Table::new(&["source", "MHz", "ppm from median"]);
    for s in &f.sources {
        match s.hz {
            Some(hz) => t.row(vec![
                s.name.clone(),
                format!("{:.4}", hz / 1e6),
                s.ppm_from_median
                    .map(|p| format!("{p:+.3}"))
                    .unwrap_or_default(),
            ]),
            None => t.row(vec![
                s.name.clone(),
                format!("unreadable: {}", s.error.as_deref().unwrap_or("no reason")),
            ]),
        }
    }
    t.render(out);
    if let Some(hz) = f.median_hz {
        let _ = writeln!(
            out,
            "   median of {} readable sources: {:.4} MHz",
            f.readable.len(),
            hz / 1e6
        );
    }
    if let Some(spread) = f.spread_ppm {
        let _ = writeln!(
            out,
            "   spread across {} readable sources: {spread:.3} ppm",
            f.readable.len()
        );
    }
    if let (Some(hz), Some(src)) = (c.tsc_hz, &c.tsc_hz_source) {
        let _ = writeln!(out, "   ticks converted with {:.4} MHz ({src})", hz / 1e6);
    }
    if c.fallbacks.is_empty() {
        let _ = writeln!(out, "   fallbacks: none");
    }
    for fb in &c.fallbacks {
        let _ = writeln!(out, "   fallback: {fb}");
    }
}

/// Steps with their counts, each step with as many digits as it takes to
/// tell it from the others shown (a coarse clock's 3.999998 ms and 4.000002 ms).
fn steps_text(bins: &[&tickbook_analysis::report::StepBin]) -> Vec<String> {
    let mut digits = 4;
    loop {
        let texts: Vec<String> = bins
            .iter()
            .map(|b| {
                let (scale, unit) = time_unit(b.step_ns);
                format!("{} {unit}", sig(b.step_ns / scale, digits))
            })
            .collect();
        let distinct = texts
            .iter()
            .enumerate()
            .all(|(i, t)| !texts[..i].contains(t));
        if distinct || digits >= 10 {
            return texts
                .into_iter()
                .zip(bins)
                .map(|(t, b)| format!("{t} ({})", b.count))
                .collect();
        }
        digits += 1;
    }
}

/// The Samples cell: the summary of every series, the execution statistics,
/// the outliers, each execution, and the series clustered by cost.
fn render_samples(out: &mut String, s: &SamplesReport) {
    let qt = s
        .series
        .first()
        .map(|x| x.summary.quantile_type.number().to_string())
        .unwrap_or_default();
    cell_title(
        out,
        "Samples",
        &format!("all measurements of each series pooled; quartiles of Hyndman–Fan type {qt}"),
    );
    if let Some(d) = &s.description {
        let _ = writeln!(out, "   {d}");
    }
    let mut t = Table::new(&[
        "series",
        "executions",
        "n",
        "min",
        "Q1",
        "median",
        "mean",
        "Q3",
        "max",
        "sd",
        "CV",
        "outliers",
    ]);
    for x in &s.series {
        let m = &x.summary;
        let v = |v: f64| series_value(v, x);
        t.row(vec![
            x.name.clone(),
            x.executions.to_string(),
            m.n.to_string(),
            v(m.min),
            v(m.q1),
            v(m.median),
            v(m.mean),
            v(m.q3),
            v(m.max),
            m.sd.map(v).unwrap_or_else(|| "—".into()),
            m.cv.map(pct).unwrap_or_else(|| "—".into()),
            x.outliers.len().to_string(),
        ]);
    }
    t.render(out);
    subtitle(
        out,
        "Execution statistics: between- against within-execution noise",
    );
    render_execution_stats(out, s);
    render_execution_details(out, s);
    render_impact(
        out,
        &["series"],
        s.series
            .iter()
            .filter_map(|x| Some((vec![x.name.clone()], x.execution_stats.as_ref()?)))
            .collect(),
    );

    let outliers: Vec<_> = s
        .series
        .iter()
        .flat_map(|x| x.outliers.iter().map(move |o| (x, o)))
        .collect();
    if outliers.is_empty() {
        subtitle(
            out,
            "Outliers: none (every measurement within the Tukey fences)",
        );
    } else {
        subtitle(
            out,
            "Outliers: measurements outside the Tukey fences; execution and index are 0-based positions in the file",
        );
        let mut t = Table::new(&["series", "execution", "index", "value", "how far"]);
        for (x, o) in outliers {
            t.row(vec![
                x.name.clone(),
                o.execution.to_string(),
                o.index.to_string(),
                series_value(o.value, x),
                if o.extreme {
                    "extreme".into()
                } else {
                    "outlier".into()
                },
            ]);
        }
        t.render(out);
    }

    subtitle(out, "Per execution (one process run each)");
    let mut t = Table::new(&["series", "execution", "n", "mean", "median", "sd"]);
    for x in &s.series {
        for (i, e) in x.per_execution.iter().enumerate() {
            t.row(vec![
                x.name.clone(),
                i.to_string(),
                e.n.to_string(),
                series_value(e.mean, x),
                series_value(e.median, x),
                e.sd.map(|v| series_value(v, x))
                    .unwrap_or_else(|| "—".into()),
            ]);
        }
    }
    t.render(out);

    if let Some(c) = &s.clustering {
        crate::analyze_timing::render_clustering(
            out,
            &format!("Clusters of series ({})", c.basis),
            &c.clustering,
            "series",
        );
        if !c.left_out.is_empty() {
            let left: Vec<String> = c
                .left_out
                .iter()
                .map(|(n, u)| format!("{n} ({u})"))
                .collect();
            let _ = writeln!(out, "   left out (not a time unit): {}", left.join(", "));
        }
    }
}

/// A value of a samples series: time units scaled (as the page's
/// `fmtSeriesValue`), anything else with five significant digits and its unit.
fn series_value(v: f64, x: &tickbook_analysis::report::SeriesReport) -> String {
    match x.unit_ns {
        Some(k) => fmt_ns(v * k),
        None => format!("{} {}", sig(v, 5), x.unit),
    }
}

/// What the page's execution-statistics block shows besides the line above:
/// the variance components (T₁² within executions and T₂² between them,
/// Kalibera and Jones's levels 1 and 2), the hierarchical bootstrap mean,
/// the modes among execution means, and the planning table.
fn render_execution_details(out: &mut String, s: &SamplesReport) {
    let with: Vec<_> = s
        .series
        .iter()
        .filter_map(|x| Some((x, x.execution_stats.as_ref()?)))
        .collect();
    if with.is_empty() {
        return;
    }
    let mut t = Table::new(&[
        "series",
        "executions",
        "T₁² (within)",
        "T₂² (between)",
        "mean, hierarchical bootstrap",
        "modes among execution means",
    ]);
    for (x, e) in &with {
        let sq = |v: Option<f64>| {
            v.map(|v| format!("{} {}²", sig(v, 4), x.unit))
                .unwrap_or_else(|| "—".into())
        };
        let re = e.random_effects.as_ref();
        let modes = match &e.modes {
            None => "—".to_string(),
            Some(m) if m.k < 2 => "1".to_string(),
            Some(m) => format!(
                "{}: {}",
                m.k,
                m.centres
                    .iter()
                    .zip(&m.sizes)
                    .map(|(c, n)| format!("{} ({n})", series_value(*c, x)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        t.row(vec![
            x.name.clone(),
            e.executions.to_string(),
            sq(re.map(|r| r.t1_sq)),
            sq(re.and_then(|r| r.t2_sq)),
            ci_with(e.mean_hierarchical.as_ref(), |v| series_value(v, x)),
            modes,
        ]);
    }
    t.render(out);
    let planned: Vec<_> = with
        .iter()
        .filter(|(_, e)| !e.planning.is_empty())
        .collect();
    if planned.is_empty() {
        return;
    }
    subtitle(
        out,
        "Planning: for an execution costing as much as N measurements, the cost-optimal measurements per execution and the executions then needed for a ±1 % or ±5 % interval",
    );
    let mut t = Table::new(&[
        "series",
        "execution cost",
        "measurements / execution",
        "executions for ±1 %",
        "executions for ±5 %",
    ]);
    let n = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_else(|| "—".into());
    for (x, e) in planned {
        for p in &e.planning {
            t.row(vec![
                x.name.clone(),
                format!("{}", p.execution_cost),
                n(p.measurements_per_execution),
                n(p.executions_for_1pct),
                n(p.executions_for_5pct),
            ]);
        }
    }
    t.render(out);
}

/// The impact factor of each row that has one (1 = no execution effect)
/// against the same data with the measurements shuffled across executions
/// (the p-value and the factor's central range over the shuffles, "noise
/// alone"), and the paper's statistic beside its value on the shuffles.
/// `key` heads the columns naming a row; the Samples and Allocation cells
/// share this table.
pub(crate) fn render_impact(
    out: &mut String,
    key: &[&str],
    rows: Vec<(Vec<String>, &ExecutionStats)>,
) {
    let rows: Vec<_> = rows
        .into_iter()
        .filter_map(|(k, e)| Some((k, e, e.impact_factor.as_ref()?, e.impact_null.as_ref()?)))
        .collect();
    if rows.is_empty() {
        return;
    }
    subtitle(
        out,
        "Impact factor: sqrt(variance across executions / within one), 1 = no execution effect; p = share of shuffles of the measurements across executions (no execution effect) giving a factor as large; noise alone = the factor's central range over the shuffles; the paper's statistic (Hocko & Kalibera: mean SD ratio of random group pairs) is above 1 with no execution effect, by the amount in the last column",
    );
    let mut head = key.to_vec();
    head.extend([
        "impact factor",
        "p",
        "shuffles",
        "noise alone",
        "paper's statistic",
        "paper's, no execution effect",
    ]);
    let mut t = Table::new(&head);
    for (k, e, f, n) in rows {
        let mut row = k;
        row.extend([
            ci_with(Some(f), factor),
            sig(n.p_value, 2),
            n.permutations.to_string(),
            format!("{} to {}", factor(n.band.0), factor(n.band.1)),
            ci_with(e.impact_factor_paper.as_ref(), factor),
            n.paper_mean.map(factor).unwrap_or_else(|| "—".into()),
        ]);
        t.row(row);
    }
    t.render(out);
}

/// Per-series execution statistics (between- vs within-execution noise) and,
/// for imported files, what the tool itself reported.
fn render_execution_stats(out: &mut String, s: &SamplesReport) {
    let ci = |c: &Option<tickbook_analysis::stats::bootstrap::BootstrapCi>| {
        c.as_ref()
            .map(|c| {
                format!(
                    "{} [{}, {}]",
                    sig(c.estimate, 4),
                    sig(c.lo, 4),
                    sig(c.hi, 4)
                )
            })
            .unwrap_or_else(|| "-".into())
    };
    for x in &s.series {
        let Some(e) = &x.execution_stats else {
            continue;
        };
        if e.executions < 2 {
            continue;
        }
        let mut line = format!("   executions of {}: {}", x.name, e.executions);
        if let Some(re) = &e.random_effects {
            if let Some((lo, hi)) = re.ci {
                let _ = write!(
                    line,
                    "; mean of execution means {} {} ({}% CI {} to {}, random effects)",
                    sig(re.mean, 5),
                    x.unit,
                    sig(100.0 * re.confidence, 3),
                    sig(lo, 5),
                    sig(hi, 5)
                );
            }
        } else if let Some(b) = &e.mean_bootstrap {
            let _ = write!(
                line,
                "; mean {} {} (bootstrap CI)",
                ci(&Some(b.clone())),
                x.unit
            );
        }
        let _ = write!(
            line,
            "; CV within {}, overall {}",
            ci(&e.cv_within),
            ci(&e.cv_overall)
        );
        let _ = writeln!(out, "{line}");
    }
    for x in &s.series {
        if let Some(t) = x.tool_statistics.as_ref().and_then(|t| t.as_object()) {
            // One number per statistic: a point estimate, a value, or a pair.
            let num = |v: &serde_json::Value| v.as_f64().map(|f| sig(f, 5));
            let parts: Vec<String> = t
                .iter()
                .filter_map(|(k, v)| {
                    let shown = num(v)
                        .or_else(|| {
                            ["point_estimate", "estimate", "value"]
                                .iter()
                                .find_map(|f| v.get(*f).and_then(num))
                        })
                        .or_else(|| {
                            let a = v.as_array()?;
                            Some(format!(
                                "[{}]",
                                a.iter()
                                    .map(|e| num(e).unwrap_or_else(|| e.to_string()))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ))
                        })
                        .or_else(|| v.as_str().map(str::to_string))?;
                    Some(format!("{k} {shown}"))
                })
                .collect();
            let _ = writeln!(
                out,
                "   tool's own figures for {}: {}",
                x.name,
                parts.join(", ")
            );
        }
    }
}

/// The Perturbation cell (trace suite): unavailable metrics, then per
/// workload the levels, the inner and outer correlations against the
/// baseline spread, the aligned examples and every run.
fn render_trace(out: &mut String, t: &tickbook_analysis::report::TraceReport) {
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
        let marked = |c: &tickbook_analysis::report::Change| {
            format!("{}{}", r3(c.correlation), mark(c.flagged))
        };
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

/// A duration in ns, scaled to ns/µs/ms/s with four significant digits
/// (the unit chosen after rounding: 999.96 ns is 1.000 µs).
pub fn fmt_ns(ns: f64) -> String {
    let (scale, unit) = time_unit(ns);
    format!("{} {unit}", sig(ns / scale, 4))
}

/// The unit `fmt_ns` shows `ns` in, and its size in ns.
fn time_unit(ns: f64) -> (f64, &'static str) {
    let a = sig(ns, 4).parse::<f64>().unwrap_or(ns).abs();
    if a >= 1e9 {
        (1e9, "s")
    } else if a >= 1e6 {
        (1e6, "ms")
    } else if a >= 1e3 {
        (1e3, "µs")
    } else {
        (1.0, "ns")
    }
}

/// A CI of durations, its ends in the estimate's unit: `296.9 µs [295.1, 298.0]`.
pub(crate) fn ns_ci(ci: Option<&tickbook_analysis::stats::bootstrap::BootstrapCi>) -> String {
    match ci {
        Some(c) => {
            let (scale, unit) = time_unit(c.estimate);
            format!(
                "{} {unit} [{}, {}]",
                sig(c.estimate / scale, 4),
                sig(c.lo / scale, 4),
                sig(c.hi / scale, 4)
            )
        }
        None => "—".into(),
    }
}

pub(crate) fn opt_ns(v: Option<f64>) -> String {
    v.map(fmt_ns).unwrap_or_else(|| "—".into())
}

/// `digits` significant digits, without exponent for everyday magnitudes.
pub fn sig(v: f64, digits: usize) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let digits = digits.max(1);
    // The magnitude after rounding, so that 9.9996 to four digits is 10.00.
    let e = format!("{:.*e}", digits - 1, v);
    let mag: i32 = e
        .rsplit('e')
        .next()
        .and_then(|x| x.parse().ok())
        .unwrap_or(0);
    if !(-4..=9).contains(&mag) {
        return e;
    }
    let decimals = (digits as i32 - 1 - mag).max(0) as usize;
    format!("{v:.decimals$}")
}

/// A confidence level or a planned share: 95%, 99.9%.
pub(crate) fn level(x: f64) -> String {
    let p = x * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{p:.0}%")
    } else {
        format!("{}%", sig(p, 3))
    }
}

/// A mark after a value: ` *` when `on`, else two spaces, so that marked
/// and unmarked values stay aligned in a right-aligned column.
pub(crate) fn mark(on: bool) -> &'static str {
    if on {
        " *"
    } else {
        "  "
    }
}

/// A share as a percentage with three significant digits: 8.87%.
pub(crate) fn pct(ratio: f64) -> String {
    format!("{}%", sig(100.0 * ratio, 3))
}

/// A signed share: +12.3%, -4.56%, 0%.
pub(crate) fn signed_pct(ratio: f64) -> String {
    if ratio > 0.0 {
        format!("+{}", pct(ratio))
    } else {
        pct(ratio)
    }
}

/// A factor with three significant digits: 1.70×; `∞×` for an interval end
/// the data cannot bound (the analysis gives it as the largest double).
pub(crate) fn factor(x: f64) -> String {
    if x >= UNBOUNDED {
        return "∞×".into();
    }
    format!("{}×", sig(x, 3))
}

/// From here up a number stands for "no bound": JSON has no infinity, so
/// the analysis writes the largest double.
pub(crate) const UNBOUNDED: f64 = 1e300;

/// `estimate [lo, hi]` of a bootstrap CI, each formatted with `f`.
pub(crate) fn ci_with(
    ci: Option<&tickbook_analysis::stats::bootstrap::BootstrapCi>,
    f: impl Fn(f64) -> String,
) -> String {
    match ci {
        Some(c) => format!("{} [{}, {}]", f(c.estimate), f(c.lo), f(c.hi)),
        None => "—".into(),
    }
}

/// Bytes as B, KiB or MiB (three significant digits above 1 KiB).
pub(crate) fn fmt_bytes(n: u64) -> String {
    if n >= 1 << 20 {
        format!("{} MiB", sig(n as f64 / 1048576.0, 3))
    } else if n >= 1 << 10 {
        format!("{} KiB", sig(n as f64 / 1024.0, 3))
    } else {
        format!("{n} B")
    }
}

/// A wall time: ns to s below a minute, then min, h, days, years (the
/// page's `fmtWall`).
pub(crate) fn wall(ns: f64) -> String {
    let s = ns / 1e9;
    if s < 60.0 {
        let (scale, unit) = time_unit(ns);
        format!("{} {unit}", sig(ns / scale, 3))
    } else if s < 3600.0 {
        format!("{} min", sig(s / 60.0, 3))
    } else if s < 86400.0 * 2.0 {
        format!("{} h", sig(s / 3600.0, 3))
    } else if s < 86400.0 * 365.0 * 2.0 {
        format!("{} days", sig(s / 86400.0, 3))
    } else {
        format!("{} years", sig(s / (86400.0 * 365.25), 3))
    }
}

/// Control characters in names from a file (escape sequences, newlines)
/// shown escaped, so they can neither drive the terminal nor break a table.
pub(crate) fn clean(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// `clean` line by line: the output's own line breaks kept.
pub(crate) fn clean_lines(text: &str) -> String {
    text.split('\n').map(clean).collect::<Vec<_>>().join("\n")
}

/// Text columns left-aligned; a column whose values are all numbers (or a
/// placeholder) right-aligned, its heading too.
pub(crate) struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    /// Columns kept left-aligned even when their values start with a digit.
    text: Vec<usize>,
}

impl Table {
    pub(crate) fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            text: Vec::new(),
        }
    }

    /// Keep column `col` left-aligned (labels such as "1 distinct (0, 0)").
    pub(crate) fn text(mut self, col: usize) -> Table {
        self.text.push(col);
        self
    }

    /// A row; one shorter than the heading ends in a note that spans the
    /// remaining columns (an "unavailable: …" reason); extra cells go into
    /// the last one.
    pub(crate) fn row(&mut self, cells: Vec<String>) {
        let cols = self.header.len().max(1);
        let mut cells: Vec<String> = cells.iter().map(|c| clean(c)).collect();
        if cells.len() > cols {
            let rest = cells.split_off(cols - 1).join("  ");
            cells.push(rest);
        }
        self.rows.push(cells);
    }

    pub(crate) fn render(&self, out: &mut String) {
        let cols = self.header.len();
        let full = || self.rows.iter().filter(|r| r.len() == cols);
        let placeholder = |c: &str| matches!(c, "—" | "-" | "n/a");
        let number =
            |c: &str| c.starts_with(|ch: char| ch.is_ascii_digit() || ch == '-' || ch == '+');
        let numeric: Vec<bool> = (0..cols)
            .map(|i| {
                i > 0
                    && !self.text.contains(&i)
                    && full().any(|r| number(&r[i]) && !placeholder(&r[i]))
                    && full().all(|r| number(&r[i]) || placeholder(&r[i]))
            })
            .collect();
        let mut width = vec![0usize; cols];
        for r in std::iter::once(&self.header).chain(full()) {
            for (w, c) in width.iter_mut().zip(r) {
                *w = (*w).max(c.chars().count());
            }
        }
        for r in std::iter::once(&self.header).chain(&self.rows) {
            let mut line = String::from("   ");
            for (i, c) in r.iter().enumerate() {
                let pad = width[i].saturating_sub(c.chars().count());
                if r.len() < cols && i == r.len() - 1 {
                    line.push_str(c);
                } else if numeric[i] {
                    line.push_str(&" ".repeat(pad));
                    line.push_str(c);
                } else {
                    line.push_str(c);
                    line.push_str(&" ".repeat(pad));
                }
                line.push_str("  ");
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
}

/// `--compare`: the page's Comparison cell in the terminal (or its JSON).
fn compare(args: &AnalyzeArgs, opts: &Options) -> ExitCode {
    let mut read: Vec<(String, Vec<u8>)> = Vec::new();
    let mut failed = false;
    for input in load_inputs(&args.files, &opts.limits) {
        match input.bytes {
            Ok(b) => read.push((input.name, b)),
            Err(e) => {
                eprintln!("error: {}: {e}", input.name);
                failed = true;
            }
        }
    }
    let entries: Vec<(&str, &[u8])> = read.iter().map(|(n, b)| (n.as_str(), &b[..])).collect();
    let report = compare_files(&entries, opts, args.pool);
    for f in report.files.iter().filter(|f| !f.ok) {
        failed = true;
        eprintln!("error: {}", f.error.as_deref().unwrap_or("unreadable"));
    }
    let text = if args.json {
        match serde_json::to_string_pretty(&report) {
            Ok(s) => s + "\n",
            Err(e) => {
                eprintln!("error: cannot print the comparison as JSON: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        clean_lines(&crate::analyze_compare::render_comparison(&report))
    };
    print_and_exit(&text, failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_digits_and_units() {
        assert_eq!(sig(12.3456, 4), "12.35");
        assert_eq!(sig(0.0012345, 3), "0.00123");
        assert_eq!(sig(1234.6, 4), "1235");
        assert_eq!(fmt_ns(4_000_000.0), "4.000 ms");
        assert_eq!(fmt_ns(18.25), "18.25 ns");
        assert_eq!(fmt_ns(1500.0), "1.500 µs");
        // Rounding up to the next power of ten keeps the digit count and
        // moves to the next unit.
        assert_eq!(sig(9.9996, 4), "10.00");
        assert_eq!(sig(-0.099996, 3), "-0.100");
        assert_eq!(fmt_ns(999.96), "1.000 µs");
        assert_eq!(sig(1.23456e-7, 3), "1.23e-7");
    }

    #[test]
    fn tables_align_numbers_right_and_escape_control_characters() {
        let mut t = Table::new(&["name", "value", "label"]).text(2);
        t.row(vec![
            "a\u{1b}[31m".into(),
            "1.5 ns".into(),
            "1 distinct".into(),
        ]);
        t.row(vec!["bb".into(), "—".into(), "2 same".into()]);
        t.row(vec!["c".into(), "unavailable: no".into()]);
        let mut out = String::new();
        t.render(&mut out);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "   name          value  label");
        assert_eq!(lines[1], "   a\\u{1b}[31m  1.5 ns  1 distinct");
        assert_eq!(lines[2], "   bb                —  2 same");
        assert_eq!(lines[3], "   c            unavailable: no");
    }
}
