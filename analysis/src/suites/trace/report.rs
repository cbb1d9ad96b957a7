//! The Perturbation cell (Mytkowicz et al.): does
//! instrumenting a program change what its metrics say?
//!
//! * **Inner perturbation** — the Spearman correlation of every pair of
//!   metrics inside one trace, compared between baseline runs (level 0) and
//!   each instrumentation level.
//! * **Outer perturbation** — each run is aligned to a reference baseline run
//!   by dynamic time warping, then each metric is correlated (Spearman) with
//!   itself along the warping path; 1.0 = unperturbed.
//! * A change counts only when it exceeds the spread seen between baseline
//!   runs (Mytkowicz et al.'s criterion): for inner correlations the range of a
//!   pair's correlation over baseline runs; for outer correlations the
//!   largest drop below 1.0 of a baseline run aligned to the reference.
//!
//! The seed correlates *hardware* metrics. When a machine gives none (perf
//! hardware events refused, as in most VMs), the analysis runs over the
//! software metrics instead and says so in `class_note`.

use super::{TraceData, TraceMetric, TraceRun, TraceWorkload, UnavailableMetric};
use crate::options::{DtwOptions, Options};
use crate::stats::bootstrap::{mean, BootstrapOptions};
use crate::stats::dtw::{dtw_multi, StepPattern};
use crate::stats::executions::ratio_of_means_ci;
use crate::stats::spearman::{spearman, spearman_matrix};
use crate::stats::Welford;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct TraceReport {
    /// Every metric the suite recorded, with its class and source.
    pub metrics: Vec<TraceMetric>,
    /// Metrics that could not be read on this machine, with the reason.
    pub unavailable: Vec<UnavailableMetric>,
    pub step_pattern: StepPattern,
    pub band: Option<usize>,
    pub workloads: Vec<WorkloadPerturbation>,
}

#[derive(Debug, Clone, Serialize)]
pub struct WorkloadPerturbation {
    pub name: String,
    pub description: String,
    pub interval_ns: f64,
    /// The metric class analysed: `hardware`, or `software` when no
    /// hardware metric was recorded in every run (then `class_note` says so).
    pub class: String,
    pub class_note: Option<String>,
    /// Metrics analysed (of `class`, present in every run), in order.
    pub metrics: Vec<String>,
    /// Every distinct pair of `metrics` (indices), in row-major order.
    pub pairs: Vec<MetricPair>,
    /// The baseline run the others are aligned to (the first level-0 run).
    pub reference: Option<RunKey>,
    pub runs: Vec<RunPerturbation>,
    /// Spread between baseline runs, per pair (inner) and per metric (outer).
    pub baseline: BaselineSpread,
    /// Per level (0 first): overhead and the changes against the baseline.
    pub levels: Vec<LevelPerturbation>,
    /// The reference baseline's series of each analysed metric (raw values).
    pub reference_series: Vec<Vec<f64>>,
    /// For each level ≥ 1, its first run aligned to the reference: the
    /// run's raw series and the warping path (the signals and path charts).
    pub examples: Vec<AlignedExample>,
    /// What limits this workload's analysis (too few baselines, …).
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MetricPair {
    pub a: usize,
    pub b: usize,
    /// `metric_a × metric_b`.
    pub label: String,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct RunKey {
    pub level: u32,
    pub repetition: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunPerturbation {
    pub level: u32,
    pub repetition: u32,
    pub records: usize,
    pub wall_ns: f64,
    pub instrumentation_count: u64,
    /// The Spearman matrix over `metrics` (null where undefined).
    pub matrix: Vec<Vec<Option<f64>>>,
    /// Inner correlation of each pair (the matrix entries, in `pairs` order).
    pub inner: Vec<Option<f64>>,
    /// Metrics whose correlations are undefined in this run, and why.
    pub undefined: Vec<String>,
    /// Outer correlation of each metric with itself after alignment to the
    /// reference; null for the reference itself and where undefined.
    pub outer: Option<Vec<Option<f64>>>,
    pub dtw_distance: Option<f64>,
    pub dtw_normalized_distance: Option<f64>,
    /// Why this run could not be aligned (e.g. the band is too narrow).
    pub alignment_error: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BaselineSpread {
    /// Baseline (level-0) runs.
    pub runs: usize,
    /// Mean inner correlation of each pair over baseline runs.
    pub inner_mean: Vec<Option<f64>>,
    /// max − min of each pair's inner correlation over baseline runs
    /// (null with fewer than two baselines where it is defined).
    pub inner_spread: Vec<Option<f64>>,
    /// Baseline runs other than the reference aligned to it: each metric's
    /// mean outer correlation and the largest drop below 1 among them.
    pub outer_mean: Vec<Option<f64>>,
    pub outer_spread: Vec<Option<f64>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LevelPerturbation {
    pub level: u32,
    pub description: String,
    pub counters: u32,
    pub runs: usize,
    pub wall_ns_mean: Option<f64>,
    /// mean wall time of this level / mean of level 0 − 1.
    pub overhead: Option<f64>,
    /// Bootstrap CI of the overhead (both levels with ≥ 2 runs).
    pub overhead_ci: Option<(f64, f64)>,
    pub instrumentation_mean: Option<f64>,
    /// Per pair: mean inner correlation at this level, its change from the
    /// baseline mean, and whether |change| exceeds the baseline spread.
    pub inner: Vec<Change>,
    /// Per metric: mean outer correlation at this level, its change from
    /// 1.0, and whether the drop exceeds the baseline spread.
    pub outer: Vec<Change>,
    pub flagged_inner: usize,
    pub flagged_outer: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Change {
    pub correlation: Option<f64>,
    pub change: Option<f64>,
    pub spread: Option<f64>,
    pub flagged: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct AlignedExample {
    pub level: u32,
    pub repetition: u32,
    pub series: Vec<Vec<f64>>,
    pub index1: Vec<usize>,
    pub index2: Vec<usize>,
}

pub fn trace_report(d: &TraceData, o: &Options) -> TraceReport {
    TraceReport {
        metrics: d.metrics.clone(),
        unavailable: d.unavailable.clone(),
        step_pattern: o.dtw.step_pattern,
        band: o.dtw.band,
        workloads: d
            .workloads
            .iter()
            .map(|w| workload(d, w, o.dtw, &o.bootstrap))
            .collect(),
    }
}

/// The series of `name` in `run` (its column), if recorded.
fn column(run: &TraceRun, name: &str) -> Option<Vec<f64>> {
    let c = run.columns.iter().position(|x| x == name)?;
    Some(run.records.iter().map(|r| r[c]).collect())
}

fn class_of<'a>(d: &'a TraceData, name: &str) -> &'a str {
    d.metrics
        .iter()
        .find(|m| m.name == name)
        .map(|m| m.class.as_str())
        .unwrap_or("")
}

/// z-scores (sample SD); `None` for a constant or too short series.
fn zscore(x: &[f64]) -> Option<Vec<f64>> {
    let w = Welford::from_slice(x);
    let (m, sd) = (w.mean()?, w.sd()?);
    (sd > 0.0 && sd.is_finite()).then(|| x.iter().map(|v| (v - m) / sd).collect())
}

/// A workload's perturbation analysis: the metrics compared, each run's
/// correlations and alignment to the reference, the baseline's spread, and
/// each level against it.
fn workload(
    d: &TraceData,
    w: &TraceWorkload,
    dtw: DtwOptions,
    boot: &BootstrapOptions,
) -> WorkloadPerturbation {
    let mut notes = Vec::new();
    let (class, metrics, class_note) = metrics_compared(d, w);
    let k = metrics.len();
    let mut pairs = Vec::new();
    for a in 0..k {
        for b in a + 1..k {
            pairs.push(MetricPair {
                a,
                b,
                label: format!("{} × {}", metrics[a], metrics[b]),
            });
        }
    }
    if k < 2 {
        notes.push(format!(
            "fewer than two {class} metrics recorded in every run: no metric pairs to correlate"
        ));
    }

    // Runs ordered by level, then repetition; the reference is the first baseline.
    let mut order: Vec<usize> = (0..w.runs.len()).collect();
    order.sort_by_key(|&i| (w.runs[i].level, w.runs[i].repetition));
    let series: Vec<Vec<Vec<f64>>> = w
        .runs
        .iter()
        .map(|r| {
            metrics
                .iter()
                .map(|m| column(r, m).unwrap_or_default())
                .collect()
        })
        .collect();
    let reference = order.iter().copied().find(|&i| w.runs[i].level == 0);
    if reference.is_none() {
        notes.push("no baseline (level 0) run: nothing to compare against".into());
    }

    let mut runs: Vec<RunPerturbation> = Vec::new();
    let mut examples = Vec::new();
    for &i in &order {
        let r = &w.runs[i];
        let aligned = reference
            .filter(|&x| x != i && k > 0)
            .map(|refi| &series[refi]);
        // The first run aligned at each instrumented level is its example.
        let example = r.level > 0 && !examples.iter().any(|e: &AlignedExample| e.level == r.level);
        let (run, example) =
            run_perturbation(r, &series[i], &metrics, &pairs, aligned, example, dtw);
        examples.extend(example);
        runs.push(run);
    }

    let baseline = baseline_spread(&runs, pairs.len(), k);
    if baseline.runs < 2 && reference.is_some() {
        notes.push(format!(
            "{} baseline run: the spread between baseline runs needs at least two, so no change is flagged",
            baseline.runs
        ));
    }
    let levels = level_perturbations(w, &runs, &baseline, pairs.len(), k, boot);

    WorkloadPerturbation {
        name: w.name.clone(),
        description: w.description.clone(),
        interval_ns: w.interval_ns,
        class: class.to_string(),
        class_note,
        metrics,
        pairs,
        reference: reference.map(|i| RunKey {
            level: w.runs[i].level,
            repetition: w.runs[i].repetition,
        }),
        baseline,
        levels,
        reference_series: reference.map(|i| series[i].clone()).unwrap_or_default(),
        examples,
        runs,
        notes,
    }
}

/// The metrics a workload's runs are compared on: those present in every
/// run, hardware ones when there are two or more, else software ones with
/// a note saying why (class, metrics, note).
fn metrics_compared(
    d: &TraceData,
    w: &TraceWorkload,
) -> (&'static str, Vec<String>, Option<String>) {
    // Metrics present in every run; baseline runs carry no instrumentation
    // counters, so those drop out here.
    let common: Vec<String> = match w.runs.first() {
        None => Vec::new(),
        Some(first) => first
            .columns
            .iter()
            .filter(|c| w.runs.iter().all(|r| r.columns.contains(c)))
            .cloned()
            .collect(),
    };
    let hardware: Vec<String> = common
        .iter()
        .filter(|c| class_of(d, c) == "hardware")
        .cloned()
        .collect();
    if hardware.len() >= 2 {
        ("hardware", hardware, None)
    } else {
        let software: Vec<String> = common
            .iter()
            .filter(|c| class_of(d, c) == "software")
            .cloned()
            .collect();
        let why = if d.unavailable.is_empty() {
            "this trace has no hardware metric in every run".to_string()
        } else {
            format!(
                "hardware metrics were unavailable here ({})",
                d.unavailable
                    .iter()
                    .map(|u| u.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let note = format!(
            "{why}, so the perturbation analysis uses the {} software metrics (perf software events, rusage, TSC) instead of hardware counters as the seed does",
            software.len()
        );
        ("software", software, Some(note))
    }
}

/// One run's correlations, and its alignment to the reference's series
/// when given (`reference`), with the alignment as an example when one is
/// wanted.
fn run_perturbation(
    r: &TraceRun,
    series: &[Vec<f64>],
    metrics: &[String],
    pairs: &[MetricPair],
    reference: Option<&Vec<Vec<f64>>>,
    want_example: bool,
    dtw: DtwOptions,
) -> (RunPerturbation, Option<AlignedExample>) {
    let matrix = spearman_matrix(series);
    let inner = pairs.iter().map(|p| matrix[p.a][p.b]).collect();
    let undefined = metrics
        .iter()
        .zip(series)
        .filter(|(_, s)| s.len() >= 2 && s.iter().all(|v| *v == s[0]))
        .map(|(m, _)| format!("{m}: constant in this run"))
        .chain((r.records.len() < 2).then(|| "fewer than two records".to_string()))
        .collect();
    let mut run = RunPerturbation {
        level: r.level,
        repetition: r.repetition,
        records: r.records.len(),
        wall_ns: r.wall_ns,
        instrumentation_count: r.instrumentation_count,
        matrix,
        inner,
        undefined,
        outer: None,
        dtw_distance: None,
        dtw_normalized_distance: None,
        alignment_error: None,
    };
    let mut example = None;
    if let Some(reference) = reference {
        match align(reference, series, dtw) {
            Ok((a, outer)) => {
                run.outer = Some(outer);
                run.dtw_distance = Some(a.distance);
                run.dtw_normalized_distance = a.normalized_distance;
                if want_example {
                    example = Some(AlignedExample {
                        level: r.level,
                        repetition: r.repetition,
                        series: series.to_vec(),
                        index1: a.index1,
                        index2: a.index2,
                    });
                }
            }
            Err(e) => run.alignment_error = Some(e),
        }
    }
    (run, example)
}

/// The spread between baseline (level 0) runs, of `pairs` inner and `k`
/// outer correlations.
fn baseline_spread(runs: &[RunPerturbation], pairs: usize, k: usize) -> BaselineSpread {
    let base: Vec<&RunPerturbation> = runs.iter().filter(|r| r.level == 0).collect();
    let base_vals = |p: usize| -> Vec<f64> { base.iter().filter_map(|r| r.inner[p]).collect() };
    let inner_mean: Vec<Option<f64>> = (0..pairs)
        .map(|p| {
            Some(base_vals(p))
                .filter(|v| !v.is_empty())
                .map(|v| mean(&v))
        })
        .collect();
    let inner_spread: Vec<Option<f64>> = (0..pairs)
        .map(|p| {
            let v = base_vals(p);
            (v.len() >= 2).then(|| range(&v))
        })
        .collect();
    let base_outer = |m: usize| -> Vec<f64> {
        base.iter()
            .filter_map(|r| r.outer.as_ref().and_then(|o| o[m]))
            .collect()
    };
    let outer_mean: Vec<Option<f64>> = (0..k)
        .map(|m| {
            Some(base_outer(m))
                .filter(|v| !v.is_empty())
                .map(|v| mean(&v))
        })
        .collect();
    let outer_spread: Vec<Option<f64>> = (0..k)
        .map(|m| {
            let v = base_outer(m);
            (!v.is_empty()).then(|| v.iter().map(|c| 1.0 - c).fold(0.0, f64::max))
        })
        .collect();
    BaselineSpread {
        runs: base.len(),
        inner_mean,
        inner_spread,
        outer_mean,
        outer_spread,
    }
}

/// Each level (those described and those run, in order) against the
/// baseline: its overhead with a CI, and which of its `pairs` inner and
/// `k` outer correlations changed by more than the baseline's spread.
fn level_perturbations(
    w: &TraceWorkload,
    runs: &[RunPerturbation],
    baseline: &BaselineSpread,
    pairs: usize,
    k: usize,
    boot: &BootstrapOptions,
) -> Vec<LevelPerturbation> {
    let wall = |level: u32| -> Vec<Vec<f64>> {
        w.runs
            .iter()
            .filter(|r| r.level == level)
            .map(|r| vec![r.wall_ns])
            .collect()
    };
    let base_wall = wall(0);
    let mut level_ids: Vec<u32> = w.levels.iter().map(|l| l.level).collect();
    for r in &w.runs {
        if !level_ids.contains(&r.level) {
            level_ids.push(r.level);
        }
    }
    level_ids.sort_unstable();
    level_ids
        .iter()
        .map(|&level| {
            let info = w.levels.iter().find(|l| l.level == level);
            let at: Vec<&RunPerturbation> = runs.iter().filter(|r| r.level == level).collect();
            let lw = wall(level);
            let flat = |v: &[Vec<f64>]| v.iter().map(|x| x[0]).collect::<Vec<f64>>();
            let wall_ns_mean = (!lw.is_empty()).then(|| mean(&flat(&lw)));
            let overhead = match (wall_ns_mean, base_wall.is_empty()) {
                (Some(m), false) => Some(m / mean(&flat(&base_wall)) - 1.0),
                _ => None,
            };
            let overhead_ci = if level > 0 && lw.len() >= 2 && base_wall.len() >= 2 {
                ratio_of_means_ci(&lw, &base_wall, boot).map(|ci| (ci.lo - 1.0, ci.hi - 1.0))
            } else {
                None
            };
            let counts: Vec<f64> = at.iter().map(|r| r.instrumentation_count as f64).collect();
            let inner: Vec<Change> = (0..pairs)
                .map(|p| {
                    let v: Vec<f64> = at.iter().filter_map(|r| r.inner[p]).collect();
                    let c = (!v.is_empty()).then(|| mean(&v));
                    let change = c.zip(baseline.inner_mean[p]).map(|(c, b)| c - b);
                    let spread = baseline.inner_spread[p];
                    Change {
                        correlation: c,
                        change,
                        spread,
                        flagged: level > 0
                            && matches!((change, spread), (Some(ch), Some(s)) if ch.abs() > s),
                    }
                })
                .collect();
            let outer: Vec<Change> = (0..k)
                .map(|m| {
                    let v: Vec<f64> = at
                        .iter()
                        .filter_map(|r| r.outer.as_ref().and_then(|o| o[m]))
                        .collect();
                    let c = (!v.is_empty()).then(|| mean(&v));
                    let spread = baseline.outer_spread[m];
                    Change {
                        correlation: c,
                        change: c.map(|c| c - 1.0),
                        spread,
                        flagged: level > 0
                            && baseline.runs >= 2
                            && matches!((c, spread), (Some(c), Some(s)) if 1.0 - c > s),
                    }
                })
                .collect();
            LevelPerturbation {
                level,
                description: info.map(|l| l.description.clone()).unwrap_or_default(),
                counters: info.map(|l| l.counters).unwrap_or(0),
                runs: at.len(),
                wall_ns_mean,
                overhead,
                overhead_ci,
                instrumentation_mean: (!counts.is_empty()).then(|| mean(&counts)),
                flagged_inner: inner.iter().filter(|c| c.flagged).count(),
                flagged_outer: outer.iter().filter(|c| c.flagged).count(),
                inner,
                outer,
            }
        })
        .collect()
}

fn range(v: &[f64]) -> f64 {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    hi - lo
}

/// Align `run` to `reference` (records of every metric z-scored, so each
/// metric weighs the same in the Euclidean local cost whatever its unit or
/// magnitude, and a level shift from instrumentation — more work counted per
/// interval — does not dominate the alignment; constant metrics carry no
/// shape and are left out of the alignment). Then Spearman of each metric's
/// raw values along the path (`index1` in the reference, `index2` in the run).
fn align(
    reference: &[Vec<f64>],
    run: &[Vec<f64>],
    o: DtwOptions,
) -> Result<(crate::stats::dtw::Alignment, Vec<Option<f64>>), String> {
    let zr: Vec<Option<Vec<f64>>> = reference.iter().map(|s| zscore(s)).collect();
    let zx: Vec<Option<Vec<f64>>> = run.iter().map(|s| zscore(s)).collect();
    let used: Vec<usize> = (0..reference.len())
        .filter(|&m| zr[m].is_some() && zx[m].is_some())
        .collect();
    if used.is_empty() {
        return Err("no metric varies in both runs: nothing to align on".into());
    }
    let records = |z: &[Option<Vec<f64>>], n: usize| -> Vec<Vec<f64>> {
        (0..n)
            .map(|t| {
                used.iter()
                    .map(|&m| z[m].as_ref().map_or(0.0, |s| s[t]))
                    .collect()
            })
            .collect()
    };
    let n = reference[used[0]].len();
    let m = run[used[0]].len();
    let a = dtw_multi(&records(&zr, n), &records(&zx, m), o.step_pattern, o.band)?;
    let outer = reference
        .iter()
        .zip(run)
        .map(|(r, x)| {
            let pr: Vec<f64> = a.index1.iter().map(|&i| r[i]).collect();
            let px: Vec<f64> = a.index2.iter().map(|&j| x[j]).collect();
            spearman(&pr, &px).ok()
        })
        .collect();
    Ok((a, outer))
}

#[cfg(test)]
mod tests {
    use super::super::InstrumentationLevel;
    use super::*;

    fn metric(name: &str, class: &str) -> TraceMetric {
        TraceMetric {
            name: name.into(),
            unit: "count".into(),
            class: class.into(),
            source: "test".into(),
            description: None,
        }
    }

    /// A deterministic noisy signal: a slow wave plus small pseudo-random
    /// noise that differs with `seed`.
    fn signal(n: usize, phase: f64, seed: u64) -> Vec<f64> {
        let mut s = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (0..n)
            .map(|t| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let noise = ((s >> 33) as f64 / (1u64 << 31) as f64) - 0.5;
                100.0 + 40.0 * ((t as f64) / 6.0 + phase).sin() + 2.0 * noise
            })
            .collect()
    }

    /// Columns a, b, c: b follows a; c follows a at baseline. `perturb`
    /// replaces c by an unrelated signal (a perturbed metric).
    fn run(level: u32, rep: u32, seed: u64, perturb: bool, wall: f64) -> TraceRun {
        let n = 60;
        let a = signal(n, 0.0, seed);
        let b: Vec<f64> = signal(n, 0.0, seed + 100).iter().map(|v| v * 3.0).collect();
        let c = if perturb {
            signal(n, 2.0, seed + 200)
                .iter()
                .map(|v| v * v)
                .rev()
                .collect()
        } else {
            signal(n, 0.0, seed + 300)
        };
        TraceRun {
            level,
            repetition: rep,
            wall_ns: wall,
            instrumentation_count: level as u64 * 1000,
            columns: vec!["a".into(), "b".into(), "c".into()],
            records: (0..n).map(|t| vec![a[t], b[t], c[t]]).collect(),
        }
    }

    fn data(runs: Vec<TraceRun>) -> TraceData {
        TraceData {
            metrics: vec![
                metric("a", "software"),
                metric("b", "software"),
                metric("c", "software"),
            ],
            unavailable: vec![UnavailableMetric {
                name: "instructions".into(),
                source: "perf_event".into(),
                reason: "perf_event_open: Operation not supported (EOPNOTSUPP)".into(),
            }],
            workloads: vec![TraceWorkload {
                name: "w".into(),
                description: "test".into(),
                interval_ns: 1e7,
                levels: (0..3)
                    .map(|l| InstrumentationLevel {
                        level: l,
                        description: format!("level {l}"),
                        counters: l,
                    })
                    .collect(),
                runs,
            }],
        }
    }

    #[test]
    fn perturbed_metric_is_flagged_and_a_baseline_copy_is_not() {
        let d = data(vec![
            run(0, 0, 1, false, 1.00e9),
            run(0, 1, 2, false, 1.02e9),
            run(0, 2, 3, false, 0.98e9),
            run(1, 0, 1, false, 1.01e9), // a copy of baseline 0 at level 1
            run(2, 0, 5, true, 1.10e9),
            run(2, 1, 6, true, 1.12e9),
        ]);
        let r = trace_report(&d, &Options::default());
        let w = &r.workloads[0];
        assert_eq!(w.class, "software");
        assert!(w.class_note.as_deref().unwrap().contains("instructions"));
        assert_eq!(w.metrics, vec!["a", "b", "c"]);
        assert_eq!(w.pairs.len(), 3);
        assert_eq!(
            w.reference,
            Some(RunKey {
                level: 0,
                repetition: 0
            })
        );
        assert_eq!(w.baseline.runs, 3);
        // The run identical to the reference aligns on the diagonal: every
        // outer correlation is exactly 1.
        let copy = w.runs.iter().find(|r| r.level == 1).unwrap();
        assert_eq!(copy.dtw_distance, Some(0.0));
        assert_eq!(copy.outer.as_ref().unwrap(), &vec![Some(1.0); 3]);
        let l1 = &w.levels[1];
        assert_eq!(l1.flagged_inner, 0, "{:?}", l1.inner);
        assert_eq!(l1.flagged_outer, 0, "{:?}", l1.outer);
        // Level 2 replaced metric c: pairs with c change beyond the spread,
        // a × b does not.
        let l2 = &w.levels[2];
        let pair = |x: &str, y: &str| {
            w.pairs
                .iter()
                .position(|p| w.metrics[p.a] == x && w.metrics[p.b] == y)
                .unwrap()
        };
        assert!(!l2.inner[pair("a", "b")].flagged, "{:?}", l2.inner);
        assert!(l2.inner[pair("a", "c")].flagged, "{:?}", l2.inner);
        assert!(l2.inner[pair("b", "c")].flagged, "{:?}", l2.inner);
        assert!(l2.outer[2].flagged, "{:?}", l2.outer);
        // Overhead from wall times: mean(1.10, 1.12) / mean(1.00, 1.02, 0.98) − 1.
        assert!((l2.overhead.unwrap() - (1.11 / 1.0 - 1.0)).abs() < 1e-12);
        let (lo, hi) = l2.overhead_ci.unwrap();
        assert!(lo <= l2.overhead.unwrap() + 1e-12 && hi >= l2.overhead.unwrap() - 1e-12);
        assert_eq!(l1.overhead_ci, None, "one run at level 1: no CI");
        // Baseline spread of a pair is the range of its baseline correlations.
        let p = pair("a", "b");
        let v: Vec<f64> = w
            .runs
            .iter()
            .filter(|r| r.level == 0)
            .map(|r| r.inner[p].unwrap())
            .collect();
        assert_eq!(w.baseline.inner_spread[p], Some(range(&v)));
        assert_eq!(l1.inner[p].change, Some(v[0] - mean(&v)));
        assert_eq!(w.examples.len(), 2);
        assert_eq!(w.reference_series.len(), 3);
    }

    #[test]
    fn hardware_metrics_are_preferred_and_constant_columns_are_undefined() {
        let mut d = data(vec![run(0, 0, 1, false, 1e9), run(0, 1, 2, false, 1e9)]);
        d.metrics[0].class = "hardware".into();
        d.metrics[1].class = "hardware".into();
        for r in &mut d.workloads[0].runs {
            for rec in &mut r.records {
                rec[1] = 7.0;
            }
        }
        let r = trace_report(&d, &Options::default());
        let w = &r.workloads[0];
        assert_eq!(w.class, "hardware");
        assert_eq!(w.class_note, None);
        assert_eq!(w.metrics, vec!["a", "b"]);
        assert_eq!(w.runs[0].inner, vec![None]);
        assert!(w.runs[0].undefined[0].starts_with("b: constant"));
        // Aligned on a alone; b's outer correlation is undefined.
        assert_eq!(w.runs[1].outer.as_ref().unwrap()[1], None);
        assert!(w.runs[1].outer.as_ref().unwrap()[0].is_some());
    }

    #[test]
    fn a_band_too_narrow_is_a_reason_not_a_panic() {
        let mut short = run(1, 0, 4, false, 1e9);
        short.records.truncate(40);
        let d = data(vec![run(0, 0, 1, false, 1e9), short]);
        let o = Options {
            dtw: DtwOptions {
                step_pattern: StepPattern::Symmetric1,
                band: Some(5),
            },
            ..Options::default()
        };
        let r = trace_report(&d, &o);
        let w = &r.workloads[0];
        assert!(w.runs[1].alignment_error.is_some());
        assert!(w.notes.iter().any(|n| n.contains("1 baseline run")));
        assert!(DtwOptions {
            band: Some(20_000_000),
            ..DtwOptions::default()
        }
        .validate()
        .is_err());
    }

    #[test]
    fn empty_and_baseline_free_workloads_do_not_panic() {
        let r = trace_report(&data(vec![]), &Options::default());
        assert!(r.workloads[0].runs.is_empty());
        let r = trace_report(&data(vec![run(1, 0, 1, false, 1e9)]), &Options::default());
        assert!(r.workloads[0]
            .notes
            .iter()
            .any(|n| n.contains("no baseline")));
        assert_eq!(r.workloads[0].levels[1].overhead, None);
    }
}
