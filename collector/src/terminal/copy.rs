//! The Copy cell in the terminal (the ArrayCopyTest3 benchmark): the page's
//! heat maps as one table per length, then the flagged cases; `--json` has
//! every field.

use super::numbers::{factor, fmt_bytes, fmt_ns, mark, ns_ci, pct};
use super::table::{cell_title, subtitle, Table};
use std::fmt::Write as _;
use tickbook_analysis::report::CopyReport;

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
pub(crate) fn render(out: &mut String, c: &CopyReport) {
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
