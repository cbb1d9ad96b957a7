//! The three-level intervals against the truth on generated campaigns:
//! value = 100 + machine effect + execution effect + noise, each normal with
//! a known SD, in the designs campaigns have (docs/methods.md, "Three
//! levels"). Shared by tests/levels_coverage.rs (a CI-sized grid with
//! bands) and examples/levels_coverage.rs (the full table, with the other
//! candidate methods for comparison).

#![allow(dead_code)]

use rand::{Rng, RngExt};
use rand_distr::StandardNormal;
use tickbook_analysis::stats::bootstrap::{index, rng};
use tickbook_analysis::stats::levels::components;

/// The intervals a method gives: T₁², T₂², T₃², the execution and the
/// machine impact factor (None where it gives none).
pub type Intervals = [Option<(f64, f64)>; 5];

/// What the columns are.
pub const NAMES: [&str; 5] = ["T1²", "T2²", "T3²", "impact exec", "impact mach"];

/// One design: executions per machine, measurements per execution (machine
/// by machine), and the SDs of noise, execution and machine effects.
#[derive(Clone, Debug)]
pub struct Design {
    pub name: String,
    pub measurements: Vec<Vec<usize>>,
    pub sd: [f64; 3],
}

impl Design {
    pub fn balanced(machines: usize, execs: usize, n: usize, sd: [f64; 3]) -> Design {
        Design {
            name: format!("{machines}×{execs}×{n}"),
            measurements: vec![vec![n; execs]; machines],
            sd,
        }
    }

    /// Machines with 2, 5, 3 or 8 executions (cycling) of 20, 60, 40 or 10
    /// measurements (cycling over all executions): both counts unequal, as
    /// after failed tasks or a machine given less time.
    pub fn unbalanced(machines: usize, sd: [f64; 3]) -> Design {
        let mut k = 0;
        let measurements = (0..machines)
            .map(|m| {
                (0..[2, 5, 3, 8][m % 4])
                    .map(|_| {
                        k += 1;
                        [20, 60, 40, 10][(k - 1) % 4]
                    })
                    .collect()
            })
            .collect();
        Design {
            name: format!("{machines}×(2–8)×(10–60)"),
            measurements,
            sd,
        }
    }

    pub fn generate(&self, r: &mut impl Rng) -> Vec<Vec<Vec<f64>>> {
        self.measurements
            .iter()
            .map(|m| {
                let mm = 100.0 + self.sd[2] * r.sample::<f64, _>(StandardNormal);
                m.iter()
                    .map(|&n| {
                        let em = mm + self.sd[1] * r.sample::<f64, _>(StandardNormal);
                        (0..n)
                            .map(|_| em + self.sd[0] * r.sample::<f64, _>(StandardNormal))
                            .collect()
                    })
                    .collect()
            })
            .collect()
    }

    /// The estimands: T₁² = σ₁², T₂² = σ₂², T₃² = σ₃²; the execution factor
    /// sqrt(1 + σ₂²/σ₁²), the machine factor sqrt(1 + σ₃²/(σ₂² + σ₁²/r₁))
    /// with r₁ the harmonic mean of the measurements per execution.
    pub fn truth(&self) -> [f64; 5] {
        let v = self.sd.map(|s| s * s);
        let counts: Vec<f64> = self
            .measurements
            .iter()
            .flatten()
            .map(|&n| n as f64)
            .collect();
        let r1 = counts.len() as f64 / counts.iter().map(|n| 1.0 / n).sum::<f64>();
        [
            v[0],
            v[1],
            v[2],
            (1.0 + v[1] / v[0]).sqrt(),
            (1.0 + v[2] / (v[1] + v[0] / r1)).sqrt(),
        ]
    }
}

/// The library's intervals (what `analyze --campaign` reports).
pub fn library(data: &[Vec<Vec<f64>>], confidence: f64) -> Intervals {
    let Some(c) = components(data, confidence) else {
        return [None; 5];
    };
    let t = |i: usize| c.levels[i].t_sq_ci.as_ref().map(|x| (x.lo, x.hi));
    let f = |i: usize| c.levels[i].impact_ci.as_ref().map(|x| (x.lo, x.hi));
    [t(0), t(1), t(2), f(1), f(2)]
}

/// A method: the data, the confidence and a seed → its intervals.
pub type Method = dyn Fn(&[Vec<Vec<f64>>], f64, u64) -> Intervals;

/// Coverage and "no effect" exclusions of one method on one design.
#[derive(Clone, Debug, Default)]
pub struct Rates {
    pub runs: usize,
    pub covered: [usize; 5],
    pub given: [usize; 5],
    /// Lower end above 0 (T²) or 1 (impact): the level declared present.
    pub excludes_none: [usize; 5],
}

impl Rates {
    pub fn coverage(&self, i: usize) -> Option<f64> {
        (self.given[i] > 0).then(|| self.covered[i] as f64 / self.given[i] as f64)
    }
    pub fn exclusion(&self, i: usize) -> Option<f64> {
        (self.given[i] > 0).then(|| self.excludes_none[i] as f64 / self.given[i] as f64)
    }
}

/// `runs` datasets of `design` from `seed`, each given to `method`.
pub fn simulate(
    design: &Design,
    runs: usize,
    seed: u64,
    confidence: f64,
    method: &Method,
) -> Rates {
    let mut r = rng(seed);
    let truth = design.truth();
    let mut out = Rates {
        runs,
        ..Rates::default()
    };
    for run in 0..runs {
        let data = design.generate(&mut r);
        let cis = method(&data, confidence, seed ^ (run as u64).wrapping_mul(0x9e37));
        for i in 0..5 {
            let Some((lo, hi)) = cis[i] else { continue };
            out.given[i] += 1;
            out.covered[i] += usize::from(lo <= truth[i] && truth[i] <= hi);
            let none = if i < 3 { 0.0 } else { 1.0 };
            out.excludes_none[i] += usize::from(lo > none);
        }
    }
    out
}

/// Point estimates of the five quantities, computed here independently of
/// the library (pooled variances, harmonic means): for the bootstraps.
pub fn estimates(data: &[Vec<Vec<f64>>]) -> Option<[f64; 5]> {
    let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
    let (mut ss1, mut df1, mut inv1, mut n1) = (0.0, 0.0, 0.0, 0.0);
    let (mut ss2, mut df2, mut inv2) = (0.0, 0.0, 0.0);
    let mut machine_means = Vec::new();
    for m in data {
        let em: Vec<f64> = m.iter().map(|e| mean(e)).collect();
        for (e, &x) in m.iter().zip(&em) {
            ss1 += e.iter().map(|v| (v - x).powi(2)).sum::<f64>();
            df1 += e.len() as f64 - 1.0;
            inv1 += 1.0 / e.len() as f64;
            n1 += 1.0;
        }
        let mm = mean(&em);
        ss2 += em.iter().map(|v| (v - mm).powi(2)).sum::<f64>();
        df2 += em.len() as f64 - 1.0;
        inv2 += 1.0 / em.len() as f64;
        machine_means.push(mm);
    }
    let a = machine_means.len() as f64;
    if df1 <= 0.0 || df2 <= 0.0 || a < 2.0 {
        return None;
    }
    let (s1, s2) = (ss1 / df1, ss2 / df2);
    let grand = mean(&machine_means);
    let s3 = machine_means
        .iter()
        .map(|v| (v - grand).powi(2))
        .sum::<f64>()
        / (a - 1.0);
    let (r1, r2) = (n1 / inv1, a / inv2);
    let t2 = (s2 - s1 / r1).max(0.0);
    let t3 = (s3 - s2 / r2).max(0.0);
    Some([s1, t2, t3, (1.0 + t2 / s1).sqrt(), (1.0 + t3 / s2).sqrt()])
}

fn percentile(mut reps: Vec<[f64; 5]>, est: [f64; 5], confidence: f64) -> Intervals {
    let a = (1.0 - confidence) / 2.0;
    std::array::from_fn(|i| {
        let mut x: Vec<f64> = reps
            .iter_mut()
            .map(|r| r[i])
            .filter(|v| v.is_finite())
            .collect();
        if x.is_empty() {
            return None;
        }
        x.sort_by(f64::total_cmp);
        let at = |q: f64| x[((q * x.len() as f64) as usize).min(x.len() - 1)];
        // As tickbook reported them: ends moved out to the estimate.
        Some((at(a).min(est[i]), at(1.0 - a).max(est[i])))
    })
}

/// The intervals tickbook reported before: percentile bootstrap, machines
/// resampled (from three on), then executions within each.
pub fn nested_bootstrap(resamples: usize) -> impl Fn(&[Vec<Vec<f64>>], f64, u64) -> Intervals {
    move |data, confidence, seed| {
        let Some(est) = estimates(data) else {
            return [None; 5];
        };
        let mut r = rng(seed);
        let reps = (0..resamples)
            .filter_map(|_| {
                let sample: Vec<Vec<Vec<f64>>> = (0..data.len())
                    .map(|m| {
                        let machine = &data[if data.len() >= 3 {
                            index(&mut r, data.len())
                        } else {
                            m
                        }];
                        (0..machine.len())
                            .map(|_| machine[index(&mut r, machine.len())].clone())
                            .collect()
                    })
                    .collect();
                estimates(&sample)
            })
            .collect();
        percentile(reps, est, confidence)
    }
}

/// A parametric bootstrap: campaigns of the same shape drawn from the
/// fitted normal model (the clamped components), percentile intervals.
pub fn parametric_bootstrap(resamples: usize) -> impl Fn(&[Vec<Vec<f64>>], f64, u64) -> Intervals {
    move |data, confidence, seed| {
        let Some(est) = estimates(data) else {
            return [None; 5];
        };
        let fitted = Design {
            name: String::new(),
            measurements: data
                .iter()
                .map(|m| m.iter().map(Vec::len).collect())
                .collect(),
            sd: [est[0].sqrt(), est[1].sqrt(), est[2].sqrt()],
        };
        let mut r = rng(seed);
        let reps = (0..resamples)
            .filter_map(|_| estimates(&fitted.generate(&mut r)))
            .collect();
        percentile(reps, est, confidence)
    }
}

/// Satterthwaite's interval of a difference of mean squares: θ̂ = A − B on
/// ν = θ̂²/(A²/n + B²/m) degrees of freedom, [νθ̂/χ²(a), νθ̂/χ²(1 − a)]
/// (T₂², T₃² only; T₁² and the factors as the library gives them).
pub fn satterthwaite(data: &[Vec<Vec<f64>>], confidence: f64, _seed: u64) -> Intervals {
    use statrs::distribution::{ChiSquared, ContinuousCDF};
    let mut out = library(data, confidence);
    let Some(c) = components(data, confidence) else {
        return [None; 5];
    };
    let a = (1.0 - confidence) / 2.0;
    for (i, slot) in out.iter_mut().enumerate().take(3).skip(1) {
        let (l, below) = (&c.levels[i], &c.levels[i - 1]);
        let (Some(sa), Some(n), Some(sb), Some(m)) = (l.s_sq, l.df, below.s_sq, below.df) else {
            continue;
        };
        let b = sb / below.per_parent;
        let theta = sa - b;
        if theta <= 0.0 {
            *slot = Some((0.0, 0.0));
            continue;
        }
        let nu = theta * theta / (sa * sa / n + b * b / m);
        *slot = ChiSquared::new(nu).ok().map(|chi| {
            (
                nu * theta / chi.inverse_cdf(1.0 - a),
                nu * theta / chi.inverse_cdf(a),
            )
        });
    }
    out
}
