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
//! * CIs of the components and factors from the F and chi-square
//!   distributions of the Sᵢ² (docs/methods.md, "Three levels"): the
//!   chi-square interval of T₁², the modified large-sample interval of
//!   Graybill & Wang as Ting et al. extend it to a difference of two mean
//!   squares for T₂² and T₃², exact F intervals for the impact factors, and
//!   the F test of "the level adds nothing" whose p-value agrees with where
//!   the intervals' lower ends reach 0 and 1;
//! * the executions per machine and the machines that reach a precision at
//!   least cost.
//!
//! Unbalanced data (a failed task, a machine with fewer executions) use
//! pooled variances and the harmonic mean of the counts as rᵢ, which is
//! exact when balanced and close otherwise; `balanced` says which. Their
//! S₂² and S₃² take Satterthwaite's degrees of freedom.

use super::dist::t_two_sided;
use super::executions::{units_needed, whole_count};
use super::moments::Welford;
use serde::Serialize;
use statrs::distribution::{ChiSquared, Continuous, ContinuousCDF, FisherSnedecor};

/// Data of one item: machines → executions → measurements.
pub type Nested = [Vec<Vec<f64>>];

/// What a unit of each level is, innermost first.
pub const UNITS: [&str; 3] = ["measurement", "execution", "machine"];

/// An interval of one level's component or impact factor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LevelCi {
    /// The point estimate (inside the interval).
    pub estimate: f64,
    pub lo: f64,
    pub hi: f64,
    pub confidence: f64,
    /// How: "chi-square" (T₁²), "MLS" (T₂², T₃²: modified large-sample),
    /// "F" (impact factors).
    pub method: &'static str,
}

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
    /// Degrees of freedom of Sᵢ²: Σ (units under a parent − 1), or
    /// Satterthwaite's where the units' variances differ (unbalanced).
    pub df: Option<f64>,
    /// Tᵢ²: the variance this level adds, clamped at 0.
    pub t_sq: Option<f64>,
    /// Tᵢ² / ΣT²: this level's share of the variance of one measurement.
    pub share: Option<f64>,
    /// sqrt(1 + Tᵢ²/Sᵢ₋₁²) for executions and machines; None for
    /// measurements.
    pub impact: Option<f64>,
    pub t_sq_ci: Option<LevelCi>,
    pub impact_ci: Option<LevelCi>,
    /// For executions and machines, the F test of "this level adds
    /// nothing" (Tᵢ² = 0): the probability of an Sᵢ²/Sᵢ₋₁² this large
    /// without it. Below (1 − confidence)/2 exactly when the intervals'
    /// lower ends are above 0 (T²) and 1 (impact).
    pub p_value: Option<f64>,
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
    /// Why a level with an estimate has no CI, if one has none.
    pub ci_note: Option<&'static str>,
}

/// The point estimates: (Sᵢ², rᵢ, degrees of freedom) per level, the mean,
/// balance.
struct Point {
    s_sq: [Option<f64>; 3],
    r: [f64; 3],
    df: [f64; 3],
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

/// Pooled variance of values around their group's mean, its degrees of
/// freedom Σ (nᵍ − 1), the harmonic mean of the group sizes, and whether
/// they are all equal. The variance is `None` when no group has two values.
fn pooled(groups: impl Iterator<Item = Welford>) -> (Option<f64>, f64, f64, bool) {
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
    (s_sq, df as f64, count as f64 / inv, balanced)
}

/// Satterthwaite's degrees of freedom of a pooled variance of independent
/// normal values whose variances differ, `vars` grouped as the values are:
/// the within-group sum of squares is Σ λₖ χ²₁ with Σ λ = Σᵍ (1 − 1/nᵍ)·Σ v
/// and Σ λ² = Σᵍ [(1 − 2/nᵍ)·Σ v² + (Σ v)²/nᵍ²], matched in mean and
/// variance by a scaled χ² on (Σ λ)²/Σ λ² degrees of freedom (Σ (nᵍ − 1)
/// when every v is equal). `None` when no variance is positive.
fn satterthwaite_df<'a>(vars: impl Iterator<Item = &'a [f64]>) -> Option<f64> {
    let (mut first, mut second) = (0.0, 0.0);
    for g in vars {
        let n = g.len() as f64;
        let sum: f64 = g.iter().sum();
        let sq: f64 = g.iter().map(|v| v * v).sum();
        first += (1.0 - 1.0 / n) * sum;
        second += (1.0 - 2.0 / n) * sq + sum * sum / (n * n);
    }
    (first > 0.0 && second > 0.0).then(|| first * first / second)
}

/// Each execution's moments (count, mean, sum of squares), machine by
/// machine: all the estimators read.
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
    let (s1, df1, r1, b1) = pooled(machines.iter().flatten().copied());
    // Each machine's execution means, each execution counted once whatever
    // its measurements (Kalibera & Jones's means of means).
    let exec_means: Vec<Vec<f64>> = machines
        .iter()
        .map(|m| m.iter().map(|e| e.mean().unwrap_or(f64::NAN)).collect())
        .collect();
    let (s2, df2, r2, b2) = pooled(exec_means.iter().map(|m| Welford::from_slice(m)));
    let machine_means: Vec<f64> = exec_means
        .iter()
        .map(|m| Welford::from_slice(m).mean().unwrap_or(f64::NAN))
        .collect();
    let top = Welford::from_slice(&machine_means);
    let mut p = Point {
        s_sq: [s1, s2, top.variance()],
        r: [r1, r2, machine_means.len() as f64],
        df: [df1, df2, machine_means.len().saturating_sub(1) as f64],
        mean: top.mean()?,
        balanced: b1 && b2,
    };
    if !p.balanced {
        // An execution mean's variance is T₂² + T₁²/n (n its measurements),
        // a machine mean's T₃² + (its executions' mean of those)/b: unequal
        // counts make them differ, and the pooled S₂², S₃² are then sums of
        // unequally scaled χ² (Satterthwaite 1946), estimated from the
        // components.
        let t = p.t_sq();
        if let (Some(t1), Some(t2)) = (t[0], t[1]) {
            let v: Vec<Vec<f64>> = machines
                .iter()
                .map(|m| m.iter().map(|e| t2 + t1 / e.count() as f64).collect())
                .collect();
            if let Some(df) = satterthwaite_df(v.iter().map(Vec::as_slice)) {
                p.df[1] = df;
            }
            if let Some(t3) = t[2] {
                let u: Vec<f64> = v
                    .iter()
                    .map(|m| t3 + m.iter().sum::<f64>() / (m.len() * m.len()) as f64)
                    .collect();
                if let Some(df) = satterthwaite_df(std::iter::once(u.as_slice())) {
                    p.df[2] = df;
                }
            }
        }
    }
    Some(p)
}

/// The components of `data` with CIs at `confidence`. `None` when there is
/// no machine, or a machine or execution is empty.
pub fn components(data: &Nested, confidence: f64) -> Option<Components> {
    let m = moments(data)?;
    let p = point(&m)?;
    let t = p.t_sq();
    let impact = p.impact();
    let total: Option<f64> = t.iter().copied().sum();
    let machines = data.len();
    let ci = match (p.s_sq[2], t_two_sided(confidence, machines as f64 - 1.0)) {
        (Some(s3), Some(q)) => {
            let half = q * (s3 / machines as f64).sqrt();
            Some((p.mean - half, p.mean + half))
        }
        _ => None,
    };
    let cis = intervals(&p, confidence);
    let ci_note = (0..3)
        .any(|i| t[i].is_some() && cis[i].0.is_none())
        .then_some("no interval where a level's variance is 0 at both it and the level below");
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
            df: p.s_sq[i].map(|_| p.df[i]),
            t_sq: t[i],
            share: match (t[i], total) {
                (Some(x), Some(s)) if s > 0.0 => Some(x / s),
                _ => None,
            },
            impact: impact[i],
            t_sq_ci: cis[i].0.clone(),
            impact_ci: cis[i].1.clone(),
            p_value: cis[i].2,
        })
        .collect();
    Some(Components {
        levels,
        balanced: p.balanced,
        mean: p.mean,
        ci,
        confidence,
        ci_note,
    })
}

/// x with P(X ≤ x) = p for a distribution on (0, ∞). statrs's inverses
/// stop a few digits short for some degrees of freedom (the χ² one after
/// four Newton steps, and NaN for one degree of freedom in the lower tail),
/// so its answer only starts a safeguarded Newton iteration on its accurate
/// CDF: a step that leaves the bracket of the root halves it (geometrically)
/// instead.
fn quantile<D: ContinuousCDF<f64, f64> + Continuous<f64, f64>>(d: &D, p: f64) -> f64 {
    let (mut lo, mut hi) = (1.0, 1.0);
    while d.cdf(lo) > p && lo > 1e-300 {
        lo /= 16.0;
    }
    while d.cdf(hi) < p && hi < 1e300 {
        hi *= 16.0;
    }
    let start = d.inverse_cdf(p);
    let mut x = if start > lo && start < hi {
        start
    } else {
        (lo * hi).sqrt()
    };
    for _ in 0..200 {
        let f = d.cdf(x) - p;
        if f == 0.0 {
            return x;
        }
        if f < 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let newton = x - f / d.pdf(x);
        let next = if newton > lo && newton < hi {
            newton
        } else {
            (lo * hi).sqrt()
        };
        if (next - x).abs() <= 1e-15 * x {
            return next;
        }
        x = next;
    }
    x
}

/// The upper-`a` point F(a; n, m) of Fisher's F, F(a; n, ∞) = χ²(a; n)/n
/// for m = ∞.
fn f_upper(a: f64, n: f64, m: f64) -> Option<f64> {
    if m.is_infinite() {
        let c = ChiSquared::new(n).ok()?;
        return Some(quantile(&c, 1.0 - a) / n);
    }
    let f = FisherSnedecor::new(n, m).ok()?;
    Some(quantile(&f, 1.0 - a))
}

/// (T² interval, impact interval, p-value) per level.
type LevelCis = [(Option<LevelCi>, Option<LevelCi>, Option<f64>); 3];

/// Every level's intervals at `confidence` (docs/methods.md, "Three
/// levels"). With a = (1 − confidence)/2, for level i ≥ 2 with
/// A = Sᵢ² (on n degrees of freedom) and B = Sᵢ₋₁²/rᵢ₋₁ (on m):
///
/// * Tᵢ² = A − B by Ting, Burdick, Graybill, Jeyaratnam & Lu's modified
///   large-sample interval (Burdick & Graybill 1992, §3.3), the ends
///   clamped at 0;
/// * ρ = Tᵢ²/(its parent's variance below) from A/B ~ (1 + rᵢ₋₁·ρ)·F(n, m):
///   [A/(B·F(a; n, m)) − 1, A/(B·F(1 − a; n, m)) − 1]/rᵢ₋₁, exact when
///   balanced; the impact factor is sqrt(1 + ρ);
/// * the p-value 1 − F_cdf(A/B).
///
/// T₁² = S₁² has the χ² interval on its degrees of freedom.
fn intervals(p: &Point, confidence: f64) -> LevelCis {
    let mut out: LevelCis = Default::default();
    let a = (1.0 - confidence) / 2.0;
    if !(a > 0.0 && a < 0.5) {
        return out;
    }
    let t = p.t_sq();
    let impact = p.impact();
    let ci = |estimate: f64, lo: f64, hi: f64, method| LevelCi {
        estimate,
        lo,
        hi,
        confidence,
        method,
    };
    if let (Some(s1), Some(hi_q), Some(lo_q)) = (
        p.s_sq[0],
        f_upper(a, p.df[0], f64::INFINITY),
        f_upper(1.0 - a, p.df[0], f64::INFINITY),
    ) {
        out[0].0 = Some(ci(s1, s1 / hi_q, s1 / lo_q, "chi-square"));
    }
    for i in 1..3 {
        let (Some(sa), Some(sb), Some(est)) = (p.s_sq[i], p.s_sq[i - 1], t[i]) else {
            continue;
        };
        let (n, m, r) = (p.df[i], p.df[i - 1], p.r[i - 1]);
        let b = sb / r;
        let q = |x: f64, n: f64, m: f64| f_upper(x, n, m);
        let (Some(f1), Some(f1l), Some(f2), Some(f2l), Some(f12), Some(f12l)) = (
            q(a, n, f64::INFINITY),
            q(1.0 - a, n, f64::INFINITY),
            q(a, m, f64::INFINITY),
            q(1.0 - a, m, f64::INFINITY),
            q(a, n, m),
            q(1.0 - a, n, m),
        ) else {
            continue;
        };
        if b > 0.0 {
            let ratio = sa / b;
            out[i].2 = FisherSnedecor::new(n, m).ok().map(|f| f.sf(ratio));
            if let Some(est_f) = impact[i] {
                let rho = |fq: f64| ((ratio / fq - 1.0) / r).max(0.0);
                out[i].1 = Some(ci(
                    est_f,
                    (1.0 + rho(f12)).sqrt(),
                    (1.0 + rho(f12l)).sqrt(),
                    "F",
                ));
            }
        } else if sa == 0.0 {
            // Both variances 0: nothing to scale an interval by.
            continue;
        }
        let (g1, h1) = (1.0 - 1.0 / f1, 1.0 / f1l - 1.0);
        let (g2, h2) = (1.0 - 1.0 / f2, 1.0 / f2l - 1.0);
        let g12 = ((f12 - 1.0).powi(2) - g1 * g1 * f12 * f12 - h2 * h2) / f12;
        let h12 = ((1.0 - f12l).powi(2) - h1 * h1 * f12l * f12l - g2 * g2) / f12l;
        let vl = g1 * g1 * sa * sa + h2 * h2 * b * b + g12 * sa * b;
        let vu = h1 * h1 * sa * sa + g2 * g2 * b * b + h12 * sa * b;
        let diff = sa - b;
        out[i].0 = Some(ci(
            est,
            (diff - vl.max(0.0).sqrt()).max(0.0),
            (diff + vu.max(0.0).sqrt()).max(0.0),
            "MLS",
        ));
    }
    out
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
    /// That optimum over the machine level's interval (its impact factor's,
    /// T₃²/S₂² from the F distribution): fewest and most executions per
    /// machine; the most is None (any number) when the interval reaches
    /// "no machine effect".
    pub executions_per_machine_range: Option<(u64, Option<u64>)>,
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
    // ρ = T₃²/S₂² at the ends of the machine factor's interval, f = sqrt(1 + ρ):
    // the optimum scales as 1/sqrt(ρ), the point optimum at ρ's estimate.
    let range = match (v2, c.levels[2].impact_ci.as_ref(), c.levels[1].s_sq) {
        (Some(v2), Some(ci), Some(s2)) if machine_cost > 0.0 && s2 > 0.0 => {
            let at = |f: f64| {
                let rho = f * f - 1.0;
                (rho > 0.0).then(|| whole_count((machine_cost * v2 / (rho * s2)).sqrt()))
            };
            at(ci.hi).map(|fewest| (fewest, at(ci.lo)))
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
        executions_per_machine_range: range,
        machines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::testing::normal;
    use rand::SeedableRng;

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
            let c = components(&nest(a, b, n, y), 0.95).expect("components");
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

    /// Data and the intervals scipy gives for it (levels_interval_cases.py):
    /// degrees of freedom of S₁², S₂², S₃²; T₁², T₂², T₃² intervals; the
    /// execution and machine factors' intervals and p-values.
    struct IntervalCase {
        data: Vec<Vec<Vec<f64>>>,
        df: [f64; 3],
        t_sq: [(f64, f64); 3],
        impact: [(f64, f64); 2],
        p: [f64; 2],
    }

    fn check_interval_cases(cases: &[IntervalCase]) {
        let close = |what: &str, a: f64, b: f64| {
            assert!(
                (a - b).abs() <= 1e-9 * b.abs().max(1e-300),
                "{what}: {a} vs scipy {b}"
            )
        };
        for (k, case) in cases.iter().enumerate() {
            let c = components(&case.data, 0.95).expect("components");
            for i in 0..3 {
                let l = &c.levels[i];
                close(&format!("case {k} df {i}"), l.df.expect("df"), case.df[i]);
                let t = l.t_sq_ci.as_ref().expect("t² ci");
                close(&format!("case {k} T² lo {i}"), t.lo, case.t_sq[i].0);
                close(&format!("case {k} T² hi {i}"), t.hi, case.t_sq[i].1);
                if i > 0 {
                    let f = l.impact_ci.as_ref().expect("impact ci");
                    close(&format!("case {k} F lo {i}"), f.lo, case.impact[i - 1].0);
                    close(&format!("case {k} F hi {i}"), f.hi, case.impact[i - 1].1);
                    close(
                        &format!("case {k} p {i}"),
                        l.p_value.expect("p"),
                        case.p[i - 1],
                    );
                }
            }
        }
    }

    include!("levels_interval_cases.rs");

    /// Worked by hand: machine 1 executions {1,3} and {5,7}; machine 2 {2,2}
    /// and {10,14}. Execution means 2, 6, 2, 12; machine means 4, 7.
    #[test]
    fn worked_example() {
        let data = vec![
            vec![vec![1.0, 3.0], vec![5.0, 7.0]],
            vec![vec![2.0, 2.0], vec![10.0, 14.0]],
        ];
        let c = components(&data, 0.95).expect("components");
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
                let c = components(&generate(&mut r, sd, [6, 4, 10]), 0.95).expect("c");
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
        let c = components(&data, 0.95).expect("c");
        assert!(!c.balanced);
        let inv = |counts: &[usize]| {
            counts.len() as f64 / counts.iter().map(|&n| 1.0 / n as f64).sum::<f64>()
        };
        assert!((c.levels[1].per_parent - inv(&[3, 2, 3, 3])).abs() < 1e-12);
        assert!((c.levels[0].per_parent - inv(&[6, 6, 6, 6, 6, 3, 6, 6, 6, 6, 6])).abs() < 1e-12);
        data.reverse();
        let d = components(&data, 0.95).expect("d");
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

    /// The CIs hold their estimate, from two machines on; a lower end
    /// reaches 0 (impact 1) exactly when the level's F test does not reject
    /// at (1 − confidence)/2, so the p-value and the intervals agree.
    #[test]
    fn intervals_hold_the_estimate_and_agree_with_the_f_test() {
        let mut r = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        let c = components(&generate(&mut r, [0.5, 1.0, 2.0], [5, 4, 20]), 0.95).expect("c");
        for l in &c.levels {
            let ci = l.t_sq_ci.as_ref().expect("ci");
            assert!(ci.lo <= ci.estimate && ci.estimate <= ci.hi, "{l:?}");
            assert_eq!(Some(ci.estimate), l.t_sq);
        }
        assert!(c.levels[1].impact_ci.is_some() && c.levels[2].impact_ci.is_some());
        assert_eq!(c.ci_note, None);
        let two = components(&generate(&mut r, [0.5, 1.0, 2.0], [2, 3, 20]), 0.95).expect("two");
        assert!(two.levels[2].t_sq_ci.is_some() && two.levels[2].p_value.is_some());
        let mut agree = 0;
        for seed in 0..200 {
            let mut r = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
            let c = components(&generate(&mut r, [1.0, 0.1, 0.05], [4, 3, 5]), 0.95).expect("c");
            for l in &c.levels[1..] {
                let (t, f, p) = (
                    l.t_sq_ci.as_ref().expect("t"),
                    l.impact_ci.as_ref().expect("f"),
                    l.p_value.expect("p"),
                );
                assert!(f.lo <= f.estimate && f.estimate <= f.hi && f.lo >= 1.0);
                assert_eq!(t.lo > 0.0, p < 0.025, "{l:?}");
                assert_eq!(f.lo > 1.0, p < 0.025, "{l:?}");
                agree += usize::from(p < 0.025);
            }
        }
        // Both outcomes happened (the check above is not vacuous).
        assert!(agree > 0 && agree < 400, "{agree}");
    }

    /// The exact intervals by hand on the worked example's numbers: the
    /// measurements' χ² interval, the executions' impact factor from the F
    /// quantiles (scipy.stats: chi2.ppf(0.975, 4) = 11.143286781877796,
    /// chi2.ppf(0.025, 4) = 0.4844185570879299, f.ppf(0.975, 2, 4) =
    /// 10.649110640673513, f.ppf(0.025, 2, 4) = 0.025478734167333233).
    #[test]
    fn worked_example_intervals() {
        let data = vec![
            vec![vec![1.0, 3.0], vec![5.0, 7.0]],
            vec![vec![2.0, 2.0], vec![10.0, 14.0]],
        ];
        let c = components(&data, 0.95).expect("components");
        let close = |a: f64, b: f64| assert!((a - b).abs() <= 1e-9 * b.abs(), "{a} vs {b}");
        let m = c.levels[0].t_sq_ci.as_ref().expect("measurements");
        close(m.lo, 12.0 / 11.143286781877796);
        close(m.hi, 12.0 / 0.4844185570879299);
        // S₂²/(S₁²/r₁) = 29/1.5; ρ = (that/F − 1)/2.
        let e = c.levels[1].impact_ci.as_ref().expect("executions");
        let ratio: f64 = 29.0 / 1.5;
        close(
            e.lo,
            (1.0 + (ratio / 10.649110640673513 - 1.0) / 2.0).sqrt(),
        );
        close(
            e.hi,
            (1.0 + (ratio / 0.025478734167333233 - 1.0) / 2.0).sqrt(),
        );
    }

    /// The plan reaches its target: at the executions per machine and
    /// machines it names, the half-width from the components is within the
    /// target, and one machine fewer is not.
    #[test]
    fn plan_reaches_its_target_at_least_cost() {
        let mut r = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(9);
        let c = components(&generate(&mut r, [1.0, 2.0, 4.0], [8, 5, 10]), 0.95).expect("c");
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
        // The range holds the optimum, its ends at the machine factor's.
        let (fewest, most) = p.executions_per_machine_range.expect("range");
        let f = c.levels[2].impact_ci.as_ref().expect("factor ci");
        let s2 = c.levels[1].s_sq.expect("s2");
        let at = |f: f64| ((20.0 * v2 / ((f * f - 1.0) * s2)).sqrt().ceil() as u64).max(1);
        assert_eq!(fewest, at(f.hi));
        assert!(fewest <= e && !matches!(most, Some(m) if m < e));
        assert_eq!(most, (f.lo > 1.0).then(|| at(f.lo)));
        // Machines that add nothing: no optimum split, machines at the
        // observed executions per machine.
        let flat = components(&generate(&mut r, [1.0, 1.0, 0.0], [4, 3, 5]), 0.95).expect("flat");
        if flat.levels[2].t_sq == Some(0.0) {
            assert_eq!(plan(&flat, 0.01, 20.0).executions_per_machine, None);
        }
    }

    #[test]
    fn empty_input_has_no_components() {
        assert!(components(&[], 0.95).is_none());
        assert!(components(&[vec![]], 0.95).is_none());
        assert!(components(&[vec![vec![]]], 0.95).is_none());
        let one = components(&[vec![vec![1.0]]], 0.95).expect("one value");
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
            df: Some(2.0),
            t_sq: Some(t_sq),
            share: None,
            impact: None,
            t_sq_ci: None,
            impact_ci: None,
            p_value: None,
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
