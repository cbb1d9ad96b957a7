//! Big executions resampled by bins (stats::binned) against what the
//! value-by-value resampling gives, on heavy-tailed data with outliers:
//!
//! * a bootstrap draw's Σd and Σd² have the exact mean and covariance of
//!   n draws with replacement (n·E[d], n·Cov(d, d²), …);
//! * a shuffle's group sums have the exact finite-population mean and
//!   variance of a sample without replacement;
//! * the hierarchical bootstrap's intervals (which take the binned path
//!   for executions this long) agree with the value-by-value
//!   `hierarchical_ci`'s to within the resampling's own noise.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tickbook_analysis::stats::binned::{Bins, ShuffleScratch, BINNED_FROM};
use tickbook_analysis::stats::bootstrap::BootstrapOptions;
use tickbook_analysis::stats::executions::{
    cv_overall, cv_within, hierarchical_ci, hierarchical_cis, mean_of_means, moments, ExecStat,
};

/// Timing-like values: a lognormal body near 100, 1 % outliers of 3–30×,
/// rounded to 0.01 (ties, as a clock's resolution makes).
fn timings(n: usize, shift: f64, r: &mut Xoshiro256PlusPlus) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let (u, v): (f64, f64) = (r.random::<f64>().max(1e-300), r.random());
            let z = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos();
            let mut x = (100.0 + shift) * (0.05 * z).exp();
            if r.random::<f64>() < 0.01 {
                x *= 3.0 + 27.0 * r.random::<f64>();
            }
            (x * 100.0).round() / 100.0
        })
        .collect()
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn var(xs: &[f64]) -> f64 {
    let m = mean(xs);
    xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (xs.len() - 1) as f64
}

#[test]
fn a_bootstrap_draw_has_the_exact_moments_of_n_draws_with_replacement() {
    let mut r = Xoshiro256PlusPlus::seed_from_u64(1);
    let xs = timings(BINNED_FROM + 1000, 0.0, &mut r);
    let c = mean(&xs);
    let n = xs.len() as f64;
    let d: Vec<f64> = xs.iter().map(|x| x - c).collect();
    let d2: Vec<f64> = d.iter().map(|d| d * d).collect();
    let (m1, m2) = (mean(&d), mean(&d2));
    // Population (divisor n) moments of one draw.
    let v1 = d.iter().map(|x| (x - m1).powi(2)).sum::<f64>() / n;
    let v2 = d2.iter().map(|x| (x - m2).powi(2)).sum::<f64>() / n;
    let bins = Bins::new(&xs, c);
    assert!(bins.bins() < xs.len() / 10, "{} bins", bins.bins());
    let draws = 4000;
    let (s1, s2): (Vec<f64>, Vec<f64>) = (0..draws).map(|_| bins.resample_sums(&mut r)).unzip();
    // Means within 5 SE; variances within 15 % (their sampling error with
    // 4,000 draws of a heavy-tailed sum is a few per cent).
    let se1 = (n * v1 / draws as f64).sqrt();
    let se2 = (n * v2 / draws as f64).sqrt();
    assert!(
        (mean(&s1) - n * m1).abs() < 5.0 * se1,
        "Σd: {} vs {}",
        mean(&s1),
        n * m1
    );
    assert!(
        (mean(&s2) - n * m2).abs() < 5.0 * se2,
        "Σd²: {} vs {}",
        mean(&s2),
        n * m2
    );
    assert!(
        (var(&s1) / (n * v1) - 1.0).abs() < 0.15,
        "Var Σd: {} vs {}",
        var(&s1),
        n * v1
    );
    assert!(
        (var(&s2) / (n * v2) - 1.0).abs() < 0.15,
        "Var Σd²: {} vs {}",
        var(&s2),
        n * v2
    );
}

#[test]
fn a_shuffle_deals_groups_the_exact_finite_population_moments() {
    let mut r = Xoshiro256PlusPlus::seed_from_u64(2);
    let mut xs = timings(30_000, 0.0, &mut r);
    xs.extend(timings(30_000, 5.0, &mut r));
    let c = mean(&xs);
    let big_n = xs.len() as f64;
    let d: Vec<f64> = xs.iter().map(|x| x - c).collect();
    let d2: Vec<f64> = d.iter().map(|d| d * d).collect();
    let sizes = [10_000usize, 20_000, 30_000];
    let bins = Bins::new(&xs, c);
    let mut scratch = ShuffleScratch::default();
    let shuffles = 3000;
    let sums: Vec<Vec<(f64, f64)>> = (0..shuffles)
        .map(|_| bins.shuffle_sums(&sizes, &mut r, &mut scratch))
        .collect();
    for (g, &size) in sizes.iter().enumerate() {
        let k = size as f64;
        let fpc = (big_n - k) / (big_n - 1.0);
        for (y, which) in [(&d, 0), (&d2, 1)] {
            let sigma2 = y.iter().map(|v| (v - mean(y)).powi(2)).sum::<f64>() / big_n;
            let want_mean = k * mean(y);
            let want_var = k * sigma2 * fpc;
            let got: Vec<f64> = sums
                .iter()
                .map(|s| if which == 0 { s[g].0 } else { s[g].1 })
                .collect();
            let se = (want_var / shuffles as f64).sqrt();
            assert!(
                (mean(&got) - want_mean).abs() < 5.0 * se,
                "group {g} sum {which}: mean {} vs {want_mean}",
                mean(&got)
            );
            assert!(
                (var(&got) / want_var - 1.0).abs() < 0.15,
                "group {g} sum {which}: variance {} vs {want_var}",
                var(&got)
            );
        }
    }
}

#[test]
fn hierarchical_intervals_by_bins_agree_with_the_value_by_value_bootstrap() {
    let mut r = Xoshiro256PlusPlus::seed_from_u64(3);
    let d: Vec<Vec<f64>> = [0.0, 4.0, -2.0, 1.0]
        .iter()
        .map(|&s| timings(BINNED_FROM + 500, s, &mut r))
        .collect();
    let b = BootstrapOptions {
        resamples: 3000,
        confidence: 0.95,
        seed: 9,
    };
    let stats: [ExecStat; 3] = [mean_of_means, cv_within, cv_overall];
    let binned = hierarchical_cis(&d, &stats, &b);
    for (stat, got) in stats.iter().zip(&binned) {
        let got = got.as_ref().expect("an interval");
        let exact = hierarchical_ci(&d, |s| stat(&moments(s)), &b).expect("an interval");
        assert_eq!(got.estimate, exact.estimate);
        // Both ends within a tenth of the interval's width: the two runs
        // draw different random numbers, and a percentile end of 3,000
        // replicates moves by a few per cent of the width between seeds.
        let width = exact.hi - exact.lo;
        assert!(width > 0.0);
        assert!(
            (got.lo - exact.lo).abs() < 0.1 * width && (got.hi - exact.hi).abs() < 0.1 * width,
            "bins [{}, {}] vs values [{}, {}]",
            got.lo,
            got.hi,
            exact.lo,
            exact.hi
        );
    }
}
