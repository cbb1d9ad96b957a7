//! Clustering tables shared by the Operations and Samples cells.

use super::numbers::fmt_ns;
use super::table::{subtitle, Table};
use tickbook_analysis::report::ClusteringReport;

/// The clustering section (ops forms and samples series): the cut at each
/// statistic of the costs (Table 4 of Lambert and Power), then the members at the
/// median cut (the page's first view; `--json` has every cut's).
pub(crate) fn render(out: &mut String, title: &str, c: &ClusteringReport, noun: &str) {
    subtitle(
        out,
        &format!(
            "{title}: {} linkage over {} {noun}, cut at each statistic of the costs",
            format!("{:?}", c.method).to_lowercase(),
            c.dendrogram.observations
        ),
    );
    let mut t = Table::new(&["granularity set to", "granularity", "clusters"]);
    for k in &c.cuts {
        t.row(vec![
            k.statistic.clone(),
            fmt_ns(k.granularity_ns),
            k.clusters.to_string(),
        ]);
    }
    t.render(out);
    let Some(cut) = c
        .cuts
        .iter()
        .find(|k| k.statistic == "median")
        .or(c.cuts.first())
    else {
        return;
    };
    subtitle(
        out,
        &format!(
            "Members of the {} clusters at the {} granularity {}, in order of mean cost",
            cut.clusters,
            cut.statistic,
            fmt_ns(cut.granularity_ns)
        ),
    );
    let mut t = Table::new(&["cluster", "size", "cheapest", "dearest", "mean", "members"]);
    for (k, m) in cut.members.iter().enumerate() {
        t.row(vec![
            (k + 1).to_string(),
            m.names.len().to_string(),
            fmt_ns(m.min_ns),
            fmt_ns(m.max_ns),
            fmt_ns(m.mean_ns),
            m.names.join(" "),
        ]);
    }
    t.render(out);
}
