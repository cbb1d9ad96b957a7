//! The `ops` suite (Lambert and Power's "homogeneous sequences"): primitive
//! operations, each timed as a sequence of n = 1000 copies and of 2n copies,
//! so that the clock reads and set-up cancel in (t(2n) − t(n)) / n (the
//! analysis does that division). Every repetition is timed by the portable
//! clock (`std::time::Instant`) and, inside it, by the cycle counter.
//!
//! On x86_64 and aarch64 the sequences are exact instruction sequences
//! (`x86.rs`, `aarch64.rs`); elsewhere they are compiled Rust
//! (`portable.rs`), recorded as such.

#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "x86_64")]
mod x86;

mod portable;

use std::hint::black_box;
use std::time::Instant;

use serde_json::json;
use tickbook_analysis::stats::bootstrap::median;
use tickbook_analysis::stats::differential::per_copy;
use tickbook_analysis::suites::ops::{issue, CoreClock, OpMeasurement, OpsData, OpsProbe};

use super::{signals, Ctx, SuiteFailure, SuiteOutput, SuiteResult};

/// n: copies in the short sequence.
pub const COPIES: usize = 1000;

/// Register inputs of an asm sequence: rax, rcx, rdx, rsi, rdi, r8..r15,
/// then xmm0..xmm11 as raw bits (on aarch64 x0..x12, then v0..v11). Unused
/// by portable entries.
#[derive(Clone, Copy)]
pub struct Init {
    pub g: [u64; 13],
    pub x: [u64; 12],
}

/// Which buffer rsi/rdi (aarch64: x3/x4) point into, filled in at run time.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ptr {
    None,
    /// rsi = scratch (x87 constants at +0/+8, stores at +64..+128, the saved
    /// MXCSR at +256/+260), rdi =
    /// the pointer-chase ring.
    Mem,
    /// rsi = the branch table (one byte per copy).
    Table,
}

/// One timed form of one operation.
pub struct OpDef {
    pub name: &'static str,
    pub group: &'static str,
    pub form: &'static str,
    pub implementation: &'static str,
    pub instruction: &'static str,
    /// CPU feature the instruction needs (checked at run time).
    pub requires: Option<&'static str>,
    pub init: Init,
    pub ptr: Ptr,
    /// Time one sequence: (2n copies?, read the counter?, inputs) →
    /// (portable ns, counter ticks).
    pub run: fn(bool, bool, &Init) -> (f64, f64),
}

/// The counter read around a sequence (only called when it is usable).
#[inline(always)]
fn counter_read() -> u64 {
    #[cfg(target_arch = "x86_64")]
    return super::tsc::lfence_rdtsc();
    #[cfg(target_arch = "aarch64")]
    return super::tsc::cntvct();
    #[allow(unreachable_code)]
    0
}

/// Time `f` with the portable clock outside and the counter inside.
#[inline(always)]
pub fn timed<T>(counter: bool, f: impl FnOnce() -> T) -> (f64, f64) {
    let t0 = Instant::now();
    let c0 = if counter { counter_read() } else { 0 };
    black_box(f());
    let c1 = if counter { counter_read() } else { 0 };
    let ns = t0.elapsed().as_nanos() as f64;
    (ns, c1.wrapping_sub(c0) as f64)
}

/// Buffers the memory and branch sequences use. Sized for 2n copies.
struct Env {
    /// A ring of 16 pointers, one per 64-byte line, inside one 4 KiB block.
    ring: Vec<u64>,
    scratch: Vec<u64>,
    table: Vec<u8>,
    rng: u64,
}

impl Env {
    fn new() -> Self {
        let mut ring = vec![0u64; 512];
        let base = ring.as_ptr() as u64;
        // Visit lines in a scrambled order (7 is coprime to 16) so the next
        // address is not simply the next line.
        for k in 0..16usize {
            let here = (k * 7 % 16) * 8;
            let next = ((k + 1) * 7 % 16) * 8;
            ring[here] = base + (next * 8) as u64;
        }
        let mut scratch = vec![0u64; 64];
        scratch[0] = (1e6f64 + 0.25).to_bits();
        scratch[1] = std::f64::consts::PI.to_bits();
        Env {
            ring,
            scratch,
            table: vec![1u8; 4 * COPIES],
            rng: 0x2545_f491_4f6c_dd1d,
        }
    }

    fn resolve(&mut self, d: &OpDef) -> Init {
        let mut i = d.init;
        match d.ptr {
            Ptr::None => {}
            Ptr::Mem => {
                i.g[3] = self.scratch.as_mut_ptr() as u64;
                i.g[4] = self.ring.as_ptr() as u64;
            }
            Ptr::Table => i.g[3] = self.table.as_ptr() as u64,
        }
        i
    }

    /// Before each timing: the branch table is redrawn for the
    /// unpredictable branch, all ones for its predictable baseline.
    fn prepare(&mut self, d: &OpDef) {
        match d.name {
            "branch_unpredictable" => {
                for b in self.table.iter_mut() {
                    // xorshift64
                    self.rng ^= self.rng << 13;
                    self.rng ^= self.rng >> 7;
                    self.rng ^= self.rng << 17;
                    *b = (self.rng >> 32) as u8 & 1;
                }
            }
            "branch_table_predictable" => self.table.fill(1),
            _ => {}
        }
    }
}

fn feature_ok(req: Option<&str>) -> Result<(), String> {
    let Some(f) = req else { return Ok(()) };
    #[cfg(target_arch = "x86_64")]
    if x86::has_feature(f) {
        return Ok(());
    }
    Err(format!("the CPU does not report {f}"))
}

fn table() -> (Vec<OpDef>, Vec<String>) {
    #[allow(unused_mut)] // pushed to only where there is no asm table
    let mut notes: Vec<String> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    let mut t = x86::table();
    #[cfg(target_arch = "aarch64")]
    let mut t = aarch64::table();
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let mut t = {
        notes.push(format!(
            "no asm table for {}: every operation is the portable Rust form (loop + black_box per copy)",
            std::env::consts::ARCH
        ));
        portable::table()
    };
    // The floating remainder through libm as well as (on x86) FPREM.
    if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
        t.extend(portable::libm_fmod());
    }
    (t, notes)
}

/// The operations of the x86 table this architecture has no single
/// instruction for: (name, group, why), recorded as unavailable.
fn lacking() -> Vec<(&'static str, &'static str, &'static str)> {
    #[cfg(target_arch = "aarch64")]
    return aarch64::lacking()
        .into_iter()
        .map(|l| (l.name, l.group, l.reason))
        .collect();
    #[allow(unreachable_code)]
    Vec::new()
}

/// Dependent adds in the short core-clock chain: 10 blocks of 1000, about
/// 3–10 µs, so few samples meet an interrupt or a host preemption (samples
/// of a million adds, 340 µs, met enough of them on a busy host to move the
/// median by 7 %).
const CORE_CLOCK_BLOCKS: u64 = 10;
const CORE_CLOCK_ADDS: u64 = CORE_CLOCK_BLOCKS * 1000;

/// One core-clock sample: counter ticks for n and for 2n dependent adds
/// (the difference cancels the counter reads), and n.
#[cfg(target_arch = "x86_64")]
fn core_clock_sample() -> Option<(f64, f64, u64)> {
    let n = x86::core_clock_sample(CORE_CLOCK_BLOCKS);
    let n2 = x86::core_clock_sample(2 * CORE_CLOCK_BLOCKS);
    Some((n, n2, CORE_CLOCK_ADDS))
}

#[cfg(target_arch = "aarch64")]
fn core_clock_sample() -> Option<(f64, f64, u64)> {
    let n = aarch64_add_chain(CORE_CLOCK_BLOCKS);
    let n2 = aarch64_add_chain(2 * CORE_CLOCK_BLOCKS);
    Some((n, n2, CORE_CLOCK_ADDS))
}

// Never inlined: branch relaxation counts a `.rept` block as one
// instruction, so a short branch of the caller across several inlined
// copies could end out of range (see `aarch64.rs`).
#[cfg(target_arch = "aarch64")]
#[inline(never)]
fn aarch64_add_chain(blocks: u64) -> f64 {
    let c0 = super::tsc::cntvct();
    // SAFETY: register-only arithmetic on the declared operands.
    unsafe {
        core::arch::asm!(
            "2:",
            ".rept 1000",
            "add {x}, {x}, {one}",
            ".endr",
            "subs {n}, {n}, #1",
            "b.ne 2b",
            x = inout(reg) 0u64 => _,
            one = in(reg) 1u64,
            n = inout(reg) blocks.max(1) => _,
            options(nostack, nomem),
        );
    }
    let c1 = super::tsc::cntvct();
    c1.wrapping_sub(c0) as f64
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn core_clock_sample() -> Option<(f64, f64, u64)> {
    None
}

/// Counter ticks per core cycle now: the median over 21 short add chains of
/// (t(2n) − t(n)) / n after three to warm up, about 0.5 ms in all; `None`
/// where there is no chain. For the run's environment samples.
pub(crate) fn counter_ticks_per_cycle() -> Option<f64> {
    for _ in 0..3 {
        core_clock_sample()?;
    }
    let per_add: Vec<f64> = (0..21)
        .filter_map(|_| core_clock_sample())
        .map(|(t, t2, adds)| (t2 - t) / adds as f64)
        .collect();
    finite_median(&per_add).filter(|v| *v > 0.0)
}

/// Median over repetitions of (t(2n) − t(n)) / n: `n_copies[i]` and
/// `two_n[i]` are one repetition's times of n and of 2n copies. `None` when
/// there is no copy to divide by or no repetition with both times finite.
pub fn per_op(n_copies: &[f64], two_n: &[f64], copies: u32) -> Option<f64> {
    if copies == 0 {
        return None;
    }
    finite_median(&per_copy(n_copies, two_n, copies.into()))
}

/// The median of the finite values, or `None` when there are none.
fn finite_median(xs: &[f64]) -> Option<f64> {
    let finite: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    (!finite.is_empty()).then(|| median(&finite))
}

fn failure(message: String) -> SuiteFailure {
    SuiteFailure {
        message,
        partial: None,
    }
}

pub fn run(ctx: &Ctx) -> SuiteResult {
    let reps: usize = if ctx.quick { 100 } else { 1000 };
    let warmup: usize = 3;
    let core_samples: usize = if ctx.quick { 200 } else { 1000 };
    let core_samples_after: usize = if ctx.quick { 8 } else { 40 };
    let mut fallbacks: Vec<String> = Vec::new();
    let pinned = super::pin_here(&mut fallbacks);
    let pinned_cpu = pinned.cpu;
    let counter = super::counter(ctx);
    fallbacks.extend(counter.fallbacks.iter().cloned());
    let use_counter = counter.support.usable();
    let counter_hz = counter.hz.as_ref().map(|h| h.0).filter(|_| use_counter);
    if !use_counter {
        fallbacks.push(
            "ops timed by the portable clock only: no usable cycle counter (counter_* empty, no core clock)"
                .to_string(),
        );
    }

    let (defs, notes) = table();
    fallbacks.extend(notes);
    let mut env = Env::new();

    // Bring the core clock up before anything is timed.
    let spin = Instant::now();
    while spin.elapsed().as_millis() < 100 {
        black_box(portable::libm_fmod().len());
    }

    // Core clock: samples before the operations and one after each, so
    // that its median sees the same frequency history as the operations
    // (a VM's turbo clock drifts with the host's load).
    let mut core_clock = None;
    if use_counter {
        let pb = ctx.progress.spinner("core clock", "dependent adds");
        let mut ticks = Vec::with_capacity(core_samples);
        let mut ticks_2n = Vec::with_capacity(core_samples);
        let mut adds = 0;
        for _ in 0..10 {
            let _ = core_clock_sample();
        }
        for _ in 0..core_samples {
            if let Some((t, t2, a)) = core_clock_sample() {
                ticks.push(t);
                ticks_2n.push(t2);
                adds = a;
            }
        }
        if ticks.is_empty() {
            pb.finish_with_message("no asm add chain for this architecture");
            fallbacks.push(format!(
                "no core clock: no asm add chain for {}",
                std::env::consts::ARCH
            ));
        } else {
            let c = CoreClock {
                adds,
                ticks,
                ticks_2n,
            };
            let tpc = finite_median(&c.ticks_per_add()).unwrap_or(f64::NAN);
            pb.finish_with_message(format!("{tpc:.4} counter ticks per core cycle"));
            core_clock = Some(c);
        }
    }

    // The one-cycle ALU operations once before the table and once after:
    // whether the core's issue width was this thread's alone at both ends.
    let probe_reps = reps.min(200);
    let mut probes = vec![OpsProbe {
        at: "start".to_string(),
        ops: measure_selected(issue::PROBED, probe_reps, use_counter),
    }];

    let bar = ctx.progress.bar("operations", defs.len() as u64);
    let mut ops: Vec<OpMeasurement> = Vec::with_capacity(defs.len());
    let mut interrupted = None;
    for (i, d) in defs.iter().enumerate() {
        // The core clock, steal and waits halfway, so that a one-suite run
        // has a middle too.
        if i == defs.len() / 2 {
            (ctx.env_sample)("middle of ops");
        }
        if let Some(sig) = signals::stop_requested() {
            interrupted = Some(sig);
            break;
        }
        bar.set_message(format!("{} {}", d.name, d.form));
        let mut m = OpMeasurement {
            name: d.name.to_string(),
            group: d.group.to_string(),
            form: d.form.to_string(),
            implementation: d.implementation.to_string(),
            instruction: Some(d.instruction.to_string()),
            available: true,
            unavailable_reason: None,
            portable_n_ns: Vec::with_capacity(reps),
            portable_2n_ns: Vec::with_capacity(reps),
            counter_n_ticks: Vec::new(),
            counter_2n_ticks: Vec::new(),
        };
        if let Err(why) = feature_ok(d.requires) {
            m.available = false;
            fallbacks.push(format!("{} ({}) unavailable: {why}", d.name, d.form));
            m.unavailable_reason = Some(why);
            ops.push(m);
            bar.inc(1);
            continue;
        }
        let init = env.resolve(d);
        for _ in 0..warmup {
            env.prepare(d);
            (d.run)(false, use_counter, &init);
            env.prepare(d);
            (d.run)(true, use_counter, &init);
        }
        for _ in 0..reps {
            // n and 2n alternate, so slow drifts affect both alike.
            env.prepare(d);
            let (a_ns, a_t) = (d.run)(false, use_counter, &init);
            env.prepare(d);
            let (b_ns, b_t) = (d.run)(true, use_counter, &init);
            m.portable_n_ns.push(a_ns);
            m.portable_2n_ns.push(b_ns);
            if use_counter {
                m.counter_n_ticks.push(a_t);
                m.counter_2n_ticks.push(b_t);
            }
        }
        ops.push(m);
        if let Some(c) = core_clock.as_mut() {
            let c: &mut CoreClock = c;
            for _ in 0..core_samples_after {
                if let Some((t, t2, _)) = core_clock_sample() {
                    c.ticks.push(t);
                    c.ticks_2n.push(t2);
                }
            }
        }
        bar.inc(1);
    }
    let missing = lacking();
    if interrupted.is_none() && !missing.is_empty() {
        for &(name, group, why) in &missing {
            for form in ["latency", "throughput"] {
                ops.push(OpMeasurement {
                    name: name.to_string(),
                    group: group.to_string(),
                    form: form.to_string(),
                    implementation: "asm".to_string(),
                    instruction: None,
                    available: false,
                    unavailable_reason: Some(why.to_string()),
                    portable_n_ns: Vec::new(),
                    portable_2n_ns: Vec::new(),
                    counter_n_ticks: Vec::new(),
                    counter_2n_ticks: Vec::new(),
                });
            }
        }
        let names: Vec<&str> = missing.iter().map(|m| m.0).collect();
        fallbacks.push(format!(
            "{} has no single instruction for {} operation(s) of the x86 table, recorded as unavailable with the reason: {}",
            std::env::consts::ARCH,
            names.len(),
            names.join(", ")
        ));
    }
    bar.finish_with_message(format!("{} sequences", ops.len()));
    if interrupted.is_none() {
        probes.push(OpsProbe {
            at: "end".to_string(),
            ops: measure_selected(issue::PROBED, probe_reps, use_counter),
        });
    }

    let summary = summary_lines(&ops, core_clock.as_ref());
    let data = OpsData {
        portable_clock: "std::time::Instant".to_string(),
        counter_clock: use_counter.then(|| super::tsc::ORDERED_NAME.to_string()),
        counter_hz,
        copies: COPIES as u32,
        repetitions: reps as u32,
        core_clock,
        ops,
        probes,
    };
    let config = json!({
        "mode": if ctx.quick { "quick" } else { "full" },
        "copies": COPIES,
        "repetitions": reps,
        "warmup_runs_per_length": warmup,
    "core_clock_samples": format!(
            "{core_samples} before the operations, then {core_samples_after} after each"
        ),
        "probes": format!(
            "the one-cycle ALU operations ({}) timed again before and after the table, {probe_reps} repetitions each",
            issue::PROBED.iter().map(|(n, f)| format!("{n} {f}")).collect::<Vec<_>>().join(", ")
        ),
        "pinned_cpu": pinned_cpu,
        "counter": {
            "clock": super::tsc::ORDERED_NAME,
            "usable": use_counter,
            "unavailable": counter.support.unavailable,
            "hz": counter_hz,
            "hz_source": counter.hz.as_ref().map(|h| h.1.clone()),
        },
        "timing": "Instant::now, counter read, the sequence, counter read, Instant elapsed; n and 2n alternate",
        "asm_forms": "latency: one dependency chain; throughput: 8 (GPR) or 10 (xmm) accumulators in rotation, or copies with constant inputs",
        "no_counter_flag": ctx.no_counter,
    });
    let data = serde_json::to_value(&data)
        .map_err(|e| failure(format!("cannot serialize ops data: {e}")))?;
    let out = SuiteOutput {
        config,
        fallbacks,
        data,
        summary,
    };
    out.finish(interrupted)
}

/// The table as `collect ops --quick` times it (well under a second), for
/// `tickbook doctor`'s shared-core check: its data, or why there is none.
pub(crate) fn quick_table(no_counter: bool) -> Result<OpsData, String> {
    let progress = super::progress::Progress::hidden();
    let ctx = Ctx {
        quick: true,
        no_counter,
        epsilon: 0.05,
        confidence: 0.95,
        progress: &progress,
        executions: 1,
        measurements: None,
        execution_timeout: None,
        checkpoint: &|_| {},
        env_sample: &|_| {},
    };
    let out = run(&ctx).map_err(|f| f.message)?;
    serde_json::from_value(out.data).map_err(|e| format!("the ops data did not read back: {e}"))
}

/// Time the named `(name, form)` sequences exactly as [`run`] does (warm-up,
/// n and 2n alternating, portable clock outside, counter inside), for a
/// suite that needs a few operation costs measured in the same run (the
/// bottleneck suite's predictions). A pair this build does not have, or
/// whose CPU feature is missing, comes back with `available: false`.
pub fn measure_selected(
    select: &[(&str, &str)],
    reps: usize,
    use_counter: bool,
) -> Vec<OpMeasurement> {
    let (defs, _) = table();
    let mut env = Env::new();
    let mut out = Vec::with_capacity(select.len());
    for &(name, form) in select {
        let mut m = OpMeasurement {
            name: name.to_string(),
            group: String::new(),
            form: form.to_string(),
            implementation: String::new(),
            instruction: None,
            available: false,
            unavailable_reason: None,
            portable_n_ns: Vec::new(),
            portable_2n_ns: Vec::new(),
            counter_n_ticks: Vec::new(),
            counter_2n_ticks: Vec::new(),
        };
        let Some(d) = defs.iter().find(|d| d.name == name && d.form == form) else {
            m.unavailable_reason = Some(lacking().into_iter().find(|l| l.0 == name).map_or_else(
                || {
                    format!(
                        "no {form} sequence of {name} for {}",
                        std::env::consts::ARCH
                    )
                },
                |l| l.2.to_string(),
            ));
            out.push(m);
            continue;
        };
        m.group = d.group.to_string();
        m.implementation = d.implementation.to_string();
        m.instruction = Some(d.instruction.to_string());
        if let Err(why) = feature_ok(d.requires) {
            m.unavailable_reason = Some(why);
            out.push(m);
            continue;
        }
        m.available = true;
        let init = env.resolve(d);
        for _ in 0..3 {
            env.prepare(d);
            (d.run)(false, use_counter, &init);
            env.prepare(d);
            (d.run)(true, use_counter, &init);
        }
        for _ in 0..reps {
            env.prepare(d);
            let (a_ns, a_t) = (d.run)(false, use_counter, &init);
            env.prepare(d);
            let (b_ns, b_t) = (d.run)(true, use_counter, &init);
            m.portable_n_ns.push(a_ns);
            m.portable_2n_ns.push(b_ns);
            if use_counter {
                m.counter_n_ticks.push(a_t);
                m.counter_2n_ticks.push(b_t);
            }
        }
        out.push(m);
    }
    out
}

/// Per-op cost in core cycles (counter) for a few landmark operations.
fn summary_lines(ops: &[OpMeasurement], core: Option<&CoreClock>) -> Vec<String> {
    let available = ops.iter().filter(|o| o.available).count();
    let names: std::collections::BTreeSet<&str> = ops.iter().map(|o| o.name.as_str()).collect();
    let mut out = vec![format!(
        "{} operations, {} sequences ({} available)",
        names.len(),
        ops.len(),
        available
    )];
    let Some(tpc) = core.and_then(|c| finite_median(&c.ticks_per_add())) else {
        out.push("no core clock: per-op cycles not shown".to_string());
        return out;
    };
    out.push(format!("{tpc:.4} counter ticks per core cycle"));
    let mut line = String::from("latency, core cycles:");
    for name in [
        "add_i64", "mul_i64", "div_u64", "add_f64", "mul_f64", "div_f64", "sqrt_f64", "load_u64",
    ] {
        if let Some(o) = ops
            .iter()
            .find(|o| o.name == name && o.form == "latency" && o.available)
        {
            if let Some(t) = per_op(&o.counter_n_ticks, &o.counter_2n_ticks, COPIES as u32) {
                line.push_str(&format!(" {name} {:.2}", t / tpc));
            }
        }
    }
    out.push(line);
    out
}

#[cfg(test)]
mod tests {
    use super::per_op;

    /// A sequence that rounds up (the square-root chains) puts the caller's
    /// MXCSR back: every x86 sequence leaves its controls (rounding, masks,
    /// DAZ/FTZ; not the sticky exception flags) as it found them.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn every_sequence_leaves_mxcsr_as_it_found_it() {
        fn mxcsr() -> u32 {
            let mut v: u32 = 0;
            // SAFETY: stores MXCSR into a local.
            unsafe {
                core::arch::asm!("stmxcsr [{}]", in(reg) &mut v, options(nostack));
            }
            // Bits 0–5 are the sticky exception flags any inexact op sets.
            v & !0x3f
        }
        let mut env = super::Env::new();
        let before = mxcsr();
        let mut rounding = 0;
        for d in super::x86::table() {
            if super::feature_ok(d.requires).is_err() {
                continue;
            }
            let init = env.resolve(&d);
            env.prepare(&d);
            (d.run)(false, false, &init);
            assert_eq!(mxcsr(), before, "{} ({})", d.name, d.form);
            rounding += usize::from(d.instruction.contains("rounding up"));
        }
        assert_eq!(rounding, 2);
    }

    /// Every operation and form the published figures name is one this
    /// suite times, so that no figure is shipped without a measurement.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn every_published_operation_is_timed_by_the_suite() {
        use tickbook_analysis::suites::ops::published::{Figures, FORM_DIFFERENCES};
        let table = super::x86::table();
        let figs = Figures::embedded().unwrap();
        let ops = figs.operations();
        assert!(ops.len() > 200, "{}", ops.len());
        for (op, form) in ops {
            assert!(
                table.iter().any(|d| d.name == op && d.form == form),
                "{op} ({form}) has published figures but no sequence"
            );
        }
        for (op, form, _) in FORM_DIFFERENCES {
            assert!(table.iter().any(|d| d.name == *op && d.form == *form));
        }
    }

    #[test]
    fn per_op_is_the_median_of_the_differences_over_n() {
        // Differences 1000, 2000, 3000 over n = 1000: 1, 2, 3 per copy.
        let n = [100.0, 200.0, 300.0];
        let two_n = [1100.0, 2200.0, 3300.0];
        assert_eq!(per_op(&n, &two_n, 1000), Some(2.0));
        // The set-up both sequences share cancels: adding it changes nothing.
        let shifted: Vec<f64> = n.iter().map(|t| t + 5000.0).collect();
        let shifted_2n: Vec<f64> = two_n.iter().map(|t| t + 5000.0).collect();
        assert_eq!(per_op(&shifted, &shifted_2n, 1000), Some(2.0));
        // A repetition with a time missing is left out, not counted as 0.
        let n = [0.0, 0.0, 0.0, 0.0];
        let two_n = [50.0, f64::NAN, 100.0, 150.0];
        assert_eq!(per_op(&n, &two_n, 50), Some(2.0));
    }

    #[test]
    fn per_op_without_copies_or_repetitions_is_none() {
        assert_eq!(per_op(&[1.0], &[2.0], 0), None);
        assert_eq!(per_op(&[], &[], 1000), None);
        assert_eq!(per_op(&[f64::NAN], &[1.0], 1000), None);
    }
}
