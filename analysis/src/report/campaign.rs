//! Many files of one configuration from several machines, analysed as one
//! campaign: each file is an execution, each machine holds its executions,
//! and every item's variance splits into machine, execution and
//! measurement components (`stats::levels`), with the machines side by
//! side and the cheapest campaign for a precision.

use super::compare::{compared_cells, items_of};
use crate::options::Options;
use crate::read::{read_document_within, Document};
use crate::stats::bootstrap::mean;
use crate::stats::dist::t_two_sided;
use crate::stats::executions::random_effects;
use crate::stats::levels::{components, plan, Components, Plan};
use crate::stats::Welford;
use crate::suites::Measurements;
use serde::Serialize;
use std::borrow::Borrow;

/// Targets the plan is given for: CI half-widths relative to the mean.
pub const PLAN_TARGETS: [f64; 2] = [0.01, 0.05];
/// What one machine is taken to cost, in executions, for the plan's rows.
pub const MACHINE_COSTS: [f64; 3] = [1.0, 10.0, 100.0];

#[derive(Debug, Clone, Serialize)]
pub struct CampaignReport {
    /// Every file given, read or not.
    pub files: Vec<CampaignFile>,
    /// The machines, sorted by name; items list their values in this order.
    pub machines: Vec<String>,
    pub suites: Vec<CampaignSuite>,
    pub options: Options,
}

#[derive(Debug, Clone, Serialize)]
pub struct CampaignFile {
    pub name: String,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Index into `machines` (none for an unread file).
    pub machine: Option<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CampaignSuite {
    pub suite: String,
    pub items: Vec<CampaignItem>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CampaignItem {
    pub key: String,
    pub unit: String,
    /// Nanoseconds per `unit` when it is a time unit (for scaling).
    pub unit_ns: Option<f64>,
    /// Bytes per `unit` when it is a memory unit (for scaling).
    pub unit_bytes: Option<f64>,
    /// One per machine (in `machines` order); null where the machine has no
    /// execution of the item.
    pub machines: Vec<Option<MachineValue>>,
    /// Machine, execution and measurement components.
    pub components: Option<Components>,
    /// Per machine cost in [`MACHINE_COSTS`] and target in
    /// [`PLAN_TARGETS`] (cost-major).
    pub plans: Vec<Plan>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MachineValue {
    pub executions: usize,
    /// Mean of the machine's execution means.
    pub mean: f64,
    /// Its t interval from the execution means (two executions or more).
    pub ci: Option<(f64, f64)>,
    /// Whether the mean lies outside the prediction interval of the other
    /// machines' means (`standing_out`); none with fewer than three others.
    pub stands_out: Option<bool>,
}

/// Read every entry (name, bytes) and analyse them as one campaign. Never
/// panics: an unreadable file is listed with its error.
pub fn campaign_files(entries: &[(&str, &[u8])], opts: &Options) -> CampaignReport {
    let docs: Vec<(String, Result<Document, String>)> = entries
        .iter()
        .map(|(name, bytes)| {
            (
                name.to_string(),
                read_document_within(name, bytes, &opts.limits).map_err(|e| e.to_string()),
            )
        })
        .collect();
    campaign_documents(&docs, opts)
}

/// The machine a document ran on: the campaign's node name where the run
/// was a campaign task (nodes of one host can share a hostname), otherwise
/// the hostname.
pub fn machine_of(doc: &Document) -> Option<String> {
    match doc {
        Document::Run(r) => Some(
            r.run
                .campaign
                .as_ref()
                .map(|c| c.node.clone())
                .unwrap_or_else(|| r.run.host.hostname.clone()),
        ),
        Document::Samples(s) => s
            .host
            .as_ref()
            .and_then(|h| h.get("hostname"))
            .and_then(|v| v.as_str())
            .map(str::to_string),
    }
}

/// [`campaign_files`] on documents already read.
pub fn campaign_documents<D: Borrow<Document>>(
    docs: &[(String, Result<D, String>)],
    opts: &Options,
) -> CampaignReport {
    let mut machines: Vec<String> = docs
        .iter()
        .filter_map(|(_, d)| d.as_ref().ok().and_then(|d| machine_of(d.borrow())))
        .collect();
    machines.sort();
    machines.dedup();
    let files: Vec<CampaignFile> = docs
        .iter()
        .map(|(name, d)| CampaignFile {
            name: name.clone(),
            ok: d.is_ok(),
            error: d.as_ref().err().cloned(),
            machine: d
                .as_ref()
                .ok()
                .and_then(|d| machine_of(d.borrow()))
                .and_then(|m| machines.iter().position(|x| *x == m)),
        })
        .collect();
    let mut suites = Vec::new();
    for (suite, _) in compared_cells() {
        // (key, unit) → per machine → executions (each execution's values).
        let mut items: Vec<(String, String, PerMachine)> = Vec::new();
        for (f, (_, d)) in files.iter().zip(docs) {
            let (Some(m), Ok(doc)) = (f.machine, d) else {
                continue;
            };
            for it in items_of(doc.borrow(), suite)
                .into_iter()
                .filter(|i| !i.warm_up)
            {
                let slot = match items
                    .iter()
                    .position(|(k, u, _)| *k == it.key && *u == it.unit)
                {
                    Some(p) => p,
                    None => {
                        items.push((
                            it.key.clone(),
                            it.unit.clone(),
                            vec![Vec::new(); machines.len()],
                        ));
                        items.len() - 1
                    }
                };
                let executions = &mut items[slot].2[m];
                match it.data {
                    Measurements::Flat(xs) if !xs.is_empty() => executions.push(xs),
                    Measurements::Flat(_) => {}
                    Measurements::Grouped(ex) => {
                        executions.extend(ex.into_iter().filter(|e| !e.is_empty()))
                    }
                }
            }
        }
        let items: Vec<CampaignItem> = items
            .into_iter()
            .map(|(key, unit, per_machine)| item(key, unit, per_machine, opts))
            .collect();
        if !items.is_empty() {
            suites.push(CampaignSuite {
                suite: suite.to_string(),
                items,
            });
        }
    }
    CampaignReport {
        files,
        machines,
        suites,
        options: *opts,
    }
}

/// One item's executions on each machine (in `machines` order).
type PerMachine = Vec<Vec<Vec<f64>>>;

fn item(key: String, unit: String, per_machine: PerMachine, o: &Options) -> CampaignItem {
    let means: Vec<Option<f64>> = per_machine
        .iter()
        .map(|ex| {
            (!ex.is_empty()).then(|| ex.iter().map(|e| mean(e)).sum::<f64>() / ex.len() as f64)
        })
        .collect();
    let outside = standing_out(&means, o.confidence);
    let machines = per_machine
        .iter()
        .zip(&means)
        .zip(outside)
        .map(|((ex, m), out)| {
            m.map(|mean| MachineValue {
                executions: ex.len(),
                mean,
                ci: random_effects(ex, o.confidence).and_then(|re| re.ci),
                stands_out: out,
            })
        })
        .collect();
    // The variance split is over machines that ran the item.
    let present: Vec<Vec<Vec<f64>>> = per_machine.into_iter().filter(|m| !m.is_empty()).collect();
    let comps = components(&present, o.confidence);
    let plans = match &comps {
        Some(c) => MACHINE_COSTS
            .iter()
            .flat_map(|&cost| PLAN_TARGETS.iter().map(move |&t| plan(c, t, cost)))
            .collect(),
        None => Vec::new(),
    };
    CampaignItem {
        key,
        unit_ns: crate::units::ns_per_unit(&unit),
        unit_bytes: crate::units::bytes_per_unit(&unit),
        unit,
        machines,
        components: comps,
        plans,
    }
}

/// For each machine with a mean: whether it lies outside the prediction
/// interval of the others, mean ± t(1 − α/2, k − 1)·s·sqrt(1 + 1/k) over the
/// k ≥ 3 other machines (a new machine like them falls inside it with
/// probability `confidence`, for normal machine means). None with fewer
/// than three others: two points give no useful spread.
fn standing_out(means: &[Option<f64>], confidence: f64) -> Vec<Option<bool>> {
    means
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let m = (*m)?;
            let others: Vec<f64> = means
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .filter_map(|(_, x)| *x)
                .collect();
            let k = others.len();
            if k < 3 {
                return None;
            }
            let w = Welford::from_slice(&others);
            let (centre, sd) = (w.mean()?, w.sd()?);
            let t = t_two_sided(confidence, (k - 1) as f64)?;
            Some((m - centre).abs() > t * sd * (1.0 + 1.0 / k as f64).sqrt())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(host: &str, values: &[f64]) -> Vec<u8> {
        serde_json::to_vec(&serde_json::json!({
            "format": "tickbook", "format_version": "1.0", "kind": "samples",
            "host": {"hostname": host},
            "series": [{"name": "x", "unit": "ns", "executions": [values]}],
        }))
        .expect("json")
    }

    /// Files group by machine, each file one execution; the components
    /// equal `levels::components` on the same nesting.
    #[test]
    fn files_nest_by_machine_and_execution() {
        let data = [
            ("a", vec![1.0, 3.0]),
            ("b", vec![2.0, 2.0]),
            ("a", vec![5.0, 7.0]),
            ("b", vec![10.0, 14.0]),
        ];
        let bytes: Vec<(String, Vec<u8>)> = data
            .iter()
            .enumerate()
            .map(|(i, (h, v))| (format!("{h}-{i}.json"), samples(h, v)))
            .collect();
        let mut entries: Vec<(&str, &[u8])> = bytes
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect();
        entries.push(("broken.json", b"{"));
        let o = Options::default();
        let r = campaign_files(&entries, &o);
        assert_eq!(r.machines, ["a", "b"]);
        assert!(!r.files[4].ok && r.files[4].machine.is_none());
        let it = &r.suites[0].items[0];
        let direct = components(
            &[
                vec![vec![1.0, 3.0], vec![5.0, 7.0]],
                vec![vec![2.0, 2.0], vec![10.0, 14.0]],
            ],
            o.confidence,
        );
        assert_eq!(it.components, direct);
        let a = it.machines[0].as_ref().expect("a");
        assert_eq!((a.executions, a.mean), (2, 4.0));
        assert_eq!(a.stands_out, None);
    }

    /// One machine far from four alike stands out; the alike ones do not.
    #[test]
    fn a_machine_unlike_the_others_stands_out() {
        let means = [
            Some(10.0),
            Some(10.2),
            Some(9.9),
            Some(10.1),
            Some(13.0),
            None,
        ];
        let out = standing_out(&means, 0.95);
        assert_eq!(
            out,
            [
                Some(false),
                Some(false),
                Some(false),
                Some(false),
                Some(true),
                None
            ]
        );
        // Three machines: each has two others only.
        assert_eq!(standing_out(&means[..3], 0.95), [None, None, None]);
    }
}
