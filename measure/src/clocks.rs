//! The `clocks` suite: for every clock a program can read, what it claims
//! (nominal resolution), what a read costs, how it really ticks (a scan of
//! back-to-back reads), and where the counter's frequency comes from.

use indicatif::ProgressBar;
use serde_json::json;
use tickbook_analysis::report::{clocks_report, Options};
use tickbook_analysis::stats::bootstrap::median;
use tickbook_analysis::suites::clocks::{ClockMeasurement, ClocksData, CrossCpuCheck, ReadCost};

use super::scan::{self, ScanLimits};
use super::{affinity, host, signals, tsc, Ctx, SuiteOutput, SuiteResult};

/// How a clock is read.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Source {
    #[cfg(target_arch = "x86_64")]
    Rdtsc,
    #[cfg(target_arch = "x86_64")]
    LfenceRdtsc,
    #[cfg(target_arch = "x86_64")]
    Rdtscp,
    #[cfg(target_arch = "aarch64")]
    Cntvct,
    Posix(libc::clockid_t),
    Instant,
}

impl Source {
    fn is_counter(self) -> bool {
        !matches!(self, Source::Posix(_) | Source::Instant)
    }
}

/// Bind `$f` to a zero-cost reader for `$src` (a fn item or a small closure)
/// and evaluate `$body` with it, so generic measuring loops are instantiated
/// per clock.
macro_rules! with_reader {
    ($src:expr, |$f:ident| $body:expr) => {
        match $src {
            #[cfg(target_arch = "x86_64")]
            Source::Rdtsc => {
                let $f = tsc::rdtsc;
                $body
            }
            #[cfg(target_arch = "x86_64")]
            Source::LfenceRdtsc => {
                let $f = tsc::lfence_rdtsc;
                $body
            }
            #[cfg(target_arch = "x86_64")]
            Source::Rdtscp => {
                let $f = tsc::rdtscp;
                $body
            }
            #[cfg(target_arch = "aarch64")]
            Source::Cntvct => {
                let $f = tsc::cntvct;
                $body
            }
            Source::Posix(id) => {
                let $f = move || posix_now(id);
                $body
            }
            Source::Instant => {
                // ns since a fixed start: Instant has no public raw value.
                let start = std::time::Instant::now();
                let $f = move || start.elapsed().as_nanos() as u64;
                $body
            }
        }
    };
}

/// clock_gettime as ns in a u64 (two's complement for the unlikely negative
/// value, so differences still come out right). Availability was checked
/// before the loops use it, so the return code is not re-checked per read.
#[inline(always)]
fn posix_now(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write.
    unsafe { libc::clock_gettime(id, &mut ts) };
    tsc::timespec_ns(&ts) as u64
}

fn posix_check(id: libc::clockid_t) -> Result<(), String> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: as above.
    if unsafe { libc::clock_gettime(id, &mut ts) } == 0 {
        Ok(())
    } else {
        Err(format!(
            "clock_gettime failed: {}",
            std::io::Error::last_os_error()
        ))
    }
}

fn posix_res_ns(id: libc::clockid_t) -> Result<f64, String> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: as above.
    if unsafe { libc::clock_getres(id, &mut ts) } == 0 {
        Ok(ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64)
    } else {
        Err(format!(
            "clock_getres failed: {}",
            std::io::Error::last_os_error()
        ))
    }
}

const POSIX_CLOCKS: &[(&str, libc::clockid_t)] = &[
    ("CLOCK_MONOTONIC", libc::CLOCK_MONOTONIC),
    ("CLOCK_MONOTONIC_RAW", libc::CLOCK_MONOTONIC_RAW),
    ("CLOCK_MONOTONIC_COARSE", libc::CLOCK_MONOTONIC_COARSE),
    ("CLOCK_REALTIME", libc::CLOCK_REALTIME),
    ("CLOCK_REALTIME_COARSE", libc::CLOCK_REALTIME_COARSE),
    ("CLOCK_BOOTTIME", libc::CLOCK_BOOTTIME),
    ("CLOCK_PROCESS_CPUTIME_ID", libc::CLOCK_PROCESS_CPUTIME_ID),
    ("CLOCK_THREAD_CPUTIME_ID", libc::CLOCK_THREAD_CPUTIME_ID),
];

/// A clock to measure, or the reason it cannot be.
struct ClockDef {
    name: &'static str,
    source: Result<Source, String>,
}

fn clock_list(support: &tsc::CounterSupport) -> Vec<ClockDef> {
    let mut v = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        let tsc_ok = |s: Source| support.unavailable.clone().map_or(Ok(s), Err);
        v.push(ClockDef {
            name: "tsc_rdtsc",
            source: tsc_ok(Source::Rdtsc),
        });
        v.push(ClockDef {
            name: "tsc_lfence_rdtsc",
            source: tsc_ok(Source::LfenceRdtsc),
        });
        v.push(ClockDef {
            name: "tsc_rdtscp",
            source: support
                .rdtscp_unavailable
                .clone()
                .map_or(Ok(Source::Rdtscp), Err),
        });
    }
    #[cfg(target_arch = "aarch64")]
    v.push(ClockDef {
        name: "cntvct_el0",
        source: support.unavailable.clone().map_or(Ok(Source::Cntvct), Err),
    });
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = support;
    for &(name, id) in POSIX_CLOCKS {
        v.push(ClockDef {
            name,
            source: posix_check(id).map(|()| Source::Posix(id)),
        });
    }
    v.push(ClockDef {
        name: "std::time::Instant",
        source: Ok(Source::Instant),
    });
    v
}

struct Params {
    batch: u32,
    batches: usize,
    warmup_reads: u32,
    limits: ScanLimits,
    migrations: usize,
}

impl Params {
    fn new(quick: bool) -> Self {
        Params {
            batch: 16,
            batches: if quick { 2_000 } else { 20_000 },
            warmup_reads: 1_000,
            limits: ScanLimits {
                max_steps: 20_000,
                // Long enough for ≥ 40 ticks of a 4 ms coarse clock; on a
                // busy machine, longer until 40 changes were seen.
                max_duration_ns: if quick { 160e6 } else { 1e9 },
                min_steps: 40,
                hard_max_duration_ns: if quick { 1e9 } else { 4e9 },
                check_every: 1024,
            },
            migrations: if quick { 200 } else { 2_000 },
        }
    }
}

pub fn run(ctx: &Ctx) -> SuiteResult {
    let p = Params::new(ctx.quick);
    let mut fallbacks: Vec<String> = Vec::new();
    let support = tsc::detect(ctx.no_counter, &host::cpuinfo_flags());
    if let Some(why) = &support.unavailable {
        fallbacks.push(format!("cycle counter not used: {why}"));
    }

    let pinned = super::pin_here(&mut fallbacks);
    let pinned_cpu = pinned.cpu;

    // Frequency first: the reference clock needs it.
    let pb = ctx.progress.spinner("counter frequency", "");
    let sources = tsc::frequency_sources(&support, ctx.quick, |name| {
        pb.set_message(format!("reading {name}"));
    });
    for s in &sources {
        if let Some(e) = &s.error {
            fallbacks.push(format!("frequency source {} unreadable: {e}", s.name));
        }
    }
    // Without a usable counter no frequency is "used", whatever the sources say.
    let chosen = if support.usable() {
        tsc::choose(&sources)
    } else {
        None
    };
    pb.finish_with_message(match &chosen {
        Some((hz, name, _)) => format!("{:.6} MHz from {name}", hz / 1e6),
        None if !support.usable() => "counter not used".to_string(),
        None => "no frequency source was readable".to_string(),
    });
    if chosen.is_none() && support.usable() {
        fallbacks.push(
            "counter frequency unknown: counter clocks are reported in ticks without ns conversion"
                .to_string(),
        );
    }

    // Reference clock for read costs and scan durations.
    let raw = Source::Posix(libc::CLOCK_MONOTONIC_RAW);
    let (reference, reference_name, ref_ns) = match (&chosen, support.usable() && support.invariant)
    {
        (Some((hz, _, _)), true) => {
            #[cfg(target_arch = "x86_64")]
            let r = Source::LfenceRdtsc;
            #[cfg(target_arch = "aarch64")]
            let r = Source::Cntvct;
            #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
            let r = raw;
            (r, tsc::ORDERED_NAME, 1e9 / hz)
        }
        _ => {
            let why = if !support.usable() {
                "no usable counter"
            } else if !support.invariant {
                "the counter is not known to be invariant"
            } else {
                "the counter frequency is unknown"
            };
            fallbacks.push(format!(
                "reference clock is CLOCK_MONOTONIC_RAW instead of {}: {why}",
                tsc::ORDERED_NAME
            ));
            (raw, "CLOCK_MONOTONIC_RAW", 1.0)
        }
    };

    // A batch must span many reference ticks: with a slow reference (a
    // 24 MHz generic timer is 42 ns a tick) 16 fast reads would be a few
    // ticks, so use longer batches there.
    let batch = if ref_ns > 2.0 { 128 } else { p.batch };
    if batch != p.batch {
        fallbacks.push(format!(
            "read-cost batch is {batch} reads instead of {}: the reference ticks every {ref_ns:.1} ns",
            p.batch
        ));
    }
    let p = Params { batch, ..p };

    let defs = clock_list(&support);
    let mut clocks: Vec<ClockMeasurement> = Vec::new();
    let mut interrupted = None;
    for def in &defs {
        if let Some(sig) = signals::stop_requested() {
            interrupted = Some(sig);
            break;
        }
        let src = match &def.source {
            Ok(s) => *s,
            Err(why) => {
                fallbacks.push(format!("{} unavailable: {why}", def.name));
                clocks.push(unavailable(def.name, why));
                continue;
            }
        };
        let counter_hz = chosen.as_ref().map(|c| c.0).filter(|_| src.is_counter());
        let bar = ctx.progress.bar(def.name, p.batches as u64 + 1);
        let (m, notes, stopped) = measure(
            def.name,
            src,
            counter_hz,
            reference,
            ref_ns,
            reference_name,
            &p,
            &bar,
        );
        fallbacks.extend(notes);
        bar.finish_with_message(bar_summary(&m));
        clocks.push(m);
        if stopped {
            interrupted = signals::stop_requested().or(Some(libc::SIGINT));
            break;
        }
    }

    let cross = if interrupted.is_none() {
        cross_cpu(
            &support,
            chosen.as_ref().map(|c| c.0),
            pinned.original.as_ref(),
            &p,
            ctx,
            &mut fallbacks,
        )
    } else {
        Vec::new()
    };
    if interrupted.is_none() {
        interrupted = signals::stop_requested();
    }

    let (tsc_hz, tsc_hz_source, choice_reason) = match chosen {
        Some((hz, name, why)) => (Some(hz), Some(name), Some(why)),
        None => (None, None, None),
    };
    let data = ClocksData {
        reference: reference_name.to_string(),
        reference_ns_per_unit: ref_ns,
        tsc_hz,
        tsc_hz_source,
        clocks,
        tsc_frequency: sources,
        cross_cpu: cross,
    };
    let summary = summary_lines(&data, &fallbacks);
    let data_value = serde_json::to_value(&data).map_err(|e| super::SuiteFailure {
        message: format!("cannot serialize clocks data: {e}"),
        partial: None,
    })?;
    let config = json!({
        "mode": if ctx.quick { "quick" } else { "full" },
        "read_cost": {
            "batch": p.batch, "batches": p.batches, "warmup_reads": p.warmup_reads,
            "samples_rounded_to_ns": 1e-4,
        },
        "scan": {
            "max_steps": p.limits.max_steps,
            "max_duration_ns": p.limits.max_duration_ns,
            "check_every_reads": p.limits.check_every,
        },
        "cross_cpu_migrations": p.migrations,
        "pinned_cpu": pinned_cpu,
        "reference": reference_name,
        "reference_ns_per_unit": ref_ns,
        "tsc_hz_choice": choice_reason,
        "counter": {
            "unavailable": support.unavailable,
            "rdtscp_unavailable": support.rdtscp_unavailable,
            "invariant": support.invariant,
            "invariant_evidence": support.invariant_evidence,
        },
        "no_counter_flag": ctx.no_counter,
    });
    let out = SuiteOutput {
        config,
        fallbacks,
        data: data_value,
        summary,
    };
    out.finish(interrupted)
}

fn unavailable(name: &str, why: &str) -> ClockMeasurement {
    ClockMeasurement {
        name: name.to_string(),
        available: false,
        unavailable_reason: Some(why.to_string()),
        unit: String::new(),
        ns_per_unit: None,
        nominal_resolution_ns: None,
        nominal_resolution_source: None,
        read_cost: None,
        scan: None,
    }
}

/// Nominal resolution, read cost and scan of one clock. Returns the
/// measurement, fallback notes, and whether a signal cut it short.
#[allow(clippy::too_many_arguments)]
fn measure(
    name: &str,
    src: Source,
    counter_hz: Option<f64>,
    reference: Source,
    ref_ns: f64,
    reference_name: &str,
    p: &Params,
    bar: &ProgressBar,
) -> (ClockMeasurement, Vec<String>, bool) {
    let mut notes = Vec::new();
    let mut m = ClockMeasurement {
        name: name.to_string(),
        available: true,
        unavailable_reason: None,
        unit: if src.is_counter() { "tick" } else { "ns" }.to_string(),
        ns_per_unit: None,
        nominal_resolution_ns: None,
        nominal_resolution_source: None,
        read_cost: None,
        scan: None,
    };
    match src {
        Source::Posix(id) => {
            m.ns_per_unit = Some(1.0);
            match posix_res_ns(id) {
                Ok(r) => {
                    m.nominal_resolution_ns = Some(r);
                    m.nominal_resolution_source = Some("clock_getres".to_string());
                }
                Err(e) => notes.push(format!("{name}: no nominal resolution: {e}")),
            }
        }
        Source::Instant => {
            m.ns_per_unit = Some(1.0);
            m.nominal_resolution_source =
                Some("not reported by std; Linux uses CLOCK_MONOTONIC".to_string());
        }
        _ => match counter_hz {
            Some(hz) => {
                m.ns_per_unit = Some(1e9 / hz);
                m.nominal_resolution_ns = Some(1e9 / hz);
                m.nominal_resolution_source = Some("1 / counter frequency".to_string());
            }
            None => notes.push(format!(
                "{name}: counter frequency unknown: steps stay in ticks, no ns conversion"
            )),
        },
    }

    bar.set_message("read cost");
    let rc = with_reader!(src, |clock| with_reader!(
        reference,
        |refr| scan::read_cost(
            clock,
            refr,
            ref_ns,
            p.batch,
            p.batches,
            p.warmup_reads,
            |done| bar.set_position(done as u64)
        )
    ));
    if rc.dropped > 0 {
        notes.push(format!(
            "{name}: {} read-cost batches dropped because the reference {reference_name} went backwards",
            rc.dropped
        ));
    }
    m.read_cost = Some(ReadCost {
        batch: p.batch,
        reference: reference_name.to_string(),
        samples_ns: rc.samples_ns,
    });
    if rc.interrupted {
        return (m, notes, true);
    }

    bar.set_position(p.batches as u64);
    bar.set_message("scan");
    let (scan, stopped) = with_reader!(src, |clock| with_reader!(reference, |refr| scan::scan(
        clock, refr, ref_ns, &p.limits
    )));
    m.scan = Some(scan);
    bar.set_position(p.batches as u64 + 1);
    (m, notes, stopped)
}

/// Move between two CPUs reading the counter and CLOCK_MONOTONIC on each
/// side; counts clocks that went backwards across a move.
fn cross_cpu(
    support: &tsc::CounterSupport,
    counter_hz: Option<f64>,
    original: Option<&affinity::CpuSet>,
    p: &Params,
    ctx: &Ctx,
    fallbacks: &mut Vec<String>,
) -> Vec<CrossCpuCheck> {
    let cpus = original.map(|s| s.cpus()).unwrap_or_default();
    if cpus.len() < 2 {
        fallbacks.push(format!(
            "cross-CPU monotonicity check skipped: {} CPU(s) allowed for this thread",
            cpus.len()
        ));
        return Vec::new();
    }
    let pair = [cpus[0], cpus[1]];
    let mut list: Vec<(&str, Source, &str, Option<f64>)> = Vec::new();
    if support.usable() {
        #[cfg(target_arch = "x86_64")]
        list.push((
            tsc::ORDERED_NAME,
            Source::LfenceRdtsc,
            "tick",
            counter_hz.map(|h| 1e9 / h),
        ));
        #[cfg(target_arch = "aarch64")]
        list.push((
            tsc::ORDERED_NAME,
            Source::Cntvct,
            "tick",
            counter_hz.map(|h| 1e9 / h),
        ));
    }
    let _ = counter_hz;
    list.push((
        "CLOCK_MONOTONIC",
        Source::Posix(libc::CLOCK_MONOTONIC),
        "ns",
        Some(1.0),
    ));
    let mut out = Vec::new();
    for (name, src, unit, npu) in list {
        let bar = ctx
            .progress
            .spinner(&format!("cross-CPU {name}"), "migrating");
        let r = with_reader!(src, |clock| scan::cross_cpu(clock, pair, p.migrations));
        match r {
            Ok(raw) => {
                let backwards = raw.steps.iter().filter(|&&s| s < 0).count();
                let min = raw.steps.iter().copied().min();
                bar.finish_with_message(format!(
                    "{} moves between CPUs {} and {}: {backwards} backwards",
                    raw.migrations, pair[0], pair[1]
                ));
                if raw.not_moved > 0 {
                    fallbacks.push(format!(
                        "cross-CPU {name}: {} of {} moves did not land on the target CPU",
                        raw.not_moved, raw.migrations
                    ));
                }
                out.push(CrossCpuCheck {
                    clock: name.to_string(),
                    unit: unit.to_string(),
                    ns_per_unit: npu,
                    cpus: raw.cpus.iter().map(|&c| c as u32).collect(),
                    migrations: raw.migrations as u64,
                    backwards: backwards as u64,
                    not_moved: raw.not_moved,
                    min_step: min,
                    steps: raw.steps,
                    note: Some("step = read after the move minus read before it; a clock is caught going backwards only if its skew exceeds the move time".into()),
                });
            }
            Err(e) => {
                bar.finish_with_message(format!("skipped: {e}"));
                fallbacks.push(format!("cross-CPU check of {name} skipped: {e}"));
            }
        }
    }
    // Back to the pinned CPU for whatever comes next; Restore undoes all later.
    if let Some(cpu) = affinity::current_cpu() {
        let _ = affinity::set(&affinity::CpuSet::single(cpu));
    }
    out
}

fn bar_summary(m: &ClockMeasurement) -> String {
    let cost = m
        .read_cost
        .as_ref()
        .filter(|r| !r.samples_ns.is_empty())
        .map(|r| median(&r.samples_ns))
        .map_or("-".to_string(), fmt_ns);
    let tick = m.scan.as_ref().and_then(|s| {
        let min = s.steps.iter().copied().filter(|&x| x > 0).min()?;
        Some(fmt_ns(min as f64 * m.ns_per_unit.unwrap_or(1.0)))
    });
    format!(
        "median {cost}/read, smallest step {}",
        tick.unwrap_or("-".to_string())
    )
}

pub fn fmt_ns(ns: f64) -> String {
    let a = ns.abs();
    if a < 1e3 {
        format!("{ns:.2} ns")
    } else if a < 1e6 {
        format!("{:.3} µs", ns / 1e3)
    } else if a < 1e9 {
        format!("{:.3} ms", ns / 1e6)
    } else {
        format!("{:.3} s", ns / 1e9)
    }
}

/// The closing summary, computed by the same analysis the readers use.
fn summary_lines(d: &ClocksData, fallbacks: &[String]) -> Vec<String> {
    let r = clocks_report(d, fallbacks.to_vec(), &Options::default());
    let mut out = vec![format!(
        "{:<26} {:>12} {:>12} {:>12} {:>10}",
        "clock", "nominal", "obs. tick", "p50 cost", "backwards"
    )];
    let opt = |x: Option<f64>| x.map_or("-".to_string(), fmt_ns);
    for c in &r.clocks {
        if !c.available {
            out.push(format!(
                "{:<26} unavailable: {}",
                c.name,
                c.unavailable_reason.as_deref().unwrap_or("?")
            ));
            continue;
        }
        out.push(format!(
            "{:<26} {:>12} {:>12} {:>12} {:>10}",
            c.name,
            opt(c.nominal_resolution_ns),
            opt(c.observed_tick_ns),
            opt(c.read_cost.as_ref().map(|s| s.median)),
            c.violations
        ));
    }
    out.push(format!("reference clock: {}", r.reference));
    for s in &r.frequency.sources {
        out.push(match (s.hz, &s.error) {
            (Some(hz), _) => format!(
                "  {:<30} {:>18.3} Hz  {:+9.3} ppm from median",
                s.name,
                hz,
                s.ppm_from_median.unwrap_or(0.0)
            ),
            (None, e) => format!(
                "  {:<30} unreadable: {}",
                s.name,
                e.as_deref().unwrap_or("?")
            ),
        });
    }
    if let (Some(hz), Some(src)) = (r.tsc_hz, &r.tsc_hz_source) {
        out.push(format!(
            "counter frequency used: {:.3} Hz ({src}); readable sources spread {} ppm",
            hz,
            r.frequency
                .spread_ppm
                .map_or("-".to_string(), |p| format!("{p:.3}"))
        ));
    }
    out.push(format!("{} fallbacks recorded", fallbacks.len()));
    out
}
