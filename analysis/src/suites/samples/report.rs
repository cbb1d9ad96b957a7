//! The Samples cell: summaries, fences and outliers of named series grouped
//! by execution.

use crate::format::{SamplesFile, Series};
use crate::options::Options;
use crate::stats::{Ecdf, Fences, Summary};
use crate::suites::executions::{execution_stats, ExecutionStats};
use crate::suites::ops::{clustering_report, ClusteringReport};
use rayon::prelude::*;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct SamplesReport {
    pub source: Option<String>,
    pub description: Option<String>,
    pub series: Vec<SeriesReport>,
    /// The series clustered by cost (as the ops cell's operations), when at
    /// least three are in a time unit; else null.
    pub clustering: Option<SamplesClustering>,
}

/// Hierarchical clustering of the series by cost, cut at each of the six
/// statistics of the costs (the same builder as the ops cell).
#[derive(Debug, Clone, Serialize)]
pub struct SamplesClustering {
    /// What is clustered: which statistic of each series, in which unit.
    pub basis: String,
    /// Series included (time units), in file order; observation i of the
    /// dendrogram is `names[i]`.
    pub names: Vec<String>,
    pub values_ns: Vec<f64>,
    /// Series left out because their unit is not a time (name, unit).
    pub left_out: Vec<(String, String)>,
    /// Six-number summary of `values_ns`, whose statistics are the cuts.
    pub summary: Summary,
    pub clustering: ClusteringReport,
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
    pub execution_stats: Option<ExecutionStats>,
    /// For imported files: the tool's own statistics as its file records them
    /// (`metadata.tool_statistics`, see docs/importers.md), else null.
    pub tool_statistics: Option<serde_json::Value>,
    /// The series' other metadata as its file records it (an importer
    /// keeps there what the tool wrote beside the times: parameters, exit
    /// codes, counters, iterations, throughput, the tool's metadata), without
    /// `tool` (the file's source names it) and `tool_statistics`; null when
    /// nothing is left.
    pub metadata: Option<serde_json::Value>,
}

/// A series' metadata to show: an object without the keys shown elsewhere,
/// anything else as it is.
fn shown_metadata(m: &serde_json::Value) -> Option<serde_json::Value> {
    match m {
        serde_json::Value::Null => None,
        serde_json::Value::Object(o) => {
            let rest: serde_json::Map<String, serde_json::Value> = o
                .iter()
                .filter(|(k, _)| !matches!(k.as_str(), "tool" | "tool_statistics"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            (!rest.is_empty()).then_some(serde_json::Value::Object(rest))
        }
        other => Some(other.clone()),
    }
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
    samples_report_of(s, series_reports(s, 0..s.series.len(), opts), opts)
}

/// The reports of the series `range` of the file (clamped to its series),
/// in file order. Series are independent (each its own seeded streams), so
/// a series' report is the same whichever batch it is analysed in: the page
/// analyses a big file a batch at a time to show its first rows early
/// (`report::KeptFile::samples_batch`), and the batches concatenated equal
/// [`samples_report`]'s series. Spread over threads, collected in order.
pub fn series_reports(
    s: &SamplesFile,
    range: std::ops::Range<usize>,
    opts: &Options,
) -> Vec<SeriesReport> {
    let end = range.end.min(s.series.len());
    let start = range.start.min(end);
    s.series[start..end]
        .par_iter()
        .filter_map(|x| series_report(x, opts))
        .collect()
}

/// The cell from every series' report (`series_reports` over all the
/// series, in file order, in one call or in batches): what needs all of
/// them, the clustering, is computed here.
pub fn samples_report_of(
    s: &SamplesFile,
    series: Vec<SeriesReport>,
    opts: &Options,
) -> SamplesReport {
    SamplesReport {
        source: s.source.clone(),
        description: s.description.clone(),
        clustering: samples_clustering(&series, opts),
        series,
    }
}

/// Fewer than three series in a time unit give no clustering: with two, every
/// cut is either one or two clusters and says nothing the table does not.
const MIN_CLUSTERED: usize = 3;

fn samples_clustering(series: &[SeriesReport], opts: &Options) -> Option<SamplesClustering> {
    let mut names = Vec::new();
    let mut values_ns = Vec::new();
    let mut left_out = Vec::new();
    for x in series {
        match x.unit_ns {
            Some(k) if (x.summary.mean * k).is_finite() => {
                names.push(x.name.clone());
                values_ns.push(x.summary.mean * k);
            }
            _ => left_out.push((x.name.clone(), x.unit.clone())),
        }
    }
    if names.len() < MIN_CLUSTERED {
        return None;
    }
    let mut sorted = values_ns.clone();
    sorted.sort_by(f64::total_cmp);
    let summary = Summary::of_sorted(&sorted, opts.quantile_type)?;
    let clustering = clustering_report(&names, &values_ns, &summary, opts.linkage)?;
    Some(SamplesClustering {
        basis: "mean of each series over all its measurements, in ns".into(),
        names,
        values_ns,
        left_out,
        summary,
        clustering,
    })
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
        execution_stats: execution_stats(&s.executions, opts),
        tool_statistics: s.metadata.get("tool_statistics").cloned(),
        metadata: shown_metadata(&s.metadata),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(text: &str) -> SamplesReport {
        let s: SamplesFile = serde_json::from_str(text).unwrap();
        samples_report(&s, &Options::default())
    }

    #[test]
    fn samples_file_report_matches_reference() {
        let text = r#"{"format":"tickbook","format_version":"1.0","kind":"samples",
          "series":[{"name":"ref","unit":"ms",
            "executions":[[4.0,3.1,4.8,3.5,6.6],[4.2,3.9,5.3,3.4,4.4]]}]}"#;
        let r = report(text);
        let s = &r.series[0];
        assert_eq!((s.executions, s.measurements), (2, 10));
        assert!((s.summary.q1 - 3.6).abs() < 1e-12);
        assert_eq!(s.outliers.len(), 1);
        assert_eq!((s.outliers[0].execution, s.outliers[0].index), (0, 4));
        assert_eq!(s.unit_ns, Some(1e6));
        assert!((s.per_execution[0].mean - 4.4).abs() < 1e-12);
        // One series: no clustering.
        assert!(r.clustering.is_none());
    }

    #[test]
    fn series_cluster_by_mean_cost_across_time_units() {
        // Three groups near 10 ns, 1 µs and 1 ms, in mixed time units and in
        // file order; a series in cycles is left out.
        let text = r#"{"format":"tickbook","format_version":"1.0","kind":"samples",
          "series":[
            {"name":"b1","unit":"us","executions":[[1.0,1.0]]},
            {"name":"a2","unit":"ns","executions":[[11.0,11.0]]},
            {"name":"c1","unit":"ms","executions":[[1.0,1.0]]},
            {"name":"cyc","unit":"cycles","executions":[[5.0,6.0]]},
            {"name":"a1","unit":"ns","executions":[[9.0,11.0]]},
            {"name":"b2","unit":"ns","executions":[[1010.0,1010.0]]},
            {"name":"a4","unit":"ns","executions":[[13.0,13.0]]},
            {"name":"c2","unit":"us","executions":[[1000.5,1000.5]]},
            {"name":"a3","unit":"ns","executions":[[12.0,12.0]]}]}"#;
        let r = report(text);
        let c = r.clustering.as_ref().unwrap();
        assert_eq!(c.left_out, [("cyc".to_string(), "cycles".to_string())]);
        assert_eq!(c.names.len(), 8);
        assert_eq!(
            (c.values_ns[0], c.values_ns[2], c.values_ns[3]),
            (1000.0, 1e6, 10.0)
        );
        let stats: Vec<&str> = c
            .clustering
            .cuts
            .iter()
            .map(|x| x.statistic.as_str())
            .collect();
        assert_eq!(stats, ["min", "q1", "median", "mean", "q3", "max"]);
        // The median cost, (13 + 1000)/2 ns, is wider than the gaps within
        // groups (at most 500 ns) and narrower than those between them.
        let cut = &c.clustering.cuts[2];
        assert_eq!(cut.statistic, "median");
        assert_eq!(cut.granularity_ns, 506.5);
        assert_eq!(cut.clusters, 3);
        let members: Vec<Vec<&str>> = cut
            .members
            .iter()
            .map(|m| m.names.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(
            members,
            [
                vec!["a1", "a2", "a3", "a4"],
                vec!["b1", "b2"],
                vec!["c1", "c2"]
            ]
        );
        assert_eq!(
            (cut.members[1].min_ns, cut.members[1].max_ns),
            (1000.0, 1010.0)
        );
        // The minimum (10 ns) parts the cheap group; the maximum joins all.
        assert!(c.clustering.cuts[0].clusters > 3);
        assert_eq!(c.clustering.cuts[5].clusters, 1);
    }
}
