//! The Bottlenecks cell (MTOOL): each region's time
//! predicted from its operation counts × per-operation costs as if every
//! access hit L1, against the measured time; overhead =
//! (measured − predicted) / predicted with a bootstrap CI; regions sorted
//! by overhead; the share of measured time the predictions explain; and
//! the jump in overhead where a kernel's working set crosses a cache level.
//!
//! The prediction for an out-of-order core: operations of one class share
//! that class's execution resources, classes run side by side, so the
//! region takes as long as its busiest class (Σ count × throughput cost
//! over the class: loads and stores; floating adds, multiplies and FMAs;
//! integer operations and loop branches) — or as long as its dependency
//! chain (Σ chain count × latency cost), whichever is longer. The seed's
//! in-order sum (every operation one after another) is reported beside it
//! as `serial_ns`, an upper bound of the compute time.
//!
//! Loads and stores are one class: they share the L1's ports and the
//! store buffer. Kept apart (the first version), an L1-resident triad
//! measured 1.7× its prediction on the reference VM; together the L1
//! cases of the throughput kernels come within tens of percent.

use std::collections::BTreeMap;

use super::{BottleneckCase, BottleneckData};
use crate::format::NamedSize;
use crate::options::Options;
use crate::stats::bootstrap::{
    index, interval_from, median, median_ci, rng, BootstrapCi, BootstrapOptions,
};
use crate::suites::ops::OpMeasurement;
use serde::Serialize;

/// Resource classes of the throughput bound, with their operations.
pub const CLASSES: &[(&str, &[&str])] = &[
    ("memory", &["load_u64", "store_u64"]),
    ("float", &["add_f64", "mul_f64", "fma_f64"]),
    ("integer", &["add_i64", "loop_branch"]),
];

#[derive(Debug, Clone, Serialize)]
pub struct BottleneckReport {
    pub clock: String,
    pub unit: String,
    pub ns_per_unit: f64,
    pub tick_ns: f64,
    /// Median cost of one clock read.
    pub read_cost_ns: f64,
    pub min_tick_multiple: f64,
    pub min_read_multiple: f64,
    pub costs: Vec<CostRow>,
    pub caches: Vec<NamedSize>,
    pub kernels: Vec<KernelRow>,
    pub cases: Vec<CaseRow>,
    /// Indices into `cases` of the timable, predicted regions, largest
    /// overhead first (the MTOOL histogram's order).
    pub by_overhead: Vec<usize>,
    pub explained: Explained,
}

#[derive(Debug, Clone, Serialize)]
pub struct CostRow {
    pub name: String,
    pub form: String,
    pub instruction: Option<String>,
    pub available: bool,
    /// ns per operation: median over repetitions of (t(2n) − t(n)) / n.
    pub ns: Option<BootstrapCi>,
}

#[derive(Debug, Clone, Serialize)]
pub struct KernelRow {
    pub name: String,
    pub description: String,
    pub model: String,
    pub implementation: String,
    pub max_working_set_bytes: u64,
    pub size_note: Option<String>,
    /// Overhead before and after each cache boundary the sizes cross.
    pub crossings: Vec<Crossing>,
    /// Σ predicted / Σ measured over this kernel's timable regions.
    pub explained_share: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Crossing {
    /// Cache level of the last size inside (`L1d`, `L2`, `L3`).
    pub from_level: String,
    /// Level of the next size (`L2`, …, `memory`).
    pub to_level: String,
    pub from_bytes: u64,
    pub to_bytes: u64,
    pub overhead_before: f64,
    pub overhead_after: f64,
    /// overhead_after − overhead_before.
    pub jump: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CaseRow {
    pub kernel: String,
    pub working_set_bytes: u64,
    pub shape: String,
    pub passes: u64,
    /// Smallest cache the working set fits in (`L1d`, `L2`, `L3`), or
    /// `memory`; `unknown` without cache sizes.
    pub level: String,
    pub timable: bool,
    pub untimable_reason: Option<String>,
    pub repetitions: usize,
    /// Median region time with its bootstrap CI.
    pub measured_ns: Option<BootstrapCi>,
    /// The L1 prediction, the class (or `chain`) that bounds it, and every
    /// class's bound.
    pub predicted_ns: Option<f64>,
    pub bound: Option<String>,
    pub bounds_ns: BTreeMap<String, f64>,
    /// The in-order sum of every operation's cost.
    pub serial_ns: Option<f64>,
    /// (measured − predicted) / predicted, CI from resampling both the
    /// region's repetitions and the cost sequences' repetitions.
    pub overhead: Option<BootstrapCi>,
    /// measured − predicted (median).
    pub memory_ns: Option<f64>,
    /// Loads + stores in the region.
    pub memory_ops: u64,
    /// Operations the prediction needs but the file has no cost for.
    pub missing_costs: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Explained {
    /// Timable regions with a prediction.
    pub regions: usize,
    pub excluded: usize,
    pub measured_ns: f64,
    pub predicted_ns: f64,
    /// predicted / measured: the share of time the L1 model explains.
    pub explained_share: Option<f64>,
    /// measured − predicted and its share: what the regions' compute does
    /// not explain (memory overhead).
    pub unexplained_ns: f64,
    pub unexplained_share: Option<f64>,
    /// Share of all memory operations that sit in those regions.
    pub memory_ops_covered: Option<f64>,
}

/// Per-op cost samples, in `unit`: (t(2n) − t(n)) / n per repetition.
fn per_op(m: &OpMeasurement, unit: &str, copies: u32) -> Vec<f64> {
    let (a, b) = if unit == "counter_ticks" {
        (&m.counter_n_ticks, &m.counter_2n_ticks)
    } else {
        (&m.portable_n_ns, &m.portable_2n_ns)
    };
    crate::stats::differential::per_copy(a, b, copies.into())
}

/// The cache level a working set fits in.
pub fn level_of(bytes: u64, caches: &[NamedSize]) -> String {
    if caches.is_empty() {
        return "unknown".into();
    }
    caches
        .iter()
        .find(|c| bytes <= c.bytes)
        .map_or_else(|| "memory".to_string(), |c| c.name.clone())
}

/// Costs in ns per op: `(name, form)` → value.
pub type CostTable = BTreeMap<(String, String), f64>;

/// The L1 prediction of one region: its time, the class (or `chain`) that
/// bounds it, every class's bound, and the in-order sum.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    pub predicted: f64,
    pub bound: String,
    pub bounds: BTreeMap<String, f64>,
    pub serial: f64,
}

/// The L1 prediction of one region, or the operations without a cost.
pub fn predict(c: &BottleneckCase, costs: &CostTable) -> Result<Prediction, Vec<String>> {
    let mut missing = Vec::new();
    for op in c.counts.keys() {
        if !CLASSES.iter().any(|(_, ops)| ops.contains(&op.as_str())) {
            missing.push(format!("{op} (no resource class)"));
        }
    }
    let mut bounds = BTreeMap::new();
    let mut serial = 0.0;
    let mut cost = |name: &str, form: &str| -> f64 {
        match costs.get(&(name.to_string(), form.to_string())) {
            Some(v) => *v,
            None => {
                let m = format!("{name} ({form})");
                if !missing.contains(&m) {
                    missing.push(m);
                }
                f64::NAN
            }
        }
    };
    for (class, ops) in CLASSES {
        let mut t = 0.0;
        for op in *ops {
            if let Some(n) = c.counts.get(*op) {
                t += *n as f64 * cost(op, "throughput");
            }
        }
        bounds.insert((*class).to_string(), t);
    }
    let mut chain = 0.0;
    for (op, n) in &c.chain {
        chain += *n as f64 * cost(op, "latency");
    }
    for (op, n) in &c.counts {
        let on_chain = c.chain.get(op).copied().unwrap_or(0).min(*n);
        serial += (n - on_chain) as f64 * cost(op, "throughput");
        if on_chain > 0 {
            serial += on_chain as f64 * cost(op, "latency");
        }
    }
    if !c.chain.is_empty() {
        bounds.insert("chain".to_string(), chain);
    }
    if !missing.is_empty() {
        return Err(missing);
    }
    let (bound, predicted) = bounds
        .iter()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(k, v)| (k.clone(), *v))
        .unwrap_or_default();
    Ok(Prediction {
        predicted,
        bound,
        bounds,
        serial,
    })
}

/// (measured − predicted) / predicted.
pub fn overhead(measured: f64, predicted: f64) -> f64 {
    (measured - predicted) / predicted
}

/// For each cache boundary a kernel's sizes cross: the overhead of the
/// last size inside and the first size beyond. `points` are (bytes,
/// level, overhead) sorted by bytes.
pub fn crossings(points: &[(u64, String, f64)]) -> Vec<Crossing> {
    points
        .windows(2)
        .filter(|w| w[0].1 != w[1].1)
        .map(|w| Crossing {
            from_level: w[0].1.clone(),
            to_level: w[1].1.clone(),
            from_bytes: w[0].0,
            to_bytes: w[1].0,
            overhead_before: w[0].2,
            overhead_after: w[1].2,
            jump: w[1].2 - w[0].2,
        })
        .collect()
}

pub fn bottleneck_report(d: &BottleneckData, o: &Options) -> BottleneckReport {
    let ns_per_unit = match (d.unit.as_str(), d.counter_hz) {
        ("counter_ticks", Some(hz)) if hz > 0.0 => 1e9 / hz,
        _ => 1.0,
    };
    let (samples, costs) = cost_rows(d, ns_per_unit, o);
    let table: CostTable = costs
        .iter()
        .filter_map(|c| {
            c.ns.as_ref()
                .map(|ci| ((c.name.clone(), c.form.clone()), ci.estimate))
        })
        .collect();
    let b = &o.bootstrap;
    let replicates = cost_replicates(&costs, &samples, b);

    let mut rows: Vec<CaseRow> = Vec::with_capacity(d.cases.len());
    let mut total_mem_ops: u64 = 0;
    let mut covered_mem_ops: u64 = 0;
    for c in &d.cases {
        let row = case_row(c, &d.cache_bytes, &table, &replicates, ns_per_unit, b);
        total_mem_ops += row.memory_ops;
        if c.timable && row.overhead.is_some() {
            covered_mem_ops += row.memory_ops;
        }
        rows.push(row);
    }

    let counted = |r: &&CaseRow| r.timable && r.overhead.is_some();
    let mut by_overhead: Vec<usize> = (0..rows.len()).filter(|&i| counted(&&rows[i])).collect();
    by_overhead.sort_by(|&a, &b| {
        let oa = rows[a].overhead.as_ref().map_or(f64::NAN, |c| c.estimate);
        let ob = rows[b].overhead.as_ref().map_or(f64::NAN, |c| c.estimate);
        ob.total_cmp(&oa)
    });
    let sums = |filter: &dyn Fn(&CaseRow) -> bool| -> (f64, f64, usize) {
        rows.iter()
            .filter(|r| counted(r) && filter(r))
            .fold((0.0, 0.0, 0), |(m, p, n), r| {
                (
                    m + r.measured_ns.as_ref().map_or(0.0, |c| c.estimate),
                    p + r.predicted_ns.unwrap_or(0.0),
                    n + 1,
                )
            })
    };
    let (m_all, p_all, n_all) = sums(&|_| true);
    let share = |p: f64, m: f64| (m > 0.0).then(|| p / m);
    let explained = Explained {
        regions: n_all,
        excluded: rows.len() - n_all,
        measured_ns: m_all,
        predicted_ns: p_all,
        explained_share: share(p_all, m_all),
        unexplained_ns: m_all - p_all,
        unexplained_share: share(m_all - p_all, m_all),
        memory_ops_covered: (total_mem_ops > 0)
            .then(|| covered_mem_ops as f64 / total_mem_ops as f64),
    };

    let kernels = d
        .kernels
        .iter()
        .map(|k| {
            let mut points: Vec<(u64, String, f64)> = rows
                .iter()
                .filter(|r| r.kernel == k.name && counted(r))
                .filter_map(|r| {
                    r.overhead
                        .as_ref()
                        .map(|o| (r.working_set_bytes, r.level.clone(), o.estimate))
                })
                .collect();
            points.sort_by_key(|p| p.0);
            let (m, p, _) = sums(&|r: &CaseRow| r.kernel == k.name);
            KernelRow {
                name: k.name.clone(),
                description: k.description.clone(),
                model: k.model.clone(),
                implementation: k.implementation.clone(),
                max_working_set_bytes: k.max_working_set_bytes,
                size_note: k.size_note.clone(),
                crossings: crossings(&points),
                explained_share: share(p, m),
            }
        })
        .collect();

    BottleneckReport {
        clock: d.clock.clone(),
        unit: d.unit.clone(),
        ns_per_unit,
        tick_ns: d.tick * ns_per_unit,
        read_cost_ns: median(&d.read_cost) * ns_per_unit,
        min_tick_multiple: d.min_tick_multiple,
        min_read_multiple: d.min_read_multiple,
        costs,
        caches: d.cache_bytes.clone(),
        kernels,
        cases: rows,
        by_overhead,
        explained,
    }
}

/// The cost sequences' samples per operation (ns), and each one's median
/// with its CI.
fn cost_rows(d: &BottleneckData, ns_per_unit: f64, o: &Options) -> (Vec<Vec<f64>>, Vec<CostRow>) {
    let samples: Vec<Vec<f64>> = d
        .costs
        .iter()
        .map(|m| {
            if m.available {
                per_op(m, &d.unit, d.copies)
                    .into_iter()
                    .map(|v| v * ns_per_unit)
                    .collect()
            } else {
                Vec::new()
            }
        })
        .collect();
    let costs: Vec<CostRow> = d
        .costs
        .iter()
        .zip(&samples)
        .map(|(m, s)| CostRow {
            name: m.name.clone(),
            form: m.form.clone(),
            instruction: m.instruction.clone(),
            available: m.available,
            ns: median_ci(s, &o.bootstrap),
        })
        .collect();
    (samples, costs)
}

/// Cost replicates shared by every region (replicate r uses the same
/// resampled costs everywhere), so the regions' CIs stay coherent.
fn cost_replicates(
    costs: &[CostRow],
    samples: &[Vec<f64>],
    b: &BootstrapOptions,
) -> Vec<CostTable> {
    let mut r = rng(b.seed);
    (0..b.resamples)
        .map(|_| {
            costs
                .iter()
                .zip(samples)
                .filter(|(_, s)| !s.is_empty())
                .map(|(c, s)| {
                    let buf: Vec<f64> = (0..s.len()).map(|_| s[index(&mut r, s.len())]).collect();
                    ((c.name.clone(), c.form.clone()), median(&buf))
                })
                .collect()
        })
        .collect()
}

/// A region's row: its measured time, its prediction from the costs
/// (`table`) and, when both exist, its overhead with a CI over `replicates`.
fn case_row(
    c: &BottleneckCase,
    caches: &[NamedSize],
    table: &CostTable,
    replicates: &[CostTable],
    ns_per_unit: f64,
    b: &BootstrapOptions,
) -> CaseRow {
    let times: Vec<f64> = c.times.iter().map(|t| t * ns_per_unit).collect();
    let measured = median_ci(&times, b);
    let mem_ops = c.counts.get("load_u64").copied().unwrap_or(0)
        + c.counts.get("store_u64").copied().unwrap_or(0);
    let mut row = CaseRow {
        kernel: c.kernel.clone(),
        working_set_bytes: c.working_set_bytes,
        shape: c.shape.clone(),
        passes: c.passes,
        level: level_of(c.working_set_bytes, caches),
        timable: c.timable,
        untimable_reason: c.untimable_reason.clone(),
        repetitions: c.times.len(),
        measured_ns: measured.clone(),
        predicted_ns: None,
        bound: None,
        bounds_ns: BTreeMap::new(),
        serial_ns: None,
        overhead: None,
        memory_ns: None,
        memory_ops: mem_ops,
        missing_costs: Vec::new(),
    };
    match predict(c, table) {
        Err(m) => row.missing_costs = m,
        Ok(Prediction {
            predicted: p,
            bound,
            bounds,
            serial,
        }) => {
            row.predicted_ns = Some(p);
            row.bound = Some(bound);
            row.bounds_ns = bounds;
            row.serial_ns = Some(serial);
            if let Some(m) = &measured {
                if p > 0.0 {
                    row.memory_ns = Some(m.estimate - p);
                    let est = overhead(m.estimate, p);
                    let mut reps = Vec::with_capacity(replicates.len());
                    let mut buf = vec![0.0; times.len()];
                    let mut rr = rng(b.seed ^ 0x6f76_6572);
                    for rep in replicates {
                        for x in buf.iter_mut() {
                            *x = times[index(&mut rr, times.len())];
                        }
                        if let Ok(pp) = predict(c, rep) {
                            reps.push(overhead(median(&buf), pp.predicted));
                        }
                    }
                    row.overhead = interval_from(est, reps, b);
                }
            }
        }
    }
    row
}

#[cfg(test)]
mod tests {
    use super::super::BottleneckKernel;
    use super::*;

    fn op(name: &str, form: &str, per_op_ticks: f64) -> OpMeasurement {
        // n = 10 copies: t(n) = 100, t(2n) = 100 + 10·cost.
        OpMeasurement {
            name: name.into(),
            group: "g".into(),
            form: form.into(),
            implementation: "asm".into(),
            instruction: None,
            available: true,
            unavailable_reason: None,
            portable_n_ns: vec![],
            portable_2n_ns: vec![],
            counter_n_ticks: vec![100.0; 5],
            counter_2n_ticks: vec![100.0 + 10.0 * per_op_ticks; 5],
        }
    }

    fn case(
        kernel: &str,
        ws: u64,
        counts: &[(&str, u64)],
        chain: &[(&str, u64)],
        t: f64,
    ) -> BottleneckCase {
        BottleneckCase {
            kernel: kernel.into(),
            working_set_bytes: ws,
            shape: String::new(),
            passes: 1,
            counts: counts.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            chain: chain.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            times: vec![t, t, t * 1.01, t * 0.99, t],
            timable: true,
            untimable_reason: None,
        }
    }

    fn data(cases: Vec<BottleneckCase>) -> BottleneckData {
        BottleneckData {
            clock: "tsc".into(),
            unit: "counter_ticks".into(),
            // 2 GHz: 0.5 ns per tick.
            counter_hz: Some(2e9),
            tick: 1.0,
            read_cost: vec![40.0, 42.0, 41.0],
            min_tick_multiple: 1000.0,
            min_read_multiple: 1000.0,
            copies: 10,
            costs: vec![
                op("load_u64", "throughput", 0.5),
                op("load_u64", "latency", 5.0),
                op("store_u64", "throughput", 1.0),
                op("fma_f64", "throughput", 0.5),
                op("add_i64", "throughput", 0.25),
                op("loop_branch", "throughput", 1.0),
            ],
            cache_bytes: vec![
                NamedSize {
                    name: "L1d".into(),
                    bytes: 32 << 10,
                },
                NamedSize {
                    name: "L2".into(),
                    bytes: 1 << 20,
                },
            ],
            kernels: vec![BottleneckKernel {
                name: "chase".into(),
                description: String::new(),
                model: "latency".into(),
                implementation: "asm".into(),
                max_working_set_bytes: 4 << 20,
                size_note: None,
            }],
            cases,
        }
    }

    fn opts() -> Options {
        let mut o = Options::default();
        o.bootstrap.resamples = 200;
        o
    }

    #[test]
    fn prediction_is_the_busiest_class_or_the_chain() {
        // Triad-like: 2000 loads (1000 ticks) + 1000 stores (1000) share the
        // memory class (2000), 1000 FMA (500), 250 adds + 250 branches
        // (62.5 + 250); the serial sum is 2812.5 ticks.
        let c = case(
            "triad",
            4096,
            &[
                ("load_u64", 2000),
                ("store_u64", 1000),
                ("fma_f64", 1000),
                ("add_i64", 250),
                ("loop_branch", 250),
            ],
            &[],
            3000.0,
        );
        let t: CostTable = [
            (("load_u64", "throughput"), 0.5),
            (("store_u64", "throughput"), 1.0),
            (("fma_f64", "throughput"), 0.5),
            (("add_i64", "throughput"), 0.25),
            (("loop_branch", "throughput"), 1.0),
        ]
        .into_iter()
        .map(|((a, b), v)| ((a.to_string(), b.to_string()), v))
        .collect();
        let Prediction {
            predicted: p,
            bound,
            bounds,
            serial,
        } = predict(&c, &t).unwrap();
        assert_eq!((p, bound.as_str()), (2000.0, "memory"));
        assert_eq!(bounds["float"], 500.0);
        assert_eq!(bounds["integer"], 312.5);
        assert_eq!(serial, 2812.5);
        // A chain of 1000 loads at latency 5 dominates.
        let c = case(
            "chase",
            4096,
            &[("load_u64", 1000)],
            &[("load_u64", 1000)],
            1.0,
        );
        let mut t2 = t.clone();
        t2.insert(("load_u64".into(), "latency".into()), 5.0);
        let x = predict(&c, &t2).unwrap();
        assert_eq!(
            (x.predicted, x.bound.as_str(), x.serial),
            (5000.0, "chain", 5000.0)
        );
        // A missing cost is named, not guessed.
        let err = predict(&c, &t).unwrap_err();
        assert_eq!(err, vec!["load_u64 (latency)".to_string()]);
    }

    #[test]
    fn overhead_levels_crossings_and_explained_share() {
        // Chase of 1000 loads at 5 ticks = 5000 ticks = 2500 ns predicted.
        // Measured: 5000 ticks in L1 (overhead 0), 15000 in L2 (2),
        // 100000 in memory (19).
        let k = |ws, t| case("chase", ws, &[("load_u64", 1000)], &[("load_u64", 1000)], t);
        let mut untimable = k(4096, 100.0);
        untimable.passes = 1;
        untimable.timable = false;
        untimable.untimable_reason = Some("short".into());
        let d = data(vec![
            untimable,
            k(4096, 5000.0),
            k(256 << 10, 15000.0),
            k(4 << 20, 100_000.0),
        ]);
        let r = bottleneck_report(&d, &opts());
        assert_eq!(r.read_cost_ns, 20.5);
        let c = &r.cases[1];
        assert_eq!(c.level, "L1d");
        assert_eq!(c.predicted_ns, Some(2500.0));
        assert_eq!(c.bound.as_deref(), Some("chain"));
        let o = c.overhead.as_ref().unwrap();
        assert!(o.estimate.abs() < 1e-12, "{o:?}");
        assert!(o.lo <= o.estimate && o.estimate <= o.hi);
        assert_eq!(r.cases[2].level, "L2");
        assert!((r.cases[2].overhead.as_ref().unwrap().estimate - 2.0).abs() < 1e-12);
        assert_eq!(r.cases[3].level, "memory");
        // Untimable regions are reported but not counted or ranked.
        assert_eq!(r.by_overhead, vec![3, 2, 1]);
        assert_eq!(r.explained.regions, 3);
        assert_eq!(r.explained.excluded, 1);
        // Σ predicted / Σ measured = 3·2500 / (2500 + 7500 + 50000).
        let share = r.explained.explained_share.unwrap();
        assert!((share - 7500.0 / 60000.0).abs() < 1e-12);
        assert!((r.explained.unexplained_ns - 52500.0).abs() < 1e-9);
        // 3 of the 4 regions' loads are covered.
        assert_eq!(r.explained.memory_ops_covered, Some(0.75));
        let x = &r.kernels[0].crossings;
        assert_eq!(x.len(), 2);
        assert_eq!(
            (x[0].from_level.as_str(), x[0].to_level.as_str()),
            ("L1d", "L2")
        );
        assert!((x[0].jump - 2.0).abs() < 1e-12);
        assert_eq!(
            (x[1].from_level.as_str(), x[1].to_level.as_str()),
            ("L2", "memory")
        );
        assert!((x[1].jump - 17.0).abs() < 1e-12);
    }

    #[test]
    fn missing_costs_leave_the_region_unpredicted() {
        let mut d = data(vec![case(
            "chase",
            4096,
            &[("load_u64", 10)],
            &[("load_u64", 10)],
            50.0,
        )]);
        d.costs.retain(|c| c.form != "latency");
        let r = bottleneck_report(&d, &opts());
        assert_eq!(r.cases[0].predicted_ns, None);
        assert_eq!(
            r.cases[0].missing_costs,
            vec!["load_u64 (latency)".to_string()]
        );
        assert!(r.by_overhead.is_empty());
        assert_eq!(r.explained.explained_share, None);
    }

    #[test]
    fn levels() {
        let c = [
            NamedSize {
                name: "L1d".into(),
                bytes: 100,
            },
            NamedSize {
                name: "L2".into(),
                bytes: 1000,
            },
        ];
        assert_eq!(level_of(100, &c), "L1d");
        assert_eq!(level_of(101, &c), "L2");
        assert_eq!(level_of(1001, &c), "memory");
        assert_eq!(level_of(1, &[]), "unknown");
    }
}
