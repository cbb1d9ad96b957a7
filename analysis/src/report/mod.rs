//! What a file analyses to: the one model that `tickbook analyze --json`
//! prints and the page renders (through `analysis-wasm`), so both show the
//! same numbers. Field names here are the JSON keys documented in
//! `docs/cli.md`.

use crate::format::Host;
use crate::limits::Limits;
use crate::read::{read_document_within, Document, ReadError, RunDocument};
use crate::stats::bootstrap::BootstrapOptions;
use crate::stats::cluster::Linkage;
use crate::stats::executions::ImpactOptions;
use crate::stats::QuantileType;
use serde::{Deserialize, Serialize};

mod alloc;
mod bernoulli;
mod bottleneck;
mod clocks;
/// Several files side by side, and pooled executions.
pub mod compare;
mod copy;
mod executions;
mod ops;
mod samples;
mod trace;

pub use alloc::*;
pub use bernoulli::*;
pub use bottleneck::*;
pub use clocks::*;
pub use compare::{compare_documents, compare_files, ComparisonReport};
pub use copy::*;
pub use executions::*;
pub use ops::*;
pub use samples::*;
pub use trace::*;

/// Analysis parameters a user can turn.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    pub quantile_type: QuantileType,
    /// Points kept per ECDF curve for charts.
    pub ecdf_points: usize,
    /// Confidence level of intervals (Bernoulli, regression).
    pub confidence: f64,
    /// Resamples, confidence and seed of every bootstrap.
    pub bootstrap: BootstrapOptions,
    /// Linkage of the hierarchical clustering of operation costs.
    pub linkage: Linkage,
    /// Impact factor: permutations of its null; group pairs per estimate
    /// and group size of the paper's statistic.
    pub impact: ImpactOptions,
    /// Relative difference two results must exceed (besides disjoint CIs)
    /// to count as different, e.g. 0.03 = 3 %.
    pub threshold: f64,
    /// Tukey's outlier rule: outliers beyond k·IQR from the quartiles,
    /// extreme ones beyond 2k·IQR (k = 1.5 is Tukey's).
    pub outlier_k: f64,
    /// Bootstrap resamples of the paper's impact factor statistic (each
    /// re-estimates it from `impact.pairs` group pairs, so it costs more
    /// than other bootstraps; the impact factor itself takes `bootstrap`'s).
    pub impact_resamples: usize,
    /// Dynamic time warping of traces (outer perturbation).
    pub dtw: DtwOptions,
    /// The clock whose per-operation times the Operations cell's summary,
    /// outliers, clustering and modes are of: `portable` (the paper's) or
    /// `counter` (see `report/ops.rs`). An unknown value is refused when the
    /// options are read (`ReferenceClock`'s `Deserialize`).
    pub reference_clock: ReferenceClock,
    /// How big a file may be (`limits.rs`). Not an analysis parameter and
    /// not part of the options' JSON: the page always reads within the
    /// defaults; the command line may raise them.
    #[serde(skip)]
    pub limits: Limits,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            quantile_type: QuantileType::TYPE7,
            ecdf_points: 256,
            confidence: 0.95,
            bootstrap: BootstrapOptions {
                // Per-operation CIs run hundreds of bootstraps; 2000
                // resamples keep a full ops file under a second.
                resamples: 2000,
                ..BootstrapOptions::default()
            },
            linkage: Linkage::Average,
            impact: ImpactOptions::default(),
            impact_resamples: 500,
            threshold: 0.03,
            outlier_k: crate::stats::summary::TUKEY_K,
            dtw: DtwOptions::default(),
            reference_clock: ReferenceClock::Portable,
            limits: Limits::default(),
        }
    }
}

/// Largest seed a JavaScript number holds exactly (2^53 − 1).
pub const MAX_SAFE_SEED: u64 = (1 << 53) - 1;

impl Options {
    /// Reject values no analysis can use, with the reason.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(format!(
                "confidence must be in (0, 1), got {}",
                self.confidence
            ));
        }
        let b = &self.bootstrap;
        if !(b.confidence > 0.0 && b.confidence < 1.0) {
            return Err(format!(
                "bootstrap confidence must be in (0, 1), got {}",
                b.confidence
            ));
        }
        if b.seed > MAX_SAFE_SEED {
            return Err(format!(
                "the bootstrap seed must be at most 2^53 − 1 (JavaScript numbers carry no more), got {}",
                b.seed
            ));
        }
        if !(self.outlier_k > 0.0 && self.outlier_k.is_finite()) {
            return Err(format!(
                "the outlier rule's multiple k must be > 0, got {}",
                self.outlier_k
            ));
        }
        if !(self.threshold >= 0.0 && self.threshold.is_finite()) {
            return Err(format!(
                "the comparison threshold must be ≥ 0, got {}",
                self.threshold
            ));
        }
        if self.impact_resamples == 0 || self.impact_resamples > 100_000 {
            return Err(format!(
                "impact factor resamples must be 1 to 100000, got {}",
                self.impact_resamples
            ));
        }
        if self.impact.group_size < 2 || self.impact.pairs == 0 {
            return Err("impact factor needs a group size ≥ 2 and at least one pair".into());
        }
        // With fewer than 20 permutations no p-value falls below 0.05.
        if self.impact.permutations < 20 || self.impact.permutations > 100_000 {
            return Err(format!(
                "impact factor permutations must be 20 to 100000, got {}",
                self.impact.permutations
            ));
        }
        // Upper bounds too: a hand-edited link must not set the worker going
        // for hours (each of impact_resamples estimates draws pairs × 2·size).
        if self.impact.pairs > 100_000 || self.impact.group_size > 10_000 {
            return Err(format!(
                "impact factor pairs must be at most 100000 and group size at most 10000, got {} and {}",
                self.impact.pairs, self.impact.group_size
            ));
        }
        self.dtw.validate()?;
        if b.resamples == 0 || b.resamples > 1_000_000 {
            return Err(format!(
                "bootstrap resamples must be 1 to 1000000, got {}",
                b.resamples
            ));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    pub file: String,
    /// `true` when the file was read; otherwise `error` says why.
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ReadError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info: Option<FileInfo>,
    /// Things the user should know that did not stop the file loading.
    pub warnings: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clocks: Option<ClocksReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<SamplesReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bernoulli: Option<BernoulliReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ops: Option<OpsReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy: Option<CopyReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alloc: Option<AllocReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bottleneck: Option<BottleneckReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceReport>,
    pub options: Options,
}

/// The file list's row: where the file came from.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FileInfo {
    pub host: Option<String>,
    pub cpu: Option<String>,
    pub arch: Option<String>,
    pub kernel: Option<String>,
    pub hypervisor: Option<String>,
    pub clocksource: Option<String>,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    /// Run status (`complete`, `in_progress`, `interrupted`).
    pub status: Option<String>,
    pub tool_version: Option<String>,
    pub suites: Vec<String>,
    /// For `samples` files: where the numbers came from.
    pub source: Option<String>,
}

/// Analyse one file's bytes. Never panics; a bad file gives `ok: false`.
pub fn analyze_bytes(file: &str, bytes: &[u8], opts: &Options) -> FileReport {
    let mut report = FileReport {
        file: file.to_string(),
        ok: false,
        error: None,
        kind: None,
        info: None,
        warnings: Vec::new(),
        clocks: None,
        samples: None,
        bernoulli: None,
        ops: None,
        copy: None,
        alloc: None,
        bottleneck: None,
        trace: None,
        options: *opts,
    };
    match read_document_within(file, bytes, &opts.limits) {
        Err(e) => report.error = Some(e),
        Ok(Document::Run(run)) => {
            report.ok = true;
            fill_run(&mut report, &run, opts);
        }
        Ok(Document::Samples(s)) => fill_samples(&mut report, &s, opts),
    }
    report
}

/// `analyze_bytes` with only the named suites' cells computed (the others
/// stay empty; header, info and run warnings as usual). The page analyses a
/// big run suite by suite, cheapest first, to show its first cells early
/// (`web/src/worker.js`); each cell is computed from its own suite alone, so
/// the cells equal `analyze_bytes`'s. A `samples` file is one suite and is
/// always analysed whole.
pub fn analyze_bytes_suites(
    file: &str,
    bytes: &[u8],
    opts: &Options,
    suites: &[String],
) -> FileReport {
    let mut report = analyze_bytes(file, b"", opts);
    report.error = None;
    let want = |name: &str| suites.iter().any(|s| s == name);
    match read_document_within(file, bytes, &opts.limits) {
        Err(e) => report.error = Some(e),
        Ok(Document::Run(mut run)) => {
            if !want("clocks") {
                run.clocks = None;
            }
            if !want("bernoulli") {
                run.bernoulli = None;
            }
            if !want("ops") {
                run.ops = None;
            }
            if !want("copy") {
                run.copy = None;
            }
            if !want("alloc") {
                run.alloc = None;
            }
            if !want("trace") {
                run.trace = None;
            }
            if !want("bottleneck") {
                run.bottleneck = None;
            }
            report.ok = true;
            fill_run(&mut report, &run, opts);
        }
        Ok(Document::Samples(s)) => fill_samples(&mut report, &s, opts),
    }
    report
}

fn fill_samples(report: &mut FileReport, s: &crate::format::SamplesFile, opts: &Options) {
    report.ok = true;
    report.kind = Some(s.kind.clone());
    report.info = Some(FileInfo {
        host: s
            .host
            .as_ref()
            .and_then(|h| h.get("hostname"))
            .and_then(|v| v.as_str())
            .map(str::to_string),
        source: s.source.clone(),
        suites: vec!["samples".into()],
        ..FileInfo::default()
    });
    report.samples = Some(samples_report(s, opts));
}

/// Analyse a folder given as (relative path, bytes) entries — a Criterion.rs
/// `target/criterion` tree (see `import::criterion::read_dir`). Never panics.
pub fn analyze_entries(name: &str, entries: &[(String, Vec<u8>)], opts: &Options) -> FileReport {
    // Start from the report of no bytes (every cell empty), minus its error.
    let mut report = analyze_bytes(name, b"", opts);
    report.error = None;
    match crate::import::criterion::read_dir(name, entries) {
        Ok(s) => fill_samples(&mut report, &s, opts),
        Err(e) => report.error = Some(e),
    }
    report
}

fn fill_run(report: &mut FileReport, doc: &RunDocument, opts: &Options) {
    let run = &doc.run;
    let h: &Host = &run.host;
    report.kind = Some(run.kind.clone());
    report.info = Some(FileInfo {
        host: Some(h.hostname.clone()),
        cpu: h.cpu.model_name.clone().or_else(|| h.cpu.vendor.clone()),
        arch: Some(h.arch.clone()),
        kernel: h.kernel.clone(),
        hypervisor: h.hypervisor.clone(),
        clocksource: h.clocksource.clone(),
        started_at: Some(run.started_at.clone()),
        ended_at: run.ended_at.clone(),
        status: Some(run.status.clone()),
        tool_version: Some(run.tool.version.clone()),
        suites: run.suites.iter().map(|s| s.suite.clone()).collect(),
        source: None,
    });
    if run.status != "complete" {
        report.warnings.push(format!(
            "the run is {}: only the suites it finished are here",
            run.status
        ));
    }
    for s in &run.suites {
        if s.status != "complete" {
            report.warnings.push(format!(
                "suite {} {}: {}",
                s.suite,
                s.status,
                s.error.as_deref().unwrap_or("no reason recorded")
            ));
        }
    }
    for name in &doc.skipped_suites {
        report.warnings.push(format!(
            "suite \"{name}\" is not known to this build of tickbook and was skipped"
        ));
    }
    if let Some(c) = &doc.clocks {
        let fallbacks = run
            .suites
            .iter()
            .find(|s| s.suite == "clocks")
            .map(|s| s.fallbacks.clone())
            .unwrap_or_default();
        report.clocks = Some(clocks_report(c, fallbacks, opts));
    }
    if let Some(b) = &doc.bernoulli {
        report.bernoulli = Some(bernoulli_report(b, opts));
    }
    if let Some(o) = &doc.ops {
        report.ops = Some(ops_report(o, opts));
    }
    if let Some(c) = &doc.copy {
        report.copy = Some(copy_report(c, opts));
    }
    if let Some(a) = &doc.alloc {
        if doc.partial_alloc {
            report.warnings.push(
                "the alloc suite did not finish: its cell shows the executions that did".into(),
            );
        }
        report.alloc = Some(alloc_report(a, doc.partial_alloc, opts));
    }
    if let Some(b) = &doc.bottleneck {
        report.bottleneck = Some(bottleneck_report(b, opts));
    }
    if let Some(t) = &doc.trace {
        report.trace = Some(trace_report(t, opts));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_file_is_a_report_not_a_panic() {
        let r = analyze_bytes("x.json", b"\x00\xff garbage", &Options::default());
        assert!(!r.ok);
        assert!(r.error.unwrap().to_string().starts_with("x.json: "));
    }

    #[test]
    fn options_out_of_range_are_refused() {
        assert!(Options::default().validate().is_ok());
        let mut o = Options::default();
        o.impact.pairs = 1_000_000_000;
        assert!(o.validate().unwrap_err().contains("pairs"));
        for bad in [0, 19, 100_001] {
            let mut o = Options::default();
            o.impact.permutations = bad;
            assert!(o.validate().unwrap_err().contains("permutations"), "{bad}");
        }
        let o = Options {
            confidence: 1.5,
            ..Options::default()
        };
        assert!(o.validate().is_err());
        let mut o = Options::default();
        o.bootstrap.resamples = 0;
        assert!(o.validate().is_err());
    }
}
