//! Published latency and reciprocal throughput per core, beside the
//! measured ones: which core the host is (CPUID, and which core's figures
//! the measured table matches best), and a verdict per operation.
//!
//! The figures are `published/op-latencies.csv`, embedded as it is (see
//! docs/published-latencies.md: InstLatX64's per-CPU dumps and uops.info's
//! table, each value with its source and citation). It is parsed once; the
//! page and `tickbook analyze` read the same bytes.
//!
//! The rule: a measured cost agrees with a published figure when it lies
//! within max(10 %, 0.2 cycle) of the figure's range (a source may give a
//! range, e.g. per operand); with a core when it agrees with any of that
//! core's sources. An operation whose form differs from what the sources
//! time, that has no figure, or whose sources for the core contradict each
//! other (no value agrees with all of them), is not comparable and says why;
//! it is never counted.

use super::row::OpRow;
use crate::format::Host;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

/// The figures as shipped.
pub const CSV: &str = include_str!("published/op-latencies.csv");

/// Relative and absolute tolerance of the agreement rule.
pub const REL_TOLERANCE: f64 = 0.10;
pub const ABS_TOLERANCE: f64 = 0.2;

/// One line of the CSV.
#[derive(Debug, Clone, Deserialize)]
struct Line {
    op: String,
    form: String,
    microarchitecture: String,
    source: String,
    cycles_low: f64,
    cycles_high: f64,
    note: String,
    citation: String,
}

/// One published value: a source's figure for one form of one operation on
/// one core.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Figure {
    /// `instlatx64` or `uops.info`.
    pub source: String,
    pub low: f64,
    pub high: f64,
    /// Where the reference timed something other than the suite's form,
    /// or a caveat (data-dependent latency).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Repository, path and commit the value was read from.
    pub citation: String,
}

/// A core the figures cover, and how CPUID names it.
#[derive(Debug, Clone, Copy)]
pub struct Core {
    /// The CSV's `microarchitecture`.
    pub key: &'static str,
    pub name: &'static str,
    vendor: &'static str,
    family: u32,
    /// (first model, last model, product) — inclusive ranges.
    models: &'static [(u32, u32, &'static str)],
}

/// Every core in the data, with the CPUID models of its products.
pub const CORES: &[Core] = &[
    Core {
        key: "sunny_cove",
        name: "Sunny Cove",
        vendor: "GenuineIntel",
        family: 6,
        models: &[
            (0x6A, 0x6A, "Ice Lake-SP"),
            (0x6C, 0x6C, "Ice Lake-D"),
            (0x7D, 0x7E, "Ice Lake"),
        ],
    },
    Core {
        key: "cypress_cove",
        name: "Cypress Cove",
        vendor: "GenuineIntel",
        family: 6,
        models: &[(0xA7, 0xA7, "Rocket Lake")],
    },
    Core {
        key: "golden_cove",
        name: "Golden Cove",
        vendor: "GenuineIntel",
        family: 6,
        models: &[
            (0x8F, 0x8F, "Sapphire Rapids"),
            (0x97, 0x97, "Alder Lake-S"),
            (0x9A, 0x9A, "Alder Lake-P"),
        ],
    },
    Core {
        key: "raptor_cove",
        name: "Raptor Cove",
        vendor: "GenuineIntel",
        family: 6,
        models: &[
            (0xB7, 0xB7, "Raptor Lake-S"),
            (0xBA, 0xBA, "Raptor Lake-P"),
            (0xBF, 0xBF, "Raptor Lake-S"),
            (0xCF, 0xCF, "Emerald Rapids"),
        ],
    },
    Core {
        key: "redwood_cove",
        name: "Redwood Cove",
        vendor: "GenuineIntel",
        family: 6,
        models: &[
            (0xAA, 0xAA, "Meteor Lake"),
            (0xAC, 0xAC, "Meteor Lake"),
            (0xAD, 0xAD, "Granite Rapids"),
            (0xAE, 0xAE, "Granite Rapids-D"),
        ],
    },
    Core {
        key: "lion_cove",
        name: "Lion Cove",
        vendor: "GenuineIntel",
        family: 6,
        models: &[(0xBD, 0xBD, "Lunar Lake"), (0xC5, 0xC6, "Arrow Lake")],
    },
    Core {
        key: "zen3",
        name: "Zen 3",
        vendor: "AuthenticAMD",
        family: 0x19,
        models: &[
            (0x00, 0x0F, "Milan"),
            (0x20, 0x2F, "Vermeer"),
            (0x40, 0x4F, "Rembrandt"),
            (0x50, 0x5F, "Cezanne"),
        ],
    },
    Core {
        key: "zen4",
        name: "Zen 4",
        vendor: "AuthenticAMD",
        family: 0x19,
        models: &[
            (0x10, 0x1F, "Genoa"),
            (0x60, 0x6F, "Raphael"),
            (0x70, 0x7F, "Phoenix"),
            (0xA0, 0xAF, "Bergamo"),
        ],
    },
];

/// Operations whose suite form is not what the references time: compared
/// with nothing, with the reason shown.
pub const FORM_DIFFERENCES: &[(&str, &str, &str)] = &[(
    "store_u64",
    "latency",
    "different form: the suite times a store then a reload of the same address \
     (store-to-load forwarding); the references chain load → store → load",
)];

/// The embedded figures: (op, form, core key) → one figure per source.
pub struct Figures {
    pub by_key: BTreeMap<(String, String, String), Vec<Figure>>,
}

impl Figures {
    /// Parse the CSV; every line needs finite cycles (low ≤ high), a known
    /// core, a form, a source and a citation.
    pub fn parse(text: &str) -> Result<Figures, String> {
        let mut by_key: BTreeMap<(String, String, String), Vec<Figure>> = BTreeMap::new();
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        for (i, line) in reader.deserialize::<Line>().enumerate() {
            let at = i + 2;
            let l = line.map_err(|e| format!("line {at}: {e}"))?;
            if !(l.cycles_low.is_finite()
                && l.cycles_high.is_finite()
                && 0.0 <= l.cycles_low
                && l.cycles_low <= l.cycles_high)
            {
                return Err(format!("line {at}: expected 0 ≤ cycles_low ≤ cycles_high"));
            }
            if !CORES.iter().any(|c| c.key == l.microarchitecture) {
                return Err(format!(
                    "line {at}: unknown microarchitecture {:?}",
                    l.microarchitecture
                ));
            }
            if !matches!(l.form.as_str(), "latency" | "throughput") {
                return Err(format!("line {at}: unknown form {:?}", l.form));
            }
            if l.citation.trim().is_empty() || l.source.trim().is_empty() || l.op.is_empty() {
                return Err(format!(
                    "line {at}: expected an op, a source and a citation"
                ));
            }
            by_key
                .entry((l.op, l.form, l.microarchitecture))
                .or_default()
                .push(Figure {
                    source: l.source,
                    low: l.cycles_low,
                    high: l.cycles_high,
                    note: (!l.note.trim().is_empty()).then_some(l.note),
                    citation: l.citation,
                });
        }
        Ok(Figures { by_key })
    }

    /// The figures shipped with this build.
    pub fn embedded() -> Result<&'static Figures, &'static str> {
        static F: OnceLock<Result<Figures, String>> = OnceLock::new();
        F.get_or_init(|| Figures::parse(CSV))
            .as_ref()
            .map_err(String::as_str)
    }

    pub fn of(&self, op: &str, form: &str, core: &str) -> &[Figure] {
        self.by_key
            .get(&(op.to_string(), form.to_string(), core.to_string()))
            .map_or(&[], Vec::as_slice)
    }

    /// Every (op, form) with a figure.
    pub fn operations(&self) -> BTreeSet<(&str, &str)> {
        self.by_key
            .keys()
            .map(|(o, f, _)| (o.as_str(), f.as_str()))
            .collect()
    }
}

/// The tolerance around a published value.
pub fn tolerance(published: f64) -> f64 {
    (REL_TOLERANCE * published.abs()).max(ABS_TOLERANCE)
}

/// Whether `measured` lies within the tolerance of [low, high] (boundary
/// included; the tolerance is taken at the nearer end).
pub fn agrees(measured: f64, low: f64, high: f64) -> bool {
    // Rounding in the subtraction must not move a value on the boundary out.
    const SLACK: f64 = 1e-9;
    if measured < low {
        low - measured <= tolerance(low) + SLACK
    } else if measured > high {
        measured - high <= tolerance(high) + SLACK
    } else {
        true
    }
}

fn agrees_any(measured: f64, figures: &[Figure]) -> bool {
    figures.iter().any(|f| agrees(measured, f.low, f.high))
}

/// Whether one core's sources contradict each other: no value agrees with
/// every one of them. Each figure accepts an interval, so they meet when the
/// highest lower end is accepted by all.
pub fn contradict(figures: &[Figure]) -> bool {
    let Some(x) = figures
        .iter()
        .map(|f| f.low - tolerance(f.low))
        .reduce(f64::max)
    else {
        return false;
    };
    !figures.iter().all(|f| agrees(x, f.low, f.high))
}

/// How the report names a source.
fn source_name(source: &str) -> &str {
    match source {
        "instlatx64" => "InstLatX64",
        s => s,
    }
}

/// A figure in cycles for a sentence: `20`, `0.5–1`.
fn figure_text(low: f64, high: f64) -> String {
    let n = |x: f64| {
        let s = format!("{x:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    if low == high {
        n(low)
    } else {
        format!("{}–{}", n(low), n(high))
    }
}

/// Why a row whose core's sources contradict each other is not comparable.
fn disagreement(figures: &[Figure]) -> String {
    let each: Vec<String> = figures
        .iter()
        .map(|f| format!("{} {}", source_name(&f.source), figure_text(f.low, f.high)))
        .collect();
    format!(
        "the published figures disagree ({}): the time depends on what the sources timed \
         (operand values, form)",
        each.join(", ")
    )
}

/// What CPUID says the host is.
#[derive(Debug, Clone, Serialize)]
pub struct ReportedCpu {
    pub vendor: Option<String>,
    pub family: Option<u32>,
    pub model: Option<u32>,
    pub model_name: Option<String>,
    /// The product the vendor, family and model name (e.g. `Genoa`).
    pub product: Option<String>,
    /// The core of that product, when the data cover it (a key of `scores`).
    pub core: Option<String>,
    pub core_name: Option<String>,
    /// A hypervisor reported by the host (CPUID signature, sysfs or the
    /// `hypervisor` flag): the model it reports need not be the hardware's.
    pub hypervisor: Option<String>,
}

/// Agreements of one form with one core.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct Agreement {
    pub agree: usize,
    pub comparable: usize,
}

impl Agreement {
    pub fn share(&self) -> Option<f64> {
        (self.comparable > 0).then(|| self.agree as f64 / self.comparable as f64)
    }
}

/// The measured table scored against one core's figures.
#[derive(Debug, Clone, Serialize)]
pub struct CoreScore {
    pub core: String,
    pub name: String,
    pub latency: Agreement,
    pub throughput: Agreement,
    /// Both forms together: agreements over comparable operations.
    pub share: Option<f64>,
    /// Each disagreement: operation, form, measured, published range.
    pub differs: Vec<Difference>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    pub name: String,
    pub form: String,
    pub measured: f64,
    pub low: f64,
    pub high: f64,
}

/// `agrees`, `differs` or `not_comparable`.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Agrees,
    Differs,
    NotComparable,
}

/// One measured operation beside the chosen core's figures.
#[derive(Debug, Clone, Serialize)]
pub struct PublishedRow {
    pub name: String,
    pub form: String,
    /// Measured core cycles (median).
    pub measured: Option<f64>,
    /// The range of the core's figures over its sources.
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub verdict: Verdict,
    /// Why it is not comparable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Each source's figure.
    pub figures: Vec<Figure>,
}

/// An operation whose figures tell cores apart, with each core's range and
/// whether the measured cost agrees with it.
#[derive(Debug, Clone, Serialize)]
pub struct Discriminator {
    pub name: String,
    pub form: String,
    pub measured: Option<f64>,
    pub cores: Vec<CoreFigure>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CoreFigure {
    pub core: String,
    pub name: String,
    pub low: f64,
    pub high: f64,
    pub agrees: Option<bool>,
}

/// The measured table against the published figures.
#[derive(Debug, Clone, Serialize)]
pub struct PublishedComparison {
    pub reported: ReportedCpu,
    /// The core whose figures fit the measured table best.
    pub best_match: Option<String>,
    pub best_match_name: Option<String>,
    /// The core the rows compare with: the CPUID pick on bare metal, the
    /// best match under a hypervisor or when the model is not in the data.
    pub core: Option<String>,
    pub core_name: Option<String>,
    /// Why `core` was chosen.
    pub chosen_by: String,
    /// "reports Genoa (Zen 4), behaves like Zen 4".
    pub summary: String,
    /// The rule, in words.
    pub rule: String,
    /// Every core, best first.
    pub scores: Vec<CoreScore>,
    /// Why the scores count latencies only (the core was shared), when
    /// they do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latencies_only: Option<String>,
    pub discriminating: Vec<Discriminator>,
    pub rows: Vec<PublishedRow>,
}

/// The core CPUID names, and the product.
fn reported_core(
    vendor: Option<&str>,
    family: Option<u32>,
    model: Option<u32>,
) -> Option<(&'static Core, &'static str)> {
    let (v, f, m) = (vendor?, family?, model?);
    CORES.iter().find_map(|c| {
        (c.vendor == v && c.family == f)
            .then(|| c.models.iter().find(|(lo, hi, _)| (*lo..=*hi).contains(&m)))
            .flatten()
            .map(|(_, _, p)| (c, *p))
    })
}

fn core_name(key: &str) -> &'static str {
    CORES.iter().find(|c| c.key == key).map_or("?", |c| c.name)
}

/// Measured core cycles of an available asm operation, or why there are none.
fn measured(r: &OpRow) -> Result<f64, String> {
    if !r.available {
        return Err(format!(
            "not measured: {}",
            r.unavailable_reason.as_deref().unwrap_or("unavailable")
        ));
    }
    if r.implementation != "asm" {
        return Err("compiled Rust, not the instruction the figures time".into());
    }
    r.core_cycles
        .as_ref()
        .map(|c| c.estimate)
        .filter(|c| c.is_finite())
        .ok_or_else(|| "no core-cycle time".into())
}

/// The verdict of one row against one core.
fn verdict(figs: &Figures, r: &OpRow, core: &str) -> (Verdict, Option<String>, Option<f64>) {
    let m = measured(r).ok();
    if let Some((_, _, why)) = FORM_DIFFERENCES
        .iter()
        .find(|(o, f, _)| *o == r.name && *f == r.form)
    {
        return (Verdict::NotComparable, Some((*why).into()), m);
    }
    let f = figs.of(&r.name, &r.form, core);
    if f.is_empty() {
        return (
            Verdict::NotComparable,
            Some(format!("no published figure for {}", core_name(core))),
            m,
        );
    }
    // A measurement may land on either source or between them: agreeing
    // with one would be chance, so neither is a reference.
    if contradict(f) {
        return (Verdict::NotComparable, Some(disagreement(f)), m);
    }
    match measured(r) {
        Err(why) => (Verdict::NotComparable, Some(why), None),
        Ok(m) if agrees_any(m, f) => (Verdict::Agrees, None, Some(m)),
        Ok(m) => (Verdict::Differs, None, Some(m)),
    }
}

fn score(figs: &Figures, rows: &[OpRow], core: &Core) -> CoreScore {
    let mut latency = Agreement {
        agree: 0,
        comparable: 0,
    };
    let mut throughput = latency;
    let mut differs = Vec::new();
    for r in rows {
        let (v, _, m) = verdict(figs, r, core.key);
        let a = match r.form.as_str() {
            "latency" => &mut latency,
            "throughput" => &mut throughput,
            _ => continue,
        };
        match v {
            Verdict::Agrees => {
                a.agree += 1;
                a.comparable += 1;
            }
            Verdict::Differs => {
                a.comparable += 1;
                let f = figs.of(&r.name, &r.form, core.key);
                differs.push(Difference {
                    name: r.name.clone(),
                    form: r.form.clone(),
                    measured: m.unwrap_or(f64::NAN),
                    low: f.iter().map(|x| x.low).fold(f64::INFINITY, f64::min),
                    high: f.iter().map(|x| x.high).fold(f64::NEG_INFINITY, f64::max),
                });
            }
            Verdict::NotComparable => {}
        }
    }
    let all = Agreement {
        agree: latency.agree + throughput.agree,
        comparable: latency.comparable + throughput.comparable,
    };
    CoreScore {
        core: core.key.into(),
        name: core.name.into(),
        latency,
        throughput,
        share: all.share(),
        differs,
    }
}

/// Whether no figure of one core agrees with any value that agrees with a
/// figure of the other (no measurement could agree with both), every figure
/// being sharp and neither core's sources contradicting each other (a core
/// whose figures straddle the other's is not told apart by them).
fn separates(a: &[Figure], b: &[Figure]) -> bool {
    let apart = |x: &Figure, y: &Figure| {
        let (lo, hi) = if x.high < y.low { (x, y) } else { (y, x) };
        // Two values agreeing with both would have to bridge the gap.
        lo.high < hi.low && hi.low - lo.high > tolerance(lo.high) + tolerance(hi.low)
    };
    // A wide range (a latency per operand pair, say) tells nothing apart.
    let sharp = |x: &Figure| x.high - x.low <= tolerance(x.high);
    !a.is_empty()
        && !b.is_empty()
        && a.iter().chain(b).all(sharp)
        && !contradict(a)
        && !contradict(b)
        && a.iter().all(|x| b.iter().all(|y| apart(x, y)))
}

/// A few operations that tell the cores apart: greedily, the operation that
/// separates the most pairs of cores not yet separated twice, until every
/// pair that any operation separates is separated twice (latency first on
/// ties, then the 64-bit forms). Operations whose suite form differs from
/// the references' are left out. Depends on the data only.
pub fn discriminating_ops(figs: &Figures) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    for (i, a) in CORES.iter().enumerate() {
        for b in &CORES[i + 1..] {
            pairs.push((a.key, b.key));
        }
    }
    let ops: Vec<(&str, &str)> = figs
        .operations()
        .into_iter()
        .filter(|(o, f)| !FORM_DIFFERENCES.iter().any(|(x, y, _)| x == o && y == f))
        .collect();
    let covers: Vec<Vec<usize>> = ops
        .iter()
        .map(|(o, f)| {
            (0..pairs.len())
                .filter(|&p| separates(figs.of(o, f, pairs[p].0), figs.of(o, f, pairs[p].1)))
                .collect()
        })
        .collect();
    let mut need: Vec<usize> = (0..pairs.len())
        .map(|p| {
            if covers.iter().any(|c| c.contains(&p)) {
                2
            } else {
                0
            }
        })
        .collect();
    let mut chosen: Vec<usize> = Vec::new();
    loop {
        let gain = |i: usize| covers[i].iter().filter(|&&p| need[p] > 0).count();
        // An operation that separates exactly the pairs a chosen one does
        // (the f32 twin of an f64 form) adds nothing to show.
        let best = (0..ops.len())
            .filter(|i| !chosen.iter().any(|&c| c == *i || covers[c] == covers[*i]))
            .max_by(|&a, &b| {
                gain(a)
                    .cmp(&gain(b))
                    .then((ops[a].1 == "latency").cmp(&(ops[b].1 == "latency")))
                    // By name, the 64-bit and f64 forms first (mulsd
                    // rather than mulss): `_i64` sorts after `_i32`.
                    .then(ops[a].cmp(&ops[b]))
            });
        match best {
            Some(i) if gain(i) > 0 => {
                for &p in &covers[i] {
                    need[p] = need[p].saturating_sub(1);
                }
                chosen.push(i);
            }
            _ => break,
        }
    }
    chosen
        .into_iter()
        .map(|i| (ops[i].0.to_string(), ops[i].1.to_string()))
        .collect()
}

fn share_order(a: &CoreScore, b: &CoreScore) -> std::cmp::Ordering {
    let s = |x: &CoreScore| x.share.unwrap_or(-1.0);
    s(b).total_cmp(&s(a))
        .then((b.latency.agree + b.throughput.agree).cmp(&(a.latency.agree + a.throughput.agree)))
        .then(a.core.cmp(&b.core))
}

/// The core whose figures a table is held to when its throughputs may be
/// slowed by a sibling thread: CPUID's pick on bare metal, else the best
/// match on latencies alone (a dependency chain is not slowed by another
/// thread on the core). With how it was chosen.
pub fn latency_core(
    figs: &Figures,
    rows: &[OpRow],
    host: Option<&Host>,
) -> Option<(String, String)> {
    let cpu = host.map(|h| &h.cpu);
    let hypervisor = host
        .is_some_and(|h| h.hypervisor.is_some() || h.cpu.flags.iter().any(|f| f == "hypervisor"));
    let pick = reported_core(
        cpu.and_then(|c| c.vendor.as_deref()),
        cpu.and_then(|c| c.family),
        cpu.and_then(|c| c.model),
    );
    if let (Some((c, _)), false) = (pick, hypervisor) {
        return Some((c.key.to_string(), "CPUID: bare metal, a known model".into()));
    }
    let mut scores: Vec<CoreScore> = CORES.iter().map(|c| score(figs, rows, c)).collect();
    scores.sort_by(|a, b| {
        let s = |x: &CoreScore| x.latency.share().unwrap_or(-1.0);
        s(b).total_cmp(&s(a))
            .then(b.latency.agree.cmp(&a.latency.agree))
            .then(a.core.cmp(&b.core))
    });
    let best = scores.first().filter(|s| s.latency.share().is_some())?;
    Some((
        best.core.clone(),
        "best match on latencies alone (the reported model need not be the hardware's)".into(),
    ))
}

/// Every core's score, best first; on latencies alone, with why, when the
/// core's issue width was shared.
fn scored(
    figs: &Figures,
    rows: &[OpRow],
    shared: Option<&str>,
) -> (Vec<CoreScore>, Option<String>) {
    let latencies_only = shared.map(|text| {
        format!("scored on latencies alone: {text}; throughputs are shown but not counted")
    });
    let mut scores: Vec<CoreScore> = CORES.iter().map(|c| score(figs, rows, c)).collect();
    if latencies_only.is_some() {
        for s in &mut scores {
            s.share = s.latency.share();
        }
    }
    scores.sort_by(share_order);
    (scores, latencies_only)
}

/// Why a host's table has no comparison at all, when the figures have no
/// core of its architecture (every core in `op-latencies.csv` is x86-64):
/// said rather than comparing, say, an aarch64 table with x86 cores.
pub fn absent_for(host: Option<&Host>) -> Option<String> {
    let h = host?;
    (h.arch != "x86_64").then(|| {
        format!(
            "no published figures for {}: the figures (InstLatX64, uops.info) are of x86-64 cores only, so this table is not compared with any",
            h.arch
        )
    })
}

/// The comparison of an ops table with the published figures, or `None`
/// when there is nothing to compare: not x86_64, or no core-cycle times.
///
/// When the core's issue width was shared (`shared`: the issue check's
/// sentence, `issue.rs`), throughputs measure the sharing, not the core:
/// the cores are then scored on latencies alone and `latencies_only` says
/// so.
pub fn compare(
    rows: &[OpRow],
    host: Option<&Host>,
    shared: Option<&str>,
) -> Option<PublishedComparison> {
    let figs = Figures::embedded().ok()?;
    if let Some(h) = host {
        if h.arch != "x86_64" {
            return None;
        }
    }
    if !rows.iter().any(|r| measured(r).is_ok()) {
        return None;
    }
    let cpu = host.map(|h| &h.cpu);
    let vendor = cpu.and_then(|c| c.vendor.clone());
    let family = cpu.and_then(|c| c.family);
    let model = cpu.and_then(|c| c.model);
    let hypervisor = host.and_then(|h| {
        h.hypervisor.clone().or_else(|| {
            h.cpu
                .flags
                .iter()
                .any(|f| f == "hypervisor")
                .then(|| "hypervisor flag".to_string())
        })
    });
    let pick = reported_core(vendor.as_deref(), family, model);
    let reported = ReportedCpu {
        vendor,
        family,
        model,
        model_name: cpu.and_then(|c| c.model_name.clone()),
        product: pick.map(|(_, p)| p.to_string()),
        core: pick.map(|(c, _)| c.key.to_string()),
        core_name: pick.map(|(c, _)| c.name.to_string()),
        hypervisor,
    };

    let (scores, latencies_only) = scored(figs, rows, shared);
    let best = scores.first().filter(|s| s.share.is_some());
    let best_key = best.map(|s| s.core.clone());

    let (core, chosen_by) = match (pick, &reported.hypervisor) {
        (Some((c, _)), None) => (Some(c.key.to_string()), "CPUID: bare metal, a known model".to_string()),
        (Some(_), Some(h)) => (
            best_key.clone(),
            format!("best match: under a hypervisor ({h}) the reported model need not be the hardware's"),
        ),
        (None, _) => (
            best_key.clone(),
            "best match: the reported model is not among the cores in the data".to_string(),
        ),
    };
    let reports = match (&reported.product, &reported.core_name) {
        (Some(p), Some(c)) => format!("reports {p} ({c})"),
        _ => match (&reported.vendor, reported.family, reported.model) {
            (Some(v), Some(f), Some(m)) => {
                format!("reports {v} family {f} model {m} (not among the cores in the data)")
            }
            _ => "reports no CPUID model".to_string(),
        },
    };
    let summary = match (best, &latencies_only) {
        (Some(b), None) => format!("{reports}, behaves like {}", b.name),
        (Some(b), Some(_)) => format!(
            "{reports}, behaves like {} on latencies (throughputs left out: the core's issue width was shared)",
            b.name
        ),
        (None, _) => format!("{reports}; no operation comparable with any core"),
    };

    let rows_out: Vec<PublishedRow> = match &core {
        Some(k) => rows
            .iter()
            .map(|r| {
                let (verdict, reason, m) = verdict(figs, r, k);
                let f = figs.of(&r.name, &r.form, k).to_vec();
                PublishedRow {
                    name: r.name.clone(),
                    form: r.form.clone(),
                    measured: m,
                    low: f.iter().map(|x| x.low).reduce(f64::min),
                    high: f.iter().map(|x| x.high).reduce(f64::max),
                    verdict,
                    reason,
                    figures: f,
                }
            })
            .collect(),
        None => Vec::new(),
    };

    let discriminating = discriminating_ops(figs)
        .into_iter()
        .map(|(name, form)| {
            let m = rows
                .iter()
                .find(|r| r.name == name && r.form == form)
                .and_then(|r| measured(r).ok());
            let cores = CORES
                .iter()
                .filter_map(|c| {
                    let f = figs.of(&name, &form, c.key);
                    (!f.is_empty()).then(|| CoreFigure {
                        core: c.key.into(),
                        name: c.name.into(),
                        low: f.iter().map(|x| x.low).fold(f64::INFINITY, f64::min),
                        high: f.iter().map(|x| x.high).fold(f64::NEG_INFINITY, f64::max),
                        // Never a mark against figures the score does
                        // not count.
                        agrees: m.filter(|_| !contradict(f)).map(|m| agrees_any(m, f)),
                    })
                })
                .collect();
            Discriminator {
                name,
                form,
                measured: m,
                cores,
            }
        })
        .collect();

    Some(PublishedComparison {
        best_match_name: best.map(|b| b.name.clone()),
        best_match: best_key,
        core_name: core.as_deref().map(|k| core_name(k).to_string()),
        core,
        chosen_by,
        summary,
        rule: format!(
            "agrees when the measured core cycles lie within max({:.0} %, {} cycle) of a source's published range",
            REL_TOLERANCE * 100.0,
            ABS_TOLERANCE
        ),
        reported,
        scores,
        latencies_only,
        discriminating,
        rows: rows_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{Cpu, Host};
    use crate::stats::bootstrap::BootstrapCi;

    fn row(name: &str, form: &str, cycles: Option<f64>) -> OpRow {
        OpRow {
            name: name.into(),
            group: "integer".into(),
            form: form.into(),
            implementation: "asm".into(),
            instruction: None,
            available: true,
            unavailable_reason: None,
            portable_ns: None,
            counter_ticks: None,
            counter_ns: None,
            core_cycles: cycles.map(|c| BootstrapCi {
                estimate: c,
                lo: c,
                hi: c,
                resamples: 0,
                confidence: 0.95,
                seed: 0,
            }),
        }
    }

    /// A measured table equal to `core`'s figures (the middle of its first
    /// source's range), one row per operation and form in the data.
    fn table_of(core: &str) -> Vec<OpRow> {
        let figs = Figures::embedded().unwrap();
        figs.operations()
            .into_iter()
            .filter_map(|(o, f)| {
                let fig = figs.of(o, f, core).first()?;
                Some(row(o, f, Some((fig.low + fig.high) / 2.0)))
            })
            .collect()
    }

    fn host(vendor: &str, family: u32, model: u32, hypervisor: Option<&str>) -> Host {
        Host {
            arch: "x86_64".into(),
            cpu: Cpu {
                vendor: Some(vendor.into()),
                family: Some(family),
                model: Some(model),
                ..Cpu::default()
            },
            hypervisor: hypervisor.map(Into::into),
            ..Host::default()
        }
    }

    #[test]
    fn the_embedded_figures_parse_and_each_has_a_source_and_citation() {
        let figs = Figures::embedded().unwrap();
        let lines = CSV.lines().count() - 1;
        let n: usize = figs.by_key.values().map(Vec::len).sum();
        assert_eq!(n, lines);
        for ((op, form, core), fs) in &figs.by_key {
            assert!(CORES.iter().any(|c| c.key == core));
            for f in fs {
                assert!(
                    matches!(f.source.as_str(), "instlatx64" | "uops.info"),
                    "{op} {form} {core}: {}",
                    f.source
                );
                // Repository and path; the commit after `@` where the data
                // have it (two InstLatX64 dumps are cited without one).
                let repo = ["InstLatx64/InstLatx64 ", "uops.info table ("];
                assert!(
                    repo.iter().any(|r| f.citation.starts_with(r)),
                    "{}",
                    f.citation
                );
                assert!(f.citation.contains('/'), "{}", f.citation);
                if f.source == "uops.info" {
                    assert!(
                        f.citation.contains("ashvardanian/AssemblyStats"),
                        "{}",
                        f.citation
                    );
                }
            }
        }
        // Every core has figures, and every form-difference names an
        // operation the data have.
        for c in CORES {
            assert!(figs.by_key.keys().any(|k| k.2 == c.key), "{}", c.key);
        }
        for (op, form, _) in FORM_DIFFERENCES {
            assert!(figs.operations().contains(&(*op, *form)), "{op} {form}");
        }
    }

    #[test]
    fn bad_lines_are_refused_with_their_line() {
        let head = "op,form,microarchitecture,source,cycles_low,cycles_high,note,citation\n";
        for (body, msg) in [
            ("a,latency,zen4,uops.info,2,1,,x/y@1\n", "line 2"),
            (
                "a,latency,zen9,uops.info,1,1,,x/y@1\n",
                "unknown microarchitecture",
            ),
            ("a,speed,zen4,uops.info,1,1,,x/y@1\n", "unknown form"),
            ("a,latency,zen4,uops.info,1,1,,\n", "citation"),
            ("a,latency,zen4,uops.info,one,1,,x/y@1\n", "line 2"),
        ] {
            let e = Figures::parse(&format!("{head}{body}")).err().unwrap();
            assert!(e.contains(msg), "{body}: {e}");
        }
    }

    #[test]
    fn the_rule_at_its_boundaries() {
        // Below 2 cycles the 0.2-cycle floor applies.
        assert!(agrees(1.2, 1.0, 1.0));
        assert!(agrees(0.8, 1.0, 1.0));
        assert!(!agrees(1.21, 1.0, 1.0));
        assert!(!agrees(0.79, 1.0, 1.0));
        assert!(agrees(0.45, 0.25, 0.25));
        assert!(!agrees(0.46, 0.25, 0.25));
        // Above, 10 % of the nearer end of the range.
        assert!(agrees(5.5, 5.0, 5.0));
        assert!(!agrees(5.51, 5.0, 5.0));
        assert!(agrees(4.5, 5.0, 5.0));
        assert!(!agrees(4.49, 5.0, 5.0));
        assert!(agrees(22.0, 7.0, 20.0));
        assert!(!agrees(22.1, 7.0, 20.0));
        assert!(agrees(6.3, 7.0, 20.0));
        assert!(!agrees(6.29, 7.0, 20.0));
        assert!(agrees(13.0, 7.0, 20.0));
    }

    #[test]
    fn a_table_equal_to_one_cores_figures_scores_that_core_best() {
        let figs = Figures::embedded().unwrap();
        for c in CORES {
            let rows = table_of(c.key);
            let r = compare(&rows, Some(&host("GenuineIntel", 6, 0x01, None)), None).unwrap();
            let own = r.scores.iter().find(|s| s.core == c.key).unwrap();
            assert_eq!(own.share, Some(1.0), "{}: {:?}", c.key, own.differs);
            assert_eq!(r.scores[0].share, Some(1.0));
            // Any other core as good is one no operation tells apart.
            for s in r
                .scores
                .iter()
                .filter(|s| s.share == Some(1.0) && s.core != c.key)
            {
                let apart = figs
                    .operations()
                    .into_iter()
                    .any(|(o, f)| separates(figs.of(o, f, c.key), figs.of(o, f, &s.core)));
                assert!(!apart, "{} ties with {}", c.key, s.core);
            }
            // The model is not in the data: the rows are the best match's.
            assert_eq!(r.core, r.best_match);
        }
        // Zen 4 against Zen 3, Redwood Cove against Golden Cove: told apart.
        let r = compare(&table_of("zen4"), None, None).unwrap();
        assert_eq!(r.best_match.as_deref(), Some("zen4"));
        let zen3 = r.scores.iter().find(|s| s.core == "zen3").unwrap();
        assert!(zen3.share.unwrap() < 1.0);
        let r = compare(&table_of("redwood_cove"), None, None).unwrap();
        assert_eq!(r.best_match.as_deref(), Some("redwood_cove"));
    }

    #[test]
    fn the_cpuid_pick_and_the_best_match() {
        let rows = table_of("redwood_cove");
        // Bare metal, a known model: the rows are CPUID's core, and the
        // best match is still shown.
        let r = compare(&rows, Some(&host("GenuineIntel", 6, 167, None)), None).unwrap();
        assert_eq!(r.reported.core.as_deref(), Some("cypress_cove"));
        assert_eq!(r.core.as_deref(), Some("cypress_cove"));
        assert!(r.chosen_by.starts_with("CPUID"), "{}", r.chosen_by);
        assert_eq!(
            r.summary,
            "reports Rocket Lake (Cypress Cove), behaves like Redwood Cove"
        );
        // Under a hypervisor, the best match.
        let r = compare(
            &rows,
            Some(&host("GenuineIntel", 6, 167, Some("KVMKVMKVM"))),
            None,
        )
        .unwrap();
        assert_eq!(r.core.as_deref(), Some("redwood_cove"));
        assert!(r.chosen_by.contains("hypervisor"), "{}", r.chosen_by);
        // The hypervisor flag alone counts.
        let mut h = host("AuthenticAMD", 25, 17, None);
        h.cpu.flags = vec!["hypervisor".into()];
        let r = compare(&table_of("zen4"), Some(&h), None).unwrap();
        assert_eq!(r.summary, "reports Genoa (Zen 4), behaves like Zen 4");
        assert_eq!(r.core.as_deref(), Some("zen4"));
        assert_eq!(r.reported.hypervisor.as_deref(), Some("hypervisor flag"));
        // An unknown model: the best match, and the model said as reported.
        let r = compare(&rows, Some(&host("GenuineIntel", 6, 0x55, None)), None).unwrap();
        assert_eq!(r.core.as_deref(), Some("redwood_cove"));
        assert!(
            r.summary
                .starts_with("reports GenuineIntel family 6 model 85"),
            "{}",
            r.summary
        );
        // Not x86_64, or no core cycles: nothing to compare.
        let mut arm = host("x", 0, 0, None);
        arm.arch = "aarch64".into();
        assert!(compare(&rows, Some(&arm), None).is_none());
        let why = absent_for(Some(&arm)).unwrap();
        assert!(why.starts_with("no published figures for aarch64"), "{why}");
        assert_eq!(absent_for(Some(&host("GenuineIntel", 6, 167, None))), None);
        assert_eq!(absent_for(None), None);
        let none: Vec<OpRow> = rows.iter().map(|r| row(&r.name, &r.form, None)).collect();
        assert!(compare(&none, None, None).is_none());
    }

    #[test]
    fn a_non_comparable_operation_is_never_counted() {
        let mut rows = table_of("zen4");
        let base = compare(&rows, None, None).unwrap();
        let zen4 =
            |r: &PublishedComparison| r.scores.iter().find(|s| s.core == "zen4").unwrap().clone();
        // store_u64's latency, far off, and an operation without figures.
        for r in rows
            .iter_mut()
            .filter(|r| r.name == "store_u64" && r.form == "latency")
        {
            r.core_cycles.as_mut().unwrap().estimate = 1000.0;
        }
        rows.push(row("branch_taken", "throughput", Some(1000.0)));
        let mut off = row("add_i64", "latency", Some(1000.0));
        off.implementation = "portable".into();
        rows.push(off);
        let r = compare(&rows, None, None).unwrap();
        assert_eq!(zen4(&r).latency, zen4(&base).latency);
        assert_eq!(zen4(&r).throughput, zen4(&base).throughput);
        assert!(zen4(&r).differs.is_empty());
        let why = |name: &str, form: &str| {
            let x = r
                .rows
                .iter()
                .rev()
                .find(|x| x.name == name && x.form == form)
                .unwrap();
            assert_eq!(x.verdict, Verdict::NotComparable);
            x.reason.clone().unwrap()
        };
        assert!(why("store_u64", "latency").starts_with("different form"));
        assert_eq!(
            why("branch_taken", "throughput"),
            "no published figure for Zen 4"
        );
        assert!(why("add_i64", "latency").starts_with("compiled Rust"));
        // Every row that is not comparable says why; the others do not.
        for x in &r.rows {
            assert_eq!(
                x.reason.is_some(),
                x.verdict == Verdict::NotComparable,
                "{x:?}"
            );
        }
        // One value moved past the tolerance is one disagreement.
        let mut rows = table_of("zen4");
        for r in rows
            .iter_mut()
            .filter(|r| r.name == "mul_f64" && r.form == "latency")
        {
            r.core_cycles.as_mut().unwrap().estimate = 4.0;
        }
        let r = compare(&rows, None, None).unwrap();
        let s = zen4(&r);
        assert_eq!(s.latency.agree + 1, s.latency.comparable);
        assert_eq!(s.differs.len(), 1);
        assert_eq!(
            (s.differs[0].name.as_str(), s.differs[0].measured),
            ("mul_f64", 4.0)
        );
    }

    /// The reason a row gives when its core's sources contradict each other.
    const DIV_U64_ZEN4: &str = "the published figures disagree (InstLatX64 20, uops.info 7): \
        the time depends on what the sources timed (operand values, form)";

    #[test]
    fn a_row_against_contradicting_sources_is_not_comparable_whatever_it_measures() {
        // Zen 4's div_u64 throughput: InstLatX64 20, uops.info 7 — no value
        // lies within the tolerance of both.
        let without: Vec<OpRow> = table_of("zen4")
            .into_iter()
            .filter(|r| !(r.name == "div_u64" && r.form == "throughput"))
            .collect();
        let base = compare(&without, None, None).unwrap();
        let score = |r: &PublishedComparison, core: &str| {
            r.scores.iter().find(|s| s.core == core).unwrap().clone()
        };
        // One value on each source, one between, one beyond both, and what
        // this Zen 4 guest measured.
        for v in [20.0, 7.0, 12.0, 40.0, 1.0, 9.0] {
            let mut rows = without.clone();
            rows.push(row("div_u64", "throughput", Some(v)));
            let r = compare(&rows, None, None).unwrap();
            assert_eq!(r.core.as_deref(), Some("zen4"));
            let x = r
                .rows
                .iter()
                .find(|x| x.name == "div_u64" && x.form == "throughput")
                .unwrap();
            assert_eq!(x.verdict, Verdict::NotComparable, "{v}");
            assert_eq!(x.reason.as_deref(), Some(DIV_U64_ZEN4), "{v}");
            assert_eq!(x.measured, Some(v));
            assert_eq!((x.low, x.high), (Some(7.0), Some(20.0)));
            // Counted neither as agreeing nor as comparable, for Zen 3 and
            // Zen 4 (whose sources both contradict) alike.
            for core in ["zen4", "zen3"] {
                let (s, b) = (score(&r, core), score(&base, core));
                assert_eq!(s.throughput, b.throughput, "{core} {v}");
                assert_eq!(s.latency, b.latency, "{core} {v}");
                assert!(!s.differs.iter().any(|d| d.name == "div_u64"), "{core} {v}");
            }
        }
        // A core whose sources agree still scores the value: Redwood Cove
        // (InstLatX64's 10.01 only) agrees with 9.5 and not with 20.
        for (v, agrees) in [(9.5, 1), (20.0, 0)] {
            let mut rows = without.clone();
            rows.push(row("div_u64", "throughput", Some(v)));
            let r = compare(&rows, None, None).unwrap();
            let (s, b) = (score(&r, "redwood_cove"), score(&base, "redwood_cove"));
            assert_eq!(s.throughput.comparable, b.throughput.comparable + 1);
            assert_eq!(s.throughput.agree, b.throughput.agree + agrees);
        }
        // Not comparable on the CPUID pick too, and with a range in the
        // reason where a source gives one (Zen 3's cvtsi2sd throughput).
        let mut rows = without.clone();
        rows.push(row("cvt_f64_i32", "throughput", Some(1.0)));
        let r = compare(&rows, Some(&host("AuthenticAMD", 25, 0x21, None)), None).unwrap();
        assert_eq!(r.core.as_deref(), Some("zen3"));
        let x = r
            .rows
            .iter()
            .rev()
            .find(|x| x.name == "cvt_f64_i32" && x.form == "throughput")
            .unwrap();
        assert_eq!(x.verdict, Verdict::NotComparable);
        assert!(
            x.reason
                .as_deref()
                .unwrap()
                .starts_with("the published figures disagree (InstLatX64 1.5, uops.info 0.5–1): "),
            "{x:?}"
        );
    }

    #[test]
    fn sources_contradict_when_no_value_agrees_with_all() {
        let fig = |low: f64, high: f64| Figure {
            source: "uops.info".into(),
            low,
            high,
            note: None,
            citation: "x/y".into(),
        };
        // 1 and 1.4 both accept 1.2; 1 and 1.41 accept no common value.
        assert!(!contradict(&[fig(1.0, 1.0), fig(1.4, 1.4)]));
        assert!(contradict(&[fig(1.0, 1.0), fig(1.41, 1.41)]));
        // 10 % of the nearer ends: 7 (to 7.7) and 20 (from 18) do not meet,
        // a range reaching between them does.
        assert!(contradict(&[fig(20.0, 20.0), fig(7.0, 7.0)]));
        assert!(!contradict(&[fig(20.0, 20.0), fig(7.0, 18.0)]));
        assert!(!contradict(&[fig(7.0, 7.0)]) && !contradict(&[]));
        // Any pair that does not contradict has a value agreeing with both.
        for (a, b) in [(1.0, 1.4), (0.25, 0.5), (7.0, 7.7), (14.0, 16.9)] {
            let x = [fig(a, a), fig(b, b)];
            assert!(!contradict(&x), "{a} {b}");
            let between = (a + tolerance(a)).min(b);
            assert!(x.iter().all(|f| agrees(between, f.low, f.high)), "{a} {b}");
        }
        // The embedded data: 29 (op, form, core) of 1891, per core.
        let figs = Figures::embedded().unwrap();
        let mut per_core: BTreeMap<&str, usize> = BTreeMap::new();
        for ((_, _, core), fs) in &figs.by_key {
            if contradict(fs) {
                *per_core.entry(core.as_str()).or_default() += 1;
            }
        }
        assert_eq!(figs.by_key.len(), 1891);
        assert_eq!(
            per_core.into_iter().collect::<Vec<_>>(),
            [
                ("cypress_cove", 1),
                ("golden_cove", 7),
                ("zen3", 11),
                ("zen4", 10)
            ]
        );
    }

    #[test]
    fn an_operation_whose_sources_contradict_tells_its_core_from_none() {
        let figs = Figures::embedded().unwrap();
        // Zen 4's div_u64 throughput (20 and 7) lies on both sides of
        // Redwood Cove's 10.01, and about 9 cycles measured on Zen 4 (9.1)
        // agree with Redwood Cove: the figures do not tell the two apart.
        let (o, f) = ("div_u64", "throughput");
        assert!(agrees(9.1, 10.01, 10.01));
        assert!(!separates(
            figs.of(o, f, "zen4"),
            figs.of(o, f, "redwood_cove")
        ));
        assert!(!separates(
            figs.of(o, f, "redwood_cove"),
            figs.of(o, f, "zen4")
        ));
        // No chosen discriminator rests on a core whose sources contradict.
        for (o, f) in discriminating_ops(figs) {
            for c in CORES {
                let fs = figs.of(&o, &f, c.key);
                if fs.len() < 2 {
                    continue;
                }
                let lo = fs
                    .iter()
                    .map(|x| x.low - tolerance(x.low))
                    .fold(f64::MIN, f64::max);
                let hi = fs
                    .iter()
                    .map(|x| x.high + tolerance(x.high))
                    .fold(f64::MAX, f64::min);
                if lo > hi + 1e-9 {
                    let r = compare(&table_of(c.key), None, None).unwrap();
                    let d = r
                        .discriminating
                        .iter()
                        .find(|d| d.name == o && d.form == f)
                        .unwrap();
                    let x = d.cores.iter().find(|x| x.core == c.key).unwrap();
                    assert_eq!(x.agrees, None, "{o} {f} {}", c.key);
                }
            }
        }
    }

    #[test]
    fn the_discriminating_operations_tell_every_separable_pair_apart() {
        let figs = Figures::embedded().unwrap();
        let chosen = discriminating_ops(figs);
        assert!(!chosen.is_empty() && chosen.len() <= 12, "{chosen:?}");
        for (i, a) in CORES.iter().enumerate() {
            for b in &CORES[i + 1..] {
                let sep = |o: &str, f: &str| separates(figs.of(o, f, a.key), figs.of(o, f, b.key));
                let any = figs.operations().into_iter().any(|(o, f)| sep(o, f));
                let by_chosen = chosen.iter().filter(|(o, f)| sep(o, f)).count();
                if any {
                    assert!(by_chosen >= 1, "{} {}", a.key, b.key);
                } else {
                    assert_eq!(by_chosen, 0);
                }
            }
        }
        // The FP multiply (3 cycles on Zen and on Redwood Cove, 4 on
        // Golden Cove) is one of them.
        assert!(
            chosen
                .iter()
                .any(|(o, f)| o.starts_with("mul_f") && f == "latency"),
            "{chosen:?}"
        );
    }
}
