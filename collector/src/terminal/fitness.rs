//! The file's fitness: whether the machine was fit to measure on while the
//! run collected (`tickbook_analysis::fitness`), shown first, before the
//! cells; `tickbook doctor` prints the same table.

use std::fmt::Write as _;
use tickbook_analysis::fitness::{Fitness, Level};
use tickbook_analysis::format::Environment;

use super::numbers::sig;
use super::table::{cell_title, clean, subtitle, Table};

pub(crate) fn level_word(l: Level) -> &'static str {
    match l {
        Level::Unknown => "unknown",
        Level::Fine => "fine",
        Level::Disturbed => "disturbed",
        Level::Unfit => "unfit",
    }
}

/// Every configuration check with its value (or why it is unreadable) and
/// the command that would make it quiet.
pub(crate) fn render_checks(out: &mut String, env: &Environment) {
    cell_title(out, "Configuration", "checked now");
    let mut t = Table::new(&["check", "quiet", "value"]).text(2);
    for c in &env.checks {
        let quiet = match c.quiet {
            Some(true) => "yes",
            Some(false) => "no",
            None => "—",
        };
        let value = match (&c.value, &c.not_readable) {
            (Some(_), _) => c.meaning.clone(),
            (None, why) => format!(
                "not readable: {}",
                why.as_deref().unwrap_or("no reason recorded")
            ),
        };
        t.row(vec![c.name.clone(), quiet.to_string(), value]);
        if let Some(ch) = &c.change {
            t.row(vec![String::new(), String::new(), format!("change: {ch}")]);
        }
    }
    t.render(out);
    for n in &env.notes {
        let _ = writeln!(out, "   note: {}", clean(n));
    }
}

/// What to do about each finding that is not fine.
pub(crate) fn render_advice(out: &mut String, f: &Fitness) {
    let advice: Vec<String> = f
        .findings
        .iter()
        .filter_map(|x| {
            x.advice
                .map(|a| format!("   {} ({}): {a}", x.signal, level_word(x.level)))
        })
        .collect();
    if advice.is_empty() {
        let _ = writeln!(
            out,
            "\n   {}",
            if f.verdict == Level::Fine {
                "nothing measured disturbs timing now"
            } else {
                "nothing could be measured; see the reasons above"
            }
        );
    } else {
        subtitle(out, "advice");
        for a in advice {
            let _ = writeln!(out, "{}", clean(&a));
        }
    }
}

/// The Fitness table, and the configuration that may disturb unless
/// `configuration` is false (`doctor` prints every check before it).
pub(crate) fn render(out: &mut String, f: &Fitness, configuration: bool) {
    let cpu = f
        .measuring_cpu
        .map(|c| format!(", measuring CPU {c}"))
        .unwrap_or_default();
    cell_title(
        out,
        "Fitness",
        &format!("{} over {} s{cpu}", level_word(f.verdict), sig(f.span_s, 3)),
    );
    let mut t = Table::new(&["signal", "level", "figure", "unit", "finding"]).text(4);
    for x in &f.findings {
        match x.figure {
            Some(v) => {
                let mut text = x.text.clone();
                if let Some(w) = &x.worst {
                    let _ = write!(
                        text,
                        "; worst {} ({} {})",
                        w.interval,
                        sig(w.figure, 3),
                        x.unit
                    );
                }
                t.row(vec![
                    x.signal.to_string(),
                    level_word(x.level).to_string(),
                    sig(v, 3),
                    x.unit.to_string(),
                    text,
                ]);
            }
            None => t.row(vec![
                x.signal.to_string(),
                level_word(x.level).to_string(),
                format!(
                    "not measured: {}",
                    x.reason.as_deref().unwrap_or("no reason recorded")
                ),
            ]),
        }
    }
    t.render(out);
    let clock: Vec<String> = f
        .core_clock_ghz
        .iter()
        .filter_map(|(at, g)| g.map(|g| format!("{at} {} GHz", sig(g, 4))))
        .collect();
    if !clock.is_empty() {
        let _ = writeln!(out, "   core clock: {}", clean(&clock.join(" | ")));
    }
    if configuration && !f.configuration.is_empty() {
        subtitle(out, "configuration that may disturb timing");
        for c in &f.configuration {
            match (&c.value, &c.not_readable) {
                (Some(_), _) => {
                    let _ = writeln!(out, "   {}: {}", c.name, clean(&c.meaning));
                    if let Some(ch) = &c.change {
                        let _ = writeln!(out, "      change: {}", clean(ch));
                    }
                }
                (None, why) => {
                    let _ = writeln!(
                        out,
                        "   {}: not readable: {}",
                        c.name,
                        clean(why.as_deref().unwrap_or("no reason recorded"))
                    );
                }
            }
        }
    }
}
