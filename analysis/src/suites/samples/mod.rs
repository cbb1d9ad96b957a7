//! Samples: named series grouped by execution, from a samples file or an
//! import.

pub mod report;

pub use report::*;

use super::{Context, Item, Measurements, Suite};
use crate::error::{Checker, ReadError};
use crate::format::SamplesFile;

pub struct Samples;

impl Suite for Samples {
    const NAME: &'static str = "samples";
    const TITLE: &'static str = "Samples";
    const ORDER: u8 = 7;
    const COST: u8 = 2;
    const COMPARED: Option<&'static str> = Some(
        "mean of execution means (random-effects CI; bootstrap of the mean for one execution or one measurement per execution)",
    );
    type Data = SamplesFile;
    type Report = SamplesReport;

    fn check(data: &SamplesFile, cx: &Checker, at: &str) -> Result<(), ReadError> {
        validate(cx, data, at)
    }

    fn report(data: &SamplesFile, cx: &mut Context) -> SamplesReport {
        cx.warnings.extend(data.warnings.iter().cloned());
        samples_report(data, cx.options)
    }

    fn items(data: &SamplesFile) -> Vec<Item> {
        data.series
            .iter()
            .filter(|x| !x.executions.is_empty() && x.executions.iter().all(|e| !e.is_empty()))
            .map(|x| Item {
                key: x.name.clone(),
                unit: x.unit.clone(),
                data: Measurements::Grouped(x.executions.clone()),
                // The importers mark a warm-up series with the series it warms.
                warm_up: x.metadata.get("warm_up_of").is_some(),
            })
            .collect()
    }
}

fn validate(cx: &Checker, s: &SamplesFile, at: &str) -> Result<(), ReadError> {
    // The samples file is the whole document: its path is usually empty.
    let list = if at.is_empty() {
        "series".to_string()
    } else {
        format!("{at}.series")
    };
    if s.series.is_empty() {
        return Err(cx.err(Some(list), "expected at least one series"));
    }
    for (i, series) in s.series.iter().enumerate() {
        let at = format!("{list}[{i}]");
        if series.name.trim().is_empty() {
            return Err(cx.err(Some(format!("{at}.name")), "expected a non-empty name"));
        }
        if series.executions.is_empty() {
            return Err(cx.err(
                Some(format!("{at}.executions")),
                "expected at least one execution (a list of measurements)",
            ));
        }
        for (j, ex) in series.executions.iter().enumerate() {
            let path = format!("{at}.executions[{j}]");
            if ex.is_empty() {
                return Err(cx.err(Some(path), "expected at least one measurement"));
            }
            cx.check_samples(ex, &path)?;
        }
    }
    Ok(())
}
