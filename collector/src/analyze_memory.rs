//! Terminal tables of the memory cells: Copy (METHODS.md §001), Allocation
//! and page placement (§002) and Bottlenecks (§004). The same `FileReport`
//! numbers the page shows, its heat maps and charts condensed to tables;
//! `--json` has every field.

use crate::analyze::{
    cell_title, ci_with, factor, fmt_bytes, fmt_ns, level, mark, ns_ci, opt_ns, pct, render_impact,
    sig, subtitle, Table,
};
use std::fmt::Write as _;
use tickbook_analysis::report::{
    AllocReport, BottleneckReport, ConfigRow, CopyReport, RankingTable,
};

/// Offsets (source, destination) of variants 1–4 and, on the same array, 5–8.
const OFFSETS: [&str; 4] = ["(0, 0)", "(off, 0)", "(0, off)", "(off, off)"];

/// What variant 1–8 is, as the page labels it.
fn variant_label(v: u8) -> String {
    let same = if v > 4 { "same" } else { "distinct" };
    let offsets = OFFSETS[(usize::from(v.max(1)) - 1) % 4];
    format!("{v} {same} {offsets}")
}

/// The Copy cell: per nominal length, the median time per copy of every
/// implementation × variant by alignment (the page's heat maps, one table
/// per length), then the flagged cases, worst first.
pub fn render_copy(out: &mut String, c: &CopyReport) {
    let caches: Vec<String> = c
        .cache_bytes
        .iter()
        .map(|x| format!("{} {}", x.name, fmt_bytes(x.bytes)))
        .collect();
    cell_title(
        out,
        "Copy",
        &format!(
            "median of {} timings by {}; caches {}",
            c.repetitions,
            c.clock,
            if caches.is_empty() {
                "not recorded".into()
            } else {
                caches.join(", ")
            }
        ),
    );
    let _ = writeln!(
        out,
        "   variants: 1–4 distinct source and destination arrays, 5–8 the same array, offsets (source, destination)"
    );
    let _ = writeln!(
        out,
        "   * = flagged: slower than variant 1 of the same implementation, length and alignment by the comparison rule (disjoint CIs, difference above {}); n/a = not measured",
        pct(c.threshold)
    );
    let heads: Vec<String> = c.alignments.iter().map(|a| format!("align {a}")).collect();
    for &len in &c.lengths {
        subtitle(
            out,
            &format!(
                "Length {} ({len} B nominal; each case up to 63 B longer, rounded down to its alignment): median time per copy",
                fmt_bytes(len)
            ),
        );
        let mut head = vec!["implementation", "variant"];
        head.extend(heads.iter().map(String::as_str));
        let mut t = Table::new(&head).text(1);
        for imp in &c.implementations {
            for v in 1..=8u8 {
                let mut row = vec![imp.clone(), variant_label(v)];
                let mut any = false;
                for &a in &c.alignments {
                    let cell = c.cells.iter().find(|x| {
                        &x.implementation == imp
                            && x.nominal_length == len
                            && x.variant == v
                            && x.alignment == a
                    });
                    any |= cell.is_some();
                    row.push(match cell {
                        Some(x) if x.available => match &x.ns_per_copy {
                            Some(ci) => format!("{}{}", fmt_ns(ci.estimate), mark(x.flagged)),
                            None => "n/a".into(),
                        },
                        Some(_) => "n/a".into(),
                        None => "—".into(),
                    });
                }
                if any {
                    t.row(row);
                }
            }
        }
        t.render(out);
        // Why a case was not measured, once per reason.
        let mut reasons: Vec<(&str, usize)> = Vec::new();
        for x in c
            .cells
            .iter()
            .filter(|x| x.nominal_length == len && !x.available)
        {
            let r = x
                .unavailable_reason
                .as_deref()
                .unwrap_or("no reason recorded");
            match reasons.iter_mut().find(|(m, _)| *m == r) {
                Some(e) => e.1 += 1,
                None => reasons.push((r, 1)),
            }
        }
        for (r, n) in reasons {
            let _ = writeln!(out, "   n/a ({n} cases): {r}");
        }
    }
    if c.flagged.is_empty() {
        subtitle(
            out,
            &format!(
                "Flagged cases: none is slower than its variant-1 baseline by more than {} with disjoint CIs",
                pct(c.threshold)
            ),
        );
        return;
    }
    subtitle(
        out,
        &format!(
            "Flagged cases ({}), worst first: slower than variant 1 of the same implementation, length and alignment",
            c.flagged.len()
        ),
    );
    let mut t = Table::new(&[
        "implementation",
        "length",
        "variant",
        "alignment",
        "ratio to baseline",
        "median per copy",
        "baseline (variant 1)",
    ])
    .text(2);
    for &i in &c.flagged {
        let Some(x) = c.cells.get(i) else { continue };
        let base = c.cells.iter().find(|b| {
            b.variant == 1
                && b.implementation == x.implementation
                && b.length == x.length
                && b.alignment == x.alignment
        });
        t.row(vec![
            x.implementation.clone(),
            format!("{} B", x.length),
            variant_label(x.variant),
            x.alignment.to_string(),
            x.ratio_to_baseline
                .map(factor)
                .unwrap_or_else(|| "—".into()),
            ns_ci(x.ns_per_copy.as_ref()),
            ns_ci(base.and_then(|b| b.ns_per_copy.as_ref())),
        ]);
    }
    t.render(out);
}

/// The Allocation cell: the rankings of the strategies by mean time and by
/// impact factor (the seed's Figures 6 and 8), the geometric-mean time
/// ratios, and every configuration (time, then variation and placement).
pub fn render_alloc(out: &mut String, a: &AllocReport) {
    cell_title(
        out,
        "Allocation and page placement",
        &format!(
            "{} executions of {} measurements per configuration, in a random order, seed {}",
            a.executions_per_config, a.measurements_per_execution, a.schedule_seed
        ),
    );
    if a.partial {
        let _ = writeln!(
            out,
            "   partial run: the collector was stopped before it finished; only finished executions are shown"
        );
    }
    match (&a.colour_cache, a.colours) {
        (Some(cc), Some(n)) => {
            let _ = writeln!(
                out,
                "   page colours: {n}, from the L{} cache ({}, {}-way, {}-byte lines)",
                cc.level,
                cc.size_bytes
                    .map(fmt_bytes)
                    .unwrap_or_else(|| "size unknown".into()),
                cc.ways.map(|w| w.to_string()).unwrap_or_else(|| "?".into()),
                cc.line_bytes
                    .map(|l| l.to_string())
                    .unwrap_or_else(|| "?".into())
            );
        }
        _ => {
            let _ = writeln!(out, "   page colours: none (frame numbers hidden)");
        }
    }
    let _ = writeln!(
        out,
        "   strategies: {}; {} groups (same workload, size and allocator)",
        a.strategies.join(", "),
        a.groups
    );
    ranking(
        out,
        &a.mean_ranking,
        "Mean time: % of groups in which each strategy ranks first (Figure 6)",
        pct,
    );
    ranking(
        out,
        &a.impact_ranking,
        "Impact factor: % of groups in which each strategy ranks first (Figure 8)",
        pct,
    );
    subtitle(
        out,
        "Time ratios: geometric mean over groups of mean(strategy) / mean(default_4k); below 1 is faster",
    );
    let mut t = Table::new(&["strategy", "time ratio", "groups"]);
    for r in &a.time_ratios {
        t.row(vec![
            r.strategy.clone(),
            r.geometric_mean.map(factor).unwrap_or_else(|| "—".into()),
            r.groups.to_string(),
        ]);
    }
    t.render(out);

    subtitle(
        out,
        &format!(
            "Configurations ({}): mean over executions with its hierarchical bootstrap CI, and the ratio to default_4k with its CI",
            a.configs.len()
        ),
    );
    let mut t = Table::new(&[
        "workload",
        "size",
        "strategy",
        "allocator",
        "executions",
        "mean",
        "× default_4k",
    ]);
    for c in &a.configs {
        let mut row = config_key(c);
        if !c.available {
            row.push(format!(
                "not run: {}",
                c.unavailable_reason
                    .as_deref()
                    .unwrap_or("no reason recorded")
            ));
            t.row(row);
            continue;
        }
        let s = c.stats.as_ref();
        let mean = s.and_then(|s| s.mean_hierarchical.as_ref().or(s.mean_bootstrap.as_ref()));
        row.push(if c.executions_failed > 0 {
            format!("{} ok, {} failed", c.executions_ok, c.executions_failed)
        } else {
            format!("{} ok", c.executions_ok)
        });
        row.push(if c.unit == "ns" {
            ns_ci(mean)
        } else {
            ci_with(mean, |v| format!("{} {}", sig(v, 4), c.unit))
        });
        row.push(ci_with(c.ratio_to_baseline.as_ref(), factor));
        t.row(row);
    }
    t.render(out);
    for c in a.configs.iter().filter(|c| !c.failures.is_empty()) {
        let failures: Vec<String> = c
            .failures
            .iter()
            .map(|(m, n)| format!("{n}× {m}"))
            .collect();
        let _ = writeln!(
            out,
            "   failed executions of {}: {}",
            config_key(c).join(" "),
            failures.join("; ")
        );
    }

    subtitle(
        out,
        "Configurations: CV within executions, huge pages, and pages per cache colour over all executions",
    );
    let mut t = Table::new(&[
        "workload",
        "size",
        "strategy",
        "allocator",
        "CV within",
        "huge pages",
        "pages per colour",
    ]);
    for c in a.configs.iter().filter(|c| c.available) {
        let mut row = config_key(c);
        let s = c.stats.as_ref();
        row.push(ci_with(s.and_then(|s| s.cv_within.as_ref()), pct));
        row.push(c.huge_page_share.map(pct).unwrap_or_else(|| "—".into()));
        row.push(colours_text(c));
        t.row(row);
    }
    t.render(out);
    render_impact(
        out,
        &["workload", "size", "strategy", "allocator"],
        a.configs
            .iter()
            .filter(|c| c.available)
            .filter_map(|c| Some((config_key(c), c.stats.as_ref()?)))
            .collect(),
    );
}

/// Workload, size (× cache, bytes), strategy and allocator.
fn config_key(c: &ConfigRow) -> Vec<String> {
    vec![
        c.workload.clone(),
        format!(
            "{}×{} ({})",
            sig(c.size_factor, 2),
            c.cache,
            fmt_bytes(c.working_set_bytes)
        ),
        c.strategy.clone(),
        c.allocator.clone(),
    ]
}

/// The colour histogram condensed: colours, the fewest and most pages on
/// one colour (flat = evenly spread) and the pages off the wanted colour.
fn colours_text(c: &ConfigRow) -> String {
    let h = &c.colour_histogram;
    if h.is_empty() {
        return "—".into();
    }
    let min = h.iter().min().copied().unwrap_or(0);
    let max = h.iter().max().copied().unwrap_or(0);
    let pages: u64 = h.iter().sum();
    let misses = c
        .colour_misses
        .map(|m| format!(", {m} misses"))
        .unwrap_or_default();
    format!("{min}–{max} on {} colours ({pages} pages{misses})", h.len())
}

/// A ranking table: thresholds down, strategies across, % of groups first.
fn ranking(out: &mut String, r: &RankingTable, title: &str, threshold: fn(f64) -> String) {
    subtitle(
        out,
        &format!("{title}; {} groups with two or more strategies", r.groups),
    );
    let mut head = vec!["threshold"];
    head.extend(r.strategies.iter().map(String::as_str));
    let mut t = Table::new(&head);
    for (ti, th) in r.thresholds.iter().enumerate() {
        let mut row = vec![threshold(*th)];
        for si in 0..r.strategies.len() {
            row.push(
                r.first_percent
                    .get(ti)
                    .and_then(|x| x.get(si))
                    .map(|p| format!("{}%", sig(*p, 3)))
                    .unwrap_or_else(|| "—".into()),
            );
        }
        t.row(row);
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

/// The Bottlenecks cell (MTOOL): the share of time explained, every region
/// with its L1 prediction and overhead, the jumps at the cache boundaries
/// and the operation costs the predictions use.
pub fn render_bottleneck(out: &mut String, b: &BottleneckReport) {
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
