//! The Bernoulli timing cell in the terminal (Lambert and Power's timing of
//! short events with a coarse clock): the estimates, their coverage and the
//! trial planner; `--json` has every field.

use super::numbers::{fmt_ns, level, opt_ns, pct, signed_pct, wall};
use super::table::{cell_title, subtitle, Table};
use std::fmt::Write as _;
use tickbook_analysis::report::BernoulliReport;

/// The Bernoulli timing cell: the facts, the events, the coverage and the
/// planner's table for this machine (Table 1 of Lambert and Power).
pub(crate) fn render(out: &mut String, b: &BernoulliReport) {
    cell_title(
        out,
        "Bernoulli timing",
        &format!(
            "trials of {}, tick Tc {}; reference {}; planned for ε {} at {} confidence",
            b.clock,
            fmt_ns(b.tick_ns),
            b.reference,
            level(b.planned_epsilon),
            level(b.planned_confidence)
        ),
    );
    match &b.overhead {
        Some(o) => {
            let _ = writeln!(
                out,
                "   timer overhead To = p·Tc {} ({} to {}; {} ticks in {} trials{}{})",
                fmt_ns(o.raw_ns),
                fmt_ns(o.raw_interval_ns.lo),
                fmt_ns(o.raw_interval_ns.hi),
                o.m,
                o.n,
                if o.wilson_used { ", Wilson" } else { "" },
                if o.capped { ", capped" } else { "" }
            );
            if b.to_ns != o.raw_ns {
                let _ = writeln!(
                    out,
                    "   To as the estimates and the planner use it (corrected for disturbance): {}",
                    fmt_ns(b.to_ns)
                );
            }
        }
        None => {
            let _ = writeln!(
                out,
                "   timer overhead To: not estimated (no overhead trials)"
            );
        }
    }
    if let Some(r) = b.reference_overhead_ns {
        let _ = writeln!(
            out,
            "   the reference's own overhead {} is subtracted from its samples",
            fmt_ns(r)
        );
    }
    let conf = level(b.confidence);
    let interval = format!("{conf} interval");
    let mut t = Table::new(&[
        "event",
        "target",
        "n",
        "m",
        "disturbed",
        "estimate Te",
        &interval,
        "uncorrected",
        "reference",
        "alone",
        "rel. error",
        "covered",
        "n / eq. 5",
        "budget",
    ]);
    for e in &b.events {
        let tr = &e.trials;
        t.row(vec![
            e.name.clone(),
            fmt_ns(e.target_ns),
            tr.n.to_string(),
            tr.m.to_string(),
            match (e.disturbed_share, tr.disturbed_n) {
                (Some(s), _) => pct(s),
                (None, 0) => "—".into(),
                (None, k) => format!("{k} set aside"),
            },
            format!(
                "{}{}",
                fmt_ns(e.estimate_ns),
                if e.corrected { " (corrected)" } else { "" }
            ),
            match &e.interval_ns {
                Some(i) => format!(
                    "{} to {}{}",
                    fmt_ns(i.lo),
                    fmt_ns(i.hi),
                    if tr.wilson_used && !e.corrected {
                        " (Wilson)"
                    } else {
                        ""
                    }
                ),
                None => "NO INTERVAL".into(),
            },
            fmt_ns(e.uncorrected_ns),
            opt_ns(e.reference_ns),
            opt_ns(e.reference_alone_ns),
            e.relative_error
                .map(signed_pct)
                .unwrap_or_else(|| "—".into()),
            match (e.covered, e.target_ns >= b.coverage.min_target_ns) {
                (Some(true), true) => "yes".into(),
                (Some(false), true) => "NO".into(),
                (Some(true), false) => "yes, not counted".into(),
                (Some(false), false) => "no, not counted".into(),
                (None, _) => "—".into(),
            },
            match (tr.trials_ratio, tr.trials_needed) {
                (Some(r), Some(need)) => format!("{} of {need}", pct(r)),
                _ => "—".into(),
            },
            if tr.capped {
                "capped".into()
            } else {
                "planned n".into()
            },
        ]);
    }
    t.render(out);
    let c = &b.coverage;
    match c.share {
        Some(share) => {
            let _ = writeln!(
                out,
                "   coverage: the reference lies inside the interval for {} of {} events of {} and longer ({})",
                c.covered,
                c.events,
                fmt_ns(c.min_target_ns),
                pct(share)
            );
        }
        None => {
            let _ = writeln!(out, "   coverage: no event has a reference to check");
        }
    }
    let bases = b.reference_bases();
    for basis in bases {
        let how = if basis.starts_with("the trials") {
            " (one trial of the event less one of the empty event, over the chunks that kept the CPU: the mean the estimate estimates)"
        } else {
            ""
        };
        let _ = writeln!(out, "   reference: {basis}{how}");
    }
    let _ = writeln!(
        out,
        "   alone: the event timed alone by {}, the median of its samples less the clock's overhead",
        b.reference
    );
    for e in b.events.iter().filter(|e| e.no_interval.is_some()) {
        let _ = writeln!(
            out,
            "   {}: {}",
            e.name,
            e.no_interval.as_deref().unwrap_or_default()
        );
    }
    if c.no_interval > 0 {
        let _ = writeln!(
            out,
            "   {} events of {} and longer got no interval: too disturbed to support one",
            c.no_interval,
            fmt_ns(c.min_target_ns)
        );
    }
    if b.events.iter().any(|e| e.corrected) {
        let _ = writeln!(
            out,
            "   corrected: trials whose chunk lost the CPU see the tick more often; p is the share of the clock's steps inside the trials times an undisturbed trial's length (docs/methods.md)"
        );
    }
    let set_aside: u64 = b.events.iter().map(|e| e.trials.disturbed_n).sum();
    if set_aside > 0 {
        let _ = writeln!(
            out,
            "   {set_aside} trials were set aside as disturbed (the host took the CPU during their chunk): not in n and m"
        );
    }
    planner_table(out, b);
}

/// Trials and wall time per event length and ε at this file's tick and
/// overhead.
fn planner_table(out: &mut String, b: &BernoulliReport) {
    let mut epsilons: Vec<f64> = Vec::new();
    let mut events: Vec<f64> = Vec::new();
    for r in &b.planner {
        if !epsilons.contains(&r.epsilon) {
            epsilons.push(r.epsilon);
        }
        if !events.contains(&r.event_ns) {
            events.push(r.event_ns);
        }
    }
    if events.is_empty() {
        let _ = writeln!(out, "   planner: no table (no usable tick or overhead)");
        return;
    }
    subtitle(
        out,
        &format!(
            "Planner (Table 1 for this machine): trials and wall time at Tc = {}, To = {}, {} confidence",
            fmt_ns(b.tick_ns),
            fmt_ns(b.to_ns),
            level(b.confidence)
        ),
    );
    let heads: Vec<String> = epsilons
        .iter()
        .flat_map(|e| {
            [
                format!("trials, ε {}", level(*e)),
                format!("wall time, ε {}", level(*e)),
            ]
        })
        .collect();
    let mut head = vec!["event"];
    head.extend(heads.iter().map(String::as_str));
    let mut t = Table::new(&head);
    for ev in &events {
        let mut row = vec![fmt_ns(*ev)];
        for eps in &epsilons {
            match b
                .planner
                .iter()
                .find(|r| r.event_ns == *ev && r.epsilon == *eps)
            {
                Some(r) => {
                    row.push(r.trials.to_string());
                    row.push(wall(r.wall_time_ns));
                }
                None => row.extend(["—".to_string(), "—".to_string()]),
            }
        }
        t.row(row);
    }
    t.render(out);
}
