//! The change-point fit of a history by simulation (scripts/bench-history):
//! how often a series of 1,000 unchanged commits shows a change (the null),
//! how often steps and drifts of known size are found where they are, and
//! how often the 95 % interval of a found step's ratio holds the true one.
//! Each commit's value is its level plus between-commit noise τ plus its
//! own noise of standard error `se` (both normal, on the log scale), and a
//! few commits are disturbed (+20 %) as a background load would.
//!
//! usage: history_calibration [--runs N]

use rand::{RngExt, SeedableRng};
use rand_distr::StandardNormal;
use rand_xoshiro::Xoshiro256PlusPlus;
use statrs::distribution::{ContinuousCDF, Normal};
use tickbook_analysis::stats::changepoint::{fit, Kind, Point};

fn history(
    rng: &mut Xoshiro256PlusPlus,
    n: usize,
    tau: f64,
    se: f64,
    level: &dyn Fn(usize) -> f64,
    disturbed: &[usize],
) -> Vec<Option<Point>> {
    (0..n)
        .map(|i| {
            let a: f64 = rng.sample(StandardNormal);
            let b: f64 = rng.sample(StandardNormal);
            let bump = if disturbed.contains(&i) {
                1.2f64.ln()
            } else {
                0.0
            };
            Some(Point {
                y: level(i) + tau * a + se * b + bump,
                se,
            })
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2026);
    let z = Normal::standard().inverse_cdf(0.975);

    println!("null: 1,000 unchanged commits, {runs} series per row");
    println!("{:>8} {:>8} {:>22}", "tau", "se", "series with a change");
    for (tau, se) in [(0.005, 0.002), (0.01, 0.0), (0.002, 0.01), (0.02, 0.005)] {
        let alarms = (0..runs)
            .filter(|_| {
                let h = history(&mut rng, 1000, tau, se, &|_| 0.0, &[150, 151, 600]);
                !fit(&h).is_some_and(|f| f.changes.is_empty())
            })
            .count();
        println!(
            "{tau:>8} {se:>8} {:>21.1}%",
            100.0 * alarms as f64 / runs as f64
        );
    }

    println!("\nsteps at commit 50 of 100 (found: within ±1 commit; coverage: of the found ones)");
    println!(
        "{:>8} {:>8} {:>7} {:>8} {:>14} {:>9}",
        "tau", "se", "step", "found", "false alarms", "coverage"
    );
    for (tau, se) in [(0.005, 0.002), (0.01, 0.005)] {
        for step in [0.01, 0.02, 0.03, 0.05] {
            let (mut found, mut false_alarms, mut covered) = (0, 0, 0);
            let truth = (1.0f64 + step).ln();
            for _ in 0..runs {
                let h = history(
                    &mut rng,
                    100,
                    tau,
                    se,
                    &|i| if i >= 50 { truth } else { 0.0 },
                    &[20],
                );
                let Some(f) = fit(&h) else { continue };
                let mut hit = false;
                for c in &f.changes {
                    if c.kind == Kind::Flat && c.index.abs_diff(50) <= 1 && !hit {
                        hit = true;
                        let d = c.after - c.before;
                        let s = (c.before_se.powi(2) + c.after_se.powi(2)).sqrt();
                        covered += usize::from((d - truth).abs() <= z * s);
                    } else {
                        false_alarms += 1;
                    }
                }
                found += usize::from(hit);
            }
            println!(
                "{tau:>8} {se:>8} {:>6}% {:>7.1}% {:>14} {:>8.1}%",
                step * 100.0,
                100.0 * found as f64 / runs as f64,
                false_alarms,
                100.0 * covered as f64 / found.max(1) as f64
            );
        }
    }

    println!(
        "\ndrift of +0.4 % a commit over commits 40..=59 of 100 (one drift spanning it, within ±3)"
    );
    println!("{:>8} {:>8} {:>8} {:>12}", "tau", "se", "found", "as steps");
    for (tau, se) in [(0.002, 0.001), (0.004, 0.002)] {
        let (mut found, mut steps) = (0, 0);
        for _ in 0..runs {
            let h = history(
                &mut rng,
                100,
                tau,
                se,
                &|i| 1.004f64.ln() * (i.clamp(39, 59) - 39) as f64,
                &[],
            );
            let Some(f) = fit(&h) else { continue };
            let drifts: Vec<_> = f.changes.iter().filter(|c| c.kind == Kind::Drift).collect();
            if drifts.len() == 1
                && drifts[0].index.abs_diff(40) <= 3
                && drifts[0].end.abs_diff(59) <= 3
            {
                found += 1;
            } else if drifts.is_empty() && !f.changes.is_empty() {
                steps += 1;
            }
        }
        println!(
            "{tau:>8} {se:>8} {:>7.1}% {:>11.1}%",
            100.0 * found as f64 / runs as f64,
            100.0 * steps as f64 / runs as f64
        );
    }
}
