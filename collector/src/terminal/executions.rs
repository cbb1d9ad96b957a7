//! The impact factor table (variation between executions against within
//! one, after Hocko and Kalibera), shared by the Samples and Allocation
//! cells.

use super::numbers::{ci_with, factor, sig};
use super::table::{subtitle, Table};
use tickbook_analysis::report::ExecutionStats;

/// The impact factor of each row that has one (1 = no execution effect)
/// against the same data with the measurements shuffled across executions
/// (the p-value and the factor's central range over the shuffles, "noise
/// alone"), and the paper's statistic beside its value on the shuffles.
/// `key` heads the columns naming a row; the Samples and Allocation cells
/// share this table.
pub(crate) fn render_impact(
    out: &mut String,
    key: &[&str],
    rows: Vec<(Vec<String>, &ExecutionStats)>,
) {
    let rows: Vec<_> = rows
        .into_iter()
        .filter_map(|(k, e)| Some((k, e, e.impact_factor.as_ref()?, e.impact_null.as_ref()?)))
        .collect();
    if rows.is_empty() {
        return;
    }
    subtitle(
        out,
        "Impact factor: sqrt(variance across executions / within one), 1 = no execution effect; p = share of shuffles of the measurements across executions (no execution effect) giving a factor as large; noise alone = the factor's central range over the shuffles; the paper's statistic (Hocko & Kalibera: mean SD ratio of random group pairs) is above 1 with no execution effect, by the amount in the last column",
    );
    let mut head = key.to_vec();
    head.extend([
        "impact factor",
        "p",
        "shuffles",
        "noise alone",
        "paper's statistic",
        "paper's, no execution effect",
    ]);
    let mut t = Table::new(&head);
    for (k, e, f, n) in rows {
        let mut row = k;
        row.extend([
            ci_with(Some(f), factor),
            sig(n.p_value, 2),
            n.permutations.to_string(),
            format!("{} to {}", factor(n.band.0), factor(n.band.1)),
            ci_with(e.impact_factor_paper.as_ref(), factor),
            n.paper_mean.map(factor).unwrap_or_else(|| "—".into()),
        ]);
        t.row(row);
    }
    t.render(out);
}
