//! Change points of one benchmark over a history of commits: where its
//! level steps, where it drifts, and which commits were only disturbed.
//!
//! Each commit gives an estimate on the log scale (so a step is a ratio)
//! with its own standard error from its executions or samples (`se`). An
//! unchanged program still moves between commits by more than that: each
//! run is a new execution, and executions differ (execution variance). So
//! every commit's value is taken as its level plus noise of variance
//! `se² + τ²`, where τ, the between-commit spread, is estimated from the
//! commits themselves (first differences, robustly, then again within the
//! fitted segments). A rule calibrated on `se` alone would raise false
//! alarms; one that ignored `se` would weigh a noisy commit like a quiet one.
//!
//! The fit is a penalised segmentation (optimal partitioning with PELT's
//! pruning, Killick et al. 2012) of the weighted squared error, where each
//! segment is either flat or, at a further penalty and with at least
//! [`DRIFT_MIN`] commits, a straight line (a drift): a gradual creep is one
//! drift, not many small steps. Short excursions that come back
//! (at most [`TRANSIENT_MAX`] commits, above or below both neighbours) are
//! disturbed commits: left out and refitted, never changes. No crate does
//! segmentation with per-point variances and a mixed flat/linear segment
//! model (the `changepoint` crates fit one model, unweighted), so the
//! dynamic programme is written here; it is a few dozen lines over prefix
//! sums. The penalty was calibrated by simulation (`docs/methods.md`,
//! "History"): under the null about one series in a hundred of 1,000
//! commits shows a false change.

use rayon::prelude::*;
use statrs::distribution::{ContinuousCDF, Normal};

/// A commit's estimate on the log scale and its standard error there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub y: f64,
    pub se: f64,
}

/// Fewest commits a drift spans.
pub const DRIFT_MIN: usize = 5;
/// Most commits a disturbance spans (an excursion that comes back).
pub const TRANSIENT_MAX: usize = 3;
/// Penalty per segment, times ln(commits with data).
const PENALTY_PER_LN: f64 = 3.0;
/// Further penalty of a drift segment, times ln(commits with data).
const DRIFT_PENALTY_PER_LN: f64 = 1.5;
/// The least penalty of a drift: χ²₁'s 0.1 % point.
const PENALTY_FLOOR: f64 = 10.83;
/// The largest lag-1 autocorrelation of the between-commit noise used:
/// the variance is inflated by at most (1 + φ) / (1 − φ) = 9.
pub const PHI_MAX: f64 = 0.8;
/// The smallest standard deviation a commit's value is given (log scale):
/// identical counts would otherwise weigh infinitely.
const NOISE_FLOOR: f64 = 1e-6;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Flat,
    Drift,
}

/// A fitted segment: commits `start..=end` (positions in the history),
/// its line on the log scale from `from` (at `start`) to `to` (at `end`),
/// with the standard errors of those two fitted values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
    pub from: f64,
    pub to: f64,
    pub from_se: f64,
    pub to_se: f64,
    /// Log change per commit (0 for a flat segment) and its standard error.
    pub slope: f64,
    pub slope_se: f64,
}

/// A change between two segments, or a drift.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    /// Position of the first commit after the change (a drift's first).
    pub index: usize,
    pub kind: Kind,
    /// The step's commit, or a drift's last.
    pub end: usize,
    /// The level before and after (log scale) and their standard errors.
    pub before: f64,
    pub before_se: f64,
    pub after: f64,
    pub after_se: f64,
    /// Two-sided p of the step (levels either side) or of the drift's
    /// slope, given where the fit put it.
    pub p: f64,
}

/// The fitted history of one series.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    pub segments: Vec<Segment>,
    pub changes: Vec<Change>,
    /// Positions of the commits left out as disturbances.
    pub disturbed: Vec<usize>,
    /// Median within-commit standard error (log scale).
    pub within: f64,
    /// Between-commit standard deviation τ (log scale).
    pub between: f64,
    /// The between-commit noise's lag-1 autocorrelation φ (0 to
    /// [`PHI_MAX`]): how slowly the machine's level wanders.
    pub wander: f64,
}

/// Fit `points` (one per commit, `None` for a commit without the series).
/// None with fewer than three commits with data.
pub fn fit(points: &[Option<Point>]) -> Option<Fit> {
    fit_excluding(points, &vec![false; points.len()])
}

/// [`fit`] with the commits `excluded` (already known to be disturbed)
/// left out from the start.
pub fn fit_excluding(points: &[Option<Point>], excluded: &[bool]) -> Option<Fit> {
    let with_data = points.iter().flatten().count();
    if with_data < 3 {
        return None;
    }
    // Centred: the prefix sums of squares stay small.
    let mut ys: Vec<f64> = points.iter().flatten().map(|p| p.y).collect();
    ys.sort_by(f64::total_cmp);
    let centre = ys[ys.len() / 2];
    let pts: Vec<Option<Point>> = points
        .iter()
        .map(|p| {
            p.filter(|p| p.y.is_finite()).map(|p| Point {
                y: p.y - centre,
                se: if p.se.is_finite() { p.se.max(0.0) } else { 0.0 },
            })
        })
        .collect();
    let ln_n = (with_data as f64).ln().max(1.0);
    let penalty = PENALTY_PER_LN * ln_n;
    // Never below χ²₁'s 0.1 % point: a short history would take a chance
    // trend of its noise for a drift.
    let drift_penalty = (DRIFT_PENALTY_PER_LN * ln_n).max(PENALTY_FLOOR);
    let mut disturbed: Vec<bool> = (0..pts.len())
        .map(|i| excluded.get(i).copied().unwrap_or(false))
        .collect();
    // The first fit takes the commits as independent (φ = 0); φ comes from
    // its segments' residuals, then the fit is repeated with it.
    let mut phi = 0.0;
    let mut tau = between_from_differences(&pts, &disturbed, None, phi);
    let mut segments = Vec::new();
    // Fit, drop the excursions, estimate τ and φ within the segments, fit
    // again: a few rounds settle (each round only adds disturbed commits).
    for _ in 0..6 {
        let w = weights(&pts, &disturbed, tau, phi);
        segments = segment(&pts, &w, penalty, drift_penalty);
        let found = excursions(&segments, &pts, &disturbed);
        let new_phi = wander_from_residuals(&pts, &disturbed, &segments);
        let new_tau = between_from_differences(&pts, &disturbed, Some(&segments), new_phi)
            .max(between_from_residuals(&pts, &disturbed, &segments));
        let settled = found.is_empty()
            && (new_tau - tau).abs() <= 0.05 * tau.max(NOISE_FLOOR)
            && (new_phi - phi).abs() <= 0.02;
        for i in found {
            disturbed[i] = true;
        }
        tau = new_tau;
        phi = new_phi;
        if settled {
            break;
        }
    }
    let w = weights(&pts, &disturbed, tau, phi);
    let segments: Vec<Segment> = segments
        .iter()
        .map(|s| {
            let mut s = describe(&pts, &w, s.start, s.end, s.kind);
            s.from += centre;
            s.to += centre;
            s
        })
        .collect();
    let changes = changes(&segments);
    let mut se: Vec<f64> = pts.iter().flatten().map(|p| p.se).collect();
    se.sort_by(f64::total_cmp);
    Some(Fit {
        changes,
        segments,
        disturbed: (0..pts.len()).filter(|&i| disturbed[i]).collect(),
        within: se[se.len() / 2],
        between: tau,
        wander: phi,
    })
}

impl Fit {
    /// The fitted value (log scale) at commit `i`.
    pub fn value_at(&self, i: usize) -> Option<f64> {
        let s = self.segments.iter().find(|s| s.start <= i && i <= s.end)?;
        Some(s.from + s.slope * (i - s.start) as f64)
    }
}

/// Series measured in the same runs, fitted together.
#[derive(Debug, Clone, PartialEq)]
pub struct Together {
    /// Each series' fit, as [`fit`] gives it.
    pub fits: Vec<Option<Fit>>,
    /// Per commit, the shift the joint series shared (log scale; 0 where
    /// none was found); empty when none was taken out.
    pub shared: Vec<f64>,
}

/// Fit several series of one history, each measured at each commit in the
/// same run. A machine's state moves with the run — another job, the
/// CPU's frequency, where the pages landed — and moves every series of
/// that run alike, so a commit-to-commit wobble shared by the series is
/// not the code's. With three or more series `joint`, each series' share
/// of the machine at a commit is the centre (median of three or more, else
/// the mean) of the *other* joint series' residuals about their fits —
/// leaving the series itself out, so that its own noise and its own
/// changes are never taken away from it. The machine's history (the
/// centre of all joint residuals per commit) is fitted like a series: a
/// lasting shift of the machine is not taken out (it stays in every
/// series, to be found there and named), and a short excursion marks
/// that commit disturbed for every series. The series are then fitted
/// again on what is left (three rounds). It is kept only when it makes
/// the joint series quieter (their median τ falls by a sixth or more):
/// where each series' noise is its own there is nothing shared to take.
/// A series whose corrected fit has a change its own data do not show
/// keeps the fit of its own data (`own_data_confirms`).
pub fn fit_together(series: &[Vec<Option<Point>>], joint: &[bool]) -> Together {
    let alone: Vec<Option<Fit>> = series.par_iter().map(|p| fit(p)).collect();
    let members: Vec<usize> = (0..series.len())
        .filter(|&s| joint.get(s).copied().unwrap_or(false) && alone[s].is_some())
        .collect();
    let n = series.first().map_or(0, Vec::len);
    if members.len() < 3 || series.iter().any(|p| p.len() != n) {
        return Together {
            fits: alone,
            shared: Vec::new(),
        };
    }
    let residuals_of = |fits: &[Option<Fit>]| -> Vec<Vec<Option<f64>>> {
        members
            .par_iter()
            .map(|&s| {
                (0..n)
                    .map(|i| Some(series[s][i]?.y - fits[s].as_ref()?.value_at(i)?))
                    .collect()
            })
            .collect()
    };
    // Worth the refits only when the others' centre explains a good part
    // of each series' residuals (a sixth of their spread, the bar below).
    let first = residuals_of(&alone);
    if !shares_enough(&first, &leave_one_out(&first, n)) {
        return Together {
            fits: alone,
            shared: Vec::new(),
        };
    }
    let mut fits = alone.clone();
    let mut shared = vec![0.0; n];
    for round in 0..3 {
        let residuals = if round == 0 {
            first.clone()
        } else {
            residuals_of(&fits)
        };
        let all: Vec<usize> = (0..members.len()).collect();
        let Some((machine, excluded)) = machine_history(&residuals, &all, n) else {
            return Together {
                fits: alone,
                shared: Vec::new(),
            };
        };
        let loo = leave_one_out(&residuals, n);
        shared = (0..n)
            .map(
                |i| match (centre_of(&residuals, &all, i), machine.value_at(i)) {
                    (Some(c), Some(v)) if !excluded[i] => c - v,
                    _ => 0.0,
                },
            )
            .collect();
        fits = (0..series.len())
            .into_par_iter()
            .map(|s| {
                let Some(k) = members.iter().position(|&m| m == s) else {
                    return alone[s].clone();
                };
                let adjusted: Vec<Option<Point>> = (0..n)
                    .map(|i| {
                        let x = series[s][i]?;
                        let d = match (loo[k][i], machine.value_at(i)) {
                            (Some(c), Some(v)) if !excluded[i] => c - v,
                            _ => 0.0,
                        };
                        Some(Point {
                            y: x.y - d,
                            se: x.se,
                        })
                    })
                    .collect();
                fit_excluding(&adjusted, &excluded)
            })
            .collect();
    }
    let ratio: Vec<f64> = members
        .iter()
        .filter_map(|&s| {
            Some(fits[s].as_ref()?.between / alone[s].as_ref()?.between.max(NOISE_FLOOR))
        })
        .collect();
    if ratio.len() < 3 || median(&mut ratio.clone()) > 5.0 / 6.0 {
        return Together {
            fits: alone,
            shared: Vec::new(),
        };
    }
    // What the others' centre takes out carries their own misfits (a step
    // they missed, a machine excursion kept as lasting): a change that
    // only the corrected series shows is theirs, not this one's. Each
    // change must be seen in the series' own data, else the series keeps
    // the fit of its own data.
    let fits = fits
        .into_iter()
        .enumerate()
        .map(|(s, f)| match f {
            Some(f) if members.contains(&s) && !own_data_confirms(&f, &series[s]) => {
                alone[s].clone()
            }
            f => f,
        })
        .collect();
    Together { fits, shared }
}

/// Whether every change of `fit` shows in the series' own `points` (its
/// disturbed commits left out): the level after less the level before, as
/// plain means of the segments either side (of the five commits nearest
/// the change where that segment is itself a drift), and a drift's
/// least-squares slope over its commits — each of the same sign as the
/// fitted one and at least half its size.
fn own_data_confirms(fit: &Fit, points: &[Option<Point>]) -> bool {
    let kept = |i: usize| -> Option<f64> {
        let p = points.get(i).copied().flatten()?;
        (!fit.disturbed.contains(&i) && p.y.is_finite()).then_some(p.y)
    };
    let mean = |ys: &[f64]| (!ys.is_empty()).then(|| ys.iter().sum::<f64>() / ys.len() as f64);
    // The own level of segment `s` next to a change: before it (`last`) or after it.
    let level = |s: &Segment, last: bool| -> Option<f64> {
        let mut ys: Vec<f64> = (s.start..=s.end).filter_map(kept).collect();
        if s.kind == Kind::Drift && ys.len() > 5 {
            ys = if last {
                ys.split_off(ys.len() - 5)
            } else {
                ys[..5].to_vec()
            };
        }
        mean(&ys)
    };
    let slope_over = |s: &Segment| -> Option<f64> {
        let xy: Vec<(f64, f64)> = (s.start..=s.end)
            .filter_map(|i| Some((i as f64, kept(i)?)))
            .collect();
        let n = xy.len() as f64;
        let (mx, my) = xy
            .iter()
            .fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
        let sxx: f64 = xy.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
        let sxy: f64 = xy.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
        (xy.len() >= 3 && sxx > 0.0).then(|| sxy / sxx)
    };
    let agrees = |own: Option<f64>, fitted: f64| {
        own.is_some_and(|o| o * fitted > 0.0 && o.abs() >= 0.5 * fitted.abs())
    };
    let at = |i: usize| fit.segments.iter().find(|s| s.start <= i && i <= s.end);
    fit.changes.iter().all(|c| {
        let before = c.index.checked_sub(1).and_then(at);
        let after = match c.kind {
            Kind::Drift => at(c.end + 1),
            Kind::Flat => at(c.index),
        };
        let slope_ok = match c.kind {
            Kind::Drift => at(c.index).is_some_and(|s| agrees(slope_over(s), s.slope)),
            Kind::Flat => true,
        };
        let level_ok = match (before, after) {
            (Some(a), Some(b)) => agrees(
                level(b, false).zip(level(a, true)).map(|(b, a)| b - a),
                c.after - c.before,
            ),
            // A drift that opens or closes the history: its slope says it.
            _ => true,
        };
        slope_ok && level_ok
    })
}

/// Each series' residual at each commit less the others' centre there,
/// against the residual itself: whether, for most series, that takes a
/// sixth or more off their spread.
fn shares_enough(residuals: &[Vec<Option<f64>>], loo: &[Vec<Option<f64>>]) -> bool {
    let mut ratios: Vec<f64> = residuals
        .iter()
        .zip(loo)
        .filter_map(|(r, c)| {
            let (mut before, mut after) = (0.0, 0.0);
            for (x, m) in r.iter().zip(c) {
                if let (Some(x), Some(m)) = (x, m) {
                    before += x * x;
                    after += (x - m) * (x - m);
                }
            }
            (before > 0.0).then(|| (after / before).sqrt())
        })
        .collect();
    ratios.len() >= 3 && median(&mut ratios) <= 5.0 / 6.0
}

/// For every series and commit, the centre of the *other* series'
/// residuals there ([`centre_of`] without it), from one sort per commit.
fn leave_one_out(residuals: &[Vec<Option<f64>>], n: usize) -> Vec<Vec<Option<f64>>> {
    let mut out = vec![vec![None; n]; residuals.len()];
    for i in 0..n {
        let mut here: Vec<(f64, usize)> = residuals
            .iter()
            .enumerate()
            .filter_map(|(k, r)| Some((r[i]?, k)))
            .collect();
        here.sort_by(|a, b| a.0.total_cmp(&b.0));
        let m = here.len().saturating_sub(1);
        for (p, &(_, k)) in here.iter().enumerate() {
            // The j-th of the others is at j, or j + 1 past the series itself.
            let at = |j: usize| here[if j < p { j } else { j + 1 }].0;
            out[k][i] = match m {
                0 | 1 => None,
                2 => Some((at(0) + at(1)) / 2.0),
                _ if m % 2 == 1 => Some(at(m / 2)),
                _ => Some((at(m / 2 - 1) + at(m / 2)) / 2.0),
            };
        }
    }
    out
}

/// The centre of the residuals of series `of` at commit `i`: the median
/// of three or more, the mean of two; none with fewer.
fn centre_of(residuals: &[Vec<Option<f64>>], of: &[usize], i: usize) -> Option<f64> {
    let mut r: Vec<f64> = of.iter().filter_map(|&k| residuals[k][i]).collect();
    match r.len() {
        0 | 1 => None,
        2 => Some((r[0] + r[1]) / 2.0),
        _ => Some(median(&mut r)),
    }
}

/// The machine's history: the centre of every joint series' residual per
/// commit, fitted like a series, and the commits that fit finds disturbed.
fn machine_history(
    residuals: &[Vec<Option<f64>>],
    all: &[usize],
    n: usize,
) -> Option<(Fit, Vec<bool>)> {
    let points: Vec<Option<Point>> = (0..n)
        .map(|i| {
            let c = centre_of(residuals, all, i)?;
            let mut dev: Vec<f64> = all
                .iter()
                .filter_map(|&k| residuals[k][i])
                .map(|x| (x - c).abs())
                .collect();
            let k = dev.len() as f64;
            // The centre's standard error from the residuals' spread.
            Some(Point {
                y: c,
                se: 1.2533 * 1.4826 * median(&mut dev) / k.sqrt(),
            })
        })
        .collect();
    let machine = fit(&points)?;
    let mut excluded = vec![false; n];
    for &i in &machine.disturbed {
        excluded[i] = true;
    }
    Some((machine, excluded))
}

/// Each commit's weight 1 / (se² + τ²·(1 + φ)/(1 − φ)); 0 for a gap or a
/// disturbed commit. Where the machine's level wanders (neighbouring
/// commits' noise correlated by φ), the mean of m commits varies as if each
/// had the long-run variance τ²·(1 + φ)/(1 − φ), not τ²: that variance
/// keeps the penalty's χ² calibration and the levels' intervals true.
fn weights(pts: &[Option<Point>], disturbed: &[bool], tau: f64, phi: f64) -> Vec<f64> {
    let long_run = tau * tau * (1.0 + phi) / (1.0 - phi);
    pts.iter()
        .zip(disturbed)
        .map(|(p, &d)| match p {
            Some(p) if !d => 1.0 / (p.se * p.se + long_run).max(NOISE_FLOOR * NOISE_FLOOR),
            _ => 0.0,
        })
        .collect()
}

/// τ from the differences of neighbouring commits with data (within one
/// segment when `segments` are given, a drift's slope taken off): their
/// spread, by the median absolute deviation so that steps and outliers
/// barely move it, is √(2τ²(1 − φ) + se² + se'²) for between-commit noise
/// of lag-1 autocorrelation φ.
fn between_from_differences(
    pts: &[Option<Point>],
    disturbed: &[bool],
    segments: Option<&[Segment]>,
    phi: f64,
) -> f64 {
    let mut diffs = Vec::new();
    let mut own = Vec::new();
    let mut prev: Option<(usize, Point)> = None;
    for (i, p) in pts.iter().enumerate() {
        let Some(p) = p.filter(|_| !disturbed[i]) else {
            continue;
        };
        if let Some((j, q)) = prev {
            let slope = match segments {
                None => Some(0.0),
                Some(segs) => segs
                    .iter()
                    .find(|s| s.start <= j && i <= s.end)
                    .map(|s| s.slope),
            };
            if let Some(b) = slope {
                diffs.push(p.y - q.y - b * (i - j) as f64);
                own.push(p.se * p.se + q.se * q.se);
            }
        }
        prev = Some((i, p));
    }
    if diffs.len() < 2 {
        return NOISE_FLOOR;
    }
    let med = median(&mut diffs.clone());
    let mut dev: Vec<f64> = diffs.iter().map(|d| (d - med).abs()).collect();
    let spread = 1.4826 * median(&mut dev);
    let own = median(&mut own);
    ((spread * spread - own) / (2.0 * (1.0 - phi)))
        .max(0.0)
        .sqrt()
        .max(NOISE_FLOOR)
}

/// φ, the lag-1 autocorrelation of the between-commit noise, from the
/// commits' residuals about the fitted segments: the mean product of
/// neighbours' residuals (both in one segment) over the residuals' variance
/// less the commits' own (se², independent from commit to commit).
/// Residuals beyond three robust standard deviations are clipped there, so
/// a spike missed as a disturbance does not make the estimate. Kept within
/// 0 and [`PHI_MAX`]: a negative estimate is taken as 0, the independent
/// noise the penalty was calibrated on.
fn wander_from_residuals(pts: &[Option<Point>], disturbed: &[bool], segments: &[Segment]) -> f64 {
    let mut res: Vec<Option<f64>> = vec![None; pts.len()];
    let mut seg_of = vec![usize::MAX; pts.len()];
    let mut own = Vec::new();
    for (k, s) in segments.iter().enumerate() {
        for i in s.start..=s.end {
            seg_of[i] = k;
            if let Some(p) = pts[i].filter(|_| !disturbed[i]) {
                res[i] = Some(p.y - (s.from + s.slope * (i - s.start) as f64));
                own.push(p.se * p.se);
            }
        }
    }
    let mut all: Vec<f64> = res.iter().flatten().copied().collect();
    if all.len() < 4 {
        return 0.0;
    }
    let mut dev: Vec<f64> = all.iter().map(|r| r.abs()).collect();
    let clip = 3.0 * 1.4826 * median(&mut dev);
    let c = |r: f64| r.clamp(-clip, clip);
    let g0 = all.iter_mut().map(|r| c(*r) * c(*r)).sum::<f64>() / all.len() as f64;
    let (mut g1, mut pairs) = (0.0, 0usize);
    for i in 1..pts.len() {
        if let (Some(a), Some(b)) = (res[i - 1], res[i]) {
            if seg_of[i - 1] == seg_of[i] {
                g1 += c(a) * c(b);
                pairs += 1;
            }
        }
    }
    let between = g0 - own.iter().sum::<f64>() / own.len() as f64;
    if pairs < 3 || between <= 0.0 {
        return 0.0;
    }
    (g1 / pairs as f64 / between).clamp(0.0, PHI_MAX)
}

/// τ from the commits' spread about the fitted segments, robustly: where
/// the machine wanders slowly (its state from one run to the next is not
/// independent), neighbours differ less than distant commits do, and the
/// differences alone would take the wander for a change.
fn between_from_residuals(pts: &[Option<Point>], disturbed: &[bool], segments: &[Segment]) -> f64 {
    let mut res = Vec::new();
    let mut own = Vec::new();
    for s in segments {
        for i in s.start..=s.end {
            if let Some(p) = pts[i].filter(|_| !disturbed[i]) {
                res.push(p.y - (s.from + s.slope * (i - s.start) as f64));
                own.push(p.se * p.se);
            }
        }
    }
    if res.len() < 3 {
        return NOISE_FLOOR;
    }
    let med = median(&mut res.clone());
    let mut dev: Vec<f64> = res.iter().map(|r| (r - med).abs()).collect();
    let spread = 1.4826 * median(&mut dev);
    (spread * spread - median(&mut own))
        .max(0.0)
        .sqrt()
        .max(NOISE_FLOOR)
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// Prefix sums of the weighted moments, over positions.
struct Sums {
    n: Vec<f64>,
    w: Vec<f64>,
    wx: Vec<f64>,
    wxx: Vec<f64>,
    wy: Vec<f64>,
    wxy: Vec<f64>,
    wyy: Vec<f64>,
}

/// The weighted moments of positions `a..=b`.
struct Moments {
    n: f64,
    w: f64,
    wx: f64,
    wxx: f64,
    wy: f64,
    wxy: f64,
    wyy: f64,
}

impl Sums {
    fn new(pts: &[Option<Point>], w: &[f64]) -> Sums {
        let len = pts.len() + 1;
        let mut s = Sums {
            n: vec![0.0; len],
            w: vec![0.0; len],
            wx: vec![0.0; len],
            wxx: vec![0.0; len],
            wy: vec![0.0; len],
            wxy: vec![0.0; len],
            wyy: vec![0.0; len],
        };
        for (i, p) in pts.iter().enumerate() {
            let (wi, y) = match p {
                Some(p) if w[i] > 0.0 => (w[i], p.y),
                _ => (0.0, 0.0),
            };
            let x = i as f64;
            s.n[i + 1] = s.n[i] + if wi > 0.0 { 1.0 } else { 0.0 };
            s.w[i + 1] = s.w[i] + wi;
            s.wx[i + 1] = s.wx[i] + wi * x;
            s.wxx[i + 1] = s.wxx[i] + wi * x * x;
            s.wy[i + 1] = s.wy[i] + wi * y;
            s.wxy[i + 1] = s.wxy[i] + wi * x * y;
            s.wyy[i + 1] = s.wyy[i] + wi * y * y;
        }
        s
    }

    fn of(&self, a: usize, b: usize) -> Moments {
        let d = |v: &Vec<f64>| v[b + 1] - v[a];
        Moments {
            n: d(&self.n),
            w: d(&self.w),
            wx: d(&self.wx),
            wxx: d(&self.wxx),
            wy: d(&self.wy),
            wxy: d(&self.wxy),
            wyy: d(&self.wyy),
        }
    }
}

impl Moments {
    /// Weighted squared error about the weighted mean.
    fn flat_cost(&self) -> f64 {
        if self.w <= 0.0 {
            return 0.0;
        }
        (self.wyy - self.wy * self.wy / self.w).max(0.0)
    }

    /// Centred cross moments (Sxx, Sxy) of the weighted least-squares line.
    fn cross(&self) -> (f64, f64) {
        if self.w <= 0.0 {
            return (0.0, 0.0);
        }
        (
            self.wxx - self.wx * self.wx / self.w,
            self.wxy - self.wx * self.wy / self.w,
        )
    }

    /// Weighted squared error about the least-squares line, when the
    /// segment is long enough to be a drift.
    fn line_cost(&self) -> Option<f64> {
        let (sxx, sxy) = self.cross();
        (self.n >= DRIFT_MIN as f64 && sxx > 0.0)
            .then(|| (self.flat_cost() - sxy * sxy / sxx).max(0.0))
    }
}

/// Optimal partitioning of the positions into flat or drift segments,
/// pruned as PELT prunes (a start that cannot begin the last segment of
/// an optimal fit again is dropped; the constant allows for a drift's
/// extra penalty). Every segment holds at least one commit with data.
fn segment(pts: &[Option<Point>], w: &[f64], penalty: f64, drift_penalty: f64) -> Vec<Segment> {
    let n = pts.len();
    let sums = Sums::new(pts, w);
    let seg_cost = |a: usize, b: usize| -> (f64, Kind) {
        let m = sums.of(a, b);
        let flat = m.flat_cost();
        match m.line_cost() {
            Some(l) if l + drift_penalty < flat => (l + drift_penalty, Kind::Drift),
            _ => (flat, Kind::Flat),
        }
    };
    // best[t]: the cost of the first t positions; from[t]: where their
    // last segment starts and its kind.
    let mut best = vec![f64::INFINITY; n + 1];
    let mut from = vec![(0usize, Kind::Flat); n + 1];
    best[0] = -penalty;
    let mut starts: Vec<usize> = vec![0];
    let slack = penalty + drift_penalty;
    for t in 1..=n {
        let mut costs = Vec::with_capacity(starts.len());
        for &s in &starts {
            // A segment must hold data, and so must the one before it.
            let (c, kind) = if sums.n[t] - sums.n[s] > 0.0 {
                seg_cost(s, t - 1)
            } else {
                (f64::INFINITY, Kind::Flat)
            };
            let total = best[s] + c + penalty;
            costs.push(total);
            if total < best[t] {
                best[t] = total;
                from[t] = (s, kind);
            }
        }
        let bt = best[t];
        let kept: Vec<usize> = starts
            .iter()
            .zip(&costs)
            .filter(|(_, &c)| !c.is_finite() || c - penalty <= bt + slack)
            .map(|(&s, _)| s)
            .collect();
        starts = kept;
        if sums.n[t] > 0.0 {
            starts.push(t);
        }
    }
    let mut bounds = Vec::new();
    let mut t = n;
    while t > 0 {
        let (s, kind) = from[t];
        bounds.push((s, kind));
        t = s;
    }
    bounds.reverse();
    // A segment starts at its first commit with data: the commits without
    // data before it (gaps, disturbed) stay with the segment before, so a
    // change is named at the first commit that shows it.
    let starts: Vec<usize> = bounds
        .iter()
        .enumerate()
        .map(|(k, &(s, _))| {
            if k == 0 {
                return 0;
            }
            (s..n).find(|&i| w[i] > 0.0).unwrap_or(s)
        })
        .collect();
    (0..bounds.len())
        .map(|k| {
            let end = starts.get(k + 1).map_or(n - 1, |&next| next - 1);
            describe(pts, w, starts[k], end, bounds[k].1)
        })
        .collect()
}

/// The fitted values of a segment and their standard errors.
fn describe(pts: &[Option<Point>], w: &[f64], start: usize, end: usize, kind: Kind) -> Segment {
    let m = Sums::new(&pts[start..=end], &w[start..=end]).of(0, end - start);
    let mean = if m.w > 0.0 { m.wy / m.w } else { 0.0 };
    let mean_se = if m.w > 0.0 {
        (1.0 / m.w).sqrt()
    } else {
        f64::INFINITY
    };
    let (sxx, sxy) = m.cross();
    let line = kind == Kind::Drift && sxx > 0.0;
    let (slope, slope_se) = if line {
        (sxy / sxx, (1.0 / sxx).sqrt())
    } else {
        (0.0, 0.0)
    };
    let xbar = if m.w > 0.0 { m.wx / m.w } else { 0.0 };
    let at = |x: f64| -> (f64, f64) {
        if line {
            let d = x - xbar;
            (mean + slope * d, (mean_se * mean_se + d * d / sxx).sqrt())
        } else {
            (mean, mean_se)
        }
    };
    let (from, from_se) = at(0.0);
    let (to, to_se) = at((end - start) as f64);
    Segment {
        start,
        end,
        kind: if line { Kind::Drift } else { Kind::Flat },
        from,
        to,
        from_se,
        to_se,
        slope,
        slope_se,
    }
}

/// Commits with data in `s` that are not yet disturbed.
fn data_in(s: &Segment, pts: &[Option<Point>], disturbed: &[bool]) -> Vec<usize> {
    (s.start..=s.end)
        .filter(|&i| pts[i].is_some() && !disturbed[i])
        .collect()
}

/// The commits of short excursions: a flat segment of at most
/// [`TRANSIENT_MAX`] commits with data whose level is above both its
/// neighbours or below both (it came back), or that opens the history
/// (nothing before it to confirm it by). A short segment at the end stays:
/// the latest commits may be a change, and a CI gate must see it.
fn excursions(segments: &[Segment], pts: &[Option<Point>], disturbed: &[bool]) -> Vec<usize> {
    let mut out = Vec::new();
    for (k, s) in segments.iter().enumerate() {
        let commits = data_in(s, pts, disturbed);
        if s.kind != Kind::Flat || commits.is_empty() || commits.len() > TRANSIENT_MAX {
            continue;
        }
        let level = s.from;
        let excursion = match (k.checked_sub(1).map(|j| &segments[j]), segments.get(k + 1)) {
            (Some(a), Some(b)) => (level - a.to) * (level - b.from) > 0.0,
            (None, Some(_)) => true,
            _ => false,
        };
        if excursion {
            out.extend(commits);
        }
    }
    out
}

/// The changes of a fit: a step between two segments (the first commit of
/// the second), a drift for each drift segment (from the level before it to
/// the level after it). A drift's own ends are not steps of their own.
fn changes(segments: &[Segment]) -> Vec<Change> {
    let normal = Normal::standard();
    let p_of = |z: f64| {
        if z.is_finite() {
            2.0 * normal.sf(z.abs())
        } else {
            0.0
        }
    };
    let mut out = Vec::new();
    for (k, s) in segments.iter().enumerate() {
        let prev = k.checked_sub(1).map(|j| &segments[j]);
        match s.kind {
            Kind::Drift => {
                let (before, before_se) = prev.map_or((s.from, s.from_se), |p| (p.to, p.to_se));
                let (after, after_se) = segments
                    .get(k + 1)
                    .filter(|n| n.kind == Kind::Flat)
                    .map_or((s.to, s.to_se), |n| (n.from, n.from_se));
                out.push(Change {
                    index: s.start,
                    kind: Kind::Drift,
                    end: s.end,
                    before,
                    before_se,
                    after,
                    after_se,
                    p: p_of(s.slope / s.slope_se),
                });
            }
            Kind::Flat => {
                let Some(p) = prev.filter(|p| p.kind == Kind::Flat) else {
                    continue;
                };
                let se = (p.to_se * p.to_se + s.from_se * s.from_se).sqrt();
                out.push(Change {
                    index: s.start,
                    kind: Kind::Flat,
                    end: s.start,
                    before: p.to,
                    before_se: p.to_se,
                    after: s.from,
                    after_se: s.from_se,
                    p: p_of((s.from - p.to) / se),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_distr::StandardNormal;
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
        rng.sample(StandardNormal)
    }

    /// A history of `n` commits at `level(i)` with between-commit noise
    /// `tau` and each commit's own noise of standard error `se`.
    fn history(
        n: usize,
        seed: u64,
        tau: f64,
        se: f64,
        level: impl Fn(usize) -> f64,
    ) -> Vec<Option<Point>> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        (0..n)
            .map(|i| {
                let y = level(i) + tau * normal(&mut rng) + se * normal(&mut rng);
                Some(Point { y, se })
            })
            .collect()
    }

    /// A change only the corrected series shows is not confirmed by the
    /// series' own data: a fit stepping +3 % at 40 against own data that is
    /// flat, that steps the other way, or by only a third of it; a drift
    /// whose ends fall while its slope rises. Its own data with the step,
    /// or the drift, confirm them.
    #[test]
    fn a_change_must_show_in_the_series_own_data() {
        let stepped = |at: usize, size: f64| -> Vec<Option<Point>> {
            (0..80)
                .map(|i| {
                    let wobble = [0.0, 0.002, -0.001, 0.001, -0.002][i % 5];
                    let y = wobble + if i >= at { size } else { 0.0 };
                    Some(Point { y, se: 0.001 })
                })
                .collect()
        };
        let step = fit(&stepped(40, 0.03)).expect("fits");
        assert_eq!(step.changes.len(), 1, "{:?}", step.changes);
        assert!(own_data_confirms(&step, &stepped(40, 0.03)));
        assert!(own_data_confirms(&step, &stepped(40, 0.02)));
        assert!(!own_data_confirms(&step, &stepped(40, 0.0)));
        assert!(!own_data_confirms(&step, &stepped(40, -0.03)));
        assert!(!own_data_confirms(&step, &stepped(40, 0.01)));
        // Flat to 19, +0.3 % a commit over 20–49, flat after: the drift's
        // own data confirm it; data that rises over 20–49 but ends lower
        // than it began (steps down at 20 and 50) do not.
        let drifting = |down: f64| -> Vec<Option<Point>> {
            (0..80)
                .map(|i| {
                    let wobble = [0.0, 0.002, -0.001, 0.001, -0.002][i % 5];
                    let ramp = 0.003 * (i.clamp(19, 49) - 19) as f64;
                    let drop = down * ((i >= 20) as u8 + (i >= 50) as u8) as f64;
                    Some(Point {
                        y: wobble + ramp - drop,
                        se: 0.001,
                    })
                })
                .collect()
        };
        let drift = fit(&drifting(0.0)).expect("fits");
        assert!(
            drift.changes.iter().any(|c| c.kind == Kind::Drift),
            "{:?}",
            drift.changes
        );
        assert!(own_data_confirms(&drift, &drifting(0.0)));
        assert!(!own_data_confirms(&drift, &drifting(0.08)));
    }

    #[test]
    fn steps_of_known_size_are_found_where_they_are() {
        // +5 %, then −3 %, then +2 %, with 0.5 % noise between commits.
        let level = |i: usize| {
            let mut l = 0.0;
            if i >= 30 {
                l += 1.05f64.ln();
            }
            if i >= 55 {
                l += 0.97f64.ln();
            }
            if i >= 80 {
                l += 1.02f64.ln();
            }
            l
        };
        let mut hits = 0;
        let mut false_alarms = 0;
        for seed in 0..50 {
            let f = fit(&history(110, seed, 0.005, 0.002, level)).unwrap();
            for c in &f.changes {
                if [30, 55, 80].iter().any(|&t| c.index.abs_diff(t) <= 1) {
                    hits += 1;
                } else {
                    false_alarms += 1;
                }
            }
        }
        assert!(hits >= 145, "hits {hits} of 150");
        assert!(false_alarms <= 3, "false alarms {false_alarms}");
    }

    #[test]
    fn one_disturbed_commit_is_not_a_change() {
        let mut pts = history(60, 7, 0.004, 0.002, |_| 0.0);
        pts[20] = Some(Point { y: 0.3, se: 0.002 });
        pts[40] = Some(Point { y: -0.2, se: 0.002 });
        pts[41] = Some(Point {
            y: -0.25,
            se: 0.002,
        });
        let f = fit(&pts).unwrap();
        assert!(f.changes.is_empty(), "{:?}", f.changes);
        assert_eq!(f.disturbed, vec![20, 40, 41]);
    }

    #[test]
    fn a_drift_is_one_drift_with_its_total() {
        // +0.4 % a commit over commits 40..=59.
        let level = |i: usize| 1.004f64.ln() * (i.clamp(39, 59) - 39) as f64;
        let mut found = 0;
        for seed in 0..20 {
            let f = fit(&history(100, seed, 0.003, 0.001, level)).unwrap();
            let drifts: Vec<&Change> = f.changes.iter().filter(|c| c.kind == Kind::Drift).collect();
            if let [d] = drifts[..] {
                let total = (d.after - d.before).exp();
                if d.index.abs_diff(40) <= 3
                    && d.end.abs_diff(59) <= 3
                    && (total - 1.083).abs() < 0.02
                {
                    found += 1;
                }
            }
        }
        assert!(found >= 18, "{found} of 20");
    }

    #[test]
    fn the_null_rarely_has_a_change() {
        let mut alarms = 0;
        for seed in 0..40 {
            let f = fit(&history(1000, seed, 0.005, 0.003, |_| 0.0)).unwrap();
            alarms += usize::from(!f.changes.is_empty());
            assert!((f.between - 0.005).abs() < 0.001, "τ {}", f.between);
        }
        println!(
            "the null over 1,000 commits: {alarms} of 40 series with a change (false alarm rate {:.3} a series, {:.1e} a commit)",
            alarms as f64 / 40.0,
            alarms as f64 / 40_000.0
        );
        assert!(alarms <= 2, "{alarms} of 40 null series had a change");
    }

    #[test]
    fn a_slow_wander_is_measured_and_not_a_change() {
        // AR(1) between-commit noise, φ = 0.6, marginal τ = 1 %: as
        // independent noise it would show steps; its φ is found instead.
        let (mut alarms, mut phis) = (0, Vec::new());
        for seed in 0..20 {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(100 + seed);
            let mut u = 0.01 * normal(&mut rng);
            let pts: Vec<Option<Point>> = (0..1000)
                .map(|_| {
                    u = 0.6 * u + 0.01 * 0.8 * normal(&mut rng);
                    Some(Point { y: u, se: 0.001 })
                })
                .collect();
            let f = fit(&pts).unwrap();
            alarms += usize::from(!f.changes.is_empty());
            phis.push(f.wander);
        }
        let phi = median(&mut phis);
        assert!((phi - 0.6).abs() < 0.1, "φ {phi}");
        assert!(alarms <= 2, "{alarms} of 20 wandering series had a change");
    }

    #[test]
    fn gaps_are_not_values() {
        let mut pts = history(40, 3, 0.002, 0.001, |i| if i >= 20 { 0.1 } else { 0.0 });
        for i in [5, 19, 20, 33] {
            pts[i] = None;
        }
        let f = fit(&pts).unwrap();
        assert_eq!(f.changes.len(), 1, "{:?}", f.changes);
        assert_eq!(f.changes[0].index, 21);
        assert!(((f.changes[0].after - f.changes[0].before) - 0.1).abs() < 0.005);
        assert!(fit(&[None, Some(Point { y: 0.0, se: 0.0 }), None]).is_none());
    }
}
