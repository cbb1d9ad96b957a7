//! The Commands cell in the terminal (`tickbook run`'s files): each
//! command's wall time as hyperfine prints it, each command against the
//! fastest paired by round and unpaired, the drift over the run, then
//! hyperfine's summary lines with the paired verdict. Formatting only.

use super::numbers::{fmt_bytes, fmt_ns, level, opt_ns, pct, sig, signed_pct};
use super::table::{cell_title, clean, subtitle, Table};
use std::fmt::Write as _;
use tickbook_analysis::report::{CommandComparison, CommandsReport};
use tickbook_analysis::stats::bootstrap::BootstrapCi;
use tickbook_analysis::stats::compare::Verdict;

fn ratio(c: Option<&BootstrapCi>) -> String {
    match c {
        Some(c) => format!("{:.4} [{:.4}, {:.4}]", c.estimate, c.lo, c.hi),
        None => "—".into(),
    }
}

fn p(v: Option<f64>) -> String {
    match v {
        Some(v) if v < 1e-4 => format!("{v:.1e}"),
        Some(v) => format!("{v:.4}"),
        None => "—".into(),
    }
}

/// The verdict in words, from the command's side.
fn verdict(v: Verdict, rel: Option<f64>, ratio: Option<&BootstrapCi>) -> String {
    let direction = || {
        let word = if ratio.is_some_and(|r| r.estimate < 1.0) {
            "faster"
        } else {
            "slower"
        };
        match rel {
            Some(d) => format!("{word} by {}", pct(d)),
            None => word.to_string(),
        }
    };
    match v {
        Verdict::Different => direction(),
        Verdict::WithinThreshold => format!("within threshold: {}", direction()),
        Verdict::Same => "same".into(),
        Verdict::Unclear => "unclear: the test and the ratio CI disagree".into(),
        Verdict::Missing | Verdict::NoEstimate => "no estimate".into(),
    }
}

/// A duration, or a dash for a command without runs (its mean is NaN).
fn ns(v: f64) -> String {
    if v.is_finite() {
        fmt_ns(v)
    } else {
        "—".into()
    }
}

fn speed(c: &CommandComparison) -> String {
    match c.relative_speed_error {
        Some(e) => format!("{:.3} ± {:.3}", c.relative_speed, e),
        None => format!("{:.3}", c.relative_speed),
    }
}

/// Each command's mean perf event counts, then why an event was not
/// counted (nothing for a file written before they were counted).
fn counters(out: &mut String, r: &CommandsReport) {
    let Some(k) = &r.counters else {
        return;
    };
    let count = |v: Option<f64>| v.map(|v| sig(v, 4)).unwrap_or_else(|| "—".into());
    if r.commands.iter().any(|c| {
        c.task_clock_mean_ns.is_some() || c.instructions_mean.is_some() || c.cycles_mean.is_some()
    }) {
        subtitle(
            out,
            &format!(
                "Perf events per run (means; from each run's exec, its children included{})",
                if k.kernel { "" } else { "; user mode only" }
            ),
        );
        let mut t = Table::new(&["command", "task-clock", "instructions", "cycles"]).text(0);
        for c in &r.commands {
            t.row(vec![
                clean(&c.name),
                opt_ns(c.task_clock_mean_ns),
                count(c.instructions_mean),
                count(c.cycles_mean),
            ]);
        }
        t.render(out);
    }
    for (event, why) in &k.unavailable {
        let _ = writeln!(out, "   {event} not counted: {}", clean(why));
    }
}

pub(crate) fn render(out: &mut String, r: &CommandsReport) {
    let shell = match (&r.shell, r.shell_spawn_ns) {
        (Some(s), Some(ns)) => format!("shell {} (start-up {} subtracted)", clean(s), fmt_ns(ns)),
        (Some(s), None) => format!("shell {}", clean(s)),
        (None, _) => "no shell".to_string(),
    };
    cell_title(
        out,
        "Commands",
        &format!(
            "{} rounds, {} order, seed {}, {shell}",
            r.rounds, r.order, r.seed
        ),
    );
    let mut t = Table::new(&[
        "command",
        "runs",
        "failed",
        "mean",
        "± σ",
        "median",
        "min",
        "max",
        "user",
        "system",
        "max RSS",
        "drift over run",
    ])
    .text(0);
    for c in &r.commands {
        t.row(vec![
            clean(&c.name),
            c.runs.to_string(),
            c.failed_runs.to_string(),
            ns(c.mean_ns),
            c.sd_ns.map(fmt_ns).unwrap_or_else(|| "—".into()),
            ns(c.median_ns),
            ns(c.min_ns),
            ns(c.max_ns),
            ns(c.user_mean_ns),
            ns(c.sys_mean_ns),
            fmt_bytes(c.max_rss_kib.saturating_mul(1024)),
            match &c.drift {
                Some(d) => format!(
                    "{} [{}, {}]",
                    signed_pct(d.over_run),
                    signed_pct(d.over_run_ci.0),
                    signed_pct(d.over_run_ci.1)
                ),
                None => "—".into(),
            },
        ]);
    }
    t.render(out);
    for c in &r.commands {
        let _ = writeln!(out, "   {}: {}", clean(&c.name), clean(&c.command));
    }
    counters(out, r);
    let Some(reference) = r.reference.and_then(|i| r.commands.get(i)) else {
        return;
    };
    let conf = r
        .comparisons
        .iter()
        .find_map(|c| c.paired.ratio.as_ref().map(|x| x.confidence));
    subtitle(
        out,
        &format!(
            "Against {} (the fastest): paired by round (geometric mean of the rounds' ratios, {}) and unpaired (ratio of means, Mann–Whitney U){}",
            clean(&reference.name),
            if r.comparisons.iter().any(|c| c.paired.sequential) {
                "the stop's confidence sequence deciding, valid under --precision's stopping; Wilcoxon signed-rank shown"
            } else {
                "CI over rounds resampled, Wilcoxon signed-rank"
            },
            conf.map(|c| format!(", {} CIs", level(c))).unwrap_or_default()
        ),
    );
    let mut t = Table::new(&[
        "command",
        "pairs",
        "paired ratio",
        "signed-rank p",
        "paired verdict",
        "unpaired ratio",
        "U test p",
        "unpaired verdict",
    ])
    .text(0);
    for c in &r.comparisons {
        let name = r
            .commands
            .get(c.command)
            .map(|x| x.name.as_str())
            .unwrap_or("");
        t.row(vec![
            clean(name),
            c.paired.rounds.to_string(),
            ratio(c.paired.ratio.as_ref()),
            p(c.paired.test.map(|t| t.p_value)),
            verdict(
                c.paired.verdict,
                c.paired.relative_difference,
                c.paired.ratio.as_ref(),
            ),
            ratio(c.unpaired.ratio.as_ref()),
            p(c.unpaired.test.map(|t| t.p_value)),
            verdict(
                c.unpaired.verdict,
                c.unpaired.relative_difference,
                c.unpaired.ratio.as_ref(),
            ),
        ]);
    }
    t.render(out);
    for c in &r.comparisons {
        let name = r
            .commands
            .get(c.command)
            .map(|x| x.name.as_str())
            .unwrap_or("");
        let _ = writeln!(out, "   {} paired by {}", clean(name), c.measure.why);
        for (q, what) in [
            (&c.paired_wall, "wall time"),
            (&c.paired_cpu, "CPU time (user + system)"),
        ] {
            let _ = writeln!(
                out,
                "   {} {what}, paired: {}, signed-rank p {}, {}",
                clean(name),
                ratio(q.ratio.as_ref()),
                p(q.test.map(|t| t.p_value)),
                verdict(q.verdict, q.relative_difference, q.ratio.as_ref())
            );
        }
    }
    let _ = writeln!(
        out,
        "   Summary (hyperfine's, ratio of means ± propagated error):"
    );
    let _ = writeln!(out, "     {} ran", clean(&reference.name));
    for c in &r.comparisons {
        let name = r
            .commands
            .get(c.command)
            .map(|x| x.name.as_str())
            .unwrap_or("");
        let _ = writeln!(
            out,
            "       {} times faster than {}   (paired: {} {})",
            speed(c),
            clean(name),
            clean(name),
            verdict(
                c.paired.verdict,
                c.paired.relative_difference,
                c.paired.ratio.as_ref()
            )
        );
    }
}

/// A number of ns in ms, as hyperfine's Markdown export writes its table.
fn ms(v: f64) -> String {
    if v.is_finite() {
        format!("{:.3}", v / 1e6)
    } else {
        "—".into()
    }
}

/// `analyze --format md` of a run file: hyperfine's `--export-markdown`
/// table (mean ± σ, min, max in ms, relative to the fastest) with the
/// paired ratio and verdict beside it.
pub(crate) fn markdown(out: &mut String, r: &CommandsReport) {
    let _ = writeln!(
        out,
        "| Command | Mean [ms] | Min [ms] | Max [ms] | Relative | Paired ratio | Paired verdict |"
    );
    let _ = writeln!(out, "|:---|---:|---:|---:|---:|---:|:---|");
    for (i, c) in r.commands.iter().enumerate() {
        let cmp = r.comparisons.iter().find(|x| x.command == i);
        let (relative, paired, said) = match (cmp, r.reference == Some(i)) {
            (Some(x), _) => (
                speed(x),
                ratio(x.paired.ratio.as_ref()),
                verdict(
                    x.paired.verdict,
                    x.paired.relative_difference,
                    x.paired.ratio.as_ref(),
                ),
            ),
            (None, true) => ("1.00".into(), "reference".into(), String::new()),
            (None, false) => ("—".into(), "—".into(), String::new()),
        };
        let mean = match c.sd_ns {
            Some(sd) if c.mean_ns.is_finite() => format!("{} ± {}", ms(c.mean_ns), ms(sd)),
            _ => ms(c.mean_ns),
        };
        let _ = writeln!(
            out,
            "| `{}` | {mean} | {} | {} | {relative} | {paired} | {said} |",
            super::table::md(&c.name).replace('`', "'"),
            ms(c.min_ns),
            ms(c.max_ns)
        );
    }
}
