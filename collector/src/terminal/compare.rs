//! `tickbook analyze --compare` in the terminal: the page's Comparison cell
//! (web/src/across/compare/cell.js) as tables — the files, then per suite each item's
//! estimate in every file and each file against the baseline, the geometric
//! mean of the ratios, then the pooled executions — and the same rows as a
//! Markdown table (`--format md`) or CSV (`--format csv`). `--json` has every
//! field. Formatting only: every number and verdict comes from the analysis.

use super::numbers::{ci_with, factor, level, pct, sig};
use super::table::{cell_title, csv, csv_num as num, json_word, md, subtitle, Table};
use std::fmt::Write as _;
use tickbook_analysis::report::compare::{
    ItemComparison, PairComparison, Rule, SuiteComparison, Verdict,
};
use tickbook_analysis::report::ComparisonReport;
use tickbook_analysis::stats::compare::Est;
use tickbook_analysis::units::Quantity;

/// A, B, …, Z, then F27, F28, … (the page's letters).
pub(crate) fn letter(i: usize) -> String {
    match u8::try_from(i) {
        Ok(n) if n < 26 => char::from(b'A' + n).to_string(),
        _ => format!("F{}", i + 1),
    }
}

/// The scale an item's values are shown in: (size of the shown unit in the
/// item's unit, its name), chosen by `x`.
fn scale(x: f64, item: &ItemComparison) -> (f64, String) {
    let a = x.abs();
    if let Some(k) = item.unit_ns {
        let ns = a * k;
        let (s, u) = if ns >= 1e9 {
            (1e9, "s")
        } else if ns >= 1e6 {
            (1e6, "ms")
        } else if ns >= 1e3 {
            (1e3, "µs")
        } else {
            (1.0, "ns")
        };
        return (s / k, u.to_string());
    }
    if let Some(k) = item.unit_bytes {
        let b = a * k;
        let (s, u) = if b >= 1073741824.0 {
            (1073741824.0, "GiB")
        } else if b >= 1048576.0 {
            (1048576.0, "MiB")
        } else if b >= 1024.0 {
            (1024.0, "KiB")
        } else {
            (1.0, "B")
        };
        return (s / k, u.to_string());
    }
    (1.0, item.unit.clone())
}

/// Decimals that show `x` to four significant digits and, when given, an
/// interval's nearer half-width to two, so an interval never prints as a
/// point it is not (`0.0000 [0.0000, 0.0000]`).
fn decimals(x: f64, half: Option<f64>) -> usize {
    // A hair over, so a power of ten that subtraction left just below it
    // (1 − 0.99999) counts as that power.
    let mag = |v: f64| (v.abs().log10() + 1e-9).floor() as i32;
    let mut d = if x != 0.0 && x.is_finite() {
        (3 - mag(x)).max(0)
    } else {
        0
    };
    if let Some(h) = half.filter(|h| *h > 0.0 && h.is_finite()) {
        d = d.max(1 - mag(h));
    }
    d.clamp(0, 12) as usize
}

/// `estimate unit [lo, hi]`: scaled by the estimate, the ends in its unit
/// to the same decimals.
pub(crate) fn est_text(e: Option<&Est>, item: &ItemComparison) -> String {
    let Some(e) = e else { return "—".into() };
    let (s, unit) = scale(e.estimate, item);
    let (x, lo, hi) = (e.estimate / s, e.lo / s, e.hi / s);
    let half = (x - lo).min(hi - x);
    let half = if half > 0.0 {
        half
    } else {
        (x - lo).max(hi - x)
    };
    let d = decimals(x, Some(half));
    format!("{x:.d$} {unit} [{lo:.d$}, {hi:.d$}]")
}

/// A ratio with its CI, four significant digits and enough for the CI.
pub(crate) fn ratio_text(p: Option<&PairComparison>) -> String {
    let Some(c) = p.and_then(|p| p.ratio.as_ref()) else {
        return "—".into();
    };
    if c.hi >= super::numbers::UNBOUNDED {
        return ci_with(Some(c), factor);
    }
    let half = (c.estimate - c.lo).min(c.hi - c.estimate);
    let half = if half > 0.0 {
        half
    } else {
        (c.estimate - c.lo).max(c.hi - c.estimate)
    };
    let d = decimals(c.estimate, Some(half));
    format!("{:.d$}× [{:.d$}, {:.d$}]", c.estimate, c.lo, c.hi)
}

/// The rank test's p-value as compare.py prints it (four decimals), small
/// ones in exponent form.
pub(crate) fn p_text(p: Option<&PairComparison>) -> String {
    match p.and_then(|p| p.test.as_ref()) {
        Some(t) if t.p_value < 1e-4 => format!("{:.1e}", t.p_value),
        Some(t) => format!("{:.4}", t.p_value),
        None => "—".into(),
    }
}

/// Words for a lower and a higher value of `q`.
fn words(q: Quantity) -> (&'static str, &'static str) {
    match q {
        Quantity::Time => ("faster", "slower"),
        Quantity::Memory => ("smaller", "larger"),
        Quantity::Other => ("less", "more"),
    }
}

/// The verdict in words, from the compared file's side: `B slower by
/// 12.3%`, `same`, `only in A`, ….
pub(crate) fn verdict_text(p: Option<&PairComparison>, item: &ItemComparison) -> String {
    match p {
        Some(p) => verdict_words(p, item, &letter),
        None => "no estimate".into(),
    }
}

/// The verdict in words with the sides named by `name` (a file's letter, a
/// series' name).
pub(crate) fn verdict_words(
    p: &PairComparison,
    item: &ItemComparison,
    name: &dyn Fn(usize) -> String,
) -> String {
    let (low, high) = words(item.quantity);
    // `B slower by 12.3%`; from twice on as a factor, `B 31.9× faster`.
    let direction = || {
        let who = name(p.file);
        let word = if p.lower == Some(p.file) { low } else { high };
        match p.relative_difference {
            Some(d) if d >= 1.0 => format!("{who} {} {word}", factor(1.0 + d)),
            Some(d) => format!("{who} {word} by {}", pct(d)),
            None => format!("{who} {word}"),
        }
    };
    match p.verdict {
        Verdict::Different => direction(),
        Verdict::WithinThreshold => format!("within threshold: {}", direction()),
        Verdict::Same => "same".into(),
        Verdict::Unclear => match p.rule {
            Some(Rule::RankTest) => "unclear: the rank test and the ratio CI disagree".into(),
            _ => "unclear: the CIs overlap but the ratio CI excludes 1, or the reverse".into(),
        },
        Verdict::Missing => match p.missing_from {
            Some(f) if f == p.file => format!("only in {}", name(p.baseline)),
            Some(_) => format!("only in {}", name(p.file)),
            None => "missing".into(),
        },
        Verdict::NoEstimate => "no estimate".into(),
    }
}

/// The items a table shows: all, or with `only_different` those with a
/// `different` verdict.
pub(crate) fn shown(s: &SuiteComparison, only_different: bool) -> Vec<&ItemComparison> {
    s.items
        .iter()
        .filter(|it| {
            !only_different
                || it
                    .against_baseline
                    .iter()
                    .any(|p| p.verdict == Verdict::Different)
        })
        .collect()
}

/// The suite's heading line.
fn suite_line(s: &SuiteComparison, base: usize) -> String {
    let mut line = format!(
        "{}: {} · baseline {} · {} of {} items different",
        s.suite,
        s.statistic,
        letter(base),
        s.different,
        s.items.len()
    );
    if s.warm_ups_left_out > 0 {
        let _ = write!(
            line,
            " · {} warm-up series left out (--warm-ups compares them)",
            s.warm_ups_left_out
        );
    }
    line
}

/// The geometric means of the suite, one line per other file.
fn geomean_lines(s: &SuiteComparison) -> Vec<String> {
    s.geomean
        .iter()
        .map(|g| match &g.ratio {
            Some(_) => format!(
                "geometric mean of {} / {} over {} time-like items: {}",
                letter(g.file),
                letter(g.baseline),
                g.items,
                ratio_text(Some(&PairComparison {
                    file: g.file,
                    baseline: g.baseline,
                    ratio: g.ratio.clone(),
                    relative_difference: None,
                    verdict: Verdict::Same,
                    rule: None,
                    test: None,
                    lower: None,
                    faster: None,
                    missing_from: None,
                }))
            ),
            None => format!(
                "geometric mean of {} / {}: no time-like item in both",
                letter(g.file),
                letter(g.baseline)
            ),
        })
        .collect()
}

/// The comparison as text: the files with their letters, each suite's items
/// against the baseline file, then the pooled executions. The caller escapes
/// control characters (`clean_lines`).
pub(crate) fn render(r: &ComparisonReport, only_different: bool) -> String {
    let mut out = String::new();
    let conf = r.options.bootstrap.confidence;
    cell_title(
        &mut out,
        "Comparison",
        &format!(
            "{} files; each estimate with its {} CI, each file against the baseline as a ratio with a bootstrap CI; a difference is shown by disjoint CIs (executions) or a Mann–Whitney U test at p < {} (one process), agreeing with the ratio CI; different when above {}",
            r.files.len(),
            level(conf),
            sig(1.0 - conf, 2),
            level(r.options.threshold)
        ),
    );
    let mut t = Table::new(&["", "file", "host", "started", "suites"]);
    for (i, f) in r.files.iter().enumerate() {
        if f.ok {
            t.row(vec![
                letter(i),
                f.name.clone(),
                f.host.clone().unwrap_or_else(|| "—".into()),
                f.started_at.clone().unwrap_or_else(|| "—".into()),
                f.suites.join(", "),
            ]);
        } else {
            t.row(vec![
                letter(i),
                f.name.clone(),
                format!("unreadable: {}", f.error.as_deref().unwrap_or("no reason")),
            ]);
        }
    }
    t.render(&mut out);
    if r.suites.is_empty() {
        let _ = writeln!(
            out,
            "   No suite is present in two or more readable files: nothing to compare."
        );
    }
    for s in &r.suites {
        let Some(&base) = s.files.first() else {
            continue;
        };
        subtitle(&mut out, &suite_line(s, base));
        let mut heads = vec!["item".to_string(), format!("{} (baseline)", letter(base))];
        for &f in &s.files[1..] {
            heads.push(letter(f));
            heads.push(format!("{} / {}", letter(f), letter(base)));
            heads.push(format!("p {}", letter(f)));
            heads.push(format!("verdict {}", letter(f)));
        }
        let head: Vec<&str> = heads.iter().map(String::as_str).collect();
        let mut t = Table::new(&head);
        let items = shown(s, only_different);
        for it in &items {
            let mut row = vec![
                it.key.clone(),
                est_text(it.values.first().and_then(Option::as_ref), it),
            ];
            for k in 1..s.files.len() {
                let p = it.against_baseline.get(k - 1);
                row.push(est_text(it.values.get(k).and_then(Option::as_ref), it));
                row.push(ratio_text(p));
                row.push(p_text(p));
                row.push(verdict_text(p, it));
            }
            t.row(row);
        }
        if items.is_empty() {
            let _ = writeln!(out, "   No item is different.");
        } else {
            t.render(&mut out);
        }
        for line in geomean_lines(s) {
            let _ = writeln!(out, "   {line}");
        }
    }
    if r.pooling {
        render_pooled(&mut out, r);
    }
    out
}

fn render_pooled(out: &mut String, r: &ComparisonReport) {
    if r.pooled.is_empty() {
        subtitle(
            out,
            "Pooled executions: no configuration appears in two or more files of the same host",
        );
        return;
    }
    subtitle(
        out,
        "Pooled executions of the same configuration on the same host, analysed as one set",
    );
    let mut t = Table::new(&[
        "suite",
        "item",
        "host",
        "files pooled",
        "executions",
        "mean [CI]",
        "CV within",
        "impact factor",
    ]);
    for p in &r.pooled {
        let s = p.stats.as_ref();
        let item = ItemComparison {
            key: p.key.clone(),
            unit: p.unit.clone(),
            unit_ns: p.unit_ns,
            unit_bytes: tickbook_analysis::units::bytes_per_unit(&p.unit),
            quantity: tickbook_analysis::units::quantity(&p.unit),
            warm_up: false,
            values: Vec::new(),
            against_baseline: Vec::new(),
        };
        let mean = match s.and_then(|s| s.random_effects.as_ref()) {
            Some(re) => match re.ci {
                Some((lo, hi)) => est_text(
                    Some(&Est {
                        estimate: re.mean,
                        lo,
                        hi,
                    }),
                    &item,
                ),
                None => est_text(
                    Some(&Est {
                        estimate: re.mean,
                        lo: re.mean,
                        hi: re.mean,
                    }),
                    &item,
                ),
            },
            None => match s.and_then(|s| s.mean_bootstrap.as_ref()) {
                Some(c) => est_text(
                    Some(&Est {
                        estimate: c.estimate,
                        lo: c.lo,
                        hi: c.hi,
                    }),
                    &item,
                ),
                None => "—".into(),
            },
        };
        t.row(vec![
            p.suite.clone(),
            p.key.clone(),
            p.host.clone().unwrap_or_else(|| "—".into()),
            p.files
                .iter()
                .zip(&p.executions_per_file)
                .map(|(f, n)| format!("{} ({n})", letter(*f)))
                .collect::<Vec<_>>()
                .join(", "),
            s.map(|s| s.executions.to_string())
                .unwrap_or_else(|| "—".into()),
            mean,
            ci_with(s.and_then(|s| s.cv_within.as_ref()), pct),
            ci_with(s.and_then(|s| s.impact_factor.as_ref()), factor),
        ]);
    }
    t.render(out);
}

/// The comparison as Markdown: the files, then per suite a table of items
/// with values and ratios as `estimate unit [lo, hi]`, p and the verdict.
pub(crate) fn render_markdown(r: &ComparisonReport, only_different: bool) -> String {
    let mut out = String::new();
    let conf = r.options.bootstrap.confidence;
    let _ = writeln!(out, "## Comparison\n");
    for (i, f) in r.files.iter().enumerate() {
        let _ = writeln!(
            out,
            "- **{}**: `{}`{}",
            letter(i),
            md(&f.name),
            if f.ok {
                String::new()
            } else {
                format!(" (unreadable: {})", md(f.error.as_deref().unwrap_or("")))
            }
        );
    }
    let _ = writeln!(
        out,
        "\nEstimates with their {} CI; ratios to the baseline with a bootstrap CI; p from a two-sided Mann–Whitney U test where both sides come from one process; different when shown (p < {} or disjoint CIs), the ratio CI agreeing, and above {}.",
        level(conf),
        sig(1.0 - conf, 2),
        level(r.options.threshold)
    );
    for s in &r.suites {
        let Some(&base) = s.files.first() else {
            continue;
        };
        let _ = writeln!(out, "\n### {}\n", md(&suite_line(s, base)));
        for line in geomean_lines(s) {
            let _ = writeln!(out, "{}  ", md(&line));
        }
        let mut head = vec!["item".to_string(), format!("{} (baseline)", letter(base))];
        for &f in &s.files[1..] {
            head.push(letter(f));
            head.push(format!("{} / {}", letter(f), letter(base)));
            head.push("p".into());
            head.push("verdict".into());
        }
        let items = shown(s, only_different);
        if items.is_empty() {
            let _ = writeln!(out, "\nNo item is different.");
            continue;
        }
        let _ = writeln!(out, "\n| {} |", head.join(" | "));
        let aligns: Vec<&str> = head
            .iter()
            .map(|h| {
                if h == "item" || h == "verdict" {
                    "---"
                } else {
                    "---:"
                }
            })
            .collect();
        let _ = writeln!(out, "| {} |", aligns.join(" | "));
        for it in items {
            let mut row = vec![
                md(&it.key),
                md(&est_text(it.values.first().and_then(Option::as_ref), it)),
            ];
            for k in 1..s.files.len() {
                let p = it.against_baseline.get(k - 1);
                row.push(md(&est_text(it.values.get(k).and_then(Option::as_ref), it)));
                row.push(md(&ratio_text(p)));
                row.push(p_text(p));
                row.push(md(&verdict_text(p, it)));
            }
            let _ = writeln!(out, "| {} |", row.join(" | "));
        }
    }
    out
}

/// The comparison as CSV, one row per item and compared file, numbers in
/// the item's unit at full precision.
pub(crate) fn render_csv(r: &ComparisonReport, only_different: bool) -> String {
    let mut out = String::from(
        "suite,item,unit,quantity,baseline,file,baseline_estimate,baseline_lo,baseline_hi,estimate,lo,hi,ratio,ratio_lo,ratio_hi,p_value,rule,verdict,relative_difference,lower\n",
    );
    for s in &r.suites {
        for it in shown(s, only_different) {
            let base = it.values.first().copied().flatten();
            for (k, p) in it.against_baseline.iter().enumerate() {
                let v = it.values.get(k + 1).copied().flatten();
                let name = |i: usize| r.files.get(i).map(|f| f.name.as_str()).unwrap_or("");
                let fields = [
                    csv(&s.suite),
                    csv(&it.key),
                    csv(&it.unit),
                    json_word(serde_json::to_value(it.quantity)),
                    csv(name(p.baseline)),
                    csv(name(p.file)),
                    num(base.map(|e| e.estimate)),
                    num(base.map(|e| e.lo)),
                    num(base.map(|e| e.hi)),
                    num(v.map(|e| e.estimate)),
                    num(v.map(|e| e.lo)),
                    num(v.map(|e| e.hi)),
                    num(p.ratio.as_ref().map(|c| c.estimate)),
                    num(p.ratio.as_ref().map(|c| c.lo)),
                    num(p.ratio.as_ref().map(|c| c.hi)),
                    num(p.test.map(|t| t.p_value)),
                    p.rule
                        .map(|r| json_word(serde_json::to_value(r)))
                        .unwrap_or_default(),
                    json_word(serde_json::to_value(p.verdict)),
                    num(p.relative_difference),
                    p.lower.map(|i| csv(name(i))).unwrap_or_default(),
                ];
                let _ = writeln!(out, "{}", fields.join(","));
            }
        }
    }
    out
}

/// The items `--fail-if-slower PCT` trips on (the rule is the analysis'
/// `ComparisonReport::slower_than`), one line each: suite, item, file and
/// ratio.
pub(crate) fn slower_than(r: &ComparisonReport, share: f64) -> Vec<String> {
    r.slower_than(share)
        .into_iter()
        .map(|s| {
            format!(
                "{}: {} is {} slower than {} (ratio {})",
                s.suite.suite,
                s.item.key,
                letter(s.pair.file),
                letter(s.pair.baseline),
                ratio_text(Some(s.pair))
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(unit: &str) -> ItemComparison {
        ItemComparison {
            key: "k".into(),
            unit: unit.into(),
            unit_ns: tickbook_analysis::units::ns_per_unit(unit),
            unit_bytes: tickbook_analysis::units::bytes_per_unit(unit),
            quantity: tickbook_analysis::units::quantity(unit),
            warm_up: false,
            values: Vec::new(),
            against_baseline: Vec::new(),
        }
    }

    fn e(estimate: f64, lo: f64, hi: f64) -> Est {
        Est { estimate, lo, hi }
    }

    #[test]
    fn values_are_scaled_and_keep_their_uncertainty() {
        // pyperf's seconds: 81.6 ns, not 0.0000 s.
        assert_eq!(
            est_text(Some(&e(8.16e-8, 8.11e-8, 8.22e-8)), &item("s")),
            "81.60 ns [81.10, 82.20]"
        );
        // A CI narrower than four digits gets the digits it needs.
        assert_eq!(
            est_text(Some(&e(1.0, 0.99999, 1.00002)), &item("ms")),
            "1.000000 ms [0.999990, 1.000020]"
        );
        // hyperfine's max RSS in bytes.
        assert_eq!(
            est_text(Some(&e(3227648.0, 3200000.0, 3250000.0)), &item("bytes")),
            "3.078 MiB [3.052, 3.099]"
        );
        assert_eq!(
            est_text(Some(&e(12.5, 12.0, 13.0)), &item("count")),
            "12.50 count [12.00, 13.00]"
        );
    }

    #[test]
    fn words_follow_the_quantity() {
        let mut p = PairComparison {
            file: 1,
            baseline: 0,
            ratio: None,
            relative_difference: Some(0.25),
            verdict: Verdict::Different,
            rule: Some(Rule::RankTest),
            test: None,
            lower: Some(0),
            faster: None,
            missing_from: None,
        };
        assert_eq!(verdict_text(Some(&p), &item("bytes")), "B larger by 25.0%");
        assert_eq!(verdict_text(Some(&p), &item("ns")), "B slower by 25.0%");
        p.lower = Some(1);
        assert_eq!(verdict_text(Some(&p), &item("bytes")), "B smaller by 25.0%");
        assert_eq!(verdict_text(Some(&p), &item("count")), "B less by 25.0%");
        p.relative_difference = Some(30.96);
        assert_eq!(verdict_text(Some(&p), &item("ns")), "B 32.0× faster");
        p.verdict = Verdict::Missing;
        p.missing_from = Some(1);
        assert_eq!(verdict_text(Some(&p), &item("ns")), "only in A");
    }
}
