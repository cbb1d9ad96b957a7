//! What a file analyses to: the one model that `tickbook analyze --json`
//! prints and the page renders (through `analysis-wasm`), so both show the
//! same numbers. Field names here are the JSON keys documented in
//! `docs/cli.md`.

use crate::format::Host;
use crate::read::{read_document_within, Document, ReadError, RunDocument};
use serde::Serialize;

/// Several files side by side, and pooled executions.
pub mod compare;

pub use crate::options::*;
pub use crate::suites::alloc::report::*;
pub use crate::suites::bernoulli::report::*;
pub use crate::suites::bottleneck::report::*;
pub use crate::suites::clocks::report::*;
pub use crate::suites::copy::report::*;
pub use crate::suites::executions::*;
pub use crate::suites::ops::report::*;
pub use crate::suites::samples::report::*;
pub use crate::suites::trace::report::*;
pub use compare::{compare_documents, compare_files, ComparisonReport};

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
