//! `tickbook analyze`: the page's analyses in the terminal.
//!
//! Every number comes from `tickbook_analysis::report`, the same model the
//! page renders, so `--json` prints exactly what the page shows. Bad files get
//! one line each on stderr and a non-zero exit; good files are still shown.

use clap::Args;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use tickbook_analysis::read::ReadError;
use tickbook_analysis::report::{
    analyze_bytes, analyze_entries, apply_calibration, CalibratedOps, CalibrationFit, ClocksReport,
    FileReport, OpsView, Options, ReferenceClock, SamplesReport,
};
use tickbook_analysis::report::{compare_files, ComparisonReport};
use tickbook_analysis::stats::bootstrap::BootstrapOptions;
use tickbook_analysis::stats::cluster::Linkage;
use tickbook_analysis::stats::QuantileType;

#[derive(Args)]
pub struct AnalyzeArgs {
    /// Result files (tickbook runs or `samples` files).
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
        ..defaults
    };
    if let Err(e) = opts.validate() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    if args.compare {
        return compare(&args, &opts);
    }
    if args.export_fit.is_some() && args.files.len() != 1 {
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
    let mut reports: Vec<FileReport> = args
        .files
        .iter()
        .map(|path| {
            let name = path.display().to_string();
            // A directory is a Criterion.rs output tree (target/criterion/…).
            if path.is_dir() {
                return match read_tree(path) {
                    Ok(entries) => analyze_entries(&name, &entries, &opts),
                    Err(e) => unreadable(&name, &e, &opts),
                };
            }
            match std::fs::read(path) {
                Ok(bytes) => analyze_bytes(&name, &bytes, &opts),
                Err(e) => unreadable(&name, &e, &opts),
            }
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
        out
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

/// The `.json` files under `root` as (path relative to `root`, bytes), for
/// `analyze_entries`. Symbolic links are not followed (no cycles); at most
/// 100 000 files.
pub(crate) fn read_tree(root: &std::path::Path) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() && path.extension().is_some_and(|x| x == "json") {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                let rel = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((rel, std::fs::read(&path)?));
                if out.len() > 100_000 {
                    return Err(std::io::Error::other("more than 100 000 .json files"));
                }
            }
        }
    }
    out.sort();
    Ok(out)
}

/// A file that cannot even be opened is reported like any other bad file.
fn unreadable(name: &str, e: &std::io::Error, opts: &Options) -> FileReport {
    let mut r = analyze_bytes(name, b"", opts);
    r.error = Some(ReadError {
        file: name.to_string(),
        path: None,
        message: format!("cannot read the file: {e}"),
    });
    r
}

fn render_file(out: &mut String, r: &FileReport) {
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
        let _ = writeln!(out, "   warning: {w}");
    }
    if let Some(c) = &r.clocks {
        render_clocks(out, c);
    }
    if let Some(b) = &r.bernoulli {
        crate::analyze_timing::render_bernoulli(out, b);
    }
    if let Some(o) = &r.ops {
        crate::analyze_timing::render_ops(out, o);
    }
    if let Some(s) = &r.samples {
        render_samples(out, s);
    }
    if let Some(c) = r.ops.as_ref().and_then(|o| o.calibrated.as_ref()) {
        render_calibrated(out, c);
    }
    if let Some(t) = &r.trace {
        render_trace(out, t);
    }
    if let Some(b) = &r.bottleneck {
        render_bottleneck(out, b);
    }
    let _ = writeln!(out);
}

fn render_clocks(out: &mut String, c: &ClocksReport) {
    let _ = writeln!(out, "\n   Clocks (read cost timed by {})", c.reference);
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
            row.violations.to_string(),
        ]);
    }
    t.render(out);

    let f = &c.frequency;
    let _ = writeln!(out, "\n   TSC frequency sources");
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
    for fb in &c.fallbacks {
        let _ = writeln!(out, "   fallback: {fb}");
    }
}

fn render_samples(out: &mut String, s: &SamplesReport) {
    let _ = writeln!(out, "\n   Samples");
    let mut t = Table::new(&[
        "series", "unit", "runs", "n", "min", "Q1", "median", "mean", "Q3", "max", "sd", "CV",
        "outliers",
    ]);
    for x in &s.series {
        let m = &x.summary;
        let v = |v: f64| sig(v, 5);
        t.row(vec![
            x.name.clone(),
            x.unit.clone(),
            x.executions.to_string(),
            m.n.to_string(),
            v(m.min),
            v(m.q1),
            v(m.median),
            v(m.mean),
            v(m.q3),
            v(m.max),
            m.sd.map(v).unwrap_or_else(|| "-".into()),
            m.cv.map(|c| format!("{:.2}%", c * 100.0))
                .unwrap_or_else(|| "-".into()),
            x.outliers.len().to_string(),
        ]);
    }
    t.render(out);
    render_execution_stats(out, s);
    for x in &s.series {
        for o in &x.outliers {
            let _ = writeln!(
                out,
                "   outlier in {}: {} {} (execution {}, measurement {}{})",
                x.name,
                sig(o.value, 5),
                x.unit,
                o.execution,
                o.index,
                if o.extreme { ", extreme" } else { "" }
            );
        }
    }
    if let Some(c) = &s.clustering {
        let cuts: Vec<String> = c
            .clustering
            .cuts
            .iter()
            .map(|k| format!("{} {}", k.statistic, k.clusters))
            .collect();
        let _ = writeln!(
            out,
            "   clusters of {} series by mean cost ({} linkage), per granularity cut: {}",
            c.names.len(),
            format!("{:?}", c.clustering.method).to_lowercase(),
            cuts.join(", ")
        );
    }
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
            "; CV within {}, overall {}; impact factor {}",
            ci(&e.cv_within),
            ci(&e.cv_overall),
            ci(&e.impact_factor)
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

fn render_calibrated(out: &mut String, c: &CalibratedOps) {
    let f = &c.fit;
    let _ = writeln!(
        out,
        "\n   Calibrated with the {} fit of {}: counter ns = {} + {}·portable ns (r = {:.6}, n = {})",
        f.form,
        f.source_file,
        sig(f.intercept, 5),
        sig(f.slope, 6),
        f.r,
        f.n
    );
    for w in &c.warnings {
        let _ = writeln!(out, "   warning: {w}");
    }
    let level = format!("{}%", sig(100.0 * f.confidence, 3));
    let mut t = Table::new(&[
        "operation",
        "form",
        "portable",
        "calibrated",
        &format!("{level} interval"),
        "own counter",
        "",
    ]);
    for r in &c.ops {
        t.row(vec![
            r.name.clone(),
            r.form.clone(),
            fmt_ns(r.portable_ns),
            fmt_ns(r.calibrated_ns),
            format!("{} to {}", fmt_ns(r.interval_ns.0), fmt_ns(r.interval_ns.1)),
            opt_ns(r.measured_counter_ns),
            if r.extrapolated {
                "extrapolated".into()
            } else {
                String::new()
            },
        ]);
    }
    t.render(out);
}

/// Perturbation (trace suite): unavailable metrics, then per workload the
/// levels with their overhead and flagged correlations.
fn render_trace(out: &mut String, t: &tickbook_analysis::report::TraceReport) {
    let band = t.band.map(|b| format!(", band {b}")).unwrap_or_default();
    let _ = writeln!(
        out,
        "\n   Perturbation (trace): Spearman inner/outer correlations, DTW {}{band}",
        t.step_pattern.name()
    );
    for u in &t.unavailable {
        let _ = writeln!(
            out,
            "   unavailable: {} ({}): {}",
            u.name, u.source, u.reason
        );
    }
    let r3 = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "-".into());
    for w in &t.workloads {
        let _ = writeln!(
            out,
            "\n   {}: {} runs ({} baseline), {} metrics ({}): {}",
            w.name,
            w.runs.len(),
            w.baseline.runs,
            w.metrics.len(),
            w.class,
            w.metrics.join(", ")
        );
        if let Some(n) = &w.class_note {
            let _ = writeln!(out, "   note: {n}");
        }
        for n in &w.notes {
            let _ = writeln!(out, "   note: {n}");
        }
        let mut tab = Table::new(&[
            "level",
            "runs",
            "overhead",
            "overhead CI",
            "flagged inner",
            "flagged outer",
        ]);
        for l in &w.levels {
            tab.row(vec![
                l.level.to_string(),
                l.runs.to_string(),
                l.overhead
                    .map(|o| format!("{:+.2}%", 100.0 * o))
                    .unwrap_or_else(|| "-".into()),
                l.overhead_ci
                    .map(|(a, b)| format!("{:+.2}% to {:+.2}%", 100.0 * a, 100.0 * b))
                    .unwrap_or_else(|| "-".into()),
                format!("{}/{}", l.flagged_inner, l.inner.len()),
                format!("{}/{}", l.flagged_outer, l.outer.len()),
            ]);
        }
        tab.render(out);
        for l in w.levels.iter().filter(|l| l.level > 0) {
            for (p, c) in w.pairs.iter().zip(&l.inner).filter(|(_, c)| c.flagged) {
                let _ = writeln!(
                    out,
                    "   level {}: inner {} = {} (change {}, baseline spread {})",
                    l.level,
                    p.label,
                    r3(c.correlation),
                    r3(c.change),
                    r3(c.spread)
                );
            }
            for (m, c) in w.metrics.iter().zip(&l.outer).filter(|(_, c)| c.flagged) {
                let _ = writeln!(
                    out,
                    "   level {}: outer {} = {} (baseline drop up to {})",
                    l.level,
                    m,
                    r3(c.correlation),
                    r3(c.spread)
                );
            }
        }
    }
}

/// A duration in ns, scaled to ns/µs/ms/s with four significant digits.
/// Bottlenecks: every region with its L1 prediction and overhead, then
/// the share explained and the jumps at the cache boundaries.
fn render_bottleneck(out: &mut String, b: &tickbook_analysis::report::BottleneckReport) {
    let _ = writeln!(
        out,
        "\n   Bottlenecks (MTOOL): overhead = (measured − predicted) / predicted, predicted as if every access hit L1"
    );
    let _ = writeln!(
        out,
        "   clock {}: tick {}, read {}; timable ≥ {} ticks and ≥ {} reads",
        b.clock,
        fmt_ns(b.tick_ns),
        fmt_ns(b.read_cost_ns),
        b.min_tick_multiple,
        b.min_read_multiple
    );
    let mut t = Table::new(&[
        "kernel",
        "working set",
        "level",
        "passes",
        "measured",
        "predicted",
        "bound",
        "overhead",
        "95% CI",
    ]);
    for c in &b.cases {
        let ws = if c.working_set_bytes >= 1 << 20 {
            format!("{} MiB", sig(c.working_set_bytes as f64 / 1048576.0, 3))
        } else {
            format!("{} KiB", sig(c.working_set_bytes as f64 / 1024.0, 3))
        };
        let mut row = vec![
            c.kernel.clone(),
            ws,
            c.level.clone(),
            c.passes.to_string(),
            opt_ns(c.measured_ns.as_ref().map(|m| m.estimate)),
            opt_ns(c.predicted_ns),
            c.bound.clone().unwrap_or_else(|| "-".into()),
        ];
        match (&c.overhead, c.timable) {
            (Some(o), true) => {
                row.push(format!("{:+.3}", o.estimate));
                row.push(format!("[{:+.3}, {:+.3}]", o.lo, o.hi));
            }
            (_, false) => row.push(format!(
                "not timable: {}",
                c.untimable_reason.as_deref().unwrap_or("")
            )),
            (None, true) => row.push(format!(
                "no prediction: missing {}",
                c.missing_costs.join(", ")
            )),
        }
        t.row(row);
    }
    t.render(out);
    let e = &b.explained;
    if let (Some(x), Some(u)) = (e.explained_share, e.unexplained_share) {
        let _ = writeln!(
            out,
            "   {} timable regions ({} excluded): predictions explain {:.1} % of measured time; {:.1} % ({}) unexplained; memory operations covered {:.1} %",
            e.regions,
            e.excluded,
            100.0 * x,
            100.0 * u,
            fmt_ns(e.unexplained_ns),
            100.0 * e.memory_ops_covered.unwrap_or(f64::NAN)
        );
    }
    for k in &b.kernels {
        let jumps: Vec<String> = k
            .crossings
            .iter()
            .map(|c| {
                format!(
                    "{}→{} {:+.2} ({:+.2}→{:+.2})",
                    c.from_level, c.to_level, c.jump, c.overhead_before, c.overhead_after
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "   {}: {}",
            k.name,
            if jumps.is_empty() {
                "no cache boundary crossed".to_string()
            } else {
                jumps.join(", ")
            }
        );
    }
}

pub fn fmt_ns(ns: f64) -> String {
    let a = ns.abs();
    let (v, unit) = if a >= 1e9 {
        (ns / 1e9, "s")
    } else if a >= 1e6 {
        (ns / 1e6, "ms")
    } else if a >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    format!("{} {unit}", sig(v, 4))
}

fn opt_ns(v: Option<f64>) -> String {
    v.map(fmt_ns).unwrap_or_else(|| "-".into())
}

/// `digits` significant digits, without exponent for everyday magnitudes.
pub fn sig(v: f64, digits: usize) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let mag = v.abs().log10().floor() as i32;
    if !(-4..=9).contains(&mag) {
        return format!("{:.*e}", digits.saturating_sub(1), v);
    }
    let decimals = (digits as i32 - 1 - mag).max(0) as usize;
    format!("{v:.decimals$}")
}

/// Left-aligned text columns, numbers right-aligned.
pub(crate) struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub(crate) fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub(crate) fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub(crate) fn render(&self, out: &mut String) {
        let cols = self.header.len();
        let mut width = vec![0usize; cols];
        for r in std::iter::once(&self.header).chain(&self.rows) {
            // A short row's last cell (an "unavailable: …" note) spans the rest.
            if r.len() == cols {
                for (w, c) in width.iter_mut().zip(r) {
                    *w = (*w).max(c.chars().count());
                }
            }
        }
        for r in std::iter::once(&self.header).chain(&self.rows) {
            let mut line = String::from("   ");
            for (i, c) in r.iter().enumerate() {
                let pad = width[i].saturating_sub(c.chars().count());
                let numeric = i > 0
                    && c.starts_with(|ch: char| ch.is_ascii_digit() || ch == '-' || ch == '+');
                if r.len() < cols && i == r.len() - 1 {
                    line.push_str(c);
                } else if numeric {
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
    for path in &args.files {
        let name = path.display().to_string();
        match std::fs::read(path) {
            Ok(b) => read.push((name, b)),
            Err(e) => {
                eprintln!("error: {name}: cannot read the file: {e}");
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
        render_comparison(&report)
    };
    print_and_exit(&text, failed)
}

fn render_comparison(r: &ComparisonReport) -> String {
    use tickbook_analysis::report::compare::Verdict;
    let mut out = String::new();
    let name = |i: usize| r.files.get(i).map(|f| f.name.as_str()).unwrap_or("?");
    if r.suites.is_empty() {
        let _ = writeln!(
            out,
            "No suite is present in two or more readable files: nothing to compare."
        );
    }
    for s in &r.suites {
        let _ = writeln!(
            out,
            "== {} — {} · baseline {} · threshold {} % ({} of {} items different)",
            s.suite,
            s.statistic,
            name(s.files[0]),
            r.options.threshold * 100.0,
            s.different,
            s.items.len()
        );
        for it in &s.items {
            let _ = writeln!(out, "  {}", it.key);
            for (k, v) in it.values.iter().enumerate() {
                let f = name(s.files[k]);
                match v {
                    Some(e) => {
                        let _ = write!(
                            out,
                            "    {f}: {:.4} {} [{:.4}, {:.4}]",
                            e.estimate, it.unit, e.lo, e.hi
                        );
                    }
                    None => {
                        let _ = write!(out, "    {f}: —");
                    }
                }
                if k > 0 {
                    if let Some(p) = it.against_baseline.get(k - 1) {
                        let ratio = p
                            .ratio
                            .as_ref()
                            .map(|c| format!("ratio {:.4} [{:.4}, {:.4}]", c.estimate, c.lo, c.hi))
                            .unwrap_or_else(|| "ratio —".into());
                        let verdict = match p.verdict {
                            Verdict::Different => {
                                format!("DIFFERENT, {} faster", p.faster.map(name).unwrap_or("?"))
                            }
                            Verdict::Same => "same".into(),
                            Verdict::Missing => "no estimate".into(),
                        };
                        let _ = write!(out, " · {ratio} · {verdict}");
                    }
                }
                out.push('\n');
            }
        }
    }
    for p in &r.pooled {
        let files: Vec<&str> = p.files.iter().map(|&i| name(i)).collect();
        let mean = p
            .stats
            .as_ref()
            .and_then(|s| s.random_effects.as_ref())
            .map(|re| match re.ci {
                Some((lo, hi)) => format!("mean {:.4} {} [{:.4}, {:.4}]", re.mean, p.unit, lo, hi),
                None => format!("mean {:.4} {}", re.mean, p.unit),
            })
            .unwrap_or_else(|| "no random-effects estimate".into());
        let _ = writeln!(
            out,
            "pooled {} {} ({} executions from {}): {mean}",
            p.suite,
            p.key,
            p.executions_per_file.iter().sum::<usize>(),
            files.join(", ")
        );
    }
    out
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
    }
}
