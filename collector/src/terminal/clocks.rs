//! The Clocks cell in the terminal: every clock's resolution and read cost,
//! the scans, the cross-CPU check and the TSC frequency sources.

use super::numbers::{fmt_ns, opt_ns, sig, time_unit};
use super::table::{cell_title, subtitle, Table};
use std::fmt::Write as _;
use tickbook_analysis::report::{ClocksReport, StepBin};

/// The Clocks cell: the clock table, scans, steps, the cross-CPU check, the
/// TSC frequency sources and the fallbacks.
pub(crate) fn render(out: &mut String, c: &ClocksReport) {
    cell_title(
        out,
        "Clocks",
        &format!("read cost timed by {}", c.reference),
    );
    let mut t = Table::new(&[
        "clock",
        "nominal",
        "tick",
        "modal step",
        "median read",
        "p99 read",
        "backwards",
    ]);
    for row in &c.clocks {
        if !row.available {
            t.row(vec![
                row.name.clone(),
                format!(
                    "unavailable: {}",
                    row.unavailable_reason
                        .as_deref()
                        .unwrap_or("no reason recorded")
                ),
            ]);
            continue;
        }
        t.row(vec![
            row.name.clone(),
            opt_ns(row.nominal_resolution_ns),
            opt_ns(row.observed_tick_ns),
            opt_ns(row.modal_step_ns),
            opt_ns(row.read_cost.as_ref().map(|s| s.median)),
            opt_ns(row.read_cost_p99_ns),
            match row.largest_violation_ns {
                Some(back) if row.violations > 0 => {
                    format!("{}, up to {} back", row.violations, fmt_ns(back))
                }
                _ => row.violations.to_string(),
            },
        ]);
    }
    t.render(out);

    subtitle(
        out,
        "Scans (reads back to back) and read-cost batches; steps: the most frequent steps between consecutive reads",
    );
    let mut t = Table::new(&[
        "clock",
        "scan reads",
        "scan time",
        "stopped by",
        "batch",
        "timed by",
        "steps (count)",
    ])
    .text(6);
    for row in c.clocks.iter().filter(|r| r.available) {
        let mut bins: Vec<&StepBin> = row.step_histogram.iter().collect();
        bins.sort_by(|a, b| b.count.cmp(&a.count).then(a.step_ns.total_cmp(&b.step_ns)));
        let shown = 4;
        let mut steps: Vec<String> = steps_text(&bins[..bins.len().min(shown)]);
        let others: u64 =
            bins.iter().skip(shown).map(|b| b.count).sum::<u64>() + row.steps_not_shown;
        if others > 0 {
            steps.push(format!("{others} other"));
        }
        t.row(vec![
            row.name.clone(),
            row.scan_reads.to_string(),
            opt_ns(row.scan_duration_ns),
            row.scan_stopped_by.clone().unwrap_or_else(|| "—".into()),
            row.read_cost_batch
                .map(|b| b.to_string())
                .unwrap_or_else(|| "—".into()),
            row.read_cost_reference
                .clone()
                .unwrap_or_else(|| c.reference.clone()),
            if steps.is_empty() {
                "—".into()
            } else {
                steps.join(", ")
            },
        ]);
    }
    t.render(out);

    if !c.cross_cpu.is_empty() {
        subtitle(
            out,
            "Across CPUs: reads just before and after moving the thread; a skew below the smallest step cannot show",
        );
        let mut t = Table::new(&[
            "clock",
            "CPUs",
            "moves",
            "not moved",
            "backwards",
            "smallest step",
            "median step",
        ]);
        for x in &c.cross_cpu {
            t.row(vec![
                x.clock.clone(),
                x.cpus
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
                x.migrations.to_string(),
                x.not_moved.to_string(),
                x.backwards.to_string(),
                opt_ns(x.min_step_ns),
                opt_ns(x.median_step_ns),
            ]);
        }
        t.render(out);
    }

    let f = &c.frequency;
    subtitle(out, "TSC frequency sources");
    let mut t = Table::new(&["source", "MHz", "ppm from median"]);
    for s in &f.sources {
        match s.hz {
            Some(hz) => t.row(vec![
                s.name.clone(),
                format!("{:.4}", hz / 1e6),
                s.ppm_from_median
                    .map(|p| format!("{p:+.3}"))
                    .unwrap_or_default(),
            ]),
            None => t.row(vec![
                s.name.clone(),
                format!("unreadable: {}", s.error.as_deref().unwrap_or("no reason")),
            ]),
        }
    }
    t.render(out);
    if let Some(hz) = f.median_hz {
        let _ = writeln!(
            out,
            "   median of {} readable sources: {:.4} MHz",
            f.readable.len(),
            hz / 1e6
        );
    }
    if let Some(spread) = f.spread_ppm {
        let _ = writeln!(
            out,
            "   spread across {} readable sources: {spread:.3} ppm",
            f.readable.len()
        );
    }
    if let (Some(hz), Some(src)) = (c.tsc_hz, &c.tsc_hz_source) {
        let _ = writeln!(out, "   ticks converted with {:.4} MHz ({src})", hz / 1e6);
    }
    if c.fallbacks.is_empty() {
        let _ = writeln!(out, "   fallbacks: none");
    }
    for fb in &c.fallbacks {
        let _ = writeln!(out, "   fallback: {fb}");
    }
}

/// Steps with their counts, each step with as many digits as it takes to
/// tell it from the others shown (a coarse clock's 3.999998 ms and 4.000002 ms).
fn steps_text(bins: &[&StepBin]) -> Vec<String> {
    let mut digits = 4;
    loop {
        let texts: Vec<String> = bins
            .iter()
            .map(|b| {
                let (scale, unit) = time_unit(b.step_ns);
                format!("{} {unit}", sig(b.step_ns / scale, digits))
            })
            .collect();
        let distinct = texts
            .iter()
            .enumerate()
            .all(|(i, t)| !texts[..i].contains(t));
        if distinct || digits >= 10 {
            return texts
                .into_iter()
                .zip(bins)
                .map(|(t, b)| format!("{t} ({})", b.count))
                .collect();
        }
        digits += 1;
    }
}
