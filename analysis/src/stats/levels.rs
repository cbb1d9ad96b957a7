//! Variance components of measurements nested three deep — measurements
//! within executions within machines — after Kalibera & Jones (2013), one
//! level more than [`super::executions`]:
//!
//! * S₁² the pooled variance of measurements within executions, S₂² of
//!   execution means within machines, S₃² of machine means; T₁² = S₁²,
//!   Tᵢ² = Sᵢ² − Sᵢ₋₁²/rᵢ₋₁ clamped at 0 (the variance level i adds); the
//!   CI of the mean from the machine means only;
//! * each level's impact factor, sqrt(1 + Tᵢ²/Sᵢ₋₁²): how many times wider
//!   values from different units of level i spread than values from one
//!   (1 = the level adds nothing), the random-effects value of
//!   [`super::executions`]' factor;
//! * percentile bootstrap CIs of the components and factors, resampling
//!   machines (from three on), then executions within each, never
//!   measurements (copies would shrink the variance within);
//! * the executions per machine and the machines that reach a precision at
//!   least cost.
//!
//! Unbalanced data (a failed task, a machine with fewer executions) use
//! pooled variances and the harmonic mean of the counts as rᵢ, which is
//! exact when balanced and close otherwise; `balanced` says which.

use super::bootstrap::{index, interval_from, rng, BootstrapCi, BootstrapOptions};
use super::dist::t_two_sided;
use super::executions::{units_needed, whole_count};
use super::moments::Welford;
use serde::Serialize;

/// Data of one item: machines → executions → measurements.
pub type Nested = [Vec<Vec<f64>>];

/// What a unit of each level is, innermost first.
pub const UNITS: [&str; 3] = ["measurement", "execution", "machine"];

/// One level's estimates.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Level {
    /// What a unit of this level is (one of [`UNITS`]).
    pub unit: &'static str,
    /// Units at this level, over all parents.
    pub units: usize,
    /// rᵢ: units per parent, the harmonic mean of the counts (the machines
    /// themselves for the top level).
    pub per_parent: f64,
    /// Sᵢ² (None without two units under one parent).
    pub s_sq: Option<f64>,
    /// Tᵢ²: the variance this level adds, clamped at 0.
    pub t_sq: Option<f64>,
    /// Tᵢ² / ΣT²: this level's share of the variance of one measurement.
    pub share: Option<f64>,
    /// sqrt(1 + Tᵢ²/Sᵢ₋₁²) for executions and machines; None for
    /// measurements.
    pub impact: Option<f64>,
    pub t_sq_ci: Option<BootstrapCi>,
    pub impact_ci: Option<BootstrapCi>,
}

/// The three levels' estimates and the mean.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Components {
    /// Measurements, executions, machines.
    pub levels: Vec<Level>,
    pub balanced: bool,
    /// Mean of the machine means.
    pub mean: f64,
    /// Ȳ ± t(1 − α/2, r₃ − 1)·sqrt(S₃²/r₃).
    pub ci: Option<(f64, f64)>,
    pub confidence: f64,
    /// Why a bootstrap CI is missing, if one is.
    pub ci_note: Option<&'static str>,
}

/// The point estimates: (Sᵢ², rᵢ) per level, the mean, balance.
struct Point {
    s_sq: [Option<f64>; 3],
    r: [f64; 3],
    mean: f64,
    balanced: bool,
}

impl Point {
    fn t_sq(&self) -> [Option<f64>; 3] {
        std::array::from_fn(|i| match i {
            0 => self.s_sq[0],
            _ => match (self.s_sq[i], self.s_sq[i - 1]) {
                (Some(s), Some(below)) => Some((s - below / self.r[i - 1]).max(0.0)),
                _ => None,
            },
        })
    }

    fn impact(&self) -> [Option<f64>; 3] {
        let t = self.t_sq();
        std::array::from_fn(|i| match (i, t[i]) {
            (0, _) | (_, None) => None,
            (_, Some(t)) => self.s_sq[i - 1]
                .filter(|&below| below > 0.0)
                .map(|below| (1.0 + t / below).sqrt()),
        })
    }
}

/// Pooled variance of values around their group's mean and the harmonic
/// mean of the group sizes: Σ SSᵍ / Σ (nᵍ − 1). `None` when no group has
/// two values.
fn pooled(groups: impl Iterator<Item = Welford>) -> (Option<f64>, f64, bool) {
    let (mut ss, mut df, mut count, mut inv) = (0.0, 0u64, 0usize, 0.0);
    let mut sizes = None;
    let mut balanced = true;
    for w in groups {
        let n = w.count();
        ss += w.population_variance().unwrap_or(0.0) * n as f64;
        df += n.saturating_sub(1);
        count += 1;
        inv += 1.0 / n as f64;
        match sizes {
            None => sizes = Some(n),
            Some(s) if s != n => balanced = false,
            _ => {}
        }
    }
    let s_sq = (df > 0).then(|| ss / df as f64);
    (s_sq, count as f64 / inv, balanced)
}

/// Each execution's moments (count, mean, sum of squares), machine by
/// machine: all the estimators read, so a bootstrap replicate copies no
/// measurement.
type Moments = Vec<Vec<Welford>>;

fn moments(data: &Nested) -> Option<Moments> {
    if data.is_empty()
        || data
            .iter()
            .any(|m| m.is_empty() || m.iter().any(|e| e.is_empty()))
    {
        return None;
    }
    Some(
        data.iter()
            .map(|m| m.iter().map(|e| Welford::from_slice(e)).collect())
            .collect(),
    )
}

fn point(machines: &[Vec<Welford>]) -> Option<Point> {
    let (s1, r1, b1) = pooled(machines.iter().flatten().copied());
    // Each machine's execution means, each execution counted once whatever
    // its measurements (Kalibera & Jones's means of means).
    let exec_means: Vec<Vec<f64>> = machines
        .iter()
        .map(|m| m.iter().map(|e| e.mean().unwrap_or(f64::NAN)).collect())
        .collect();
    let (s2, r2, b2) = pooled(exec_means.iter().map(|m| Welford::from_slice(m)));
    let machine_means: Vec<f64> = exec_means
        .iter()
        .map(|m| Welford::from_slice(m).mean().unwrap_or(f64::NAN))
        .collect();
    let top = Welford::from_slice(&machine_means);
    Some(Point {
        s_sq: [s1, s2, top.variance()],
        r: [r1, r2, machine_means.len() as f64],
        mean: top.mean()?,
        balanced: b1 && b2,
    })
}

/// The components of `data` with bootstrap CIs. `None` when there is no
/// machine, or a machine or execution is empty.
pub fn components(data: &Nested, b: &BootstrapOptions) -> Option<Components> {
    let m = moments(data)?;
    let p = point(&m)?;
    let t = p.t_sq();
    let impact = p.impact();
    let total: Option<f64> = t.iter().copied().sum();
    let machines = data.len();
    let ci = match (p.s_sq[2], t_two_sided(b.confidence, machines as f64 - 1.0)) {
        (Some(s3), Some(q)) => {
            let half = q * (s3 / machines as f64).sqrt();
            Some((p.mean - half, p.mean + half))
        }
        _ => None,
    };
    let (t_ci, f_ci, ci_note) = bootstrap(&m, &p, b);
    let levels = (0..3)
        .map(|i| Level {
            unit: UNITS[i],
            units: match i {
                0 => data.iter().flatten().map(Vec::len).sum(),
                1 => data.iter().map(Vec::len).sum(),
                _ => machines,
            },
            per_parent: p.r[i],
            s_sq: p.s_sq[i],
            t_sq: t[i],
            share: match (t[i], total) {
                (Some(x), Some(s)) if s > 0.0 => Some(x / s),
                _ => None,
            },
            impact: impact[i],
            t_sq_ci: t_ci[i].clone(),
            impact_ci: f_ci[i].clone(),
        })
        .collect();
    Some(Components {
        levels,
        balanced: p.balanced,
        mean: p.mean,
        ci,
        confidence: b.confidence,
        ci_note,
    })
}

type LevelCis = [Option<BootstrapCi>; 3];

/// Percentile CIs of each Tᵢ² and impact factor. Machines are resampled only
/// from three on (two give a CI of the machine level that is mostly the
/// two values themselves), so with fewer the machine level has none.
fn bootstrap(
    data: &[Vec<Welford>],
    p: &Point,
    b: &BootstrapOptions,
) -> (LevelCis, LevelCis, Option<&'static str>) {
    let none = || [None, None, None];
    if b.resamples == 0 || !(b.confidence > 0.0 && b.confidence < 1.0) {
        return (none(), none(), Some("no bootstrap resamples"));
    }
    let resample_machines = data.len() >= 3;
    let mut r = rng(b.seed);
    let mut t_reps: [Vec<f64>; 3] = Default::default();
    let mut f_reps: [Vec<f64>; 3] = Default::default();
    let mut sample: Vec<Vec<Welford>> = Vec::with_capacity(data.len());
    for _ in 0..b.resamples {
        sample.clear();
        for m in 0..data.len() {
            let machine = &data[if resample_machines {
                index(&mut r, data.len())
            } else {
                m
            }];
            sample.push(
                (0..machine.len())
                    .map(|_| machine[index(&mut r, machine.len())])
                    .collect(),
            );
        }
        if let Some(q) = point(&sample) {
            for (i, (t, f)) in q.t_sq().iter().zip(q.impact()).enumerate() {
                t_reps[i].push(t.unwrap_or(f64::NAN));
                f_reps[i].push(f.unwrap_or(f64::NAN));
            }
        }
    }
    let t = p.t_sq();
    let f = p.impact();
    let mut t_ci = none();
    let mut f_ci = none();
    for i in 0..3 {
        if i == 2 && !resample_machines {
            continue;
        }
        if let Some(est) = t[i] {
            t_ci[i] = interval_from(est, std::mem::take(&mut t_reps[i]), b);
        }
        if let Some(est) = f[i] {
            f_ci[i] = interval_from(est, std::mem::take(&mut f_reps[i]), b);
        }
    }
    let note = (!resample_machines).then_some("the machine level needs three machines for a CI");
    (t_ci, f_ci, note)
}

/// The campaign that reaches a precision at least cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// Target CI half-width of the mean, relative to the mean.
    pub rel_half_width: f64,
    /// What one machine costs, in executions (c₃/c₂).
    pub machine_cost: f64,
    /// sqrt(c₃·V₂ / (c₂·T₃²)), V₂ = T₂² + T₁²/r₁ the variance one
    /// execution's mean adds at the measurements it makes; None when
    /// machines add no variance (then only the total of executions counts).
    pub executions_per_machine: Option<u64>,
    /// Machines for the target with that many executions each (the
    /// observed rate when the optimum is undefined).
    pub machines: Option<u64>,
}

/// The cheapest campaign for a CI half-width of `rel_half_width`·mean
/// (Kalibera & Jones's optimal repetition counts, one level up):
/// Var(Ȳ) = (T₃² + V₂/r₂)/r₃ with t on r₃ − 1 degrees of freedom.
pub fn plan(c: &Components, rel_half_width: f64, machine_cost: f64) -> Plan {
    let t = |i: usize| c.levels[i].t_sq;
    let v2 = match (t(1), t(0)) {
        (Some(t2), Some(t1)) => Some(t2 + t1 / c.levels[0].per_parent),
        _ => None,
    };
    let per_machine = match (v2, t(2)) {
        (Some(v2), Some(t3)) if t3 > 0.0 && machine_cost > 0.0 => {
            Some(whole_count((machine_cost * v2 / t3).sqrt()))
        }
        _ => None,
    };
    let r2 = per_machine
        .map(|r| r as f64)
        .unwrap_or(c.levels[1].per_parent);
    let machines = match (v2, t(2)) {
        (Some(v2), Some(t3)) => {
            units_needed(t3 + v2 / r2, rel_half_width * c.mean.abs(), c.confidence)
        }
        _ => None,
    };
    Plan {
        rel_half_width,
        machine_cost,
        executions_per_machine: per_machine,
        machines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::testing::normal;
    use rand::SeedableRng;

    fn opts(resamples: usize) -> BootstrapOptions {
        BootstrapOptions {
            resamples,
            confidence: 0.95,
            seed: 7,
        }
    }

    fn nest(a: usize, b: usize, n: usize, y: &[f64]) -> Vec<Vec<Vec<f64>>> {
        (0..a)
            .map(|i| (0..b).map(|j| y[(i * b + j) * n..][..n].to_vec()).collect())
            .collect()
    }

    /// Machines, executions, measurements, the values, and REML's T₃², T₂²,
    /// T₁².
    type Case<'a> = (usize, usize, usize, &'a [f64], f64, f64, f64);

    fn check_balanced_cases(cases: &[Case]) {
        for &(a, b, n, y, t3, t2, t1) in cases {
            let c = components(&nest(a, b, n, y), &opts(0)).expect("components");
            assert!(c.balanced);
            for (level, want) in [(0, t1), (1, t2), (2, t3)] {
                let got = c.levels[level].t_sq.expect("t²");
                // statsmodels' optimiser stops at about 1e-4 relative.
                assert!(
                    (got - want).abs() <= 2e-3 * want,
                    "{a}×{b}×{n} level {level}: {got} vs REML {want}"
                );
            }
        }
    }

    include!("levels_cases.rs");

    /// Worked by hand: machine 1 executions {1,3} and {5,7}; machine 2 {2,2}
    /// and {10,14}. Execution means 2, 6, 2, 12; machine means 4, 7.
    #[test]
    fn worked_example() {
        let data = vec![
            vec![vec![1.0, 3.0], vec![5.0, 7.0]],
            vec![vec![2.0, 2.0], vec![10.0, 14.0]],
        ];
        let c = components(&data, &opts(0)).expect("components");
        // S₁² = (2 + 2 + 0 + 8) / 4 = 3; S₂² = (8 + 50) / 2 = 29; S₃² = 4.5.
        assert_eq!(c.levels[0].s_sq, Some(3.0));
        assert_eq!(c.levels[1].s_sq, Some(29.0));
        assert_eq!(c.levels[2].s_sq, Some(4.5));
        // T₂² = 29 − 3/2 = 27.5; T₃² = 4.5 − 29/2 < 0 → 0.
        assert_eq!(c.levels[1].t_sq, Some(27.5));
        assert_eq!(c.levels[2].t_sq, Some(0.0));
        assert_eq!(c.levels[1].impact, Some((1.0f64 + 27.5 / 3.0).sqrt()));
        assert_eq!(c.levels[2].impact, Some(1.0));
        assert_eq!(c.mean, 5.5);
        // t(0.975, 1) = 12.706204736174698; half = t·sqrt(4.5/2) = t·1.5.
        let (lo, hi) = c.ci.expect("ci");
        assert!(
            (hi - 5.5 - 1.5 * 12.706204736174698).abs() < 1e-9
                && (5.5 - lo - (hi - 5.5)).abs() < 1e-12
        );
        let shares: f64 = c.levels.iter().filter_map(|l| l.share).sum();
        assert!((shares - 1.0).abs() < 1e-12);
    }

    /// `sd` within executions, of executions, of machines; `shape` machines,
    /// executions per machine, measurements per execution.
    fn generate(r: &mut impl rand::Rng, sd: [f64; 3], shape: [usize; 3]) -> Vec<Vec<Vec<f64>>> {
        (0..shape[0])
            .map(|_| {
                let mm = 100.0 + sd[2] * normal(r);
                (0..shape[1])
                    .map(|_| {
                        let em = mm + sd[1] * normal(r);
                        (0..shape[2]).map(|_| em + sd[0] * normal(r)).collect()
                    })
                    .collect()
            })
            .collect()
    }

    /// The unclamped estimators Sᵢ² − Sᵢ₋₁²/rᵢ₋₁ are unbiased: over many
    /// generated datasets their mean is the true component, including 0
    /// for a level that adds nothing (the null).
    #[test]
    fn unbiased_on_generated_data() {
        let mut r = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        for sd in [[0.5, 1.0, 2.0], [1.0, 1.0, 0.0], [1.0, 0.0, 1.0]] {
            let mut sums = [0.0; 3];
            let runs = 400;
            for _ in 0..runs {
                let c = components(&generate(&mut r, sd, [6, 4, 10]), &opts(0)).expect("c");
                let s: Vec<f64> = c.levels.iter().map(|l| l.s_sq.expect("s²")).collect();
                sums[0] += s[0];
                sums[1] += s[1] - s[0] / 10.0;
                sums[2] += s[2] - s[1] / 4.0;
            }
            for i in 0..3 {
                let mean = sums[i] / runs as f64;
                let truth = sd[i].powi(2);
                // Standard errors of these means are a few percent of the
                // variances involved; 0.1 of the largest is far outside.
                assert!(
                    (mean - truth).abs() < 0.1 * sd.iter().fold(0.0f64, |a, s| a.max(s * s)),
                    "{sd:?} level {i}: {mean} vs {truth}"
                );
            }
        }
    }

    #[test]
    fn unbalanced_counts_use_harmonic_means_and_order_does_not_matter() {
        let mut r = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let mut data = generate(&mut r, [1.0, 1.0, 1.0], [4, 3, 6]);
        data[1].pop();
        data[2][0].truncate(3);
        let c = components(&data, &opts(200)).expect("c");
        assert!(!c.balanced);
        let inv = |counts: &[usize]| {
            counts.len() as f64 / counts.iter().map(|&n| 1.0 / n as f64).sum::<f64>()
        };
        assert!((c.levels[1].per_parent - inv(&[3, 2, 3, 3])).abs() < 1e-12);
        assert!((c.levels[0].per_parent - inv(&[6, 6, 6, 6, 6, 3, 6, 6, 6, 6, 6])).abs() < 1e-12);
        data.reverse();
        let d = components(&data, &opts(200)).expect("d");
        for i in 0..3 {
            let (a, b) = (
                c.levels[i].t_sq.unwrap_or(-1.0),
                d.levels[i].t_sq.unwrap_or(-1.0),
            );
            assert!(
                (a - b).abs() <= 1e-12 * a.abs().max(1.0),
                "level {i}: {a} vs {b}"
            );
        }
    }

    /// The CIs hold their estimate; the machine level has none below three
    /// machines, and the note says why.
    #[test]
    fn bootstrap_cis() {
        let mut r = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        let c = components(&generate(&mut r, [0.5, 1.0, 2.0], [5, 4, 20]), &opts(500)).expect("c");
        for l in &c.levels {
            let ci = l.t_sq_ci.as_ref().expect("ci");
            assert!(ci.lo <= ci.estimate && ci.estimate <= ci.hi, "{l:?}");
        }
        assert!(c.levels[1].impact_ci.is_some() && c.levels[2].impact_ci.is_some());
        assert_eq!(c.ci_note, None);
        let two =
            components(&generate(&mut r, [0.5, 1.0, 2.0], [2, 3, 20]), &opts(200)).expect("two");
        assert!(two.levels[2].t_sq_ci.is_none() && two.levels[1].t_sq_ci.is_some());
        assert!(two.ci_note.is_some());
    }

    /// The plan reaches its target: at the executions per machine and
    /// machines it names, the half-width from the components is within the
    /// target, and one machine fewer is not.
    #[test]
    fn plan_reaches_its_target_at_least_cost() {
        let mut r = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(9);
        let c = components(&generate(&mut r, [1.0, 2.0, 4.0], [8, 5, 10]), &opts(0)).expect("c");
        let p = plan(&c, 0.01, 20.0);
        let t = |i: usize| c.levels[i].t_sq.expect("t");
        let v2 = t(1) + t(0) / 10.0;
        let e = p.executions_per_machine.expect("per machine");
        // The optimum of cost r₃(c₃ + r₂c₂) at fixed variance.
        assert_eq!(e, ((20.0 * v2 / t(2)).sqrt().ceil() as u64).max(1));
        let m = p.machines.expect("machines");
        let half = |m: u64| {
            t_two_sided(0.95, m as f64 - 1.0)
                .map(|q| q * ((t(2) + v2 / e as f64) / m as f64).sqrt())
        };
        assert!(half(m).expect("h") <= 0.01 * c.mean);
        assert!(m < 3 || half(m - 1).expect("h") > 0.01 * c.mean);
        // Machines that add nothing: no optimum split, machines at the
        // observed executions per machine.
        let flat =
            components(&generate(&mut r, [1.0, 1.0, 0.0], [4, 3, 5]), &opts(0)).expect("flat");
        if flat.levels[2].t_sq == Some(0.0) {
            assert_eq!(plan(&flat, 0.01, 20.0).executions_per_machine, None);
        }
    }

    #[test]
    fn empty_input_has_no_components() {
        assert!(components(&[], &opts(10)).is_none());
        assert!(components(&[vec![]], &opts(10)).is_none());
        assert!(components(&[vec![vec![]]], &opts(10)).is_none());
        let one = components(&[vec![vec![1.0]]], &opts(10)).expect("one value");
        assert_eq!(one.levels[0].s_sq, None);
        assert_eq!(one.ci, None);
    }

    /// Machines that add a variance far below the executions' ask for
    /// executions per machine beyond any count a page can hold exactly: the
    /// plan gives the largest such count instead (the wasm boundary refused
    /// the whole campaign when it was 9.3·10¹⁵).
    #[test]
    fn a_tiny_machine_variance_plans_at_most_the_largest_exact_count() {
        use crate::stats::executions::{whole_count, MAX_COUNT};
        let level = |unit, t_sq: f64, per_parent| Level {
            unit,
            units: 3,
            per_parent,
            s_sq: Some(t_sq),
            t_sq: Some(t_sq),
            share: None,
            impact: None,
            t_sq_ci: None,
            impact_ci: None,
        };
        let c = Components {
            levels: vec![
                level("measurement", 1.0, 100.0),
                level("execution", 1.0, 3.0),
                level("machine", 1e-40, 3.0),
            ],
            balanced: true,
            mean: 100.0,
            ci: None,
            confidence: 0.95,
            ci_note: None,
        };
        let p = plan(&c, 0.01, 10.0);
        assert_eq!(p.executions_per_machine, Some(MAX_COUNT));
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["executions_per_machine"].as_u64(), Some((1 << 53) - 1));
        assert_eq!(whole_count(f64::NAN), 1);
        assert_eq!(whole_count(0.2), 1);
        assert_eq!(whole_count(2.0), 2);
        assert_eq!(whole_count(2.000001), 3);
        assert_eq!(whole_count(1e300), MAX_COUNT);
    }
}
