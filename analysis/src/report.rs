//! What a file analyses to: the one model that `tickbook analyze --json`
//! prints and the page renders (through `analysis-wasm`), so both show the
//! same numbers. Field names here are the JSON keys documented in
//! `docs/cli.md`.

use crate::format::{ClockMeasurement, ClocksData, FrequencySource, Host, SamplesFile, Series};
use crate::read::{read_document, Document, ReadError, RunDocument};
use crate::stats::{Ecdf, Fences, QuantileType, Summary};
use serde::{Deserialize, Serialize};

/// Analysis parameters a user can turn.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    pub quantile_type: QuantileType,
    /// Points kept per ECDF curve for charts.
    pub ecdf_points: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            quantile_type: QuantileType::TYPE7,
            ecdf_points: 256,
        }
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
        options: *opts,
    };
    match read_document(file, bytes) {
        Err(e) => report.error = Some(e),
        Ok(Document::Run(run)) => {
            report.ok = true;
            fill_run(&mut report, &run, opts);
        }
        Ok(Document::Samples(s)) => {
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
            report.samples = Some(samples_report(&s, opts));
        }
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
}

// ---------------------------------------------------------------- clocks

#[derive(Debug, Clone, Serialize)]
pub struct ClocksReport {
    pub reference: String,
    pub tsc_hz: Option<f64>,
    pub tsc_hz_source: Option<String>,
    pub clocks: Vec<ClockRow>,
    pub frequency: FrequencyReport,
    pub fallbacks: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClockRow {
    pub name: String,
    pub available: bool,
    pub unavailable_reason: Option<String>,
    pub nominal_resolution_ns: Option<f64>,
    pub nominal_resolution_source: Option<String>,
    /// Smallest positive step between consecutive reads, in ns.
    pub observed_tick_ns: Option<f64>,
    /// The most frequent positive step, in ns (the tick a coarse clock really has).
    pub modal_step_ns: Option<f64>,
    /// Distinct positive steps (ns) and how often each occurred, ascending by
    /// step; at most [`STEP_BINS`] bins, the rest counted in `steps_not_shown`.
    pub step_histogram: Vec<StepBin>,
    pub steps_not_shown: u64,
    /// Summary of the read cost per read, in ns.
    pub read_cost: Option<Summary>,
    pub read_cost_p99_ns: Option<f64>,
    /// (ns, F) points of the read-cost ECDF, for the log-axis chart.
    pub read_cost_ecdf: Vec<(f64, f64)>,
    /// Consecutive reads that went backwards.
    pub violations: u64,
    /// The largest backwards step, in ns (positive number).
    pub largest_violation_ns: Option<f64>,
    pub scan_reads: u64,
    pub scan_duration_ns: Option<f64>,
}

pub const STEP_BINS: usize = 64;

#[derive(Debug, Clone, Serialize)]
pub struct StepBin {
    pub step_ns: f64,
    pub count: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FrequencyReport {
    pub sources: Vec<FrequencyRow>,
    /// Median of the readable sources, in Hz.
    pub median_hz: Option<f64>,
    /// (max − min) / median of the readable sources, in ppm.
    pub spread_ppm: Option<f64>,
    /// `ppm[i][j]` = (hz_i − hz_j) / hz_j · 1e6 among readable sources, in
    /// the order of `readable`.
    pub readable: Vec<String>,
    pub ppm: Vec<Vec<f64>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FrequencyRow {
    pub name: String,
    pub hz: Option<f64>,
    pub error: Option<String>,
    /// Disagreement with the median of the readable sources, in ppm.
    pub ppm_from_median: Option<f64>,
}

pub fn clocks_report(d: &ClocksData, fallbacks: Vec<String>, opts: &Options) -> ClocksReport {
    ClocksReport {
        reference: d.reference.clone(),
        tsc_hz: d.tsc_hz,
        tsc_hz_source: d.tsc_hz_source.clone(),
        clocks: d.clocks.iter().map(|c| clock_row(c, opts)).collect(),
        frequency: frequency_report(&d.tsc_frequency),
        fallbacks,
    }
}

fn clock_row(c: &ClockMeasurement, opts: &Options) -> ClockRow {
    let npu = c.ns_per_unit.unwrap_or(1.0);
    let mut row = ClockRow {
        name: c.name.clone(),
        available: c.available,
        unavailable_reason: c.unavailable_reason.clone(),
        nominal_resolution_ns: c.nominal_resolution_ns,
        nominal_resolution_source: c.nominal_resolution_source.clone(),
        observed_tick_ns: None,
        modal_step_ns: None,
        step_histogram: Vec::new(),
        steps_not_shown: 0,
        read_cost: None,
        read_cost_p99_ns: None,
        read_cost_ecdf: Vec::new(),
        violations: 0,
        largest_violation_ns: None,
        scan_reads: 0,
        scan_duration_ns: None,
    };
    if let Some(rc) = &c.read_cost {
        let mut sorted = rc.samples_ns.clone();
        sorted.sort_by(f64::total_cmp);
        row.read_cost = Summary::of_sorted(&sorted, opts.quantile_type);
        row.read_cost_p99_ns = crate::stats::quantile_sorted(&sorted, 0.99, opts.quantile_type);
        row.read_cost_ecdf = Ecdf::from_sorted(sorted).points(opts.ecdf_points);
    }
    if let Some(scan) = &c.scan {
        row.scan_reads = scan.reads;
        row.scan_duration_ns = Some(scan.duration_ns);
        let mut positive: Vec<i64> = scan.steps.iter().copied().filter(|&s| s > 0).collect();
        positive.sort_unstable();
        let mut bins: Vec<(i64, u64)> = Vec::new();
        for s in positive {
            match bins.last_mut() {
                Some(b) if b.0 == s => b.1 += 1,
                _ => bins.push((s, 1)),
            }
        }
        row.observed_tick_ns = bins.first().map(|b| b.0 as f64 * npu);
        row.modal_step_ns = bins
            .iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|b| b.0 as f64 * npu);
        if bins.len() > STEP_BINS {
            row.steps_not_shown = bins[STEP_BINS..].iter().map(|b| b.1).sum();
            bins.truncate(STEP_BINS);
        }
        row.step_histogram = bins
            .into_iter()
            .map(|(s, count)| StepBin {
                step_ns: s as f64 * npu,
                count,
            })
            .collect();
        let back: Vec<i64> = scan.steps.iter().copied().filter(|&s| s < 0).collect();
        row.violations = back.len() as u64;
        row.largest_violation_ns = back
            .iter()
            .map(|s| s.unsigned_abs())
            .max()
            .map(|s| s as f64 * npu);
    }
    row
}

fn frequency_report(sources: &[FrequencySource]) -> FrequencyReport {
    let readable: Vec<(&str, f64)> = sources
        .iter()
        .filter_map(|s| match s.hz {
            Some(hz) if hz.is_finite() && hz > 0.0 => Some((s.name.as_str(), hz)),
            _ => None,
        })
        .collect();
    let mut hz: Vec<f64> = readable.iter().map(|r| r.1).collect();
    hz.sort_by(f64::total_cmp);
    let median_hz = crate::stats::quantile_sorted(&hz, 0.5, QuantileType::TYPE7);
    let ppm = |a: f64, b: f64| (a - b) / b * 1e6;
    FrequencyReport {
        sources: sources
            .iter()
            .map(|s| FrequencyRow {
                name: s.name.clone(),
                hz: s.hz,
                error: s.error.clone(),
                ppm_from_median: match (s.hz, median_hz) {
                    (Some(h), Some(m)) if h > 0.0 => Some(ppm(h, m)),
                    _ => None,
                },
            })
            .collect(),
        median_hz,
        spread_ppm: match (hz.first(), hz.last(), median_hz) {
            (Some(lo), Some(hi), Some(m)) if readable.len() > 1 => Some((hi - lo) / m * 1e6),
            _ => None,
        },
        readable: readable.iter().map(|r| r.0.to_string()).collect(),
        ppm: readable
            .iter()
            .map(|a| readable.iter().map(|b| ppm(a.1, b.1)).collect())
            .collect(),
    }
}

// ---------------------------------------------------------------- samples

#[derive(Debug, Clone, Serialize)]
pub struct SamplesReport {
    pub source: Option<String>,
    pub description: Option<String>,
    pub series: Vec<SeriesReport>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SeriesReport {
    pub name: String,
    pub unit: String,
    /// ns per unit when the unit is a time, so front ends can scale it.
    pub unit_ns: Option<f64>,
    pub executions: usize,
    pub measurements: usize,
    /// Over all measurements pooled.
    pub summary: Summary,
    pub fences: Fences,
    pub outliers: Vec<Outlier>,
    pub per_execution: Vec<ExecutionRow>,
    pub ecdf: Vec<(f64, f64)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Outlier {
    pub value: f64,
    /// 0-based execution and measurement index in the file.
    pub execution: usize,
    pub index: usize,
    /// Beyond 3·IQR.
    pub extreme: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct ExecutionRow {
    pub n: usize,
    pub mean: f64,
    pub median: f64,
    pub sd: Option<f64>,
}

pub fn samples_report(s: &SamplesFile, opts: &Options) -> SamplesReport {
    SamplesReport {
        source: s.source.clone(),
        description: s.description.clone(),
        series: s
            .series
            .iter()
            .filter_map(|x| series_report(x, opts))
            .collect(),
    }
}

/// `None` only for a series with no measurements (the reader rejects those).
pub fn series_report(s: &Series, opts: &Options) -> Option<SeriesReport> {
    let t = opts.quantile_type;
    let mut sorted: Vec<f64> = s.executions.iter().flatten().copied().collect();
    sorted.sort_by(f64::total_cmp);
    let summary = Summary::of_sorted(&sorted, t)?;
    let fences = Fences::of(&summary, &sorted);
    let mut outliers = Vec::new();
    for (e, ex) in s.executions.iter().enumerate() {
        for (i, &x) in ex.iter().enumerate() {
            if fences.is_outlier(x) {
                outliers.push(Outlier {
                    value: x,
                    execution: e,
                    index: i,
                    extreme: fences.is_extreme(x),
                });
            }
        }
    }
    let per_execution = s
        .executions
        .iter()
        .filter_map(|ex| {
            let mut v = ex.clone();
            v.sort_by(f64::total_cmp);
            let sm = Summary::of_sorted(&v, t)?;
            Some(ExecutionRow {
                n: sm.n,
                mean: sm.mean,
                median: sm.median,
                sd: sm.sd,
            })
        })
        .collect();
    Some(SeriesReport {
        name: s.name.clone(),
        unit: s.unit.clone(),
        unit_ns: crate::units::ns_per_unit(&s.unit),
        executions: s.executions.len(),
        measurements: sorted.len(),
        summary,
        fences,
        outliers,
        per_execution,
        ecdf: Ecdf::from_sorted(sorted).points(opts.ecdf_points),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_file_report_matches_reference() {
        let text = r#"{"format":"tickbook","format_version":"1.0","kind":"samples",
          "series":[{"name":"ref","unit":"ms",
            "executions":[[4.0,3.1,4.8,3.5,6.6],[4.2,3.9,5.3,3.4,4.4]]}]}"#;
        let r = analyze_bytes("ref.json", text.as_bytes(), &Options::default());
        assert!(r.ok, "{:?}", r.error);
        let s = &r.samples.as_ref().unwrap().series[0];
        assert_eq!((s.executions, s.measurements), (2, 10));
        assert!((s.summary.q1 - 3.6).abs() < 1e-12);
        assert_eq!(s.outliers.len(), 1);
        assert_eq!((s.outliers[0].execution, s.outliers[0].index), (0, 4));
        assert_eq!(s.unit_ns, Some(1e6));
        assert!((s.per_execution[0].mean - 4.4).abs() < 1e-12);
    }

    #[test]
    fn bad_file_is_a_report_not_a_panic() {
        let r = analyze_bytes("x.json", b"\x00\xff garbage", &Options::default());
        assert!(!r.ok);
        assert!(r.error.unwrap().to_string().starts_with("x.json: "));
    }

    #[test]
    fn frequency_disagreement_in_ppm() {
        let src = |name: &str, hz: Option<f64>| FrequencySource {
            name: name.into(),
            hz,
            error: hz.is_none().then(|| "refused".to_string()),
            detail: serde_json::Value::Null,
            windows: vec![],
        };
        let f = frequency_report(&[
            src("a", Some(2.0e9)),
            src("b", Some(2.0e9 * (1.0 + 10e-6))),
            src("c", None),
        ]);
        assert_eq!(f.readable, vec!["a", "b"]);
        assert!((f.spread_ppm.unwrap() - 9.99995).abs() < 1e-3);
        assert!((f.ppm[1][0] - 10.0).abs() < 1e-6);
        assert_eq!(f.sources[2].ppm_from_median, None);
    }
}
