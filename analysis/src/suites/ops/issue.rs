//! Whether the core's issue width was this thread's alone: the one-cycle
//! ALU operations' throughput (independent copies) against what the core
//! can issue. A thread on the other hardware thread of the same physical
//! core — another tenant's, under a hypervisor whose guest sees one thread
//! per core — takes issue slots from independent operations but leaves a
//! dependency chain of one-cycle operations at one cycle. The collector
//! times a few such operations before the ops table and after it
//! (`OpsData::probes`); with the table's own, each phase has a width
//! (operations a cycle). What the core can issue is the larger of its
//! published width — the figures' core chosen by latencies alone, which
//! sharing does not move, and only while the dependent add takes one
//! cycle, i.e. the conversion to cycles holds — and the widest phase's (a
//! core wider than the figures' best match shows it there). A phase more
//! than 1.25× below it was shared. Without published figures (another
//! architecture) only the phases' widths against each other are judged.
//! `docs/methods.md`, "Fitness".

use serde::Serialize;

use super::data::{OpMeasurement, OpsData};
use super::published::{self, Figures, CORES};
use super::row::OpRow;
use crate::fitness::{Finding, Level, Thresholds};
use crate::format::Host;
use crate::stats::bootstrap::BootstrapCi;
use crate::stats::differential::per_copy;

/// The one-cycle ALU operations the collector probes, and the ones the
/// check falls back to without published figures: on every out-of-order
/// core these issue on every integer ALU and take one cycle each.
pub const PROBED: &[(&str, &str)] = &[
    ("add_i64", "latency"),
    ("add_i64", "throughput"),
    ("sub_i64", "throughput"),
    ("and_i64", "throughput"),
    ("or_i64", "throughput"),
    ("xor_i64", "throughput"),
];

/// A phase is shared when its probed operations issue this many times
/// fewer a cycle than the widest phase's.
const WIDTH_CHANGE: f64 = 1.25;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct IssueCheck {
    /// The core whose figures the throughputs are held to, when one is
    /// (the best match on latencies alone, or CPUID's pick on bare metal).
    pub core: Option<String>,
    pub core_name: Option<String>,
    /// How `core` was chosen, or why there is none.
    pub chosen_by: String,
    /// The core's published issue width: one over the median of the lowest
    /// published throughputs of the probed operations (of all the judged
    /// ones where the figures have none of those), operations a cycle.
    pub published_width: Option<f64>,
    /// The table, then each probe.
    pub phases: Vec<IssuePhase>,
    /// Whether the core's issue width was not this thread's alone in some
    /// phase.
    pub shared: bool,
    /// The largest phase's `below`: how many times fewer one-cycle ALU
    /// operations a cycle than the core can issue.
    pub factor: Option<f64>,
    /// One sentence with the figures.
    pub text: String,
}

impl IssueCheck {
    /// The check as a fitness finding (`shared_core`), as the file's
    /// fitness and `tickbook doctor` list it.
    pub fn finding(&self) -> Finding {
        Finding {
            signal: "shared_core",
            level: if self.shared { Level::Disturbed } else { Level::Fine },
            figure: self.factor,
            unit: "×",
            text: self.text.clone(),
            evidence: "the one-cycle ALU operations' throughput (independent copies: add, sub, and, or, xor) in the ops table and in its probes before and after it, in core cycles".into(),
            worst: None,
            thresholds: Thresholds {
                disturbed: 1.0,
                unfit: None,
            },
            advice: self.shared.then_some(
                "another thread ran on this core's other hardware thread (under a hypervisor, perhaps another tenant's): throughputs are not the core's; measure again, or on a dedicated instance, and read the ops table's latencies only",
            ),
            reason: None,
            rule: Some(
                "disturbed when the probed one-cycle ALU operations issue over 1.25× fewer a cycle, in the ops table or in a probe before or after it, than the core can: the larger of its published width (the core chosen by latencies, while the dependent add takes one cycle) and the widest phase's; the figure is that factor".into(),
            ),
        }
    }

    /// The finding where the check could not be made, with `reason`.
    pub fn not_made(reason: String) -> Finding {
        Finding {
            signal: "shared_core",
            level: Level::Unknown,
            figure: None,
            unit: "×",
            text: format!(
                "whether the core's issue width was this thread's alone is not known: {reason}"
            ),
            evidence: "the one-cycle ALU operations' throughput against what the core can issue"
                .into(),
            worst: None,
            thresholds: Thresholds {
                disturbed: 1.0,
                unfit: None,
            },
            advice: None,
            reason: Some(reason),
            rule: None,
        }
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct IssuePhase {
    /// `table`, `start` or `end`.
    pub at: String,
    /// The dependent add's core cycles (1 when the conversion is right).
    pub add_latency: Option<f64>,
    /// Operations a cycle: one over the median measured throughput.
    pub width: Option<f64>,
    /// The same of the probed operations alone, which every phase times:
    /// the widths the phases are compared by.
    pub probe_width: Option<f64>,
    /// How many times below what the core can issue this phase's
    /// `probe_width` is: the larger of the published width (when the
    /// conversion to cycles holds) and the widest phase's, over it.
    pub below: Option<f64>,
    /// Each operation's throughput, core cycles, beside its published range.
    pub ops: Vec<IssueOp>,
    /// Throughputs comparable with the core's figures, and those slower
    /// than the published range beyond its tolerance (the published
    /// comparison's verdict; shown, not what the check decides by).
    pub comparable: usize,
    pub slower: usize,
    /// The median of measured ÷ published high over the judged operations.
    pub factor: Option<f64>,
    /// `None` when no probed operation was timed in the phase.
    pub shared: Option<bool>,
    /// Why the published width was not compared, when it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct IssueOp {
    pub name: String,
    pub throughput: f64,
    pub published_low: Option<f64>,
    pub published_high: Option<f64>,
    /// Slower than the published range beyond its tolerance.
    pub slower: Option<bool>,
}

/// The type-7 median of the finite values, as the table's estimates.
fn median(mut xs: Vec<f64>) -> Option<f64> {
    xs.retain(|x| x.is_finite());
    (!xs.is_empty()).then(|| crate::stats::bootstrap::median_in_place(&mut xs))
}

/// Counter ticks per core cycle: the median of the core clock's samples.
fn ticks_per_cycle(d: &OpsData) -> Option<f64> {
    median(d.core_clock.as_ref()?.ticks_per_add()).filter(|t| *t > 0.0)
}

/// One measurement's core cycles: the median per-copy counter time over
/// ticks per cycle, as the table's estimate.
fn cycles(m: &OpMeasurement, copies: u32, tpc: f64) -> Option<f64> {
    if !m.available {
        return None;
    }
    median(per_copy(
        &m.counter_n_ticks,
        &m.counter_2n_ticks,
        copies.into(),
    ))
    .map(|t| t / tpc)
}

/// A measurement as a row the published figures are matched on, with its
/// point estimate only (no interval is needed to pick a core).
fn point_row(m: &OpMeasurement, copies: u32, tpc: f64) -> OpRow {
    let ci = |x: f64| BootstrapCi {
        estimate: x,
        lo: x,
        hi: x,
        resamples: 0,
        confidence: 0.0,
        seed: 0,
    };
    OpRow {
        name: m.name.clone(),
        group: m.group.clone(),
        form: m.form.clone(),
        implementation: m.implementation.clone(),
        instruction: m.instruction.clone(),
        available: m.available,
        unavailable_reason: m.unavailable_reason.clone(),
        portable_ns: None,
        counter_ticks: None,
        counter_ns: None,
        core_cycles: cycles(m, copies, tpc).map(ci),
    }
}

/// The operations judged: with a core, those whose published latency is
/// one cycle and throughput at most half a cycle (ALU operations that issue
/// on several ports); without one, the probed set.
fn alu_set(figs: Option<(&Figures, &str)>) -> Vec<String> {
    let Some((figs, core)) = figs else {
        return PROBED
            .iter()
            .filter(|(_, f)| *f == "throughput")
            .map(|(n, _)| n.to_string())
            .collect();
    };
    figs.operations()
        .into_iter()
        .filter(|(_, f)| *f == "throughput")
        .filter(|(op, _)| {
            let lat = figs.of(op, "latency", core);
            let tp = figs.of(op, "throughput", core);
            !lat.is_empty()
                // One cycle as the figures give it: InstLatX64's 0.99, or
                // uops.info's range over operand forms (1–2; 0–1 where a
                // zero idiom takes none).
                && lat.iter().all(|x| published::agrees(1.0, x.low, x.high))
                && !tp.is_empty()
                && tp.iter().all(|x| x.high <= 0.5)
                && !published::contradict(tp)
        })
        .map(|(op, _)| op.to_string())
        .collect()
}

fn phase(
    at: &str,
    ms: &[OpMeasurement],
    copies: u32,
    tpc: f64,
    set: &[String],
    figs: Option<(&Figures, &str)>,
) -> IssuePhase {
    let find = |name: &str, form: &str| {
        ms.iter()
            .find(|m| m.name == name && m.form == form)
            .and_then(|m| cycles(m, copies, tpc))
    };
    let add_latency = find("add_i64", "latency");
    let mut ops = Vec::new();
    for name in set {
        let Some(t) = find(name, "throughput") else {
            continue;
        };
        let f = figs.map(|(figs, core)| figs.of(name, "throughput", core));
        let low = f.and_then(|f| f.iter().map(|x| x.low).reduce(f64::min));
        let high = f.and_then(|f| f.iter().map(|x| x.high).reduce(f64::max));
        ops.push(IssueOp {
            name: name.clone(),
            throughput: t,
            published_low: low,
            published_high: high,
            slower: high.map(|h| t > h && !published::agrees(t, low.unwrap_or(h), h)),
        });
    }
    let width = median(ops.iter().map(|o| o.throughput).collect()).map(|t| 1.0 / t);
    let probe_width = median(
        PROBED
            .iter()
            .filter(|(_, f)| *f == "throughput")
            .filter_map(|(n, _)| find(n, "throughput"))
            .collect(),
    )
    .filter(|t| *t > 0.0)
    .map(|t| 1.0 / t);
    let comparable = ops.iter().filter(|o| o.slower.is_some()).count();
    let slower = ops.iter().filter(|o| o.slower == Some(true)).count();
    let factor = median(
        ops.iter()
            .filter_map(|o| o.published_high.map(|h| o.throughput / h))
            .collect(),
    );
    let mut p = IssuePhase {
        at: at.to_string(),
        add_latency,
        width,
        probe_width,
        below: None,
        ops,
        comparable,
        slower,
        factor,
        shared: None,
        why: None,
    };
    // The conversion to core cycles is checked by the one operation
    // sharing cannot slow; without it the published width is no measure.
    match add_latency {
        _ if figs.is_none() => {
            p.why = Some("no published figures to hold the throughputs to".into())
        }
        None => p.why = Some("no dependent add measured".into()),
        Some(l) if !published::agrees(l, 1.0, 1.0) => {
            p.why = Some(format!(
                "the dependent add took {l:.2} core cycles, not 1: the core clock conversion is off, so the published width is not compared"
            ))
        }
        Some(_) => {}
    }
    p
}

/// The check of an ops section: `None` without core-cycle times (no cycle
/// counter, or no core clock).
pub fn check(d: &OpsData, host: Option<&Host>) -> Option<IssueCheck> {
    let tpc = ticks_per_cycle(d)?;
    let x86 = host.map_or(true, |h| h.arch == "x86_64");
    let figs = Figures::embedded().ok().filter(|_| x86);
    let rows: Vec<OpRow> = d.ops.iter().map(|m| point_row(m, d.copies, tpc)).collect();
    let (core, chosen_by) = match figs {
        None if !x86 => (
            None,
            "no published figures for this architecture: the width is the latency-to-throughput ratio".to_string(),
        ),
        None => (None, "the published figures could not be read".to_string()),
        Some(figs) => match published::latency_core(figs, &rows, host) {
            Some((c, by)) => (Some(c), by),
            None => (None, "no latency comparable with any core's figures".to_string()),
        },
    };
    let fig_core = figs.zip(core.as_deref());
    let set = alu_set(fig_core);
    // Of the probed operations where the figures have them, so that it
    // reads beside the probes' widths.
    let probed_in_set: Vec<String> = set
        .iter()
        .filter(|n| PROBED.iter().any(|(p, f)| p == n && *f == "throughput"))
        .cloned()
        .collect();
    let width_set = if probed_in_set.is_empty() {
        &set
    } else {
        &probed_in_set
    };
    let published_width = fig_core.and_then(|(figs, c)| {
        median(
            width_set
                .iter()
                .filter_map(|op| {
                    figs.of(op, "throughput", c)
                        .iter()
                        .map(|x| x.low)
                        .reduce(f64::min)
                })
                .collect(),
        )
        .map(|t| 1.0 / t)
    });
    let mut phases = vec![phase("table", &d.ops, d.copies, tpc, &set, fig_core)];
    for p in &d.probes {
        phases.push(phase(&p.at, &p.ops, d.copies, tpc, &set, fig_core));
    }
    let core_name = core
        .as_deref()
        .and_then(|k| CORES.iter().find(|c| c.key == k))
        .map(|c| c.name.to_string());
    // What the core can issue: its published width where the conversion to
    // cycles holds, and at least what the widest phase reached (a core
    // wider than the figures' best match — a newer one the data do not
    // have — shows it there). A sibling thread's work shows as a phase
    // below it, whether or not the figures know the core.
    let widest = phases.iter().filter_map(|p| p.probe_width).reduce(f64::max);
    let published_ok = phases.iter().any(|p| p.why.is_none());
    let capacity = match (widest, published_width.filter(|_| published_ok)) {
        (Some(w), Some(p)) => Some(w.max(p)),
        (w, p) => w.or(p),
    };
    for p in &mut phases {
        p.below = capacity.zip(p.probe_width).map(|(c, w)| c / w);
        p.shared = p.below.map(|b| b > WIDTH_CHANGE);
    }
    let shared_at: Vec<&IssuePhase> = phases.iter().filter(|p| p.shared == Some(true)).collect();
    let factor = phases.iter().filter_map(|p| p.below).reduce(f64::max);
    let w = |x: Option<f64>| x.map_or("?".to_string(), |x| format!("{x:.2}"));
    let probes_each = phases
        .iter()
        .map(|p| format!("{} {}", p.at, w(p.probe_width)))
        .collect::<Vec<_>>()
        .join(", ");
    let core_label = core_name.as_deref().unwrap_or("the core");
    let against = match (published_width, published_ok) {
        (Some(pw), true) => format!("{core_label}'s published {}", w(Some(pw))),
        _ => "no published width".to_string(),
    };
    let shared = !shared_at.is_empty();
    let text = if shared {
        let at: Vec<&str> = shared_at.iter().map(|p| p.at.as_str()).collect();
        format!(
            "the core's issue width was not this thread's alone: the one-cycle ALU operations issued {:.2}× fewer a cycle than the core can in {} ({probes_each} operations a cycle; {against}), while the dependent add took {} cycle",
            factor.unwrap_or(f64::NAN),
            at.join(", "),
            w(phases.iter().find_map(|p| p.add_latency)),
        )
    } else if phases.iter().any(|p| p.below.is_some()) {
        format!(
            "the one-cycle ALU operations issued as the core can throughout: {probes_each} operations a cycle ({against})"
        )
    } else {
        let why = phases
            .iter()
            .find_map(|p| p.why.clone())
            .unwrap_or_else(|| chosen_by.clone());
        format!("no one-cycle ALU throughput timed; not judged: {why}")
    };
    Some(IssueCheck {
        core,
        core_name,
        chosen_by,
        published_width,
        phases,
        shared,
        factor,
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The five probed ALU operations are one-cycle, several-port
    /// operations on every core the figures have, whichever way each source
    /// writes one cycle (InstLatX64's 0.99, uops.info's 1–2 over operand
    /// forms): so each core's published width is theirs (Golden Cove and
    /// Redwood Cove: five a cycle; Zen 4: four), not that of the fewer
    /// ports of shifts and the like.
    #[test]
    fn the_probed_operations_set_each_cores_width() {
        let figs = Figures::embedded().expect("embedded figures");
        for (core, width) in [("golden_cove", 5.0), ("redwood_cove", 5.0), ("zen4", 4.0)] {
            let set = alu_set(Some((figs, core)));
            for (op, form) in PROBED.iter().filter(|(_, f)| *f == "throughput") {
                let has =
                    !figs.of(op, form, core).is_empty() && !figs.of(op, "latency", core).is_empty();
                assert!(
                    !has || set.iter().any(|s| s == op),
                    "{core}: {op} left out of {set:?}"
                );
            }
            let lows: Vec<f64> = set
                .iter()
                .filter(|n| PROBED.iter().any(|(p, f)| p == n && *f == "throughput"))
                .filter_map(|op| {
                    figs.of(op, "throughput", core)
                        .iter()
                        .map(|x| x.low)
                        .reduce(f64::min)
                })
                .collect();
            let w = 1.0 / median(lows).expect("probed figures");
            assert!(
                (w / width - 1.0).abs() < 0.1,
                "{core}: width {w}, published {width}"
            );
        }
    }
}
