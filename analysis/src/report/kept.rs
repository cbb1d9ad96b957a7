//! A file read once and kept. The page's worker holds one per loaded file
//! (analysis-wasm's `keep`): its analysis, the batches of a big samples
//! file, the comparison and the campaign all start from the kept document:
//! reading every file again for each comparison and campaign would cost
//! more than comparing them.

use super::campaign::{campaign_documents, CampaignReport};
use super::compare::series::{compare_series, SeriesComparisonReport};
use super::compare::{
    compare_documents, compare_documents_part, CompareSettings, ComparisonReport,
};
use super::{fill, fill_header, fill_some, in_pool, FileReport};
use crate::options::Options;
use crate::read::{read_document_within, Document, ReadError};
use crate::suites::browser::report::NativeComparison;
use crate::suites::samples::{
    samples_report_of, series_reports, Samples, SamplesReport, SeriesReport,
};
use crate::suites::Suite;
use serde::Serialize;

pub struct KeptFile {
    name: String,
    /// The options it was read with: a request under other limits reads it
    /// again (the caller, with the bytes).
    read_with: Options,
    doc: Result<Document, ReadError>,
    /// A samples document's series analysed so far by `samples_batch`.
    batches: Option<Batches>,
}

/// Series reports of a samples document, analysed batch by batch with the
/// same options.
struct Batches {
    options: Options,
    /// The next series to analyse (index into the file's series).
    next: usize,
    series: Vec<SeriesReport>,
}

/// One batch of a samples file's series: the cell's shape with only these
/// series' rows and no clustering (which needs every series), and how far
/// the analysis has come.
#[derive(Debug, Clone, Serialize)]
pub struct SamplesBatch {
    /// The cell's name (its key in the report), so the worker names no suite.
    pub name: &'static str,
    /// The file's report without its cell: header, info, warnings, options
    /// (as the final report has them).
    pub report: FileReport,
    pub cell: SamplesReport,
    /// Series analysed so far, this batch's included, of `total`.
    pub done: usize,
    pub total: usize,
}

impl KeptFile {
    /// Read `bytes` within `opts.limits`; a bad file is kept as its error,
    /// which every report of it then gives.
    pub fn read(name: &str, bytes: &[u8], opts: &Options) -> KeptFile {
        KeptFile {
            name: name.to_string(),
            read_with: *opts,
            doc: read_document_within(name, bytes, &opts.limits),
            batches: None,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The document, or `None` when the file could not be read.
    pub fn document(&self) -> Option<&Document> {
        self.doc.as_ref().ok()
    }

    /// Whether a request with `opts` can use this reading.
    pub fn read_within(&self, opts: &Options) -> bool {
        self.read_with.limits == opts.limits
    }

    /// The file's report: equal to `analyze_bytes` of its bytes. For a
    /// samples document, the series `samples_batch` analysed with these
    /// options are used, the rest analysed now.
    pub fn report(&mut self, opts: &Options) -> FileReport {
        let mut report = FileReport::empty(&self.name, opts);
        let doc = match &self.doc {
            Err(_) => return self.unreadable(opts),
            Ok(doc) => doc,
        };
        let Document::Samples(s) = doc else {
            fill(&mut report, doc, opts);
            return report;
        };
        let mut b = match self.batches.take() {
            Some(b) if b.options == *opts => b,
            _ => Batches {
                options: *opts,
                next: 0,
                series: Vec::new(),
            },
        };
        let rest = in_pool(|| series_reports(s, b.next..s.series.len(), opts));
        b.series.extend(rest);
        fill_header(&mut report, doc);
        // As the Samples suite's `report` does: the document's warnings, then the cell.
        report.warnings.extend(s.warnings.iter().cloned());
        report.samples = Some(in_pool(|| samples_report_of(s, b.series, opts)));
        report
    }

    /// The report's header alone: kind, info (its suites) and whether the
    /// file was read, no cell and none of the cells' warnings. The page
    /// chooses the cells across files by it (their `Needs`) while the
    /// file's own analysis is still to come.
    pub fn header(&self, opts: &Options) -> FileReport {
        match &self.doc {
            Err(_) => self.unreadable(opts),
            Ok(doc) => {
                let mut report = FileReport::empty(&self.name, opts);
                fill_header(&mut report, doc);
                report
            }
        }
    }

    /// The report with only the named suites' cells (`analyze_bytes_suites`).
    pub fn report_suites(&self, opts: &Options, suites: &[String]) -> FileReport {
        match &self.doc {
            Err(_) => self.unreadable(opts),
            Ok(doc) => {
                let mut report = FileReport::empty(&self.name, opts);
                fill_some(&mut report, doc, opts, suites);
                report
            }
        }
    }

    /// The report of a file that could not be read, as `analyze_bytes` gives it.
    fn unreadable(&self, opts: &Options) -> FileReport {
        let mut report = FileReport::empty(&self.name, opts);
        report.error = self.doc.as_ref().err().cloned();
        report
    }

    /// The number of series of a samples document, else `None`.
    pub fn series_count(&self) -> Option<usize> {
        match &self.doc {
            Ok(Document::Samples(s)) => Some(s.series.len()),
            _ => None,
        }
    }

    /// Analyse the next `count` series of a samples document (`None` for
    /// anything else) and keep them for [`KeptFile::report`]; new options
    /// start over from the first series.
    pub fn samples_batch(&mut self, opts: &Options, count: usize) -> Option<SamplesBatch> {
        let Ok(doc @ Document::Samples(s)) = &self.doc else {
            return None;
        };
        let mut report = FileReport::empty(&self.name, opts);
        fill_header(&mut report, doc);
        report.warnings.extend(s.warnings.iter().cloned());
        let b = match &mut self.batches {
            Some(b) if b.options == *opts => b,
            slot => slot.insert(Batches {
                options: *opts,
                next: 0,
                series: Vec::new(),
            }),
        };
        let end = (b.next + count.max(1)).min(s.series.len());
        let series = in_pool(|| series_reports(s, b.next..end, opts));
        b.next = end;
        b.series.extend(series.iter().cloned());
        Some(SamplesBatch {
            name: Samples::NAME,
            report,
            cell: SamplesReport {
                source: s.source.clone(),
                description: s.description.clone(),
                series,
                clustering: None,
            },
            done: end,
            total: s.series.len(),
        })
    }

    /// The document or its read error, borrowed: what the comparison and
    /// the campaign take.
    fn entry(&self) -> (String, Result<&Document, String>) {
        (
            self.name.clone(),
            self.doc.as_ref().map_err(|e| e.to_string()),
        )
    }
}

/// Several kept files side by side (`compare_files_with` without reading them).
pub fn compare_kept(
    files: &[&KeptFile],
    opts: &Options,
    settings: CompareSettings,
) -> ComparisonReport {
    let docs: Vec<_> = files.iter().map(|f| f.entry()).collect();
    in_pool(|| compare_documents(&docs, opts, settings))
}

/// Part of [`compare_kept`]: only the named suites (all when `None`), the
/// pooled items only with `pooled` (`compare_documents_part`).
pub fn compare_kept_part(
    files: &[&KeptFile],
    opts: &Options,
    settings: CompareSettings,
    suites: Option<&[String]>,
    pooled: bool,
) -> ComparisonReport {
    let docs: Vec<_> = files.iter().map(|f| f.entry()).collect();
    in_pool(|| compare_documents_part(&docs, opts, settings, suites, pooled))
}

/// Kept files as one campaign (`campaign_files` without reading them).
pub fn campaign_kept(files: &[&KeptFile], opts: &Options) -> CampaignReport {
    let docs: Vec<_> = files.iter().map(|f| f.entry()).collect();
    in_pool(|| campaign_documents(&docs, opts))
}

/// One kept file's series against a reference series (`compare_series_bytes`).
pub fn compare_series_kept(
    file: &KeptFile,
    reference: Option<&str>,
    opts: &Options,
    warm_ups: bool,
    every: bool,
) -> Result<SeriesComparisonReport, String> {
    let (name, doc) = file.entry();
    compare_series(&name, &doc, reference, opts, warm_ups, every)
}

/// A kept browser measurement against a kept native `ops` run
/// (`native_comparison_bytes` without reading them).
pub fn native_comparison_kept(
    browser: &KeptFile,
    native: &KeptFile,
    opts: &Options,
) -> Result<NativeComparison, String> {
    fn doc(f: &KeptFile) -> Result<&Document, String> {
        f.doc.as_ref().map_err(ToString::to_string)
    }
    super::native_comparison_documents(
        (&browser.name, doc(browser)?),
        (&native.name, doc(native)?),
        opts,
    )
}
