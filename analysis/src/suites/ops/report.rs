//! The operation-cost cells: per-operation cost table with bootstrap CIs,
//! the six-number summary and Tukey outliers over all operations (Lambert & Power's
//! Table 3), hierarchical clustering with the granularity cut at each of the
//! six statistics (Tables 4–6), and the calibration of portable timings
//! against the cycle counter (Lambert & Power).
//!
//! The summary, outliers, clustering and modes are of one clock's per-op
//! times, the *reference clock* (`Options.reference_clock`): the portable
//! clock by default, as the paper, or the cycle counter. The calibration does
//! not follow that choice: it always regresses counter ns on portable ns
//! (y = α + βx, the paper's direction), because it is a relation between the
//! two clocks rather than a statistic of one, OLS is not symmetric (swapping
//! the axes gives another line), and its exported fit exists to turn another
//! machine's portable times into counter-equivalent ones
//! (`calibration.rs`), which needs x = portable whatever is summarised here.

use super::{OpMeasurement, OpsData};
use crate::options::{Options, ReferenceClock};
use crate::stats::bootstrap::{median_ci, BootstrapCi};
use crate::stats::cluster::{cluster_1d, Dendrogram, Linkage};
use crate::stats::differential::per_copy;
use crate::stats::modes::{detect_modes, Modes};
use crate::stats::regression::{ols, Fit};
use crate::stats::{Fences, Summary};
use serde::Serialize;

pub use super::calibration::*;
pub use super::published::PublishedComparison;
pub use super::row::OpRow;

impl ReferenceClock {
    /// This clock's ns-per-op estimate of one operation.
    fn of(self, r: &OpRow) -> Option<&BootstrapCi> {
        match self {
            ReferenceClock::Portable => r.portable_ns.as_ref(),
            ReferenceClock::Counter => r.counter_ns.as_ref(),
        }
    }

    fn basis(self) -> &'static str {
        match self {
            ReferenceClock::Portable => "portable ns per operation (median over repetitions)",
            ReferenceClock::Counter => "cycle-counter ns per operation (median over repetitions)",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct OpsReport {
    pub portable_clock: String,
    pub counter_clock: Option<String>,
    pub counter_hz: Option<f64>,
    /// The clock the forms' figures are based on: the one the options ask
    /// for, or `portable` when they ask for the counter and the file has no
    /// counter times (then `basis_fallback` says why).
    pub reference_clock: ReferenceClock,
    /// Why the counter was asked for but the portable clock used.
    pub basis_fallback: Option<String>,
    pub copies: u32,
    pub repetitions: u32,
    pub core: Option<CoreClockRow>,
    pub ops: Vec<OpRow>,
    /// One analysis per form (`latency`, `throughput`).
    pub forms: Vec<FormReport>,
    /// Another machine's fit applied to these ops (`tickbook analyze
    /// --calibrate-with`); never set by the analysis itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibrated: Option<CalibratedOps>,
    /// The measured core cycles beside the published figures of the host's
    /// core (`published.rs`); absent without core-cycle times or off x86_64.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<PublishedComparison>,
    /// Whether the core's issue width was this thread's alone
    /// (`issue.rs`); absent without core-cycle times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issue: Option<super::issue::IssueCheck>,
    /// Why there is no comparison at all: the figures have no core of the
    /// host's architecture (`published::absent_for`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published_absent: Option<String>,
}

/// Core cycles per counter tick from a chain of dependent adds (one core
/// cycle each).
#[derive(Debug, Clone, Serialize)]
pub struct CoreClockRow {
    pub adds: u64,
    pub samples: usize,
    /// Median counter ticks per add = ticks per core cycle, with its CI.
    pub ticks_per_cycle: BootstrapCi,
    pub cycles_per_tick: f64,
    /// The CI of `cycles_per_tick` (the reciprocals of the ticks-per-cycle
    /// CI's bounds, swapped).
    pub cycles_per_tick_ci: (f64, f64),
    /// Core clock in Hz (counter Hz × cycles per tick), when the counter
    /// frequency is known.
    pub core_hz: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FormReport {
    pub form: String,
    /// The clock `values_ns` are from (as `OpsReport.reference_clock`).
    pub reference_clock: ReferenceClock,
    /// What the summary and clustering are of.
    pub basis: String,
    /// Operations included (available, with an estimate by the reference
    /// clock), in order.
    pub names: Vec<String>,
    /// Available operations with a time by the other clock only, so left out
    /// of the summary and clustering.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
    pub values_ns: Vec<f64>,
    pub summary: Option<Summary>,
    pub fences: Option<Fences>,
    pub outliers: Vec<NamedOutlier>,
    pub clustering: Option<ClusteringReport>,
    /// Cost modes by k-means (exact in 1-D), to compare with the clustering.
    pub modes: Option<Modes>,
    pub calibration: Option<CalibrationReport>,
}

#[derive(Debug, Clone, Serialize)]
pub struct NamedOutlier {
    pub name: String,
    pub value_ns: f64,
    pub extreme: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClusteringReport {
    pub method: Linkage,
    /// Observations are `names[i]` of the form report.
    pub dendrogram: Dendrogram,
    /// The granularity cut at each of the six statistics.
    pub cuts: Vec<CutRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CutRow {
    /// `min`, `q1`, `median`, `mean`, `q3` or `max`.
    pub statistic: String,
    pub granularity_ns: f64,
    pub clusters: usize,
    /// Clusters in order of mean cost; members in order of cost.
    pub members: Vec<ClusterRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClusterRow {
    pub names: Vec<String>,
    pub min_ns: f64,
    pub max_ns: f64,
    pub mean_ns: f64,
}

/// y = α + β·x with x the portable ns/op and y the counter's ns/op,
/// whichever clock is the reference (module comment).
#[derive(Debug, Clone, Serialize)]
pub struct CalibrationReport {
    pub fit: Fit,
    pub points: Vec<CalibrationPoint>,
    /// The operations with the largest |residual|, largest first.
    pub largest_residuals: Vec<String>,
    /// Core cycles per counter tick, to read the slope against.
    pub cycles_per_tick: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CalibrationPoint {
    pub name: String,
    pub portable_ns: f64,
    pub counter_ns: f64,
    pub residual_ns: f64,
}

fn scaled(ci: &BootstrapCi, k: f64) -> BootstrapCi {
    BootstrapCi {
        estimate: ci.estimate * k,
        lo: ci.lo * k,
        hi: ci.hi * k,
        ..ci.clone()
    }
}

fn op_row(op: &OpMeasurement, d: &OpsData, ticks_per_cycle: Option<f64>, o: &Options) -> OpRow {
    let ci = |xs: Vec<f64>| median_ci(&xs, &o.bootstrap);
    let portable_ns = ci(per_copy(
        &op.portable_n_ns,
        &op.portable_2n_ns,
        d.copies.into(),
    ));
    let counter_ticks = ci(per_copy(
        &op.counter_n_ticks,
        &op.counter_2n_ticks,
        d.copies.into(),
    ));
    OpRow {
        name: op.name.clone(),
        group: op.group.clone(),
        form: op.form.clone(),
        implementation: op.implementation.clone(),
        instruction: op.instruction.clone(),
        available: op.available,
        unavailable_reason: op.unavailable_reason.clone(),
        portable_ns,
        counter_ns: match (&counter_ticks, d.counter_hz) {
            (Some(t), Some(hz)) => Some(scaled(t, 1e9 / hz)),
            _ => None,
        },
        core_cycles: match (&counter_ticks, ticks_per_cycle) {
            (Some(t), Some(tpc)) if tpc > 0.0 => Some(scaled(t, 1.0 / tpc)),
            _ => None,
        },
        counter_ticks,
    }
}

pub fn ops_report(d: &OpsData, o: &Options) -> OpsReport {
    let core = d.core_clock.as_ref().and_then(|c| {
        let per_add = c.ticks_per_add();
        let tpc = median_ci(&per_add, &o.bootstrap)?;
        (tpc.estimate > 0.0).then(|| CoreClockRow {
            adds: c.adds,
            samples: c.ticks.len(),
            cycles_per_tick: 1.0 / tpc.estimate,
            cycles_per_tick_ci: (1.0 / tpc.hi, 1.0 / tpc.lo),
            core_hz: d.counter_hz.map(|hz| hz / tpc.estimate),
            ticks_per_cycle: tpc,
        })
    });
    let tpc = core.as_ref().map(|c| c.ticks_per_cycle.estimate);
    let ops: Vec<OpRow> = d.ops.iter().map(|op| op_row(op, d, tpc, o)).collect();
    let (reference, basis_fallback) = reference_clock(d, &ops, o.reference_clock);

    let mut forms: Vec<String> = Vec::new();
    for op in &ops {
        if !forms.contains(&op.form) {
            forms.push(op.form.clone());
        }
    }
    let forms = forms
        .into_iter()
        .map(|f| {
            let cpt = core.as_ref().map(|c| c.cycles_per_tick);
            form_report(&f, &ops, cpt, reference, o)
        })
        .collect();
    OpsReport {
        portable_clock: d.portable_clock.clone(),
        counter_clock: d.counter_clock.clone(),
        counter_hz: d.counter_hz,
        reference_clock: reference,
        basis_fallback,
        copies: d.copies,
        repetitions: d.repetitions,
        core,
        ops,
        forms,
        calibrated: None,
        published: None,
        issue: None,
        published_absent: None,
    }
}

/// The clock the forms use: the one asked for, unless that is the counter
/// and no operation has a counter time in ns (no counter on the machine, or
/// its frequency unknown); then the portable clock, with the reason.
fn reference_clock(
    d: &OpsData,
    ops: &[OpRow],
    asked: ReferenceClock,
) -> (ReferenceClock, Option<String>) {
    if asked == ReferenceClock::Portable
        || ops.iter().any(|r| r.available && r.counter_ns.is_some())
    {
        return (asked, None);
    }
    let why = if d.counter_clock.is_none() {
        "this file has no cycle-counter times (the collector ran without a cycle counter)"
    } else if d.counter_hz.is_none() {
        "the cycle counter's frequency is not recorded, so its ticks cannot be put in ns"
    } else {
        "no operation has a cycle-counter time"
    };
    (
        ReferenceClock::Portable,
        Some(format!(
            "the cycle counter was chosen as the reference clock, but {why}: the figures use the portable clock"
        )),
    )
}

fn form_report(
    form: &str,
    ops: &[OpRow],
    cycles_per_tick: Option<f64>,
    reference: ReferenceClock,
    o: &Options,
) -> FormReport {
    let of_form: Vec<&OpRow> = ops
        .iter()
        .filter(|r| r.form == form && r.available)
        .collect();
    let rows: Vec<&OpRow> = of_form
        .iter()
        .copied()
        .filter(|r| reference.of(r).is_some())
        .collect();
    let left_out: Vec<String> = of_form
        .iter()
        .filter(|r| {
            reference.of(r).is_none() && (r.portable_ns.is_some() || r.counter_ns.is_some())
        })
        .map(|r| r.name.clone())
        .collect();
    let names: Vec<String> = rows.iter().map(|r| r.name.clone()).collect();
    let values: Vec<f64> = rows
        .iter()
        .filter_map(|r| reference.of(r).map(|c| c.estimate))
        .collect();
    let mut sorted = values.clone();
    sorted.sort_by(f64::total_cmp);
    let summary = Summary::of_sorted(&sorted, o.quantile_type);
    let fences = summary
        .as_ref()
        .map(|s| Fences::with_k(s, &sorted, o.outlier_k));
    let outliers = match &fences {
        Some(f) => names
            .iter()
            .zip(&values)
            .filter(|(_, v)| f.is_outlier(**v))
            .map(|(n, v)| NamedOutlier {
                name: n.clone(),
                value_ns: *v,
                extreme: f.is_extreme(*v),
            })
            .collect(),
        None => Vec::new(),
    };
    let clustering = summary
        .as_ref()
        .and_then(|s| clustering_report(&names, &values, s, o.linkage));

    // Every operation timed by both clocks, whichever is the reference.
    let points: Vec<(String, f64, f64)> = of_form
        .iter()
        .filter_map(|r| {
            Some((
                r.name.clone(),
                r.portable_ns.as_ref()?.estimate,
                r.counter_ns.as_ref()?.estimate,
            ))
        })
        .collect();
    let xs: Vec<f64> = points.iter().map(|p| p.1).collect();
    let ys: Vec<f64> = points.iter().map(|p| p.2).collect();
    let calibration = ols(&xs, &ys, o.confidence).map(|fit| {
        let points: Vec<CalibrationPoint> = points
            .iter()
            .zip(&fit.residuals)
            .map(|((name, x, y), r)| CalibrationPoint {
                name: name.clone(),
                portable_ns: *x,
                counter_ns: *y,
                residual_ns: *r,
            })
            .collect();
        let mut by_residual: Vec<&CalibrationPoint> = points.iter().collect();
        by_residual.sort_by(|a, b| b.residual_ns.abs().total_cmp(&a.residual_ns.abs()));
        CalibrationReport {
            largest_residuals: by_residual.iter().take(5).map(|p| p.name.clone()).collect(),
            points,
            fit,
            cycles_per_tick,
        }
    });

    let modes = detect_modes(&values);
    FormReport {
        form: form.to_string(),
        reference_clock: reference,
        basis: reference.basis().into(),
        names,
        left_out,
        values_ns: values,
        summary,
        fences,
        outliers,
        clustering,
        modes,
        calibration,
    }
}

/// Shared with the Samples cell (imported benchmarks clustered by cost).
pub(crate) fn clustering_report(
    names: &[String],
    values: &[f64],
    s: &Summary,
    method: Linkage,
) -> Option<ClusteringReport> {
    let dendrogram = cluster_1d(values, method)?;
    let cuts = [
        ("min", s.min),
        ("q1", s.q1),
        ("median", s.median),
        ("mean", s.mean),
        ("q3", s.q3),
        ("max", s.max),
    ]
    .into_iter()
    .map(|(statistic, t)| {
        let labels = dendrogram.cut(t);
        let k = labels.iter().max().map_or(0, |m| m + 1);
        let mut members: Vec<ClusterRow> = (0..k)
            .map(|c| {
                let mut m: Vec<(f64, &String)> = labels
                    .iter()
                    .zip(values.iter().zip(names))
                    .filter(|(l, _)| **l == c)
                    .map(|(_, (v, n))| (*v, n))
                    .collect();
                m.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)));
                ClusterRow {
                    min_ns: m.first().map_or(f64::NAN, |x| x.0),
                    max_ns: m.last().map_or(f64::NAN, |x| x.0),
                    mean_ns: m.iter().map(|x| x.0).sum::<f64>() / m.len().max(1) as f64,
                    names: m.into_iter().map(|x| x.1.clone()).collect(),
                }
            })
            .collect();
        members.sort_by(|a, b| a.mean_ns.total_cmp(&b.mean_ns));
        CutRow {
            statistic: statistic.into(),
            granularity_ns: t,
            clusters: k,
            members,
        }
    })
    .collect();
    Some(ClusteringReport {
        method,
        dendrogram,
        cuts,
    })
}

#[cfg(test)]
mod tests {
    use super::super::CoreClock;
    use super::*;

    fn op(name: &str, form: &str, ns: f64, ticks: f64) -> OpMeasurement {
        // n = 100 copies; the 2n sequence costs 100 more ops.
        let reps = 31;
        let jitter = |i: usize| 1.0 + (i % 5) as f64 * 1e-3;
        OpMeasurement {
            name: name.into(),
            group: "integer".into(),
            form: form.into(),
            implementation: "asm".into(),
            instruction: None,
            available: true,
            unavailable_reason: None,
            portable_n_ns: (0..reps).map(|_| 50.0 + 100.0 * ns).collect(),
            portable_2n_ns: (0..reps).map(|i| 50.0 + 200.0 * ns * jitter(i)).collect(),
            counter_n_ticks: (0..reps).map(|_| 20.0 + 100.0 * ticks).collect(),
            counter_2n_ticks: (0..reps)
                .map(|i| 20.0 + 200.0 * ticks * jitter(i))
                .collect(),
        }
    }

    fn data() -> OpsData {
        // Counter at 2 GHz, core at 4 GHz: 0.5 ticks per cycle.
        let costs = [0.25, 0.25, 0.5, 0.75, 1.0, 1.0, 3.5, 4.0, 10.0];
        OpsData {
            portable_clock: "std::time::Instant".into(),
            counter_clock: Some("tsc_lfence_rdtsc".into()),
            counter_hz: Some(2e9),
            copies: 100,
            repetitions: 31,
            // Paired n / 2n chains with 40 ticks of counter reads on each: the
            // difference cancels them.
            core_clock: Some(CoreClock {
                adds: 10_000,
                ticks: vec![5_040.0; 31],
                ticks_2n: vec![10_040.0; 31],
            }),
            ops: costs
                .iter()
                .enumerate()
                .map(|(i, &c)| op(&format!("op{i}"), "latency", c, c * 2.0 * 1.1))
                .collect(),
            probes: Vec::new(),
        }
    }

    #[test]
    fn per_op_costs_cycles_and_calibration() {
        let r = ops_report(&data(), &Options::default());
        let core = r.core.as_ref().unwrap();
        assert!((core.cycles_per_tick - 2.0).abs() < 1e-12);
        assert!((core.core_hz.unwrap() - 4e9).abs() < 1e-3);
        let op4 = &r.ops[4];
        let p = op4.portable_ns.as_ref().unwrap();
        // Median jitter 1.002 on the 2n run: (2·1.002 − 1) = 1.004 ns per op.
        assert!((p.estimate - 1.004).abs() < 1e-9, "{p:?}");
        assert!(p.lo <= p.estimate && p.estimate <= p.hi);
        // 2.2 ticks per op at 0.5 ticks/cycle = 4.4 cycles; 1.1 ns at 2 GHz.
        let cyc = op4.core_cycles.as_ref().unwrap().estimate;
        assert!((cyc - 4.4 * 1.004).abs() < 1e-9, "{cyc}");
        let f = &r.forms[0];
        assert_eq!(f.names.len(), 9);
        let cal = f.calibration.as_ref().unwrap();
        assert!((cal.fit.slope - 1.1).abs() < 1e-9, "{:?}", cal.fit);
        assert!(cal.fit.r > 0.999);
        assert_eq!(f.outliers.len(), 1);
        assert_eq!(f.outliers[0].name, "op8");
    }

    fn counter_options() -> Options {
        Options {
            reference_clock: ReferenceClock::Counter,
            ..Options::default()
        }
    }

    fn estimates(r: &OpsReport, clock: ReferenceClock) -> Vec<f64> {
        r.ops
            .iter()
            .filter_map(|op| clock.of(op).map(|c| c.estimate))
            .collect()
    }

    #[test]
    fn the_counter_as_reference_clock() {
        let p = ops_report(&data(), &Options::default());
        let r = ops_report(&data(), &counter_options());
        assert_eq!(r.reference_clock, ReferenceClock::Counter);
        assert!(r.basis_fallback.is_none());
        let f = &r.forms[0];
        assert_eq!(f.reference_clock, ReferenceClock::Counter);
        assert!(f.basis.starts_with("cycle-counter ns"), "{}", f.basis);
        // The form's values are the counter's medians, 1.1× the portable ones.
        let counter = estimates(&r, ReferenceClock::Counter);
        assert_eq!(f.values_ns, counter);
        assert_eq!(
            p.forms[0].values_ns,
            estimates(&p, ReferenceClock::Portable)
        );
        for (c, q) in f.values_ns.iter().zip(&p.forms[0].values_ns) {
            assert!((c / q - 1.1).abs() < 1e-9, "{c} {q}");
        }
        // Summary, fences, outliers and cuts are of those values.
        let mut sorted = counter.clone();
        sorted.sort_by(f64::total_cmp);
        let s = Summary::of_sorted(&sorted, Options::default().quantile_type).unwrap();
        let fs = f.summary.as_ref().unwrap();
        assert_eq!(
            (fs.min, fs.median, fs.mean, fs.max),
            (s.min, s.median, s.mean, s.max)
        );
        assert!((fs.median - 1.1 * p.forms[0].summary.as_ref().unwrap().median).abs() < 1e-9);
        assert_eq!(f.outliers.len(), 1);
        assert_eq!(f.outliers[0].value_ns, counter[8]);
        let cuts = &f.clustering.as_ref().unwrap().cuts;
        assert_eq!(cuts[2].granularity_ns, fs.median);
        // The calibration does not follow the reference: still counter on
        // portable, the same fit as with the default.
        let (a, b) = (
            &f.calibration.as_ref().unwrap().fit,
            &p.forms[0].calibration.as_ref().unwrap().fit,
        );
        assert_eq!((a.slope, a.intercept, a.n), (b.slope, b.intercept, b.n));
        // The ops table is the same either way.
        assert_eq!(
            estimates(&r, ReferenceClock::Portable),
            estimates(&p, ReferenceClock::Portable)
        );
    }

    #[test]
    fn no_counter_falls_back_to_the_portable_clock_and_says_so() {
        let mut d = data();
        d.counter_clock = None;
        d.counter_hz = None;
        d.core_clock = None;
        for op in &mut d.ops {
            op.counter_n_ticks.clear();
            op.counter_2n_ticks.clear();
        }
        let r = ops_report(&d, &counter_options());
        assert_eq!(r.reference_clock, ReferenceClock::Portable);
        let why = r.basis_fallback.as_deref().unwrap();
        assert!(why.contains("no cycle-counter times"), "{why}");
        let f = &r.forms[0];
        assert_eq!(f.reference_clock, ReferenceClock::Portable);
        assert_eq!(f.values_ns, estimates(&r, ReferenceClock::Portable));
        assert_eq!(f.names.len(), 9);
        assert!(f.calibration.is_none());
        // Asked for the portable clock, there is nothing to fall back from.
        assert!(ops_report(&d, &Options::default()).basis_fallback.is_none());

        // A counter without a frequency: ticks but no ns.
        let mut d = data();
        d.counter_hz = None;
        let r = ops_report(&d, &counter_options());
        assert_eq!(r.reference_clock, ReferenceClock::Portable);
        assert!(r.basis_fallback.unwrap().contains("frequency"));
    }

    #[test]
    fn an_op_without_a_counter_time_is_left_out_and_named() {
        let mut d = data();
        d.ops[3].counter_n_ticks.clear();
        d.ops[3].counter_2n_ticks.clear();
        let r = ops_report(&d, &counter_options());
        assert_eq!(r.reference_clock, ReferenceClock::Counter);
        let f = &r.forms[0];
        assert_eq!(f.names.len(), 8);
        assert!(!f.names.contains(&"op3".to_string()));
        assert_eq!(f.left_out, ["op3"]);
        assert_eq!(f.summary.as_ref().unwrap().n, 8);
        assert!(ops_report(&d, &Options::default()).forms[0]
            .left_out
            .is_empty());
    }

    #[test]
    fn reference_clock_values_are_checked() {
        let o: Options = serde_json::from_str(r#"{"reference_clock": "counter"}"#).unwrap();
        assert_eq!(o.reference_clock, ReferenceClock::Counter);
        assert!(o.validate().is_ok());
        let o: Options = serde_json::from_str("{}").unwrap();
        assert_eq!(o.reference_clock, ReferenceClock::Portable);
        assert_eq!(
            serde_json::to_value(Options::default()).unwrap()["reference_clock"],
            "portable"
        );
        let e = serde_json::from_str::<Options>(r#"{"reference_clock": "wall"}"#).unwrap_err();
        let e = e.to_string();
        assert!(e.contains("unknown reference clock \"wall\""), "{e}");
        assert!(e.contains("\"portable\" or \"counter\""), "{e}");
        assert!(serde_json::from_str::<Options>(r#"{"reference_clock": 1}"#).is_err());
        assert_eq!("counter".parse(), Ok(ReferenceClock::Counter));
        assert!("Counter".parse::<ReferenceClock>().is_err());
    }

    #[test]
    fn clustering_cuts_at_the_six_statistics() {
        let r = ops_report(&data(), &Options::default());
        let c = r.forms[0].clustering.as_ref().unwrap();
        let stats: Vec<&str> = c.cuts.iter().map(|c| c.statistic.as_str()).collect();
        assert_eq!(stats, ["min", "q1", "median", "mean", "q3", "max"]);
        let max = c.cuts.last().unwrap();
        assert_eq!(max.clusters, 1);
        // Cluster counts never grow as the granularity grows.
        let mut by_t: Vec<&CutRow> = c.cuts.iter().collect();
        by_t.sort_by(|a, b| a.granularity_ns.total_cmp(&b.granularity_ns));
        assert!(by_t.windows(2).all(|w| w[0].clusters >= w[1].clusters));
        // Every member appears once per cut, clusters ordered by cost.
        for cut in &c.cuts {
            let n: usize = cut.members.iter().map(|m| m.names.len()).sum();
            assert_eq!(n, 9);
            assert!(cut.members.windows(2).all(|w| w[0].mean_ns <= w[1].mean_ns));
        }
    }
}
