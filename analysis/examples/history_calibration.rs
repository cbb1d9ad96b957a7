//! The change-point fit of a history by simulation (scripts/bench-history):
//! how often a series of 1,000 unchanged commits shows a change (the null),
//! how often steps and drifts of known size are found where they are, and
//! how often the 95 % interval of a found step's ratio holds the true one.
//! Each commit's value is its level plus between-commit noise τ plus its
//! own noise of standard error `se` (both normal, on the log scale), and a
//! few commits are disturbed (+20 %) as a background load would. Designs:
//! independent between-commit noise; a slow wander (AR(1) of lag-1
//! correlation φ, as a shared machine's level moves); each commit's own
//! executions varying from 2 to 10; 1,000, 100 and 12-16 commits.
//!
//! usage: history_calibration [--runs N]

use rand::{RngExt, SeedableRng};
use rand_distr::StandardNormal;
use rand_xoshiro::Xoshiro256PlusPlus;
use statrs::distribution::{ContinuousCDF, Normal};
use tickbook_analysis::stats::changepoint::{fit, Kind, Point};

/// How a simulated history's noise is made.
#[derive(Clone, Copy)]
struct Noise {
    /// Between-commit standard deviation (log scale).
    tau: f64,
    /// Lag-1 autocorrelation of the between-commit noise (a slow wander).
    phi: f64,
    /// Each commit's own standard error, at five executions.
    se: f64,
    /// Each commit measured with 2 to 10 executions (its standard error
    /// scaled by √(5/k)) instead of five each.
    varying: bool,
}

const fn iid(tau: f64, se: f64) -> Noise {
    Noise {
        tau,
        phi: 0.0,
        se,
        varying: false,
    }
}

fn history(
    rng: &mut Xoshiro256PlusPlus,
    n: usize,
    noise: Noise,
    level: &dyn Fn(usize) -> f64,
    disturbed: &[usize],
) -> Vec<Option<Point>> {
    let Noise {
        tau,
        phi,
        se,
        varying,
    } = noise;
    // AR(1) with marginal standard deviation τ, started from its stationary law.
    let mut wander = tau * rng.sample::<f64, _>(StandardNormal);
    (0..n)
        .map(|i| {
            let a: f64 = rng.sample(StandardNormal);
            let b: f64 = rng.sample(StandardNormal);
            if i > 0 {
                wander = phi * wander + tau * (1.0 - phi * phi).sqrt() * a;
            }
            let se = if varying {
                se * (5.0 / rng.random_range(2..=10) as f64).sqrt()
            } else {
                se
            };
            let bump = if disturbed.contains(&i) {
                1.2f64.ln()
            } else {
                0.0
            };
            Some(Point {
                y: level(i) + wander + se * b + bump,
                se,
            })
        })
        .collect()
}

fn label(n: Noise) -> String {
    format!(
        "{:>6} {:>6} {:>5} {:>7}",
        n.tau,
        n.se,
        n.phi,
        if n.varying { "2-10" } else { "5" }
    )
}

const HEAD: &str = "   tau     se   phi   execs";

fn pct(k: usize, of: usize) -> f64 {
    100.0 * k as f64 / of.max(1) as f64
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
    let wander = |tau, se, phi| Noise {
        tau,
        phi,
        se,
        varying: false,
    };
    let varying = |tau, se| Noise {
        tau,
        phi: 0.0,
        se,
        varying: true,
    };

    println!("null: unchanged commits (3 disturbed by +20 % in 1,000, 1 in 12-16), {runs} series per row");
    println!("{:>8} {HEAD} {:>22}", "commits", "series with a change");
    let nulls = [
        (1000, iid(0.005, 0.002)),
        (1000, iid(0.01, 0.0)),
        (1000, iid(0.002, 0.01)),
        (1000, iid(0.02, 0.005)),
        (1000, wander(0.01, 0.002, 0.5)),
        (1000, wander(0.01, 0.002, 0.8)),
        (1000, varying(0.005, 0.005)),
        (80, wander(0.03, 0.01, 0.5)),
        (16, iid(0.01, 0.002)),
        (12, iid(0.01, 0.002)),
        (12, varying(0.01, 0.005)),
        (16, wander(0.01, 0.002, 0.5)),
    ];
    for (n, noise) in nulls {
        let disturbed: &[usize] = if n >= 1000 {
            &[150, 151, 600]
        } else {
            &[n / 3]
        };
        let alarms = (0..runs)
            .filter(|_| {
                let h = history(&mut rng, n, noise, &|_| 0.0, disturbed);
                !fit(&h).is_some_and(|f| f.changes.is_empty())
            })
            .count();
        println!("{n:>8} {} {:>21.1}%", label(noise), pct(alarms, runs));
    }

    println!("\nsteps at commit n/2 of n (found: within ±1 commit; coverage: of the found ones)");
    println!(
        "{:>8} {HEAD} {:>7} {:>8} {:>14} {:>9}",
        "commits", "step", "found", "false alarms", "coverage"
    );
    let designs = [
        (100, iid(0.005, 0.002)),
        (100, iid(0.01, 0.005)),
        (100, wander(0.01, 0.002, 0.5)),
        (100, varying(0.005, 0.005)),
        (16, iid(0.005, 0.002)),
        (12, iid(0.005, 0.002)),
        (12, varying(0.005, 0.005)),
    ];
    for (n, noise) in designs {
        for step in [0.01, 0.02, 0.03, 0.05] {
            let (mut found, mut false_alarms, mut covered) = (0, 0, 0);
            let truth = (1.0f64 + step).ln();
            let at = n / 2;
            let disturbed: &[usize] = if n >= 100 { &[20] } else { &[] };
            for _ in 0..runs {
                let h = history(
                    &mut rng,
                    n,
                    noise,
                    &|i| if i >= at { truth } else { 0.0 },
                    disturbed,
                );
                let Some(f) = fit(&h) else { continue };
                let mut hit = false;
                for c in &f.changes {
                    if c.kind == Kind::Flat && c.index.abs_diff(at) <= 1 && !hit {
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
                "{n:>8} {} {:>6}% {:>7.1}% {:>14} {:>8.1}%",
                label(noise),
                step * 100.0,
                pct(found, runs),
                false_alarms,
                pct(covered, found)
            );
        }
    }

    println!(
        "\ndrift of +0.4 % a commit over commits 40..=59 of 100 (one drift spanning it, within ±3)"
    );
    println!("{HEAD} {:>8} {:>12}", "found", "as steps");
    for noise in [
        iid(0.002, 0.001),
        iid(0.004, 0.002),
        wander(0.004, 0.001, 0.5),
    ] {
        let (mut found, mut steps) = (0, 0);
        for _ in 0..runs {
            let h = history(
                &mut rng,
                100,
                noise,
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
            "{} {:>7.1}% {:>11.1}%",
            label(noise),
            pct(found, runs),
            pct(steps, runs)
        );
    }
}
