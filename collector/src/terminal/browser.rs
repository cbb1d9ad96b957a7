//! The Browser cell in the terminal: the browser's clocks, the wasm
//! operation costs by long runs and Bernoulli trials, and (`analyze
//! --native`) wasm against the same machine's native `ops` file.

use super::numbers::{fmt_ns, ns_ci, opt_ns, pct, sig};
use super::table::{cell_title, clean, subtitle, Table};
use std::fmt::Write as _;
use tickbook_analysis::report::{BrowserReport, NativeComparison};

pub(crate) fn render(out: &mut String, r: &BrowserReport) {
    let isolation = if r.cross_origin_isolated {
        "cross-origin isolated"
    } else {
        "not cross-origin isolated"
    };
    cell_title(out, "Browser", isolation);
    let _ = writeln!(out, "   user agent: {}", clean(&r.user_agent));
    if !r.platform.is_empty() {
        let _ = writeln!(out, "   platform: {}", clean(&r.platform));
    }
    subtitle(out, "Clocks (every value in ns)");
    let mut t = Table::new(&[
        "clock",
        "tick",
        "modal step",
        "mean step",
        "jitter",
        "median read",
        "backwards",
    ])
    .text(0);
    for c in &r.clocks {
        if !c.available {
            t.row(vec![
                clean(&c.name),
                format!(
                    "unavailable: {}",
                    clean(
                        c.unavailable_reason
                            .as_deref()
                            .unwrap_or("no reason recorded")
                    )
                ),
            ]);
            continue;
        }
        t.row(vec![
            clean(&c.name),
            opt_ns(c.observed_tick_ns),
            opt_ns(c.modal_step_ns),
            opt_ns(c.mean_step_ns),
            opt_ns(c.jitter_ns),
            opt_ns(c.read_cost_median_ns),
            c.backward_steps.to_string(),
        ]);
    }
    t.render(out);

    subtitle(
        out,
        &format!(
            "WebAssembly operations ({} and {} copies, {} repetitions; Bernoulli trials of {}, tick {})",
            r.copies,
            2 * u64::from(r.copies),
            r.repetitions,
            clean(&r.wasm_clock),
            opt_ns(r.tick_ns)
        ),
    );
    let mut t = Table::new(&[
        "operation",
        "form",
        "native",
        "per op (long runs)",
        "sequence",
        "trials' wall time",
        "per op (Bernoulli)",
        "interval",
        "set aside",
        "holds",
    ])
    .text(0)
    .text(1)
    .text(2);
    for o in &r.ops {
        let (b, iv, aside, holds) = match &o.bernoulli {
            Some(b) => (
                fmt_ns(b.per_op_ns),
                format!("[{}, {}]", fmt_ns(b.lo), fmt_ns(b.hi)),
                (b.set_aside_n + b.set_aside_2n).to_string(),
                match b.covers_reference {
                    Some(true) => "yes".to_string(),
                    Some(false) => "no".to_string(),
                    None => "—".to_string(),
                },
            ),
            None => ("—".into(), "—".into(), "—".into(), "—".into()),
        };
        t.row(vec![
            clean(&o.name),
            clean(&o.form),
            clean(o.native.as_deref().unwrap_or("—")),
            ns_ci(o.per_op_ns.as_ref()),
            opt_ns(o.sequence_ns),
            opt_ns(o.bernoulli.as_ref().and_then(|b| b.wall_per_op_ns)),
            b,
            iv,
            aside,
            holds,
        ]);
    }
    t.render(out);
    if let Some(c) = &r.coverage {
        let _ = writeln!(
            out,
            "   Bernoulli intervals holding the long-run cost{}, sequences ≥ {}: {} of {} ({})",
            if c.wall_reference {
                " of the same passes (the trials' wall time)"
            } else {
                " (the untimed long runs: no trials' wall time in the file)"
            },
            fmt_ns(c.min_sequence_ns),
            c.covered,
            c.ops,
            pct(c.share)
        );
        if c.wall_reference {
            let _ = writeln!(
                out,
                "   held to the untimed long runs instead: {} of {}",
                c.covered_untimed, c.ops
            );
        }
    }
    for f in &r.fallbacks {
        let _ = writeln!(out, "   fallback: {}", clean(f));
    }
}

/// `analyze --native`: each paired operation, the ratio, the regression.
pub(crate) fn render_native(out: &mut String, c: &NativeComparison) {
    cell_title(
        out,
        "Browser against native",
        &format!("native by the {} clock", c.native_clock),
    );
    let mut t = Table::new(&["wasm", "native", "form", "wasm ns", "native ns", "ratio"])
        .text(0)
        .text(1)
        .text(2);
    for p in &c.pairs {
        t.row(vec![
            clean(&p.wasm),
            clean(&p.native),
            clean(&p.form),
            fmt_ns(p.wasm_ns),
            fmt_ns(p.native_ns),
            sig(p.ratio, 3),
        ]);
    }
    t.render(out);
    if let Some(g) = c.geometric_mean_ratio {
        let _ = writeln!(out, "   geometric mean ratio: {}", sig(g, 3));
    }
    match &c.fit {
        Some(f) => {
            let _ = writeln!(
                out,
                "   wasm on native: r = {}, slope {} [{}, {}], intercept {}",
                sig(f.r, 4),
                sig(f.slope, 4),
                sig(f.slope_ci.0, 4),
                sig(f.slope_ci.1, 4),
                fmt_ns(f.intercept)
            );
        }
        None => {
            let _ = writeln!(out, "   wasm on native: fewer than three pairs, no fit");
        }
    }
    if !c.slow.is_empty() {
        let _ = writeln!(
            out,
            "   slower than {}× the mean ratio: {}",
            sig(c.slow_factor, 2),
            clean(&c.slow.join(", "))
        );
    }
}
