//! The Browser cell on generated data with known answers: long-run costs,
//! Bernoulli estimates and their intervals, coverage, the clocks' steps, and
//! wasm against a native `ops` file (ratios, regression, the slow ops).

use tickbook_analysis::report::{analyze_bytes, native_comparison, Options};
use tickbook_analysis::suites::browser::{
    browser_report, BrowserData, TrialChunk, WasmOp, WasmOps, WasmTrials, COVERAGE_MIN_SEQUENCE_NS,
};
use tickbook_analysis::suites::clocks::{ClockMeasurement, ClockScan, ReadCost};
use tickbook_analysis::suites::ops::{OpMeasurement, OpsData};

const COPIES: u32 = 100;
const ITERATIONS: u64 = 1_000;

/// Long runs of a loop whose pass costs `fixed + copies · cost` ns, with a
/// fixed cost per call that the difference must cancel.
fn long_runs(cost: f64, copies: u32) -> (Vec<f64>, Vec<f64>) {
    let call = 5_000.0;
    let pass = |k: u32| 3.0 + f64::from(k) * cost;
    let n: Vec<f64> = (0..7)
        .map(|i| call + i as f64 + ITERATIONS as f64 * pass(copies))
        .collect();
    let n2: Vec<f64> = (0..7)
        .map(|i| call + i as f64 + ITERATIONS as f64 * pass(2 * copies))
        .collect();
    (n, n2)
}

fn op(name: &str, native: Option<&str>, cost: f64, trials: Option<WasmTrials>) -> WasmOp {
    let (long_n_ns, long_2n_ns) = long_runs(cost, COPIES);
    WasmOp {
        name: name.into(),
        group: "integer".into(),
        form: "latency".into(),
        native: native.map(str::to_string),
        iterations: ITERATIONS,
        long_n_ns,
        long_2n_ns,
        bernoulli: trials,
    }
}

/// A clock of quantum `tick` as a scan sees it: 990 single ticks, 10 steps
/// of 3 ticks (the thread descheduled), one backward step.
fn clock(name: &str, tick: i64) -> ClockMeasurement {
    let mut steps: Vec<i64> = (0..1000)
        .map(|i| if i % 100 == 0 { 3 * tick } else { tick })
        .collect();
    steps.push(-7);
    let reads_between = vec![3; steps.len()];
    ClockMeasurement {
        name: name.into(),
        available: true,
        unavailable_reason: None,
        unit: "ns".into(),
        ns_per_unit: Some(1.0),
        nominal_resolution_ns: None,
        nominal_resolution_source: None,
        read_cost: Some(ReadCost {
            batch: 1000,
            reference: "performance.now".into(),
            samples_ns: vec![40.0, 50.0, 60.0],
        }),
        scan: Some(ClockScan {
            reads: 4 * steps.len() as u64,
            duration_ns: 1e9,
            steps,
            reads_between,
            stopped_by: Some("max_steps".into()),
        }),
    }
}

fn data(ops: Vec<WasmOp>) -> BrowserData {
    BrowserData {
        user_agent: "Mozilla/5.0 Test".into(),
        platform: "Linux x86_64".into(),
        brands: vec!["Chromium 130".into()],
        hardware_concurrency: Some(2),
        cross_origin_isolated: true,
        quick: true,
        reference: "performance.now".into(),
        clocks: vec![
            clock("performance.now", 5_000),
            clock("Date.now", 1_000_000),
        ],
        wasm: WasmOps {
            clock: "performance.now".into(),
            copies: COPIES,
            repetitions: 7,
            ops,
        },
    }
}

#[test]
fn long_runs_give_the_cost_of_one_copy() {
    let d = data(vec![
        op("i64.add", Some("add_i64"), 0.25, None),
        op("i64.div_u", None, 7.5, None),
    ]);
    let r = browser_report(&d, Vec::new(), &Options::default());
    let add = r.ops[0].per_op_ns.as_ref().expect("an estimate");
    // The per-call cost and the pass overhead cancel: 0.25 ns exactly (to
    // the rounding of sums near 10⁶ ns).
    assert!((add.estimate - 0.25).abs() < 1e-9, "{}", add.estimate);
    assert!(add.lo <= add.estimate && add.estimate <= add.hi);
    let div = r.ops[1].per_op_ns.as_ref().expect("an estimate");
    assert!((div.estimate - 7.5).abs() < 1e-9);
    // One pass of n copies: (5000 + 3·1000 + 1000·100·7.5 ns) / 1000, with
    // the median repetition's extra 3 ns.
    let seq = r.ops[1].sequence_ns.expect("a pass");
    assert!(
        (seq - (5_003.0 / 1000.0 + 3.0 + 750.0)).abs() < 1e-9,
        "{seq}"
    );
}

#[test]
fn clocks_mean_step_jitter_and_backward_steps() {
    let d = data(Vec::new());
    let r = browser_report(&d, Vec::new(), &Options::default());
    let now = &r.clocks[0];
    assert_eq!(now.name, "performance.now");
    assert_eq!(now.observed_tick_ns, Some(5_000.0));
    assert_eq!(now.modal_step_ns, Some(5_000.0));
    // Mean (990 · 5000 + 10 · 15000) / 1000 = 5100; the sample sd from the
    // deviations −100 (990 times) and 9900 (10 times).
    assert_eq!(now.mean_step_ns, Some(5_100.0));
    let sd = now.jitter_ns.expect("a jitter");
    let want = ((990.0 * 100.0f64.powi(2) + 10.0 * 9_900.0f64.powi(2)) / 999.0).sqrt();
    assert!((sd - want).abs() < 1e-6, "{sd} {want}");
    assert_eq!(now.backward_steps, 1);
    assert_eq!(now.largest_backward_ns, Some(7.0));
    assert_eq!(now.read_cost_median_ns, Some(50.0));
    // The Bernoulli tick is the quantum, not the inflated mean.
    assert_eq!(r.tick_ns, Some(5_000.0));
}

#[test]
fn bernoulli_estimate_interval_and_coverage() {
    // p(n) = 0.1, p(2n) = 0.3 with a 5 µs tick: (0.3 − 0.1) · 5000 / 100
    // = 10 ns per copy.
    let trials = |m1, m2| WasmTrials {
        planned_tick_ns: 5_000.0,
        trials_n: 10_000,
        ticks_n: m1,
        trials_2n: 10_000,
        ticks_2n: m2,
        chunks_n: Vec::new(),
        chunks_2n: Vec::new(),
    };
    let d = data(vec![
        op("i64.div_u", None, 10.0, Some(trials(1_000, 3_000))),
        // The same counts for an op whose long runs say 20 ns: not held.
        op("i64.div_s", None, 20.0, Some(trials(1_000, 3_000))),
        // A short sequence (100 copies of 0.25 ns): left out of coverage.
        op("i64.add", None, 0.25, Some(trials(1_000, 1_010))),
    ]);
    let r = browser_report(&d, Vec::new(), &Options::default());
    let b = r.ops[0].bernoulli.as_ref().expect("trials");
    assert!((b.per_op_ns - 10.0).abs() < 1e-9);
    let z = 1.959_963_984_540_054;
    let se = (0.1 * 0.9 / 1e4 + 0.3 * 0.7 / 1e4f64).sqrt() * 50.0;
    assert!(
        (b.lo - (10.0 - z * se)).abs() < 1e-6 && (b.hi - (10.0 + z * se)).abs() < 1e-6,
        "{b:?}"
    );
    assert_eq!(b.covers_reference, Some(true));
    assert_eq!(
        r.ops[1].bernoulli.as_ref().and_then(|b| b.covers_reference),
        Some(false)
    );
    assert!(r.ops[2]
        .sequence_ns
        .is_some_and(|s| s < COVERAGE_MIN_SEQUENCE_NS));
    let c = r.coverage.expect("coverage");
    assert_eq!((c.ops, c.covered), (2, 1));
    assert_eq!(c.share, 0.5);
    // No chunks in the file: the untimed long runs are the reference.
    assert!(!c.wall_reference);
    assert_eq!(b.wall_per_op_ns, None);
    assert_eq!(c.covered_untimed, 1);
    assert_eq!(
        b.reference_ns,
        Some(r.ops[0].per_op_ns.as_ref().expect("long runs").estimate)
    );
}

#[test]
fn trials_are_held_to_their_own_wall_time() {
    // Reading the clock between passes makes a copy cost 10 ns where back
    // to back it costs 20 (as calls did in Chromium): the trials' chunks,
    // long runs of the timed passes, take 1100 ns a trial for n copies and
    // 2100 for 2n, 10 ns a copy; their ticks say 10 too (p 0.1 and 0.3 of
    // a 5 µs tick). The interval is held to the 10, not to the untimed 20.
    let chunk = |ticks, elapsed_ns| TrialChunk {
        trials: 1_000,
        ticks,
        elapsed_ns,
    };
    // One chunk of 2n paused 0.84 ms between passes (its ticks as usual,
    // 1.4 times the others' time: not set aside): its time is left out of
    // the wall time with the fastest chunk's (a mean of all would say
    // 10.84 ns).
    let mut chunks_2n = vec![chunk(300, 2.1e6); 10];
    chunks_2n[3].elapsed_ns = 2.94e6;
    let trials = WasmTrials {
        planned_tick_ns: 5_000.0,
        trials_n: 10_000,
        ticks_n: 1_000,
        trials_2n: 10_000,
        ticks_2n: 3_000,
        chunks_n: vec![chunk(100, 1.1e6); 10],
        chunks_2n,
    };
    let r = browser_report(
        &data(vec![op("call", None, 20.0, Some(trials))]),
        Vec::new(),
        &Options::default(),
    );
    let o = &r.ops[0];
    assert!((o.per_op_ns.as_ref().expect("untimed").estimate - 20.0).abs() < 1e-9);
    let b = o.bernoulli.as_ref().expect("trials");
    assert!((b.per_op_ns - 10.0).abs() < 1e-9);
    let wall = b.wall_per_op_ns.expect("from the chunks");
    assert!((wall - 10.0).abs() < 1e-9, "{wall}");
    assert_eq!(b.reference_ns, Some(wall));
    assert_eq!(
        (b.covers_reference, b.covers_untimed),
        (Some(true), Some(false))
    );
    let c = r.coverage.expect("coverage");
    assert!(c.wall_reference);
    assert_eq!((c.ops, c.covered, c.covered_untimed), (1, 1, 0));
    assert_eq!(b.set_aside_2n, 0);
}

fn native_op(name: &str, cost: f64) -> OpMeasurement {
    let copies = 1000.0;
    OpMeasurement {
        name: name.into(),
        group: "integer".into(),
        form: "latency".into(),
        implementation: "asm".into(),
        instruction: None,
        available: true,
        unavailable_reason: None,
        portable_n_ns: vec![100.0 + copies * cost; 5],
        portable_2n_ns: vec![100.0 + 2.0 * copies * cost; 5],
        counter_n_ticks: Vec::new(),
        counter_2n_ticks: Vec::new(),
    }
}

#[test]
fn wasm_against_native() {
    // wasm = 2 × native, except div_s at 10 × (the engine doing badly).
    let d = data(vec![
        op("i64.add", Some("add_i64"), 0.5, None),
        op("i64.mul", Some("mul_i64"), 2.0, None),
        op("i64.div_u", Some("div_u64"), 20.0, None),
        op("i64.div_s", Some("div_i64"), 100.0, None),
        op("call", None, 1.0, None),
        op("i64.rem_u", Some("rem_u64"), 3.0, None),
    ]);
    let native = OpsData {
        portable_clock: "std::time::Instant".into(),
        counter_clock: None,
        counter_hz: None,
        copies: 1000,
        repetitions: 5,
        core_clock: None,
        ops: vec![
            native_op("add_i64", 0.25),
            native_op("mul_i64", 1.0),
            native_op("div_u64", 10.0),
            native_op("div_i64", 10.0),
        ],
        probes: Vec::new(),
    };
    let c = native_comparison(&d, &native, &Options::default());
    assert_eq!(c.native_clock, "portable");
    let names: Vec<&str> = c.pairs.iter().map(|p| p.wasm.as_str()).collect();
    // call has no native counterpart and rem_u64 is not in the file.
    assert_eq!(names, ["i64.add", "i64.mul", "i64.div_u", "i64.div_s"]);
    for p in &c.pairs[..3] {
        assert!((p.ratio - 2.0).abs() < 1e-9, "{p:?}");
    }
    assert!((c.pairs[3].ratio - 10.0).abs() < 1e-9);
    // Geometric mean of 2, 2, 2, 10 = 2 · 5^¼.
    let g = c.geometric_mean_ratio.expect("a mean");
    assert!((g - 2.0 * 5f64.powf(0.25)).abs() < 1e-9);
    assert_eq!(c.slow, ["i64.div_s (latency)"]);
    let fit = c.fit.expect("a fit");
    let x = [0.25, 1.0, 10.0, 10.0];
    let y = [0.5, 2.0, 20.0, 100.0];
    let r = tickbook_analysis::stats::regression::pearson(&x, &y).expect("r");
    assert!((fit.r - r).abs() < 1e-12);
}

#[test]
fn a_browser_file_reads_and_analyses() {
    let d = data(vec![op("i64.add", Some("add_i64"), 0.25, None)]);
    let file = serde_json::json!({
        "format": "tickbook", "format_version": "1.1", "kind": "run",
        "tool": {"name": "tickbook-browser-measure", "version": "0.1.0"},
        "started_at": "2026-01-01T00:00:00Z", "ended_at": "2026-01-01T00:01:00Z",
        "status": "complete", "command_line": [],
        "host": {"hostname": "Chromium 130", "os": "Linux x86_64", "arch": "wasm32"},
        "suites": [{"suite": "browser", "status": "complete", "started_at": "2026-01-01T00:00:00Z",
                    "ended_at": "2026-01-01T00:01:00Z", "data": d}]
    });
    let report = analyze_bytes("b.json", file.to_string().as_bytes(), &Options::default());
    assert!(report.ok, "{:?}", report.error);
    let b = report.browser.expect("the cell");
    assert!(b.cross_origin_isolated);
    assert_eq!(b.ops.len(), 1);

    // Unpaired long runs are refused by the checks.
    let mut bad = file.clone();
    bad["suites"][0]["data"]["wasm"]["ops"][0]["long_2n_ns"] = serde_json::json!([1.0]);
    let report = analyze_bytes("bad.json", bad.to_string().as_bytes(), &Options::default());
    assert!(!report.ok);
    let e = report.error.expect("an error");
    assert!(e.message.contains("paired"), "{}", e.message);
}

#[test]
fn disturbed_chunks_are_set_aside() {
    // Nine chunks of 1000 trials at 1 µs a trial with 100 ticks each, and
    // one descheduled for 4 ms that saw 1000 ticks (every trial): it is
    // 5× slower per trial and is left out, so p(n) = 0.1 as undisturbed.
    let chunk = |ticks, elapsed_ns| TrialChunk {
        trials: 1_000,
        ticks,
        elapsed_ns,
    };
    let mut chunks_n = vec![chunk(100, 1e6); 9];
    chunks_n.push(chunk(1_000, 5e6));
    let chunks_2n = vec![chunk(300, 2e6); 10];
    let b = WasmTrials {
        planned_tick_ns: 5_000.0,
        trials_n: 10_000,
        ticks_n: 1_900,
        trials_2n: 10_000,
        ticks_2n: 3_000,
        chunks_n,
        chunks_2n,
    };
    let d = data(vec![op("i64.div_u", None, 10.0, Some(b))]);
    let r = browser_report(&d, Vec::new(), &Options::default());
    let t = r.ops[0].bernoulli.as_ref().expect("trials");
    assert_eq!((t.trials_n, t.ticks_n, t.set_aside_n), (9_000, 900, 1_000));
    assert_eq!((t.trials_2n, t.set_aside_2n), (10_000, 0));
    assert!((t.p_n - 0.1).abs() < 1e-12);
    assert!((t.per_op_ns - 10.0).abs() < 1e-9);
    assert_eq!(t.covers_reference, Some(true));
    // The wall time of the chunks counted: 1000 ns a trial for n, 2000 for
    // 2n (with the disturbed chunk it would be 1400 for n, and 6 ns).
    let wall = t.wall_per_op_ns.expect("from the chunks");
    assert!((wall - 10.0).abs() < 1e-9, "{wall}");
}
