//! tickbook's measurements: `tickbook collect` measures this machine and
//! writes a result file. Everything that touches the machine directly —
//! inline asm, `unsafe`, the alloc suite's child processes, CPUID and
//! `/proc` — is in this crate, so that the `tickbook` binary's front ends can
//! forbid unsafe code. Its interface: [`CollectArgs`] and [`run`] for
//! `tickbook collect`, [`AllocChildArgs`] and [`alloc_child`] for the child
//! process the alloc suite starts (the binary re-executing itself).
//!
//! The run is a list of suites; each is a module with a `run` function that
//! returns its `config`, `fallbacks` and `data` (see [`runner`]). The file is
//! written (atomically) when the run starts and again after every finished
//! suite, so a crash or a signal loses at most the suite in flight.

mod affinity;
mod alloc;
mod bernoulli;
mod bottleneck;
mod clocks;
mod commands;
mod copy;
mod cpuid;
mod emulation;
mod environment;
mod host;
mod ops;
mod output;
mod progress;
mod revision;
mod scan;
mod signals;
mod timefmt;
mod trace;
mod tsc;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Instant, SystemTime};

pub use alloc::child::{run as alloc_child, AllocChildArgs};
pub use commands::{run as run_commands, Order, RunArgs, RunOutcome};
use serde_json::Value;
use tickbook_analysis::format::{RunFile, Suite};
use tickbook_analysis::suites::SuiteId;

/// The function that measures a suite. The suites and their default order
/// are the analysis crate's registry (`SuiteId::ALL`); a suite added there
/// does not compile here until it has its measurement module.
fn runner(id: SuiteId) -> fn(&Ctx) -> SuiteResult {
    match id {
        SuiteId::Clocks => clocks::run,
        SuiteId::Bernoulli => bernoulli::run,
        SuiteId::Ops => ops::run,
        SuiteId::Copy => copy::run,
        SuiteId::Alloc => alloc::run,
        SuiteId::Bottleneck => bottleneck::run,
        SuiteId::Trace => trace::run,
    }
}

#[derive(clap::Args, Debug)]
pub struct CollectArgs {
    /// Suites to run (default: all known suites).
    #[arg(value_name = "SUITE", value_parser = clap::builder::PossibleValuesParser::new(SuiteId::ALL.iter().map(|id| id.name())))]
    pub suites: Vec<String>,
    /// Fewer samples and shorter windows: finishes in seconds.
    #[arg(long)]
    pub quick: bool,
    /// Output file [default: results/<hostname>-<UTC time>.json].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Testing aid: behave as if there were no cycle counter (TSC / generic
    /// timer), to exercise the CLOCK_MONOTONIC_RAW fallback paths.
    #[arg(long, hide = true)]
    pub no_counter: bool,
    /// bernoulli suite: relative error ε the trial count is planned for (eq. 5).
    #[arg(long, value_name = "E", default_value_t = 0.05, value_parser = parse_epsilon)]
    pub epsilon: f64,
    /// bernoulli suite: confidence level of that relative error.
    #[arg(long, value_name = "C", default_value_t = 0.95, value_parser = parse_confidence)]
    pub confidence: f64,
    /// alloc suite: separate executions (child processes) per configuration.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub executions: u32,
    /// alloc suite: timed measurements per execution [default: 10 quick, 30 full].
    #[arg(long, value_name = "M", value_parser = clap::value_parser!(u32).range(1..))]
    pub measurements: Option<u32>,
    /// alloc suite: seconds an execution (child process) may run before it
    /// is killed, with its process group, and recorded as failed [default:
    /// 10 s + 1 s per measurement, warm-up included, per MiB of working set].
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    pub execution_timeout: Option<std::time::Duration>,
    /// Set by `tickbook campaign`'s array task, never on the command line:
    /// the file's `campaign` section.
    #[arg(skip)]
    pub campaign: Option<tickbook_analysis::format::Campaign>,
}

/// What `tickbook doctor` measured (see `environment::check_now`).
pub struct DoctorCheck {
    pub environment: tickbook_analysis::format::Environment,
    pub host: tickbook_analysis::format::Host,
    /// The ops table timed quickly on the same CPU, for the shared-core
    /// check; why not where it could not be.
    pub ops: Result<tickbook_analysis::suites::ops::OpsData, String>,
}

/// `tickbook doctor`: the environment's checks and `seconds` of samples on
/// a busy loop and a quick ops table, without writing a file.
pub fn environment_check(seconds: f64, no_counter: bool) -> DoctorCheck {
    let (environment, host, ops) = environment::check_now(seconds, no_counter);
    DoctorCheck {
        environment,
        host,
        ops,
    }
}

/// Now as RFC 3339 in UTC, the way result files write times.
pub fn now_rfc3339() -> String {
    timefmt::rfc3339(SystemTime::now())
}

/// The CPUs the calling thread may run on (`sched_getaffinity`), ascending.
pub fn allowed_cpus() -> std::io::Result<Vec<usize>> {
    affinity::get().map(|s| s.cpus())
}

/// Restrict the calling thread, and the threads and processes it starts
/// later, to `cpus`. Call it before a run starts any thread.
pub fn pin_to(cpus: &[usize]) -> std::io::Result<()> {
    let mut set = affinity::CpuSet::empty();
    for &c in cpus {
        set = set.with(c);
    }
    if set.cpus().is_empty() {
        return Err(std::io::Error::other("no CPU to pin to"));
    }
    affinity::set(&set)
}

fn parse_timeout(s: &str) -> Result<std::time::Duration, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if v.is_finite() && v > 0.0 && v <= 1e9 {
        Ok(std::time::Duration::from_secs_f64(v))
    } else {
        Err(format!("expected a positive number of seconds, got {s}"))
    }
}

fn parse_open_unit(s: &str, what: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|e| format!("{what}: {e}"))?;
    if v > 0.0 && v < 1.0 {
        Ok(v)
    } else {
        Err(format!("{what} must be strictly between 0 and 1, got {v}"))
    }
}

fn parse_epsilon(s: &str) -> Result<f64, String> {
    parse_open_unit(s, "epsilon")
}

fn parse_confidence(s: &str) -> Result<f64, String> {
    parse_open_unit(s, "confidence")
}

/// What a suite is given.
pub(crate) struct Ctx<'a> {
    pub quick: bool,
    pub no_counter: bool,
    /// bernoulli: relative error and confidence for planning trials.
    pub epsilon: f64,
    pub confidence: f64,
    pub progress: &'a progress::Progress,
    /// alloc: executions per configuration, measurements per execution.
    pub executions: u32,
    pub measurements: Option<u32>,
    /// alloc: `--execution-timeout`, when given.
    pub execution_timeout: Option<std::time::Duration>,
    /// Rewrite the result file now with the running suite's output so far
    /// (marked failed, "in progress"): long suites call it after each
    /// finished unit, so that a kill keeps everything finished.
    pub checkpoint: &'a dyn Fn(&SuiteOutput),
    /// Sample the environment now (steal, waits, switches, interrupts, the
    /// core clock), named `at`: the run samples between suites, a long
    /// suite may add one in its middle.
    pub env_sample: &'a dyn Fn(&str),
}

/// What a suite hands back: the three free-form sections of
/// [`tickbook_analysis::format::Suite`] plus lines for the closing summary.
#[derive(Debug, Default)]
pub(crate) struct SuiteOutput {
    pub config: Value,
    pub fallbacks: Vec<String>,
    pub data: Value,
    pub summary: Vec<String>,
}

/// A suite that did not finish. Partial output is kept in the file (readers
/// only parse `data` of complete suites, so it cannot mislead them).
#[derive(Debug)]
pub(crate) struct SuiteFailure {
    pub message: String,
    pub partial: Option<Box<SuiteOutput>>,
}

pub(crate) type SuiteResult = Result<SuiteOutput, SuiteFailure>;

pub fn run(args: CollectArgs) -> ExitCode {
    let wall = Instant::now();
    let started = SystemTime::now();
    if let Err(e) = signals::install() {
        eprintln!("tickbook collect: warning: {e}; Ctrl-C will kill the run without saving");
    }
    let selected: Vec<SuiteId> = if args.suites.is_empty() {
        SuiteId::ALL.to_vec()
    } else {
        // clap already rejected unknown names; keep the user's order, once each.
        let mut v: Vec<SuiteId> = Vec::new();
        for id in args
            .suites
            .iter()
            .filter_map(|name| SuiteId::from_name(name))
        {
            if !v.contains(&id) {
                v.push(id);
            }
        }
        v
    };

    let progress = progress::Progress::new();
    let host_step = progress.spinner("host", "reading host description");
    let mut host = host::collect();
    // Under an emulator every suite still runs to the end (the file stays
    // complete and valid), but each says first that its timings are not a
    // CPU's.
    let emulated = emulation::emulated().map(str::to_string);
    if let Some(e) = &emulated {
        host.notes.push(e.clone());
    }
    host_step.finish_with_message(format!(
        "{} ({}), {} notes",
        host.hostname,
        host.cpu.model_name.as_deref().unwrap_or("unknown CPU"),
        host.notes.len()
    ));

    // The environment's checks now, its samples at the start, after each
    // suite and in the middle of long ones, taken on the measuring thread.
    let env_counter = tsc::ordered_reader(&tsc::detect(args.no_counter, &host::cpuinfo_flags()));
    let mut environment = environment::start(&host, env_counter);
    environment::sample_into(&mut environment, "start", env_counter);
    let environment = std::cell::RefCell::new(environment);
    let env_sample =
        |at: &str| environment::sample_into(&mut environment.borrow_mut(), at, env_counter);

    let out = args
        .out
        .clone()
        .unwrap_or_else(|| output::default_path(&host.hostname, started));
    let mut run = RunFile {
        campaign: args.campaign.clone(),
        environment: Some(environment.borrow().clone()),
        ..output::new_run(host, started)
    };
    // One collection per output file, and write before measuring anything:
    // an unwritable or busy destination should fail now, not after minutes
    // of work.
    let _lock = match output::OutLock::acquire(&out) {
        Ok(lock) => lock,
        Err(e) => {
            progress.clear();
            eprintln!("tickbook collect: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = output::write_run(&out, &run) {
        progress.clear();
        eprintln!("tickbook collect: cannot write {}: {e}", out.display());
        return ExitCode::FAILURE;
    }

    // The file as of the last finished suite, and the running suite's name
    // and start, for `Ctx::checkpoint`.
    let saved = std::cell::RefCell::new((run.clone(), String::new(), SystemTime::now()));
    // A full disk fails every later write the same way: say it once, and
    // again only when the reason changes.
    let last_write_error = std::cell::RefCell::new(String::new());
    let write_failed_because = |e: std::io::Error| {
        let msg = format!("cannot write {}: {e}", out.display());
        if *last_write_error.borrow() != msg {
            eprintln!("tickbook collect: {msg}; the file keeps the last suites written");
            *last_write_error.borrow_mut() = msg;
        }
    };
    let checkpoint = |o: &SuiteOutput| {
        let mut saved = saved.borrow_mut();
        let (file, name, started) = &mut *saved;
        file.environment = Some(environment.borrow().clone());
        file.suites.push(Suite {
            suite: name.clone(),
            status: "failed".to_string(),
            error: Some(
                "in progress: the run ended before this suite finished; data holds what finished"
                    .to_string(),
            ),
            started_at: timefmt::rfc3339(*started),
            ended_at: timefmt::rfc3339(SystemTime::now()),
            config: o.config.clone(),
            fallbacks: emulated.iter().chain(&o.fallbacks).cloned().collect(),
            data: o.data.clone(),
        });
        let written = output::write_run(&out, file);
        file.suites.pop();
        if let Err(e) = written {
            write_failed_because(e);
        }
    };
    let ctx = Ctx {
        quick: args.quick,
        no_counter: args.no_counter,
        epsilon: args.epsilon,
        confidence: args.confidence,
        progress: &progress,
        executions: args.executions,
        measurements: args.measurements,
        execution_timeout: args.execution_timeout,
        checkpoint: &checkpoint,
        env_sample: &env_sample,
    };
    let mut summary: Vec<String> = Vec::new();
    let mut any_failed = false;
    let mut write_failed = false;
    for id in selected {
        if signals::stop_requested().is_some() {
            break;
        }
        let suite_started = SystemTime::now();
        {
            let mut s = saved.borrow_mut();
            s.1 = id.name().to_string();
            s.2 = suite_started;
        }
        // A panicking suite is recorded as failed; the others still run.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| runner(id)(&ctx)))
            .unwrap_or_else(|panic| {
                Err(SuiteFailure {
                    message: format!("panicked: {}", panic_message(&panic)),
                    partial: None,
                })
            });
        let ended = SystemTime::now();
        let mut suite = Suite {
            suite: id.name().to_string(),
            status: "complete".to_string(),
            error: None,
            started_at: timefmt::rfc3339(suite_started),
            ended_at: timefmt::rfc3339(ended),
            config: Value::Null,
            fallbacks: Vec::new(),
            data: Value::Null,
        };
        let output = match result {
            Ok(o) => Some(Box::new(o)),
            Err(f) => {
                any_failed = true;
                suite.status = "failed".to_string();
                summary.push(format!("{}: FAILED: {}", id.name(), f.message));
                suite.error = Some(f.message);
                f.partial
            }
        };
        if let Some(o) = output.map(|o| *o) {
            suite.config = o.config;
            suite.fallbacks = emulated.iter().cloned().chain(o.fallbacks).collect();
            suite.data = o.data;
            if suite.status == "complete" {
                summary.push(format!("{}:", id.name()));
                summary.extend(o.summary.into_iter().map(|l| format!("  {l}")));
            }
        }
        run.suites.push(suite);
        env_sample(&format!("after {}", id.name()));
        run.environment = Some(environment.borrow().clone());
        saved.borrow_mut().0.suites = run.suites.clone();
        if let Err(e) = output::write_run(&out, &run) {
            write_failed_because(e);
            write_failed = true;
        }
    }

    let stop = signals::stop_requested();
    run.status = if stop.is_some() {
        "interrupted"
    } else {
        "complete"
    }
    .to_string();
    run.ended_at = Some(timefmt::rfc3339(SystemTime::now()));
    if let Err(e) = output::write_run(&out, &run) {
        write_failed_because(e);
        write_failed = true;
    }
    progress.clear();

    let size = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
    for line in &summary {
        eprintln!("{line}");
    }
    eprintln!(
        "run {} in {:.1} s; wrote {} ({:.1} kB)",
        run.status,
        wall.elapsed().as_secs_f64(),
        out.display(),
        size as f64 / 1e3
    );
    // The one line on stdout: where the data is.
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "{}", out.display());
    let _ = stdout.flush();

    match stop {
        Some(sig) => ExitCode::from(128u8.saturating_add(sig as u8)),
        None if write_failed || any_failed => ExitCode::FAILURE,
        None => ExitCode::SUCCESS,
    }
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_string()
    }
}

/// The failure a suite reports when a signal stopped it.
pub(crate) fn interrupted_failure(sig: i32, partial: Option<Box<SuiteOutput>>) -> SuiteFailure {
    SuiteFailure {
        message: format!(
            "interrupted by {} before the suite finished; partial data kept",
            signals::name(sig)
        ),
        partial,
    }
}

/// The cycle counter as the bernoulli and ops suites use it: whether it can
/// be read, and the frequency that converts its ticks to ns.
#[derive(Debug, Clone)]
pub(crate) struct Counter {
    pub support: tsc::CounterSupport,
    /// Chosen frequency (Hz) and the name of its source; `None` when the
    /// counter is unusable or no source was readable.
    pub hz: Option<(f64, String)>,
    /// Why the counter or its frequency is missing, for `Suite.fallbacks`.
    pub fallbacks: Vec<String>,
}

impl Counter {
    /// The ordered read and ns per tick, when both are known.
    pub fn reader(&self) -> Option<(fn() -> u64, f64)> {
        let read = tsc::ordered_reader(&self.support)?;
        let (hz, _) = self.hz.as_ref()?;
        Some((read, 1e9 / hz))
    }
}

/// Detect the counter and choose its frequency the way the clocks suite
/// does. Computed once per process: the calibration takes up to seconds.
pub(crate) fn counter(ctx: &Ctx) -> Counter {
    static CACHE: std::sync::OnceLock<Counter> = std::sync::OnceLock::new();
    CACHE
        .get_or_init(|| {
            let support = tsc::detect(ctx.no_counter, &host::cpuinfo_flags());
            let mut fallbacks = Vec::new();
            let mut hz = None;
            if let Some(why) = &support.unavailable {
                fallbacks.push(format!("cycle counter not used: {why}"));
            } else {
                let pb = ctx.progress.spinner("counter frequency", "");
                let sources = tsc::frequency_sources(&support, ctx.quick, |name| {
                    pb.set_message(format!("reading {name}"));
                });
                hz = tsc::choose(&sources).map(|(h, name, _)| (h, name));
                match &hz {
                    Some((h, name)) => {
                        pb.finish_with_message(format!("{:.6} MHz from {name}", h / 1e6))
                    }
                    None => {
                        pb.finish_with_message("no frequency source was readable");
                        fallbacks.push(
                            "counter frequency unknown: no frequency source was readable"
                                .to_string(),
                        );
                    }
                }
            }
            Counter {
                support,
                hz,
                fallbacks,
            }
        })
        .clone()
}

/// The calling thread pinned to the CPU it was on; the original mask comes
/// back when this drops.
pub(crate) struct Pinned {
    _restore: affinity::Restore,
    /// The CPU pinned to, when pinning worked.
    pub cpu: Option<usize>,
    /// The mask the thread had before.
    pub original: Option<affinity::CpuSet>,
}

/// Pin the calling thread to the CPU it is on: a measurement split across
/// CPUs would mix two counters. Records a fallback when it cannot.
pub(crate) fn pin_here(fallbacks: &mut Vec<String>) -> Pinned {
    let original = affinity::get();
    let mut cpu = None;
    match (&original, affinity::current_cpu()) {
        (Ok(_), Some(c)) => match affinity::set(&affinity::CpuSet::single(c)) {
            Ok(()) => cpu = Some(c),
            Err(e) => fallbacks.push(format!("not pinned to a CPU: sched_setaffinity: {e}")),
        },
        (Err(e), _) => fallbacks.push(format!("not pinned to a CPU: sched_getaffinity: {e}")),
        (_, None) => fallbacks.push("not pinned to a CPU: sched_getcpu failed".to_string()),
    }
    let original = original.ok();
    Pinned {
        _restore: affinity::Restore::new(original),
        cpu,
        original,
    }
}

impl SuiteOutput {
    /// The suite's result: its output, or, when a signal stopped it, a
    /// failure that keeps the output as partial data.
    pub fn finish(self, interrupted: Option<i32>) -> SuiteResult {
        match interrupted {
            Some(sig) => Err(interrupted_failure(sig, Some(Box::new(self)))),
            None => Ok(self),
        }
    }
}
