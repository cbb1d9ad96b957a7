//! The `bernoulli` suite (Lambert and Power's timing of short events):
//! events of known length timed with a coarse clock by Bernoulli trials, and
//! the same events timed by the cycle counter as the reference.
//!
//! An event is a call of [`busy`], a dependent arithmetic loop whose
//! iteration count was calibrated against the reference clock so that one
//! call lasts the target length. A trial reads the coarse clock, runs the
//! event once and reads the clock again; it "ticks" when the two values
//! differ. The analysis turns m ticks in n trials into p·Tc (eq. 1) and
//! subtracts the overhead To found the same way for an empty event (eq. 6).

use std::hint::black_box;

use serde_json::json;
use tickbook_analysis::stats::bootstrap::median;
use tickbook_analysis::suites::bernoulli::{
    BernoulliChunks, BernoulliData, BernoulliEvent, BernoulliTrials,
};

use super::scan::{self, ScanLimits};
use super::{interrupted_failure, signals, Ctx, SuiteFailure, SuiteOutput, SuiteResult};

/// Event lengths in ns: 10 ns to 2 ms in 1-2-5 steps.
const TARGETS_NS: &[f64] = &[
    10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1e3, 2e3, 5e3, 10e3, 20e3, 50e3, 100e3, 200e3, 500e3,
    1e6, 2e6,
];

/// The coarse clock the trials read.
const COARSE: libc::clockid_t = libc::CLOCK_MONOTONIC_COARSE;
const COARSE_NAME: &str = "CLOCK_MONOTONIC_COARSE";

struct Params {
    /// Wall time the trials of one event may take (s).
    budget_s: f64,
    /// Pilot trials, at most; and at most `pilot_fraction` of the budget.
    pilot_trials: u64,
    pilot_fraction: f64,
    /// Reference samples per event, and the time they may take (s); at
    /// least `reference_min` samples whatever the time.
    reference_max: usize,
    reference_min: usize,
    reference_budget_s: f64,
    block_size: u64,
    /// Calibration of the busy loop: samples per point.
    calibration_samples: usize,
}

impl Params {
    fn new(quick: bool) -> Self {
        if quick {
            Params {
                budget_s: 2.0,
                pilot_trials: 2_000,
                pilot_fraction: 0.05,
                reference_max: 1_000,
                reference_min: 50,
                reference_budget_s: 0.2,
                block_size: 10_000,
                calibration_samples: 201,
            }
        } else {
            Params {
                budget_s: 10.0,
                pilot_trials: 2_000,
                pilot_fraction: 0.05,
                reference_max: 10_000,
                reference_min: 500,
                reference_budget_s: 2.0,
                block_size: 10_000,
                calibration_samples: 2_001,
            }
        }
    }
}

// ---------------------------------------------------------------- the event

/// The busy work: `units` steps of a 64-bit LCG. Each step depends on the
/// previous one, so the loop cannot be vectorised or overlapped, and the
/// count is opaque, so LLVM cannot evaluate it away (a plain `x += c` chain
/// would be folded into one multiply). LLVM does unroll it and merge the
/// constants of consecutive steps, so a unit costs well under one imul: the
/// cost per unit is whatever the calibration measures. Never inlined, so the
/// trials and the reference run the very same machine code.
#[inline(never)]
pub fn busy(units: u64) -> u64 {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut i = 0;
    while i < units {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        i += 1;
    }
    x
}

/// One event. `black_box` on the count keeps the compiler from specialising
/// the call to a constant; on the result, from dropping the call (it is pure)
/// or moving it across the clock reads around it (both are opaque to it).
#[inline(always)]
fn event(units: u64) {
    black_box(busy(black_box(units)));
}

/// CLOCK_MONOTONIC_COARSE in ns. The return code was checked once before
/// the trials (`coarse_check`); a per-read check would only add overhead.
#[inline(always)]
fn coarse_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write.
    unsafe { libc::clock_gettime(COARSE, &mut ts) };
    super::tsc::timespec_ns(&ts) as u64
}

fn coarse_check() -> Result<(), String> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: as above.
    if unsafe { libc::clock_gettime(COARSE, &mut ts) } == 0 {
        Ok(())
    } else {
        Err(format!(
            "clock_gettime({COARSE_NAME}) failed: {}",
            std::io::Error::last_os_error()
        ))
    }
}

/// CLOCK_MONOTONIC_RAW in ns: the reference when there is no usable counter.
fn monotonic_raw_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_RAW, &mut ts) };
    super::tsc::timespec_ns(&ts) as u64
}

/// What keeps the clock reads of a trial in program order with the event.
/// The second read does not depend on the event's result, so an
/// out-of-order core would otherwise issue it while the event's dependency
/// chain is still running and time a shorter event than the reference,
/// which is fenced by `lfence; rdtsc`.
pub const TRIAL_FENCE: &str = if cfg!(target_arch = "x86_64") {
    "lfence"
} else if cfg!(target_arch = "aarch64") {
    "isb"
} else {
    "none (no execution barrier on this architecture)"
};

#[inline(always)]
fn execution_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: lfence only orders execution; it touches no memory or registers.
    unsafe {
        core::arch::asm!("lfence", options(nostack, preserves_flags))
    };
    #[cfg(target_arch = "aarch64")]
    // SAFETY: isb only flushes the pipeline; it touches no memory or registers.
    unsafe {
        core::arch::asm!("isb", options(nostack, preserves_flags))
    };
}

/// `count` trials of an event of `units`; returns (ticks, sum of steps in ns).
#[inline(never)]
fn trials(units: u64, count: u64) -> (u64, u64) {
    let mut m = 0u64;
    let mut sum = 0u64;
    for _ in 0..count {
        execution_fence();
        let a = coarse_ns();
        event(units);
        execution_fence();
        let b = coarse_ns();
        if b != a {
            m += 1;
            sum = sum.wrapping_add(b.wrapping_sub(a));
        }
    }
    (m, sum)
}

/// `count` reference samples of one event each, in ns.
#[inline(never)]
fn reference_samples(read: fn() -> u64, ns_per_unit: f64, units: u64, count: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let a = read();
        event(units);
        let b = read();
        out.push(b.wrapping_sub(a) as f64 * ns_per_unit);
    }
    out
}

/// z(1 − α/2) for a two-sided confidence level: the standard normal
/// quantile by Acklam's rational approximation (relative error < 1.2e-9).
pub fn z_two_sided(confidence: f64) -> f64 {
    let p = 1.0 - (1.0 - confidence) / 2.0;
    const A: [f64; 6] = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.383_577_518_672_69e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e1,
        1.615858368580409e2,
        -1.556989798598866e2,
        6.680131188771972e1,
        -1.328068155288572e1,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    ];
    const D: [f64; 4] = [
        7.784695709041462e-3,
        3.224671290700398e-1,
        2.445134137142996,
        3.754408661907416,
    ];
    let plow = 0.02425;
    if p < plow {
        let q = (-2.0 * p.ln()).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    } else if p <= 1.0 - plow {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        let q = (-2.0 * (1.0 - p).ln()).sqrt();
        -(((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    }
}

/// Eq. 5: trials for relative error ε at confidence z: n = z²·q / (ε²·p).
pub fn planned_trials(p: f64, epsilon: f64, z: f64) -> u64 {
    let p = p.clamp(1e-12, 1.0);
    let n = z * z * (1.0 - p) / (epsilon * epsilon * p);
    if n.is_finite() {
        n.ceil().clamp(1.0, 1e18) as u64
    } else {
        u64::MAX
    }
}

/// How the trials of one event were planned and how they ran (for `config`).
struct Plan {
    /// Eq. 5 from the pilot, before re-planning from the run itself.
    initial_plan: u64,
    pilot_n: u64,
    pilot_m: u64,
    trial_ns: f64,
    p: f64,
    p_source: &'static str,
    /// Wall time of the trials, the thread's CPU time in it, and the
    /// involuntary context switches: a trial during which the thread was
    /// descheduled almost surely sees a tick, so contention inflates m.
    wall_s: f64,
    cpu_s: f64,
    involuntary_switches: Option<i64>,
}

fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    super::tsc::timespec_ns(&ts) as f64 / 1e9
}

/// Involuntary context switches of this thread so far.
fn involuntary_switches() -> Option<i64> {
    // SAFETY: a zeroed rusage is a valid value for getrusage to overwrite.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid rusage to write.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    #[allow(clippy::useless_conversion)]
    (rc == 0).then(|| i64::from(ru.ru_nivcsw))
}

/// Ticks the trials must hold before eq. 5 is re-evaluated at their p.
const REPLAN_MIN_TICKS: u64 = 30;

/// Running time of one chunk of trials: the granularity at which the
/// thread's running time is measured (and the stop flag, deadline and
/// progress bar looked at). Shorter than the coarse tick (4 ms at HZ = 250),
/// because a busy machine preempts at the tick: a chunk spanning a tick
/// would then almost never run undisturbed, and the analysis needs
/// undisturbed chunks to know how long a trial lasts.
const CHUNK_NS: f64 = 2e6;

/// Steal time of one CPU from `/proc/stat` (the eighth value of its `cpuN`
/// line, in `USER_HZ` units): time the host ran something else while this
/// virtual CPU wanted to run.
struct Steal {
    label: String,
    ns_per_unit: f64,
}

impl Steal {
    /// `None` with the reason when the steal time of `cpu` cannot be read.
    fn open(cpu: Option<usize>) -> Result<Steal, String> {
        let cpu = cpu.ok_or("the thread is not pinned to one CPU")?;
        // SAFETY: sysconf only reads a configuration value.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        if hz <= 0 {
            return Err("sysconf(_SC_CLK_TCK) failed".into());
        }
        let s = Steal {
            label: format!("cpu{cpu}"),
            ns_per_unit: 1e9 / hz as f64,
        };
        s.read_units()?;
        Ok(s)
    }

    fn read_units(&self) -> Result<u64, String> {
        let text = std::fs::read_to_string("/proc/stat")
            .map_err(|e| format!("cannot read /proc/stat: {e}"))?;
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(self.label.as_str()))
            .ok_or_else(|| format!("/proc/stat has no {} line", self.label))?;
        line.split_whitespace()
            .nth(8)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("/proc/stat's {} line has no steal value", self.label))
    }

    fn read_ns(&self) -> Option<u64> {
        self.read_units()
            .ok()
            .map(|u| (u as f64 * self.ns_per_unit) as u64)
    }
}

fn thread_cpu_ns() -> u64 {
    (thread_cpu_s() * 1e9) as u64
}

/// What the trials aim at: eq. 5's ε at normal quantile z, for a clock of
/// this tick.
#[derive(Clone, Copy)]
struct Goal {
    tick_ns: f64,
    epsilon: f64,
    z: f64,
}

/// The reference clock: a reader and ns per unit of what it returns.
#[derive(Clone, Copy)]
struct Reference {
    read: fn() -> u64,
    ns_per_unit: f64,
}

/// Pilot, plan by eq. 5, and run the trials within the budget. Returns the
/// trials, the plan, and whether a signal stopped it.
fn run_trials(
    units: u64,
    expected_trial_ns: f64,
    goal: &Goal,
    p: &Params,
    steal: Option<&Steal>,
    reference: Reference,
    bar: &indicatif::ProgressBar,
) -> (BernoulliTrials, Plan, bool) {
    let Goal {
        tick_ns,
        epsilon,
        z,
    } = *goal;
    let clock = std::time::Instant::now;
    // Pilot: estimates p and the wall time of one trial (which includes the
    // loop's own bookkeeping, so it is what the budget is spent at).
    let pilot_n = ((p.budget_s * p.pilot_fraction * 1e9 / expected_trial_ns.max(1.0)) as u64)
        .clamp(20, p.pilot_trials);
    let cpu_pilot = thread_cpu_ns();
    let t0 = clock();
    let (pilot_m, _) = trials(units, pilot_n);
    let trial_ns = t0.elapsed().as_nanos() as f64 / pilot_n as f64;
    // The chunk is sized by running time, which a busy machine does not
    // stretch as it stretches the wall time.
    let cpu_trial_ns = thread_cpu_ns().saturating_sub(cpu_pilot) as f64 / pilot_n as f64;
    // With few ticks in the pilot, m/n says little; the duration of a trial
    // over the tick is then the better guess of p (it is an upper bound:
    // p = (Te + To) / Tc, and a trial lasts Te + To plus the loop).
    let (p_plan, p_source) = if pilot_m >= 5 {
        (pilot_m as f64 / pilot_n as f64, "pilot")
    } else {
        ((trial_ns / tick_ns).min(1.0), "trial_duration_over_tick")
    };
    let initial_plan = planned_trials(p_plan, epsilon, z);
    let mut planned = initial_plan;
    let budget_n = (p.budget_s * 1e9 / trial_ns.max(1e-3)).max(1.0) as u64;
    let mut target = planned.min(budget_n);

    // Chunks of ~2 ms of running, never straddling a block. Around each, the thread's
    // CPU time, its involuntary context switches and the CPU's steal time
    // are read, so the analysis can tell how much of the chunk's wall time
    // the thread ran: a trial that lost the CPU lasts longer and sees the
    // tick more often. Every chunk is kept; none is set aside here.
    let chunk =
        ((CHUNK_NS / cpu_trial_ns.clamp(1e-3, trial_ns.max(1e-3))) as u64).clamp(1, p.block_size);
    let deadline_ns = p.budget_s * 1.25e9;
    let mut out = BernoulliTrials {
        n: 0,
        m: 0,
        sum_steps_ns: 0.0,
        planned,
        capped: false,
        block_size: p.block_size,
        block_m: Vec::new(),
        ..BernoulliTrials::default()
    };
    let mut ch = BernoulliChunks {
        reference_ns: Some(Vec::new()),
        ..BernoulliChunks::default()
    };
    let mut switches: Option<Vec<u64>> = Some(Vec::new());
    let mut steals: Option<Vec<u64>> = steal.map(|_| Vec::new());
    let mut block_n = 0u64;
    let mut block_m = 0u64;
    let mut stopped = false;
    let cpu0 = thread_cpu_s();
    let csw0 = involuntary_switches();
    let start = clock();
    bar.set_length(target);
    let mut steal_before = steal.and_then(Steal::read_ns);
    while out.n < target {
        let k = chunk.min(target - out.n).min(p.block_size - block_n);
        let csw_before = involuntary_switches();
        let cpu_before = thread_cpu_ns();
        let t0 = clock();
        let r0 = (reference.read)();
        let c0 = coarse_ns();
        let (m, sum) = trials(units, k);
        let c1 = coarse_ns();
        let r1 = (reference.read)();
        let wall_ns = t0.elapsed().as_nanos() as u64;
        // The same trials timed by the reference clock: what the analysis
        // checks the estimate against (the mean it estimates, in the trials'
        // own context, interrupts included).
        if let Some(v) = &mut ch.reference_ns {
            v.push((r1.wrapping_sub(r0) as f64 * reference.ns_per_unit) as u64);
        }
        let cpu_after = thread_cpu_ns();
        let csw_after = involuntary_switches();
        ch.n.push(k);
        ch.m.push(m);
        ch.steps_ns.push(sum);
        ch.coarse_ns.push(c1.wrapping_sub(c0));
        ch.wall_ns.push(wall_ns);
        ch.cpu_ns.push(cpu_after.saturating_sub(cpu_before));
        match (&mut switches, csw_before, csw_after) {
            (Some(v), Some(a), Some(b)) => v.push(b.saturating_sub(a).max(0) as u64),
            _ => switches = None,
        }
        // Read once per chunk: steal between two chunks counts in the next.
        let steal_after = steal.and_then(Steal::read_ns);
        match (&mut steals, steal_before, steal_after) {
            (Some(v), Some(a), Some(b)) => v.push(b.saturating_sub(a)),
            _ => steals = None,
        }
        steal_before = steal_after;
        out.n += k;
        out.m += m;
        out.sum_steps_ns += sum as f64;
        block_n += k;
        block_m += m;
        if block_n == p.block_size {
            out.block_m.push(block_m);
            block_n = 0;
            block_m = 0;
        }
        // Re-plan by eq. 5 from the trials so far once they hold enough
        // ticks to say something: the pilot's p is rough (a few ticks, or a
        // duration bound), and the run should end where eq. 5 at the
        // observed p says the requested ε is reached. This is inverse
        // binomial sampling: it stops near a fixed m, where m/n is biased by
        // about 1/m (< 0.1 % here).
        if out.m >= REPLAN_MIN_TICKS {
            planned = planned_trials(out.m as f64 / out.n as f64, epsilon, z);
            target = planned.min(budget_n);
            bar.set_length(target.max(out.n));
        }
        bar.set_position(out.n);
        if signals::stop_requested().is_some() {
            stopped = true;
            break;
        }
        if start.elapsed().as_nanos() as f64 > deadline_ns {
            break;
        }
    }
    let wall_s = start.elapsed().as_secs_f64();
    let cpu_s = thread_cpu_s() - cpu0;
    let involuntary = match (csw0, involuntary_switches()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    if block_n > 0 {
        out.block_m.push(block_m);
    }
    ch.involuntary_switches = switches;
    ch.steal_ns = steals;
    out.chunks = Some(ch);
    out.planned = planned;
    out.capped = out.n < planned;
    let plan = Plan {
        initial_plan,
        pilot_n,
        pilot_m,
        trial_ns,
        p: p_plan,
        p_source,
        wall_s,
        cpu_s,
        involuntary_switches: involuntary,
    };
    (out, plan, stopped)
}

/// The coarse clock's tick (ns) from a scan: the modal single-tick step.
fn modal_step(steps: &[i64]) -> Option<f64> {
    // Robust to preemption, which merges ticks into longer steps.
    tickbook_analysis::stats::tick::single_tick(steps).map(|s| s as f64)
}

fn fmt_ns(ns: f64) -> String {
    super::clocks::fmt_ns(ns)
}

fn failure(message: String) -> SuiteFailure {
    SuiteFailure {
        message,
        partial: None,
    }
}

pub fn run(ctx: &Ctx) -> SuiteResult {
    let p = Params::new(ctx.quick);
    let mut fallbacks: Vec<String> = Vec::new();
    coarse_check().map_err(failure)?;
    let pinned = super::pin_here(&mut fallbacks);
    let pinned_cpu = pinned.cpu;

    let counter = super::counter(ctx);
    fallbacks.extend(counter.fallbacks.iter().cloned());
    let (read, ns_per_unit, reference) = match counter.reader() {
        Some((read, npu)) if counter.support.invariant => (read, npu, super::tsc::ORDERED_NAME),
        other => {
            let why = if other.is_some() {
                "the counter is not known to be invariant".to_string()
            } else if let Some(u) = &counter.support.unavailable {
                format!("no usable counter ({u})")
            } else {
                "the counter frequency is unknown".to_string()
            };
            fallbacks.push(format!(
                "reference clock is CLOCK_MONOTONIC_RAW instead of {}: {why}",
                super::tsc::ORDERED_NAME
            ));
            (monotonic_raw_ns as fn() -> u64, 1.0, "CLOCK_MONOTONIC_RAW")
        }
    };

    // Tick of the coarse clock: modal step of a scan of ≥ 40 ticks.
    let pb = ctx.progress.spinner("coarse tick", "scanning");
    let limits = ScanLimits {
        max_steps: if ctx.quick { 40 } else { 200 },
        max_duration_ns: if ctx.quick { 0.4e9 } else { 2e9 },
        min_steps: if ctx.quick { 40 } else { 200 },
        hard_max_duration_ns: if ctx.quick { 2e9 } else { 8e9 },
        check_every: 256,
    };
    let (tick_scan, stopped) = scan::scan(coarse_ns, read, ns_per_unit, &limits);
    if stopped {
        let sig = signals::stop_requested().unwrap_or(libc::SIGINT);
        return Err(interrupted_failure(sig, None));
    }
    let tick_ns = modal_step(&tick_scan.steps).ok_or_else(|| {
        failure(format!(
            "{COARSE_NAME} did not change in a {:.0} ms scan",
            tick_scan.duration_ns / 1e6
        ))
    })?;
    pb.finish_with_message(format!(
        "{} ({} steps in {})",
        fmt_ns(tick_ns),
        tick_scan.steps.len(),
        fmt_ns(tick_scan.duration_ns)
    ));

    // Calibrate the busy loop: the slope of reference time against units
    // between 1000 and 2000 units (the call and reference overheads cancel).
    let pb = ctx.progress.spinner("busy-loop calibration", "");
    let (u1, u2) = (1_000u64, 2_000u64);
    for _ in 0..100 {
        event(u2); // warm-up: code in cache, core clock up
    }
    let mut t1 = Vec::with_capacity(p.calibration_samples);
    let mut t2 = Vec::with_capacity(p.calibration_samples);
    for _ in 0..p.calibration_samples {
        // Interleaved, so slow drifts hit both points alike.
        t1.extend(reference_samples(read, ns_per_unit, u1, 1));
        t2.extend(reference_samples(read, ns_per_unit, u2, 1));
    }
    let ns_per_work_unit = (median(&t2) - median(&t1)) / (u2 - u1) as f64;
    if !(ns_per_work_unit.is_finite() && ns_per_work_unit > 0.0) {
        return Err(failure(format!(
            "busy-loop calibration failed: {} ns per unit (medians {} and {})",
            ns_per_work_unit,
            median(&t1),
            median(&t2)
        )));
    }
    pb.finish_with_message(format!("{:.4} ns per unit", ns_per_work_unit));

    let z = z_two_sided(ctx.confidence);
    let goal = Goal {
        tick_ns,
        epsilon: ctx.epsilon,
        z,
    };
    let steal = match Steal::open(pinned_cpu) {
        Ok(s) => Some(s),
        Err(why) => {
            fallbacks.push(format!(
                "no steal time per chunk of Bernoulli trials ({why}): off-CPU time is the chunk's wall time less the thread's CPU time only"
            ));
            None
        }
    };
    let mut plans = Vec::new();
    let mut events: Vec<BernoulliEvent> = Vec::new();
    let mut summary = Vec::new();

    // The empty event: To. Its reference samples are the reference's own
    // overhead (two reads around a zero-unit call).
    let reference_overhead_ns =
        reference_samples(read, ns_per_unit, 0, p.reference_max.max(p.reference_min));
    let bar = ctx.progress.bar("overhead (empty event)", 1);
    let clock = Reference { read, ns_per_unit };
    let (overhead, plan, stopped) = run_trials(
        0,
        median(&reference_overhead_ns),
        &goal,
        &p,
        steal.as_ref(),
        clock,
        &bar,
    );
    bar.finish_with_message(format!("m {} of n {}", overhead.m, overhead.n));
    plans.push(plan_json("overhead", &plan));
    let mut interrupted = stopped.then(|| signals::stop_requested().unwrap_or(libc::SIGINT));

    for &target in TARGETS_NS {
        if interrupted.is_some() {
            break;
        }
        let units = ((target / ns_per_work_unit).round() as u64).max(1);
        let name = busy_name(target);
        // Reference first: it also tells the pilot how long a trial is.
        let count = ((p.reference_budget_s * 1e9 / target) as usize)
            .clamp(p.reference_min, p.reference_max);
        for _ in 0..3 {
            event(units); // warm-up
        }
        let reference_ns = reference_samples(read, ns_per_unit, units, count);
        let bar = ctx.progress.bar(&name, 1);
        let (t, plan, stopped) = run_trials(
            units,
            median(&reference_ns),
            &goal,
            &p,
            steal.as_ref(),
            clock,
            &bar,
        );
        let est = t.m as f64 / t.n.max(1) as f64 * tick_ns;
        bar.finish_with_message(format!(
            "m {} of n {}{}; p·Tc {}",
            t.m,
            t.n,
            if t.capped { " (capped)" } else { "" },
            fmt_ns(est)
        ));
        summary.push(format!(
            "{:<14} units {:>8}  m {:>6} n {:>11} planned {:>12}{}  p·Tc {:>11}  ref median {:>11}",
            name,
            units,
            t.m,
            t.n,
            t.planned,
            if t.capped { " capped" } else { "       " },
            fmt_ns(est),
            fmt_ns(median(&reference_ns))
        ));
        plans.push(plan_json(&name, &plan));
        events.push(BernoulliEvent {
            name,
            target_ns: target,
            work_units: units,
            trials: t,
            reference_ns,
        });
        if stopped {
            interrupted = Some(signals::stop_requested().unwrap_or(libc::SIGINT));
        }
    }
    summary.insert(
        0,
        format!(
            "tick {} ; overhead trials m {} of n {} (p·Tc {}); reference overhead median {}",
            fmt_ns(tick_ns),
            overhead.m,
            overhead.n,
            fmt_ns(overhead.m as f64 / overhead.n.max(1) as f64 * tick_ns),
            fmt_ns(median(&reference_overhead_ns))
        ),
    );

    let data = BernoulliData {
        clock: COARSE_NAME.to_string(),
        tick_ns,
        reference: reference.to_string(),
        epsilon: ctx.epsilon,
        confidence: ctx.confidence,
        budget_s: p.budget_s,
        overhead,
        reference_overhead_ns,
        events,
    };
    let config = json!({
        "mode": if ctx.quick { "quick" } else { "full" },
        "targets_ns": TARGETS_NS,
        "epsilon": ctx.epsilon,
        "confidence": ctx.confidence,
        "z": z,
        "budget_s_per_event": p.budget_s,
        "budget_note": "trials stop at min(planned, budget / pilot trial time), or at 1.25 x budget of wall time; planned is eq. 5 at the pilot's p, re-evaluated at the trials' own p once they hold 30 ticks",
        "chunks": "trials run in chunks of ~2 ms of the thread's CPU time (from the pilot); each chunk's trials, ticks, steps, the coarse clock's advance over it, wall time, its time by the reference clock, thread CPU time (CLOCK_THREAD_CPUTIME_ID), involuntary context switches (getrusage RUSAGE_THREAD) and steal time of the pinned CPU (/proc/stat) are in trials.chunks; no chunk is set aside",
        "chunk_ns": CHUNK_NS,
        "steal_source": steal.as_ref().map(|s| format!("/proc/stat {}", s.label)),
        "pilot_trials_max": p.pilot_trials,
        "pilot_budget_fraction": p.pilot_fraction,
        "block_size": p.block_size,
        "trial_fence": TRIAL_FENCE,
        "reference": reference,
        "reference_ns_per_unit": ns_per_unit,
        "reference_samples": { "max": p.reference_max, "min": p.reference_min, "budget_s": p.reference_budget_s },
        "busy_loop": {
            "kernel": "x = x * 6364136223846793005 + 1442695040888963407 (wrapping u64), one step per unit, #[inline(never)]",
            "ns_per_unit": ns_per_work_unit,
            "calibration_units": [u1, u2],
            "calibration_samples": p.calibration_samples,
            "calibration_median_ns": [median(&t1), median(&t2)],
            "note": "units = round(target / ns_per_unit), at least 1; the call itself adds a few ns not in the target",
        },
        "tick_scan": {
            "steps": tick_scan.steps.len(),
            "duration_ns": tick_scan.duration_ns,
            "reads": tick_scan.reads,
        },
        "plans": plans,
        "pinned_cpu": pinned_cpu,
        "no_counter_flag": ctx.no_counter,
    });
    let data = serde_json::to_value(&data)
        .map_err(|e| failure(format!("cannot serialize bernoulli data: {e}")))?;
    let out = SuiteOutput {
        config,
        fallbacks,
        data,
        summary,
    };
    out.finish(interrupted)
}

fn plan_json(name: &str, p: &Plan) -> serde_json::Value {
    json!({
        "event": name,
        "pilot_n": p.pilot_n,
        "pilot_m": p.pilot_m,
        "planned_from_pilot": p.initial_plan,
        "trial_ns": p.trial_ns,
        "p_planned": p.p,
        "p_source": p.p_source,
        "trials_wall_s": p.wall_s,
        "trials_thread_cpu_s": p.cpu_s,
        "trials_involuntary_switches": p.involuntary_switches,
    })
}

fn busy_name(ns: f64) -> String {
    if ns >= 1e6 {
        format!("busy_{}ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("busy_{}us", ns / 1e3)
    } else {
        format!("busy_{}ns", ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z_values() {
        assert!((z_two_sided(0.95) - 1.959964).abs() < 1e-5);
        assert!((z_two_sided(0.99) - 2.575829).abs() < 1e-5);
        assert!((z_two_sided(0.999999) - 4.891638).abs() < 1e-4);
    }

    #[test]
    fn eq5() {
        // p = 0.5, ε = 0.05, z = 1.96: 1.96² · 0.5 / (0.0025 · 0.5) = 1536.64.
        assert_eq!(planned_trials(0.5, 0.05, 1.96), 1537);
        assert_eq!(planned_trials(1.0, 0.05, 1.96), 1);
        assert!(planned_trials(2.5e-6, 0.05, 1.96) > 600_000_000);
    }

    #[test]
    fn names_and_mode() {
        assert_eq!(busy_name(10.0), "busy_10ns");
        assert_eq!(busy_name(5e3), "busy_5us");
        assert_eq!(busy_name(2e6), "busy_2ms");
        assert_eq!(
            modal_step(&[4_000_000, 4_000_000, 8_000_000, -1]),
            Some(4e6)
        );
        assert_eq!(modal_step(&[]), None);
    }

    #[test]
    fn busy_depends_on_units() {
        assert_ne!(busy(1), busy(2));
        assert_eq!(busy(0), 0x9e37_79b9_7f4a_7c15);
    }
}
