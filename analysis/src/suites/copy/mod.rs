//! Copy: the array-copy benchmark (after Tišnovský's ArrayCopyTest3).

mod data;
pub mod report;

pub use data::*;
pub use report::*;

use super::{Context, Item, Measurements, Suite};
use crate::error::{Checker, ReadError};

pub struct Copy;

impl Suite for Copy {
    const NAME: &'static str = "copy";
    const TITLE: &'static str = "Copy";
    const ORDER: u8 = 3;
    const COST: u8 = 4;
    const COMPARED: Option<&'static str> = Some("median ns per copy");
    type Data = CopyData;
    type Report = CopyReport;

    fn check(data: &CopyData, cx: &Checker, at: &str) -> Result<(), ReadError> {
        for (i, c) in data.cases.iter().enumerate() {
            cx.check_samples(&c.samples_ns, &format!("{at}.cases[{i}].samples_ns"))?;
        }
        Ok(())
    }

    fn report(data: &CopyData, cx: &mut Context) -> CopyReport {
        copy_report(data, cx.options)
    }

    fn items(data: &CopyData) -> Vec<Item> {
        data.cases
            .iter()
            .filter(|c| c.available)
            .map(|c| {
                let key = format!(
                    "{} · {} B · variant {} · align {} · src+{} dst+{}{}",
                    c.implementation,
                    c.length,
                    c.variant,
                    c.alignment,
                    c.src_offset,
                    c.dst_offset,
                    if c.same_array { " · same array" } else { "" }
                );
                Item {
                    key,
                    unit: "ns".into(),
                    data: Measurements::Flat(c.samples_ns.clone()),
                    warm_up: false,
                }
            })
            .collect()
    }
}
