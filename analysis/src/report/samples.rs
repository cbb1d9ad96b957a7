//! The Samples cell: summaries, fences and outliers of named series grouped
//! by execution.

use super::Options;
use crate::format::{SamplesFile, Series};
use crate::stats::{Ecdf, Fences, Summary};
use serde::Serialize;

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
    /// Between- versus within-execution statistics.
    pub execution_stats: Option<super::ExecutionStats>,
    /// For imported files: the tool's own statistics as its file records them
    /// (`metadata.tool_statistics`, see docs/importers.md), else null.
    pub tool_statistics: Option<serde_json::Value>,
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
    let fences = Fences::with_k(&summary, &sorted, opts.outlier_k);
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
        execution_stats: super::execution_stats(&s.executions, opts),
        tool_statistics: s.metadata.get("tool_statistics").cloned(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::{analyze_bytes, Options};

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
}
