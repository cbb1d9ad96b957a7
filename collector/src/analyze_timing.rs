//! Terminal tables of the short-event timing analyses (METHODS.md §000):
//! the Bernoulli estimates and the operation-cost table with its summary,
//! clustering cuts and calibration. The same `FileReport` numbers the page
//! shows; `--json` has every field.

use crate::analyze::{fmt_ns, sig, Table};
use std::fmt::Write as _;
use tickbook_analysis::report::{BernoulliReport, OpsReport};
use tickbook_analysis::stats::bootstrap::BootstrapCi;

pub fn render_bernoulli(out: &mut String, b: &BernoulliReport) {
    let _ = writeln!(
        out,
        "\n   Bernoulli trials of {} (tick {}), reference {}; planned ε {} at {} confidence",
        b.clock,
        fmt_ns(b.tick_ns),
        b.reference,
        percent(b.planned_epsilon),
        percent(b.planned_confidence)
    );
    if let Some(o) = &b.overhead {
        let _ = writeln!(
            out,
            "   timer overhead To = p·Tc {} ({} ticks in {} trials{})",
            fmt_ns(o.raw_ns),
            o.m,
            o.n,
            if o.capped { ", capped" } else { "" }
        );
    }
    let level = percent(b.confidence);
    let interval = format!("{level} interval");
    let mut t = Table::new(&[
        "event",
        "n",
        "m",
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
            tr.n.to_string(),
            tr.m.to_string(),
            fmt_ns(e.estimate_ns),
            format!(
                "{} to {}{}",
                fmt_ns(e.interval_ns.lo),
                fmt_ns(e.interval_ns.hi),
                if tr.wilson_used { " (Wilson)" } else { "" }
            ),
            e.reference_ns.map(fmt_ns).unwrap_or_else(|| "—".into()),
            e.relative_error
                .map(|r| format!("{:+.1}%", r * 100.0))
                .unwrap_or_else(|| "—".into()),
            match e.covered {
                Some(true) => "yes".into(),
                Some(false) => "NO".into(),
                None => "—".into(),
            },
            tr.trials_ratio
                .map(|r| format!("{:.0}%", r * 100.0))
                .unwrap_or_else(|| "—".into()),
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
                "   coverage: the reference lies inside the interval for {} of {} events of {} and longer ({:.0}%)",
                c.covered,
                c.events,
                fmt_ns(c.min_target_ns),
                share * 100.0
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
            "   {set_aside} trials were set aside as disturbed (the host took the CPU); see disturbed_* in --json"
        );
    }
}

pub fn render_ops(out: &mut String, o: &OpsReport) {
    let _ = writeln!(
        out,
        "\n   Operations ({} copies, {} repetitions; portable clock {}, counter {})",
        o.copies,
        o.repetitions,
        o.portable_clock,
        o.counter_clock.as_deref().unwrap_or("none")
    );
    if let Some(c) = &o.core {
        let _ = writeln!(
            out,
            "   core clock: {} cycles per counter tick (CI {} to {}){}",
            sig(c.cycles_per_tick, 5),
            sig(c.cycles_per_tick_ci.0, 5),
            sig(c.cycles_per_tick_ci.1, 5),
            c.core_hz
                .map(|hz| format!(", core {:.0} MHz", hz / 1e6))
                .unwrap_or_default()
        );
    }
    let mut t = Table::new(&[
        "operation",
        "form",
        "ns/op (portable)",
        "ns/op (counter)",
        "core cycles",
        "instruction",
    ]);
    for r in &o.ops {
        if !r.available {
            t.row(vec![
                r.name.clone(),
                r.form.clone(),
                format!(
                    "unavailable: {}",
                    r.unavailable_reason.as_deref().unwrap_or("no reason")
                ),
            ]);
            continue;
        }
        t.row(vec![
            r.name.clone(),
            r.form.clone(),
            ci_text(r.portable_ns.as_ref(), 3),
            ci_text(r.counter_ns.as_ref(), 3),
            ci_text(r.core_cycles.as_ref(), 3),
            r.instruction
                .clone()
                .unwrap_or_else(|| r.implementation.clone()),
        ]);
    }
    t.render(out);
    if let Some(why) = &o.basis_fallback {
        let _ = writeln!(out, "   note: {why}");
    }
    for f in &o.forms {
        let _ = writeln!(out, "\n   {} form ({}):", f.form, f.basis);
        if !f.left_out.is_empty() {
            let _ = writeln!(
                out,
                "   left out (no time by this clock): {}",
                f.left_out.join(", ")
            );
        }
        if let Some(s) = &f.summary {
            let _ = writeln!(
                out,
                "   min {}  q1 {}  median {}  mean {}  q3 {}  max {}  ({} operations)",
                fmt_ns(s.min),
                fmt_ns(s.q1),
                fmt_ns(s.median),
                fmt_ns(s.mean),
                fmt_ns(s.q3),
                fmt_ns(s.max),
                s.n
            );
        }
        if !f.outliers.is_empty() {
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
            let _ = writeln!(out, "   Tukey outliers: {}", names.join(", "));
        }
        if let Some(c) = &f.clustering {
            let cuts: Vec<String> = c
                .cuts
                .iter()
                .map(|k| {
                    format!(
                        "{} {} → {}",
                        k.statistic,
                        fmt_ns(k.granularity_ns),
                        k.clusters
                    )
                })
                .collect();
            let _ = writeln!(
                out,
                "   clusters ({:?} linkage) at each granularity: {}",
                c.method,
                cuts.join("; ")
            );
        }
        if let Some(m) = &f.modes {
            let _ = writeln!(out, "   cost modes (k-means): {}", m.k);
        }
        if let Some(cal) = &f.calibration {
            let fit = &cal.fit;
            let _ = writeln!(
                out,
                "   calibration counter = α + β·portable: r {:.5}, β {} (CI {} to {}), α {} ns (CI {} to {}){}",
                fit.r,
                sig(fit.slope, 5),
                sig(fit.slope_ci.0, 5),
                sig(fit.slope_ci.1, 5),
                sig(fit.intercept, 4),
                sig(fit.intercept_ci.0, 4),
                sig(fit.intercept_ci.1, 4),
                if cal.largest_residuals.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; largest residuals: {}",
                        cal.largest_residuals
                            .iter()
                            .take(5)
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            );
        }
    }
}

fn ci_text(ci: Option<&BootstrapCi>, digits: usize) -> String {
    match ci {
        Some(c) => format!(
            "{} [{}, {}]",
            sig(c.estimate, digits),
            sig(c.lo, digits),
            sig(c.hi, digits)
        ),
        None => "—".into(),
    }
}

fn percent(x: f64) -> String {
    let p = x * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{p:.0}%")
    } else {
        format!("{p}%")
    }
}
