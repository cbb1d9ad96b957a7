//! Execution statistics for any data grouped by execution (the `samples`
//! kind, the `alloc` suite, imports): how much of the noise lives between
//! process runs rather than inside one (Hocko & Kalibera).

use crate::options::Options;
use crate::stats::bootstrap::{mean, percentile_ci, BootstrapCi};
use crate::stats::executions::{
    cv_overall, cv_within, executions_needed, hierarchical_cis, impact_factor_analysis,
    mean_of_means, optimal_measurements, random_effects, ExecStat, ImpactNull, ImpactOptions,
    RandomEffects,
};
use crate::stats::modes::{detect_modes, Modes};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct ExecutionStats {
    pub executions: usize,
    /// Whether every execution has a single measurement (then only the
    /// bootstrap CI of the mean applies).
    pub single_measurement: bool,
    /// Random-effects estimates and the CI of the mean (several measurements
    /// per execution).
    pub random_effects: Option<RandomEffects>,
    /// Hierarchical bootstrap CI of the mean of execution means.
    pub mean_hierarchical: Option<BootstrapCi>,
    /// Bootstrap CI of the mean when each execution has one measurement.
    pub mean_bootstrap: Option<BootstrapCi>,
    /// Non-determinism in measurement: CV within executions.
    pub cv_within: Option<BootstrapCi>,
    /// Unclassified non-determinism: CV of all measurements pooled.
    pub cv_overall: Option<BootstrapCi>,
    /// Non-determinism in execution: the impact factor, sqrt(mean variance
    /// of groups across executions / mean variance within one); 1 = no
    /// execution effect (docs/methods.md). Three executions or more.
    pub impact_factor: Option<BootstrapCi>,
    /// The paper's statistic (Hocko & Kalibera: mean SD ratio of random
    /// group pairs), above 1 with no execution effect by
    /// `impact_null.paper_mean`.
    pub impact_factor_paper: Option<BootstrapCi>,
    /// The factor with no execution effect (measurements shuffled across
    /// executions): its mean, band, the p-value, the paper's null mean.
    pub impact_null: Option<ImpactNull>,
    pub impact: ImpactOptions,
    /// Measurements per execution minimising cost, for executions costing
    /// 10, 100 and 1000 measurements, and the executions then needed for a
    /// CI half-width of 1 % and 5 % of the mean.
    pub planning: Vec<PlanningRow>,
    /// Modes among the execution means (k-means, count by silhouette).
    pub modes: Option<Modes>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PlanningRow {
    /// Cost of one execution (start-up, warm-up) in measurements.
    pub execution_cost: f64,
    pub measurements_per_execution: Option<u64>,
    pub executions_for_1pct: Option<u64>,
    pub executions_for_5pct: Option<u64>,
}

/// `None` for no execution.
pub fn execution_stats(executions: &[Vec<f64>], o: &Options) -> Option<ExecutionStats> {
    if executions.is_empty() || executions.iter().any(|e| e.is_empty()) {
        return None;
    }
    let single = executions.iter().all(|e| e.len() == 1);
    let b = &o.bootstrap;
    let re = random_effects(executions, o.confidence).filter(|_| !single);
    // The three hierarchical bootstraps in one pass (same seed, same
    // replicates as three separate calls).
    let [mean_h, cv_w, cv_o]: [Option<BootstrapCi>; 3] = {
        let stats: [ExecStat; 3] = [mean_of_means, cv_within, cv_overall];
        let mut cis = hierarchical_cis(executions, &stats, b)
            .into_iter()
            .map(|c| c.filter(|c| c.estimate.is_finite()));
        [(); 3].map(|_| cis.next().flatten())
    };
    let planning = match &re {
        Some(re) => [10.0, 100.0, 1000.0]
            .into_iter()
            .map(|cost| {
                let r1 = optimal_measurements(re.t1_sq, re.t2_sq.unwrap_or(0.0), cost);
                PlanningRow {
                    execution_cost: cost,
                    measurements_per_execution: r1,
                    executions_for_1pct: r1
                        .and_then(|r1| executions_needed(re, r1, 0.01, o.confidence)),
                    executions_for_5pct: r1
                        .and_then(|r1| executions_needed(re, r1, 0.05, o.confidence)),
                }
            })
            .collect(),
        None => Vec::new(),
    };
    let impact = (!single && executions.len() > 1)
        .then(|| impact_factor_analysis(executions, &o.impact, b, o.impact_resamples))
        .flatten();
    let (impact_factor, impact_factor_paper, impact_null) = match impact {
        Some(i) => (Some(i.factor), i.paper, Some(i.null)),
        None => (None, None, None),
    };
    Some(ExecutionStats {
        executions: executions.len(),
        single_measurement: single,
        mean_hierarchical: if single { None } else { mean_h },
        mean_bootstrap: single
            .then(|| {
                let xs: Vec<f64> = executions.iter().flatten().copied().collect();
                percentile_ci(&xs, mean, b)
            })
            .flatten(),
        cv_within: if single { None } else { cv_w },
        cv_overall: cv_o,
        impact_factor,
        impact_factor_paper,
        impact_null,
        impact: o.impact,
        modes: (!single)
            .then(|| {
                let means: Vec<f64> = executions
                    .iter()
                    .map(|e| e.iter().sum::<f64>() / e.len() as f64)
                    .collect();
                detect_modes(&means)
            })
            .flatten(),
        random_effects: re,
        planning,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_example_through_the_report() {
        let d = vec![
            vec![9., 5., 8., 3.],
            vec![10., 6., 7., 11.],
            vec![1., 12., 2., 4.],
        ];
        let s = execution_stats(&d, &Options::default()).unwrap();
        let re = s.random_effects.as_ref().unwrap();
        assert!((re.ci.unwrap().0 - 1.8112928904681684).abs() < 1e-12);
        assert_eq!(s.mean_hierarchical.as_ref().unwrap().estimate, 6.5);
        assert!(s.mean_bootstrap.is_none());
        assert!(s.impact_factor.is_some());
        assert_eq!(s.planning.len(), 3);
    }

    #[test]
    fn one_measurement_per_execution_uses_the_plain_bootstrap() {
        let d = vec![vec![1.0], vec![2.0], vec![3.0], vec![4.0]];
        let s = execution_stats(&d, &Options::default()).unwrap();
        assert!(s.single_measurement);
        assert!(s.random_effects.is_none() && s.impact_factor.is_none());
        let m = s.mean_bootstrap.unwrap();
        assert_eq!(m.estimate, 2.5);
        assert!(m.lo >= 1.0 && m.hi <= 4.0);
    }
}

/// Figures, not a timed test: `cargo test --release -p tickbook-analysis
/// --lib impact_cost -- --ignored --nocapture` prints the time of a
/// series' execution statistics (the impact factor is most of it) next to
/// the former impact factor's bootstrap alone.
#[cfg(test)]
mod cost {
    use super::*;
    use crate::stats::bootstrap::{rng, BootstrapOptions};
    use crate::stats::executions::{hierarchical_ci, impact_factor};
    use rand::RngExt;

    #[test]
    #[ignore]
    fn impact_cost() {
        let o = Options::default();
        for (execs, per) in [(10, 10), (10, 30), (30, 30), (6, 30)] {
            let mut r = rng(1);
            let d: Vec<Vec<f64>> = (0..execs)
                .map(|_| {
                    let a: f64 = r.random::<f64>() * 3.0;
                    (0..per).map(|_| 100.0 + a + r.random::<f64>()).collect()
                })
                .collect();
            let n = 20;
            let t = std::time::Instant::now();
            for _ in 0..n {
                std::hint::black_box(execution_stats(&d, &o));
            }
            let now = t.elapsed() / n;
            let t = std::time::Instant::now();
            let b = BootstrapOptions {
                resamples: o.impact_resamples,
                ..o.bootstrap
            };
            for _ in 0..n {
                let mut inner = rng(2);
                std::hint::black_box(hierarchical_ci(
                    &d,
                    |s| impact_factor(s, &o.impact, &mut inner).unwrap_or(f64::NAN),
                    &b,
                ));
            }
            let before = t.elapsed() / n;
            let t = std::time::Instant::now();
            for _ in 0..n {
                std::hint::black_box(crate::stats::executions::impact_factor_analysis(
                    &d,
                    &o.impact,
                    &o.bootstrap,
                    o.impact_resamples,
                ));
            }
            let impact = t.elapsed() / n;
            let t = std::time::Instant::now();
            let no_paper = crate::stats::executions::ImpactOptions {
                pairs: 0,
                ..o.impact
            };
            for _ in 0..n {
                std::hint::black_box(crate::stats::executions::impact_factor_analysis(
                    &d,
                    &no_paper,
                    &o.bootstrap,
                    o.impact_resamples,
                ));
            }
            let factor = t.elapsed() / n;
            eprintln!("{execs}×{per}: execution statistics {now:.2?}, of which the impact factor {impact:.2?} (without the paper's statistic {factor:.2?}); the former impact factor's bootstrap alone {before:.2?}");
        }
    }
}
