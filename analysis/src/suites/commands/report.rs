//! The Commands cell: each command's times as hyperfine summarises them,
//! each command against the fastest paired by round (the geometric mean of
//! the rounds' ratios, its CI by resampling rounds, the signed-rank test) of
//! CPU time for commands that run on one CPU and wall time for others
//! beside the unpaired comparison the comparison engine makes of two series
//! of one-process measurements, and each command's drift over the run.

use super::data::{CommandsData, Counters, RunRecord, ShellSpawn};
use crate::options::Options;
use crate::stats::bootstrap::{mean, percentile_ci, BootstrapCi, Side};
use crate::stats::compare::{decide, relative_difference, Verdict};
use crate::stats::executions::mean_of_means_replicates;
use crate::stats::mann_whitney::{mann_whitney, MannWhitney};
use crate::stats::paired::{geometric_mean_ratio, wilcoxon, SignedRank};
use crate::stats::regression::ols;
use crate::stats::sequential::{asymptotic_cs, PrecisionRule};
use crate::stats::{quantile, Welford};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct CommandsReport {
    pub order: String,
    pub seed: u64,
    pub rounds: usize,
    pub shell: Option<String>,
    pub shell_spawn_ns: Option<f64>,
    pub commands: Vec<CommandSummary>,
    /// The command with the lowest mean (hyperfine's fastest), index into
    /// `commands`; null with fewer than two commands with runs.
    pub reference: Option<usize>,
    /// Every other command against the reference.
    pub comparisons: Vec<CommandComparison>,
    /// How the runs' perf events were counted and why those missing are
    /// (null for a file written before they were counted).
    pub counters: Option<Counters>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CommandSummary {
    pub name: String,
    pub command: String,
    pub runs: usize,
    /// Runs that exited non-zero or by a signal (kept with `--ignore-failure`).
    pub failed_runs: usize,
    /// Wall time, ns: hyperfine's mean ± σ (n − 1), median, min, max.
    pub mean_ns: f64,
    pub sd_ns: Option<f64>,
    pub median_ns: f64,
    pub min_ns: f64,
    pub max_ns: f64,
    /// The mean with its bootstrap CI (the comparison engine's estimate for
    /// one measurement per execution).
    pub mean_ci: Option<BootstrapCi>,
    pub user_mean_ns: f64,
    pub sys_mean_ns: f64,
    /// The largest maximum RSS of its runs, KiB.
    pub max_rss_kib: u64,
    /// Means over its runs of the perf event counts (task-clock in ns),
    /// null where no run has the count (the report's `counters` says why).
    pub task_clock_mean_ns: Option<f64>,
    pub instructions_mean: Option<f64>,
    pub cycles_mean: Option<f64>,
    /// Wall times in time order with their rounds, for charts.
    pub rounds: Vec<usize>,
    pub wall_ns: Vec<f64>,
    pub drift: Option<Drift>,
}

/// Least squares of wall time on round: how much the command's time moved
/// over the run.
#[derive(Debug, Clone, Serialize)]
pub struct Drift {
    /// The fitted line's wall time at round 0, ns (the page draws the line
    /// from it and the slope over the command's rounds).
    pub intercept_ns: f64,
    pub slope_ns_per_round: f64,
    pub slope_ci: (f64, f64),
    /// Slope × (last round − first round) / mean: the change over the run as
    /// a share of the mean, with the slope's CI carried the same way.
    pub over_run: f64,
    pub over_run_ci: (f64, f64),
}

#[derive(Debug, Clone, Serialize)]
pub struct CommandComparison {
    /// Indices into `commands`.
    pub command: usize,
    pub reference: usize,
    /// hyperfine's relative speed: mean / reference mean, its error
    /// propagated from both standard deviations.
    pub relative_speed: f64,
    pub relative_speed_error: Option<f64>,
    /// The primary paired comparison: of CPU time when the runs are
    /// CPU-bound on one CPU (see `measure`), else of wall time; the same
    /// numbers as `paired_cpu` or `paired_wall`.
    pub paired: PairedComparison,
    /// What `paired` compares, `cpu` or `wall`, and why.
    pub measure: Measure,
    /// The pairing of the runs' wall time over every round.
    pub paired_wall: PairedComparison,
    /// The same pairing of the runs' CPU time (user + system): where the
    /// machine's load makes runs wait for a CPU, their wall time carries
    /// the wait and their CPU time mostly does not.
    pub paired_cpu: PairedComparison,
    pub unpaired: UnpairedComparison,
    /// Set when a command drifted over the run (the drift's CI excludes 0)
    /// by more than the difference measured between the two.
    pub drift_warning: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PairedComparison {
    /// Rounds with a run of both commands.
    pub rounds: usize,
    /// Each such round's ratio, command over reference, in round order.
    pub round_ratios: Vec<f64>,
    /// The geometric mean of the ratios with its CI over rounds resampled,
    /// or, for a run that stopped on precision, the confidence sequence's
    /// interval at the stop (`resamples` 0).
    pub ratio: Option<BootstrapCi>,
    /// True when `ratio` is the confidence sequence: the verdict is then
    /// whether it excludes 1 (the signed-rank p-value, shown, assumes a
    /// fixed number of rounds).
    pub sequential: bool,
    /// The signed-rank test of the log ratios.
    pub test: Option<SignedRank>,
    pub relative_difference: Option<f64>,
    /// The comparison engine's verdict: the test as the rule, held to agree
    /// with the ratio's CI, the threshold on the relative difference.
    pub verdict: Verdict,
}

/// Which time the primary paired comparison uses. A run that waits for a
/// CPU (the machine's load preempted it) spends the wait in its wall time
/// but not in its CPU time; a command that runs on one CPU and waits for
/// nothing else has, undisturbed, a wall time equal to its CPU time. For
/// such commands the CPU time is their undisturbed wall time with the
/// load's waits taken out, so it decides; a command that waits of its own
/// accord (I/O, sleep) or runs on several CPUs is compared by wall time.
#[derive(Debug, Clone, Serialize)]
pub struct Measure {
    /// `cpu` or `wall`.
    pub time: String,
    /// CPU time / wall time of the least-waiting run of the two commands:
    /// near 1 (or above, see `ONE_CPU`) for a command that runs on one CPU
    /// and waits for nothing, one quiet moment of a loaded machine
    /// sufficing to show it; null without runs.
    pub cpu_share: Option<f64>,
    /// The 95th percentile of the runs' CPU time / wall time: above 1.5 for
    /// a command on several CPUs (a single run's above it may be the
    /// shell's start-up subtracted).
    pub cpu_share_p95: Option<f64>,
    /// Rounds whose runs waited for more than a tenth of their wall time
    /// (wall − CPU time > 10 %): what CPU time leaves out of wall time.
    pub waited_rounds: usize,
    pub why: String,
}

/// CPU-bound on one CPU: the least-waiting run spent at least 85 % of its
/// wall time on a CPU, and the runs at most 150 % (95th percentile); a
/// command on two CPUs shows near 200 %. The shares are of the run's own
/// times with the shell's start-up added back: that start-up is measured
/// once, and under load its wall time is more than its CPU time, so the
/// shares of the times with it subtracted would exceed one.
const ONE_CPU: (f64, f64) = (0.85, 1.5);

/// `cpu` when the two commands' runs (pooled, so that which is which does
/// not matter) are CPU-bound on one CPU, else `wall`.
fn measure(a: &[&RunRecord], b: &[&RunRecord], o: &Options, spawn: Option<&ShellSpawn>) -> Measure {
    let (spawn_wall, spawn_cpu) = spawn.map_or((0.0, 0.0), |s| (s.wall_ns, s.user_ns + s.sys_ns));
    let share = |r: &RunRecord| (r.user_ns + r.sys_ns + spawn_cpu) / (r.wall_ns + spawn_wall);
    let shares: Vec<f64> = a
        .iter()
        .chain(b)
        .map(|r| share(r))
        .filter(|x| x.is_finite())
        .collect();
    let cpu_share = shares.iter().copied().reduce(f64::max);
    let cpu_share_p95 = quantile(&shares, 0.95, o.quantile_type);
    let waited = |r: &RunRecord| share(r) < 0.9;
    let waited_rounds = a
        .iter()
        .filter(|x| waited(x) || b.iter().any(|y| y.round == x.round && waited(y)))
        .count();
    let why = match (cpu_share, cpu_share_p95) {
        (Some(s), Some(p)) if s >= ONE_CPU.0 && p <= ONE_CPU.1 => format!(
            "CPU time: the commands run on one CPU (the least-waiting run spent {:.0} % of its wall time on it), so their CPU time is their wall time without the waits for a CPU; {waited_rounds} rounds waited for more than 10 %",
            s * 100.0
        ),
        (Some(s), Some(p)) if s < ONE_CPU.0 => format!(
            "wall time: the commands wait of their own accord (the least-waiting run spent {:.0} % of its wall time on a CPU, the 95th percentile {:.0} %), which CPU time would leave out",
            s * 100.0,
            p * 100.0
        ),
        (Some(_), Some(p)) => format!(
            "wall time: the commands run on several CPUs ({:.0} % of their wall time as CPU time, 95th percentile), where CPU time is not their wall time",
            p * 100.0
        ),
        _ => "wall time: no CPU times to judge by".to_string(),
    };
    Measure {
        time: if why.starts_with("CPU") {
            "cpu"
        } else {
            "wall"
        }
        .to_string(),
        cpu_share,
        cpu_share_p95,
        waited_rounds,
        why,
    }
}

/// What the comparison engine says of the two as unpaired series of one
/// measurement per process: the means' bootstrap CIs, the ratio of means'
/// CI, the Mann–Whitney test as the rule.
#[derive(Debug, Clone, Serialize)]
pub struct UnpairedComparison {
    pub ratio: Option<BootstrapCi>,
    pub test: Option<MannWhitney>,
    pub relative_difference: Option<f64>,
    pub verdict: Verdict,
}

pub fn commands_report(d: &CommandsData, o: &Options) -> (CommandsReport, Vec<String>) {
    let mut warnings = Vec::new();
    let by_command: Vec<Vec<&RunRecord>> = (0..d.commands.len())
        .map(|c| d.runs.iter().filter(|r| r.command == c).collect())
        .collect();
    let commands: Vec<CommandSummary> = d
        .commands
        .iter()
        .zip(&by_command)
        .map(|(spec, runs)| summary(&spec.name, &spec.command, runs, o))
        .collect();
    let reference = commands
        .iter()
        .enumerate()
        .filter(|(_, c)| c.runs > 0)
        .min_by(|a, b| a.1.mean_ns.total_cmp(&b.1.mean_ns))
        .map(|(i, _)| i)
        .filter(|_| commands.iter().filter(|c| c.runs > 0).count() >= 2);
    let comparisons = match reference {
        Some(r) => (0..commands.len())
            .filter(|&c| c != r && commands[c].runs > 0)
            .map(|c| {
                compare(
                    c,
                    r,
                    &commands,
                    &by_command,
                    o,
                    d.precision.as_ref(),
                    d.shell_spawn.as_ref(),
                )
            })
            .collect(),
        None => Vec::new(),
    };
    for c in &comparisons {
        warnings.extend(c.drift_warning.clone());
    }
    for (spec, runs) in d.commands.iter().zip(&by_command) {
        let zero = runs.iter().filter(|r| r.wall_ns == 0.0).count();
        if zero > 0 {
            warnings.push(format!(
                "{zero} runs of {} took no longer than the shell's start-up (0 after it was subtracted): their ratios are undefined; run without a shell (-N) or time more work per run",
                spec.name
            ));
        }
    }
    if d.order == "sequential" && d.commands.len() > 1 {
        warnings.push(
            "the commands ran one after another (--order sequential): a change of the machine over the run counts as a difference between them".to_string(),
        );
    }
    let report = CommandsReport {
        order: d.order.clone(),
        seed: d.seed,
        rounds: d.rounds.len(),
        shell: d.shell.clone(),
        shell_spawn_ns: d.shell_spawn.as_ref().map(|s| s.wall_ns),
        commands,
        reference,
        comparisons,
        counters: d.counters.clone(),
    };
    (report, warnings)
}

fn summary(name: &str, command: &str, runs: &[&RunRecord], o: &Options) -> CommandSummary {
    let wall: Vec<f64> = runs.iter().map(|r| r.wall_ns).collect();
    let mut sorted = wall.clone();
    sorted.sort_by(f64::total_cmp);
    let w = Welford::from_slice(&wall);
    let rounds: Vec<usize> = runs.iter().map(|r| r.round).collect();
    CommandSummary {
        name: name.to_string(),
        command: command.to_string(),
        runs: runs.len(),
        failed_runs: runs.iter().filter(|r| r.exit_code != Some(0)).count(),
        mean_ns: w.mean().unwrap_or(f64::NAN),
        sd_ns: w.sd(),
        median_ns: quantile(&wall, 0.5, o.quantile_type).unwrap_or(f64::NAN),
        min_ns: sorted.first().copied().unwrap_or(f64::NAN),
        max_ns: sorted.last().copied().unwrap_or(f64::NAN),
        mean_ci: percentile_ci(&wall, mean, &o.bootstrap),
        user_mean_ns: mean(&runs.iter().map(|r| r.user_ns).collect::<Vec<_>>()),
        sys_mean_ns: mean(&runs.iter().map(|r| r.sys_ns).collect::<Vec<_>>()),
        max_rss_kib: runs.iter().map(|r| r.max_rss_kib).max().unwrap_or(0),
        task_clock_mean_ns: counted_mean(runs, |r| r.task_clock_ns),
        instructions_mean: counted_mean(runs, |r| r.instructions),
        cycles_mean: counted_mean(runs, |r| r.cycles),
        drift: drift(&rounds, &wall, w.mean().unwrap_or(f64::NAN), o),
        rounds,
        wall_ns: wall,
    }
}

/// The mean of a count over the runs that have it.
fn counted_mean(runs: &[&RunRecord], value: fn(&RunRecord) -> Option<f64>) -> Option<f64> {
    let v: Vec<f64> = runs.iter().filter_map(|r| value(r)).collect();
    (!v.is_empty()).then(|| mean(&v))
}

fn drift(rounds: &[usize], wall: &[f64], mean: f64, o: &Options) -> Option<Drift> {
    let x: Vec<f64> = rounds.iter().map(|&r| r as f64).collect();
    let fit = ols(&x, wall, o.confidence)?;
    let span = (rounds.iter().max()? - rounds.iter().min()?) as f64;
    if mean.is_nan() || mean <= 0.0 || !fit.slope.is_finite() {
        return None;
    }
    let share = |s: f64| s * span / mean;
    Some(Drift {
        intercept_ns: fit.intercept,
        slope_ns_per_round: fit.slope,
        slope_ci: fit.slope_ci,
        over_run: share(fit.slope),
        over_run_ci: (share(fit.slope_ci.0), share(fit.slope_ci.1)),
    })
}

fn compare(
    c: usize,
    r: usize,
    commands: &[CommandSummary],
    by_command: &[Vec<&RunRecord>],
    o: &Options,
    rule: Option<&PrecisionRule>,
    spawn: Option<&ShellSpawn>,
) -> CommandComparison {
    let (a, b) = (&commands[c], &commands[r]);
    let relative_speed = a.mean_ns / b.mean_ns;
    let relative_speed_error = match (a.sd_ns, b.sd_ns) {
        (Some(sa), Some(sb)) => {
            Some(relative_speed * ((sa / a.mean_ns).powi(2) + (sb / b.mean_ns).powi(2)).sqrt())
        }
        _ => None,
    };
    let paired_cpu = paired(&by_command[c], &by_command[r], o, rule, cpu_time);
    let paired_wall = paired(&by_command[c], &by_command[r], o, rule, wall_time);
    let measure = measure(&by_command[c], &by_command[r], o, spawn);
    let paired = if measure.time == "cpu" {
        paired_cpu.clone()
    } else {
        paired_wall.clone()
    };
    let unpaired = unpaired(a, b, o);
    let measured = paired_wall.relative_difference.unwrap_or(0.0);
    let drift_warning = [a, b]
        .iter()
        .filter_map(|s| s.drift.as_ref().map(|d| (s, d)))
        // A drift the data show (its CI excludes 0) and larger than the
        // difference: a noisy slope alone warns of nothing.
        .filter(|(_, d)| {
            d.over_run.abs() > measured && (d.over_run_ci.0 > 0.0 || d.over_run_ci.1 < 0.0)
        })
        .max_by(|x, y| x.1.over_run.abs().total_cmp(&y.1.over_run.abs()))
        .map(|(s, d)| {
            format!(
                "{} drifted by {:+.2} % over the run, more than the {:.2} % difference measured between {} and {}: an unpaired comparison of these runs mixes the drift into the difference",
                s.name,
                d.over_run * 100.0,
                measured * 100.0,
                a.name,
                b.name
            )
        });
    CommandComparison {
        command: c,
        reference: r,
        relative_speed,
        relative_speed_error,
        paired,
        measure,
        paired_wall,
        paired_cpu,
        unpaired,
        drift_warning,
    }
}

/// The rounds both commands ran in, command over reference.
fn paired(
    a: &[&RunRecord],
    b: &[&RunRecord],
    o: &Options,
    rule: Option<&PrecisionRule>,
    value: fn(&RunRecord) -> f64,
) -> PairedComparison {
    let round_ratios = round_ratios(a, b, value);
    let logs = log_ratios(&round_ratios);
    let alpha = 1.0 - o.bootstrap.confidence;
    let (ratio, test) = match (&logs, rule) {
        (Some(l), None) if !l.is_empty() => (geometric_mean_ratio(l, &o.bootstrap), wilcoxon(l)),
        (Some(l), Some(rule)) => (
            asymptotic_cs(l, alpha, rule.t_opt).map(|(m, lo, hi)| BootstrapCi {
                estimate: m.exp(),
                lo: lo.exp(),
                hi: hi.exp(),
                resamples: 0,
                confidence: o.bootstrap.confidence,
                seed: 0,
            }),
            wilcoxon(l),
        ),
        _ => (None, None),
    };
    let relative_difference = ratio.as_ref().map(|q| relative_difference(q.estimate, 1.0));
    // Under optional stopping only the sequence's interval keeps its level,
    // so it alone decides.
    let shown = match rule {
        Some(_) => ratio.as_ref().map(|q| q.lo > 1.0 || q.hi < 1.0),
        None => test.map(|t| t.p_value < alpha),
    };
    let verdict = decide(shown, ratio.as_ref(), relative_difference, o.threshold);
    PairedComparison {
        rounds: round_ratios.len(),
        round_ratios,
        ratio,
        sequential: rule.is_some(),
        test,
        relative_difference,
        verdict,
    }
}

fn round_ratios(a: &[&RunRecord], b: &[&RunRecord], value: fn(&RunRecord) -> f64) -> Vec<f64> {
    let mut out = Vec::new();
    for x in a {
        if let Some(y) = b.iter().find(|y| y.round == x.round) {
            out.push(value(x) / value(y));
        }
    }
    out
}

fn cpu_time(r: &RunRecord) -> f64 {
    r.user_ns + r.sys_ns
}

fn wall_time(r: &RunRecord) -> f64 {
    r.wall_ns
}

fn log_ratios(ratios: &[f64]) -> Option<Vec<f64>> {
    ratios
        .iter()
        .map(|q| (q.is_finite() && *q > 0.0).then(|| q.ln()))
        .collect()
}

/// Whether every command's primary paired ratio (CPU or wall time, as
/// `measure` chooses) against the one with the lowest mean has reached
/// `rule`'s precision (the runner's check after each round; false with
/// fewer than two commands).
pub fn precision_reached(d: &CommandsData, rule: &PrecisionRule, alpha: f64) -> bool {
    let by_command: Vec<Vec<&RunRecord>> = (0..d.commands.len())
        .map(|c| d.runs.iter().filter(|r| r.command == c).collect())
        .collect();
    let means: Vec<f64> = by_command
        .iter()
        .map(|rs| mean(&rs.iter().map(|r| r.wall_ns).collect::<Vec<_>>()))
        .collect();
    let Some(fastest) = (0..means.len()).min_by(|&x, &y| means[x].total_cmp(&means[y])) else {
        return false;
    };
    d.commands.len() >= 2
        && (0..d.commands.len()).filter(|&c| c != fastest).all(|c| {
            let (a, b) = (&by_command[c], &by_command[fastest]);
            let value = if measure(a, b, &Options::default(), d.shell_spawn.as_ref()).time == "cpu"
            {
                cpu_time
            } else {
                wall_time
            };
            log_ratios(&round_ratios(a, b, value)).is_some_and(|l| rule.reached(&l, alpha))
        })
}

/// As `report::compare` decides for two series of one measurement per
/// execution (`Rule::RankTest`); `analysis/tests/commands.rs` holds the two
/// equal on the same data.
fn unpaired(a: &CommandSummary, b: &CommandSummary, o: &Options) -> UnpairedComparison {
    let one_each = |xs: &[f64]| xs.iter().map(|x| vec![*x]).collect::<Vec<_>>();
    let over = mean_of_means_replicates(&one_each(&a.wall_ns), &o.bootstrap, Side::Over);
    let under = mean_of_means_replicates(&one_each(&b.wall_ns), &o.bootstrap, Side::Under);
    let ratio = match (over, under) {
        (Some(x), Some(y)) => x.ratio_ci(&y, &o.bootstrap),
        _ => None,
    };
    let test = mann_whitney(&a.wall_ns, &b.wall_ns);
    let alpha = 1.0 - o.bootstrap.confidence;
    let rel = (a.mean_ns.is_finite() && b.mean_ns.is_finite())
        .then(|| relative_difference(a.mean_ns, b.mean_ns));
    UnpairedComparison {
        verdict: decide(
            test.map(|t| t.p_value < alpha),
            ratio.as_ref(),
            rel,
            o.threshold,
        ),
        ratio,
        test,
        relative_difference: rel,
    }
}
