//! End to end: `collect bernoulli --quick` and `collect ops --quick` with the
//! real binary, read back with the analysis crate's reader and types, and
//! properties of this machine checked from the stored samples.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use tickbook_analysis::format::Suite;
use tickbook_analysis::read::{read_document, Document};
use tickbook_analysis::suites::{bernoulli::BernoulliData, ops::OpsData};

fn tmp_path(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("tickbook-test-{tag}-{}.json", std::process::id()))
}

/// Run one suite with --quick; returns its section and the elapsed time.
fn collect(suite: &str) -> (Suite, Duration) {
    let out = tmp_path(suite);
    let t0 = Instant::now();
    let res = Command::new(env!("CARGO_BIN_EXE_tickbook"))
        .args(["collect", suite, "--quick", "--out"])
        .arg(&out)
        .output()
        .expect("run tickbook");
    let elapsed = t0.elapsed();
    let stderr = String::from_utf8_lossy(&res.stderr);
    println!(
        "collect {suite} --quick took {:.2} s\n{stderr}",
        elapsed.as_secs_f64()
    );
    assert!(res.status.success(), "exit {:?}\n{stderr}", res.status);
    let bytes = std::fs::read(&out).expect("output file exists");
    common::terminal_shows(&out, suite);
    if suite == "ops" {
        common::calibrated_terminal_agrees(&out);
    }
    let _ = std::fs::remove_file(&out);
    let run = match read_document("out.json", &bytes) {
        Ok(Document::Run(r)) => r.run.clone(),
        Ok(other) => panic!("expected a run file, got {other:?}"),
        Err(e) => panic!("the collector wrote a file its own reader rejects: {e}"),
    };
    assert_eq!(run.status, "complete");
    assert_eq!(run.suites.len(), 1);
    let s = run.suites[0].clone();
    assert_eq!(s.suite, suite);
    assert_eq!(s.status, "complete", "error: {:?}", s.error);
    (s, elapsed)
}

fn median(mut v: Vec<f64>) -> f64 {
    assert!(!v.is_empty());
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn has_tsc() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: CPUID leaf 1 exists on every x86_64 CPU.
        #[allow(unused_unsafe)]
        let r = unsafe { core::arch::x86_64::__cpuid(1) };
        r.edx >> 4 & 1 == 1
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

#[test]
fn quick_ops_run_is_complete_and_add_is_one_cycle() {
    let (suite, elapsed) = collect("ops");
    assert!(
        elapsed < Duration::from_secs(60),
        "quick ops took {elapsed:?}"
    );
    let d: OpsData = serde_json::from_value(suite.data).expect("ops data parses");
    assert_eq!(d.copies, 1000);
    assert!(d.repetitions >= 30);

    // ≥ 100 operations measured in both forms, each with every repetition.
    let mut both = std::collections::BTreeMap::<&str, (bool, bool)>::new();
    for o in d.ops.iter().filter(|o| o.available) {
        assert_eq!(o.portable_n_ns.len(), d.repetitions as usize, "{}", o.name);
        assert_eq!(o.portable_2n_ns.len(), d.repetitions as usize, "{}", o.name);
        assert!(o.portable_n_ns.iter().all(|x| x.is_finite() && *x > 0.0));
        if d.counter_clock.is_some() {
            assert_eq!(o.counter_n_ticks.len(), d.repetitions as usize);
            assert_eq!(o.counter_2n_ticks.len(), d.repetitions as usize);
        }
        let e = both.entry(o.name.as_str()).or_default();
        match o.form.as_str() {
            "latency" => e.0 = true,
            "throughput" => e.1 = true,
            f => panic!("unknown form {f}"),
        }
    }
    let n_both = both.values().filter(|(l, t)| *l && *t).count();
    println!("{} operations, {n_both} in both forms", both.len());
    if cfg!(target_arch = "x86_64") {
        assert!(n_both >= 100, "only {n_both} operations in both forms");
        assert!(d
            .ops
            .iter()
            .all(|o| o.implementation == "asm" || o.name == "rem_f64_libm"));
    }

    if !has_tsc() {
        return;
    }
    // Dependent 64-bit add: one core cycle, with the core clock taken from
    // the stored samples the same way the analysis does.
    let core = d.core_clock.as_ref().expect("core clock measured");
    assert!(core.ticks.len() >= 30);
    assert_eq!(core.ticks_2n.len(), core.ticks.len());
    let ticks_per_cycle = median(core.ticks_per_add());
    let cycles = |name: &str, form: &str| {
        let o = d
            .ops
            .iter()
            .find(|o| o.name == name && o.form == form)
            .unwrap_or_else(|| panic!("{name} {form} measured"));
        let per: Vec<f64> = o
            .counter_n_ticks
            .iter()
            .zip(&o.counter_2n_ticks)
            .map(|(a, b)| (b - a) / d.copies as f64)
            .collect();
        median(per) / ticks_per_cycle
    };
    for (name, form) in [
        ("add_i64", "latency"),
        ("mul_i64", "latency"),
        ("add_f64", "latency"),
        ("mul_f64", "latency"),
        ("div_f64", "latency"),
        ("sqrt_f64", "latency"),
        ("load_u64", "latency"),
        ("add_i64", "throughput"),
    ] {
        println!(
            "{name:>10} {form:<10} {:6.2} core cycles",
            cycles(name, form)
        );
    }
    let add = cycles("add_i64", "latency");
    assert!((add - 1.0).abs() <= 0.05, "add_i64 latency {add} cycles");
    // Independent adds must beat the chain, and a multiply must not beat an add.
    assert!(cycles("add_i64", "throughput") < 0.75 * add);
    assert!(cycles("mul_i64", "latency") > 1.5 * add);
}

#[test]
fn quick_bernoulli_run_plans_and_matches_the_reference() {
    let (suite, elapsed) = collect("bernoulli");
    assert!(
        elapsed < Duration::from_secs(60),
        "quick bernoulli took {elapsed:?}"
    );
    let d: BernoulliData = serde_json::from_value(suite.data).expect("bernoulli data parses");
    assert_eq!(d.clock, "CLOCK_MONOTONIC_COARSE");
    assert!(d.tick_ns > 0.0);
    assert_eq!(d.events.len(), 17);
    assert!(d.overhead.n > 0);
    assert!(!d.reference_overhead_ns.is_empty());
    println!(
        "tick {} ns, overhead m {} / n {}",
        d.tick_ns, d.overhead.m, d.overhead.n
    );
    for e in &d.events {
        let t = &e.trials;
        let est = t.m as f64 / t.n as f64 * d.tick_ns;
        let reference = median(e.reference_ns.clone());
        println!(
            "{:>12} units {:>9} m {:>5} n {:>10} planned {:>11} capped {:<5} p·Tc {:>12.1} ns  reference median {:>12.1} ns",
            e.name, e.work_units, t.m, t.n, t.planned, t.capped, est, reference
        );
        assert!(t.n > 0 && t.m <= t.n);
        assert!(e.work_units >= 1);
        assert_eq!(t.block_size, 10_000);
        assert_eq!(t.block_m.iter().sum::<u64>(), t.m);
        assert_eq!(t.block_m.len() as u64, t.n.div_ceil(t.block_size));
        assert!(
            t.capped || t.n >= t.planned,
            "{}: not capped yet short",
            e.name
        );
        assert_eq!(t.capped, t.n < t.planned);
        if e.target_ns >= 100.0 {
            assert!(t.m > 0, "{}: no tick seen", e.name);
        }
        // The busy work is calibrated once, at the start; in a VM the host's
        // steal time and frequency move its speed by tens of percent during
        // the run (seen here: a 1 µs event at 0.65 µs, a 10 µs one at 12.4
        // µs, on the same run). The reference — not the target — is what the
        // estimates are compared with, so the target only has to be right to
        // within a factor of two: calibration worked, not the machine held
        // still.
        // Every chunk is timed by the reference clock too, and that time
        // agrees with the chunk's wall time (two fine clocks over ~2 ms,
        // read a few ns apart) — the analysis checks the estimate with it.
        let c = t.chunks.as_ref().expect("chunks");
        let by_ref = c
            .reference_ns
            .as_ref()
            .expect("chunks timed by the reference clock");
        assert_eq!(by_ref.len(), c.n.len());
        let (r, w): (u64, u64) = (by_ref.iter().sum(), c.wall_ns.iter().sum());
        assert!(
            (r as f64 / w as f64 - 1.0).abs() < 0.01,
            "{}: chunks by the reference clock {r} ns, by the wall clock {w} ns",
            e.name
        );
        if e.target_ns >= 1e3 && d.reference != "CLOCK_MONOTONIC_RAW" {
            let ratio = reference / e.target_ns;
            assert!(
                (0.5..2.0).contains(&ratio),
                "{}: reference median {reference} ns vs target {}",
                e.name,
                e.target_ns
            );
        }
    }
}
