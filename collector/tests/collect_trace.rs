//! End to end: `tickbook collect trace --quick` through the real binary, the
//! file read by the analysis crate's reader, and the properties the trace
//! suite promises checked on the data.

mod common;

use std::process::Command;
use std::time::Instant;

use tickbook_analysis::read::{read_document, Document};
use tickbook_analysis::suites::trace::{TraceData, TraceRun};

fn col(run: &TraceRun, name: &str) -> Option<Vec<f64>> {
    let i = run.columns.iter().position(|c| c == name)?;
    Some(run.records.iter().map(|r| r[i]).collect())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[test]
fn quick_trace_has_workloads_levels_and_overhead() {
    let out = std::env::temp_dir().join(format!("tickbook-test-trace-{}.json", std::process::id()));
    let t0 = Instant::now();
    let res = Command::new(env!("CARGO_BIN_EXE_tickbook"))
        .args(["collect", "trace", "--quick", "--out"])
        .arg(&out)
        .output()
        .expect("run tickbook");
    let stderr = String::from_utf8_lossy(&res.stderr);
    println!(
        "collect trace --quick took {:.1} s\n{stderr}",
        t0.elapsed().as_secs_f64()
    );
    assert!(res.status.success(), "{stderr}");
    let bytes = std::fs::read(&out).expect("output file exists");
    let doc = read_document("trace.json", &bytes).expect("the reader accepts the file");
    let Document::Run(run) = doc else {
        panic!("expected a run file")
    };
    let suite = run.run.suites.iter().find(|s| s.suite == "trace").unwrap();
    assert_eq!(suite.status, "complete");
    let d: TraceData = run.trace.clone().expect("trace data parsed");

    // Workloads of different character, each with its own interval.
    let names: Vec<&str> = d.workloads.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["compress", "game_tree", "simulate"]);

    let metric = |n: &str| d.metrics.iter().find(|m| m.name == n);
    for m in &d.metrics {
        assert!(!m.source.is_empty() && !m.class.is_empty(), "{m:?}");
    }
    // Software metrics always come from somewhere; each says where.
    for n in [
        "wall_ns",
        "progress",
        "task_clock",
        "minor_faults",
        "major_faults",
    ] {
        assert!(metric(n).is_some(), "metric {n} missing: {:?}", d.metrics);
    }
    assert_eq!(metric("progress").unwrap().class, "progress");
    // Every metric asked for is either recorded or listed with a reason.
    for n in [
        "cycles",
        "instructions",
        "cache_misses",
        "branch_misses",
        "llc_read_misses",
        "dtlb_read_misses",
        "task_clock",
        "context_switches",
    ] {
        let listed = d.unavailable.iter().find(|u| u.name == n);
        assert!(
            metric(n).is_some() != listed.is_some(),
            "{n}: recorded {:?}, unavailable {listed:?}",
            metric(n)
        );
        if let Some(u) = listed {
            assert!(u.reason.len() > 10, "{u:?}");
        }
    }
    // This machine (a VM without a PMU) refuses hardware events: then they
    // must be listed with the kernel's errno.
    if metric("cycles").is_none() {
        let u = d.unavailable.iter().find(|u| u.name == "cycles").unwrap();
        assert_eq!(u.source, "perf_event");
        assert!(u.reason.contains("errno"), "{}", u.reason);
    }

    // Work is calibrated for this many records at level 0; a run lands
    // within about a third of it (game_tree's positions cost unevenly: its
    // level-0 runs took 119 to 164 records of a 150 target here, and one
    // level-1 run 99).
    let target = suite.config["target_records_level0"]
        .as_f64()
        .expect("the config says the target");
    let mut level3: Vec<(String, f64)> = Vec::new();
    for w in &d.workloads {
        let levels: Vec<u32> = w.levels.iter().map(|l| l.level).collect();
        assert_eq!(levels, [0, 1, 2, 3], "{}", w.name);
        assert_eq!(w.levels[0].counters, 0);
        assert!(w.levels.windows(2).all(|p| p[0].counters < p[1].counters));
        let at = |l: u32| w.runs.iter().filter(move |r| r.level == l);
        assert!(at(0).count() >= 3, "{}: baselines", w.name);
        for l in 1..=3 {
            assert!(at(l).count() >= 2, "{} level {l}", w.name);
        }
        for r in &w.runs {
            let what = format!("{} level {} #{}", w.name, r.level, r.repetition);
            assert!(
                r.records.len() as f64 >= 0.5 * target,
                "{what}: {} records for a target of {target}",
                r.records.len()
            );
            let progress = col(r, "progress").unwrap();
            assert!(progress.iter().sum::<f64>() > 0.0, "{what}");
            // An interval in which the workload thread ran for half the
            // interval makes progress (units are well under 5 ms of work);
            // intervals without progress are ones where it did not run (on
            // a busy machine it is preempted for whole intervals). A few
            // exceptions are allowed: a sampler preempted in the middle of
            // a read attributes CPU time to the wrong interval.
            let cpu = col(r, "task_clock").unwrap();
            let stalled = progress
                .iter()
                .zip(&cpu)
                .filter(|(&p, &c)| p == 0.0 && c >= 0.5 * w.interval_ns)
                .count();
            assert!(
                stalled <= 2.max(progress.len() / 50),
                "{what}: {stalled} of {} intervals on the CPU without progress",
                progress.len()
            );
            // Intervals are about the workload's interval (the last is the
            // partial tail).
            let wall = col(r, "wall_ns").unwrap();
            let med = median(wall.clone());
            assert!(
                (med / w.interval_ns - 1.0).abs() < 0.5,
                "{what}: median interval {med} ns for {}",
                w.interval_ns
            );
            let total: f64 = wall.iter().sum();
            assert!(
                total >= r.wall_ns * 0.98,
                "{what}: {total} vs {}",
                r.wall_ns
            );
            // One thread: CPU time within the sampled wall time.
            let cpu_total: f64 = cpu.iter().sum();
            assert!(
                cpu_total > 0.0 && cpu_total <= total * 1.02,
                "{what}: task clock {cpu_total} in {total} ns"
            );
            // Instrumentation counts exist from level 1, and their columns
            // sum to instrumentation_count.
            let instr: Vec<&String> = r
                .columns
                .iter()
                .filter(|c| c.starts_with(&format!("{}.", w.name)))
                .collect();
            assert_eq!(instr.len() as u32, w.levels[r.level as usize].counters);
            let summed: f64 = instr
                .iter()
                .map(|c| col(r, c).unwrap().iter().sum::<f64>())
                .sum();
            assert_eq!(summed, r.instrumentation_count as f64, "{what}");
            if r.level == 0 {
                assert_eq!(r.instrumentation_count, 0, "{what}");
            }
        }
        // The same work at every level: counts grow with the level.
        let mean_count = |l: u32| {
            let v: Vec<f64> = at(l).map(|r| r.instrumentation_count as f64).collect();
            v.iter().sum::<f64>() / v.len() as f64
        };
        for l in 1..=3 {
            assert!(mean_count(l) > mean_count(l - 1), "{} level {l}", w.name);
        }
        // The same work: total progress is identical in every run.
        let work: Vec<f64> = w
            .runs
            .iter()
            .map(|r| col(r, "progress").unwrap().iter().sum())
            .collect();
        assert!(work.iter().all(|&x| x == work[0]), "{}: {work:?}", w.name);
        // The highest level costs time. Judged by the workload thread's CPU
        // time (task_clock summed over the run), not wall time: on a shared
        // 2-CPU machine the worker may get a third of the wall time, which
        // moves wall times by tens of % between runs; CPU time excludes
        // the time other processes took. Both are printed.
        let wall = |l: u32| median(at(l).map(|r| r.wall_ns).collect());
        let cpu = |l: u32| {
            median(
                at(l)
                    .map(|r| col(r, "task_clock").unwrap().iter().sum())
                    .collect(),
            )
        };
        let pct = |f: &dyn Fn(u32) -> f64, l: u32| 100.0 * (f(l) / f(0) - 1.0);
        println!(
            "{}: overhead by wall time L1 {:+.1}% L2 {:+.1}% L3 {:+.1}%; by CPU time L1 {:+.1}% L2 {:+.1}% L3 {:+.1}%",
            w.name,
            pct(&wall, 1),
            pct(&wall, 2),
            pct(&wall, 3),
            pct(&cpu, 1),
            pct(&cpu, 2),
            pct(&cpu, 3)
        );
        level3.push((w.name.clone(), pct(&cpu, 3)));
    }
    // The highest level costs time. Per workload it varies with the CPU
    // and what the counters sit in (on Intel guests compress measured +1 %
    // to +13 % across runs, game_tree +48 % to +72 %; on an AMD EPYC guest
    // the clearest workload measured +10 % to +11 % CPU time in quick runs),
    // so the check is on the clearest workload, above the few % that runs
    // at one level differ by, and that no workload got markedly faster:
    // quick runs on a 2-vCPU guest whose vCPUs share a core vary by ±15 %
    // (an AMD EPYC Zen 4 guest measured −13 % for compress at level 3), so
    // "markedly" is beyond −25 %, what a swapped or inverted level would give.
    let best = level3
        .iter()
        .map(|(_, p)| *p)
        .fold(f64::NEG_INFINITY, f64::max);
    assert!(
        best > 5.0,
        "no workload's level 3 costs > 5 % CPU time: {level3:?}"
    );
    assert!(
        level3.iter().all(|(_, p)| *p > -25.0),
        "a workload ran much faster instrumented: {level3:?}"
    );
    // Instrumentation did not change any result.
    assert!(
        !suite.fallbacks.iter().any(|f| f.contains("checksum")),
        "{:?}",
        suite.fallbacks
    );
    common::terminal_shows(&out, "trace");
    let _ = std::fs::remove_file(&out);
}

/// Where perf events cannot be used, the software metrics come from /proc
/// (exercised here with the testing aid that skips perf_event_open), each
/// with its source and a fallback line, and every perf metric is listed as
/// unavailable.
#[test]
fn without_perf_events_software_metrics_come_from_proc() {
    let out = std::env::temp_dir().join(format!(
        "tickbook-test-trace-noperf-{}.json",
        std::process::id()
    ));
    let res = Command::new(env!("CARGO_BIN_EXE_tickbook"))
        .args(["collect", "trace", "--quick", "--out"])
        .arg(&out)
        .env("TICKBOOK_TRACE_NO_PERF", "1")
        .output()
        .expect("run tickbook");
    assert!(
        res.status.success(),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    let bytes = std::fs::read(&out).expect("output file exists");
    let Ok(Document::Run(run)) = read_document("noperf.json", &bytes) else {
        panic!("the reader rejects the file")
    };
    let d = run.trace.clone().expect("trace data");
    let suite = run.run.suites.iter().find(|s| s.suite == "trace").unwrap();
    let source = |n: &str| {
        d.metrics
            .iter()
            .find(|m| m.name == n)
            .map(|m| m.source.as_str())
    };
    assert_eq!(source("task_clock"), Some("proc_schedstat"));
    assert_eq!(source("minor_faults"), Some("proc_stat"));
    assert_eq!(source("major_faults"), Some("proc_stat"));
    assert_eq!(source("involuntary_context_switches"), Some("proc_status"));
    assert!(d.metrics.iter().all(|m| m.source != "perf_event"));
    for n in [
        "cycles",
        "instructions",
        "context_switches",
        "cpu_migrations",
    ] {
        assert!(d.unavailable.iter().any(|u| u.name == n), "{n}");
    }
    for n in ["task_clock", "minor_faults"] {
        assert!(
            suite
                .fallbacks
                .iter()
                .any(|f| f.starts_with(&format!("{n} read from /proc"))),
            "{n}: {:?}",
            suite.fallbacks
        );
    }
    // schedstat's CPU time is ns-precise: it accounts for the run's work.
    for w in &d.workloads {
        for r in &w.runs {
            let cpu: f64 = col(r, "task_clock").unwrap().iter().sum();
            let wall: f64 = col(r, "wall_ns").unwrap().iter().sum();
            assert!(
                cpu > 0.0 && cpu <= wall * 1.02,
                "{}: {cpu} / {wall}",
                w.name
            );
        }
    }
    common::terminal_shows(&out, "trace");
    let _ = std::fs::remove_file(&out);
}
