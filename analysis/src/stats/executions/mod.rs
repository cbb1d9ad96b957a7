//! Statistics of repeated executions (Hocko & Kalibera; Kalibera & Jones
//! 2013): data are measurements grouped by execution (process run), and the
//! noise between executions is kept apart from the noise within one.
//!
//! * `random_effects`: variance estimators per level with the corrected
//!   T² (negative clamps to 0) and the CI of the mean from execution means;
//! * `hierarchical_bootstrap`: resample executions, then measurements
//!   within;
//! * `impact`: the impact factor (after Hocko & Kalibera), how much wider
//!   the spread of measurements from different executions is than from
//!   one, as the root of a ratio of mean variances (1 = no execution
//!   effect), with a studentized bootstrap CI over executions and a
//!   permutation p-value; the paper's mean of SD ratios (`paper`), which
//!   is above 1 in pure noise, beside it (docs/methods.md); the null's
//!   shuffles of measurements across executions in `shuffle`;
//! * `plan`: the measurements per execution that minimise cost for a
//!   precision, and the executions a precision needs.
//!
//! Here: each execution's moments and the statistics of them that the
//! bootstrap and the factor share. Every public item is re-exported here,
//! so callers name `stats::executions::…` whatever file holds it.

mod hierarchical_bootstrap;
mod impact;
mod paper;
mod plan;
mod random_effects;
mod shuffle;

pub use hierarchical_bootstrap::{
    hierarchical_ci, hierarchical_cis, mean_of_means_replicates, ratio_of_means_ci,
};
pub use impact::{
    impact_factor, impact_factor_analysis, ImpactFactor, ImpactNull, ImpactOptions,
    PAPER_NULL_PERMUTATIONS,
};
pub use paper::normal_null_mean;
pub use plan::{executions_needed, optimal_measurements, units_needed, whole_count, MAX_COUNT};
pub use random_effects::{random_effects, RandomEffects};

use super::moments::Welford;

/// A statistic of data grouped by execution, from each execution's moments
/// (count, mean, sum of squared deviations), for [`hierarchical_cis`].
pub type ExecStat = fn(&[Welford]) -> f64;

/// Each execution's moments.
pub fn moments(executions: &[Vec<f64>]) -> Vec<Welford> {
    executions.iter().map(|e| Welford::from_slice(e)).collect()
}

/// The grand mean as the mean of execution means (each execution weighs the
/// same, as in the random-effects model).
pub fn mean_of_means(m: &[Welford]) -> f64 {
    mean_of(m).unwrap_or(f64::NAN)
}

/// The mean of the executions' means, as `Welford::from_slice` of them
/// gives it, without collecting them: this runs for every bootstrap
/// replicate, where the allocation cost WebAssembly more than the sum.
fn mean_of(m: &[Welford]) -> Option<f64> {
    let k = m.iter().filter(|w| w.mean().is_some()).count();
    (k > 0).then(|| m.iter().filter_map(Welford::mean).sum::<f64>() / k as f64)
}

/// CV within executions: sqrt(pooled within variance) / grand mean.
pub fn cv_within(m: &[Welford]) -> f64 {
    // The same S₁² and Ȳ as `random_effects`, without its t quantile: this
    // runs once per bootstrap replicate, where the quantile dominated.
    if m.is_empty() || m.iter().any(|w| w.count() == 0) {
        return f64::NAN;
    }
    let Some(mean) = mean_of(m) else {
        return f64::NAN;
    };
    let ss: f64 = m
        .iter()
        .map(|w| w.population_variance().unwrap_or(0.0) * w.count() as f64)
        .sum();
    let df: u64 = m.iter().map(|w| w.count() - 1).sum();
    let s1_sq = if df > 0 { ss / df as f64 } else { 0.0 };
    if mean != 0.0 {
        s1_sq.sqrt() / mean
    } else {
        f64::NAN
    }
}

/// CV of all measurements pooled (unclassified non-determinism).
pub fn cv_overall(m: &[Welford]) -> f64 {
    let mut all = Welford::new();
    for w in m {
        all.merge(w);
    }
    all.cv().unwrap_or(f64::NAN)
}

/// Where each execution starts in the series of all of them, and where
/// the last ends.
fn starts(sizes: &[usize]) -> Vec<usize> {
    std::iter::once(0)
        .chain(sizes.iter().scan(0, |at, &n| {
            *at += n;
            Some(*at)
        }))
        .collect()
}

/// Data the modules' tests share.
#[cfg(test)]
mod testing {
    use crate::stats::bootstrap::rng;
    use crate::stats::testing::normal;

    /// Three executions of four.
    pub(super) fn reference() -> Vec<Vec<f64>> {
        vec![
            vec![9., 5., 8., 3.],
            vec![10., 6., 7., 11.],
            vec![1., 12., 2., 4.],
        ]
    }

    /// Executions with a normal execution effect of SD `sd_between` and
    /// normal noise within of SD `sd_within`, about 100.
    pub(super) fn generate(
        seed: u64,
        execs: usize,
        per: usize,
        sd_between: f64,
        sd_within: f64,
    ) -> Vec<Vec<f64>> {
        let mut r = rng(seed);
        (0..execs)
            .map(|_| {
                let a = sd_between * normal(&mut r);
                (0..per)
                    .map(|_| 100.0 + a + sd_within * normal(&mut r))
                    .collect()
            })
            .collect()
    }
}
