//! Timing one operation's modules: compiled and instantiated by the engine,
//! warmed up until the optimising tier runs them, then long runs of many
//! iterations (the in-browser reference) and Bernoulli trials of one pass
//! each, planned by `stats::bernoulli::plan`.

use crate::emit::{self, OpDef};
use js_sys::{Function, Object, Reflect, Uint8Array, WebAssembly};
use tickbook_analysis::stats::bernoulli;
use tickbook_analysis::suites::browser::{TrialChunk, WasmOp, WasmTrials};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::Performance;

pub struct OpsPlan {
    pub copies: u32,
    pub repetitions: u32,
    /// Target length of one long run of n copies (ms).
    pub long_run_ms: f64,
    /// Warm-up per function before anything is kept (ms).
    pub warm_ms: f64,
    /// The most the trials of one sequence may take (ms).
    pub trials_budget_ms: f64,
    /// Relative error and confidence the trials are planned for.
    pub epsilon: f64,
    pub confidence: f64,
}

impl OpsPlan {
    pub fn new(quick: bool) -> Self {
        OpsPlan {
            copies: 128,
            // Short runs, many of them: a run the worker was descheduled in
            // is one outlier pair for the median, not a bias in all of them.
            repetitions: if quick { 9 } else { 31 },
            long_run_ms: if quick { 1.0 } else { 2.0 },
            warm_ms: if quick { 15.0 } else { 40.0 },
            trials_budget_ms: if quick { 40.0 } else { 400.0 },
            epsilon: 0.05,
            confidence: 0.95,
        }
    }
}

/// One instantiated module: its `go(count, timed)`.
struct Compiled {
    go: Function,
}

impl Compiled {
    /// `count` passes; with `timed`, the passes in which the clock changed.
    fn go(&self, count: u32, timed: bool) -> Result<JsValue, JsValue> {
        self.go.call2(
            &JsValue::NULL,
            &JsValue::from(count),
            &JsValue::from(u32::from(timed)),
        )
    }
}

fn instantiate(bytes: &[u8], now: &Function) -> Result<Compiled, JsValue> {
    let module = WebAssembly::Module::new(&Uint8Array::from(bytes).into())?;
    let env = Object::new();
    Reflect::set(&env, &"now".into(), now)?;
    let imports = Object::new();
    Reflect::set(&imports, &"env".into(), &env)?;
    let instance = WebAssembly::Instance::new(&module, &imports)?;
    let exports = instance.exports();
    let get = |name: &str| -> Result<Function, JsValue> {
        Reflect::get(&exports, &name.into())?
            .dyn_into::<Function>()
            .map_err(|_| JsValue::from_str(&format!("the module exports no function {name}")))
    };
    Ok(Compiled { go: get("go")? })
}

/// ms that `iterations` untimed passes took.
fn time_run(c: &Compiled, iterations: u32, perf: &Performance) -> Result<f64, JsValue> {
    let t0 = perf.now();
    c.go(iterations, false)?;
    Ok(perf.now() - t0)
}

/// Run untimed passes until `warm_ms` have passed, doubling the iterations
/// while a call is shorter than a fifth of it (long against the tick): the
/// engine's first tier compiles at once and the optimising one after
/// enough looping, in the background, for a later call. Then keep calling
/// until no call has been 3 % faster than the best so far for `warm_ms`
/// (at most ten times `warm_ms`): the baseline tier's times are steady
/// too, so steadiness alone does not say the optimised code runs, and on a
/// loaded machine its compilation can take longer than the warm-up.
fn warm_up(c: &Compiled, warm_ms: f64, perf: &Performance) -> Result<(), JsValue> {
    let start = perf.now();
    let mut iterations: u32 = 16;
    let mut best = f64::INFINITY;
    let mut improved_at = start;
    loop {
        let t = time_run(c, iterations, perf)?;
        let now = perf.now();
        if t < warm_ms / 5.0 && iterations < 1 << 24 {
            iterations *= 2;
            improved_at = now;
        } else {
            let per_iteration = t / f64::from(iterations);
            if per_iteration < 0.97 * best {
                improved_at = now;
            }
            best = best.min(per_iteration);
        }
        let elapsed = now - start;
        if (elapsed >= warm_ms && now - improved_at >= warm_ms) || elapsed >= 10.0 * warm_ms {
            break;
        }
    }
    // The timed path's clock calls, through the same code.
    let warm_trials = perf.now();
    while perf.now() - warm_trials < warm_ms / 4.0 {
        c.go(256, true)?;
    }
    Ok(())
}

/// Timed passes until `total` trials ran, in chunks of `chunk` trials,
/// each chunk timed (the analysis sets aside the disturbed ones).
fn run_trials(
    c: &Compiled,
    total: u64,
    chunk: u32,
    perf: &Performance,
) -> Result<Vec<TrialChunk>, JsValue> {
    let mut left = total;
    let mut chunks = Vec::new();
    while left > 0 {
        let trials = left.min(u64::from(chunk)) as u32;
        let t0 = perf.now();
        let hits = c.go(trials, true)?;
        let elapsed_ns = ((perf.now() - t0) * 1e6).max(0.0);
        let ticks = (hits.as_f64().unwrap_or(0.0).max(0.0) as u64).min(u64::from(trials));
        chunks.push(TrialChunk {
            trials: u64::from(trials),
            ticks,
            elapsed_ns,
        });
        left -= u64::from(trials);
    }
    Ok(chunks)
}

pub struct Clock<'a> {
    pub perf: &'a Performance,
    /// `performance.now`, bound, for the modules' import.
    pub now: &'a Function,
    /// Modal step of `performance.now` (ns), for the planner.
    pub tick_ns: f64,
    /// Cost of one read (ns): two of them frame each trial.
    pub read_ns: f64,
}

/// Time one operation in one form.
pub fn measure(op: &OpDef, form: &str, plan: &OpsPlan, clock: &Clock) -> Result<WasmOp, JsValue> {
    let perf = clock.perf;
    let short = instantiate(&emit::module(op, form, plan.copies), clock.now)?;
    let long = instantiate(&emit::module(op, form, 2 * plan.copies), clock.now)?;
    warm_up(&short, plan.warm_ms, perf)?;
    warm_up(&long, plan.warm_ms, perf)?;
    let per_iteration = time_run(&short, 1 << 12, perf)? / f64::from(1u32 << 12);
    let iterations = if per_iteration > 0.0 {
        (plan.long_run_ms / per_iteration).clamp(64.0, f64::from(1u32 << 30)) as u32
    } else {
        1 << 20
    };
    let mut long_n_ns = Vec::with_capacity(plan.repetitions as usize);
    let mut long_2n_ns = Vec::with_capacity(plan.repetitions as usize);
    for _ in 0..plan.repetitions {
        long_n_ns.push(time_run(&short, iterations, perf)? * 1e6);
        long_2n_ns.push(time_run(&long, iterations, perf)? * 1e6);
    }

    // One pass of the sequence is the event; the planner's trial count
    // (eq. 5 for the pass, its two clock reads as overhead), within budget.
    let pass_ns = |runs: &[f64]| {
        let mut v = runs.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2] / f64::from(iterations)
    };
    let trials_for = |event_ns: f64| -> u64 {
        let overhead = 2.0 * clock.read_ns;
        let cap = (plan.trials_budget_ms * 1e6 / (event_ns + overhead).max(1.0)) as u64;
        bernoulli::plan(
            event_ns.max(1e-3),
            clock.tick_ns,
            overhead,
            plan.epsilon,
            plan.confidence,
        )
        .map_or(cap, |p| p.trials.min(cap))
        .max(1_000)
    };
    let bernoulli = if long_n_ns.is_empty() || clock.tick_ns.is_nan() || clock.tick_ns <= 0.0 {
        None
    } else {
        // Chunks of about a millisecond: long against the clock's tick,
        // short against a scheduler's time slice.
        let chunk_for = |event_ns: f64| {
            (1e6 / (event_ns + 2.0 * clock.read_ns).max(1.0)).clamp(256.0, f64::from(1u32 << 20))
                as u32
        };
        let (pass_n, pass_2n) = (pass_ns(&long_n_ns), pass_ns(&long_2n_ns));
        let chunks_n = run_trials(&short, trials_for(pass_n), chunk_for(pass_n), perf)?;
        let chunks_2n = run_trials(&long, trials_for(pass_2n), chunk_for(pass_2n), perf)?;
        let total = |c: &[TrialChunk]| {
            c.iter()
                .fold((0, 0), |(n, m), c| (n + c.trials, m + c.ticks))
        };
        let ((trials_n, ticks_n), (trials_2n, ticks_2n)) = (total(&chunks_n), total(&chunks_2n));
        Some(WasmTrials {
            planned_tick_ns: clock.tick_ns,
            trials_n,
            ticks_n,
            trials_2n,
            ticks_2n,
            chunks_n,
            chunks_2n,
        })
    };
    let native = if form == "latency" {
        op.native_latency
    } else {
        op.native_throughput
    };
    Ok(WasmOp {
        name: op.name.to_string(),
        group: op.group.to_string(),
        form: form.to_string(),
        native: native.map(str::to_string),
        iterations: u64::from(iterations),
        long_n_ns,
        long_2n_ns,
        bernoulli,
    })
}
