//! Terminal tables of the short-event timing cells (METHODS.md §000): the
//! Bernoulli estimates with the trial planner, and the Operations cell with
//! its per-form summary, outliers, clustering cuts and calibration. The same
//! `FileReport` numbers the page shows; `--json` has every field.

use crate::analyze::{cell_title, ci_with, fmt_ns, level, opt_ns, pct, sig, subtitle, wall, Table};
use std::fmt::Write as _;
use tickbook_analysis::report::{
    BernoulliReport, CalibratedOps, CalibrationReport, ClusteringReport, FormReport, OpsReport,
};
use tickbook_analysis::stats::bootstrap::BootstrapCi;

/// The Bernoulli timing cell: the facts, the events, the coverage and the
/// planner's table for this machine (Table 1 of the seed).
pub fn render_bernoulli(out: &mut String, b: &BernoulliReport) {
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
        "set aside",
        "estimate Te",
        &interval,
        "reference",
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
            tr.disturbed_n.to_string(),
            fmt_ns(e.estimate_ns),
            format!(
                "{} to {}{}",
                fmt_ns(e.interval_ns.lo),
                fmt_ns(e.interval_ns.hi),
                if tr.wilson_used { " (Wilson)" } else { "" }
            ),
            opt_ns(e.reference_ns),
            e.relative_error
                .map(crate::analyze::signed_pct)
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
            opt_ns(b.overhead.as_ref().map(|o| o.raw_ns)),
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

/// The Operations cell: the cost table (and the calibrated column when a
/// fit was applied), then per form its summary, outliers, clusters, modes
/// and calibration.
pub fn render_ops(out: &mut String, o: &OpsReport) {
    cell_title(
        out,
        "Operations",
        &format!(
            "n = {} copies and 2n, {} repetitions; portable clock {}, counter {}",
            o.copies,
            o.repetitions,
            o.portable_clock,
            o.counter_clock.as_deref().unwrap_or("none")
        ),
    );
    match &o.core {
        Some(c) => {
            let t = &c.ticks_per_cycle;
            let _ = writeln!(
                out,
                "   core clock: {} core cycles per counter tick ({} to {}){}; {} ticks per cycle [{}, {}] from {} chains of {} dependent adds",
                sig(c.cycles_per_tick, 5),
                sig(c.cycles_per_tick_ci.0, 5),
                sig(c.cycles_per_tick_ci.1, 5),
                c.core_hz
                    .map(|hz| format!(", core {} GHz", sig(hz / 1e9, 4)))
                    .unwrap_or_default(),
                sig(t.estimate, 4),
                sig(t.lo, 4),
                sig(t.hi, 4),
                c.samples,
                c.adds
            );
        }
        None => {
            let _ = writeln!(
                out,
                "   core clock: not measured (it needs the cycle counter): no core cycles per operation"
            );
        }
    }
    let _ = writeln!(
        out,
        "   summary, outliers and clusters below are of ns per operation by the {} clock",
        match o.reference_clock {
            tickbook_analysis::report::ReferenceClock::Portable => "portable",
            tickbook_analysis::report::ReferenceClock::Counter => "counter",
        }
    );
    if let Some(why) = &o.basis_fallback {
        let _ = writeln!(out, "   note: {why}");
    }
    let mut t = Table::new(&[
        "operation",
        "form",
        "group",
        "ns/op (portable)",
        "counter ticks/op",
        "ns/op (counter)",
        "core cycles/op",
        "instruction",
    ]);
    for r in &o.ops {
        if !r.available {
            t.row(vec![
                r.name.clone(),
                r.form.clone(),
                r.group.clone(),
                format!(
                    "unavailable: {}",
                    r.unavailable_reason
                        .as_deref()
                        .unwrap_or("no reason recorded")
                ),
            ]);
            continue;
        }
        t.row(vec![
            r.name.clone(),
            r.form.clone(),
            r.group.clone(),
            ci_text(r.portable_ns.as_ref(), 3),
            r.counter_ticks
                .as_ref()
                .map(|c| sig(c.estimate, 4))
                .unwrap_or_else(|| "—".into()),
            ci_text(r.counter_ns.as_ref(), 3),
            ci_text(r.core_cycles.as_ref(), 3),
            r.instruction
                .clone()
                .unwrap_or_else(|| r.implementation.clone()),
        ]);
    }
    t.render(out);
    if let Some(c) = &o.calibrated {
        render_calibrated(out, c);
    }
    for f in &o.forms {
        render_form(out, f);
    }
}

/// One form: the six-number summary, Tukey outliers, clusters, modes and
/// the calibration fit.
fn render_form(out: &mut String, f: &FormReport) {
    subtitle(
        out,
        &format!(
            "All {} operations: summary and Tukey outliers of the {}",
            f.form, f.basis
        ),
    );
    if !f.left_out.is_empty() {
        let _ = writeln!(
            out,
            "   left out (no time by this clock): {}",
            f.left_out.join(", ")
        );
    }
    match &f.summary {
        Some(s) => {
            let mut t = Table::new(&["n", "min", "Q1", "median", "mean", "Q3", "max", "sd"]);
            t.row(vec![
                s.n.to_string(),
                fmt_ns(s.min),
                fmt_ns(s.q1),
                fmt_ns(s.median),
                fmt_ns(s.mean),
                fmt_ns(s.q3),
                fmt_ns(s.max),
                opt_ns(s.sd),
            ]);
            t.render(out);
        }
        None => {
            let _ = writeln!(out, "   no operation of this form has an estimate");
        }
    }
    if let Some(fe) = &f.fences {
        let _ = writeln!(
            out,
            "   whiskers {} to {}; outliers beyond {}·IQR from the box, extreme beyond {}·IQR",
            fmt_ns(fe.whisker_low),
            fmt_ns(fe.whisker_high),
            sig(fe.k, 3),
            sig(2.0 * fe.k, 3)
        );
    }
    if f.outliers.is_empty() {
        let _ = writeln!(out, "   Tukey outliers: none");
    } else {
        let names: Vec<String> = f
            .outliers
            .iter()
            .map(|x| {
                format!(
                    "{} {}{}",
                    x.name,
                    fmt_ns(x.value_ns),
                    if x.extreme { " (extreme)" } else { "" }
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "   Tukey outliers ({}): {}",
            names.len(),
            names.join(", ")
        );
    }
    match &f.clustering {
        Some(c) => render_clustering(
            out,
            &format!("Clusters of {} costs", f.form),
            c,
            "operations",
        ),
        None => {
            let _ = writeln!(
                out,
                "   clusters: needs at least two operations with an estimate"
            );
        }
    }
    if let Some(m) = &f.modes {
        let _ = writeln!(out, "   cost modes (k-means): {} — {}", m.k, m.rule);
    }
    match &f.calibration {
        Some(cal) => render_calibration(out, &f.form, cal),
        None => {
            let _ = writeln!(
                out,
                "   calibration ({}): not enough operations with both a portable and a counter estimate, or no counter",
                f.form
            );
        }
    }
}

/// The clustering section (ops forms and samples series): the cut at each
/// statistic of the costs (Table 4 of the paper), then the members at the
/// median cut (the page's first view; `--json` has every cut's).
pub fn render_clustering(out: &mut String, title: &str, c: &ClusteringReport, noun: &str) {
    subtitle(
        out,
        &format!(
            "{title}: {} linkage over {} {noun}, cut at each statistic of the costs",
            format!("{:?}", c.method).to_lowercase(),
            c.dendrogram.observations
        ),
    );
    let mut t = Table::new(&["granularity set to", "granularity", "clusters"]);
    for k in &c.cuts {
        t.row(vec![
            k.statistic.clone(),
            fmt_ns(k.granularity_ns),
            k.clusters.to_string(),
        ]);
    }
    t.render(out);
    let Some(cut) = c
        .cuts
        .iter()
        .find(|k| k.statistic == "median")
        .or(c.cuts.first())
    else {
        return;
    };
    subtitle(
        out,
        &format!(
            "Members of the {} clusters at the {} granularity {}, in order of mean cost",
            cut.clusters,
            cut.statistic,
            fmt_ns(cut.granularity_ns)
        ),
    );
    let mut t = Table::new(&["cluster", "size", "cheapest", "dearest", "mean", "members"]);
    for (k, m) in cut.members.iter().enumerate() {
        t.row(vec![
            (k + 1).to_string(),
            m.names.len().to_string(),
            fmt_ns(m.min_ns),
            fmt_ns(m.max_ns),
            fmt_ns(m.mean_ns),
            m.names.join(" "),
        ]);
    }
    t.render(out);
}

/// The calibration fit of one form: counter ns/op against portable ns/op.
fn render_calibration(out: &mut String, form: &str, cal: &CalibrationReport) {
    let fit = &cal.fit;
    let conf = level(fit.confidence);
    subtitle(
        out,
        &format!("Calibration against the cycle counter ({form}): counter ns/op = α + β · portable ns/op"),
    );
    let mut t = Table::new(&[
        "n",
        "Pearson r",
        "slope β",
        &format!("β {conf} CI"),
        "intercept α",
        &format!("α {conf} CI"),
    ]);
    t.row(vec![
        fit.n.to_string(),
        sig(fit.r, 6),
        sig(fit.slope, 5),
        format!("{} to {}", sig(fit.slope_ci.0, 5), sig(fit.slope_ci.1, 5)),
        fmt_ns(fit.intercept),
        format!(
            "{} to {}",
            fmt_ns(fit.intercept_ci.0),
            fmt_ns(fit.intercept_ci.1)
        ),
    ]);
    t.render(out);
    let ones = fit.slope_ci.0 <= 1.0 && 1.0 <= fit.slope_ci.1;
    let _ = writeln!(
        out,
        "   the {conf} interval of β {} 1{}",
        if ones { "includes" } else { "excludes" },
        cal.cycles_per_tick
            .map(|c| format!(
                "; the counter ticks at a fixed rate: {} core cycles per tick",
                sig(c, 4)
            ))
            .unwrap_or_default()
    );
    if !cal.largest_residuals.is_empty() {
        let shown: Vec<String> = cal
            .largest_residuals
            .iter()
            .map(|name| match cal.points.iter().find(|p| &p.name == name) {
                Some(p) => format!(
                    "{name} {}{}",
                    if p.residual_ns >= 0.0 { "+" } else { "" },
                    fmt_ns(p.residual_ns)
                ),
                None => name.clone(),
            })
            .collect();
        let _ = writeln!(out, "   largest residuals: {}", shown.join(", "));
    }
}

/// The calibrated column of `--calibrate-with`: each operation's portable
/// time through another file's fit.
fn render_calibrated(out: &mut String, c: &CalibratedOps) {
    let f = &c.fit;
    subtitle(
        out,
        &format!(
            "Calibrated with the {} fit of {}: counter ns = {} + {}·portable ns (r = {:.6}, n = {})",
            f.form,
            f.source_file,
            sig(f.intercept, 5),
            sig(f.slope, 6),
            f.r,
            f.n
        ),
    );
    for w in &c.warnings {
        let _ = writeln!(out, "   warning: {w}");
    }
    let conf = level(f.confidence);
    let mut t = Table::new(&[
        "operation",
        "form",
        "portable",
        "calibrated",
        &format!("{conf} interval"),
        "own counter",
        "",
    ]);
    for r in &c.ops {
        t.row(vec![
            r.name.clone(),
            r.form.clone(),
            fmt_ns(r.portable_ns),
            fmt_ns(r.calibrated_ns),
            format!("{} to {}", fmt_ns(r.interval_ns.0), fmt_ns(r.interval_ns.1)),
            opt_ns(r.measured_counter_ns),
            if r.extrapolated {
                "extrapolated".into()
            } else {
                String::new()
            },
        ]);
    }
    t.render(out);
}

fn ci_text(ci: Option<&BootstrapCi>, digits: usize) -> String {
    ci_with(ci, |v| sig(v, digits))
}
