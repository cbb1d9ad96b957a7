//! The Comparison: several files side by side (`report::compare`), or the
//! series of one file against a reference series (`report::compare::series`).

use super::{Across, Needs};
use crate::options::Options;
use crate::report::compare::series::SeriesComparisonReport;
use crate::report::compare::{CompareSettings, ComparisonReport};
use crate::report::kept::{compare_kept_part, compare_series_kept, KeptFile};
use crate::suites::samples::Samples;
use crate::suites::Suite;
use serde::{Deserialize, Serialize};

pub struct Compare;

#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CompareParams {
    /// Pool executions of one configuration on one host (`--pool`).
    pub pool: bool,
    /// Compare warm-up series too (`--warm-ups`).
    pub warm_ups: bool,
    /// Only these suites: a part of the comparison (the page spreads a
    /// comparison's suites over its workers and puts the parts back in
    /// order); every suite when absent.
    pub suites: Option<Vec<String>>,
    /// With the pooled items (one part has them).
    pub pooled: bool,
    /// The series of the one file given against a reference series instead
    /// (`--compare-series`).
    pub series: bool,
    /// With `series`: the reference series, by name; else each unit's
    /// lowest.
    pub reference: Option<String>,
    /// With `series`: every series with the others of its unit, also where
    /// the file says they are unrelated (`--every-series`).
    pub every: bool,
}

impl Default for CompareParams {
    fn default() -> CompareParams {
        CompareParams {
            pool: false,
            warm_ups: false,
            suites: None,
            pooled: true,
            series: false,
            reference: None,
            every: false,
        }
    }
}

/// Files side by side, or one file's series.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum CompareReport {
    Files(ComparisonReport),
    Series(SeriesComparisonReport),
}

impl Across for Compare {
    const NAME: &'static str = "compare";
    const TITLE: &'static str = "Comparison";
    const NEEDS: Needs = Needs::Sharing {
        min: 2,
        series: Samples::NAME,
    };
    // A bootstrap per item and file against the first.
    const COST: u8 = 3;
    type Params = CompareParams;
    type Report = CompareReport;

    fn compute(
        files: &[&KeptFile],
        opts: &Options,
        p: &CompareParams,
    ) -> Result<CompareReport, String> {
        if p.series {
            let [file] = files else {
                return Err(format!(
                    "the series comparison is of one file ({} given)",
                    files.len()
                ));
            };
            let r = compare_series_kept(file, p.reference.as_deref(), opts, p.warm_ups, p.every)?;
            return Ok(CompareReport::Series(r));
        }
        let settings = CompareSettings {
            pool: p.pool,
            warm_ups: p.warm_ups,
        };
        Ok(CompareReport::Files(compare_kept_part(
            files,
            opts,
            settings,
            p.suites.as_deref(),
            p.pooled,
        )))
    }
}
