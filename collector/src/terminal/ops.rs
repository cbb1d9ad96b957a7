//! The Operations cell in the terminal (Lambert and Power's homogeneous
//! sequences): the cost table, then per form its summary, outliers,
//! clustering cuts and calibration against the cycle counter; `--json` has
//! every field.

use super::numbers::{ci_with, fmt_ns, level, opt_ns, pct, sig};
use super::table::{cell_title, clean, subtitle, Table};
use std::fmt::Write as _;
use tickbook_analysis::report::{CalibratedOps, CalibrationReport, FormReport, OpsReport};
use tickbook_analysis::stats::bootstrap::BootstrapCi;
use tickbook_analysis::suites::ops::published::{PublishedComparison, Verdict};

/// The Operations cell: the cost table (and the calibrated column when a
/// fit was applied), then per form its summary, outliers, clusters, modes
/// and calibration.
pub(crate) fn render(out: &mut String, o: &OpsReport) {
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
    if let Some(i) = &o.issue {
        subtitle(out, "issue width");
        let _ = writeln!(out, "   {}", clean(&i.text));
    }
    if let Some(p) = &o.published {
        render_published(out, p);
    }
    if let Some(why) = &o.published_absent {
        subtitle(out, "Published figures (core cycles per operation)");
        let _ = writeln!(out, "   {why}");
    }
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
        Some(c) => super::clustering::render(
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

/// A published range: `3` or `7 to 19` core cycles.
fn cycles_range(low: f64, high: f64) -> String {
    if low == high {
        sig(low, 3)
    } else {
        format!("{} to {}", sig(low, 3), sig(high, 3))
    }
}

/// The measured table beside the published figures: the core match, the
/// score per core, the discriminating operations and a verdict per row.
fn render_published(out: &mut String, p: &PublishedComparison) {
    subtitle(out, "Published figures (core cycles per operation)");
    let _ = writeln!(out, "   {}", p.summary);
    match &p.core_name {
        Some(c) => {
            let _ = writeln!(out, "   rows compared with {c} ({})", p.chosen_by);
        }
        None => {
            let _ = writeln!(out, "   no core to compare with ({})", p.chosen_by);
        }
    }
    let _ = writeln!(out, "   {}", p.rule);
    let mut t = Table::new(&[
        "core",
        "latencies agree",
        "of latencies",
        "throughputs agree",
        "of throughputs",
        "share",
    ])
    .text(0);
    for s in &p.scores {
        t.row(vec![
            s.name.clone(),
            s.latency.agree.to_string(),
            s.latency.comparable.to_string(),
            s.throughput.agree.to_string(),
            s.throughput.comparable.to_string(),
            s.share.map(pct).unwrap_or_else(|| "—".into()),
        ]);
    }
    t.render(out);
    if !p.discriminating.is_empty() {
        let _ = writeln!(
            out,
            "   operations that tell the cores apart (* = the measured cost agrees):"
        );
        let mut head = vec![
            "discriminating op".to_string(),
            "form".into(),
            "measured".into(),
        ];
        let cores: Vec<&str> = p.scores.iter().map(|s| s.name.as_str()).collect();
        head.extend(cores.iter().map(|c| c.to_string()));
        let head: Vec<&str> = head.iter().map(String::as_str).collect();
        let mut t = Table::new(&head).text(0).text(1);
        for d in &p.discriminating {
            let mut row = vec![
                d.name.clone(),
                d.form.clone(),
                d.measured.map(|m| sig(m, 3)).unwrap_or_else(|| "—".into()),
            ];
            for c in &cores {
                row.push(match d.cores.iter().find(|x| x.name == *c) {
                    Some(x) => format!(
                        "{}{}",
                        cycles_range(x.low, x.high),
                        super::numbers::mark(x.agrees == Some(true))
                    ),
                    None => "—".into(),
                });
            }
            t.row(row);
        }
        t.render(out);
    }
    let Some(core) = &p.core_name else { return };
    let _ = writeln!(out, "   each operation against {core}:");
    let mut t = Table::new(&["operation", "form", "measured", "published", "verdict"])
        .text(0)
        .text(1)
        .text(4);
    for r in &p.rows {
        t.row(vec![
            r.name.clone(),
            r.form.clone(),
            r.measured.map(|m| sig(m, 3)).unwrap_or_else(|| "—".into()),
            match (r.low, r.high) {
                (Some(l), Some(h)) => cycles_range(l, h),
                _ => "—".into(),
            },
            match r.verdict {
                Verdict::Agrees => "agrees".into(),
                Verdict::Differs => "differs".into(),
                Verdict::NotComparable => format!(
                    "not comparable: {}",
                    r.reason.as_deref().unwrap_or("no reason recorded")
                ),
            },
        ]);
    }
    t.render(out);
}
