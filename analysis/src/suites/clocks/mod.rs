//! Clocks: every clock's read cost, resolution, monotonicity and frequency
//! sources.

mod data;
pub mod report;

pub use data::*;
pub use report::*;

use super::{Context, Item, Measurements, Suite};
use crate::error::{Checker, ReadError};

pub struct Clocks;

impl Suite for Clocks {
    const NAME: &'static str = "clocks";
    const TITLE: &'static str = "Clocks";
    const ORDER: u8 = 0;
    const COST: u8 = 0;
    const COMPARED: Option<&'static str> = Some("median read cost of each clock (ns per read)");
    type Data = ClocksData;
    type Report = ClocksReport;

    fn check(data: &ClocksData, cx: &Checker, at: &str) -> Result<(), ReadError> {
        validate(cx, data, at)
    }

    fn report(data: &ClocksData, cx: &mut Context) -> ClocksReport {
        clocks_report(data, cx.fallbacks.to_vec(), cx.options)
    }

    fn items(data: &ClocksData) -> Vec<Item> {
        data.clocks
            .iter()
            .filter(|c| c.available)
            .filter_map(|c| {
                let rc = c.read_cost.as_ref()?;
                Some(Item {
                    key: c.name.clone(),
                    unit: "ns".into(),
                    data: Measurements::Flat(rc.samples_ns.clone()),
                    warm_up: false,
                })
            })
            .collect()
    }
}

fn validate(cx: &Checker, d: &ClocksData, prefix: &str) -> Result<(), ReadError> {
    if !(d.reference_ns_per_unit.is_finite() && d.reference_ns_per_unit > 0.0) {
        return Err(cx.err(
            Some(format!("{prefix}.reference_ns_per_unit")),
            "expected a positive number",
        ));
    }
    for (i, c) in d.clocks.iter().enumerate() {
        let at = format!("{prefix}.clocks[{i}]");
        if let Some(rc) = &c.read_cost {
            cx.check_samples(&rc.samples_ns, &format!("{at}.read_cost.samples_ns"))?;
        }
        if let Some(scan) = &c.scan {
            if scan.steps.len() != scan.reads_between.len() {
                return Err(cx.err(
                    Some(format!("{at}.scan")),
                    format!(
                        "steps has {} entries but reads_between has {}: expected one count per step",
                        scan.steps.len(),
                        scan.reads_between.len()
                    ),
                ));
            }
        }
        if let Some(npu) = c.ns_per_unit {
            if !(npu.is_finite() && npu > 0.0) {
                return Err(cx.err(
                    Some(format!("{at}.ns_per_unit")),
                    "expected a positive number",
                ));
            }
        }
    }
    Ok(())
}
