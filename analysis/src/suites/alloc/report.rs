//! The Allocation cell (Hocko & Kalibera): per configuration, the execution
//! statistics of its child executions; across configurations that differ
//! only in the placement strategy, rankings of the strategies by mean time
//! and by impact factor at several thresholds (Hocko & Kalibera's Figures 6 and 8),
//! geometric means of time ratios, and the ECDF of impact factors (Figure 9).

use super::{AllocConfig, AllocData};
use crate::format::Cache;
use crate::options::Options;
use crate::stats::bootstrap::BootstrapCi;
use crate::stats::bootstrap::{Replicates, Side};
use crate::stats::compare::{ranks, Est};
use crate::stats::executions::mean_of_means_replicates;
use crate::stats::regression::geometric_mean;
use crate::stats::Ecdf;
use crate::suites::executions::{execution_stats, ExecutionStats};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;

/// Thresholds of Hocko & Kalibera's Figures 6 (means) and 8 (impact factors). The
/// impact thresholds are relative differences (50 % … 800 %) and were set
/// for the paper's statistic; the factor ranked here is about the paper's
/// over its null mean (1.06 for groups of 10 normal values), a near-constant
/// scale that leaves relative differences, and so these thresholds, as
/// they were.
pub const MEAN_THRESHOLDS: [f64; 4] = [0.0, 0.01, 0.03, 0.10];
pub const IMPACT_THRESHOLDS: [f64; 5] = [0.0, 0.5, 1.0, 5.0, 8.0];
/// The strategy the others' time ratios are taken against.
pub const BASELINE_STRATEGY: &str = "default_4k";

#[derive(Debug, Clone, Serialize)]
pub struct AllocReport {
    pub executions_per_config: u32,
    pub measurements_per_execution: u32,
    pub colours: Option<u32>,
    pub colour_cache: Option<Cache>,
    pub schedule_seed: u64,
    /// The data come from an unfinished run: only finished executions.
    pub partial: bool,
    pub strategies: Vec<String>,
    pub configs: Vec<ConfigRow>,
    /// Groups: configurations with the same workload, size and allocator.
    pub groups: usize,
    pub mean_ranking: RankingTable,
    pub impact_ranking: RankingTable,
    pub time_ratios: Vec<RatioRow>,
    /// ECDF of impact factor estimates per strategy, for a log axis.
    pub impact_ecdf: Vec<StrategyEcdf>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ConfigRow {
    pub workload: String,
    pub size_factor: f64,
    pub cache: String,
    pub working_set_bytes: u64,
    pub strategy: String,
    pub allocator: String,
    pub available: bool,
    pub unavailable_reason: Option<String>,
    pub unit: String,
    pub executions_ok: usize,
    pub executions_failed: usize,
    /// Distinct failure messages, with counts.
    pub failures: Vec<(String, usize)>,
    pub stats: Option<ExecutionStats>,
    /// Colour histogram summed over executions (pages per colour).
    pub colour_histogram: Vec<u64>,
    pub colour_misses: Option<u64>,
    /// Mean share of the working set on huge pages, when recorded.
    pub huge_page_share: Option<f64>,
    /// Ratio of this configuration's mean time to the same workload, size
    /// and allocator under `default_4k`, with a hierarchical bootstrap CI.
    pub ratio_to_baseline: Option<BootstrapCi>,
}

/// Share of groups (in %) in which each strategy ranks first, per threshold.
#[derive(Debug, Clone, Serialize)]
pub struct RankingTable {
    pub metric: String,
    pub thresholds: Vec<f64>,
    pub strategies: Vec<String>,
    /// `first_percent[t][s]`: threshold `t`, strategy `s`.
    pub first_percent: Vec<Vec<f64>>,
    /// Groups that had an estimate for at least two strategies.
    pub groups: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct RatioRow {
    pub strategy: String,
    /// Geometric mean over groups of mean(strategy) / mean(baseline).
    pub geometric_mean: Option<f64>,
    pub groups: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct StrategyEcdf {
    pub strategy: String,
    pub points: Vec<(f64, f64)>,
}

fn config_row(c: &AllocConfig, o: &Options) -> ConfigRow {
    let ok = ok_executions(c);
    let mut failures: Vec<(String, usize)> = Vec::new();
    for e in c.executions.iter().filter(|e| !e.ok) {
        let msg = e
            .error
            .clone()
            .unwrap_or_else(|| "no reason recorded".into());
        match failures.iter_mut().find(|f| f.0 == msg) {
            Some(f) => f.1 += 1,
            None => failures.push((msg, 1)),
        }
    }
    let mut hist: Vec<u64> = Vec::new();
    let mut misses: Option<u64> = None;
    let mut huge = Vec::new();
    for e in c.executions.iter().filter(|e| e.ok) {
        if hist.len() < e.colour_histogram.len() {
            hist.resize(e.colour_histogram.len(), 0);
        }
        for (h, x) in hist.iter_mut().zip(&e.colour_histogram) {
            *h += x;
        }
        if let Some(m) = e.colour_misses {
            *misses.get_or_insert(0) += m;
        }
        if let Some(b) = e.huge_page_bytes {
            if c.working_set_bytes > 0 {
                huge.push(b as f64 / c.working_set_bytes as f64);
            }
        }
    }
    ConfigRow {
        workload: c.workload.clone(),
        size_factor: c.size_factor,
        cache: c.cache.clone(),
        working_set_bytes: c.working_set_bytes,
        strategy: c.strategy.clone(),
        allocator: c.allocator.clone(),
        available: c.available,
        unavailable_reason: c.unavailable_reason.clone(),
        unit: c.unit.clone(),
        executions_ok: ok.len(),
        executions_failed: c.executions.iter().filter(|e| !e.ok).count(),
        failures,
        stats: execution_stats(&ok, o),
        colour_histogram: hist,
        colour_misses: misses,
        huge_page_share: (!huge.is_empty()).then(|| huge.iter().sum::<f64>() / huge.len() as f64),
        ratio_to_baseline: None,
    }
}

/// Measurements of the executions that succeeded.
fn ok_executions(c: &AllocConfig) -> Vec<Vec<f64>> {
    c.executions
        .iter()
        .filter(|e| e.ok && !e.measurements.is_empty())
        .map(|e| e.measurements.clone())
        .collect()
}

/// The mean with its CI: random effects when there are several
/// measurements per execution, else the bootstrap of the mean.
fn mean_est(s: &ExecutionStats) -> Option<Est> {
    if let Some((lo, hi)) = s.random_effects.as_ref().and_then(|re| re.ci) {
        return Some(Est {
            estimate: s.random_effects.as_ref()?.mean,
            lo,
            hi,
        });
    }
    s.mean_bootstrap.as_ref().map(|b| Est {
        estimate: b.estimate,
        lo: b.lo,
        hi: b.hi,
    })
}

/// The impact factor (1 = no execution effect), not the paper's statistic:
/// that one's excess over 1 in pure noise differs with the group size and
/// the data's shape, so it would rank configurations by those too.
fn impact_est(s: &ExecutionStats) -> Option<Est> {
    s.impact_factor.as_ref().map(|b| Est {
        estimate: b.estimate,
        lo: b.lo,
        hi: b.hi,
    })
}

pub fn alloc_report(d: &AllocData, partial: bool, o: &Options) -> AllocReport {
    // Configurations are independent: spread over threads, in order.
    let mut configs: Vec<ConfigRow> = d.configs.par_iter().map(|c| config_row(c, o)).collect();
    ratios_to_baseline(d, &mut configs, o);
    let mut strategies: Vec<String> = Vec::new();
    for c in &configs {
        if !strategies.contains(&c.strategy) {
            strategies.push(c.strategy.clone());
        }
    }
    // Groups: same workload, size and allocator; one config per strategy.
    let mut keys: Vec<(String, String, String)> = Vec::new();
    for c in &configs {
        let k = (
            c.workload.clone(),
            c.size_factor.to_string(),
            c.allocator.clone(),
        );
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let groups: Vec<Vec<Option<&ConfigRow>>> = keys
        .iter()
        .map(|k| {
            strategies
                .iter()
                .map(|s| {
                    configs.iter().find(|c| {
                        &c.strategy == s
                            && c.workload == k.0
                            && c.size_factor.to_string() == k.1
                            && c.allocator == k.2
                    })
                })
                .collect()
        })
        .collect();

    let mean_ranking = ranking("mean", &MEAN_THRESHOLDS, mean_est, &strategies, &groups);
    let impact_ranking = ranking(
        "impact_factor",
        &IMPACT_THRESHOLDS,
        impact_est,
        &strategies,
        &groups,
    );

    let time_ratios = time_ratios(&strategies, &groups);

    let impact_ecdf = strategies
        .iter()
        .map(|s| {
            let v: Vec<f64> = configs
                .iter()
                .filter(|c| &c.strategy == s)
                .filter_map(|c| impact_est(c.stats.as_ref()?).map(|e| e.estimate))
                .filter(|x| x.is_finite() && *x > 0.0)
                .collect();
            StrategyEcdf {
                strategy: s.clone(),
                points: Ecdf::new(&v).points(o.ecdf_points),
            }
        })
        .collect();

    AllocReport {
        executions_per_config: d.executions_per_config,
        measurements_per_execution: d.measurements_per_execution,
        colours: d.colours,
        colour_cache: d.colour_cache.clone(),
        schedule_seed: d.schedule_seed,
        partial,
        groups: groups.len(),
        strategies,
        configs,
        mean_ranking,
        impact_ranking,
        time_ratios,
        impact_ecdf,
    }
}

/// Each configuration's mean against its baseline configuration's (same
/// workload, size and allocator), into `configs`: a baseline's replicates
/// are made once for all the strategies against it.
fn ratios_to_baseline(d: &AllocData, configs: &mut [ConfigRow], o: &Options) {
    let mut unders: HashMap<usize, Option<Replicates>> = HashMap::new();
    for (i, c) in d.configs.iter().enumerate() {
        if c.strategy == BASELINE_STRATEGY {
            continue;
        }
        let base = d.configs.iter().position(|b| {
            b.strategy == BASELINE_STRATEGY
                && b.workload == c.workload
                && b.size_factor == c.size_factor
                && b.allocator == c.allocator
        });
        if let Some(b) = base {
            let under = unders.entry(b).or_insert_with(|| {
                mean_of_means_replicates(&ok_executions(&d.configs[b]), &o.bootstrap, Side::Under)
            });
            configs[i].ratio_to_baseline = match under {
                Some(under) => {
                    mean_of_means_replicates(&ok_executions(c), &o.bootstrap, Side::Over)
                        .and_then(|a| a.ratio_ci(under, &o.bootstrap))
                }
                None => None,
            };
        }
    }
}

/// How often each strategy ranks first within a group, by `pick`, at each
/// threshold, over the groups with two or more estimates.
fn ranking(
    metric: &str,
    thresholds: &[f64],
    pick: fn(&ExecutionStats) -> Option<Est>,
    strategies: &[String],
    groups: &[Vec<Option<&ConfigRow>>],
) -> RankingTable {
    let mut first = vec![vec![0usize; strategies.len()]; thresholds.len()];
    let mut counted = 0;
    for g in groups {
        let ests: Vec<(usize, Est)> = g
            .iter()
            .enumerate()
            .filter_map(|(i, c)| Some((i, pick((*c)?.stats.as_ref()?)?)))
            .collect();
        if ests.len() < 2 {
            continue;
        }
        counted += 1;
        let only: Vec<Est> = ests.iter().map(|e| e.1).collect();
        for (t, &th) in thresholds.iter().enumerate() {
            for (k, r) in ranks(&only, th).into_iter().enumerate() {
                if r == 1 {
                    first[t][ests[k].0] += 1;
                }
            }
        }
    }
    RankingTable {
        metric: metric.into(),
        thresholds: thresholds.to_vec(),
        strategies: strategies.to_vec(),
        first_percent: first
            .iter()
            .map(|row| {
                row.iter()
                    .map(|&n| {
                        if counted > 0 {
                            100.0 * n as f64 / counted as f64
                        } else {
                            0.0
                        }
                    })
                    .collect()
            })
            .collect(),
        groups: counted,
    }
}

/// Each strategy's time against the baseline's: the geometric mean of the
/// ratios of means over the groups holding both.
fn time_ratios(strategies: &[String], groups: &[Vec<Option<&ConfigRow>>]) -> Vec<RatioRow> {
    let base = strategies.iter().position(|s| s == BASELINE_STRATEGY);
    strategies
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != base)
        .map(|(i, s)| {
            let ratios: Vec<f64> = match base {
                Some(b) => groups
                    .iter()
                    .filter_map(|g| {
                        let m = mean_est(g[i]?.stats.as_ref()?)?.estimate;
                        let m0 = mean_est(g[b]?.stats.as_ref()?)?.estimate;
                        (m0 > 0.0 && m > 0.0).then(|| m / m0)
                    })
                    .collect(),
                None => Vec::new(),
            };
            RatioRow {
                strategy: s.clone(),
                geometric_mean: geometric_mean(&ratios),
                groups: ratios.len(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::AllocExecution;
    use super::*;

    fn config(strategy: &str, base: f64, spread: f64) -> AllocConfig {
        AllocConfig {
            workload: "fft".into(),
            size_factor: 1.0,
            cache: "L2".into(),
            working_set_bytes: 1 << 20,
            strategy: strategy.into(),
            allocator: "system".into(),
            available: true,
            unavailable_reason: None,
            unit: "ns".into(),
            executions: (0..10)
                .map(|e| AllocExecution {
                    order: e,
                    ok: e != 9,
                    error: (e == 9).then(|| "exit status 1".to_string()),
                    env_padding_bytes: 0,
                    measurements: (0..10)
                        .map(|m| base + spread * e as f64 + (m % 3) as f64)
                        .collect(),
                    colour_histogram: vec![2, 2],
                    colour_misses: Some(0),
                    huge_page_bytes: None,
                })
                .collect(),
        }
    }

    #[test]
    fn rankings_ratios_and_failures() {
        let d = AllocData {
            executions_per_config: 10,
            measurements_per_execution: 10,
            colours: Some(2),
            colour_cache: None,
            schedule_seed: 1,
            configs: vec![
                config("default_4k", 1000.0, 20.0),
                config("page_colouring", 500.0, 1.0),
            ],
        };
        let r = alloc_report(&d, false, &Options::default());
        assert_eq!(r.configs[0].executions_ok, 9);
        assert_eq!(
            r.configs[0].failures,
            vec![("exit status 1".to_string(), 1)]
        );
        assert_eq!(r.configs[1].colour_histogram, vec![18, 18]);
        assert_eq!(r.mean_ranking.groups, 1);
        // Colouring is twice as fast and clearly so: first at every threshold.
        for row in &r.mean_ranking.first_percent {
            assert_eq!(row, &vec![0.0, 100.0]);
        }
        let ratio = r.time_ratios[0].geometric_mean.unwrap();
        assert!(ratio > 0.45 && ratio < 0.55, "{ratio}");
        assert_eq!(r.impact_ecdf.len(), 2);
        let ratio = r.configs[1].ratio_to_baseline.as_ref().unwrap();
        assert!(ratio.lo < ratio.estimate && ratio.hi < 0.6, "{ratio:?}");
        assert!(r.configs[0].ratio_to_baseline.is_none());
        // Executions 20 apart against 1 apart, with the same noise within:
        // colouring has the smaller impact factor, clearly (Figure 8), and
        // the ECDF is of the factors the configurations report.
        let factor = |i: usize| {
            r.configs[i]
                .stats
                .as_ref()
                .unwrap()
                .impact_factor
                .clone()
                .unwrap()
        };
        assert!(
            factor(1).hi < factor(0).lo,
            "{:?} {:?}",
            factor(1),
            factor(0)
        );
        assert_eq!(r.impact_ranking.groups, 1);
        assert_eq!(r.impact_ranking.first_percent[0], vec![0.0, 100.0]);
        for (e, i) in r.impact_ecdf.iter().zip([0, 1]) {
            assert_eq!(e.points, vec![(factor(i).estimate, 1.0)]);
        }
    }
}
