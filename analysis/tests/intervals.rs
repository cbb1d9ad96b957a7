//! Property test: every interval the crate reports holds its own estimate.
//! Seeded generated files of every suite — small, skewed, tied and
//! outlying data — go through `analyze_bytes` and `compare_files`, and the
//! JSON each report serializes to is searched for every estimate with an
//! interval: bootstrap CIs (`{estimate, lo, hi}`: means, medians, CVs, impact
//! factors, ratios, MTOOL overheads, compare's estimates), random-effects
//! CIs (`mean` with `ci`), Bernoulli intervals, the core clock's cycles per
//! tick and trace overheads.

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use tickbook_analysis::report::{analyze_bytes, compare_files, Options};
use tickbook_analysis::stats::bootstrap::rng;

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus as Rng;

/// A positive value in one of several shapes, chosen per call of `shape`.
#[derive(Clone, Copy, Debug)]
enum Shape {
    LogNormal(f64),
    Exponential,
    /// Few distinct values: ties everywhere.
    Grid,
    /// Mostly one value, sometimes a hundred times larger.
    Outliers,
}

fn normal(r: &mut Rng) -> f64 {
    let u: f64 = r.random::<f64>().max(f64::MIN_POSITIVE);
    let v: f64 = r.random();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

fn shape(r: &mut Rng) -> Shape {
    match r.random_range(0..5) {
        0 => Shape::LogNormal(0.3),
        1 => Shape::LogNormal(1.5),
        2 => Shape::Exponential,
        3 => Shape::Grid,
        _ => Shape::Outliers,
    }
}

fn draw(r: &mut Rng, s: Shape) -> f64 {
    match s {
        Shape::LogNormal(sigma) => (sigma * normal(r)).exp(),
        Shape::Exponential => -r.random::<f64>().max(f64::MIN_POSITIVE).ln(),
        Shape::Grid => 1.0 + r.random_range(0..3) as f64,
        Shape::Outliers => {
            if r.random::<f64>() < 0.1 {
                100.0
            } else {
                1.0 + 0.01 * r.random::<f64>()
            }
        }
    }
}

/// `n` values around `scale` in shape `s`.
fn values(r: &mut Rng, n: usize, scale: f64, s: Shape) -> Vec<f64> {
    (0..n).map(|_| scale * draw(r, s)).collect()
}

/// `n` values in a random shape.
fn shaped(r: &mut Rng, n: usize, scale: f64) -> Vec<f64> {
    let s = shape(r);
    values(r, n, scale, s)
}

/// A sample of a random small size in a random shape.
fn sample(r: &mut Rng, scale: f64) -> Vec<f64> {
    let n = size(r);
    shaped(r, n, scale)
}

/// A small size, sometimes one, sometimes larger.
fn size(r: &mut Rng) -> usize {
    match r.random_range(0..6) {
        0 => 1,
        1 => 2,
        2 => 3,
        3 => r.random_range(4..9),
        4 => r.random_range(9..20),
        _ => 30,
    }
}

/// Executions with an execution effect of random size.
fn executions(r: &mut Rng, scale: f64) -> Vec<Vec<f64>> {
    let s = shape(r);
    let effect = [0.0, 0.2, 2.0][r.random_range(0..3)];
    let e = r.random_range(1..8);
    let n = size(r);
    (0..e)
        .map(|_| {
            let shift = scale * effect * draw(r, Shape::Exponential);
            values(r, n, scale, s)
                .into_iter()
                .map(|x| x + shift)
                .collect()
        })
        .collect()
}

fn samples_file(r: &mut Rng, names: &[&str]) -> Vec<u8> {
    let series: Vec<Value> = names
        .iter()
        .map(|name| {
            let ex = match r.random_range(0..4) {
                // One execution: flat samples.
                0 => vec![sample(r, 10.0)],
                // One measurement per execution.
                1 => {
                    let n = size(r) + 1;
                    let s = shape(r);
                    (0..n).map(|_| values(r, 1, 10.0, s)).collect()
                }
                _ => executions(r, 10.0),
            };
            json!({"name": name, "unit": "ms", "executions": ex})
        })
        .collect();
    serde_json::to_vec(&json!({
        "format": "tickbook", "format_version": "1.0", "kind": "samples",
        "series": series,
    }))
    .unwrap()
}

fn op(r: &mut Rng, name: &str, form: &str, cost: f64, with_portable: bool) -> Value {
    let reps = size(r) + 1;
    let s = shape(r);
    let n: Vec<f64> = values(r, reps, 100.0, s);
    let two_n: Vec<f64> = n.iter().map(|a| a + 10.0 * cost * draw(r, s)).collect();
    json!({
        "name": name, "group": "integer", "form": form, "implementation": "asm",
        "available": true,
        "portable_n_ns": if with_portable { n.clone() } else { vec![] },
        "portable_2n_ns": if with_portable { two_n.clone() } else { vec![] },
        "counter_n_ticks": n, "counter_2n_ticks": two_n,
    })
}

fn suite(name: &str, data: Value) -> Value {
    json!({
        "suite": name, "status": "complete",
        "started_at": "2025-11-21T12:00:00.000Z", "ended_at": "2025-11-21T12:00:01.000Z",
        "config": {}, "data": data,
    })
}

fn ops_data(r: &mut Rng) -> Value {
    let names = ["add_i64", "mul_i64", "div_i64", "load_u64", "store_u64"];
    let ops: Vec<Value> = names
        .iter()
        .enumerate()
        .flat_map(|(i, n)| {
            let c = 0.5 + i as f64;
            [
                op(r, n, "latency", c, true),
                op(r, n, "throughput", c / 2.0, true),
            ]
        })
        .collect();
    let adds = 1000;
    let k = size(r) + 1;
    let ticks = shaped(r, k, 1000.0);
    let ticks_2n: Vec<f64> = ticks
        .iter()
        .map(|t| t + 1000.0 * draw(r, Shape::LogNormal(0.3)))
        .collect();
    json!({
        "portable_clock": "std::time::Instant", "counter_clock": "tsc_lfence_rdtsc",
        "counter_hz": 2e9, "copies": 10, "repetitions": 5,
        "core_clock": {"adds": adds, "ticks": ticks, "ticks_2n": ticks_2n},
        "ops": ops,
    })
}

fn copy_data(r: &mut Rng) -> Value {
    let mut cases = Vec::new();
    for implementation in ["std_copy", "rep_movsb"] {
        for length in [64u64, 4096] {
            for variant in 1..=4u8 {
                let n = size(r);
                cases.push(json!({
                    "implementation": implementation, "variant": variant,
                    "same_array": false, "src_offset": 0, "dst_offset": 0,
                    "alignment": 64, "length": length, "available": true,
                    "samples_ns": shaped(r, n, length as f64 / 10.0),
                }));
            }
        }
    }
    json!({"clock": "tsc_lfence_rdtsc", "copies_per_sample": 1, "repetitions": 5, "cases": cases})
}

fn alloc_data(r: &mut Rng) -> Value {
    let mut configs = Vec::new();
    for workload in ["fft", "sor"] {
        for strategy in ["default_4k", "page_colouring", "bin_hopping"] {
            let ex = executions(r, 1000.0);
            let executions: Vec<Value> = ex
                .into_iter()
                .enumerate()
                .map(|(i, m)| {
                    json!({"order": i, "ok": true, "env_padding_bytes": 0, "measurements": m,
                           "colour_histogram": [1, 1]})
                })
                .collect();
            configs.push(json!({
                "workload": workload, "size_factor": 1.0, "cache": "L2",
                "working_set_bytes": 1 << 20, "strategy": strategy, "allocator": "system",
                "available": true, "unit": "ns", "executions": executions,
            }));
        }
    }
    json!({"executions_per_config": 5, "measurements_per_execution": 5, "schedule_seed": 1,
           "colours": 2, "configs": configs})
}

fn bottleneck_data(r: &mut Rng) -> Value {
    let costs: Vec<Value> = [
        ("load_u64", "throughput", 0.5),
        ("load_u64", "latency", 5.0),
        ("store_u64", "throughput", 1.0),
        ("fma_f64", "throughput", 0.5),
        ("add_i64", "throughput", 0.25),
        ("loop_branch", "throughput", 1.0),
    ]
    .iter()
    .map(|(n, f, c)| op(r, n, f, *c, false))
    .collect();
    let mut cases = Vec::new();
    for (i, ws) in [4096u64, 1 << 16, 1 << 22].into_iter().enumerate() {
        let k = size(r);
        let scale = 3000.0 * (i + 1) as f64;
        cases.push(json!({
            "kernel": "triad", "working_set_bytes": ws, "shape": "", "passes": 1,
            "counts": {"load_u64": 2000, "store_u64": 1000, "fma_f64": 1000,
                       "add_i64": 250, "loop_branch": 250},
            "times": shaped(r, k, scale), "timable": true,
        }));
        cases.push(json!({
            "kernel": "chase", "working_set_bytes": ws, "shape": "", "passes": 1,
            "counts": {"load_u64": 1000}, "chain": {"load_u64": 1000},
            "times": shaped(r, k, 5000.0 * (i + 1) as f64), "timable": true,
        }));
    }
    let kernel = |name: &str, model: &str| {
        json!({"name": name, "description": "", "model": model, "implementation": "asm",
               "max_working_set_bytes": 1 << 22})
    };
    json!({
        "clock": "tsc", "unit": "counter_ticks", "counter_hz": 2e9, "tick": 1.0,
        "read_cost": [40.0, 42.0, 41.0], "min_tick_multiple": 10.0, "min_read_multiple": 10.0,
        "copies": 10, "costs": costs,
        "cache_bytes": [{"name": "L1d", "bytes": 32768}, {"name": "L2", "bytes": 1048576}],
        "kernels": [kernel("triad", "throughput"), kernel("chase", "latency")],
        "cases": cases,
    })
}

fn trials(r: &mut Rng) -> Value {
    let n: u64 = [10, 100, 10_000][r.random_range(0..3)];
    let m = r.random_range(0..=n);
    json!({"n": n, "m": m, "sum_steps_ns": m as f64 * 4e6, "planned": n, "capped": false})
}

fn bernoulli_data(r: &mut Rng) -> Value {
    let events: Vec<Value> = (0..4)
        .map(|i| {
            json!({"name": format!("busy_{i}"), "target_ns": 100.0 * 10f64.powi(i),
                   "work_units": 1, "trials": trials(r),
                   "reference_ns": sample(r, 100.0 * 10f64.powi(i))})
        })
        .collect();
    json!({"clock": "CLOCK_MONOTONIC_COARSE", "tick_ns": 4e6, "reference": "tsc",
           "epsilon": 0.1, "confidence": 0.95, "budget_s": 1.0,
           "overhead": trials(r), "reference_overhead_ns": [20.0, 21.0], "events": events})
}

fn fixture(name: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name);
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// The trace fixture with its runs' wall times redrawn.
fn trace_suite(r: &mut Rng) -> Value {
    let mut t = fixture("trace-small.json")["suites"][0].clone();
    let s = shape(r);
    for w in t["data"]["workloads"].as_array_mut().unwrap() {
        for run in w["runs"].as_array_mut().unwrap() {
            run["wall_ns"] = json!(8e8 * draw(r, s));
        }
    }
    t
}

fn run_file(r: &mut Rng) -> Vec<u8> {
    let mut f = fixture("run-clocks.json");
    f["suites"] = json!([
        suite("ops", ops_data(r)),
        suite("copy", copy_data(r)),
        suite("alloc", alloc_data(r)),
        suite("bottleneck", bottleneck_data(r)),
        suite("bernoulli", bernoulli_data(r)),
        trace_suite(r),
    ]);
    serde_json::to_vec(&f).unwrap()
}

/// Every estimate with an interval in `v`; counts by the key it was under.
struct Checker {
    seen: BTreeMap<String, usize>,
    bad: Vec<String>,
}

impl Checker {
    fn check(&mut self, what: &str, path: &str, est: f64, lo: f64, hi: f64) {
        *self.seen.entry(what.to_string()).or_default() += 1;
        if !(lo <= est && est <= hi) {
            self.bad.push(format!("{path}: {est} outside [{lo}, {hi}]"));
        }
    }

    fn walk(&mut self, v: &Value, path: &str) {
        let num = |x: &Value| x.as_f64().filter(|x| x.is_finite());
        let pair = |x: &Value| Some((num(x.get(0)?)?, num(x.get(1)?)?));
        match v {
            Value::Object(o) => {
                let key = path.rsplit('.').next().unwrap_or(path);
                if let (Some(e), Some(lo), Some(hi)) = (
                    o.get("estimate").and_then(num),
                    o.get("lo").and_then(num),
                    o.get("hi").and_then(num),
                ) {
                    self.check(key, path, e, lo, hi);
                }
                // Random effects: the mean and its t interval.
                if let (Some(e), Some((lo, hi))) =
                    (o.get("mean").and_then(num), o.get("ci").and_then(pair))
                {
                    self.check("random_effects", path, e, lo, hi);
                }
                // Bernoulli: p·Tc and its interval; the event less To.
                for (e, i) in [
                    ("raw_ns", "raw_interval_ns"),
                    ("estimate_ns", "interval_ns"),
                ] {
                    if let (Some(e), Some(lo), Some(hi)) = (
                        o.get(e).and_then(num),
                        o.get(i).and_then(|i| i.get("lo")).and_then(num),
                        o.get(i).and_then(|i| i.get("hi")).and_then(num),
                    ) {
                        self.check(i, path, e, lo, hi);
                    }
                }
                for (e, i) in [
                    ("cycles_per_tick", "cycles_per_tick_ci"),
                    ("overhead", "overhead_ci"),
                ] {
                    if let (Some(e), Some((lo, hi))) =
                        (o.get(e).and_then(num), o.get(i).and_then(pair))
                    {
                        self.check(i, path, e, lo, hi);
                    }
                }
                for (k, x) in o {
                    self.walk(x, &format!("{path}.{k}"));
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    self.walk(x, &format!("{path}[{i}]"));
                }
            }
            _ => {}
        }
    }
}

#[test]
fn every_estimate_lies_inside_its_interval() {
    let mut o = Options::default();
    // Few resamples and permutations: quicker, and intervals that vary more.
    o.bootstrap.resamples = 200;
    o.impact_resamples = 40;
    o.impact.pairs = 20;
    o.impact.permutations = 20;
    let mut c = Checker {
        seen: BTreeMap::new(),
        bad: Vec::new(),
    };
    let names = ["a", "b", "c"];
    for seed in 0..30u64 {
        let mut r = rng(seed);
        o.bootstrap.seed = seed;
        let a = samples_file(&mut r, &names);
        let b = samples_file(&mut r, &names);
        let run_a = run_file(&mut r);
        let run_b = run_file(&mut r);
        for (name, bytes) in [("a.json", &a), ("run.json", &run_a)] {
            let report = analyze_bytes(name, bytes, &o);
            assert!(report.ok, "{name}: {:?}", report.error);
            c.walk(
                &serde_json::to_value(&report).unwrap(),
                &format!("seed {seed} {name}"),
            );
        }
        for (x, y) in [(&a, &b), (&run_a, &run_b)] {
            let cmp = compare_files(&[("x.json", x), ("y.json", y)], &o, true);
            c.walk(
                &serde_json::to_value(&cmp).unwrap(),
                &format!("seed {seed} compare"),
            );
        }
    }
    eprintln!("intervals checked, by key: {:?}", c.seen);
    assert!(
        c.bad.is_empty(),
        "{} outside:\n{}",
        c.bad.len(),
        c.bad.join("\n")
    );
    // Every kind of interval was met, many times.
    for key in [
        "mean_hierarchical",
        "mean_bootstrap",
        "cv_within",
        "cv_overall",
        "impact_factor",
        "impact_factor_paper",
        "random_effects",
        "ratio_to_baseline",
        "ns_per_copy",
        "portable_ns",
        "counter_ns",
        "ticks_per_cycle",
        "cycles_per_tick_ci",
        "measured_ns",
        "overhead",
        "raw_interval_ns",
        "interval_ns",
        "overhead_ci",
    ] {
        let n = c.seen.get(key).copied().unwrap_or(0);
        assert!(n >= 15, "{key}: {n} intervals (seen: {:?})", c.seen);
    }
}
