//! `tickbook analyze --campaign` in the terminal: the files grouped by
//! machine, then per suite each item's machines side by side and its
//! variance split into machine, execution and measurement components, with
//! the impact factor of each level with its interval and the F test's
//! p-value of "the level adds nothing", and the cheapest campaign for 1 %.
//! Formatting only: every number comes from the analysis.

use super::numbers::{factor, fmt_ns, pct, sig};
use super::table::{cell_title, subtitle, Table};
use std::fmt::Write as _;
use tickbook_analysis::report::campaign::{CampaignItem, CampaignReport};
use tickbook_analysis::stats::levels::Level;

/// A value in the item's unit: durations scaled, others with four digits.
fn value(x: f64, it: &CampaignItem) -> String {
    match it.unit_ns {
        Some(k) => fmt_ns(x * k),
        None => format!("{} {}", sig(x, 4), it.unit),
    }
}

fn machine_cell(it: &CampaignItem, m: usize) -> String {
    let Some(Some(v)) = it.machines.get(m) else {
        return "—".into();
    };
    let ci = match v.ci {
        Some((lo, hi)) => format!(" [{}, {}]", sig(lo, 4), sig(hi, 4)),
        None => String::new(),
    };
    let out = if v.stands_out == Some(true) {
        " stands out"
    } else {
        ""
    };
    format!("{}{ci} ({}×){out}", value(v.mean, it), v.executions)
}

fn share(l: &Level) -> String {
    match (l.share, &l.t_sq_ci) {
        (Some(s), _) => pct(s),
        _ => "—".into(),
    }
}

fn impact(l: &Level) -> String {
    let f = match (&l.impact_ci, l.impact) {
        (Some(c), _) => format!(
            "{} [{}, {}]",
            factor(c.estimate),
            factor(c.lo),
            factor(c.hi)
        ),
        (None, Some(f)) => factor(f),
        _ => return "—".into(),
    };
    match l.p_value {
        Some(p) => format!("{f}, p = {}", sig(p, 2)),
        None => f,
    }
}

pub(crate) fn render(r: &CampaignReport) -> String {
    let mut out = String::new();
    let read = r.files.iter().filter(|f| f.ok).count();
    cell_title(
        &mut out,
        "Campaign",
        &format!("{read} files from {} machines", r.machines.len()),
    );
    let mut t = Table::new(&["machine", "files"]);
    for (m, name) in r.machines.iter().enumerate() {
        let n = r.files.iter().filter(|f| f.machine == Some(m)).count();
        t.row(vec![name.clone(), n.to_string()]);
    }
    t.render(&mut out);
    for f in r.files.iter().filter(|f| !f.ok) {
        let _ = writeln!(
            out,
            "   unreadable: {}",
            f.error.as_deref().unwrap_or(&f.name)
        );
    }
    for s in &r.suites {
        subtitle(&mut out, &format!("{}: machines side by side", s.suite));
        let mut header: Vec<&str> = vec!["item"];
        header.extend(r.machines.iter().map(String::as_str));
        // Machine columns hold "mean [CI] (executions×)": left-aligned text.
        let mut t = (1..=r.machines.len()).fold(Table::new(&header), Table::text);
        for it in &s.items {
            let mut row = vec![it.key.clone()];
            row.extend((0..r.machines.len()).map(|m| machine_cell(it, m)));
            t.row(row);
        }
        t.render(&mut out);
        subtitle(
            &mut out,
            &format!(
                "{}: variance split (share of one measurement's variance) and impact factors",
                s.suite
            ),
        );
        let mut t = Table::new(&[
            "item",
            "within executions",
            "between executions",
            "between machines",
            "impact: executions [CI], p",
            "impact: machines [CI], p",
            "for ±1 % (machine = 10 executions; optimum range)",
        ]);
        for it in &s.items {
            let Some(c) = &it.components else {
                t.row(vec![
                    it.key.clone(),
                    "no estimate: an empty machine or execution".into(),
                ]);
                continue;
            };
            // MACHINE_COSTS × PLAN_TARGETS, cost-major: cost 10, target 1 %.
            let plan = it
                .plans
                .iter()
                .find(|p| p.machine_cost == 10.0 && p.rel_half_width == 0.01);
            let plan = match plan {
                Some(p) => match (p.machines, p.executions_per_machine) {
                    (Some(m), Some(e)) => match p.executions_per_machine_range {
                        Some((lo, Some(hi))) => format!("{m} machines × {e} ({lo}–{hi})"),
                        Some((lo, None)) => format!("{m} machines × {e} ({lo}–∞)"),
                        None => format!("{m} machines × {e}"),
                    },
                    (Some(m), None) => format!("{m} machines (any split)"),
                    _ => "—".into(),
                },
                None => "—".into(),
            };
            t.row(vec![
                it.key.clone(),
                share(&c.levels[0]),
                share(&c.levels[1]),
                share(&c.levels[2]),
                impact(&c.levels[1]),
                impact(&c.levels[2]),
                plan,
            ]);
        }
        t.render(&mut out);
        let _ = writeln!(
            out,
            "   p: the F test of \"the level adds nothing\"; the factors' CIs from the F distribution (exact when balanced)"
        );
        if let Some(note) = s.items.iter().find_map(|i| i.components.as_ref()?.ci_note) {
            let _ = writeln!(out, "   ({note})");
        }
    }
    out
}
