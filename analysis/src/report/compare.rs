//! Several files side by side (machine A against machine B, before against
//! after): for every suite present in at least two files, items are matched
//! by identity (a series' name holds its parameters) and each file is
//! compared with the suite's first file (the baseline).
//!
//! Each side's estimate and CI is the one its own cell shows (median
//! percentile bootstrap for ops, copy and clock read cost; random-effects CI
//! of the mean for data grouped by execution; the bootstrap of the mean for
//! one execution or one measurement per execution), so a verdict can be
//! checked against the per-file reports. The ratio's CI comes from
//! resampling both sides independently (hierarchically where there are
//! executions).
//!
//! The verdict (docs/methods.md, "Comparing two results"): a difference is
//! shown by disjoint CIs where either side has several executions of
//! several measurements (Hocko & Kalibera), and by a two-sided
//! Mann–Whitney U test at 1 − confidence where both sides are measurements
//! of one process or one measurement per process (as Google Benchmark's
//! compare.py). It must agree with the ratio's CI (excluding 1) or the
//! verdict is `unclear`; a shown difference within the threshold is
//! `within_threshold`, never `same`.
//!
//! Pooling: executions of the same configuration (series name, alloc
//! configuration) on the same host from several files are concatenated and
//! analysed as one set of executions.
//!
//! Sides of several files (`compare_sides`): each side's files are runs of
//! one configuration, their executions of an item concatenated (a file of
//! flat samples counting as one execution) and compared as one file, by
//! the same rules. Series of one file against a reference series:
//! [`series`].

use super::Options;
use crate::read::{read_document_within, Document};
use crate::stats::bootstrap::{
    interval_from, mean, median, median_replicates, percentile_ci, BootstrapCi, Replicates, Side,
};
pub use crate::stats::compare::{decide, Verdict};
use crate::stats::compare::{relative_difference, Est};
use crate::stats::executions::{mean_of_means_replicates, random_effects};
use crate::stats::mann_whitney::{mann_whitney, MannWhitney};
use crate::suites::executions::{execution_stats, ExecutionStats};
use crate::suites::{registry, Item, Measurements, Suite};
use crate::units::{bytes_per_unit, ns_per_unit, quantity, Quantity};
use serde::Serialize;
use std::borrow::Borrow;

pub mod series;

/// What a comparison does besides comparing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CompareSettings {
    /// Pool executions of one configuration on one host.
    pub pool: bool,
    /// Compare warm-up series (pyperf's) too; left out by default.
    pub warm_ups: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct ComparisonReport {
    pub files: Vec<ComparedFile>,
    /// Suites present in at least two readable files, in the page's order
    /// of cells (those with `Suite::COMPARED`).
    pub suites: Vec<SuiteComparison>,
    /// Whether pooling was asked for; `pooled` is empty otherwise.
    pub pooling: bool,
    pub pooled: Vec<PooledItem>,
    /// Whether warm-up series were compared.
    pub warm_ups: bool,
    pub options: Options,
}

/// One item `--fail-if-slower` trips on: a time-like item of a file shown
/// slower than the baseline.
#[derive(Debug, Clone, Copy)]
pub struct Slower<'a> {
    pub suite: &'a SuiteComparison,
    pub item: &'a ItemComparison,
    pub pair: &'a PairComparison,
}

impl ComparisonReport {
    /// The CI gate's rule (`tickbook analyze --compare --fail-if-slower`):
    /// time-like items shown slower than the baseline — verdict different or
    /// within the threshold, the baseline the lower — with a ratio above
    /// 1 + `share` (0.05 = 5 %). An unclear verdict never trips it: the
    /// comparison does not show which way the item went.
    pub fn slower_than(&self, share: f64) -> Vec<Slower<'_>> {
        let mut out = Vec::new();
        for suite in &self.suites {
            for item in suite
                .items
                .iter()
                .filter(|it| it.quantity == Quantity::Time)
            {
                for pair in &item.against_baseline {
                    let shown =
                        matches!(pair.verdict, Verdict::Different | Verdict::WithinThreshold);
                    let slower = pair.lower == Some(pair.baseline);
                    if shown
                        && slower
                        && pair
                            .ratio
                            .as_ref()
                            .is_some_and(|c| c.estimate > 1.0 + share)
                    {
                        out.push(Slower { suite, item, pair });
                    }
                }
            }
        }
        out
    }
}

/// A file as the comparison saw it.
#[derive(Debug, Clone, Serialize)]
pub struct ComparedFile {
    pub name: String,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub host: Option<String>,
    pub started_at: Option<String>,
    pub suites: Vec<String>,
    /// For a side of several files (`compare_sides`): the files pooled
    /// into it, in order; empty for one file.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SuiteComparison {
    pub suite: String,
    /// Indices into `files` of the files holding this suite; the first is
    /// the baseline every other is compared with.
    pub files: Vec<usize>,
    /// What the values are, e.g. "median ns per operation".
    pub statistic: String,
    pub items: Vec<ItemComparison>,
    /// Items with at least one `different` verdict.
    pub different: usize,
    /// Warm-up series left out (see `ComparisonReport::warm_ups`).
    pub warm_ups_left_out: usize,
    /// Each other file against the baseline over the time-like items both
    /// hold: the geometric mean of the ratios with its bootstrap CI.
    pub geomean: Vec<GeoMean>,
}

/// The geometric mean of one file's ratios to the baseline.
#[derive(Debug, Clone, Serialize)]
pub struct GeoMean {
    /// Index into `files`.
    pub file: usize,
    pub baseline: usize,
    /// Items whose ratios it is over (time-like items both files hold).
    pub items: usize,
    /// exp(mean log ratio); its CI from the items' ratio replicates, each
    /// replicate's geometric mean over the items.
    pub ratio: Option<BootstrapCi>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ItemComparison {
    /// The identity items are matched by (e.g. `add_r64 · latency`).
    pub key: String,
    pub unit: String,
    /// Nanoseconds per `unit` when it is a time unit (for scaling).
    pub unit_ns: Option<f64>,
    /// Bytes per `unit` when it is a memory unit (for scaling).
    pub unit_bytes: Option<f64>,
    /// What the unit measures: less `time` is faster, less `memory`
    /// smaller, less of `other` less.
    pub quantity: Quantity,
    /// A warm-up series (compared only when asked).
    pub warm_up: bool,
    /// One per file of the suite, in `SuiteComparison::files` order: the
    /// estimate with its CI, or null where that file lacks the item.
    pub values: Vec<Option<Est>>,
    /// Each other file of the suite against the baseline.
    pub against_baseline: Vec<PairComparison>,
}

/// How a difference is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// Disjoint CIs of the two estimates (data grouped by execution).
    DisjointCis,
    /// A two-sided Mann–Whitney U test at 1 − confidence (measurements of
    /// one process, or one measurement per process, on both sides).
    RankTest,
}

#[derive(Debug, Clone, Serialize)]
pub struct PairComparison {
    /// Index into `files`.
    pub file: usize,
    pub baseline: usize,
    /// This file's value over the baseline's, with its bootstrap CI.
    pub ratio: Option<BootstrapCi>,
    /// (larger − smaller) / smaller of the two estimates.
    pub relative_difference: Option<f64>,
    pub verdict: Verdict,
    /// The rule the verdict was reached by (none when missing).
    pub rule: Option<Rule>,
    /// The rank test of this file's values against the baseline's (with
    /// `rule: rank_test`).
    pub test: Option<MannWhitney>,
    /// When different or within the threshold: the file (index into
    /// `files`) with the smaller value.
    pub lower: Option<usize>,
    /// `lower` when the item is time-like (less time, i.e. faster).
    pub faster: Option<usize>,
    /// When missing: the file (index into `files`) without the item.
    pub missing_from: Option<usize>,
}

/// Executions of one configuration from several files, analysed as one.
#[derive(Debug, Clone, Serialize)]
pub struct PooledItem {
    pub suite: String,
    pub key: String,
    pub host: Option<String>,
    pub unit: String,
    pub unit_ns: Option<f64>,
    /// Indices into `files` of the files pooled, and the executions each
    /// contributed (same order).
    pub files: Vec<usize>,
    pub executions_per_file: Vec<usize>,
    pub stats: Option<ExecutionStats>,
}

macro_rules! compared {
    ($($f:ident $V:ident $k:ident;)*) => {
        /// The cells files are compared on, in the page's order: (name,
        /// statistic).
        pub(crate) fn compared_cells() -> Vec<(&'static str, &'static str)> {
            let mut cells = Vec::new();
            $(
                if let Some(statistic) = <crate::suites::$f::$V as Suite>::COMPARED {
                    cells.push((
                        <crate::suites::$f::$V as Suite>::ORDER,
                        <crate::suites::$f::$V as Suite>::NAME,
                        statistic,
                    ));
                }
            )*
            cells.sort_by_key(|c| c.0);
            cells.into_iter().map(|(_, name, statistic)| (name, statistic)).collect()
        }

        /// Whether `doc` has data for the cell `name`.
        fn has_data(doc: &Document, name: &str) -> bool {
            let data = doc.data();
            $(
                if name == <crate::suites::$f::$V as Suite>::NAME {
                    return data.$f.is_some();
                }
            )*
            false
        }

        /// The items of the cell `name` in `doc`.
        pub(crate) fn items_of(doc: &Document, name: &str) -> Vec<Item> {
            let data = doc.data();
            $(
                if name == <crate::suites::$f::$V as Suite>::NAME {
                    return data.$f.map(<crate::suites::$f::$V as Suite>::items).unwrap_or_default();
                }
            )*
            Vec::new()
        }
    };
}
registry!(compared);

/// Read every entry (name, bytes) and compare. Never panics: an unreadable
/// file is listed with its error and takes part in nothing.
pub fn compare_files(entries: &[(&str, &[u8])], opts: &Options, pool: bool) -> ComparisonReport {
    compare_files_with(
        entries,
        opts,
        CompareSettings {
            pool,
            ..CompareSettings::default()
        },
    )
}

/// [`compare_files`] with every setting.
pub fn compare_files_with(
    entries: &[(&str, &[u8])],
    opts: &Options,
    settings: CompareSettings,
) -> ComparisonReport {
    let docs: Vec<(String, Result<Document, String>)> = entries
        .iter()
        .map(|(name, bytes)| {
            (
                name.to_string(),
                read_document_within(name, bytes, &opts.limits).map_err(|e| e.to_string()),
            )
        })
        .collect();
    compare_documents(&docs, opts, settings)
}

/// Compare already read documents (name, document or read error); owned or
/// borrowed (the page's worker compares the documents it keeps,
/// `report::KeptFile`, without reading them again).
pub fn compare_documents<D: Borrow<Document>>(
    docs: &[(String, Result<D, String>)],
    opts: &Options,
    settings: CompareSettings,
) -> ComparisonReport {
    compare_documents_part(docs, opts, settings, None, true)
}

/// Part of [`compare_documents`]: only the suites named in `suites` (all
/// when `None`), and the pooled items only with `pooled`. Each suite is
/// compared on its own, so the parts' suites, put back in the page's order
/// with one part's files and pooled items, are the whole comparison: the
/// page's workers compare a suite each (`web/src/worker/analyzer.js`).
pub fn compare_documents_part<D: Borrow<Document>>(
    docs: &[(String, Result<D, String>)],
    opts: &Options,
    settings: CompareSettings,
    suites: Option<&[String]>,
    pooled: bool,
) -> ComparisonReport {
    let files: Vec<ComparedFile> = docs.iter().map(|(n, d)| compared_file(n, d)).collect();
    let items = |i: usize, suite: &str| match &docs[i].1 {
        Ok(d) => items_of(d.borrow(), suite),
        Err(_) => Vec::new(),
    };
    let pooled = if settings.pool && pooled {
        pool_items(docs, &files, opts)
    } else {
        Vec::new()
    };
    compare_parts(files, items, pooled, opts, settings, suites)
}

/// Compare sides of one or more files each (name, document or read
/// error): a side's files are runs of one configuration, and each item's
/// executions from them are concatenated — a file's flat samples count as
/// one execution — then compared as one file is (docs/methods.md). A side
/// with an unreadable file takes part in nothing. No pooling across sides
/// (`settings.pool` is ignored): the sides are the pooling.
pub fn compare_sides(
    sides: &[Vec<(String, Result<Document, String>)>],
    opts: &Options,
    settings: CompareSettings,
) -> ComparisonReport {
    let files: Vec<ComparedFile> = sides.iter().map(|side| side_file(side)).collect();
    let ok: Vec<bool> = files.iter().map(|f| f.ok).collect();
    let items = |i: usize, suite: &str| -> Vec<Item> {
        if !ok[i] {
            return Vec::new();
        }
        let parts: Vec<Vec<Item>> = sides[i]
            .iter()
            .filter_map(|(_, d)| d.as_ref().ok())
            .map(|d| items_of(d, suite))
            .collect();
        merge_runs(parts)
    };
    let settings = CompareSettings {
        pool: false,
        ..settings
    };
    compare_parts(files, items, Vec::new(), opts, settings, None)
}

/// One side of several files as the comparison lists it: named by its
/// files, unreadable when one is, the host when every file names the same.
fn side_file(side: &[(String, Result<Document, String>)]) -> ComparedFile {
    let parts: Vec<ComparedFile> = side.iter().map(|(n, d)| compared_file(n, d)).collect();
    if parts.len() == 1 {
        return parts.into_iter().next().expect("one part");
    }
    let errors: Vec<String> = parts.iter().filter_map(|p| p.error.clone()).collect();
    let hosts: Vec<&Option<String>> = parts.iter().map(|p| &p.host).collect();
    let mut suites: Vec<String> = Vec::new();
    for (name, _) in compared_cells() {
        if parts.iter().any(|p| p.suites.iter().any(|s| s == name)) {
            suites.push(name.to_string());
        }
    }
    ComparedFile {
        name: parts
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(" + "),
        ok: errors.is_empty(),
        error: (!errors.is_empty()).then(|| errors.join("; ")),
        host: if hosts.windows(2).all(|w| w[0] == w[1]) {
            hosts.first().and_then(|h| (*h).clone())
        } else {
            None
        },
        started_at: parts.first().and_then(|p| p.started_at.clone()),
        suites: if errors.is_empty() {
            suites
        } else {
            Vec::new()
        },
        parts: parts.into_iter().map(|p| p.name).collect(),
    }
}

/// The items of several runs of one configuration as one file's: each
/// key's executions concatenated in run order, a run's flat samples as one
/// execution (so every item of a side of several runs is grouped by
/// execution, even one that only a single run holds).
fn merge_runs(parts: Vec<Vec<Item>>) -> Vec<Item> {
    if parts.len() == 1 {
        return parts.into_iter().next().unwrap_or_default();
    }
    let mut merged: Vec<(Item, Vec<Vec<f64>>)> = Vec::new();
    for mut it in parts.into_iter().flatten() {
        let ex = match std::mem::replace(&mut it.data, Measurements::Grouped(Vec::new())) {
            Measurements::Grouped(ex) => ex,
            Measurements::Flat(xs) => vec![xs],
        };
        match merged
            .iter_mut()
            .find(|(m, _)| m.key == it.key && m.unit == it.unit)
        {
            Some((_, all)) => all.extend(ex),
            None => merged.push((it, ex)),
        }
    }
    merged
        .into_iter()
        .map(|(mut it, ex)| {
            it.data = Measurements::Grouped(ex);
            it
        })
        .collect()
}

/// Compare the files (each suite's items from `items`, by file index).
fn compare_parts(
    files: Vec<ComparedFile>,
    items: impl Fn(usize, &str) -> Vec<Item>,
    pooled: Vec<PooledItem>,
    opts: &Options,
    settings: CompareSettings,
    only: Option<&[String]>,
) -> ComparisonReport {
    let mut suites = Vec::new();
    for (suite, statistic) in compared_cells() {
        if only.is_some_and(|o| !o.iter().any(|s| s == suite)) {
            continue;
        }
        let holders: Vec<usize> = (0..files.len())
            .filter(|&i| files[i].suites.iter().any(|s| s == suite))
            .collect();
        if holders.len() < 2 {
            continue;
        }
        let per_file: Vec<Vec<Item>> = holders.iter().map(|&i| items(i, suite)).collect();
        suites.push(compare_suite(
            suite,
            statistic,
            &holders,
            &per_file,
            opts,
            settings.warm_ups,
        ));
    }
    ComparisonReport {
        files,
        suites,
        pooling: settings.pool,
        pooled,
        warm_ups: settings.warm_ups,
        options: *opts,
    }
}

fn compared_file<D: Borrow<Document>>(name: &str, doc: &Result<D, String>) -> ComparedFile {
    let mut f = ComparedFile {
        name: name.to_string(),
        ok: doc.is_ok(),
        error: doc.as_ref().err().cloned(),
        host: None,
        started_at: None,
        suites: Vec::new(),
        parts: Vec::new(),
    };
    if let Ok(d) = doc {
        let d: &Document = d.borrow();
        match d {
            Document::Run(r) => {
                f.host = Some(r.run.host.hostname.clone());
                f.started_at = Some(r.run.started_at.clone());
            }
            Document::Samples(s) => {
                f.host = s
                    .host
                    .as_ref()
                    .and_then(|h| h.get("hostname"))
                    .and_then(|v| v.as_str())
                    .map(str::to_string);
            }
        }
        f.suites = compared_cells()
            .into_iter()
            .filter(|(name, _)| has_data(d, name))
            .map(|(name, _)| name.to_string())
            .collect();
    }
    f
}

/// How an item's measurements are summarised and tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Flat samples of a native suite: the median.
    Median,
    /// One execution, or one measurement per execution: the mean of
    /// independent measurements.
    Mean,
    /// Several executions, some of several measurements: the mean of
    /// execution means, by execution.
    Executions,
}

fn shape(d: &Measurements) -> Shape {
    match d {
        Measurements::Flat(_) => Shape::Median,
        Measurements::Grouped(ex) if ex.len() == 1 || ex.iter().all(|e| e.len() == 1) => {
            Shape::Mean
        }
        Measurements::Grouped(_) => Shape::Executions,
    }
}

/// Every measurement of an item, for the rank test.
fn values_of(d: &Measurements) -> Vec<f64> {
    match d {
        Measurements::Flat(xs) => xs.clone(),
        Measurements::Grouped(ex) => ex.iter().flatten().copied().collect(),
    }
}

/// The statistic on the data itself (no CI).
fn point(d: &Measurements) -> f64 {
    match d {
        Measurements::Flat(xs) => median(xs),
        Measurements::Grouped(ex) => ex.iter().map(|e| mean(e)).sum::<f64>() / ex.len() as f64,
    }
}

/// The estimate with its CI that the item's own cell shows; `own`: the
/// item's replicates over the seed's stream (`replicates`), for a median
/// or one execution's mean.
fn estimate(d: &Measurements, own: Option<&Replicates>, o: &Options) -> Option<Est> {
    let from = |c: BootstrapCi| Est {
        estimate: c.estimate,
        lo: c.lo,
        hi: c.hi,
    };
    let bo = &o.bootstrap;
    match d {
        Measurements::Flat(_) => {
            // The cells' median CI (median_ci: the same draws, the same values).
            if !(bo.confidence > 0.0 && bo.confidence < 1.0) {
                return None;
            }
            own?.ci(bo).map(from)
        }
        Measurements::Grouped(ex) => {
            if ex.iter().all(|e| e.len() == 1) {
                let xs: Vec<f64> = ex.iter().flatten().copied().collect();
                return percentile_ci(&xs, mean, bo).map(from);
            }
            if ex.len() == 1 {
                // The Samples cell's hierarchical bootstrap of one execution.
                if !(bo.confidence > 0.0 && bo.confidence < 1.0) {
                    return None;
                }
                return own?.ci(bo).map(from);
            }
            let re = random_effects(ex, o.confidence)?;
            let (lo, hi) = re.ci?;
            Some(Est {
                estimate: re.mean,
                lo,
                hi,
            })
        }
    }
}

/// An item's bootstrap replicates in one file, of its median (flat data) or
/// of its mean of execution means (grouped), made once per file and side:
/// over the seed's stream they are both the file's own CI and the
/// numerator of its ratio to the baseline; the baseline's under-side ones
/// are the denominator of every file's ratio. With 24 files, an item was
/// resampled 70 times (each CI, then both sides of each of 23 ratios); now 25.
fn replicates(d: &Measurements, o: &Options, side: Side) -> Option<Replicates> {
    match d {
        Measurements::Flat(xs) if o.bootstrap.resamples > 0 => {
            median_replicates(xs, &o.bootstrap, side)
        }
        Measurements::Flat(_) => None,
        Measurements::Grouped(ex) => mean_of_means_replicates(ex, &o.bootstrap, side),
    }
}

/// Whether an item's ratios enter the geometric mean: time-like (a
/// geometric mean of times and bytes together means nothing).
fn in_geomean(unit: &str) -> bool {
    quantity(unit) == Quantity::Time
}

fn compare_suite(
    suite: &str,
    statistic: &str,
    holders: &[usize],
    per_file: &[Vec<Item>],
    o: &Options,
    warm_ups: bool,
) -> SuiteComparison {
    // Keys in first-seen order over the files.
    let mut keys: Vec<(&str, &str, bool)> = Vec::new();
    for items in per_file {
        for it in items {
            if !keys.iter().any(|(k, _, _)| *k == it.key) {
                keys.push((&it.key, &it.unit, it.warm_up));
            }
        }
    }
    let warm_ups_left_out = if warm_ups {
        0
    } else {
        keys.iter().filter(|k| k.2).count()
    };
    keys.retain(|k| warm_ups || !k.2);
    let others = holders.len().saturating_sub(1);
    // Per other file: the log ratio of each item in the geometric mean and
    // the sums of its replicates' log ratios.
    let mut geo: Vec<(Vec<f64>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); others];
    let items: Vec<ItemComparison> = keys
        .into_iter()
        .map(|(key, unit, warm_up)| {
            let found: Vec<Option<&Item>> = per_file
                .iter()
                .map(|items| items.iter().find(|it| it.key == key))
                .collect();
            let shapes: Vec<Option<Shape>> =
                found.iter().map(|f| f.map(|it| shape(&it.data))).collect();
            // The baseline's own replicates serve only a CI read off them.
            let own: Vec<Option<Replicates>> = found
                .iter()
                .enumerate()
                .map(|(j, f)| {
                    f.filter(|it| {
                        j > 0
                            || matches!(&it.data, Measurements::Flat(_))
                            || matches!(&it.data, Measurements::Grouped(ex) if ex.len() == 1)
                    })
                    .and_then(|it| replicates(&it.data, o, Side::Over))
                })
                .collect();
            let values: Vec<Option<Est>> = found
                .iter()
                .zip(&own)
                .map(|(f, own)| f.and_then(|it| estimate(&it.data, own.as_ref(), o)))
                .collect();
            let under = found[0].and_then(|b| replicates(&b.data, o, Side::Under));
            // A median over a mean is no ratio: both sides of one kind.
            let same_kind = |j: usize| match (found[j], found[0]) {
                (Some(a), Some(b)) => {
                    std::mem::discriminant(&a.data) == std::mem::discriminant(&b.data)
                }
                _ => false,
            };
            let against_baseline = (1..holders.len())
                .map(|j| {
                    let ratio = match (&own[j], &under) {
                        (Some(a), Some(b)) if same_kind(j) => {
                            if in_geomean(unit) {
                                add_to_geomean(&mut geo[j - 1], a, b);
                            }
                            a.ratio_ci(b, &o.bootstrap)
                        }
                        _ => None,
                    };
                    let side = |k: usize, file: usize| PairSide {
                        file,
                        item: found[k],
                        shape: shapes[k],
                        value: values[k],
                    };
                    pair(side(j, holders[j]), side(0, holders[0]), ratio, unit, o)
                })
                .collect();
            ItemComparison {
                key: key.to_string(),
                unit: unit.to_string(),
                unit_ns: ns_per_unit(unit),
                unit_bytes: bytes_per_unit(unit),
                quantity: quantity(unit),
                warm_up,
                values,
                against_baseline,
            }
        })
        .collect();
    let geomean = geo
        .into_iter()
        .enumerate()
        .map(|(k, (logs, sums))| GeoMean {
            file: holders[k + 1],
            baseline: holders[0],
            items: logs.len(),
            ratio: geomean_ci(&logs, &sums, o),
        })
        .collect();
    SuiteComparison {
        suite: suite.to_string(),
        files: holders.to_vec(),
        statistic: statistic.to_string(),
        different: items
            .iter()
            .filter(|i| {
                i.against_baseline
                    .iter()
                    .any(|p| p.verdict == Verdict::Different)
            })
            .count(),
        items,
        warm_ups_left_out,
        geomean,
    }
}

/// Adds one item's ratio (`a` over `b`, replicate by replicate) to a
/// geometric mean's sums, unless a ratio is not finite and positive.
fn add_to_geomean((logs, sums): &mut (Vec<f64>, Vec<f64>), a: &Replicates, b: &Replicates) {
    let log = |x: f64, y: f64| {
        let r = x / y;
        (r.is_finite() && r > 0.0).then(|| r.ln())
    };
    let Some(est) = log(a.estimate, b.estimate) else {
        return;
    };
    let Some(reps) = a
        .reps
        .iter()
        .zip(&b.reps)
        .map(|(x, y)| log(*x, *y))
        .collect::<Option<Vec<f64>>>()
    else {
        return;
    };
    if sums.is_empty() {
        *sums = vec![0.0; reps.len()];
    }
    if sums.len() != reps.len() {
        return;
    }
    logs.push(est);
    for (s, r) in sums.iter_mut().zip(reps) {
        *s += r;
    }
}

fn geomean_ci(logs: &[f64], sums: &[f64], o: &Options) -> Option<BootstrapCi> {
    if logs.is_empty() {
        return None;
    }
    let n = logs.len() as f64;
    let est = (logs.iter().sum::<f64>() / n).exp();
    interval_from(
        est,
        sums.iter().map(|s| (s / n).exp()).collect(),
        &o.bootstrap,
    )
}

/// One side of a pair: its file, the item there, how it is summarised and
/// its estimate.
struct PairSide<'a> {
    file: usize,
    item: Option<&'a Item>,
    shape: Option<Shape>,
    value: Option<Est>,
}

/// A file's item against the baseline's, with the ratio's CI.
fn pair(
    a: PairSide,
    b: PairSide,
    ratio: Option<BootstrapCi>,
    unit: &str,
    o: &Options,
) -> PairComparison {
    let mut p = PairComparison {
        file: a.file,
        baseline: b.file,
        ratio,
        relative_difference: None,
        verdict: Verdict::Missing,
        rule: None,
        test: None,
        lower: None,
        faster: None,
        missing_from: None,
    };
    let (Some(ia), Some(ib), Some(sa), Some(sb)) = (a.item, b.item, a.shape, b.shape) else {
        p.missing_from = Some(if a.item.is_none() { a.file } else { b.file });
        return p;
    };
    let (pa, pb) = (point(&ia.data), point(&ib.data));
    let shown = if sa != Shape::Executions && sb != Shape::Executions {
        p.rule = Some(Rule::RankTest);
        p.test = mann_whitney(&values_of(&ia.data), &values_of(&ib.data));
        let alpha = 1.0 - o.bootstrap.confidence;
        p.test.map(|t| t.p_value < alpha)
    } else {
        p.rule = Some(Rule::DisjointCis);
        match (a.value, b.value) {
            (Some(x), Some(y)) => Some(!(x.lo <= y.hi && y.lo <= x.hi)),
            _ => None,
        }
    };
    let rel = (pa.is_finite() && pb.is_finite()).then(|| relative_difference(pa, pb));
    p.relative_difference = rel;
    p.verdict = decide(shown, p.ratio.as_ref(), rel, o.threshold);
    if matches!(p.verdict, Verdict::Different | Verdict::WithinThreshold) && pa != pb {
        p.lower = Some(if pa < pb { a.file } else { b.file });
        if quantity(unit) == Quantity::Time {
            p.faster = p.lower;
        }
    }
    p
}

/// Pool executions of the same configuration on the same host.
fn pool_items<D: Borrow<Document>>(
    docs: &[(String, Result<D, String>)],
    files: &[ComparedFile],
    o: &Options,
) -> Vec<PooledItem> {
    struct Group {
        suite: &'static str,
        key: String,
        host: Option<String>,
        unit: String,
        files: Vec<usize>,
        counts: Vec<usize>,
        executions: Vec<Vec<f64>>,
    }
    let mut groups: Vec<Group> = Vec::new();
    for (suite, _) in compared_cells() {
        for (i, (_, doc)) in docs.iter().enumerate() {
            let Ok(doc) = doc else { continue };
            for it in items_of(doc.borrow(), suite) {
                let Measurements::Grouped(ex) = it.data else {
                    continue;
                };
                let host = files[i].host.clone();
                let g = match groups.iter_mut().find(|g| {
                    g.suite == suite && g.key == it.key && g.host == host && g.unit == it.unit
                }) {
                    Some(g) => g,
                    None => {
                        groups.push(Group {
                            suite,
                            key: it.key.clone(),
                            host,
                            unit: it.unit.clone(),
                            files: Vec::new(),
                            counts: Vec::new(),
                            executions: Vec::new(),
                        });
                        groups.last_mut().expect("just pushed")
                    }
                };
                g.files.push(i);
                g.counts.push(ex.len());
                g.executions.extend(ex);
            }
        }
    }
    groups
        .into_iter()
        .filter(|g| g.files.len() >= 2)
        .map(|g| PooledItem {
            stats: execution_stats(&g.executions, o),
            suite: g.suite.to_string(),
            key: g.key,
            host: g.host,
            unit_ns: crate::units::ns_per_unit(&g.unit),
            unit: g.unit,
            files: g.files,
            executions_per_file: g.counts,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(host: &str, series: &[(&str, Vec<Vec<f64>>)]) -> Vec<u8> {
        let series: Vec<serde_json::Value> = series
            .iter()
            .map(|(n, ex)| serde_json::json!({"name": n, "unit": "ns", "executions": ex}))
            .collect();
        serde_json::to_vec(&serde_json::json!({
            "format": "tickbook", "format_version": "1.0", "kind": "samples",
            "host": {"hostname": host}, "series": series,
        }))
        .unwrap()
    }

    fn ex(base: f64, n: usize) -> Vec<Vec<f64>> {
        // Five executions of n measurements spread ±2 % around `base`.
        (0..5)
            .map(|e| {
                (0..n)
                    .map(|k| base * (1.0 + 0.004 * ((e * n + k) % 10) as f64 - 0.02))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn clear_difference_is_different_and_small_one_is_not() {
        let a = samples("a", &[("x", ex(100.0, 20)), ("y", ex(100.0, 20))]);
        let b = samples("b", &[("x", ex(150.0, 20)), ("y", ex(100.5, 20))]);
        let r = compare_files(&[("a", &a), ("b", &b)], &Options::default(), false);
        assert_eq!(r.suites.len(), 1);
        let s = &r.suites[0];
        assert_eq!((s.suite.as_str(), s.files.clone()), ("samples", vec![0, 1]));
        let x = &s.items[0];
        assert_eq!(x.key, "x");
        let p = &x.against_baseline[0];
        assert_eq!(p.verdict, Verdict::Different);
        assert_eq!(p.faster, Some(0));
        let ratio = p.ratio.as_ref().unwrap();
        assert!((ratio.estimate - 1.5).abs() < 1e-9);
        assert!(ratio.lo <= 1.5 && ratio.hi >= 1.5);
        // 0.5 % apart: shown (identical executions make narrow CIs), but
        // within the 3 % threshold.
        assert_eq!(
            s.items[1].against_baseline[0].verdict,
            Verdict::WithinThreshold
        );
        assert_eq!(s.different, 1);
        // A threshold above 50 % makes x the same too.
        let o = Options {
            threshold: 0.6,
            ..Options::default()
        };
        let r = compare_files(&[("a", &a), ("b", &b)], &o, false);
        assert_eq!(r.suites[0].different, 0);
    }

    #[test]
    fn the_gate_trips_on_time_items_shown_slower_beyond_its_share() {
        // x 50 % slower in b, y 0.5 % slower (within the threshold), z faster.
        let a = samples(
            "a",
            &[
                ("x", ex(100.0, 20)),
                ("y", ex(100.0, 20)),
                ("z", ex(100.0, 20)),
            ],
        );
        let b = samples(
            "b",
            &[
                ("x", ex(150.0, 20)),
                ("y", ex(100.5, 20)),
                ("z", ex(50.0, 20)),
            ],
        );
        let r = compare_files(&[("a", &a), ("b", &b)], &Options::default(), false);
        let keys = |share: f64| -> Vec<String> {
            r.slower_than(share)
                .iter()
                .map(|s| s.item.key.clone())
                .collect()
        };
        // A slower item within the threshold trips a gate below its ratio.
        assert_eq!(keys(0.001), ["x", "y"]);
        assert_eq!(keys(0.1), ["x"]);
        assert_eq!(
            keys(0.5),
            Vec::<String>::new(),
            "a ratio of 1.5 is not above 1.5"
        );
        // The other way round nothing is slower than the baseline but z.
        let r = compare_files(&[("b", &b), ("a", &a)], &Options::default(), false);
        let slower: Vec<&str> = r
            .slower_than(0.0)
            .iter()
            .map(|s| s.item.key.as_str())
            .collect();
        assert_eq!(slower, ["z"]);
        assert_eq!(r.slower_than(0.0)[0].pair.file, 1);
    }

    #[test]
    fn missing_items_bad_files_and_pooling() {
        let a = samples("h", &[("x", ex(100.0, 4))]);
        let b = samples("h", &[("x", ex(100.0, 4)), ("z", ex(1.0, 4))]);
        let r = compare_files(
            &[("a", &a), ("bad", b"{"), ("b", &b)],
            &Options::default(),
            true,
        );
        assert!(!r.files[1].ok && r.files[1].error.is_some());
        let s = &r.suites[0];
        assert_eq!(s.files, vec![0, 2]);
        let z = s.items.iter().find(|i| i.key == "z").unwrap();
        assert!(z.values[0].is_none());
        assert_eq!(z.against_baseline[0].verdict, Verdict::Missing);
        assert_eq!(r.pooled.len(), 1);
        let p = &r.pooled[0];
        assert_eq!((p.key.as_str(), p.files.clone()), ("x", vec![0, 2]));
        assert_eq!(p.stats.as_ref().unwrap().executions, 10);
    }

    fn read(name: &str, bytes: &[u8]) -> (String, Result<Document, String>) {
        let o = Options::default();
        let d = read_document_within(name, bytes, &o.limits).map_err(|e| e.to_string());
        (name.to_string(), d)
    }

    #[test]
    fn sides_of_several_runs_concatenate_executions() {
        let a1 = samples("h", &[("x", ex(100.0, 4)), ("flat", vec![vec![1.0, 2.0]])]);
        let a2 = samples("h", &[("x", ex(101.0, 4))]);
        let b1 = samples("h", &[("x", ex(150.0, 4)), ("flat", vec![vec![3.0, 4.0]])]);
        let o = Options::default();
        let sides = vec![
            vec![read("a1", &a1), read("a2", &a2)],
            vec![read("b1", &b1)],
        ];
        let r = compare_sides(&sides, &o, CompareSettings::default());
        assert_eq!(r.files[0].name, "a1 + a2");
        assert_eq!(r.files[0].parts, ["a1", "a2"]);
        assert!(r.files[1].parts.is_empty());
        let s = &r.suites[0];
        let x = s.items.iter().find(|i| i.key == "x").unwrap();
        // Ten executions on side A: the mean of their means, by the
        // executions' rule (disjoint random-effects CIs).
        let mut both = ex(100.0, 4);
        both.extend(ex(101.0, 4));
        let re = random_effects(&both, o.confidence).unwrap();
        assert_eq!(x.values[0].unwrap().estimate, re.mean);
        assert_eq!(x.against_baseline[0].rule, Some(Rule::DisjointCis));
        assert_eq!(x.against_baseline[0].verdict, Verdict::Different);
        // The same as one file holding both runs' executions.
        let joined = samples("h", &[("x", both)]);
        let one = compare_files(&[("a", &joined), ("b", &b1)], &o, false);
        let y = &one.suites[0].items[0];
        assert_eq!(x.values, y.values);
        assert_eq!(x.against_baseline[0].ratio, y.against_baseline[0].ratio);
        // A side with an unreadable run takes part in nothing.
        let bad = vec![
            vec![read("a1", &a1), read("bad", b"{")],
            vec![read("b1", &b1)],
        ];
        let r = compare_sides(&bad, &o, CompareSettings::default());
        assert!(!r.files[0].ok && r.files[0].error.is_some());
        assert!(r.suites.is_empty());
    }

    /// `n` values around `base`, spread ±`spread` (a fixed pattern, not noise).
    fn spread(base: f64, n: usize, spread: f64, phase: usize) -> Vec<f64> {
        (0..n)
            .map(|k| base * (1.0 + spread * ((((k + phase) * 7) % 11) as f64 / 5.0 - 1.0)))
            .collect()
    }

    #[test]
    fn one_process_data_get_a_verdict_by_the_rank_test() {
        // Google Benchmark's shape: one execution of ten repetitions each.
        let a = samples(
            "h",
            &[
                ("fast", vec![spread(100.0, 10, 0.01, 0)]),
                ("same", vec![spread(100.0, 10, 0.01, 0)]),
                ("gone", vec![spread(5.0, 10, 0.01, 0)]),
            ],
        );
        let b = samples(
            "h",
            &[
                ("fast", vec![spread(820.0, 10, 0.01, 3)]),
                ("same", vec![spread(100.0, 10, 0.01, 3)]),
                ("new", vec![spread(5.0, 10, 0.01, 0)]),
            ],
        );
        let r = compare_files(&[("a", &a), ("b", &b)], &Options::default(), false);
        let s = &r.suites[0];
        let get = |k: &str| s.items.iter().find(|i| i.key == k).unwrap();
        let fast = &get("fast").against_baseline[0];
        assert_eq!(fast.rule, Some(Rule::RankTest));
        assert_eq!(fast.verdict, Verdict::Different);
        // Ten against ten, fully apart: scipy's asymptotic p.
        let t = fast.test.unwrap();
        assert!((t.p_value - 0.00018267179110955002).abs() < 1e-12, "{t:?}");
        assert_eq!((fast.lower, fast.faster), (Some(0), Some(0)));
        let ratio = fast.ratio.as_ref().unwrap();
        assert!(ratio.lo > 8.0 && ratio.hi < 8.4, "{ratio:?}");
        assert!(
            get("fast").values.iter().all(Option::is_some),
            "both sides estimated"
        );
        assert_eq!(get("same").against_baseline[0].verdict, Verdict::Same);
        let gone = &get("gone").against_baseline[0];
        assert_eq!(
            (gone.verdict, gone.missing_from),
            (Verdict::Missing, Some(1))
        );
        let new = &get("new").against_baseline[0];
        assert_eq!((new.verdict, new.missing_from), (Verdict::Missing, Some(0)));
        // The geometric mean over the two items both hold.
        let g = s.geomean[0].ratio.as_ref().unwrap();
        assert_eq!(s.geomean[0].items, 2);
        let same = get("same").against_baseline[0]
            .ratio
            .as_ref()
            .unwrap()
            .estimate;
        assert!(
            (g.estimate - (ratio.estimate * same).sqrt()).abs() < 1e-12,
            "{g:?}"
        );
        assert!(g.lo < g.estimate && g.estimate < g.hi);
    }

    #[test]
    fn the_verdict_never_contradicts_the_ratio_ci() {
        // Many pairs of every shape, from clearly apart to the same.
        type Make = Box<dyn Fn(f64, usize) -> Vec<Vec<f64>>>;
        let shapes: Vec<Make> = vec![
            Box::new(|m, p| vec![spread(m, 12, 0.02, p)]),
            Box::new(|m, p| {
                spread(m, 15, 0.02, p)
                    .into_iter()
                    .map(|x| vec![x])
                    .collect()
            }),
            Box::new(|m, p| {
                (0..4)
                    .map(|e| spread(m * (1.0 + 0.01 * e as f64), 6, 0.02, p + e))
                    .collect()
            }),
        ];
        let mut seen = std::collections::HashSet::new();
        for (i, make) in shapes.iter().enumerate() {
            for (j, shift) in [0.0, 0.002, 0.005, 0.01, 0.02, 0.04, 0.1]
                .iter()
                .enumerate()
            {
                let a = samples("h", &[("x", make(100.0, 0))]);
                let b = samples("h", &[("x", make(100.0 * (1.0 + shift), i + j + 1))]);
                let r = compare_files(&[("a", &a), ("b", &b)], &Options::default(), false);
                let p = &r.suites[0].items[0].against_baseline[0];
                let c = p.ratio.as_ref().unwrap();
                let holds_one = c.lo <= 1.0 && 1.0 <= c.hi;
                match p.verdict {
                    Verdict::Same => assert!(holds_one, "same but {c:?}"),
                    Verdict::Different | Verdict::WithinThreshold => {
                        assert!(!holds_one, "{:?} but {c:?}", p.verdict)
                    }
                    Verdict::Unclear => {}
                    v => panic!("{v:?} for data on both sides"),
                }
                if p.verdict == Verdict::WithinThreshold {
                    assert!(p.relative_difference.unwrap() <= 0.03);
                }
                seen.insert(format!("{:?}", p.verdict));
            }
        }
        assert!(
            seen.contains("Same") && seen.contains("Different"),
            "{seen:?}"
        );
        // The decision table itself.
        let ci = |lo: f64, hi: f64| {
            BootstrapCi::around((lo + hi) / 2.0, lo, hi, 10, &Default::default())
        };
        let (out, holds) = (ci(1.1, 1.2), ci(0.9, 1.1));
        assert_eq!(
            decide(Some(true), Some(&out), Some(0.15), 0.03),
            Verdict::Different
        );
        assert_eq!(
            decide(Some(true), Some(&out), Some(0.02), 0.03),
            Verdict::WithinThreshold
        );
        assert_eq!(
            decide(Some(false), Some(&holds), Some(0.0), 0.03),
            Verdict::Same
        );
        assert_eq!(
            decide(Some(false), Some(&out), Some(0.15), 0.03),
            Verdict::Unclear
        );
        assert_eq!(
            decide(Some(true), Some(&holds), Some(0.15), 0.03),
            Verdict::Unclear
        );
        assert_eq!(decide(None, Some(&out), None, 0.03), Verdict::NoEstimate);
    }

    #[test]
    fn warm_ups_are_left_out_unless_asked() {
        let file = |m: f64| {
            serde_json::to_vec(&serde_json::json!({
                "format": "tickbook", "format_version": "1.0", "kind": "samples",
                "series": [
                    {"name": "x", "unit": "s", "executions": [spread(m, 5, 0.01, 0), spread(m, 5, 0.01, 1)]},
                    {"name": "x [warm-up]", "unit": "s", "executions": [[m * 2.0], [m * 2.1]],
                     "metadata": {"warm_up_of": "x"}},
                ],
            }))
            .unwrap()
        };
        let (a, b) = (file(1e-7), file(1.1e-7));
        let r = compare_files(&[("a", &a), ("b", &b)], &Options::default(), false);
        let keys: Vec<&str> = r.suites[0].items.iter().map(|i| i.key.as_str()).collect();
        assert_eq!(keys, ["x"]);
        assert_eq!(r.suites[0].warm_ups_left_out, 1);
        let settings = CompareSettings {
            warm_ups: true,
            ..CompareSettings::default()
        };
        let r = compare_files_with(&[("a", &a), ("b", &b)], &Options::default(), settings);
        assert_eq!(r.suites[0].items.len(), 2);
        assert!(r.suites[0].items[1].warm_up);
        assert_eq!(r.suites[0].warm_ups_left_out, 0);
    }

    #[test]
    fn ratio_of_medians_matches_selecting_in_each_resample() {
        use crate::stats::bootstrap::{
            index, interval_from, median, median_ci, median_in_place, rng,
        };
        use rand_xoshiro::Xoshiro256PlusPlus;
        let a: Vec<f64> = (0..37).map(|i| ((i * 7919) % 101) as f64).collect();
        let b: Vec<f64> = (0..20).map(|i| 50.0 + ((i * 31) % 17) as f64).collect();
        let o = Options::default();
        // The direct way: copy each resample and select its median; a from
        // the seed's stream, b from the same seed jumped.
        let mut ra = rng(o.bootstrap.seed);
        let mut rb = rng(o.bootstrap.seed);
        rb.jump();
        let med = |xs: &[f64], r: &mut Xoshiro256PlusPlus| {
            let mut x: Vec<f64> = (0..xs.len()).map(|_| xs[index(r, xs.len())]).collect();
            median_in_place(&mut x)
        };
        let reps = (0..o.bootstrap.resamples)
            .map(|_| med(&a, &mut ra) / med(&b, &mut rb))
            .collect();
        let direct = interval_from(median(&a) / median(&b), reps, &o.bootstrap);
        let (da, db) = (Measurements::Flat(a.clone()), Measurements::Flat(b.clone()));
        let own = replicates(&da, &o, Side::Over).unwrap();
        let under = replicates(&db, &o, Side::Under).unwrap();
        assert_eq!(own.ratio_ci(&under, &o.bootstrap), direct);
        // The file's own CI from the same replicates is the cell's median CI.
        let cell = median_ci(&a, &o.bootstrap).unwrap();
        let est = estimate(&da, Some(&own), &o).unwrap();
        assert_eq!(
            (est.estimate, est.lo, est.hi),
            (cell.estimate, cell.lo, cell.hi)
        );
        for xs in [vec![3.0, 1.0, 2.0], vec![4.0, 1.0, 3.0, 2.0], vec![5.0]] {
            assert_eq!(median_in_place(&mut xs.clone()), median(&xs));
        }
    }
}
