//! The hierarchical bootstrap: each replicate resamples executions with
//! replacement, then measurements within each chosen execution (big
//! executions by counts of bins of near-equal values, stats::binned; the
//! others value by value in four lanes, stats::lanes). For one statistic
//! of the data, for several at once from each replicate's moments, and for
//! the ratio of two means of execution means.

use super::{mean_of_means, moments, ExecStat};
use crate::stats::binned::{Bins, BINNED_FROM};
use crate::stats::bootstrap::{
    index, interval_from, rng, side_rng, BootstrapCi, BootstrapOptions, Replicates, Side,
};
use crate::stats::lanes::{self, Deviations, Lanes};
use crate::stats::moments::Welford;

/// Hierarchical bootstrap CI of `stat`: each replicate resamples executions
/// with replacement, then measurements within each chosen execution.
pub fn hierarchical_ci(
    executions: &[Vec<f64>],
    mut stat: impl FnMut(&[Vec<f64>]) -> f64,
    opts: &BootstrapOptions,
) -> Option<BootstrapCi> {
    if executions.is_empty() || executions.iter().any(|e| e.is_empty()) || opts.resamples == 0 {
        return None;
    }
    let mut r = rng(opts.seed);
    let mut lanes = Lanes::new(opts.seed ^ LANES_SEED);
    let mut sample: Vec<Vec<f64>> = executions.iter().map(|e| vec![0.0; e.len()]).collect();
    let mut reps = Vec::with_capacity(opts.resamples);
    for _ in 0..opts.resamples {
        for slot in sample.iter_mut() {
            let src = &executions[index(&mut r, executions.len())];
            slot.resize(src.len(), 0.0);
            lanes::resample_into(src, slot, &mut lanes, &mut r);
        }
        reps.push(stat(&sample));
    }
    interval_from(stat(executions), reps, opts)
}

/// [`hierarchical_ci`] of several statistics at once: with one seed every
/// statistic sees the same replicates, so one resampling pass gives each the
/// interval its own call would (and costs one pass, not one per statistic).
/// The statistics read each replicate's per-execution moments, computed once
/// per replicate rather than once per statistic, as each resampled value is
/// drawn (sums of its deviations from the execution's mean: no copy of the
/// resample and no second pass over it; the same draws as
/// [`hierarchical_ci`], moments equal to its up to rounding). Executions of
/// [`BINNED_FROM`] measurements or more are resampled by counts of bins
/// of near-equal values instead (stats::binned).
pub fn hierarchical_cis(
    executions: &[Vec<f64>],
    stats: &[ExecStat],
    opts: &BootstrapOptions,
) -> Vec<Option<BootstrapCi>> {
    if executions.is_empty() || executions.iter().any(|e| e.is_empty()) || opts.resamples == 0 {
        return vec![None; stats.len()];
    }
    let mut r = rng(opts.seed);
    let mut lanes = Lanes::new(opts.seed ^ LANES_SEED);
    // Deviations from each execution's mean keep the sums of squares free
    // of cancellation.
    let centres: Vec<f64> = moments(executions)
        .iter()
        .map(|w| w.mean().unwrap_or(0.0))
        .collect();
    // Big executions are resampled by bins (stats::binned), the others
    // value by value from their (d, d²).
    let sources: Vec<Resampled> = executions
        .iter()
        .zip(&centres)
        .map(|(x, &c)| {
            if x.len() >= BINNED_FROM {
                Resampled::Bins(Bins::new(x, c))
            } else {
                Resampled::Values(Deviations::new(x, c))
            }
        })
        .collect();
    let mut m: Vec<Welford> = Vec::with_capacity(executions.len());
    let mut reps: Vec<Vec<f64>> = stats
        .iter()
        .map(|_| Vec::with_capacity(opts.resamples))
        .collect();
    for _ in 0..opts.resamples {
        m.clear();
        for _ in 0..executions.len() {
            let k = index(&mut r, executions.len());
            let (s1, s2) = match &sources[k] {
                Resampled::Bins(b) => b.resample_sums(&mut r),
                Resampled::Values(d) => lanes::resample_sums(d, &mut lanes, &mut r),
            };
            m.push(Welford::from_shifted_sums(
                executions[k].len() as u64,
                centres[k],
                s1,
                s2,
            ));
        }
        for (stat, out) in stats.iter().zip(reps.iter_mut()) {
            out.push(stat(&m));
        }
    }
    let whole = moments(executions);
    stats
        .iter()
        .zip(reps)
        .map(|(stat, reps)| interval_from(stat(&whole), reps, opts))
        .collect()
}

/// The seed of the value-by-value draws' lanes is the bootstrap's, xored
/// with this: apart from the Xoshiro256++ stream that picks executions.
const LANES_SEED: u64 = 0x6c61_6e65_7320_0001;

/// How an execution is resampled: by bins of near-equal values
/// (stats::binned) when big, else value by value (stats::lanes).
enum Resampled {
    Bins(Bins),
    Values(Deviations),
}

/// CI of the ratio of two means (`a` over `b`), each a mean of execution
/// means: every replicate resamples both sides hierarchically and
/// independently, and the interval is the percentile interval of the ratios.
pub fn ratio_of_means_ci(
    a: &[Vec<f64>],
    b: &[Vec<f64>],
    opts: &BootstrapOptions,
) -> Option<BootstrapCi> {
    let a = mean_of_means_replicates(a, opts, Side::Over)?;
    let b = mean_of_means_replicates(b, opts, Side::Under)?;
    a.ratio_ci(&b, opts)
}

/// The mean of execution means and its hierarchical bootstrap replicates
/// (executions, then measurements within each) from `side`'s stream: one
/// side of `ratio_of_means_ci`, made once for a baseline shared by many
/// ratios. `None` for no data, an empty execution or no resamples.
pub fn mean_of_means_replicates(
    d: &[Vec<f64>],
    opts: &BootstrapOptions,
    side: Side,
) -> Option<Replicates> {
    if d.is_empty() || d.iter().any(|e| e.is_empty()) || opts.resamples == 0 {
        return None;
    }
    let mut r = side_rng(opts.seed, side);
    let mut lanes = Lanes::new(opts.seed ^ LANES_SEED ^ side as u64);
    let devs: Vec<Deviations> = d.iter().map(|x| Deviations::new(x, 0.0)).collect();
    let reps = (0..opts.resamples)
        .map(|_| {
            let mut sum = 0.0;
            for _ in 0..d.len() {
                let ex = &devs[index(&mut r, d.len())];
                sum += lanes::resample_sums(ex, &mut lanes, &mut r).0 / ex.len() as f64;
            }
            sum / d.len() as f64
        })
        .collect();
    Some(Replicates {
        estimate: mean_of_means(&moments(d)),
        reps,
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::reference;
    use super::super::{cv_overall, cv_within};
    use super::*;

    #[test]
    fn hierarchical_bootstrap_is_seeded_and_sane() {
        let b = BootstrapOptions::default();
        let stat = |s: &[Vec<f64>]| mean_of_means(&moments(s));
        let a = hierarchical_ci(&reference(), stat, &b).unwrap();
        assert_eq!(a, hierarchical_ci(&reference(), stat, &b).unwrap());
        assert_eq!(a.estimate, 6.5);
        assert!(a.lo < 6.5 && 6.5 < a.hi);
    }

    #[test]
    fn several_statistics_in_one_pass_match_one_call_each() {
        // Unequal executions, so a replicate's slots differ in length.
        let d = vec![
            vec![9., 5., 8., 3., 4.],
            vec![10., 6., 7.],
            vec![1., 12., 2., 4., 6., 7.],
        ];
        let b = BootstrapOptions::default();
        let stats: [ExecStat; 3] = [mean_of_means, cv_within, cv_overall];
        let together = hierarchical_cis(&d, &stats, &b);
        for (stat, ci) in stats.iter().zip(together) {
            let alone = hierarchical_ci(&d, |s| stat(&moments(s)), &b).unwrap();
            // The same replicates; moments from sums as drawn, equal up to
            // rounding.
            let ci = ci.unwrap();
            for (a, b) in [
                (ci.estimate, alone.estimate),
                (ci.lo, alone.lo),
                (ci.hi, alone.hi),
            ] {
                assert!((a - b).abs() <= 1e-12 * b.abs(), "{ci:?} vs {alone:?}");
            }
            assert_eq!(ci.resamples, alone.resamples);
        }
        // And the moments give the plain definitions.
        let all: Vec<f64> = d.iter().flatten().copied().collect();
        let w = Welford::from_slice(&all);
        assert!((cv_overall(&moments(&d)) - w.sd().unwrap() / w.mean().unwrap()).abs() < 1e-12);
    }

    #[test]
    fn ratio_of_means() {
        let a = vec![vec![20.0, 22.0], vec![21.0, 19.0], vec![20.5, 21.5]];
        let b = vec![vec![10.0, 11.0], vec![10.5, 9.5], vec![10.0, 10.0]];
        let ci = ratio_of_means_ci(&a, &b, &BootstrapOptions::default()).unwrap();
        assert!((ci.estimate - 20.666_666_666_666_668 / 10.166_666_666_666_666).abs() < 1e-12);
        assert!(ci.lo < ci.estimate && ci.estimate < ci.hi);
        assert!(ci.lo > 1.8 && ci.hi < 2.3, "{ci:?}");
        assert!(ratio_of_means_ci(&a, &[], &BootstrapOptions::default()).is_none());
    }

    #[test]
    fn ratio_sides_draw_from_their_own_streams() {
        let o = BootstrapOptions::default();
        let a = vec![vec![20.0, 22.0], vec![21.0, 19.0], vec![20.5, 21.5]];
        let c = vec![vec![30.0, 33.0, 31.0], vec![29.0, 32.0, 30.5]];
        let b = vec![vec![10.0, 11.0], vec![10.5, 9.5], vec![10.0, 10.0]];
        // A baseline's replicates made once give each file's ratio exactly
        // as a call of its own does.
        let under = mean_of_means_replicates(&b, &o, Side::Under).unwrap();
        for x in [&a, &c] {
            let shared = mean_of_means_replicates(x, &o, Side::Over)
                .unwrap()
                .ratio_ci(&under, &o);
            assert_eq!(shared, ratio_of_means_ci(x, &b, &o));
        }
        // The two sides are not one stream: data over itself still varies.
        let same = ratio_of_means_ci(&a, &a, &o).unwrap();
        assert_eq!(same.estimate, 1.0);
        assert!(same.lo < 0.99 && same.hi > 1.01, "{same:?}");
    }
}
