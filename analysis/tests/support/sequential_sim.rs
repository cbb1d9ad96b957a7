//! A/A runs of `tickbook run --precision`: two copies of one command timed
//! once per round under a noise shape, checked after every round, for
//! analysis/examples/sequential_coverage.rs and tests/sequential.rs.

#![allow(dead_code)]

use rand::RngExt;
use rand_distr::{Distribution, LogNormal, StandardNormal, StudentT};
use tickbook_analysis::stats::bootstrap::rng;
use tickbook_analysis::stats::sequential::{asymptotic_cs, half_width_share, PrecisionRule};

#[derive(Debug, Clone, Copy)]
pub enum Noise {
    /// Each run 1 + 3 % normal noise.
    Normal,
    /// Each run lognormal (σ = 0.03 of the log), the shared load lognormal.
    Lognormal,
    /// One-sided delays of a Student t with 2.5 degrees of freedom (no
    /// third moment): 1 + 1.5 % · |t|.
    HeavyTail,
    /// Bursts: each run slowed 20–100 % with probability 0.08 on its own,
    /// and both runs of a round slowed together with probability 0.2.
    Bursts,
}

impl Noise {
    pub const ALL: [Noise; 4] = [
        Noise::Normal,
        Noise::Lognormal,
        Noise::HeavyTail,
        Noise::Bursts,
    ];

    pub fn name(&self) -> &'static str {
        match self {
            Noise::Normal => "normal",
            Noise::Lognormal => "lognormal",
            Noise::HeavyTail => "heavy tail (t, 2.5 df)",
            Noise::Bursts => "bursts",
        }
    }
}

/// One round's log ratio under the null: the two runs share the round's
/// load, which cancels, and differ by their own noise.
fn log_ratio(noise: Noise, r: &mut impl RngExt) -> f64 {
    fn one(noise: Noise, shared: f64, r: &mut impl RngExt) -> f64 {
        let own = match noise {
            Noise::Normal => 1.0 + 0.03 * r.sample::<f64, _>(StandardNormal),
            Noise::Lognormal => LogNormal::new(0.0, 0.03).map_or(1.0, |d| d.sample(r)),
            Noise::HeavyTail => {
                1.0 + 0.015
                    * StudentT::new(2.5)
                        .map_or(0.0, |d: StudentT<f64>| d.sample(r))
                        .abs()
            }
            Noise::Bursts => {
                if r.random::<f64>() < 0.08 {
                    1.2 + 0.8 * r.random::<f64>()
                } else {
                    1.0 + 0.01 * r.sample::<f64, _>(StandardNormal)
                }
            }
        };
        shared * own.max(1e-3)
    }
    let shared = match noise {
        Noise::Bursts => {
            if r.random::<f64>() < 0.2 {
                1.5
            } else {
                1.0
            }
        }
        _ => (0.1 * r.sample::<f64, _>(StandardNormal)).exp(),
    };
    (one(noise, shared, r) / one(noise, shared, r)).ln()
}

#[derive(Debug, Default, Clone, Copy)]
pub struct Outcome {
    pub trials: usize,
    /// The rule: its interval at the stop excludes 1.
    pub rule_different: usize,
    /// The rule's interval excluded 1 at some round up to the stop (a user
    /// who interrupts the run as soon as the live line shows a difference).
    pub rule_ever: usize,
    pub rule_rounds: usize,
    /// The fixed-sample 95 % interval checked after every round, stopping
    /// when it is as narrow or excludes 1: it excludes 1 at the stop.
    pub naive_different: usize,
    /// The fixed-sample interval at the stop when it is as narrow (only
    /// width watched).
    pub naive_width_different: usize,
    pub naive_rounds: usize,
}

/// The fixed-sample normal interval of the mean log ratio (what the
/// bootstrap percentile interval approximates), as (lo, hi).
fn fixed(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let sd = (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let w = 1.959964 * sd / n.sqrt();
    (m - w, m + w)
}

/// `trials` A/A runs of at most `max_rounds` rounds, the rule stopping at
/// ±`target`.
pub fn simulate(noise: Noise, target: f64, max_rounds: usize, trials: usize, seed: u64) -> Outcome {
    let rule = PrecisionRule::new(target);
    let alpha = 0.05;
    let mut o = Outcome {
        trials,
        ..Outcome::default()
    };
    for t in 0..trials {
        let mut r = rng(seed.wrapping_add(t as u64));
        let xs: Vec<f64> = (0..max_rounds).map(|_| log_ratio(noise, &mut r)).collect();
        let excludes = |(lo, hi): (f64, f64)| lo > 0.0 || hi < 0.0;
        // The rule.
        let mut ever = false;
        let mut stop = max_rounds;
        for n in rule.min_rounds..=max_rounds {
            if let Some((_, lo, hi)) = asymptotic_cs(&xs[..n], alpha, rule.t_opt) {
                ever |= excludes((lo, hi));
            }
            if rule.reached(&xs[..n], alpha) {
                stop = n;
                break;
            }
        }
        if let Some((_, lo, hi)) = asymptotic_cs(&xs[..stop], alpha, rule.t_opt) {
            o.rule_different += excludes((lo, hi)) as usize;
        }
        o.rule_ever += ever as usize;
        o.rule_rounds += stop;
        // The naive look after every round.
        let mut naive_stop = max_rounds;
        for n in rule.min_rounds..=max_rounds {
            let ci = fixed(&xs[..n]);
            if half_width_share(ci.0, ci.1) <= target || excludes(ci) || n == max_rounds {
                naive_stop = n;
                o.naive_different += excludes(ci) as usize;
                break;
            }
        }
        // Only its width watched.
        for n in rule.min_rounds..=max_rounds {
            let ci = fixed(&xs[..n]);
            if half_width_share(ci.0, ci.1) <= target || n == max_rounds {
                o.naive_width_different += excludes(ci) as usize;
                break;
            }
        }
        o.naive_rounds += naive_stop;
    }
    o
}

pub fn rate(k: usize, n: usize) -> f64 {
    k as f64 / n.max(1) as f64
}
