//! The Clocks cell: per-clock tick, steps, read cost and monotonicity, and
//! the agreement of the TSC frequency sources.

use super::{ClockMeasurement, ClocksData, CrossCpuCheck, FrequencySource};
use crate::options::Options;
use crate::stats::{Ecdf, QuantileType, Summary};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct ClocksReport {
    pub reference: String,
    pub tsc_hz: Option<f64>,
    pub tsc_hz_source: Option<String>,
    pub clocks: Vec<ClockRow>,
    pub frequency: FrequencyReport,
    pub cross_cpu: Vec<CrossCpuRow>,
    pub fallbacks: Vec<String>,
}

/// Monotonicity across CPU migrations, per clock checked.
#[derive(Debug, Clone, Serialize)]
pub struct CrossCpuRow {
    pub clock: String,
    pub cpus: Vec<u32>,
    pub migrations: u64,
    pub not_moved: u64,
    pub backwards: u64,
    /// The smallest step seen, in ns: skews below it cannot be detected.
    pub min_step_ns: Option<f64>,
    /// Median step, in ns (roughly the cost of a migration).
    pub median_step_ns: Option<f64>,
}

fn cross_cpu_row(c: &CrossCpuCheck) -> CrossCpuRow {
    let npu = c.ns_per_unit.unwrap_or(1.0);
    let steps: Vec<f64> = c.steps.iter().map(|&s| s as f64 * npu).collect();
    CrossCpuRow {
        clock: c.clock.clone(),
        cpus: c.cpus.clone(),
        migrations: c.migrations,
        not_moved: c.not_moved,
        backwards: c.backwards,
        min_step_ns: c.min_step.map(|s| s as f64 * npu),
        median_step_ns: crate::stats::quantile(&steps, 0.5, QuantileType::TYPE7),
    }
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
    /// The most frequent single-tick step (within 1.5× of the smallest), in
    /// ns: the tick a coarse clock really has, robust to preemption.
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
    /// Reads per timed batch, and the clock that timed the batches.
    pub read_cost_batch: Option<u32>,
    pub read_cost_reference: Option<String>,
    /// Consecutive reads that went backwards.
    pub violations: u64,
    /// The largest backwards step, in ns (positive number).
    pub largest_violation_ns: Option<f64>,
    pub scan_reads: u64,
    pub scan_duration_ns: Option<f64>,
    /// Why the scan stopped (`max_steps` or `max_duration`).
    pub scan_stopped_by: Option<String>,
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
        cross_cpu: d.cross_cpu.iter().map(cross_cpu_row).collect(),
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
        read_cost_batch: c.read_cost.as_ref().map(|r| r.batch),
        read_cost_reference: c.read_cost.as_ref().map(|r| r.reference.clone()),
        violations: 0,
        largest_violation_ns: None,
        scan_reads: 0,
        scan_duration_ns: None,
        scan_stopped_by: c.scan.as_ref().and_then(|s| s.stopped_by.clone()),
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
        row.modal_step_ns = crate::stats::tick::single_tick(&scan.steps).map(|s| s as f64 * npu);
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

#[cfg(test)]
mod tests {
    use super::*;

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
