//! The `alloc` suite (after Hocko and Kalibera's study of page allocation
//! and performance non-determinism): workloads under page-placement
//! strategies and allocators, each configuration run as many separate child
//! executions (the collector re-executes itself) so that variation between
//! process runs can be told from variation within one.
//!
//! How the two axes combine (recorded in the suite config): the workload's
//! arrays are always allocated through the allocator under test (64-byte
//! aligned, one allocation per array, in a fixed order); the strategy then
//! places the whole pages inside those allocations — nothing for
//! `default_4k`, `madvise(MADV_HUGEPAGE)` for `thp_madvise`, and pool pages
//! moved in by `mremap` for `page_colouring` / `bin_hopping`. Every strategy
//! therefore runs with every allocator.

pub mod child;
pub mod mem;
mod placement;
mod workloads;

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use nix::sys::signal::{killpg, Signal};
use nix::sys::wait::{waitid, Id, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use serde_json::json;
use tickbook_analysis::format::Cache;
use tickbook_analysis::suites::alloc::{AllocConfig, AllocData, AllocExecution};

use super::{signals, Ctx, SuiteFailure, SuiteOutput, SuiteResult};
use child::{ChildConfig, ChildReport};
use workloads::Rng;

const STRATEGIES: [&str; 4] = ["default_4k", "thp_madvise", "page_colouring", "bin_hopping"];
const ALLOCATORS: [&str; 3] = ["system", "mimalloc", "jemalloc"];
const SIZE_FACTORS: [f64; 3] = [0.5, 1.0, 2.0];
const QUICK_WORKLOADS: [&str; 3] = ["fft", "sor", "stream"];
/// Largest random environment padding, bytes (the value of one variable).
const MAX_ENV_PADDING: u64 = 4096;
/// Environment variable holding the padding in each child.
const PADDING_VAR: &str = "TICKBOOK_ENV_PADDING";
/// Fault injection for tests: `ORDER:KIND[,ORDER:KIND…]` makes the child at
/// that position of the schedule fail on purpose (KIND = exit, abort, segv,
/// garbage, hang; see `child::inject`). Unset in normal use; when set, the
/// suite's fallbacks say so.
pub const FAIL_VAR: &str = "TICKBOOK_ALLOC_FAIL";
/// Testing aid / reproduction: fixes the schedule seed.
pub const SEED_VAR: &str = "TICKBOOK_ALLOC_SEED";
/// Testing aid: only the first N configurations (in the fixed order).
pub const LIMIT_VAR: &str = "TICKBOOK_ALLOC_CONFIG_LIMIT";

/// The cache whose geometry gives the colours and the working-set sizes: L2,
/// the largest cache private to a core here (the LLC is shared and, in a VM,
/// often far larger than the guest could fill).
fn colour_cache(caches: &[Cache]) -> Option<Cache> {
    caches
        .iter()
        .find(|c| c.level == 2 && c.kind != "Instruction" && c.size_bytes.is_some())
        .cloned()
}

/// colours = way size / page size = sets × line / page (or size / (ways × page)).
fn colours_of(c: &Cache, page: u64) -> Option<u32> {
    let way = match (c.sets, c.line_bytes, c.size_bytes, c.ways) {
        (Some(s), Some(l), _, _) => u64::from(s) * u64::from(l),
        (_, _, Some(size), Some(w)) if w > 0 => size / u64::from(w),
        _ => return None,
    };
    Some((way / page) as u32)
}

fn parse_failures(s: &str) -> Vec<(u32, String)> {
    s.split(',')
        .filter_map(|p| {
            let (o, k) = p.split_once(':')?;
            Some((o.trim().parse().ok()?, k.trim().to_string()))
        })
        .collect()
}

/// How long an execution may run before it is killed and recorded as
/// failed: `--execution-timeout`, else 10 s (start-up, placement) plus 1 s
/// per measurement, warm-up included, per MiB of working set (at least one).
/// A measurement takes a few ms here, so only a child that is stuck reaches
/// it, yet a slow machine has a hundredfold margin.
fn execution_timeout(
    fixed: Option<Duration>,
    warmup: u32,
    measurements: u32,
    working_set_bytes: u64,
) -> Duration {
    fixed.unwrap_or_else(|| {
        let mib = (working_set_bytes as f64 / f64::from(1u32 << 20)).max(1.0);
        Duration::from_secs_f64(10.0 + f64::from(warmup + measurements) * mib)
    })
}

/// Seconds for a message: whole when whole.
fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.1} s")
    }
}

/// A signal by its name (`SIGSEGV`), or its number when unknown.
fn signal_name(sig: i32) -> String {
    Signal::try_from(sig)
        .map(|s| s.as_str().to_string())
        .unwrap_or_else(|_| format!("signal {sig}"))
}

/// The last non-empty line of a child's stderr, at most 200 characters: an
/// execution's error is one line, and equal failures read alike.
fn last_line(stderr: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    let line = text.lines().map(str::trim).rfind(|l| !l.is_empty())?;
    Some(match line.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    })
}

/// Run one child and turn whatever happened into an execution record: its
/// report, or one line saying why there is none.
fn run_child(cfg: &ChildConfig, padding: usize, timeout: Duration) -> Result<ChildReport, String> {
    // /proc/self/exe runs the very binary this process runs, even when the
    // file has been replaced (a rebuild) since it started; current_exe would
    // then name a path that no longer exists, or a different build.
    let exe = if std::path::Path::new("/proc/self/exe").exists() {
        std::path::PathBuf::from("/proc/self/exe")
    } else {
        std::env::current_exe().map_err(|e| format!("cannot find own executable: {e}"))?
    };
    let json = serde_json::to_string(cfg).map_err(|e| format!("config to JSON: {e}"))?;
    let mut cmd = Command::new(exe);
    cmd.arg("__alloc-child")
        .arg("--config")
        .arg(json)
        .env(PADDING_VAR, "x".repeat(padding))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Own process group: Ctrl-C reaches only the collector, which lets
        // the running child finish (and records it) before stopping; and a
        // stuck child is killed with everything it started.
        .process_group(0);
    let mut child = cmd.spawn().map_err(|e| format!("spawn failed: {e}"))?;
    let pid = Pid::from_raw(child.id() as i32);
    // Drain both pipes on threads so a chatty child cannot block on a full
    // pipe; the bytes come back on a channel, so the wait for them can end.
    let (tx, rx) = mpsc::channel::<(bool, Vec<u8>)>();
    let drain = |r: Option<Box<dyn Read + Send>>, is_out: bool| {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut v);
            }
            let _ = tx.send((is_out, v));
        });
    };
    drain(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
        true,
    );
    drain(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
        false,
    );
    drop(tx);
    // Wait without reaping (WNOWAIT): until the child is reaped its pid
    // stays the id of its process group, so the group can be killed below
    // without any chance of reaching an unrelated process.
    let start = Instant::now();
    let mut timed_out = false;
    let mut wait_error = None;
    loop {
        let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
        match waitid(Id::Pid(pid), flags) {
            Ok(WaitStatus::StillAlive) if start.elapsed() >= timeout => {
                timed_out = true;
                break;
            }
            Ok(WaitStatus::StillAlive) => std::thread::sleep(Duration::from_millis(2)),
            Ok(_) => break,
            Err(nix::errno::Errno::EINTR) => {}
            Err(e) => {
                wait_error = Some(e);
                break;
            }
        }
    }
    // Whatever is left of the group (the child itself when it is stuck, and
    // anything it started) goes: nothing outlives its execution or holds
    // the pipes open. ESRCH (nothing left) is the usual answer.
    let _ = killpg(pid, Signal::SIGKILL);
    let status = child.wait();
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let pipes_by = Instant::now() + Duration::from_secs(5);
    for _ in 0..2 {
        match rx.recv_timeout(pipes_by.saturating_duration_since(Instant::now())) {
            Ok((true, v)) => stdout = v,
            Ok((false, v)) => stderr = v,
            // A process that left the group still holds a pipe: go on
            // without its output rather than wait for it.
            Err(_) => break,
        }
    }
    if let Some(e) = wait_error {
        return Err(format!("waiting for the child failed: {e}"));
    }
    let status = status.map_err(|e| format!("waiting for the child failed: {e}"))?;
    if timed_out {
        return Err(format!(
            "timed out after {} (the execution timeout) and was killed",
            secs(timeout)
        ));
    }
    if !status.success() {
        let how = match (status.code(), status.signal()) {
            (Some(c), _) => format!("exited with code {c}"),
            (None, Some(s)) => format!(
                "killed by {}{}",
                signal_name(s),
                if status.core_dumped() {
                    " (core dumped)"
                } else {
                    ""
                }
            ),
            _ => "ended abnormally".to_string(),
        };
        return Err(match last_line(&stderr) {
            Some(line) => format!("{how}; stderr: {line}"),
            None => how,
        });
    }
    let text = String::from_utf8_lossy(&stdout);
    let line = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let report: ChildReport = serde_json::from_str(line).map_err(|e| {
        format!(
            "bad output ({e}): {:?}",
            last_line(line.as_bytes()).unwrap_or_default()
        )
    })?;
    if report.measurements_ns.len() != cfg.measurements as usize
        || report
            .measurements_ns
            .iter()
            .any(|m| !(m.is_finite() && *m > 0.0))
    {
        return Err(format!(
            "bad output: {} measurements (wanted {}), or one not a positive number",
            report.measurements_ns.len(),
            cfg.measurements
        ));
    }
    Ok(report)
}

pub fn run(ctx: &Ctx) -> SuiteResult {
    let wall = Instant::now();
    let mut fallbacks: Vec<String> = Vec::new();
    // Children inherit the affinity: every execution runs on the same CPU.
    let pinned = super::pin_here(&mut fallbacks);
    let pinned_cpu = pinned.cpu;
    let page = mem::page_size() as u64;
    let host = super::host::collect();

    let cache = colour_cache(&host.caches);
    let cache_bytes = match cache.as_ref().and_then(|c| c.size_bytes) {
        Some(b) => b,
        None => {
            fallbacks.push(
                "L2 size unknown (sysfs): working sets sized from an assumed 1 MiB".to_string(),
            );
            1 << 20
        }
    };
    let colours = cache.as_ref().and_then(|c| colours_of(c, page));
    let colouring_unavailable =
        colouring_unavailable(colours, page, host.hypervisor.is_some(), &mut fallbacks);
    let thp_unavailable = thp_unavailable(host.thp.as_deref(), &mut fallbacks);
    for a in ALLOCATORS {
        if let Some(why) = allocator_unavailable(a) {
            fallbacks.push(format!("allocator {why}"));
        }
    }

    let workloads: Vec<&str> = if ctx.quick {
        QUICK_WORKLOADS.to_vec()
    } else {
        workloads::ALL.to_vec()
    };
    let measurements = ctx.measurements.unwrap_or(if ctx.quick { 10 } else { 30 });
    let warmup: u32 = if ctx.quick { 2 } else { 5 };
    let executions = ctx.executions;

    let (mut configs, shapes) = configurations(
        &workloads,
        cache_bytes,
        &colouring_unavailable,
        &thp_unavailable,
    )?;
    if let Some(limit) = std::env::var(LIMIT_VAR)
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        fallbacks.push(format!(
            "only the first {limit} configurations ({LIMIT_VAR}, a testing aid)"
        ));
        configs.truncate(limit);
    }

    let seed = schedule_seed();
    let mut rng = Rng(seed);
    let schedule = schedule(&configs, executions, &mut rng);
    let failures = std::env::var(FAIL_VAR)
        .map(|v| parse_failures(&v))
        .unwrap_or_default();
    if !failures.is_empty() {
        fallbacks.push(format!("failures injected on purpose at schedule positions {failures:?} ({FAIL_VAR}, a testing aid)"));
    }

    let config_json = config_json(
        ctx,
        executions,
        measurements,
        warmup,
        &workloads,
        cache_bytes,
        shapes,
        pinned_cpu,
        page,
    );

    let total = schedule.len() as u64;
    let bar = ctx.progress.bar("alloc executions", total);
    let data_of = |configs: &Vec<AllocConfig>| AllocData {
        executions_per_config: executions,
        measurements_per_execution: measurements,
        colours,
        colour_cache: cache.clone(),
        schedule_seed: seed,
        configs: configs.clone(),
    };
    let output = |configs: &Vec<AllocConfig>, fallbacks: &Vec<String>, summary: Vec<String>| {
        serde_json::to_value(data_of(configs))
            .map(|data| SuiteOutput {
                config: config_json.clone(),
                fallbacks: fallbacks.clone(),
                data,
                summary,
            })
            .map_err(|e| SuiteFailure {
                message: format!("cannot serialize alloc data: {e}"),
                partial: None,
            })
    };
    (ctx.checkpoint)(&output(&configs, &fallbacks, Vec::new())?);

    let mut interrupted = None;
    let mut failed = 0u64;
    let mut smaps_noted = false;
    for (order, &ci) in schedule.iter().enumerate() {
        if let Some(sig) = signals::stop_requested() {
            interrupted = Some(sig);
            break;
        }
        let c = &configs[ci];
        let padding = rng.below(MAX_ENV_PADDING + 1);
        let inject_failure = failures
            .iter()
            .find(|(o, _)| *o as usize == order)
            .map(|(_, k)| k.clone());
        let cfg = child_config(
            c,
            cache_bytes,
            warmup,
            measurements,
            colours,
            inject_failure,
        );
        bar.set_message(format!(
            "{} {}× {} {}",
            c.workload, c.size_factor, c.strategy, c.allocator
        ));
        let timeout = execution_timeout(
            ctx.execution_timeout,
            warmup,
            measurements,
            cfg.working_set_bytes,
        );
        let result = run_child(&cfg, padding as usize, timeout);
        match &result {
            Ok(r) if r.huge_page_source.as_deref() == Some("smaps") && !smaps_noted => {
                smaps_noted = true;
                fallbacks.push("huge_page_bytes from /proc/self/smaps (AnonHugePages of the mappings holding the arrays, which may include neighbours): /proc/kpageflags was not readable".to_string());
            }
            Err(_) => failed += 1,
            _ => {}
        }
        let exec = execution(order, padding, result);
        configs[ci].executions.push(exec);
        bar.inc(1);
        // After every execution: a kill loses at most the one in flight.
        (ctx.checkpoint)(&output(&configs, &fallbacks, Vec::new())?);
    }
    bar.finish_with_message(format!("{failed} failed"));

    let summary = summarize(&configs, failed, wall.elapsed());
    let out = output(&configs, &fallbacks, summary)?;
    out.finish(interrupted)
}

/// The suite's config: what was run and how, for the file.
#[allow(clippy::too_many_arguments)]
fn config_json(
    ctx: &Ctx,
    executions: u32,
    measurements: u32,
    warmup: u32,
    workloads: &[&str],
    cache_bytes: u64,
    shapes: Vec<serde_json::Value>,
    pinned_cpu: Option<usize>,
    page: u64,
) -> serde_json::Value {
    json!({
        "quick": ctx.quick,
        "executions_per_config": executions,
        "measurements_per_execution": measurements,
        "warmup_measurements": warmup,
        "workloads": workloads,
        "size_factors": SIZE_FACTORS,
        "size_cache": "L2",
        "size_cache_bytes": cache_bytes,
        "strategies": STRATEGIES,
        "allocators": ALLOCATORS,
        "combination": "every strategy × every allocator: the arrays are allocated through the allocator (one 64-byte-aligned allocation per array, fixed order); the strategy places the whole pages inside them (default_4k: as the allocator got them; thp_madvise: madvise(MADV_HUGEPAGE) on them before first use; page_colouring / bin_hopping: pool pages of the wanted colour moved over them with mremap(MREMAP_FIXED)). Partial pages at the ends of an array are left alone.",
        "page_colouring": "wanted colour = virtual page number mod colours; colour = PFN mod colours",
        "bin_hopping": "the k-th whole page (allocation order over all arrays) wants colour k mod colours",
        "colour_histogram": "page_colouring / bin_hopping: achieved colours after placement, with misses; other strategies: the kernel's own colours of the arrays' pages after the run (no misses); empty where frames are hidden",
        "huge_page_bytes": "bytes of the arrays' whole pages in transparent huge pages, read after the run from /proc/kpageflags (KPF_THP) when readable, else smaps (see fallbacks)",
        "colour_pool": "3 pages per placed page + 64 per colour, MADV_NOHUGEPAGE, touched, frames from /proc/self/pagemap; achieved colours re-read after placement",
        "shapes": shapes,
        "measurement": "wall time of one measurement (reps_per_measurement kernels) by std::time::Instant, ns",
        "env_padding": format!("{PADDING_VAR} = 'x' × uniform 0..={MAX_ENV_PADDING} bytes per execution"),
        "schedule": "all (configuration, execution) pairs shuffled (Fisher–Yates, splitmix64 seeded by schedule_seed)",
        "child": "tickbook __alloc-child --config <json> (run as /proc/self/exe: the same binary), own process group, stdout one JSON line",
        "execution_timeout": match ctx.execution_timeout {
            Some(t) => format!("{} (--execution-timeout); a child still running then is killed with its process group (SIGKILL) and its execution recorded as failed", secs(t)),
            None => "10 s + 1 s per measurement (warm-up included) per MiB of working set (at least 1); a child still running then is killed with its process group (SIGKILL) and its execution recorded as failed".to_string(),
        },
        "execution_timeout_s": ctx.execution_timeout.map(|t| t.as_secs_f64()),
        "pinned_cpu": pinned_cpu,
        "page_bytes": page,
    })
}

/// Why page colouring and bin hopping cannot run here (noted in
/// `fallbacks`), if they cannot: no colour count, one colour, or frames
/// hidden; under a hypervisor they run with a note.
fn colouring_unavailable(
    colours: Option<u32>,
    page: u64,
    hypervisor: bool,
    fallbacks: &mut Vec<String>,
) -> Option<String> {
    let mut colouring_unavailable: Option<String> = match colours {
        None => Some("L2 geometry (sets and line size, or ways) unknown: no colour count".to_string()),
        Some(c) if c < 2 => Some(format!(
            "L2 way size is not larger than the page size ({page} B): every page has the same colour"
        )),
        Some(_) => None,
    };
    if colouring_unavailable.is_none() {
        if let Err(why) = mem::frames_visible() {
            colouring_unavailable = Some(why);
        }
    }
    match &colouring_unavailable {
        Some(why) => fallbacks.push(format!("page_colouring and bin_hopping not run: {why}")),
        None => {
            if hypervisor {
                fallbacks.push("running under a hypervisor: frame numbers are guest-physical; their colours match the hardware cache only where the host backs guest memory with huge pages (the colour bits lie within 2 MiB)".to_string());
            }
        }
    }
    colouring_unavailable
}

/// Why `thp_madvise` cannot run here (noted in `fallbacks`), if it cannot;
/// THP mode `always` is noted too.
fn thp_unavailable(thp: Option<&str>, fallbacks: &mut Vec<String>) -> Option<String> {
    let thp_unavailable = match thp {
        Some("never") => Some("transparent huge pages are disabled (mode never)".to_string()),
        Some(_) => None,
        None => Some("transparent huge pages mode unknown (no sysfs entry)".to_string()),
    };
    if let Some(why) = &thp_unavailable {
        fallbacks.push(format!("thp_madvise not run: {why}"));
    }
    if thp == Some("always") {
        fallbacks.push(
            "THP mode is always: default_4k arrays may get huge pages too (huge_page_bytes says)"
                .to_string(),
        );
    }
    thp_unavailable
}

/// Why allocator `a` cannot run, if it is not compiled in.
fn allocator_unavailable(a: &str) -> Option<String> {
    child::allocator(a)
        .is_none()
        .then(|| format!("{a} is not compiled into this build (cargo feature `{a}` off)"))
}

/// Every configuration (workload × size × strategy × allocator, in that
/// order), each marked with why it cannot run if it cannot, and each
/// workload's shape per size for the config.
fn configurations(
    workloads: &[&str],
    cache_bytes: u64,
    colouring_unavailable: &Option<String>,
    thp_unavailable: &Option<String>,
) -> Result<(Vec<AllocConfig>, Vec<serde_json::Value>), SuiteFailure> {
    let mut configs: Vec<AllocConfig> = Vec::new();
    let mut shapes = Vec::new();
    for &w in workloads {
        for &f in &SIZE_FACTORS {
            let nominal = (cache_bytes as f64 * f) as usize;
            let shape = workloads::shape(w, nominal).map_err(|e| SuiteFailure {
                message: e,
                partial: None,
            })?;
            for s in STRATEGIES {
                for a in ALLOCATORS {
                    let why = match s {
                        "page_colouring" | "bin_hopping" => colouring_unavailable.clone(),
                        "thp_madvise" => thp_unavailable.clone(),
                        _ => None,
                    }
                    .or_else(|| allocator_unavailable(a));
                    configs.push(AllocConfig {
                        workload: w.to_string(),
                        size_factor: f,
                        cache: "L2".to_string(),
                        working_set_bytes: shape.arrays.iter().sum::<usize>() as u64,
                        strategy: s.to_string(),
                        allocator: a.to_string(),
                        available: why.is_none(),
                        unavailable_reason: why,
                        unit: "ns".to_string(),
                        executions: Vec::new(),
                    });
                }
            }
            shapes.push(json!({
                "workload": w,
                "size_factor": f,
                "nominal_bytes": nominal,
                "array_bytes": shape.arrays,
                "reps_per_measurement": shape.reps,
                "problem": shape.describe,
            }));
        }
    }
    Ok((configs, shapes))
}

/// The schedule's seed: [`SEED_VAR`]'s, else from the time and the pid.
fn schedule_seed() -> u64 {
    std::env::var(SEED_VAR)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or_else(|| {
            let t = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
            // Below 2^53 so that JavaScript readers carry it exactly.
            (t ^ u64::from(std::process::id()).rotate_left(32)) & ((1 << 53) - 1)
        })
}

/// Every (available configuration, execution) pair, as configuration
/// indices in a random order.
fn schedule(configs: &[AllocConfig], executions: u32, rng: &mut Rng) -> Vec<usize> {
    let mut schedule: Vec<usize> = Vec::new();
    for (i, c) in configs.iter().enumerate() {
        if c.available {
            schedule.extend(std::iter::repeat(i).take(executions as usize));
        }
    }
    // Fisher–Yates over all (configuration, execution) pairs.
    for i in (1..schedule.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        schedule.swap(i, j);
    }
    schedule
}

/// What the child running an execution of `c` is told.
fn child_config(
    c: &AllocConfig,
    cache_bytes: u64,
    warmup: u32,
    measurements: u32,
    colours: Option<u32>,
    inject_failure: Option<String>,
) -> ChildConfig {
    ChildConfig {
        workload: c.workload.clone(),
        working_set_bytes: (cache_bytes as f64 * c.size_factor) as u64,
        strategy: c.strategy.clone(),
        allocator: c.allocator.clone(),
        warmup,
        measurements,
        colours: colours.unwrap_or(0),
        inject_failure,
    }
}

/// The record of the execution at `order` in the schedule: its
/// measurements, or why it failed.
fn execution(order: usize, padding: u64, result: Result<ChildReport, String>) -> AllocExecution {
    match result {
        Ok(r) => AllocExecution {
            order: order as u32,
            ok: true,
            error: None,
            env_padding_bytes: padding,
            measurements: r.measurements_ns,
            colour_histogram: r.colour_histogram,
            colour_misses: r.colour_misses,
            huge_page_bytes: r.huge_page_bytes,
        },
        Err(e) => AllocExecution {
            order: order as u32,
            ok: false,
            error: Some(e),
            env_padding_bytes: padding,
            measurements: Vec::new(),
            colour_histogram: Vec::new(),
            colour_misses: None,
            huge_page_bytes: None,
        },
    }
}

fn summarize(configs: &[AllocConfig], failed: u64, took: Duration) -> Vec<String> {
    let runs: usize = configs.iter().map(|c| c.executions.len()).sum();
    let mut out = vec![format!(
        "{} configurations ({} available), {runs} executions ({failed} failed) in {:.0} s",
        configs.len(),
        configs.iter().filter(|c| c.available).count(),
        took.as_secs_f64()
    )];
    for s in ["page_colouring", "bin_hopping"] {
        let (mut pages, mut misses) = (0u64, 0u64);
        for c in configs.iter().filter(|c| c.strategy == s) {
            for e in c.executions.iter().filter(|e| e.ok) {
                pages += e.colour_histogram.iter().sum::<u64>();
                misses += e.colour_misses.unwrap_or(0);
            }
        }
        if pages > 0 {
            out.push(format!(
                "{s}: {misses} of {pages} placed pages off their wanted colour ({:.2} %)",
                100.0 * misses as f64 / pages as f64
            ));
        }
    }
    let thp: u64 = configs
        .iter()
        .filter(|c| c.strategy == "thp_madvise")
        .flat_map(|c| c.executions.iter().filter_map(|e| e.huge_page_bytes))
        .sum();
    let thp_ws: u64 = configs
        .iter()
        .filter(|c| c.strategy == "thp_madvise")
        .map(|c| c.working_set_bytes * c.executions.iter().filter(|e| e.ok).count() as u64)
        .sum();
    if thp_ws > 0 {
        out.push(format!(
            "thp_madvise: {:.0} % of the arrays' bytes in huge pages",
            100.0 * thp as f64 / thp_ws as f64
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_from_geometry() {
        let l2 = Cache {
            level: 2,
            kind: "Unified".to_string(),
            size_bytes: Some(2 << 20),
            ways: Some(16),
            line_bytes: Some(64),
            sets: Some(2048),
            shared_cpu_list: None,
        };
        assert_eq!(colours_of(&l2, 4096), Some(32));
        let no_sets = Cache {
            sets: None,
            ..l2.clone()
        };
        assert_eq!(colours_of(&no_sets, 4096), Some(32));
        // Hocko and Kalibera's example: 512 KiB 8-way, 64 B lines → 16 colours.
        let example = Cache {
            size_bytes: Some(512 << 10),
            ways: Some(8),
            sets: Some(1024),
            ..l2
        };
        assert_eq!(colours_of(&example, 4096), Some(16));
    }

    #[test]
    fn timeout_grows_with_the_work_unless_fixed() {
        let mib = 1u64 << 20;
        // 10 s + 12 measurements × 1 MiB (the floor).
        assert_eq!(
            execution_timeout(None, 2, 10, mib / 2),
            Duration::from_secs(22)
        );
        // 10 s + 35 measurements × 4 MiB.
        assert_eq!(
            execution_timeout(None, 5, 30, 4 * mib),
            Duration::from_secs(150)
        );
        let fixed = Duration::from_millis(2500);
        assert_eq!(execution_timeout(Some(fixed), 5, 30, 4 * mib), fixed);
        assert_eq!(secs(fixed), "2.5 s");
        assert_eq!(secs(Duration::from_secs(60)), "60 s");
    }

    #[test]
    fn signals_by_name_and_stderr_as_one_line() {
        assert_eq!(signal_name(libc::SIGSEGV), "SIGSEGV");
        assert_eq!(signal_name(libc::SIGABRT), "SIGABRT");
        assert_eq!(signal_name(1000), "signal 1000");
        assert_eq!(
            last_line(b"first\nalloc child: boom  \n\n").as_deref(),
            Some("alloc child: boom")
        );
        assert_eq!(last_line(b" \n"), None);
        let long = "é".repeat(300);
        let clipped = last_line(long.as_bytes()).unwrap();
        assert_eq!(
            clipped.chars().count(),
            201,
            "200 characters and an ellipsis"
        );
    }

    #[test]
    fn failure_list() {
        assert_eq!(
            parse_failures("3:exit, 7:abort,x"),
            vec![(3, "exit".to_string()), (7, "abort".to_string())]
        );
    }
}
