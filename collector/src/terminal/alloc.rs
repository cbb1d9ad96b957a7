//! The Allocation and page placement cell in the terminal (the alloc
//! suite, after Hocko and Kalibera): the rankings of the placement
//! strategies, the time ratios and every configuration, the page's charts
//! condensed to tables; `--json` has every field.

use super::executions::render_impact;
use super::numbers::{ci_with, factor, fmt_bytes, ns_ci, pct, sig};
use super::table::{cell_title, subtitle, Table};
use std::fmt::Write as _;
use tickbook_analysis::report::{AllocReport, ConfigRow, RankingTable};

/// The Allocation cell: the rankings of the strategies by mean time and by
/// impact factor (Hocko and Kalibera's Figures 6 and 8), the geometric-mean time
/// ratios, and every configuration (time, then variation and placement).
pub(crate) fn render(out: &mut String, a: &AllocReport) {
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
