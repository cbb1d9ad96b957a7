//! Series of one file against a reference series of the same file
//! (hyperfine's "`A` ran 1.92 ± 0.01 times faster than `B`", Google
//! Benchmark compare.py's `filters` mode): the series of the `samples` cell
//! (a samples file or any import) are grouped by unit, and in each group of
//! two or more every series is compared with the group's reference by the
//! engine files are compared by — each series is one side, as if it were a
//! file of its own, so the estimates, the ratio's CI, the rule and the
//! verdict are those of `compare_files` on the same data. Each pair also
//! gets hyperfine's relative speed: the ratio of means with its error
//! propagated from the two sample standard deviations.
//!
//! The reference: the series named by the caller in its group, else the
//! series with the lowest estimate (hyperfine's fastest command).
//!
//! Which series are compared: a file whose series are alternatives only
//! within groups (`alternatives: groups`: one Go benchmark under several
//! configurations, a JMH method's parameter scan, a Criterion group) is
//! grouped by group and unit, and its ungrouped series are left alone —
//! unless the caller asks for every series (`every`) or names a reference,
//! which compares every series of the reference's unit with it.

use super::{compare_suite, compared_file, items_of, point, ComparedFile, PairComparison};
use crate::format::Alternatives;
use crate::read::{read_document_within, Document};
use crate::report::Options;
use crate::stats::compare::Est;
use crate::suites::samples::Samples;
use crate::suites::{Item, Measurements, Suite};
use crate::units::{bytes_per_unit, ns_per_unit, quantity, Quantity};
use serde::Serialize;
use std::borrow::Borrow;

#[derive(Debug, Clone, Serialize)]
pub struct SeriesComparisonReport {
    pub file: ComparedFile,
    /// What the values are (the samples cell's statistic).
    pub statistic: String,
    /// The reference asked for, if any.
    pub reference_asked: Option<String>,
    /// Groups of two or more series of one unit, in first-seen order.
    pub groups: Vec<SeriesGroup>,
    /// Series alone in their unit (or group), not compared.
    pub alone: Vec<String>,
    /// Which series the file holds for alternatives of one another.
    pub alternatives: Alternatives,
    /// Whether the series were grouped by the file's groups (else by unit
    /// alone).
    pub by_group: bool,
    /// Whether warm-up series were compared; how many were left out.
    pub warm_ups: bool,
    pub warm_ups_left_out: usize,
    pub options: Options,
}

/// How a group's reference was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReferenceChoice {
    /// Named by the caller.
    Named,
    /// The series with the lowest estimate (the fastest, for times).
    Lowest,
}

#[derive(Debug, Clone, Serialize)]
pub struct SeriesGroup {
    /// The file's group the series share, when grouped by group.
    pub group: Option<String>,
    pub unit: String,
    pub unit_ns: Option<f64>,
    pub unit_bytes: Option<f64>,
    pub quantity: Quantity,
    /// The series' names, the reference first, then the file's order.
    pub series: Vec<String>,
    pub warm_up: Vec<bool>,
    pub reference: ReferenceChoice,
    /// Each series' estimate with its CI (same order as `series`).
    pub values: Vec<Option<Est>>,
    /// Each other series against the reference: `file` and `baseline` are
    /// indices into `series` (the reference is 0).
    pub against_reference: Vec<PairComparison>,
    /// hyperfine's figure for each other series (same order as
    /// `against_reference`).
    pub relative_speed: Vec<Option<RelativeSpeed>>,
    /// Series with a `different` verdict.
    pub different: usize,
}

/// hyperfine's relative speed of a series to the reference: the ratio of
/// their means (all measurements) and its error, ratio ·
/// sqrt((sd/mean)² + (sd_ref/mean_ref)²) with sample standard deviations
/// (n − 1), hyperfine's propagation of uncertainty with no covariance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RelativeSpeed {
    /// mean / mean of the reference.
    pub ratio: f64,
    /// None when a side has one measurement.
    pub error: Option<f64>,
    /// As hyperfine words it: "REFERENCE ran `factor` ± `factor_error`
    /// times faster than SERIES" when `reference_lower` (factor = ratio),
    /// else "… times slower than …" (factor = 1 / ratio, the error the
    /// same propagation).
    pub reference_lower: bool,
    pub factor: f64,
    pub factor_error: Option<f64>,
}

/// Read `bytes` and compare its series (see the module's comment).
pub fn compare_series_bytes(
    name: &str,
    bytes: &[u8],
    reference: Option<&str>,
    opts: &Options,
    warm_ups: bool,
    every: bool,
) -> Result<SeriesComparisonReport, String> {
    let doc = read_document_within(name, bytes, &opts.limits).map_err(|e| e.to_string());
    compare_series(name, &doc, reference, opts, warm_ups, every)
}

/// Compare the series of a read document; an error when it has no series
/// (a run file, an unreadable file) or no series is named `reference`.
pub fn compare_series(
    name: &str,
    doc: &Result<impl Borrow<Document>, String>,
    reference: Option<&str>,
    opts: &Options,
    warm_ups: bool,
    every: bool,
) -> Result<SeriesComparisonReport, String> {
    let file = compared_file(name, doc);
    let d: &Document = doc.as_ref().map_err(Clone::clone)?.borrow();
    let Document::Samples(samples) = d else {
        return Err(format!(
            "{name}: a tickbook run file has no series to compare with each other; series are in samples files and imported results"
        ));
    };
    let by_group = !every && reference.is_none() && samples.alternatives == Alternatives::Groups;
    let group_of = |key: &str| -> Option<String> {
        samples
            .series
            .iter()
            .find(|s| s.name == key)
            .and_then(|s| s.group.clone())
    };
    let mut items = items_of(d, Samples::NAME);
    let all: Vec<String> = items.iter().map(|it| it.key.clone()).collect();
    if let Some(r) = reference {
        if !items.iter().any(|it| it.key == r) {
            return Err(format!(
                "{name}: no series is named {r:?}; its series: {}",
                all.iter()
                    .map(|k| format!("{k:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    let before = items.len();
    items.retain(|it| warm_ups || !it.warm_up || Some(it.key.as_str()) == reference);
    let warm_ups_left_out = before - items.len();
    // Groups of one unit (and group), in first-seen order; a series
    // without a group, when grouped, is alone.
    let mut by_unit: Vec<(Option<String>, String, Vec<Item>)> = Vec::new();
    let mut alone = Vec::new();
    for it in items {
        let group = if by_group {
            match group_of(&it.key) {
                Some(g) => Some(g),
                None => {
                    alone.push(it.key);
                    continue;
                }
            }
        } else {
            None
        };
        match by_unit
            .iter_mut()
            .find(|(g, u, _)| *u == it.unit && *g == group)
        {
            Some((_, _, m)) => m.push(it),
            None => by_unit.push((group, it.unit.clone(), vec![it])),
        }
    }
    let mut groups = Vec::new();
    for (group_name, unit, mut members) in by_unit {
        if members.len() < 2 {
            alone.extend(members.into_iter().map(|it| it.key));
            continue;
        }
        let named = reference.and_then(|r| members.iter().position(|it| it.key == r));
        let r = named.unwrap_or_else(|| lowest(&members));
        let first = members.remove(r);
        members.insert(0, first);
        groups.push(group(
            group_name,
            unit,
            members,
            if named.is_some() {
                ReferenceChoice::Named
            } else {
                ReferenceChoice::Lowest
            },
            opts,
        ));
    }
    Ok(SeriesComparisonReport {
        file,
        statistic: Samples::COMPARED.unwrap_or("value").to_string(),
        reference_asked: reference.map(str::to_string),
        groups,
        alone,
        alternatives: samples.alternatives,
        by_group,
        warm_ups,
        warm_ups_left_out,
        options: *opts,
    })
}

/// The member with the lowest point estimate (the first of equals).
fn lowest(members: &[Item]) -> usize {
    let mut best = 0;
    for (i, it) in members.iter().enumerate() {
        if point(&it.data) < point(&members[best].data) {
            best = i;
        }
    }
    best
}

/// One group, the reference first: each series a side of its own.
fn group(
    group: Option<String>,
    unit: String,
    members: Vec<Item>,
    choice: ReferenceChoice,
    o: &Options,
) -> SeriesGroup {
    let series: Vec<String> = members.iter().map(|it| it.key.clone()).collect();
    let warm_up: Vec<bool> = members.iter().map(|it| it.warm_up).collect();
    let relative_speed: Vec<Option<RelativeSpeed>> = members[1..]
        .iter()
        .map(|it| relative_speed(&it.data, &members[0].data))
        .collect();
    // Every series under one key, as one file each holds it.
    let per_file: Vec<Vec<Item>> = members
        .into_iter()
        .map(|it| {
            vec![Item {
                key: unit.clone(),
                unit: it.unit,
                data: it.data,
                warm_up: false,
            }]
        })
        .collect();
    let holders: Vec<usize> = (0..per_file.len()).collect();
    let mut s: super::SuiteComparison =
        compare_suite(Samples::NAME, "", &holders, &per_file, o, true);
    let item = s.items.pop();
    let (values, against_reference) = match item {
        Some(i) => (i.values, i.against_baseline),
        None => (Vec::new(), Vec::new()),
    };
    SeriesGroup {
        group,
        unit_ns: ns_per_unit(&unit),
        unit_bytes: bytes_per_unit(&unit),
        quantity: quantity(&unit),
        different: against_reference
            .iter()
            .filter(|p| p.verdict == crate::report::compare::Verdict::Different)
            .count(),
        unit,
        series,
        warm_up,
        reference: choice,
        values,
        against_reference,
        relative_speed,
    }
}

/// Mean and sample standard deviation of every measurement.
fn mean_sd(d: &Measurements) -> (f64, Option<f64>, usize) {
    let xs: Vec<f64> = match d {
        Measurements::Flat(xs) => xs.clone(),
        Measurements::Grouped(ex) => ex.iter().flatten().copied().collect(),
    };
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n as f64;
    let sd = (n > 1)
        .then(|| (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt());
    (mean, sd, n)
}

fn relative_speed(d: &Measurements, reference: &Measurements) -> Option<RelativeSpeed> {
    let (m, sd, n) = mean_sd(d);
    let (mr, sdr, nr) = mean_sd(reference);
    if n == 0 || nr == 0 || mr == 0.0 || m == 0.0 {
        return None;
    }
    let ratio = m / mr;
    let spread = match (sd, sdr) {
        (Some(s), Some(sr)) => Some(((s / m).powi(2) + (sr / mr).powi(2)).sqrt()),
        _ => None,
    };
    let reference_lower = ratio >= 1.0;
    let factor = if reference_lower { ratio } else { 1.0 / ratio };
    ratio.is_finite().then_some(RelativeSpeed {
        ratio,
        error: spread.map(|s| ratio * s),
        reference_lower,
        factor,
        factor_error: spread.map(|s| factor * s),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::compare::{compare_files, Verdict};

    fn samples(series: &[(&str, &str, Vec<Vec<f64>>)]) -> Vec<u8> {
        let series: Vec<serde_json::Value> = series
            .iter()
            .map(|(n, u, ex)| serde_json::json!({"name": n, "unit": u, "executions": ex}))
            .collect();
        serde_json::to_vec(&serde_json::json!({
            "format": "tickbook", "format_version": "1.0", "kind": "samples",
            "series": series,
        }))
        .unwrap()
    }

    fn runs(base: f64, n: usize, phase: usize) -> Vec<Vec<f64>> {
        (0..n)
            .map(|k| vec![base * (1.0 + 0.02 * ((((k + phase) * 7) % 11) as f64 / 5.0 - 1.0))])
            .collect()
    }

    #[test]
    fn a_file_of_groups_compares_within_its_groups_and_everything_on_request() {
        let ex = |base: f64| serde_json::json!(runs(base, 8, 0));
        let f = serde_json::to_vec(&serde_json::json!({
            "format": "tickbook", "format_version": "1.0", "kind": "samples",
            "alternatives": "groups",
            "series": [
                {"name": "A (old)", "unit": "ns", "executions": ex(100.0), "group": "A"},
                {"name": "B", "unit": "ns", "executions": ex(5.0)},
                {"name": "A (new)", "unit": "ns", "executions": ex(80.0), "group": "A"},
                {"name": "C", "unit": "ns", "executions": ex(7.0), "group": "C"},
            ],
        }))
        .unwrap();
        let o = Options::default();
        let r = compare_series_bytes("f", &f, None, &o, false, false).unwrap();
        assert!(r.by_group && r.alternatives == Alternatives::Groups);
        assert_eq!(r.groups.len(), 1);
        assert_eq!(r.groups[0].group.as_deref(), Some("A"));
        assert_eq!(r.groups[0].series, ["A (new)", "A (old)"]);
        assert_eq!(r.alone, ["B", "C"]);
        // On request: every series of the unit, against the fastest.
        let r = compare_series_bytes("f", &f, None, &o, false, true).unwrap();
        assert!(!r.by_group && r.alone.is_empty());
        assert_eq!(r.groups[0].group, None);
        assert_eq!(r.groups[0].series, ["B", "A (old)", "A (new)", "C"]);
        // A named reference: every series of its unit against it.
        let r = compare_series_bytes("f", &f, Some("C"), &o, false, false).unwrap();
        assert!(!r.by_group);
        assert_eq!(r.groups[0].series[0], "C");
        assert_eq!(r.groups[0].series.len(), 4);
    }

    #[test]
    fn each_series_is_compared_with_the_fastest_as_two_files_would_be() {
        let slow = runs(2.0, 20, 3);
        let fast = runs(1.0, 20, 0);
        let same = runs(2.0, 20, 5);
        let mem = vec![vec![1e6], vec![1.1e6]];
        let f = samples(&[
            ("slow", "s", slow.clone()),
            ("fast", "s", fast.clone()),
            ("same", "s", same),
            ("slow [max RSS]", "bytes", mem),
        ]);
        let o = Options::default();
        let r = compare_series_bytes("f", &f, None, &o, false, false).unwrap();
        assert_eq!(r.groups.len(), 1);
        assert_eq!(r.alone, ["slow [max RSS]"]);
        let g = &r.groups[0];
        assert_eq!(g.series, ["fast", "slow", "same"]);
        assert_eq!(g.reference, ReferenceChoice::Lowest);
        // `slow` and `same` (as slow as `slow`) both differ from `fast`:
        // the count is of series, not of the group.
        assert_eq!(g.different, 2);
        let p = &g.against_reference[0];
        assert_eq!((p.file, p.baseline, p.verdict), (1, 0, Verdict::Different));
        assert_eq!(p.lower, Some(0));
        // The same pair as two files: the same numbers.
        let (a, b) = (
            samples(&[("x", "s", fast.clone())]),
            samples(&[("x", "s", slow.clone())]),
        );
        let files = compare_files(&[("a", &a), ("b", &b)], &o, false);
        let it = &files.suites[0].items[0];
        assert_eq!(it.values, g.values[..2]);
        let q = &it.against_baseline[0];
        assert_eq!(
            (q.ratio.clone(), q.test, q.verdict),
            (p.ratio.clone(), p.test, p.verdict)
        );
        // hyperfine's figure: the ratio of means, error by propagation.
        let (ms, ss, _) = mean_sd(&Measurements::Grouped(slow));
        let (mf, sf, _) = mean_sd(&Measurements::Grouped(fast));
        let rs = g.relative_speed[0].unwrap();
        assert!((rs.ratio - ms / mf).abs() < 1e-12);
        let e = ms / mf * ((ss.unwrap() / ms).powi(2) + (sf.unwrap() / mf).powi(2)).sqrt();
        assert!((rs.error.unwrap() - e).abs() < 1e-12);
        // A named reference.
        let r = compare_series_bytes("f", &f, Some("same"), &o, false, false).unwrap();
        let g = &r.groups[0];
        assert_eq!(g.series, ["same", "slow", "fast"]);
        assert_eq!(g.reference, ReferenceChoice::Named);
        assert_eq!(g.against_reference[0].verdict, Verdict::Same);
        assert_eq!(g.against_reference[1].lower, Some(2));
        // An unknown name lists the series; a run file has none.
        let e = compare_series_bytes("f", &f, Some("nope"), &o, false, false).unwrap_err();
        assert!(e.contains("\"nope\"") && e.contains("\"fast\""), "{e}");
        assert!(compare_series_bytes("g", b"{", None, &o, false, false).is_err());
    }
}
