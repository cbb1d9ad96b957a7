//! The `bottleneck` suite (after MTOOL): kernels with
//! known operation mixes — stream triad, strided sum, pointer chase, naive
//! and blocked matrix multiply, a 5-point stencil — over working sets from
//! 4 KiB to past the caches. Each (kernel, size) region is timed
//! repeatedly; its exact operation counts and the per-operation costs
//! (timed here, by the ops suite's sequences, in the same run) go into the
//! file so that the analysis can predict each region's time as if every
//! access hit L1 and report the divergence.
//!
//! Timability (MTOOL's two criteria): a region counts only if its
//! shortest repetition lasts ≥ 1000 clock ticks and ≥ 1000 clock reads.
//! Every kernel also runs one single-pass region at its smallest size,
//! which is usually too short: stored, marked `timable: false` with the
//! reason, so the rule is visible in the data.

mod kernels;

use std::time::Instant;

use serde_json::json;
use tickbook_analysis::format::{Cache, NamedSize};
use tickbook_analysis::stats::bootstrap::median;
use tickbook_analysis::suites::bottleneck::{BottleneckCase, BottleneckData, BottleneckKernel};
use tickbook_analysis::suites::ops::OpMeasurement;

use super::{ops, signals, Ctx, SuiteFailure, SuiteOutput, SuiteResult};
use kernels::Kernel;

/// (name, description, model).
const KERNELS: &[(&str, &str, &str)] = &[
    (
        "triad",
        "a[i] = b[i] + s·c[i] (STREAM triad): 2 loads, 1 FMA, 1 store per element",
        "throughput",
    ),
    (
        "strided_sum",
        "sum += x[8k]: one load per 64-byte line into one accumulator (a chain of adds)",
        "latency",
    ),
    (
        "pointer_chase",
        "p = *p through a random cyclic permutation of 64-byte lines (a chain of loads)",
        "latency",
    ),
    (
        "matmul_naive",
        "C += A·B, 1×8 register block, k over all of n (B walked by column strips)",
        "latency",
    ),
    (
        "matmul_blocked",
        "C += A·B, 1×8 register block, k in tiles of 32 rows of B",
        "latency",
    ),
    (
        "stencil",
        "out = 0.2·(c + w + e + n + s) on an N×N grid: 5 loads, 4 adds, 1 mul, 1 store per point",
        "throughput",
    ),
];

/// The operations the predictions need: (name, form).
const COSTS: &[(&str, &str)] = &[
    ("load_u64", "throughput"),
    ("load_u64", "latency"),
    ("store_u64", "throughput"),
    ("add_f64", "throughput"),
    ("add_f64", "latency"),
    ("mul_f64", "throughput"),
    ("fma_f64", "throughput"),
    ("fma_f64", "latency"),
    ("add_i64", "throughput"),
];

const MIN_TICKS: f64 = 1000.0;
const MIN_READS: f64 = 1000.0;

#[derive(Clone, Copy)]
enum Clock {
    Counter(fn() -> u64),
    Instant(Instant),
}

impl Clock {
    #[inline(always)]
    fn now(&self) -> u64 {
        match self {
            Clock::Counter(read) => read(),
            Clock::Instant(t0) => t0.elapsed().as_nanos() as u64,
        }
    }
}

fn failure(message: String) -> SuiteFailure {
    SuiteFailure {
        message,
        partial: None,
    }
}

fn cache_sizes(caches: &[Cache]) -> Vec<NamedSize> {
    let mut levels: Vec<(u32, u64)> = caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .filter_map(|c| c.size_bytes.map(|s| (c.level, s)))
        .collect();
    levels.sort();
    levels.dedup_by_key(|l| l.0);
    levels
        .into_iter()
        .map(|(level, bytes)| NamedSize {
            name: if level == 1 {
                "L1d".to_string()
            } else {
                format!("L{level}")
            },
            bytes,
        })
        .collect()
}

/// Working-set sizes: powers of 4 (quick) or 2 (full) from 4 KiB to `cap`.
fn sizes(cap: u64, quick: bool) -> Vec<u64> {
    let step = if quick { 4 } else { 2 };
    let mut v = Vec::new();
    let mut s: u64 = 4096;
    while s <= cap {
        v.push(s);
        s *= step;
    }
    v
}

pub fn run(ctx: &Ctx) -> SuiteResult {
    let mut fallbacks: Vec<String> = Vec::new();
    let pinned = super::pin_here(&mut fallbacks);
    let (clock, clock_name, unit, counter_hz) = choose_clock(ctx, &mut fallbacks);
    let ns_per_unit = counter_hz.map_or(1.0, |hz| 1e9 / hz);
    let asm = kernels::asm_available();
    if !asm {
        fallbacks.push(format!(
            "kernels are compiled Rust (portable): no asm kernels for {} without AVX and FMA; counts are the source's operations",
            std::env::consts::ARCH
        ));
    }

    let tick = tick_of(&clock);
    let read_cost = read_costs(&clock, ctx.quick);
    let read_median = median(&read_cost);

    let use_counter = matches!(clock, Clock::Counter(_));
    let costs = operation_costs(ctx, use_counter, &mut fallbacks);

    let host = super::host::collect();
    let caches = cache_sizes(&host.caches);
    let llc = caches.last().map(|c| c.bytes);
    let (cap, size_note) = working_set_cap(ctx.quick, llc);
    fallbacks.extend(emulated_note());
    if let Some(n) = &size_note {
        fallbacks.push(n.clone());
    }
    // Matrix multiply does n³ work: its sizes stop earlier.
    let mm_cap: u64 = if ctx.quick { 8 << 20 } else { 32 << 20 };
    // Short regions (still ≥ 10⁴ clock reads) so that fewer repetitions
    // are cut by a time slice on a busy machine.
    let target_ns: f64 = if ctx.quick { 5e5 } else { 2e6 };
    let reps: usize = if ctx.quick { 15 } else { 30 };

    let plan = regions(cap, mm_cap, ctx.quick);
    let bar = ctx.progress.bar("regions", plan.len() as u64);
    let mut kernels_out: Vec<BottleneckKernel> = Vec::new();
    let mut cases: Vec<BottleneckCase> = Vec::new();
    let mut interrupted = None;
    let time_region = |k: &mut Kernel, passes: u64| -> f64 {
        let t0 = clock.now();
        k.run(asm, passes);
        let t1 = clock.now();
        t1.wrapping_sub(t0) as f64
    };

    'kernels: for (ki, (name, description, model)) in KERNELS.iter().enumerate() {
        let mut max_ws = 0;
        let mut note = size_note.clone();
        if name.starts_with("matmul") && mm_cap < cap {
            note = Some(format!(
                "matrix multiply does n³ work: sizes stop at {} MiB",
                mm_cap >> 20
            ));
        }
        for &(_, ws) in plan.iter().filter(|(k, _)| *k == ki) {
            if let Some(sig) = signals::stop_requested() {
                interrupted = Some(sig);
                break 'kernels;
            }
            bar.set_message(format!("{name} {} KiB", ws >> 10));
            let mut k = Kernel::build(name, ws);
            max_ws = max_ws.max(k.bytes());
            // Warm the caches (and the pages) with one pass, then size the
            // region from a second.
            k.run(asm, 1);
            let one = time_region(&mut k, 1) * ns_per_unit;
            let passes = ((target_ns / one.max(1.0)).ceil() as u64).max(1);
            let mut runs = vec![passes];
            if cases.iter().all(|c| c.kernel != *name) && passes > 1 {
                // The smallest size once more with a single pass: the
                // timability probe.
                runs.insert(0, 1);
            }
            for p in runs {
                let times: Vec<f64> = (0..reps).map(|_| time_region(&mut k, p)).collect();
                let (ok, why) = timable(&times, tick, read_median, unit);
                let (counts, chain) = k.counts(asm, p);
                cases.push(BottleneckCase {
                    kernel: name.to_string(),
                    working_set_bytes: k.bytes(),
                    shape: k.shape(),
                    passes: p,
                    counts,
                    chain,
                    times,
                    timable: ok,
                    untimable_reason: why,
                });
            }
            bar.inc(1);
        }
        kernels_out.push(BottleneckKernel {
            name: name.to_string(),
            description: description.to_string(),
            model: model.to_string(),
            implementation: if asm { "asm" } else { "portable" }.to_string(),
            max_working_set_bytes: max_ws,
            size_note: note.take(),
        });
        let partial = output(
            ctx,
            &clock_name,
            unit,
            counter_hz,
            tick,
            &read_cost,
            &costs,
            &caches,
            &kernels_out,
            &cases,
            &fallbacks,
            pinned.cpu,
            asm,
        )?;
        (ctx.checkpoint)(&partial);
    }
    bar.finish_with_message(format!("{} regions", cases.len()));
    let mut out = output(
        ctx,
        &clock_name,
        unit,
        counter_hz,
        tick,
        &read_cost,
        &costs,
        &caches,
        &kernels_out,
        &cases,
        &fallbacks,
        pinned.cpu,
        asm,
    )?;
    out.summary = summary(&cases, kernels_out.len(), reps, read_median, unit);
    out.finish(interrupted)
}

/// The clock regions and costs are timed with: the ordered counter when
/// it is usable, else `Instant` (noted in `fallbacks`); with its name, its
/// unit and the counter's frequency.
fn choose_clock(
    ctx: &Ctx,
    fallbacks: &mut Vec<String>,
) -> (Clock, String, &'static str, Option<f64>) {
    let counter = super::counter(ctx);
    fallbacks.extend(counter.fallbacks.iter().cloned());
    match counter.reader() {
        Some((read, ns_per_tick)) => (
            Clock::Counter(read),
            super::tsc::ORDERED_NAME.to_string(),
            "counter_ticks",
            Some(1e9 / ns_per_tick),
        ),
        None => {
            fallbacks.push(format!(
                "regions and costs timed with std::time::Instant instead of {}: no usable counter or frequency",
                super::tsc::ORDERED_NAME
            ));
            (
                Clock::Instant(Instant::now()),
                "std::time::Instant".to_string(),
                "ns",
                None,
            )
        }
    }
}

/// The clock's tick in its unit: 1 for the counter, the smallest step
/// seen over 100,000 reads for `Instant`.
fn tick_of(clock: &Clock) -> f64 {
    match clock {
        Clock::Counter(_) => 1.0,
        Clock::Instant(_) => {
            let mut best = u64::MAX;
            let mut last = clock.now();
            for _ in 0..100_000 {
                let t = clock.now();
                if t > last {
                    best = best.min(t - last);
                }
                last = t;
            }
            if best == u64::MAX {
                1.0
            } else {
                best as f64
            }
        }
    }
}

/// The cost of one clock read, in its unit, per batch of 1,000 reads.
fn read_costs(clock: &Clock, quick: bool) -> Vec<f64> {
    let batches = if quick { 100 } else { 1000 };
    let mut read_cost = Vec::with_capacity(batches);
    for _ in 0..batches {
        let t0 = clock.now();
        for _ in 0..1000 {
            std::hint::black_box(clock.now());
        }
        let t1 = clock.now();
        read_cost.push(t1.wrapping_sub(t0) as f64 / 1001.0);
    }
    read_cost
}

/// The operation costs the predictions need, timed in this run by the ops
/// suite's sequences (and a loop's back edge); those not measured are
/// noted in `fallbacks`.
fn operation_costs(
    ctx: &Ctx,
    use_counter: bool,
    fallbacks: &mut Vec<String>,
) -> Vec<OpMeasurement> {
    let pb = ctx.progress.spinner("operation costs", "");
    let cost_reps = if ctx.quick { 200 } else { 1000 };
    let mut costs = ops::measure_selected(COSTS, cost_reps, use_counter);
    costs.push(loop_branch_cost(cost_reps, use_counter));
    for c in costs.iter().filter(|c| !c.available) {
        fallbacks.push(format!(
            "cost of {} ({}) not measured: {}; predictions that need it are left out",
            c.name,
            c.form,
            c.unavailable_reason.as_deref().unwrap_or("unavailable")
        ));
    }
    pb.finish_with_message(format!("{} sequences", costs.len()));
    costs
}

/// The largest working set, and why it stops short of past the last-level
/// cache (`llc`) when it does.
fn working_set_cap(quick: bool, llc: Option<u64>) -> (u64, Option<String>) {
    let mem_total = super::host::read_text("/proc/meminfo")
        .ok()
        .and_then(|t| super::host::meminfo_total_bytes(&t));
    // Sizes: quick stops at 64 MiB; full goes to 4 × the LLC (at least
    // 64 MiB), within a quarter of the memory.
    let mut cap: u64 = if quick {
        64 << 20
    } else {
        (4 * llc.unwrap_or(16 << 20)).max(64 << 20)
    };
    if let Some(m) = mem_total {
        while cap > (64 << 20) && cap * 2 > m / 4 {
            cap /= 2;
        }
    }
    if emulated_note().is_some() {
        cap = cap.min(EMULATED_CAP);
    }
    let size_note = match llc {
        Some(l) if cap <= l => Some(format!(
            "largest working set {} MiB is within the last-level cache ({} MiB): {}; overhead beyond the LLC is not measured",
            cap >> 20,
            l >> 20,
            if quick { "quick mode stops at 64 MiB" } else { "limited by memory" }
        )),
        Some(_) => None,
        None => Some("no cache sizes known (sysfs): sizes go to 64 MiB and cannot be placed in a cache level".to_string()),
    };
    (cap, size_note)
}

/// MTOOL's two criteria: a region counts only if its shortest repetition
/// lasts at least [`MIN_TICKS`] clock ticks and [`MIN_READS`] clock reads;
/// the reason when it does not.
fn timable(times: &[f64], tick: f64, read_median: f64, unit: &str) -> (bool, Option<String>) {
    let shortest = times.iter().copied().fold(f64::INFINITY, f64::min);
    if shortest < MIN_TICKS * tick {
        (
            false,
            Some(format!(
                "shortest repetition {shortest:.0} {unit} < {MIN_TICKS} clock ticks ({tick} {unit} each)"
            )),
        )
    } else if shortest < MIN_READS * read_median {
        (
            false,
            Some(format!(
                "shortest repetition {shortest:.0} {unit} < {MIN_READS} clock reads ({read_median:.1} {unit} each)"
            )),
        )
    } else {
        (true, None)
    }
}

/// The regions to time, as (kernel, working-set size): each kernel's sizes
/// up to `cap`, matrix multiply's up to `mm_cap`.
fn regions(cap: u64, mm_cap: u64, quick: bool) -> Vec<(usize, u64)> {
    KERNELS
        .iter()
        .enumerate()
        .flat_map(|(k, (name, _, _))| {
            let c = if name.starts_with("matmul") {
                mm_cap.min(cap)
            } else {
                cap
            };
            sizes(c, quick).into_iter().map(move |s| (k, s))
        })
        .collect()
}

/// The run's summary lines.
fn summary(
    cases: &[BottleneckCase],
    kernels: usize,
    reps: usize,
    read_median: f64,
    unit: &str,
) -> Vec<String> {
    let untimable = cases.iter().filter(|c| !c.timable).count();
    vec![
        format!(
            "{} regions of {} kernels ({} not timable), {} repetitions each, working sets {} KiB to {} MiB",
            cases.len(),
            kernels,
            untimable,
            reps,
            cases.iter().map(|c| c.working_set_bytes).min().unwrap_or(0) >> 10,
            cases.iter().map(|c| c.working_set_bytes).max().unwrap_or(0) >> 20
        ),
        format!("clock read {read_median:.1} {unit}; predictions and overheads: tickbook analyze"),
    ]
}

/// Under an emulator (whose floating point is software, ten to a hundred
/// times slower) the largest working sets would take minutes; up to 1 MiB
/// every kernel still runs.
const EMULATED_CAP: u64 = 1 << 20;

/// The fallback that says so, under an emulator.
fn emulated_note() -> Option<String> {
    super::emulation::emulated().map(|_| {
        "emulated: working sets stop at 1 MiB; an emulator's timings mean nothing, and larger ones take minutes"
            .to_string()
    })
}

/// The cost of a loop's back edge: a loop whose body is only its
/// `dec`/`jnz`, n and 2n iterations, timed like the ops sequences. The ops
/// table's `branch_taken` (1000 copies of `cmp; jne` to the next
/// instruction) measures a dense run of distinct taken branches, which the
/// front end serves far slower than the one hot back edge of a loop.
fn loop_branch_cost(reps: usize, use_counter: bool) -> OpMeasurement {
    let mut m = OpMeasurement {
        name: kernels::BRANCH.to_string(),
        group: "branch".to_string(),
        form: "throughput".to_string(),
        implementation: "asm".to_string(),
        instruction: None,
        available: false,
        unavailable_reason: None,
        portable_n_ns: Vec::new(),
        portable_2n_ns: Vec::new(),
        counter_n_ticks: Vec::new(),
        counter_2n_ticks: Vec::new(),
    };
    #[allow(unused_variables)]
    let run = |iters: u64| -> (f64, f64) {
        ops::timed(use_counter, || {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: register-only loop on the declared operand.
            unsafe {
                core::arch::asm!("2:", "dec {n}", "jnz 2b", n = inout(reg) iters => _, options(nostack, nomem));
            }
            #[cfg(target_arch = "aarch64")]
            // SAFETY: as above.
            unsafe {
                core::arch::asm!("2:", "subs {n}, {n}, #1", "b.ne 2b", n = inout(reg) iters => _, options(nostack, nomem));
            }
        })
    };
    if !cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
        m.unavailable_reason = Some(format!("no asm loop for {}", std::env::consts::ARCH));
        return m;
    }
    m.instruction = Some(if cfg!(target_arch = "x86_64") {
        "2: dec rcx; jnz 2b".to_string()
    } else {
        "2: subs x0, x0, #1; b.ne 2b".to_string()
    });
    m.available = true;
    let n = ops::COPIES as u64;
    for _ in 0..3 {
        run(n);
        run(2 * n);
    }
    for _ in 0..reps {
        let (a_ns, a_t) = run(n);
        let (b_ns, b_t) = run(2 * n);
        m.portable_n_ns.push(a_ns);
        m.portable_2n_ns.push(b_ns);
        if use_counter {
            m.counter_n_ticks.push(a_t);
            m.counter_2n_ticks.push(b_t);
        }
    }
    m
}

#[allow(clippy::too_many_arguments)]
fn output(
    ctx: &Ctx,
    clock: &str,
    unit: &str,
    counter_hz: Option<f64>,
    tick: f64,
    read_cost: &[f64],
    costs: &[OpMeasurement],
    caches: &[NamedSize],
    kernels: &[BottleneckKernel],
    cases: &[BottleneckCase],
    fallbacks: &[String],
    pinned_cpu: Option<usize>,
    asm: bool,
) -> Result<SuiteOutput, SuiteFailure> {
    let data = BottleneckData {
        clock: clock.to_string(),
        unit: unit.to_string(),
        counter_hz,
        tick,
        read_cost: read_cost.to_vec(),
        min_tick_multiple: MIN_TICKS,
        min_read_multiple: MIN_READS,
        copies: ops::COPIES as u32,
        costs: costs.to_vec(),
        cache_bytes: caches.to_vec(),
        kernels: kernels.to_vec(),
        cases: cases.to_vec(),
    };
    let config = json!({
        "mode": if ctx.quick { "quick" } else { "full" },
        "repetitions": if ctx.quick { 15 } else { 30 },
        "region_target_ms": if ctx.quick { 0.5 } else { 2.0 },
        "pinned_cpu": pinned_cpu,
        "kernels": if asm { kernels::ASM_KERNELS } else { "portable (compiled Rust)" },
        "timing": "clock read, `passes` sweeps of the kernel, clock read; one warm-up pass first",
        "sizes": if ctx.quick { "powers of 4 from 4 KiB" } else { "powers of 2 from 4 KiB" },
        "no_counter_flag": ctx.no_counter,
    });
    let data = serde_json::to_value(&data)
        .map_err(|e| failure(format!("cannot serialize bottleneck data: {e}")))?;
    Ok(SuiteOutput {
        config,
        fallbacks: fallbacks.to_vec(),
        data,
        summary: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_powers() {
        assert_eq!(sizes(64 << 10, true), vec![4096, 16384, 65536]);
        assert_eq!(sizes(32 << 10, false), vec![4096, 8192, 16384, 32768]);
    }
}
