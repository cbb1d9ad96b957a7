//! The Browser cell: the browser's clocks (tick, modal and mean step,
//! jitter, read cost, backward steps), WebAssembly operation costs by long
//! runs and by Bernoulli trials of the coarse clock, and, given a native
//! `ops` file of the same machine, wasm against native.

use super::{BrowserData, TrialChunk, WasmOp};
use crate::options::Options;
use crate::stats::bootstrap::{median, median_ci, BootstrapCi};
use crate::stats::dist::z_two_sided;
use crate::stats::regression::{geometric_mean, ols, Fit};
use crate::suites::clocks::{clocks_report, ClocksData};
use crate::suites::ops::{ops_report, OpsData};
use serde::Serialize;

/// Sequences at least this long (one pass of n copies, ns) are the ones the
/// Bernoulli estimates are held to: shorter ones are dominated by the two
/// clock reads around them.
pub const COVERAGE_MIN_SEQUENCE_NS: f64 = 100.0;

/// A chunk of trials this many times slower per trial than the median chunk
/// of its sequence was disturbed, and is set aside.
pub const DISTURBED_FACTOR: f64 = 1.5;

/// A wasm operation this many times slower than native, relative to the
/// geometric mean ratio of all pairs, is one the engine does badly.
pub const SLOW_FACTOR: f64 = 2.0;

#[derive(Debug, Clone, Serialize)]
pub struct BrowserReport {
    pub user_agent: String,
    pub platform: String,
    pub brands: Vec<String>,
    pub hardware_concurrency: Option<u32>,
    pub cross_origin_isolated: bool,
    pub quick: bool,
    pub clocks: Vec<BrowserClockRow>,
    /// The clock of the long runs and trials, and its modal step (ns): the
    /// tick of the Bernoulli estimates (eq. 1). A jittered clock (Chrome's)
    /// still returns multiples of its quantum and changes once per quantum
    /// on average, so the quantum is the tick; steps of several quanta are
    /// the thread not running, which would inflate a mean.
    pub wasm_clock: String,
    pub tick_ns: Option<f64>,
    pub copies: u32,
    pub repetitions: u32,
    pub ops: Vec<WasmOpRow>,
    /// How often the Bernoulli interval holds the long-run reference, over
    /// operations whose sequence lasts at least
    /// [`COVERAGE_MIN_SEQUENCE_NS`].
    pub coverage: Option<TrialsCoverage>,
    pub fallbacks: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BrowserClockRow {
    pub name: String,
    pub available: bool,
    pub unavailable_reason: Option<String>,
    /// Smallest positive step between consecutive reads (ns).
    pub observed_tick_ns: Option<f64>,
    /// The most frequent single-tick step (`stats::tick`, ns).
    pub modal_step_ns: Option<f64>,
    /// Mean positive step (ns): above the modal step when the scanning
    /// thread was descheduled (several ticks seen as one step).
    pub mean_step_ns: Option<f64>,
    /// Standard deviation of the positive steps (ns).
    pub jitter_ns: Option<f64>,
    pub steps: usize,
    pub read_cost_median_ns: Option<f64>,
    pub read_cost_p99_ns: Option<f64>,
    /// Consecutive reads that went backwards, and the largest such step.
    pub backward_steps: u64,
    pub largest_backward_ns: Option<f64>,
    pub scan_reads: u64,
    pub scan_duration_ns: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct WasmOpRow {
    pub name: String,
    pub group: String,
    pub form: String,
    pub native: Option<String>,
    pub iterations: u64,
    /// ns per copy from the long runs: median over repetitions of
    /// (t(2n) − t(n)) / (n · iterations), with a bootstrap CI.
    pub per_op_ns: Option<BootstrapCi>,
    /// One pass of n copies (ns): median t(n) / iterations.
    pub sequence_ns: Option<f64>,
    pub bernoulli: Option<WasmTrialsRow>,
}

/// Bernoulli estimate of one copy: (p(2n) − p(n)) · tick / n (eq. 1 for
/// each sequence, the difference cancelling the reads around them).
#[derive(Debug, Clone, Serialize)]
pub struct WasmTrialsRow {
    /// Trials and ticks counted: the undisturbed chunks' (every trial when
    /// the file has no chunks).
    pub trials_n: u64,
    pub ticks_n: u64,
    pub trials_2n: u64,
    pub ticks_2n: u64,
    /// Trials set aside in disturbed chunks ([`DISTURBED_FACTOR`]).
    pub set_aside_n: u64,
    pub set_aside_2n: u64,
    pub p_n: f64,
    pub p_2n: f64,
    pub per_op_ns: f64,
    /// ns per copy from the trials' own wall time: (W(2n) − W(n)) / n, W a
    /// sequence's time per trial over the chunks counted (a trimmed mean,
    /// `Counted`). Each chunk is a long run (about a millisecond) of
    /// exactly the passes whose ticks are counted, the clock read around
    /// each: the long-run cost of the events the estimate is of. Reading
    /// the clock between passes can change what an operation costs (in
    /// Chromium a chain of calls cost about half as much as back to back),
    /// so the untimed long runs measure other events. `None` without
    /// chunks in the file.
    pub wall_per_op_ns: Option<f64>,
    /// Normal interval of the difference of two proportions (eq. 2 for
    /// each, variances added), scaled like the estimate.
    pub lo: f64,
    pub hi: f64,
    /// The long-run cost the interval is held to: `wall_per_op_ns`, or
    /// the untimed long runs' `per_op_ns` for a file without chunks.
    pub reference_ns: Option<f64>,
    /// Whether [lo, hi] holds `reference_ns`.
    pub covers_reference: Option<bool>,
    /// Whether [lo, hi] holds the untimed long runs' `per_op_ns`.
    pub covers_untimed: Option<bool>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TrialsCoverage {
    pub min_sequence_ns: f64,
    /// Whether the reference is the trials' own wall time (else the
    /// untimed long runs: a file without chunks).
    pub wall_reference: bool,
    pub ops: usize,
    pub covered: usize,
    pub share: f64,
    /// The same operations' intervals holding the untimed long runs' cost:
    /// below `covered` where reading the clock changes what an operation
    /// costs.
    pub covered_untimed: usize,
}

fn clock_rows(d: &BrowserData, opts: &Options) -> Vec<BrowserClockRow> {
    let as_clocks = ClocksData {
        reference: d.reference.clone(),
        reference_ns_per_unit: 1.0,
        tsc_hz: None,
        tsc_hz_source: None,
        clocks: d.clocks.clone(),
        tsc_frequency: Vec::new(),
        cross_cpu: Vec::new(),
    };
    let rows = clocks_report(&as_clocks, Vec::new(), opts).clocks;
    rows.into_iter()
        .zip(&d.clocks)
        .map(|(row, m)| {
            let npu = m.ns_per_unit.unwrap_or(1.0);
            let positive: Vec<f64> = m
                .scan
                .iter()
                .flat_map(|s| s.steps.iter())
                .filter(|&&s| s > 0)
                .map(|&s| s as f64 * npu)
                .collect();
            let (mean, sd) = mean_sd(&positive);
            BrowserClockRow {
                name: row.name,
                available: row.available,
                unavailable_reason: row.unavailable_reason,
                observed_tick_ns: row.observed_tick_ns,
                modal_step_ns: row.modal_step_ns,
                mean_step_ns: mean,
                jitter_ns: sd,
                steps: positive.len(),
                read_cost_median_ns: row.read_cost.as_ref().map(|s| s.median),
                read_cost_p99_ns: row.read_cost_p99_ns,
                backward_steps: row.violations,
                largest_backward_ns: row.largest_violation_ns,
                scan_reads: row.scan_reads,
                scan_duration_ns: row.scan_duration_ns,
            }
        })
        .collect()
}

/// Mean and sample standard deviation; `None` for no values (sd needs two).
fn mean_sd(xs: &[f64]) -> (Option<f64>, Option<f64>) {
    if xs.is_empty() {
        return (None, None);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let sd = (xs.len() > 1)
        .then(|| (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt());
    (Some(mean), sd)
}

fn op_row(op: &WasmOp, copies: u32, tick: Option<f64>, opts: &Options) -> WasmOpRow {
    let per_pass = copies as f64 * op.iterations as f64;
    let per_op: Vec<f64> = op
        .long_n_ns
        .iter()
        .zip(&op.long_2n_ns)
        .map(|(a, b)| (b - a) / per_pass)
        .collect();
    let per_op_ns = median_ci(&per_op, &opts.bootstrap);
    let sequence_ns = (!op.long_n_ns.is_empty() && op.iterations > 0)
        .then(|| median(&op.long_n_ns) / op.iterations as f64);
    let bernoulli = op.bernoulli.as_ref().and_then(|b| {
        let tick = tick?;
        let (c1, c2) = (undisturbed(&b.chunks_n), undisturbed(&b.chunks_2n));
        let (n1, m1) = c1
            .as_ref()
            .map_or((b.trials_n, b.ticks_n), |c| (c.trials, c.ticks));
        let (n2, m2) = c2
            .as_ref()
            .map_or((b.trials_2n, b.ticks_2n), |c| (c.trials, c.ticks));
        if n1 == 0 || n2 == 0 || copies == 0 {
            return None;
        }
        let z = z_two_sided(opts.confidence)?;
        let p1 = m1 as f64 / n1 as f64;
        let p2 = m2 as f64 / n2 as f64;
        let scale = tick / copies as f64;
        let est = (p2 - p1) * scale;
        let se = (p1 * (1.0 - p1) / n1 as f64 + p2 * (1.0 - p2) / n2 as f64).sqrt() * scale;
        let (lo, hi) = (est - z * se, est + z * se);
        let wall_per_op_ns = match (&c1, &c2) {
            (Some(a), Some(b)) => Some((b.wall_per_trial_ns - a.wall_per_trial_ns) / copies as f64),
            _ => None,
        };
        let reference_ns = wall_per_op_ns.or(per_op_ns.as_ref().map(|r| r.estimate));
        Some(WasmTrialsRow {
            trials_n: n1,
            ticks_n: m1,
            trials_2n: n2,
            ticks_2n: m2,
            set_aside_n: b.trials_n.saturating_sub(n1),
            set_aside_2n: b.trials_2n.saturating_sub(n2),
            p_n: p1,
            p_2n: p2,
            per_op_ns: est,
            wall_per_op_ns,
            lo,
            hi,
            reference_ns,
            covers_reference: reference_ns.map(|r| lo <= r && r <= hi),
            covers_untimed: per_op_ns
                .as_ref()
                .map(|r| lo <= r.estimate && r.estimate <= hi),
        })
    });
    WasmOpRow {
        name: op.name.clone(),
        group: op.group.clone(),
        form: op.form.clone(),
        native: op.native.clone(),
        iterations: op.iterations,
        per_op_ns,
        sequence_ns,
        bernoulli,
    }
}

/// The chunks of a sequence's trials that are counted.
struct Counted {
    trials: u64,
    ticks: u64,
    /// Their wall time per trial (ns): the mean over the chunks of each
    /// one's time per trial, a tenth of them (at least one) left out at each
    /// end from five chunks on. A chunk's time can hold a pause between
    /// passes that its ticks do not see (one took 1.3 ms for 0.97 with its
    /// usual ticks), and a 100 µs clock rounds a chunk of a millisecond by
    /// up to a tenth either way, which a median would keep and a mean
    /// averages out.
    wall_per_trial_ns: f64,
}

/// The chunks not disturbed: those whose time per trial is at most
/// [`DISTURBED_FACTOR`] × the median chunk's. `None` without chunks.
fn undisturbed(chunks: &[TrialChunk]) -> Option<Counted> {
    let per_trial: Vec<f64> = chunks
        .iter()
        .filter(|c| c.trials > 0)
        .map(|c| c.elapsed_ns / c.trials as f64)
        .collect();
    if per_trial.is_empty() {
        return None;
    }
    let limit = DISTURBED_FACTOR * median(&per_trial);
    let mut kept: Vec<f64> = per_trial.into_iter().filter(|&t| t <= limit).collect();
    let (trials, ticks) = chunks
        .iter()
        .filter(|c| c.trials > 0 && c.elapsed_ns / c.trials as f64 <= limit)
        .fold((0, 0), |(n, m), c| (n + c.trials, m + c.ticks));
    kept.sort_by(f64::total_cmp);
    let cut = if kept.len() >= 5 {
        (kept.len() / 10).max(1)
    } else {
        0
    };
    let middle = &kept[cut..kept.len() - cut];
    Some(Counted {
        trials,
        ticks,
        wall_per_trial_ns: middle.iter().sum::<f64>() / middle.len() as f64,
    })
}

pub fn browser_report(d: &BrowserData, fallbacks: Vec<String>, opts: &Options) -> BrowserReport {
    let clocks = clock_rows(d, opts);
    let tick_ns = clocks
        .iter()
        .find(|c| c.name == d.wasm.clock && c.available)
        .and_then(|c| c.modal_step_ns);
    let ops: Vec<WasmOpRow> = d
        .wasm
        .ops
        .iter()
        .map(|op| op_row(op, d.wasm.copies, tick_ns, opts))
        .collect();
    let held: Vec<(bool, bool)> = ops
        .iter()
        .filter(|o| o.sequence_ns.is_some_and(|s| s >= COVERAGE_MIN_SEQUENCE_NS))
        .filter_map(|o| {
            let b = o.bernoulli.as_ref()?;
            Some((b.covers_reference?, b.covers_untimed.unwrap_or(false)))
        })
        .collect();
    let coverage = (!held.is_empty()).then(|| {
        let covered = held.iter().filter(|c| c.0).count();
        TrialsCoverage {
            min_sequence_ns: COVERAGE_MIN_SEQUENCE_NS,
            wall_reference: ops.iter().any(|o| {
                o.bernoulli
                    .as_ref()
                    .is_some_and(|b| b.wall_per_op_ns.is_some())
            }),
            ops: held.len(),
            covered,
            share: covered as f64 / held.len() as f64,
            covered_untimed: held.iter().filter(|c| c.1).count(),
        }
    });
    BrowserReport {
        user_agent: d.user_agent.clone(),
        platform: d.platform.clone(),
        brands: d.brands.clone(),
        hardware_concurrency: d.hardware_concurrency,
        cross_origin_isolated: d.cross_origin_isolated,
        quick: d.quick,
        clocks,
        wasm_clock: d.wasm.clock.clone(),
        tick_ns,
        copies: d.wasm.copies,
        repetitions: d.wasm.repetitions,
        ops,
        coverage,
        fallbacks,
    }
}

/// A browser file against a native `ops` file of the same machine.
#[derive(Debug, Clone, Serialize)]
pub struct NativeComparison {
    /// The native clock the native costs are from: `counter` (TSC) when
    /// the file has counter times, else `portable`.
    pub native_clock: String,
    pub pairs: Vec<NativePair>,
    /// Geometric mean of wasm / native over the pairs.
    pub geometric_mean_ratio: Option<f64>,
    /// OLS of wasm ns on native ns over the pairs (Pearson r in `fit.r`).
    pub fit: Option<Fit>,
    /// Pairs whose ratio exceeds [`SLOW_FACTOR`] × the geometric mean
    /// ratio: where the engine does badly.
    pub slow: Vec<String>,
    pub slow_factor: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct NativePair {
    pub wasm: String,
    pub native: String,
    pub form: String,
    pub wasm_ns: f64,
    pub native_ns: f64,
    pub ratio: f64,
}

/// Each wasm operation with a native counterpart (`WasmOp::native`, same
/// form, available with a positive cost on both sides) side by side.
pub fn native_comparison(b: &BrowserData, native: &OpsData, opts: &Options) -> NativeComparison {
    let ops = ops_report(native, opts);
    let counter = ops.ops.iter().any(|o| o.counter_ns.is_some());
    let mut pairs = Vec::new();
    for op in &b.wasm.ops {
        let Some(native_name) = &op.native else {
            continue;
        };
        let Some(row) = ops
            .ops
            .iter()
            .find(|r| &r.name == native_name && r.form == op.form && r.available)
        else {
            continue;
        };
        let native_ns = if counter {
            row.counter_ns.as_ref()
        } else {
            row.portable_ns.as_ref()
        }
        .map(|c| c.estimate);
        let wasm_ns = op_row(op, b.wasm.copies, None, opts)
            .per_op_ns
            .map(|c| c.estimate);
        if let (Some(w), Some(n)) = (wasm_ns, native_ns) {
            if w > 0.0 && n > 0.0 {
                pairs.push(NativePair {
                    wasm: op.name.clone(),
                    native: native_name.clone(),
                    form: op.form.clone(),
                    wasm_ns: w,
                    native_ns: n,
                    ratio: w / n,
                });
            }
        }
    }
    let ratios: Vec<f64> = pairs.iter().map(|p| p.ratio).collect();
    let geometric_mean_ratio = geometric_mean(&ratios);
    let x: Vec<f64> = pairs.iter().map(|p| p.native_ns).collect();
    let y: Vec<f64> = pairs.iter().map(|p| p.wasm_ns).collect();
    let slow = match geometric_mean_ratio {
        Some(g) => pairs
            .iter()
            .filter(|p| p.ratio > SLOW_FACTOR * g)
            .map(|p| format!("{} ({})", p.wasm, p.form))
            .collect(),
        None => Vec::new(),
    };
    NativeComparison {
        native_clock: if counter { "counter" } else { "portable" }.to_string(),
        fit: ols(&x, &y, opts.confidence),
        pairs,
        geometric_mean_ratio,
        slow,
        slow_factor: SLOW_FACTOR,
    }
}
