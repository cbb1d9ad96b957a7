//! History: one result per commit, in order, and for every benchmark the
//! commits where it changed, by how much, and how sure that is
//! (`stats::changepoint`; docs/methods.md, "History").
//!
//! Files are ordered by the commit date they record (a tickbook run's
//! `revision`, pytest-benchmark's `commit_info`, pyperformance's
//! `commit_date`), else by when they were measured (a run's `started_at`,
//! pyperf's and pytest-benchmark's dates, Google Benchmark's
//! `context.date`), else by name with numbers compared as numbers; or as
//! given. Series are matched by suite, name (which holds the parameters)
//! and unit; a commit without a series is a gap. Each commit's estimate is
//! the one its own data supports: the mean of execution means with the
//! executions' standard error when there are several executions, else the
//! mean of the measurements (or the median of a native suite's flat
//! samples) with theirs.

use super::{Across, Needs};
use crate::format::Revision;
use crate::options::Options;
use crate::read::Document;
use crate::report::compare::{compared_cells, items_of};
use crate::report::kept::KeptFile;
use crate::stats::changepoint::{self, Fit, Kind, Point};
use crate::suites::Measurements;
use crate::units::{ns_per_unit, quantity, Quantity};
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
use std::cmp::Ordering;
use std::collections::HashMap;

pub struct History;

/// How the files are ordered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderChoice {
    /// By commit date, else run date, else name.
    #[default]
    Auto,
    /// As the files were given.
    Given,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryParams {
    #[serde(default)]
    pub order: OrderChoice,
    /// Whether a series without a change keeps its estimates (the
    /// default, as `tickbook history --json` prints them). The page lists
    /// quiet series only by count and charts the changed ones, so it asks
    /// without them: a thousand commits' estimates of every series were
    /// most of the report it had to take in on its main thread.
    #[serde(default = "yes")]
    pub quiet_estimates: bool,
}

fn yes() -> bool {
    true
}

impl Default for HistoryParams {
    fn default() -> Self {
        HistoryParams {
            order: OrderChoice::default(),
            quiet_estimates: true,
        }
    }
}

/// The order the files were put in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    CommitDate,
    RunDate,
    Name,
    Given,
}

#[derive(Debug, Clone, Serialize)]
pub struct HistoryFile {
    pub name: String,
    pub commit: Option<String>,
    pub branch: Option<String>,
    pub dirty: Option<bool>,
    /// The commit's date, else when the file was measured.
    pub date: Option<String>,
}

/// An estimate with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Level {
    pub start: usize,
    pub end: usize,
    pub kind: ChangeKind,
    /// The fitted value at `start` and at `end` (equal when flat).
    pub from: f64,
    pub to: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Flat,
    Step,
    Drift,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    Code,
    /// Most series changed at this commit: likely the machine.
    Machine,
}

#[derive(Debug, Clone, Serialize)]
pub struct ChangePoint {
    /// Position of the first commit after the change (a drift's first).
    pub index: usize,
    pub file: String,
    pub kind: ChangeKind,
    /// A drift's last commit (a step's own).
    pub end: usize,
    pub before: Interval,
    pub after: Interval,
    /// after / before.
    pub ratio: Interval,
    pub p: f64,
    pub cause: Cause,
    /// The value rose where less is better (time, memory); null for other
    /// quantities.
    pub regression: Option<bool>,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Noise {
    /// Median within-commit standard error, relative.
    pub within: f64,
    /// Between-commit standard deviation τ, relative.
    pub between: f64,
    /// Lag-1 autocorrelation φ of the between-commit noise (how slowly
    /// the level wanders; 0 for independent commits).
    pub wander: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct SeriesHistory {
    pub name: String,
    pub suite: String,
    pub unit: String,
    pub unit_ns: Option<f64>,
    /// Per file in order; null where the file lacks the series.
    pub estimates: Vec<Option<Interval>>,
    pub levels: Vec<Level>,
    pub change_points: Vec<ChangePoint>,
    pub disturbed: Vec<usize>,
    pub noise: Noise,
}

#[derive(Debug, Clone, Serialize)]
pub struct MachineChange {
    pub index: usize,
    pub file: String,
    /// Series that changed there, of those with data either side.
    pub series: usize,
    pub of: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct HistoryReport {
    pub order: Order,
    pub files: Vec<HistoryFile>,
    /// Changed series first (largest change first), then quiet ones by name.
    pub series: Vec<SeriesHistory>,
    /// Series without a change.
    pub quiet: usize,
    pub machine_changes: Vec<MachineChange>,
    /// Per commit, the factor all time series shared at that commit that
    /// was taken out before fitting them (the machine's wobble from run to
    /// run; `stats::changepoint::fit_together`); null when none was (fewer
    /// than three time series, or taking it out made them no quieter).
    pub shared: Option<Vec<f64>>,
    /// Series left out, and why.
    pub warnings: Vec<String>,
}

impl Across for History {
    const NAME: &'static str = "history";
    const TITLE: &'static str = "History";
    const NEEDS: Needs = Needs::All { min: 3 };
    // Per series, a fit over the commits' estimates: no resampling.
    const COST: u8 = 1;
    type Params = HistoryParams;
    type Report = HistoryReport;

    fn compute(
        files: &[&KeptFile],
        opts: &Options,
        p: &HistoryParams,
    ) -> Result<HistoryReport, String> {
        let docs: Vec<(&str, &Document)> = files
            .iter()
            .filter_map(|f| f.document().map(|d| (f.name(), d)))
            .collect();
        let mut report = history(&docs, opts, p.order);
        if !p.quiet_estimates {
            for s in report.series.iter_mut().filter(|s| s.change_points.is_empty()) {
                s.estimates.clear();
            }
        }
        Ok(report)
    }
}

/// The history of the documents (name, document), ordered as `order` says.
pub fn history(docs: &[(&str, &Document)], opts: &Options, order: OrderChoice) -> HistoryReport {
    let described: Vec<(HistoryFile, Option<i64>, Option<i64>)> =
        docs.iter().map(|(n, d)| describe(n, d)).collect();
    let (used, perm) = ordering(&described, order);
    let files: Vec<HistoryFile> = perm.iter().map(|&i| described[i].0.clone()).collect();
    let ordered: Vec<&Document> = perm.iter().map(|&i| docs[i].1).collect();
    let (columns, mut warnings) = collect_series(&ordered, opts.confidence);
    let points: Vec<Vec<Option<Point>>> = columns
        .iter()
        .map(|c| c.cells.iter().map(|x| x.map(|(_, p)| p)).collect())
        .collect();
    // Only times move with the machine's state together.
    let joint: Vec<bool> = columns
        .iter()
        .map(|c| quantity(&c.unit) == Quantity::Time)
        .collect();
    let together = changepoint::fit_together(&points, &joint);
    let shared = (!together.shared.is_empty())
        .then(|| together.shared.iter().map(|d| d.exp()).collect());
    let mut series: Vec<SeriesHistory> = columns
        .into_iter()
        .zip(together.fits)
        .filter_map(|(c, f)| Some(describe_series(c, f?, &files, opts.confidence)))
        .collect();
    let machine_changes = machine_changes(&mut series, &files);
    series.sort_by(|a, b| {
        size(b)
            .total_cmp(&size(a))
            .then_with(|| a.name.cmp(&b.name))
    });
    let quiet = series.iter().filter(|s| s.change_points.is_empty()).count();
    warnings.sort();
    HistoryReport {
        order: used,
        files,
        series,
        quiet,
        machine_changes,
        shared,
        warnings,
    }
}

/// The largest |log ratio| of a series' changes (0 when quiet).
fn size(s: &SeriesHistory) -> f64 {
    s.change_points
        .iter()
        .map(|c| c.ratio.estimate.ln().abs())
        .fold(0.0, f64::max)
}

/// A file as the history lists it, with its commit date and its run date
/// as sortable seconds.
fn describe(name: &str, doc: &Document) -> (HistoryFile, Option<i64>, Option<i64>) {
    let (revision, run_date): (Option<&Revision>, Option<String>) = match doc {
        Document::Run(r) => (r.run.revision.as_ref(), Some(r.run.started_at.clone())),
        Document::Samples(s) => (
            s.revision.as_deref(),
            s.host
                .as_ref()
                .and_then(|h| h.get("date"))
                .and_then(|v| v.as_str())
                .map(str::to_string),
        ),
    };
    let commit_date = revision.and_then(|r| r.date.clone());
    let file = HistoryFile {
        name: name.to_string(),
        commit: revision.and_then(|r| r.commit.clone()),
        branch: revision.and_then(|r| r.branch.clone()),
        dirty: revision.and_then(|r| r.dirty),
        date: commit_date.clone().or_else(|| run_date.clone()),
    };
    (
        file,
        commit_date.as_deref().and_then(seconds),
        run_date.as_deref().and_then(seconds),
    )
}

/// The order of the files: positions into `described`.
fn ordering(described: &[(HistoryFile, Option<i64>, Option<i64>)], choice: OrderChoice) -> (Order, Vec<usize>) {
    let mut perm: Vec<usize> = (0..described.len()).collect();
    if choice == OrderChoice::Given {
        return (Order::Given, perm);
    }
    let by_name = |a: &usize, b: &usize| natural(&described[*a].0.name, &described[*b].0.name);
    if described.iter().all(|d| d.1.is_some()) {
        perm.sort_by(|a, b| described[*a].1.cmp(&described[*b].1).then_with(|| by_name(a, b)));
        (Order::CommitDate, perm)
    } else if described.iter().all(|d| d.2.is_some()) {
        perm.sort_by(|a, b| described[*a].2.cmp(&described[*b].2).then_with(|| by_name(a, b)));
        (Order::RunDate, perm)
    } else {
        perm.sort_by(by_name);
        (Order::Name, perm)
    }
}

/// Names compared with runs of digits as numbers (`run-9` before `run-10`).
fn natural(a: &str, b: &str) -> Ordering {
    let mut x = a.chars().peekable();
    let mut y = b.chars().peekable();
    loop {
        match (x.peek().copied(), y.peek().copied()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let mut m = String::new();
                let mut n = String::new();
                while let Some(c) = x.peek().copied().filter(char::is_ascii_digit) {
                    m.push(c);
                    x.next();
                }
                while let Some(d) = y.peek().copied().filter(char::is_ascii_digit) {
                    n.push(d);
                    y.next();
                }
                let (m, n) = (m.trim_start_matches('0'), n.trim_start_matches('0'));
                let o = m.len().cmp(&n.len()).then_with(|| m.cmp(n));
                if o != Ordering::Equal {
                    return o;
                }
            }
            (Some(c), Some(d)) => {
                if c != d {
                    return c.cmp(&d);
                }
                x.next();
                y.next();
            }
        }
    }
}

/// Seconds since 1970 of a date as tools write it: `YYYY-MM-DD`, then
/// optionally `T` or a space, `HH:MM[:SS[.fraction]]` and `Z` or an offset
/// `±HH[:MM]` (none: UTC). Only ordering needs it, so this small reader
/// stands in for a date crate in the wasm build.
fn seconds(text: &str) -> Option<i64> {
    let t = text.trim();
    let num = |s: &str| -> Option<i64> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok())?
    };
    let (y, mo, d) = (num(t.get(0..4)?)?, num(t.get(5..7)?)?, num(t.get(8..10)?)?);
    if t.as_bytes().get(4) != Some(&b'-') || t.as_bytes().get(7) != Some(&b'-') || !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let (yy, m) = if mo <= 2 { (y - 1, mo + 9) } else { (y, mo - 3) };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * m + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let rest = t.get(10..).unwrap_or("");
    let rest = rest.strip_prefix(['T', 't', ' ']).unwrap_or(rest);
    let mut secs = days * 86_400;
    if rest.len() >= 5 && rest.as_bytes()[2] == b':' {
        secs += num(&rest[0..2])? * 3600 + num(&rest[3..5])? * 60;
        let mut tail = &rest[5..];
        if tail.len() >= 3 && tail.as_bytes()[0] == b':' {
            secs += num(&tail[1..3])?;
            tail = &tail[3..];
        }
        let tail = tail.trim_start_matches(|c: char| c == '.' || c == ',' || c.is_ascii_digit());
        if let Some(sign) = tail.chars().next().filter(|c| *c == '+' || *c == '-') {
            let z: String = tail[1..].chars().filter(char::is_ascii_digit).collect();
            let hh = num(z.get(0..2)?)?;
            let mm = z.get(2..4).and_then(num).unwrap_or(0);
            let off = hh * 3600 + mm * 60;
            secs -= if sign == '+' { off } else { -off };
        }
    }
    Some(secs)
}

/// One series across the ordered files: its identity and each file's
/// estimate (log point and interval).
struct Column {
    suite: String,
    name: String,
    unit: String,
    cells: Vec<Option<(Interval, Point)>>,
}

/// Every series of the ordered documents, in order of first appearance,
/// with each file's estimate; series with fewer than three estimates are
/// left out (with a warning naming how many there are).
fn collect_series(docs: &[&Document], confidence: f64) -> (Vec<Column>, Vec<String>) {
    let mut columns: Vec<Column> = Vec::new();
    let mut index: HashMap<(String, String, String), usize> = HashMap::new();
    let mut warnings = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        for (suite, _) in compared_cells() {
            for item in items_of(doc, suite).into_iter().filter(|it| !it.warm_up) {
                let key = (suite.to_string(), item.key.clone(), item.unit.clone());
                let c = *index.entry(key).or_insert_with(|| {
                    columns.push(Column {
                        suite: suite.to_string(),
                        name: item.key.clone(),
                        unit: item.unit.clone(),
                        cells: vec![None; docs.len()],
                    });
                    columns.len() - 1
                });
                columns[c].cells[i] = commit_estimate(&item.data, confidence);
            }
        }
    }
    let shared = docs.len().min(3);
    columns.retain(|c| {
        let n = c.cells.iter().flatten().count();
        let nonpositive = c.cells.iter().flatten().any(|(e, _)| e.estimate <= 0.0);
        if n < shared {
            return false;
        }
        if nonpositive {
            warnings.push(format!(
                "{}: left out, an estimate is 0 or negative (changes are ratios)",
                c.name
            ));
            return false;
        }
        true
    });
    (columns, warnings)
}

/// A commit's estimate of a series with its interval, and the point the
/// change-point fit sees (log estimate, its standard error there).
fn commit_estimate(data: &Measurements, confidence: f64) -> Option<(Interval, Point)> {
    let z = Normal::standard().inverse_cdf(0.5 + confidence / 2.0);
    let mean_se = |xs: &[f64]| -> (f64, f64, f64) {
        let n = xs.len() as f64;
        let m = xs.iter().sum::<f64>() / n;
        if xs.len() < 2 {
            return (m, 0.0, 0.0);
        }
        let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
        let t = StudentsT::new(0.0, 1.0, n - 1.0)
            .map(|t| t.inverse_cdf(0.5 + confidence / 2.0))
            .unwrap_or(z);
        (m, (var / n).sqrt(), t)
    };
    let (estimate, se, q) = match data {
        Measurements::Flat(xs) if !xs.is_empty() => median_se(xs, z),
        Measurements::Grouped(ex) if ex.len() >= 2 && ex.iter().any(|e| e.len() > 1) => {
            let means: Vec<f64> = ex
                .iter()
                .filter(|e| !e.is_empty())
                .map(|e| e.iter().sum::<f64>() / e.len() as f64)
                .collect();
            if means.is_empty() {
                return None;
            }
            mean_se(&means)
        }
        Measurements::Grouped(ex) => {
            let xs: Vec<f64> = ex.iter().flatten().copied().collect();
            if xs.is_empty() {
                return None;
            }
            mean_se(&xs)
        }
        Measurements::Flat(_) => return None,
    };
    if !estimate.is_finite() || !se.is_finite() {
        return None;
    }
    let interval = Interval {
        estimate,
        low: estimate - q * se,
        high: estimate + q * se,
    };
    let point = Point {
        y: if estimate > 0.0 { estimate.ln() } else { f64::NAN },
        se: if estimate > 0.0 { se / estimate } else { 0.0 },
    };
    Some((interval, point))
}

/// The median with a standard error from the median absolute deviation
/// (√(π/2)·1.4826·MAD/√n, its large-sample value for normal data), and
/// the normal quantile.
fn median_se(xs: &[f64], z: f64) -> (f64, f64, f64) {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let med = |v: &[f64]| {
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    };
    let m = med(&v);
    let mut dev: Vec<f64> = v.iter().map(|x| (x - m).abs()).collect();
    dev.sort_by(f64::total_cmp);
    let mad = med(&dev);
    let se = (std::f64::consts::PI / 2.0).sqrt() * 1.4826 * mad / (v.len() as f64).sqrt();
    (m, se, z)
}

/// The fitted history of one series as the report has it.
fn describe_series(c: Column, fit: Fit, files: &[HistoryFile], confidence: f64) -> SeriesHistory {
    let z = Normal::standard().inverse_cdf(0.5 + confidence / 2.0);
    let interval = |v: f64, se: f64| Interval {
        estimate: v.exp(),
        low: (v - z * se).exp(),
        high: (v + z * se).exp(),
    };
    let worse = match quantity(&c.unit) {
        Quantity::Time | Quantity::Memory => Some(()),
        Quantity::Other => None,
    };
    let change_points = fit
        .changes
        .iter()
        .map(|ch| {
            let d = ch.after - ch.before;
            let se = (ch.before_se.powi(2) + ch.after_se.powi(2)).sqrt();
            ChangePoint {
                index: ch.index,
                file: files[ch.index].name.clone(),
                kind: match ch.kind {
                    Kind::Flat => ChangeKind::Step,
                    Kind::Drift => ChangeKind::Drift,
                },
                end: ch.end,
                before: interval(ch.before, ch.before_se),
                after: interval(ch.after, ch.after_se),
                ratio: interval(d, se),
                p: ch.p,
                cause: Cause::Code,
                regression: worse.map(|_| d > 0.0),
            }
        })
        .collect();
    SeriesHistory {
        unit_ns: ns_per_unit(&c.unit),
        levels: fit
            .segments
            .iter()
            .map(|s| Level {
                start: s.start,
                end: s.end,
                kind: match s.kind {
                    Kind::Flat => ChangeKind::Flat,
                    Kind::Drift => ChangeKind::Drift,
                },
                from: s.from.exp(),
                to: s.to.exp(),
            })
            .collect(),
        estimates: c.cells.iter().map(|x| x.map(|(e, _)| e)).collect(),
        name: c.name,
        suite: c.suite,
        unit: c.unit,
        change_points,
        disturbed: fit.disturbed,
        noise: Noise {
            within: fit.within,
            between: fit.between,
            wander: fit.wander,
        },
    }
}

/// Commits where most series (at least two, of at least three with data
/// either side) changed at once: likely the machine, not the code. Their
/// change points are marked so.
fn machine_changes(series: &mut [SeriesHistory], files: &[HistoryFile]) -> Vec<MachineChange> {
    let mut out = Vec::new();
    for (k, file) in files.iter().enumerate().skip(1) {
        let with_data = series
            .iter()
            .filter(|s| s.estimates[..k].iter().any(Option::is_some) && s.estimates[k..].iter().any(Option::is_some))
            .count();
        let changed = series
            .iter()
            .filter(|s| s.change_points.iter().any(|c| c.index == k))
            .count();
        if with_data >= 3 && changed >= 2 && 2 * changed > with_data {
            for s in series.iter_mut() {
                for c in s.change_points.iter_mut().filter(|c| c.index == k) {
                    c.cause = Cause::Machine;
                }
            }
            out.push(MachineChange {
                index: k,
                file: file.name.clone(),
                series: changed,
                of: with_data,
            });
        }
    }
    out
}

/// Whether the latest commit starts a step, or lies inside a drift, that
/// is a regression larger than `pct` percent (the CI gate), and which.
pub fn latest_regressions(report: &HistoryReport, pct: f64) -> Vec<(&SeriesHistory, &ChangePoint)> {
    let Some(last) = report.files.len().checked_sub(1) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for s in &report.series {
        for c in &s.change_points {
            let at_latest = match c.kind {
                ChangeKind::Drift => c.index <= last && last <= c.end,
                _ => c.index == last,
            };
            if at_latest && c.regression == Some(true) && (c.ratio.estimate - 1.0) * 100.0 > pct {
                out.push((s, c));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_as_tools_write_them_order_as_instants() {
        let a = seconds("2019-04-04T11:05:52+02:00").unwrap();
        let b = seconds("2019-04-04 10:05:51").unwrap();
        let c = seconds("2019-04-04T09:05:53Z").unwrap();
        assert_eq!(a - c, -1);
        assert_eq!(b - a, 3599);
        assert_eq!(seconds("1970-01-02").unwrap(), 86_400);
        assert_eq!(seconds("2000-03-01T00:00:00.123456").unwrap(), 951_868_800);
        assert!(seconds("not a date").is_none());
        assert!(seconds("2019-13-01").is_none());
    }

    #[test]
    fn names_order_with_numbers_as_numbers() {
        let mut v = vec!["run-10.json", "run-9.json", "run-009b.json", "a.json"];
        v.sort_by(|a, b| natural(a, b));
        assert_eq!(v, ["a.json", "run-9.json", "run-009b.json", "run-10.json"]);
    }

    #[test]
    fn a_flat_commit_estimate_is_the_median() {
        let (e, p) = commit_estimate(&Measurements::Flat(vec![3.0, 1.0, 2.0, 100.0, 2.5]), 0.95).unwrap();
        assert_eq!(e.estimate, 2.5);
        assert!(e.low < 2.5 && e.high > 2.5);
        assert!((p.y - 2.5f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn executions_give_the_mean_of_means_and_their_t_interval() {
        // Means 1, 2, 3: mean 2, sd 1, se 1/√3, t(2) at 97.5 % = 4.302653.
        let d = Measurements::Grouped(vec![vec![0.5, 1.5], vec![2.0, 2.0], vec![3.0, 3.0]]);
        let (e, _) = commit_estimate(&d, 0.95).unwrap();
        assert!((e.estimate - 2.0).abs() < 1e-12);
        assert!((e.high - (2.0 + 4.302_652_729_911_275 / 3f64.sqrt())).abs() < 1e-9);
    }
}
