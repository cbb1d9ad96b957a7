//! The `trace` suite (measurement perturbation in trace data, after
//! Mytkowicz, Diwan, Hauswirth and Sweeney): workloads of different character
//! run on a pinned worker thread while a sampler thread on another CPU
//! records every metric per interval; each workload runs several times
//! uninstrumented (level 0, the baselines) and at instrumentation levels
//! 1…3, whose counters in the hot functions are themselves recorded.
//!
//! A run does a fixed amount of work (calibrated once per workload at level
//! 0), so wall times across levels give the instrumentation overhead, and
//! identical results (checksums) across levels show the instrumentation did
//! not change what was computed.

mod compress;
mod counters;
mod game_tree;
pub(crate) mod sampler;
mod simulate;

use std::hint::black_box;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tickbook_analysis::stats::bootstrap::median_in_place;
use tickbook_analysis::suites::trace::{
    InstrumentationLevel, TraceData, TraceMetric, TraceRun, TraceWorkload,
};

use super::affinity::{self, CpuSet};
use super::{signals, Ctx, SuiteFailure, SuiteOutput, SuiteResult};
use counters::{CounterDef, Probe, Rng, MAX_LEVEL};
use sampler::{Column, Plan, Reader, Src};

/// A workload: fixed work at a chosen instrumentation level.
pub trait Workload: Sync {
    fn name(&self) -> &'static str;
    fn description(&self) -> String;
    /// What the `progress` column counts.
    fn progress_unit(&self) -> &'static str;
    /// What `work` in [`Workload::run`] counts.
    fn work_unit(&self) -> &'static str;
    fn counters(&self) -> &'static [CounterDef];
    fn level_description(&self, level: u32) -> &'static str;
    /// Sampling interval: shorter than the workload's phases.
    fn interval_ms(&self, quick: bool) -> f64;
    /// Do `work` units at `level`; returns a checksum of the result.
    fn run(&self, level: u32, work: u64, probe: &Probe) -> u64;
}

/// Records a level-0 run should have.
fn target_records(quick: bool) -> f64 {
    if quick {
        150.0
    } else {
        600.0
    }
}

fn runs_at(level: u32, quick: bool) -> u32 {
    match (level, quick) {
        (0, true) => 3,
        (0, false) => 5,
        (_, true) => 2,
        (_, false) => 3,
    }
}

const SCHEDULE_SEED: u64 = 0x7ACE_0003;

fn gettid() -> i32 {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::gettid() }
}

fn pin(cpu: Option<usize>) -> Option<String> {
    let c = cpu?;
    affinity::set(&CpuSet::single(c))
        .err()
        .map(|e| format!("workload thread not pinned to CPU {c}: sched_setaffinity: {e}"))
}

/// The calling thread at SCHED_FIFO priority 1 until dropped, when its
/// previous policy and priority come back. Threads spawned meanwhile would
/// inherit it: enter only after the worker is running.
struct RealTime {
    policy: libc::c_int,
    param: libc::sched_param,
}

impl RealTime {
    fn enter() -> std::io::Result<RealTime> {
        let mut param = libc::sched_param { sched_priority: 0 };
        // SAFETY: pid 0 is the calling thread; param is a valid out pointer.
        let policy = unsafe { libc::sched_getscheduler(0) };
        if policy < 0 || unsafe { libc::sched_getparam(0, &mut param) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let rt = libc::sched_param { sched_priority: 1 };
        // SAFETY: as above; rt is a valid sched_param.
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &rt) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(RealTime { policy, param })
    }
}

impl Drop for RealTime {
    fn drop(&mut self) {
        // SAFETY: restores what sched_getscheduler/sched_getparam returned.
        unsafe { libc::sched_setscheduler(0, self.policy, &self.param) };
    }
}

/// CPU time of the calling thread, s (CLOCK_THREAD_CPUTIME_ID).
fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// The work for a level-0 run of about `target_s` of CPU time, measured on a pinned
/// thread: doubling work until a run takes a tenth of the target, then one
/// run at half the target's predicted work (the workloads' cost per unit
/// varies along the input, so the short prefix alone extrapolates badly).
/// Returns the work and every (work, seconds) step.
fn calibrate(w: &dyn Workload, cpu: Option<usize>, target_s: f64) -> (u64, Vec<(u64, f64)>) {
    std::thread::scope(|s| {
        s.spawn(|| {
            let _ = pin(cpu);
            // CPU time of this thread, not wall time: on a busy machine wall
            // time would shrink the work (and a later run on a quiet
            // machine would then have too few records).
            let time = |work: u64| {
                let probe = Probe::default();
                let t = thread_cpu_s();
                black_box(w.run(0, work, &probe));
                (thread_cpu_s() - t).max(1e-6)
            };
            let mut steps = Vec::new();
            let mut work = 1u64;
            loop {
                let el = time(work);
                steps.push((work, el));
                if el >= 0.1 * target_s || work >= 1 << 40 {
                    break;
                }
                work *= if el < 0.0125 * target_s { 4 } else { 2 };
            }
            let (w0, t0) = steps[steps.len() - 1];
            let half = ((w0 as f64 * 0.5 * target_s / t0).round() as u64).max(1);
            if half > w0 {
                steps.push((half, time(half)));
            }
            let (wl, tl) = steps[steps.len() - 1];
            (((wl as f64 * target_s / tl).round() as u64).max(1), steps)
        })
        .join()
        .unwrap_or((1, Vec::new()))
    })
}

struct RunResult {
    run: TraceRun,
    checksum: u64,
    notes: Vec<String>,
    multiplexed: Vec<(String, f64)>,
    max_read_us: f64,
    rt_error: Option<String>,
    stopped: bool,
}

/// One run: the worker does the work; this thread samples every interval
/// until it finishes, then once more for the tail.
fn run_one(
    w: &dyn Workload,
    level: u32,
    repetition: u32,
    work: u64,
    interval: Duration,
    plan: &Plan,
    cpu: Option<usize>,
) -> Result<RunResult, String> {
    let probe = Probe::default();
    let (tid_tx, tid_rx) = mpsc::channel();
    let (done_tx, done_rx) = mpsc::channel::<(f64, u64)>();
    let go = Barrier::new(2);
    let release = Barrier::new(2);
    let extra: Vec<Column> = w
        .counters()
        .iter()
        .enumerate()
        .filter(|(_, c)| c.level <= level)
        .map(|(i, c)| Column {
            name: format!("{}.{}", w.name(), c.name),
            src: Src::Instr(i, c.level),
        })
        .collect();
    std::thread::scope(|s| {
        let worker = s.spawn(|| {
            let pin_note = pin(cpu);
            let _ = tid_tx.send(gettid());
            go.wait();
            let t0 = Instant::now();
            let check = black_box(w.run(level, work, &probe));
            let wall = t0.elapsed().as_nanos() as f64;
            let _ = done_tx.send((wall, check));
            // Stay alive (and keep /proc/self/task/<tid>) for the last read.
            release.wait();
            pin_note
        });
        let tid = tid_rx
            .recv()
            .map_err(|_| "the workload thread ended before starting".to_string())?;
        let mut notes = Vec::new();
        let mut reader = Reader::open(plan, extra, tid, &probe, &mut notes);
        // The sampler sleeps nearly all the time; real-time priority makes
        // it wake on time and read every metric without being preempted in
        // between (on a busy machine a read otherwise takes up to hundreds
        // of ms). Entered after the worker exists, which must not inherit it.
        let rt = RealTime::enter();
        let rt_error = rt
            .as_ref()
            .err()
            .map(|e| format!("sampler at normal priority: sched_setscheduler(SCHED_FIFO, 1): {e}"));
        let mut prev = reader.read();
        go.wait();
        let mut next = Instant::now() + interval;
        let mut records = Vec::new();
        let (wall, checksum) = loop {
            match done_rx.recv_timeout(next.saturating_duration_since(Instant::now())) {
                Ok(done) => {
                    let snap = reader.read();
                    records.push(reader.delta(&prev, &snap));
                    break done;
                }
                Err(RecvTimeoutError::Timeout) => {
                    let snap = reader.read();
                    records.push(reader.delta(&prev, &snap));
                    prev = snap;
                    next += interval;
                    let now = Instant::now();
                    if next < now {
                        // Fell behind (the sampler was descheduled): restart
                        // the grid rather than take catch-up samples.
                        next = now + interval;
                    }
                    if signals::stop_requested().is_some() {
                        probe.request_stop();
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!(
                        "{} level {level}: the workload thread panicked",
                        w.name()
                    ));
                }
            }
        };
        drop(rt);
        release.wait();
        if let Ok(Some(n)) = worker.join() {
            notes.push(n);
        }
        let multiplexed = reader
            .columns
            .iter()
            .zip(&reader.multiplexed)
            .filter(|(_, m)| **m > 0.0)
            .map(|(c, m)| (c.name.clone(), *m))
            .collect();
        Ok(RunResult {
            run: TraceRun {
                level,
                repetition,
                wall_ns: wall,
                instrumentation_count: probe.total(),
                columns: reader.columns.iter().map(|c| c.name.clone()).collect(),
                records,
            },
            checksum,
            notes,
            multiplexed,
            max_read_us: reader.max_read.as_secs_f64() * 1e6,
            rt_error,
            stopped: probe.stopped(),
        })
    })
}

/// The cycle counter's ordered read, or why there is none.
fn tsc_reader(ctx: &Ctx) -> Result<fn() -> u64, String> {
    let support = super::tsc::detect(ctx.no_counter, &super::host::cpuinfo_flags());
    super::tsc::ordered_reader(&support).ok_or_else(|| {
        support
            .unavailable
            .clone()
            .unwrap_or_else(|| "no cycle counter on this architecture".to_string())
    })
}

pub fn run(ctx: &Ctx) -> SuiteResult {
    let mut fallbacks: Vec<String> = Vec::new();
    // The sampler (this thread) and the workload on different CPUs, so
    // sampling does not take the workload's CPU.
    let original = affinity::get().ok();
    let _restore = affinity::Restore::new(original);
    let cpus = original.map(|s| s.cpus()).unwrap_or_default();
    let workload_cpu = cpus.last().copied();
    let sampler_cpu = cpus.iter().copied().find(|&c| Some(c) != workload_cpu);
    match (workload_cpu, sampler_cpu) {
        (None, _) => fallbacks
            .push("threads not pinned: sched_getaffinity failed or returned no CPU".to_string()),
        (Some(_), None) => fallbacks.push(
            "only one CPU allowed: the sampler shares the workload's CPU and takes time from it"
                .to_string(),
        ),
        (Some(_), Some(c)) => {
            if let Err(e) = affinity::set(&CpuSet::single(c)) {
                fallbacks.push(format!("sampler not pinned to CPU {c}: {e}"));
            }
        }
    }

    let spin = ctx
        .progress
        .spinner("trace", "probing perf events and /proc");
    let plan = sampler::plan(tsc_reader(ctx));
    fallbacks.extend(plan.fallbacks.iter().cloned());
    spin.set_message("generating workload inputs");
    let compress = compress::Compress::new(if ctx.quick { 8 << 20 } else { 16 << 20 });
    if let Err(e) = compress.self_check() {
        return Err(SuiteFailure {
            message: e,
            partial: None,
        });
    }
    let workloads: Vec<Box<dyn Workload>> = vec![
        Box::new(compress),
        Box::new(game_tree::GameTree::new()),
        Box::new(simulate::Simulate::new()),
    ];
    spin.finish_and_clear();

    let mut metrics: Vec<TraceMetric> = plan.metrics.clone();
    for w in &workloads {
        for c in w.counters() {
            metrics.push(TraceMetric {
                name: format!("{}.{}", w.name(), c.name),
                unit: "count".to_string(),
                class: "instrumentation".to_string(),
                source: "workload_counter".to_string(),
                description: Some(format!(
                    "{} (instrumentation level {} and up)",
                    c.description, c.level
                )),
            });
        }
    }

    let levels: Vec<u32> = (0..=MAX_LEVEL).collect();
    let total_runs: u64 = workloads.len() as u64
        * levels
            .iter()
            .map(|&l| u64::from(runs_at(l, ctx.quick)))
            .sum::<u64>();
    let bar = ctx.progress.bar("trace runs", total_runs);
    let mut data = TraceData {
        metrics,
        unavailable: plan.unavailable.clone(),
        workloads: Vec::new(),
    };
    let mut wl_config: Vec<Value> = Vec::new();
    let mut run_config: Vec<Value> = Vec::new();
    let mut rng = Rng(SCHEDULE_SEED);
    let mut interrupted = None;
    let mut order = 0u32;
    let make_config = |wl: &[Value], runs: &[Value]| {
        json!({
            "quick": ctx.quick,
            "target_records_level0": target_records(ctx.quick),
            "levels": levels,
            "runs_per_level": levels.iter().map(|&l| runs_at(l, ctx.quick)).collect::<Vec<_>>(),
            "schedule": "per workload, rounds of one run per level still due, in a shuffled order per round (seeded)",
            "schedule_seed": SCHEDULE_SEED,
            "level_mechanism": "compile-time: hot functions generic over const L, one instantiation per level; level 0 is the uninstrumented code (no counters, no checks)",
            "counter_increment": "relaxed atomic load + store (plain mov pair) of a per-function u64, on its own cache lines away from the progress word",
            "sampler": "a thread on another CPU, at SCHED_FIFO priority 1 while a run is sampled (else a fallback says so), wakes every interval (futex wait with timeout, CLOCK_MONOTONIC) and reads every metric of the workload thread; the last record is the partial interval up to the workload's end",
            "workload_cpu": workload_cpu,
            "sampler_cpu": sampler_cpu,
            "perf_counting": if plan.user_only { "user mode only" } else { "user and kernel mode" },
            "workloads": wl,
            "runs": runs,
        })
    };

    'workloads: for w in &workloads {
        let interval_ms = w.interval_ms(ctx.quick);
        let interval = Duration::from_secs_f64(interval_ms / 1e3);
        let target_s = target_records(ctx.quick) * interval_ms / 1e3;
        bar.set_message(format!("{}: calibrating", w.name()));
        let (work, cal_steps) = calibrate(w.as_ref(), workload_cpu, target_s);
        let mut tw = TraceWorkload {
            name: w.name().to_string(),
            description: format!("{}; progress counts {}", w.description(), w.progress_unit()),
            interval_ns: interval_ms * 1e6,
            levels: levels
                .iter()
                .map(|&l| InstrumentationLevel {
                    level: l,
                    description: w.level_description(l).to_string(),
                    counters: w.counters().iter().filter(|c| c.level <= l).count() as u32,
                })
                .collect(),
            runs: Vec::new(),
        };
        wl_config.push(json!({
            "name": w.name(),
            "interval_ms": interval_ms,
            "work": work,
            "work_unit": w.work_unit(),
            "progress_unit": w.progress_unit(),
            "calibration": {
                "clock": "CLOCK_THREAD_CPUTIME_ID",
                "target_seconds": target_s,
                "steps": cal_steps.iter().map(|(w, t)| json!({"work": w, "seconds": t})).collect::<Vec<_>>(),
            },
        }));
        let max_reps = levels
            .iter()
            .map(|&l| runs_at(l, ctx.quick))
            .max()
            .unwrap_or(0);
        let mut checks: Vec<(u32, u64)> = Vec::new();
        for rep in 0..max_reps {
            let mut round: Vec<u32> = levels
                .iter()
                .copied()
                .filter(|&l| rep < runs_at(l, ctx.quick))
                .collect();
            for i in (1..round.len()).rev() {
                round.swap(i, rng.below(i as u64 + 1) as usize);
            }
            for level in round {
                if let Some(sig) = signals::stop_requested() {
                    interrupted = Some(sig);
                    data.workloads.push(tw);
                    break 'workloads;
                }
                bar.set_message(format!("{} level {level} #{rep}", w.name()));
                let r = run_one(w.as_ref(), level, rep, work, interval, &plan, workload_cpu)
                    .map_err(|message| SuiteFailure {
                        message,
                        partial: None,
                    })?;
                if r.stopped {
                    // Cut short by a signal: not the fixed work, not kept.
                    interrupted = signals::stop_requested().or(Some(libc::SIGINT));
                    data.workloads.push(tw);
                    break 'workloads;
                }
                if let Some(e) = &r.rt_error {
                    if !fallbacks.contains(e) {
                        fallbacks.push(e.clone());
                    }
                }
                for n in &r.notes {
                    fallbacks.push(format!("{} level {level} run {rep}: {n}", w.name()));
                }
                run_config.push(json!({
                    "workload": w.name(),
                    "level": level,
                    "repetition": rep,
                    "order": order,
                    "checksum": format!("{:016x}", r.checksum),
                    "records": r.run.records.len(),
                    "max_read_us": r.max_read_us,
                    "multiplexed": r.multiplexed.iter().map(|(n, m)| json!({"metric": n, "max_not_running_fraction": m})).collect::<Vec<_>>(),
                }));
                order += 1;
                checks.push((level, r.checksum));
                tw.runs.push(r.run);
                bar.inc(1);
                let mut partial = data.clone();
                partial.workloads.push(tw.clone());
                (ctx.checkpoint)(&SuiteOutput {
                    config: make_config(&wl_config, &run_config),
                    fallbacks: fallbacks.clone(),
                    data: serde_json::to_value(&partial).unwrap_or(Value::Null),
                    summary: Vec::new(),
                });
            }
        }
        if let Some((_, c0)) = checks.first() {
            for (l, c) in &checks {
                if c != c0 {
                    fallbacks.push(format!(
                        "{}: checksum at level {l} ({c:016x}) differs from the first run's ({c0:016x}): instrumentation changed the result",
                        w.name()
                    ));
                }
            }
        }
        data.workloads.push(tw);
    }
    bar.finish_with_message(format!(
        "{} runs",
        data.workloads.iter().map(|w| w.runs.len()).sum::<usize>()
    ));

    let summary = summarize(&data);
    let out = SuiteOutput {
        config: make_config(&wl_config, &run_config),
        fallbacks,
        data: serde_json::to_value(&data).map_err(|e| SuiteFailure {
            message: format!("cannot serialize trace data: {e}"),
            partial: None,
        })?,
        summary,
    };
    out.finish(interrupted)
}

/// Per workload: runs, records per run, and each level's median wall time
/// against level 0's.
fn summarize(d: &TraceData) -> Vec<String> {
    let mut lines = Vec::new();
    if !d.unavailable.is_empty() {
        let names: Vec<&str> = d.unavailable.iter().map(|u| u.name.as_str()).collect();
        lines.push(format!("unavailable: {}", names.join(", ")));
    }
    for w in &d.workloads {
        let recs: Vec<usize> = w.runs.iter().map(|r| r.records.len()).collect();
        let med = |l: u32| {
            let mut v: Vec<f64> = w
                .runs
                .iter()
                .filter(|r| r.level == l)
                .map(|r| r.wall_ns)
                .collect();
            median_in_place(&mut v)
        };
        // CPU time of the workload thread (task_clock over the run): on a
        // busy machine wall time also holds other processes' time.
        let cpu_med = |l: u32| {
            let mut v: Vec<f64> = w
                .runs
                .iter()
                .filter(|r| r.level == l)
                .filter_map(|r| {
                    let i = r.columns.iter().position(|c| c == "task_clock")?;
                    Some(r.records.iter().map(|x| x[i]).sum::<f64>())
                })
                .collect();
            median_in_place(&mut v)
        };
        let (base, cpu_base) = (med(0), cpu_med(0));
        let over: Vec<String> = w
            .levels
            .iter()
            .filter(|l| l.level > 0)
            .map(|l| {
                let cpu = 100.0 * (cpu_med(l.level) / cpu_base - 1.0);
                let cpu = if cpu.is_finite() {
                    format!(" (CPU time {cpu:+.1}%)")
                } else {
                    String::new()
                };
                format!(
                    "L{} {:+.1}%{cpu}",
                    l.level,
                    100.0 * (med(l.level) / base - 1.0)
                )
            })
            .collect();
        lines.push(format!(
            "{}: {} runs, {}–{} records of {:.0} ms, level-0 median {:.2} s; wall-time overhead {}",
            w.name,
            w.runs.len(),
            recs.iter().min().unwrap_or(&0),
            recs.iter().max().unwrap_or(&0),
            w.interval_ns / 1e6,
            base / 1e9,
            over.join(", ")
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread_cpu_ns() -> f64 {
        thread_cpu_s() * 1e9
    }

    /// Each counter counts exactly from its declared level up: catches a
    /// counter index that does not match its definition.
    #[test]
    fn counters_run_from_their_declared_level() {
        let ws: Vec<(Box<dyn Workload>, u64)> = vec![
            (Box::new(compress::Compress::new(2 << 20)), 40),
            (Box::new(game_tree::GameTree::new()), 2),
            (Box::new(simulate::Simulate::new()), 2),
        ];
        for (w, work) in &ws {
            let mut checks = Vec::new();
            for l in 0..=MAX_LEVEL {
                let p = Probe::default();
                checks.push(w.run(l, *work, &p));
                for (i, c) in w.counters().iter().enumerate() {
                    assert_eq!(
                        p.counter(i) > 0,
                        c.level <= l,
                        "{}.{} (level {}) at level {l}: {}",
                        w.name(),
                        c.name,
                        c.level,
                        p.counter(i)
                    );
                }
                for i in w.counters().len()..counters::MAX_COUNTERS {
                    assert_eq!(p.counter(i), 0, "{} counter {i}", w.name());
                }
            }
            assert!(checks.iter().all(|&c| c == checks[0]), "{}", w.name());
        }
    }

    /// Not a check: prints each level's CPU time against level 0
    /// (`cargo test --release -p tickbook level_costs -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn level_costs() {
        let ws: Vec<(Box<dyn Workload>, u64)> = vec![
            (Box::new(compress::Compress::new(8 << 20)), 200),
            (Box::new(game_tree::GameTree::new()), 40),
            (Box::new(simulate::Simulate::new()), 100),
        ];
        for (w, work) in &ws {
            let mut best = [f64::INFINITY; 4];
            for _ in 0..9 {
                for l in 0..4u32 {
                    let t = thread_cpu_ns();
                    black_box(w.run(l, *work, &Probe::default()));
                    best[l as usize] = best[l as usize].min(thread_cpu_ns() - t);
                }
            }
            println!(
                "{}: L0 {:.1} ms, L1 {:+.1}%, L2 {:+.1}%, L3 {:+.1}%",
                w.name(),
                best[0] / 1e6,
                100.0 * (best[1] / best[0] - 1.0),
                100.0 * (best[2] / best[0] - 1.0),
                100.0 * (best[3] / best[0] - 1.0)
            );
        }
    }
}
