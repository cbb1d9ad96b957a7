//! What a file analyses to: the one model that `tickbook analyze --json`
//! prints and the page renders (through `analysis-wasm`), so both show the
//! same numbers. Field names here are the JSON keys documented in
//! `docs/cli.md`. The cells are generated from the suites' registry
//! (`suites::registry!`); each is computed by its suite's folder.

use crate::format::{Host, SamplesFile};
use crate::read::{read_document_within, read_folder, Document, ReadError, RunDocument};
use crate::suites::samples::Samples;
use crate::suites::{registry, Context, Suite};
use serde::Serialize;
use serde_json::Value;

/// Cells across files: their registry.
pub mod across;
/// Many files of one configuration from several machines as one campaign.
pub mod campaign;
/// Several files side by side, and pooled executions.
pub mod compare;
/// A file read once and kept, for the page's worker.
pub mod kept;

pub use crate::options::*;
pub use crate::suites::executions::*;
pub use compare::series::{compare_series, compare_series_bytes, SeriesComparisonReport};
pub use compare::{
    compare_documents, compare_files, compare_files_with, compare_sides, CompareSettings,
    ComparisonReport,
};

// Every cell's report types, under `report::` as the front ends name them.
macro_rules! reexport_reports {
    ($($f:ident $V:ident $k:ident;)*) => {
        $(pub use crate::suites::$f::report::*;)*
    };
}
registry!(reexport_reports);

macro_rules! file_report {
    ($($f:ident $V:ident $k:ident;)*) => {
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
            /// Whether the machine was fit to measure on while the run
            /// collected (a run with an `environment` section).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub fitness: Option<crate::fitness::Fitness>,
            /// Things the user should know that did not stop the file loading.
            pub warnings: Vec<String>,
            $(
                #[serde(skip_serializing_if = "Option::is_none")]
                pub $f: Option<<crate::suites::$f::$V as Suite>::Report>,
            )*
            pub options: Options,
        }

        /// One cell of a [`FileReport`], for front ends that render cells
        /// by an exhaustive `match`.
        #[derive(Debug, Clone, Copy)]
        pub enum Cell<'a> {
            $($V(&'a <crate::suites::$f::$V as Suite>::Report),)*
        }

        impl Cell<'_> {
            /// The cell's key (its JSON key in [`FileReport`]).
            pub fn name(&self) -> &'static str {
                match self {
                    $(Cell::$V(_) => <crate::suites::$f::$V as Suite>::NAME,)*
                }
            }

            /// The cell's title as the page shows it.
            pub fn title(&self) -> &'static str {
                match self {
                    $(Cell::$V(_) => <crate::suites::$f::$V as Suite>::TITLE,)*
                }
            }

            fn order(&self) -> u8 {
                match self {
                    $(Cell::$V(_) => <crate::suites::$f::$V as Suite>::ORDER,)*
                }
            }
        }

        impl FileReport {
            /// A report of `file` with nothing in it yet.
            fn empty(file: &str, opts: &Options) -> FileReport {
                FileReport {
                    file: file.to_string(),
                    ok: false,
                    error: None,
                    kind: None,
                    info: None,
                    fitness: None,
                    warnings: Vec::new(),
                    $($f: None,)*
                    options: *opts,
                }
            }

            /// The cells present, in the page's order.
            pub fn cells(&self) -> Vec<Cell<'_>> {
                let mut cells = Vec::new();
                $(
                    if let Some(r) = &self.$f {
                        cells.push(Cell::$V(r));
                    }
                )*
                cells.sort_by_key(Cell::order);
                cells
            }
        }

        /// Every cell the document has data for whose name `want` takes.
        fn fill_cells(
            report: &mut FileReport,
            doc: &Document,
            opts: &Options,
            want: &dyn Fn(&str) -> bool,
        ) {
            let data = doc.data();
            $(
                if let Some(d) = data.$f.filter(|_| want(<crate::suites::$f::$V as Suite>::NAME)) {
                    let name = <crate::suites::$f::$V as Suite>::NAME;
                    let mut cx = Context {
                        options: opts,
                        host: doc.host(),
                        fallbacks: doc.fallbacks(name),
                        unfinished: doc.is_unfinished(name),
                        warnings: &mut report.warnings,
                    };
                    report.$f = Some(<crate::suites::$f::$V as Suite>::report(d, &mut cx));
                }
            )*
        }
    };
}
registry!(file_report);

/// The file list's row: where the file came from.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FileInfo {
    pub host: Option<String>,
    pub cpu: Option<String>,
    pub arch: Option<String>,
    pub kernel: Option<String>,
    /// What an imported file's tool records of the system in place of a
    /// kernel (pyperf's and pytest-benchmark's `platform`, Go's
    /// `goos/goarch`, JMH's JVM).
    pub platform: Option<String>,
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
    let mut report = FileReport::empty(file, opts);
    match read_document_within(file, bytes, &opts.limits) {
        Err(e) => report.error = Some(e),
        Ok(doc) => fill(&mut report, &doc, opts),
    }
    report
}

/// `analyze_bytes` with only the named suites' cells computed (the others
/// stay empty; header, info and run warnings as usual). The page analyses a
/// big run suite by suite, cheapest first, to show its first cells early
/// (`web/src/worker/worker.js`); each cell is computed from its own suite alone, so
/// the cells equal `analyze_bytes`'s. A `samples` file is one suite and is
/// always analysed whole.
pub fn analyze_bytes_suites(
    file: &str,
    bytes: &[u8],
    opts: &Options,
    suites: &[String],
) -> FileReport {
    let mut report = FileReport::empty(file, opts);
    match read_document_within(file, bytes, &opts.limits) {
        Err(e) => report.error = Some(e),
        Ok(doc) => fill_some(&mut report, &doc, opts, suites),
    }
    report
}

/// The report of a document read with only the named suites' cells (a
/// run's; a samples document is one suite, always analysed whole).
fn fill_some(report: &mut FileReport, doc: &Document, opts: &Options, suites: &[String]) {
    let samples = matches!(doc, Document::Samples(_));
    let want = |name: &str| samples || suites.iter().any(|s| s == name);
    in_pool(|| fill_here(report, doc, opts, &want));
}

/// Analyse a folder given as (relative path, bytes) entries — a Criterion.rs
/// `target/criterion` tree (see `read::read_folder`). Never panics.
pub fn analyze_entries(name: &str, entries: &[(String, Vec<u8>)], opts: &Options) -> FileReport {
    let mut report = FileReport::empty(name, opts);
    match read_folder(name, entries) {
        Ok(doc) => fill(&mut report, &doc, opts),
        Err(e) => report.error = Some(e),
    }
    report
}

/// The report of a document read: its header, info and warnings, then its
/// cells. Runs on a rayon pool thread whoever calls it (see [`in_pool`]).
fn fill(report: &mut FileReport, doc: &Document, opts: &Options) {
    in_pool(|| fill_here(report, doc, opts, &|_| true));
}

/// Runs `f` on a thread of rayon's pool: the series and configurations of
/// a file are spread over the pool's threads, and from a pool thread each
/// parallel step is split there rather than handed over from outside and
/// waited for. Results never depend on the number of
/// threads: every series has its own seeded streams and the parallel
/// parts collect in order (`tests/threads.rs`). In wasm the pool is the
/// calling thread.
pub fn in_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if rayon::current_thread_index().is_some() {
        f()
    } else {
        rayon::scope(|_| f())
    }
}

fn fill_here(
    report: &mut FileReport,
    doc: &Document,
    opts: &Options,
    want: &(dyn Fn(&str) -> bool + Sync),
) {
    fill_header(report, doc);
    fill_cells(report, doc, opts, want);
}

/// What a report says before its cells: the file's kind, info and warnings.
fn fill_header(report: &mut FileReport, doc: &Document) {
    report.ok = true;
    match doc {
        Document::Run(run) => fill_run_header(report, run),
        Document::Samples(s) => fill_samples_header(report, s),
    }
}

fn fill_samples_header(report: &mut FileReport, s: &SamplesFile) {
    report.kind = Some(s.kind.clone());
    let text = |key: &str| {
        s.host
            .as_ref()
            .and_then(|h| h.get(key))
            .and_then(|v| match v {
                Value::String(t) => Some(t.trim().to_string()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .filter(|t| !t.is_empty())
    };
    // The importers' host keys (docs/format.md, "The samples kind").
    let count = text("cpu_count").map(|n| match text("mhz_per_cpu") {
        Some(mhz) => format!("{n} CPUs at {mhz} MHz"),
        None => format!("{n} CPUs"),
    });
    let cpu = match (text("cpu_model_name").or_else(|| text("cpu")), count) {
        (Some(m), Some(c)) => Some(format!("{m} ({c})")),
        (m, c) => m.or(c),
    };
    report.info = Some(FileInfo {
        host: text("hostname"),
        cpu,
        arch: text("arch"),
        kernel: text("kernel"),
        platform: text("platform"),
        started_at: text("date"),
        source: s.source.clone(),
        suites: vec![Samples::NAME.into()],
        ..FileInfo::default()
    });
}

fn fill_run_header(report: &mut FileReport, doc: &RunDocument) {
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
        platform: None,
    });
    report.fitness = run.environment.as_ref().map(crate::fitness::assess);
    fill_fitness_of_data(report, doc);
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
}

/// What the fitness learns from the suites' data and spans: the ops
/// table's issue width as a finding (a file without an environment gets a
/// fitness of that alone), and which cells a finding that is not fine
/// bears on.
fn fill_fitness_of_data(report: &mut FileReport, doc: &RunDocument) {
    use crate::fitness::{affected, by_suite, Fitness, Level};
    let run = &doc.run;
    let issue = doc
        .ops
        .as_ref()
        .and_then(|d| crate::suites::ops::issue::check(d, Some(&run.host)));
    let finding = issue.as_ref().map(|i| i.finding());
    let shared = issue.as_ref().filter(|i| i.shared).map(|i| i.text.clone());
    match (&mut report.fitness, finding) {
        (Some(f), Some(x)) => f.add(x),
        (None, Some(x)) if x.level > Level::Fine => {
            report.fitness = Some(Fitness::without_environment(vec![x]))
        }
        _ => {}
    }
    let Some(f) = report.fitness.as_mut() else {
        return;
    };
    let suites: Vec<String> = run.suites.iter().map(|s| s.suite.clone()).collect();
    if let Some(env) = &run.environment {
        for (suite, part) in by_suite(env, &suites) {
            if let Some(a) = affected(&suite, &part) {
                f.affects.push(a);
            }
        }
    }
    if let Some(text) = shared {
        f.affects.push(crate::fitness::Affected {
            cell: crate::suites::ops::Ops::NAME.into(),
            level: Level::Disturbed,
            text: format!("throughputs: {text}"),
        });
    }
}

/// A browser measurement against a native `ops` run of the same machine
/// (`tickbook analyze BROWSER --native OPS`): each file read as usual, then
/// [`native_comparison_documents`].
pub fn native_comparison_bytes(
    browser: (&str, &[u8]),
    native: (&str, &[u8]),
    opts: &Options,
) -> Result<NativeComparison, String> {
    let read = |(name, bytes): (&str, &[u8])| {
        read_document_within(name, bytes, &opts.limits).map_err(|e| e.to_string())
    };
    let (b, n) = (read(browser)?, read(native)?);
    native_comparison_documents((browser.0, &b), (native.0, &n), opts)
}

/// [`native_comparison`] of two read documents (the page's kept files).
/// The error names the file that is not a run or lacks its section.
pub fn native_comparison_documents(
    browser: (&str, &Document),
    native: (&str, &Document),
    opts: &Options,
) -> Result<NativeComparison, String> {
    fn run<'a>((name, doc): (&str, &'a Document)) -> Result<&'a RunDocument, String> {
        match doc {
            Document::Run(run) => Ok(run.as_ref()),
            Document::Samples(_) => Err(format!("{name}: a samples file, not a run")),
        }
    }
    let b = run(browser)?
        .browser
        .as_ref()
        .ok_or_else(|| format!("{}: no browser measurement in it", browser.0))?;
    let n = run(native)?
        .ops
        .as_ref()
        .ok_or_else(|| format!("{}: no native operations in it", native.0))?;
    Ok(native_comparison(b, n, opts))
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
