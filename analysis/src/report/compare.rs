//! Several files side by side (machine A against machine B, before against
//! after): for every suite present in at least two files, items are matched
//! by identity and each file is compared with the suite's first file (the
//! baseline) by the comparison rule of `stats::compare` — different only when
//! the CIs are disjoint **and** the relative difference exceeds
//! `Options::threshold` (Hocko & Kalibera).
//!
//! Each side's estimate and CI is the one its own cell shows (median
//! percentile bootstrap for ops, copy and clock read cost; random-effects CI
//! of the mean, or the bootstrap of the mean for one measurement per
//! execution, for data grouped by execution), so a verdict can be checked
//! against the per-file reports. The ratio's CI comes from resampling both
//! sides independently (hierarchically where there are executions).
//!
//! Pooling: executions of the same configuration (series name, alloc
//! configuration) on the same host from several files are concatenated and
//! analysed as one set of executions.

use super::Options;
use crate::read::{read_document_within, Document};
use crate::stats::bootstrap::{
    mean, median_replicates, percentile_ci, BootstrapCi, Replicates, Side,
};
use crate::stats::compare::{differ, relative_difference, Est};
use crate::stats::executions::{mean_of_means_replicates, random_effects};
use crate::suites::executions::{execution_stats, ExecutionStats};
use crate::suites::{registry, Item, Measurements, Suite};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct ComparisonReport {
    pub files: Vec<ComparedFile>,
    /// Suites present in at least two readable files, in the page's order
    /// of cells (those with `Suite::COMPARED`).
    pub suites: Vec<SuiteComparison>,
    /// Whether pooling was asked for; `pooled` is empty otherwise.
    pub pooling: bool,
    pub pooled: Vec<PooledItem>,
    pub options: Options,
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
}

#[derive(Debug, Clone, Serialize)]
pub struct ItemComparison {
    /// The identity items are matched by (e.g. `add_r64 · latency`).
    pub key: String,
    pub unit: String,
    /// Nanoseconds per `unit` when it is a time unit (for scaling).
    pub unit_ns: Option<f64>,
    /// One per file of the suite, in `SuiteComparison::files` order: the
    /// estimate with its CI, or null where that file lacks the item.
    pub values: Vec<Option<Est>>,
    /// Each other file of the suite against the baseline.
    pub against_baseline: Vec<PairComparison>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Disjoint CIs and a relative difference above the threshold.
    Different,
    /// Overlapping CIs or a difference within the threshold.
    Same,
    /// One side has no estimate with a CI: nothing to decide.
    Missing,
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
    /// When different: the file (index into `files`) with the smaller value
    /// (less time, i.e. faster).
    pub faster: Option<usize>,
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
        fn compared_cells() -> Vec<(&'static str, &'static str)> {
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
        fn items_of(doc: &Document, name: &str) -> Vec<Item> {
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
    let docs: Vec<(String, Result<Document, String>)> = entries
        .iter()
        .map(|(name, bytes)| {
            (
                name.to_string(),
                read_document_within(name, bytes, &opts.limits).map_err(|e| e.to_string()),
            )
        })
        .collect();
    compare_documents(&docs, opts, pool)
}

/// Compare already read documents (name, document or read error).
pub fn compare_documents(
    docs: &[(String, Result<Document, String>)],
    opts: &Options,
    pool: bool,
) -> ComparisonReport {
    let files: Vec<ComparedFile> = docs.iter().map(|(n, d)| compared_file(n, d)).collect();
    let mut suites = Vec::new();
    for (suite, statistic) in compared_cells() {
        let holders: Vec<usize> = (0..docs.len())
            .filter(|&i| files[i].suites.iter().any(|s| s == suite))
            .collect();
        if holders.len() < 2 {
            continue;
        }
        let per_file: Vec<Vec<Item>> = holders
            .iter()
            .map(|&i| match &docs[i].1 {
                Ok(d) => items_of(d, suite),
                Err(_) => Vec::new(),
            })
            .collect();
        suites.push(compare_suite(suite, statistic, &holders, &per_file, opts));
    }
    let pooled = if pool {
        pool_items(docs, &files, opts)
    } else {
        Vec::new()
    };
    ComparisonReport {
        files,
        suites,
        pooling: pool,
        pooled,
        options: *opts,
    }
}

fn compared_file(name: &str, doc: &Result<Document, String>) -> ComparedFile {
    let mut f = ComparedFile {
        name: name.to_string(),
        ok: doc.is_ok(),
        error: doc.as_ref().err().cloned(),
        host: None,
        started_at: None,
        suites: Vec::new(),
    };
    if let Ok(d) = doc {
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

/// The estimate with its CI that the item's own cell shows; `own`: the
/// item's medians over the seed's stream (`replicates`), for flat data.
fn estimate(d: &Measurements, own: Option<&Replicates>, o: &Options) -> Option<Est> {
    let from = |c: BootstrapCi| Est {
        estimate: c.estimate,
        lo: c.lo,
        hi: c.hi,
    };
    match d {
        Measurements::Flat(_) => {
            // The cells' median CI (median_ci: the same draws, the same values).
            let bo = &o.bootstrap;
            if !(bo.confidence > 0.0 && bo.confidence < 1.0) {
                return None;
            }
            own?.ci(bo).map(from)
        }
        Measurements::Grouped(ex) => {
            if ex.iter().all(|e| e.len() == 1) {
                let xs: Vec<f64> = ex.iter().flatten().copied().collect();
                return percentile_ci(&xs, mean, &o.bootstrap).map(from);
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
/// over the seed's stream they are both the file's own median CI and the
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

fn compare_suite(
    suite: &str,
    statistic: &str,
    holders: &[usize],
    per_file: &[Vec<Item>],
    o: &Options,
) -> SuiteComparison {
    // Keys in first-seen order over the files.
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for items in per_file {
        for it in items {
            if !keys.iter().any(|(k, _)| *k == it.key) {
                keys.push((&it.key, &it.unit));
            }
        }
    }
    let items: Vec<ItemComparison> = keys
        .into_iter()
        .map(|(key, unit)| {
            let found: Vec<Option<&Item>> = per_file
                .iter()
                .map(|items| items.iter().find(|it| it.key == key))
                .collect();
            // Grouped data's CI is random effects': the baseline's own
            // replicates would serve nothing.
            let own: Vec<Option<Replicates>> = found
                .iter()
                .enumerate()
                .map(|(j, f)| {
                    f.filter(|it| j > 0 || matches!(it.data, Measurements::Flat(_)))
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
                        (Some(a), Some(b)) if same_kind(j) => a.ratio_ci(b, &o.bootstrap),
                        _ => None,
                    };
                    pair((holders[j], values[j]), (holders[0], values[0]), ratio, o)
                })
                .collect();
            ItemComparison {
                key: key.to_string(),
                unit: unit.to_string(),
                unit_ns: crate::units::ns_per_unit(unit),
                values,
                against_baseline,
            }
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
    }
}

/// A file's item against the baseline's: (file index, estimate) each, and
/// the ratio's CI.
fn pair(
    (file, value): (usize, Option<Est>),
    (baseline, base_value): (usize, Option<Est>),
    ratio: Option<BootstrapCi>,
    o: &Options,
) -> PairComparison {
    let (verdict, rel, faster) = match (value, base_value) {
        (Some(a), Some(b)) => {
            let different = differ(&a, &b, o.threshold);
            let faster = different.then_some(if a.estimate < b.estimate {
                file
            } else {
                baseline
            });
            let verdict = if different {
                Verdict::Different
            } else {
                Verdict::Same
            };
            (
                verdict,
                Some(relative_difference(a.estimate, b.estimate)),
                faster,
            )
        }
        _ => (Verdict::Missing, None, None),
    };
    PairComparison {
        file,
        baseline,
        ratio,
        relative_difference: rel,
        verdict,
        faster,
    }
}

/// Pool executions of the same configuration on the same host.
fn pool_items(
    docs: &[(String, Result<Document, String>)],
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
            for it in items_of(doc, suite) {
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
        // 0.5 % apart: within the 3 % threshold whatever the CIs.
        assert_eq!(s.items[1].against_baseline[0].verdict, Verdict::Same);
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
