//! `tickbook run`: the user's own commands timed, each run its own process,
//! in rounds that run every command once in an order drawn afresh from a
//! seed (or one command after another with `--order sequential`). The
//! options mean what hyperfine's do where hyperfine has them. The file is a
//! run file with one `commands` section, rewritten atomically as rounds
//! finish, so a failure, a timeout or Ctrl-C keeps every finished round.

mod child;
mod counters;
mod plan;

use super::{host, output, signals, timefmt};
use child::{run_counted, run_once, Launch, Outcome};
use counters::Plan;
use plan::Orders;
use serde_json::{json, Value};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime};
use tickbook_analysis::format::{RunFile, Suite};
use tickbook_analysis::options::Options;
use tickbook_analysis::stats::sequential::PrecisionRule;
use tickbook_analysis::suites::commands::{
    commands_report, precision_reached, CommandSpec, Commands, CommandsData, Counters, RunRecord,
    ShellSpawn,
};
use tickbook_analysis::suites::Suite as _;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Each round runs every command once, in an order drawn afresh.
    Interleaved,
    /// Every run of the first command, then of the next (hyperfine's way).
    Sequential,
}

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The commands to time (each run through the shell unless -N).
    #[arg(value_name = "COMMAND", required = true)]
    pub commands: Vec<String>,
    /// A name for each command, in order (hyperfine's --command-name);
    /// `{VAR}` is replaced by the parameter's value.
    #[arg(
        short = 'n',
        long = "name",
        alias = "command-name",
        value_name = "NAME"
    )]
    pub names: Vec<String>,
    /// Exactly this many rounds (each command runs once per round).
    #[arg(short = 'r', long, value_name = "N", conflicts_with = "time_budget",
          value_parser = clap::value_parser!(u32).range(2..))]
    pub runs: Option<u32>,
    /// Rounds until this many seconds have passed (at least 3 rounds)
    /// [default without --runs: 3 s and at least 10 rounds, as hyperfine].
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub time_budget: Option<Duration>,
    /// Rounds until the paired ratio of every command against the fastest
    /// has a 95 % interval within ± PCT % of it, by a confidence sequence
    /// that stays valid however long the run goes (at least 10 rounds);
    /// --runs or --time-budget caps the run [default cap: 60 s].
    #[arg(long, value_name = "PCT", value_parser = parse_pct)]
    pub precision: Option<f64>,
    /// Runs of each command before the first round, not recorded.
    #[arg(short = 'w', long, value_name = "N", default_value_t = 0)]
    pub warmup: u32,
    /// Run before every run (warm-ups too): once for all commands, or once
    /// per command in their order.
    #[arg(short = 'p', long, value_name = "CMD")]
    pub prepare: Vec<String>,
    /// Run once before the first run.
    #[arg(short = 's', long, value_name = "CMD")]
    pub setup: Option<String>,
    /// Run once after the last run (also after a failure).
    #[arg(short = 'c', long, value_name = "CMD")]
    pub cleanup: Option<String>,
    /// The shell commands run in (`SHELL -c COMMAND`); `none` is -N.
    #[arg(short = 'S', long, value_name = "SHELL", default_value = "sh")]
    pub shell: String,
    /// No shell: each command split into words and run directly (no shell
    /// start-up to subtract).
    #[arg(short = 'N', long = "no-shell", conflicts_with = "shell")]
    pub no_shell: bool,
    /// Each command for VAR = MIN, MIN + step, …, MAX, substituted for {VAR}.
    #[arg(short = 'P', long, num_args = 3, value_names = ["VAR", "MIN", "MAX"],
          conflicts_with = "parameter_list", allow_negative_numbers = true)]
    pub parameter_scan: Vec<String>,
    /// The step of --parameter-scan [default: 1].
    #[arg(short = 'D', long, value_name = "DELTA", requires = "parameter_scan")]
    pub parameter_step_size: Option<f64>,
    /// Each command for VAR = each comma-separated value.
    #[arg(short = 'L', long, num_args = 2, value_names = ["VAR", "VALUES"])]
    pub parameter_list: Vec<String>,
    /// How runs are ordered.
    #[arg(long, value_enum, default_value_t = Order::Interleaved)]
    pub order: Order,
    /// Seed of the rounds' orders (recorded) [default: from the time].
    #[arg(long, value_name = "S", value_parser = clap::value_parser!(u64).range(..=(1u64 << 53) - 1))]
    pub seed: Option<u64>,
    /// Kill a run (and everything it started) after this many seconds; the
    /// run stops there, keeping the finished rounds.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
    /// Keep runs that exit non-zero instead of stopping.
    #[arg(short = 'i', long)]
    pub ignore_failure: bool,
    /// Output file [default: results/<hostname>-<UTC time>.json].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

fn parse_pct(s: &str) -> Result<f64, String> {
    match s.trim_end_matches('%').parse::<f64>() {
        Ok(v) if v > 0.0 && v < 100.0 => Ok(v),
        _ => Err(format!("`{s}` is not a percentage between 0 and 100")),
    }
}

fn parse_seconds(s: &str) -> Result<Duration, String> {
    let v: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if v.is_finite() && v > 0.0 && v <= 1e9 {
        Ok(Duration::from_secs_f64(v))
    } else {
        Err(format!("expected a positive number of seconds, got {s}"))
    }
}

/// Environment variables recorded with the run: those that commonly change
/// what a command does or how fast. Others are not written (they may hold
/// secrets); their count is.
const ENVIRONMENT: &[&str] = &[
    "PATH",
    "SHELL",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LC_NUMERIC",
    "TZ",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "OMP_NUM_THREADS",
    "MALLOC_ARENA_MAX",
    "MALLOC_CONF",
    "PYTHONHASHSEED",
    "GOMAXPROCS",
    "RAYON_NUM_THREADS",
    "RUSTFLAGS",
];

/// How the run ended.
enum End {
    Finished,
    Failed(String),
    Interrupted(i32),
}

/// What `run` hands back to the binary: its exit status and the file, for
/// the summary the binary prints.
pub struct RunOutcome {
    pub code: ExitCode,
    pub out: Option<PathBuf>,
}

/// Everything a run needs besides its data.
struct Runner {
    launch: Launch,
    timeout: Option<Duration>,
    ignore_failure: bool,
    prepare: Vec<String>,
    /// The perf events counted for each timed run.
    counters: Plan,
}

fn stop() -> bool {
    signals::stop_requested().is_some()
}

impl Runner {
    /// Run a helper command (--prepare, --setup, --cleanup); an error names it.
    fn helper(&self, what: &str, cmd: &str) -> Result<(), String> {
        let o = run_once(cmd, &self.launch, self.timeout, stop)?;
        if o.stopped {
            return Ok(());
        }
        if o.timed_out {
            return Err(format!("the {what} command `{cmd}` timed out"));
        }
        if !o.succeeded() {
            return Err(format!("the {what} command `{cmd}` {}", o.status_text()));
        }
        Ok(())
    }

    fn prepare_for(&self, c: usize) -> Option<&str> {
        match self.prepare.len() {
            0 => None,
            1 => Some(&self.prepare[0]),
            _ => self.prepare.get(c).map(String::as_str),
        }
    }

    /// One timed run of command `c` (its --prepare first). `Err` ends the
    /// run with that message; `Ok(None)` when a stop request killed it.
    fn timed(&self, c: usize, spec: &CommandSpec, when: &str) -> Result<Option<Outcome>, String> {
        if let Some(p) = self.prepare_for(c) {
            self.helper("--prepare", p)?;
        }
        if stop() {
            return Ok(None);
        }
        let o = run_counted(
            &spec.command,
            &self.launch,
            self.timeout,
            stop,
            Some(&self.counters),
        )?;
        if o.stopped {
            return Ok(None);
        }
        if o.timed_out {
            return Err(format!(
                "{} (`{}`) timed out after {} s {when}: it was killed with everything it started",
                spec.name,
                spec.command,
                self.timeout.map(|t| t.as_secs_f64()).unwrap_or(0.0)
            ));
        }
        if !o.succeeded() && !self.ignore_failure {
            return Err(format!(
                "{} (`{}`) {} {when}; --ignore-failure keeps runs that fail",
                spec.name,
                spec.command,
                o.status_text()
            ));
        }
        Ok(Some(o))
    }
}

/// The shell's own start-up: the mean of `sh -c ''` runs, as hyperfine
/// measures it before its benchmarks (50 runs after a few warm-ups).
fn shell_spawn(runner: &Runner) -> Result<ShellSpawn, String> {
    const RUNS: u32 = 50;
    let (mut wall, mut user, mut sys) = (0.0, 0.0, 0.0);
    // Each event's sum and how many runs had it.
    let mut counted = [(0.0, 0u32); 3];
    for k in 0..RUNS + 5 {
        let o = run_counted(
            "",
            &runner.launch,
            runner.timeout,
            stop,
            Some(&runner.counters),
        )?;
        if !o.succeeded() {
            return Err(format!(
                "the shell with an empty command {} (cannot measure its start-up)",
                o.status_text()
            ));
        }
        if k >= 5 {
            wall += o.wall.as_nanos() as f64;
            user += o.user.as_nanos() as f64;
            sys += o.sys.as_nanos() as f64;
            let c = o.counts;
            for (sum, v) in counted
                .iter_mut()
                .zip([c.task_clock_ns, c.instructions, c.cycles])
            {
                if let Some(v) = v {
                    *sum = (sum.0 + v, sum.1 + 1);
                }
            }
        }
    }
    let n = RUNS as f64;
    let mean = |(sum, k): (f64, u32)| (k > 0).then(|| sum / f64::from(k));
    Ok(ShellSpawn {
        runs: RUNS,
        wall_ns: wall / n,
        user_ns: user / n,
        sys_ns: sys / n,
        task_clock_ns: mean(counted[0]),
        instructions: mean(counted[1]),
        cycles: mean(counted[2]),
    })
}

fn record(
    o: &Outcome,
    c: usize,
    round: usize,
    position: usize,
    start_ns: f64,
    spawn: Option<&ShellSpawn>,
) -> RunRecord {
    let minus = |d: Duration, s: f64| (d.as_nanos() as f64 - s).max(0.0);
    let less = |v: Option<f64>, s: Option<f64>| v.map(|v| (v - s.unwrap_or(0.0)).max(0.0));
    let n = o.counts;
    RunRecord {
        command: c,
        round,
        position,
        start_ns,
        wall_ns: minus(o.wall, spawn.map_or(0.0, |s| s.wall_ns)),
        user_ns: minus(o.user, spawn.map_or(0.0, |s| s.user_ns)),
        sys_ns: minus(o.sys, spawn.map_or(0.0, |s| s.sys_ns)),
        max_rss_kib: o.max_rss_kib,
        nivcsw: Some(o.nivcsw),
        nvcsw: Some(o.nvcsw),
        exit_code: o.exit_code,
        signal: o.signal,
        task_clock_ns: less(n.task_clock_ns, spawn.and_then(|s| s.task_clock_ns)),
        instructions: less(n.instructions, spawn.and_then(|s| s.instructions)),
        cycles: less(n.cycles, spawn.and_then(|s| s.cycles)),
    }
}

/// The commit of the working directory's git repository and whether
/// tracked files differ from it; `None` outside a repository or without git.
fn git_state() -> Option<Value> {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let commit = git(&["rev-parse", "HEAD"])?;
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty());
    Some(json!({ "commit": commit, "dirty": dirty }))
}

/// When to stop adding rounds.
enum Until {
    Rounds(usize),
    /// At least `min` rounds and `budget` elapsed.
    Budget {
        budget: Duration,
        min: usize,
    },
    /// The rule's precision reached, or the cap.
    Precision {
        rule: PrecisionRule,
        max_rounds: Option<usize>,
        budget: Option<Duration>,
    },
}

impl Until {
    fn done(&self, data: &CommandsData, elapsed: Duration) -> bool {
        let rounds = data.rounds.len();
        match *self {
            Until::Rounds(n) => rounds >= n,
            Until::Budget { budget, min } => rounds >= min && elapsed >= budget,
            Until::Precision {
                rule,
                max_rounds,
                budget,
            } => {
                max_rounds.is_some_and(|n| rounds >= n)
                    || budget.is_some_and(|b| elapsed >= b)
                    || precision_reached(data, &rule, PRECISION_ALPHA)
            }
        }
    }
}

/// The level the runner stops at (the analysis' default confidence).
const PRECISION_ALPHA: f64 = 0.05;
/// The cap of a precision run given neither --runs nor --time-budget.
const PRECISION_BUDGET: Duration = Duration::from_secs(60);

pub fn run(args: RunArgs) -> RunOutcome {
    let fail = |msg: String| {
        eprintln!("tickbook run: {msg}");
        RunOutcome {
            code: ExitCode::from(2),
            out: None,
        }
    };
    let parameter = if args.parameter_scan.len() == 3 {
        let p = &args.parameter_scan;
        let num = |s: &str| {
            s.parse::<f64>()
                .map_err(|e| format!("--parameter-scan {}: {s}: {e}", p[0]))
        };
        let (min, max) = match (num(&p[1]), num(&p[2])) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => return fail(e),
        };
        match plan::scan(&p[0], min, max, args.parameter_step_size.unwrap_or(1.0)) {
            Ok(p) => Some(p),
            Err(e) => return fail(e),
        }
    } else if args.parameter_list.len() == 2 {
        Some(plan::Parameter {
            name: args.parameter_list[0].clone(),
            values: args.parameter_list[1]
                .split(',')
                .map(str::to_string)
                .collect(),
        })
    } else {
        None
    };
    let commands = match plan::commands(&args.commands, &args.names, parameter.as_ref()) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    if args.prepare.len() > 1 && args.prepare.len() != commands.len() {
        return fail(format!(
            "{} --prepare for {} commands: give one for all, or one per command",
            args.prepare.len(),
            commands.len()
        ));
    }
    let launch = if args.no_shell || args.shell == "none" {
        Launch::Direct
    } else {
        Launch::Shell(args.shell.clone())
    };
    if let Launch::Direct = launch {
        for c in &commands {
            if let Err(e) = child::command_for(&c.command, &launch) {
                return fail(e);
            }
        }
    }
    let seed = args.seed.unwrap_or_else(|| {
        let t = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        (t ^ u64::from(std::process::id()).rotate_left(32)) & ((1 << 53) - 1)
    });
    if let Err(e) = signals::install() {
        eprintln!("tickbook run: warning: {e}; Ctrl-C will kill the run without saving");
    }
    let started = SystemTime::now();
    let host = host::collect();
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| output::default_path(&host.hostname, started));
    let _lock = match output::OutLock::acquire(&out) {
        Ok(l) => l,
        Err(e) => return fail(e),
    };
    if args.precision.is_some() && matches!(args.order, Order::Sequential) {
        return fail(
            "--precision checks the paired ratio after each round, which needs --order interleaved"
                .to_string(),
        );
    }
    let rule = args.precision.map(|p| PrecisionRule::new(p / 100.0));
    let until = match (args.runs, args.time_budget, rule) {
        (n, b, Some(rule)) => Until::Precision {
            rule,
            max_rounds: n.map(|n| n as usize),
            budget: b.or(if n.is_none() {
                Some(PRECISION_BUDGET)
            } else {
                None
            }),
        },
        (Some(n), _, None) => Until::Rounds(n as usize),
        (None, Some(b), None) => Until::Budget { budget: b, min: 3 },
        (None, None, None) => Until::Budget {
            budget: Duration::from_secs(3),
            min: 10,
        },
    };
    let environment: serde_json::Map<String, Value> = ENVIRONMENT
        .iter()
        .filter_map(|k| {
            std::env::var(k)
                .ok()
                .map(|v| (k.to_string(), Value::String(v)))
        })
        .collect();
    let unrecorded = std::env::vars_os().count() - environment.len();
    let counters = Plan::probe();
    let mut fallbacks: Vec<String> = counters
        .unavailable
        .iter()
        .map(|(event, why)| format!("{event} not counted: {why}"))
        .collect();
    if !counters.kernel {
        fallbacks.push("perf events count user mode only: kernel mode is not permitted (kernel.perf_event_paranoid)".to_string());
    }
    let git = git_state();
    if git.is_none() {
        fallbacks.push("no git commit recorded: the working directory is not in a git repository (or git is missing)".to_string());
    }
    let config = json!({
        "commands": args.commands,
        "names": args.names,
        "runs": args.runs,
        "time_budget_s": args.time_budget.map(|d| d.as_secs_f64()),
        "precision_pct": args.precision,
        "warmup": args.warmup,
        "prepare": args.prepare,
        "setup": args.setup,
        "cleanup": args.cleanup,
        "shell": match &launch { Launch::Shell(s) => Some(s.clone()), Launch::Direct => None },
        "order": match args.order { Order::Interleaved => "interleaved", Order::Sequential => "sequential" },
        "seed": seed,
        "timeout_s": args.timeout.map(|d| d.as_secs_f64()),
        "ignore_failure": args.ignore_failure,
        "working_directory": std::env::current_dir().ok().map(|p| p.display().to_string()),
        "git": git,
        "environment": environment,
        "environment_not_recorded": unrecorded,
        "clock": "CLOCK_MONOTONIC (std::time::Instant) for wall time; wait4 rusage for CPU time and maximum RSS; perf_event_open (inherit, enable_on_exec) for task-clock, instructions and cycles",
        "allowed_cpus": super::allowed_cpus().ok(),
    });
    let mut file = RunFile {
        // The environment's samples judge a measuring thread; here the
        // timed work is in child processes, which they do not yet follow.
        environment: None,
        suites: vec![Suite {
            suite: Commands::NAME.to_string(),
            status: "failed".to_string(),
            error: Some("in progress: data holds the finished rounds".to_string()),
            started_at: timefmt::rfc3339(started),
            ended_at: timefmt::rfc3339(started),
            config,
            fallbacks,
            data: Value::Null,
        }],
        ..output::new_run(host, started)
    };
    let mut data = CommandsData {
        commands: commands.clone(),
        order: match args.order {
            Order::Interleaved => "interleaved",
            Order::Sequential => "sequential",
        }
        .to_string(),
        seed,
        shell: match &launch {
            Launch::Shell(s) => Some(s.clone()),
            Launch::Direct => None,
        },
        shell_spawn: None,
        warmup: args.warmup,
        rounds: Vec::new(),
        runs: Vec::new(),
        precision: rule,
        counters: Some(Counters {
            kernel: counters.kernel,
            unavailable: counters.unavailable.clone(),
        }),
    };
    let write = |file: &mut RunFile, data: &CommandsData| -> Result<(), String> {
        file.suites[0].data = serde_json::to_value(data).unwrap_or(Value::Null);
        file.suites[0].ended_at = timefmt::rfc3339(SystemTime::now());
        output::write_run(&out, file).map_err(|e| format!("cannot write {}: {e}", out.display()))
    };
    if let Err(e) = write(&mut file, &data) {
        return fail(e);
    }
    let runner = Runner {
        launch: launch.clone(),
        timeout: args.timeout,
        ignore_failure: args.ignore_failure,
        prepare: args.prepare.clone(),
        counters,
    };
    let mut progress = Progress::new(std::io::stderr().is_terminal());
    let mut end = (|| -> Result<End, String> {
        if let Some(s) = &args.setup {
            runner.helper("--setup", s)?;
        }
        if let Launch::Shell(_) = launch {
            data.shell_spawn = Some(shell_spawn(&runner)?);
        }
        for (c, spec) in commands.iter().enumerate() {
            for _ in 0..args.warmup {
                if runner.timed(c, spec, "in a warm-up run")?.is_none() {
                    return Ok(End::Interrupted(
                        signals::stop_requested().unwrap_or(libc::SIGINT),
                    ));
                }
            }
        }
        Ok(End::Finished)
    })()
    .unwrap_or_else(End::Failed);
    let begun = Instant::now();
    let mut last_write = Instant::now();
    if let End::Finished = end {
        let rounds = match args.order {
            Order::Interleaved => interleaved(
                &runner,
                &commands,
                &until,
                seed,
                begun,
                &mut data,
                &mut |data, force| {
                    progress.round(data, begun);
                    if force || last_write.elapsed() >= WRITE_EVERY {
                        last_write = Instant::now();
                        write(&mut file, data)
                    } else {
                        Ok(())
                    }
                },
            ),
            Order::Sequential => sequential(
                &runner,
                &commands,
                &until,
                begun,
                &mut data,
                &mut |data, _| {
                    progress.round(data, begun);
                    last_write = Instant::now();
                    write(&mut file, data)
                },
            ),
        };
        end = rounds;
    }
    progress.clear();
    if let Some(c) = &args.cleanup {
        if let Err(e) = runner.helper("--cleanup", c) {
            if let End::Finished = end {
                end = End::Failed(e);
            } else {
                eprintln!("tickbook run: {e}");
            }
        }
    }
    let section = &mut file.suites[0];
    match &end {
        End::Finished => {
            section.status = "complete".to_string();
            section.error = None;
        }
        End::Failed(m) => {
            section.error = Some(format!(
                "{m}; data holds the {} finished rounds",
                data.rounds.len()
            ))
        }
        End::Interrupted(sig) => {
            section.error = Some(format!(
                "interrupted by {}; data holds the {} finished rounds",
                signals::name(*sig),
                data.rounds.len()
            ))
        }
    }
    file.status = if matches!(end, End::Interrupted(_)) {
        "interrupted"
    } else {
        "complete"
    }
    .to_string();
    file.ended_at = Some(timefmt::rfc3339(SystemTime::now()));
    let written = write(&mut file, &data);
    let kept = format!("{} finished rounds", data.rounds.len());
    let code = match (&end, &written) {
        (_, Err(e)) => {
            eprintln!("tickbook run: {e}");
            ExitCode::FAILURE
        }
        (End::Finished, Ok(())) => {
            eprintln!(
                "tickbook run: {kept} of {} commands in {:.1} s; wrote {}",
                commands.len(),
                begun.elapsed().as_secs_f64(),
                out.display()
            );
            ExitCode::SUCCESS
        }
        (End::Failed(m), Ok(())) => {
            eprintln!(
                "tickbook run: {m}\ntickbook run: stopped; {} keeps the {kept}",
                out.display()
            );
            ExitCode::FAILURE
        }
        (End::Interrupted(sig), Ok(())) => {
            eprintln!(
                "tickbook run: interrupted by {}; {} keeps the {kept}",
                signals::name(*sig),
                out.display()
            );
            ExitCode::from(128u8.saturating_add(*sig as u8))
        }
    };
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "{}", out.display());
    let _ = stdout.flush();
    RunOutcome {
        code,
        out: written.is_ok().then_some(out.clone()),
    }
}

/// The file is rewritten after a round at most this often (and always at
/// the end): fast commands make thousands of rounds, and rewriting a
/// growing file after each would cost more than the runs.
const WRITE_EVERY: Duration = Duration::from_millis(500);

type AfterRound<'a> = dyn FnMut(&CommandsData, bool) -> Result<(), String> + 'a;

fn ns_since(begun: Instant) -> f64 {
    begun.elapsed().as_nanos() as f64
}

fn interleaved(
    runner: &Runner,
    commands: &[CommandSpec],
    until: &Until,
    seed: u64,
    begun: Instant,
    data: &mut CommandsData,
    after: &mut AfterRound,
) -> End {
    let mut orders = Orders::new(seed);
    loop {
        let round = data.rounds.len();
        if until.done(data, begun.elapsed()) {
            return End::Finished;
        }
        let order = orders.next(commands.len());
        let mut runs = Vec::with_capacity(order.len());
        for (position, &c) in order.iter().enumerate() {
            let start = ns_since(begun);
            match runner.timed(c, &commands[c], &format!("in round {}", round + 1)) {
                Ok(Some(o)) => runs.push(record(
                    &o,
                    c,
                    round,
                    position,
                    start,
                    data.shell_spawn.as_ref(),
                )),
                Ok(None) => {
                    let _ = after(data, true);
                    return End::Interrupted(signals::stop_requested().unwrap_or(libc::SIGINT));
                }
                Err(m) => {
                    let _ = after(data, true);
                    return End::Failed(m);
                }
            }
        }
        data.rounds.push(order);
        data.runs.extend(runs);
        if let Err(e) = after(data, false) {
            return End::Failed(e);
        }
        if let Some(sig) = signals::stop_requested() {
            return End::Interrupted(sig);
        }
    }
}

/// Every run of one command, then the next's: the first command's budget
/// share (or --runs) sets the count for all. Round k is each command's k-th
/// run; rounds are listed once every command has finished its runs.
fn sequential(
    runner: &Runner,
    commands: &[CommandSpec],
    until: &Until,
    begun: Instant,
    data: &mut CommandsData,
    after: &mut AfterRound,
) -> End {
    let mut count = None;
    for (c, spec) in commands.iter().enumerate() {
        let block_start = Instant::now();
        let mut k = 0;
        loop {
            let done = match (count, until) {
                (Some(n), _) => k >= n,
                (None, Until::Rounds(n)) => k >= *n,
                (None, Until::Budget { budget, min }) => {
                    k >= *min && block_start.elapsed() >= *budget / commands.len() as u32
                }
                // Refused before the runs start.
                (None, Until::Precision { .. }) => true,
            };
            if done {
                break;
            }
            let start = ns_since(begun);
            match runner.timed(c, spec, &format!("in run {}", k + 1)) {
                Ok(Some(o)) => {
                    data.runs
                        .push(record(&o, c, k, c, start, data.shell_spawn.as_ref()))
                }
                Ok(None) => {
                    let _ = after(data, true);
                    return End::Interrupted(signals::stop_requested().unwrap_or(libc::SIGINT));
                }
                Err(m) => {
                    let _ = after(data, true);
                    return End::Failed(m);
                }
            }
            k += 1;
        }
        count = Some(k);
        if c + 1 == commands.len() {
            data.rounds = (0..k).map(|_| (0..commands.len()).collect()).collect();
        }
        if let Err(e) = after(data, true) {
            return End::Failed(e);
        }
    }
    End::Finished
}

/// The live line on stderr when it is a terminal: round, elapsed time, and
/// the first comparison's paired ratio with its CI (1,000 resamples, at
/// most four times a second).
struct Progress {
    on: bool,
    last: Option<Instant>,
    options: Options,
}

impl Progress {
    fn new(on: bool) -> Progress {
        let mut options = Options::default();
        options.bootstrap.resamples = 1000;
        Progress {
            on,
            last: None,
            options,
        }
    }

    fn round(&mut self, data: &CommandsData, begun: Instant) {
        if !self.on
            || self
                .last
                .is_some_and(|t| t.elapsed() < Duration::from_millis(250))
        {
            return;
        }
        self.last = Some(Instant::now());
        let (r, _) = commands_report(data, &self.options);
        let ratio = r
            .comparisons
            .first()
            .and_then(|c| {
                let ci = c.paired.ratio.as_ref()?;
                Some(format!(
                    " · {}/{} {:.4} [{:.4}, {:.4}]",
                    r.commands.get(c.command)?.name,
                    r.commands.get(c.reference)?.name,
                    ci.estimate,
                    ci.lo,
                    ci.hi
                ))
            })
            .unwrap_or_default();
        eprint!(
            "\r\x1b[Kround {} · {:.1} s{ratio}",
            data.rounds.len(),
            begun.elapsed().as_secs_f64()
        );
        let _ = std::io::stderr().flush();
    }

    fn clear(&self) {
        if self.on && self.last.is_some() {
            eprint!("\r\x1b[K");
        }
    }
}
