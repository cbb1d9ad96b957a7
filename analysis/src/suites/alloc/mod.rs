//! Allocation and page placement: workloads under page-placement strategies
//! and allocators, each configuration run as separate executions (Hocko &
//! Kalibera).

mod data;
pub mod report;

pub use data::*;
pub use report::*;

use super::{Context, Item, Measurements, Suite};
use crate::error::{Checker, ReadError};

pub struct Alloc;

impl Suite for Alloc {
    const NAME: &'static str = "alloc";
    const TITLE: &'static str = "Allocation and page placement";
    const ORDER: u8 = 4;
    const COST: u8 = 7;
    // A long alloc run checkpoints its finished executions into a section
    // marked failed; the cell shows them and says it is partial.
    const SHOWS_UNFINISHED: bool = true;
    const COMPARED: Option<&'static str> =
        Some("mean time per measurement (random-effects CI over executions)");
    type Data = AllocData;
    type Report = AllocReport;

    fn check(data: &AllocData, cx: &Checker, at: &str) -> Result<(), ReadError> {
        for (i, c) in data.configs.iter().enumerate() {
            for (j, e) in c.executions.iter().enumerate() {
                let path = format!("{at}.configs[{i}].executions[{j}].measurements");
                cx.check_samples(&e.measurements, &path)?;
            }
        }
        Ok(())
    }

    fn report(data: &AllocData, cx: &mut Context) -> AllocReport {
        if cx.unfinished {
            cx.warnings.push(
                "the alloc suite did not finish: its cell shows the executions that did".into(),
            );
        }
        alloc_report(data, cx.unfinished, cx.options)
    }

    fn items(data: &AllocData) -> Vec<Item> {
        data.configs
            .iter()
            .filter(|c| c.available)
            .filter_map(|c| {
                let ex: Vec<Vec<f64>> = c
                    .executions
                    .iter()
                    .filter(|e| e.ok && !e.measurements.is_empty())
                    .map(|e| e.measurements.clone())
                    .collect();
                (!ex.is_empty()).then(|| Item {
                    key: format!(
                        "{} · {}×{} · {} · {}",
                        c.workload, c.size_factor, c.cache, c.strategy, c.allocator
                    ),
                    unit: c.unit.clone(),
                    data: Measurements::Grouped(ex),
                    warm_up: false,
                })
            })
            .collect()
    }
}
