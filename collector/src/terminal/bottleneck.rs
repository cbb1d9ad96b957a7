//! The Bottlenecks cell in the terminal (after MTOOL): each region's L1
//! prediction and overhead, the jumps at the cache boundaries and the
//! operation costs used; `--json` has every field.

use super::numbers::{fmt_bytes, fmt_ns, level, ns_ci, opt_ns, pct, sig};
use super::table::{cell_title, subtitle, Table};
use std::fmt::Write as _;
use tickbook_analysis::report::BottleneckReport;

/// The Bottlenecks cell (MTOOL): the share of time explained, every region
/// with its L1 prediction and overhead, the jumps at the cache boundaries
/// and the operation costs the predictions use.
pub(crate) fn render(out: &mut String, b: &BottleneckReport) {
    cell_title(
        out,
        "Bottlenecks",
        "MTOOL: overhead = (measured − predicted) / predicted, predicted as if every access hit L1",
    );
    let caches: Vec<String> = b
        .caches
        .iter()
        .map(|x| format!("{} {}", x.name, fmt_bytes(x.bytes)))
        .collect();
    let _ = writeln!(
        out,
        "   clock {}: tick {}, read {}; timable: shortest repetition ≥ {} ticks and ≥ {} reads; caches {}",
        b.clock,
        fmt_ns(b.tick_ns),
        fmt_ns(b.read_cost_ns),
        sig(b.min_tick_multiple, 4),
        sig(b.min_read_multiple, 4),
        if caches.is_empty() {
            "not recorded".into()
        } else {
            caches.join(", ")
        }
    );
    let e = &b.explained;
    let _ = writeln!(
        out,
        "   {} regions counted, {} not timable or not predicted; time explained by the L1 predictions {}; unexplained (memory overhead) {} ({}); memory operations covered {}",
        e.regions,
        e.excluded,
        e.explained_share.map(pct).unwrap_or_else(|| "—".into()),
        e.unexplained_share.map(pct).unwrap_or_else(|| "—".into()),
        fmt_ns(e.unexplained_ns),
        e.memory_ops_covered.map(pct).unwrap_or_else(|| "—".into())
    );
    subtitle(
        out,
        &format!(
            "Regions ({}), in run order: measured median with its bootstrap CI; predicted and the class that bounds it; serial: the in-order sum",
            b.cases.len()
        ),
    );
    let level = b
        .cases
        .iter()
        .find_map(|c| c.overhead.as_ref())
        .map(|o| format!("{} CI", level(o.confidence)))
        .unwrap_or_else(|| "CI".into());
    let overhead_head = format!("overhead [{level}]");
    let mut t = Table::new(&[
        "kernel",
        "working set",
        "fits in",
        "shape",
        "passes",
        "measured",
        "predicted",
        "bound",
        "serial",
        &overhead_head,
    ]);
    for c in &b.cases {
        let mut row = vec![
            c.kernel.clone(),
            fmt_bytes(c.working_set_bytes),
            c.level.clone(),
            c.shape.clone(),
            c.passes.to_string(),
            ns_ci(c.measured_ns.as_ref()),
            opt_ns(c.predicted_ns),
            c.bound.clone().unwrap_or_else(|| "—".into()),
            opt_ns(c.serial_ns),
        ];
        match (&c.overhead, c.timable) {
            (Some(o), true) => row.push(format!(
                "{} [{}, {}]",
                overhead(o.estimate),
                overhead(o.lo),
                overhead(o.hi)
            )),
            (_, false) => row.push(format!(
                "not timable: {}",
                c.untimable_reason.as_deref().unwrap_or("")
            )),
            (None, true) => row.push(format!(
                "no prediction: missing {}",
                c.missing_costs.join(", ")
            )),
        }
        t.row(row);
    }
    t.render(out);

    subtitle(
        out,
        "Overhead at the cache boundaries: the last size inside and the first beyond",
    );
    let mut t = Table::new(&[
        "kernel",
        "boundary",
        "last inside",
        "first beyond",
        "overhead before",
        "overhead after",
        "jump",
    ]);
    for k in &b.kernels {
        for x in &k.crossings {
            t.row(vec![
                k.name.clone(),
                format!("{} → {}", x.from_level, x.to_level),
                fmt_bytes(x.from_bytes),
                fmt_bytes(x.to_bytes),
                overhead(x.overhead_before),
                overhead(x.overhead_after),
                overhead(x.jump),
            ]);
        }
    }
    t.render(out);
    for k in &b.kernels {
        if k.crossings.is_empty() {
            let _ = writeln!(out, "   {}: no cache boundary crossed", k.name);
        }
        if let Some(n) = &k.size_note {
            let _ = writeln!(out, "   {}: {n}", k.name);
        }
    }

    subtitle(
        out,
        &format!(
            "Operation costs used by the predictions ({}): median of (t(2n) − t(n)) / n, timed in this run",
            b.costs.len()
        ),
    );
    let mut t = Table::new(&["operation", "form", "ns per op", "instruction"]);
    for c in &b.costs {
        t.row(vec![
            c.name.clone(),
            c.form.clone(),
            if c.available {
                ns_ci(c.ns.as_ref())
            } else {
                "unavailable".into()
            },
            c.instruction.clone().unwrap_or_else(|| "—".into()),
        ]);
    }
    t.render(out);
}

/// An overhead (a ratio less 1): three significant digits, signed.
fn overhead(v: f64) -> String {
    if v >= 0.0 {
        format!("+{}", sig(v, 3))
    } else {
        sig(v, 3)
    }
}
