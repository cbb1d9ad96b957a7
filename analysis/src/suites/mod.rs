//! One folder per cell: a suite's data types (what its section of a run
//! file reads to), its checks and its report, behind the [`Suite`] trait.
//! `samples` is the cell of samples files and imports.
//!
//! The `registry!` macro lists every cell once. The document model
//! (`read::RunDocument`), the reader's dispatch, `report::FileReport`'s
//! cells, the per-suite filter (`report::analyze_bytes_suites`),
//! [`SuiteId`], `report::Cell` and [`cell_list`] are generated from it:
//! adding a suite is its folder and one line there.

use crate::error::{Checker, ReadError};
use crate::format::Host;
use crate::options::Options;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use std::sync::OnceLock;

pub mod alloc;
pub mod bernoulli;
pub mod bottleneck;
pub mod browser;
pub mod clocks;
pub mod commands;
pub mod copy;
/// Execution statistics: the part of a cell that Samples, Allocation and
/// the comparison share.
pub mod executions;
pub mod ops;
pub mod samples;
pub mod trace;

/// The registry: every cell, one line each — its key (the folder, the
/// section name of run files, `FileReport`'s JSON key), its variant in
/// [`SuiteId`] and `report::Cell`, and `run` for a suite a collector runs,
/// `page` for a section of run files that `tickbook collect` does not make
/// (the page's Measure this browser, `tickbook run`), or `file` for the cell
/// made from a whole samples file. Lines
/// are in the order of `FileReport`'s JSON keys; the page's order is
/// [`Suite::ORDER`].
///
/// `registry!(m)` calls the macro `m` with every line, `registry!(runs =>
/// m)` with the `run` lines only (the collector's suites), `registry!(sections
/// => m)` with the `run` and `page` lines (every section of a run file).
macro_rules! registry {
    (@lines $then:ident $filter:ident) => {
        $crate::suites::registry!(@filter $filter $then []
            clocks Clocks run;
            samples Samples file;
            bernoulli Bernoulli run;
            ops Ops run;
            copy Copy run;
            alloc Alloc run;
            bottleneck Bottleneck run;
            trace Trace run;
            browser Browser page;
            commands Commands page;
        );
    };
    (@filter all $then:ident [] $($f:ident $V:ident $k:ident;)*) => {
        $then! { $($f $V $k;)* }
    };
    (@filter runs $then:ident [$($acc:tt)*]) => {
        $then! { $($acc)* }
    };
    (@filter runs $then:ident [$($acc:tt)*] $f:ident $V:ident run; $($rest:tt)*) => {
        $crate::suites::registry!(@filter runs $then [$($acc)* $f $V run;] $($rest)*);
    };
    (@filter runs $then:ident [$($acc:tt)*] $f:ident $V:ident file; $($rest:tt)*) => {
        $crate::suites::registry!(@filter runs $then [$($acc)*] $($rest)*);
    };
    (@filter runs $then:ident [$($acc:tt)*] $f:ident $V:ident page; $($rest:tt)*) => {
        $crate::suites::registry!(@filter runs $then [$($acc)*] $($rest)*);
    };
    (@filter sections $then:ident [$($acc:tt)*]) => {
        $then! { $($acc)* }
    };
    (@filter sections $then:ident [$($acc:tt)*] $f:ident $V:ident file; $($rest:tt)*) => {
        $crate::suites::registry!(@filter sections $then [$($acc)*] $($rest)*);
    };
    (@filter sections $then:ident [$($acc:tt)*] $f:ident $V:ident $k:ident; $($rest:tt)*) => {
        $crate::suites::registry!(@filter sections $then [$($acc)* $f $V $k;] $($rest)*);
    };
    (sections => $then:ident) => {
        $crate::suites::registry!(@lines $then sections);
    };
    (runs => $then:ident) => {
        $crate::suites::registry!(@lines $then runs);
    };
    ($then:ident) => {
        $crate::suites::registry!(@lines $then all);
    };
}
pub(crate) use registry;

/// What a suite's folder provides.
pub trait Suite {
    /// The key: the section's `suite` in run files, `FileReport`'s JSON key,
    /// the page's cell file.
    const NAME: &'static str;
    /// The cell's title as the page shows it.
    const TITLE: &'static str;
    /// Position in the page's and the terminal's order of cells.
    const ORDER: u8;
    /// Position in the worker's progressive analysis, cheapest first.
    const COST: u8;
    /// Whether the data of a section that did not finish are shown: what
    /// the suite checkpointed, read leniently (no checks; unreadable data
    /// are dropped).
    const SHOWS_UNFINISHED: bool = false;
    /// What files are compared on (the statistic, as `compare` names it),
    /// or `None` when the cell is not compared.
    const COMPARED: Option<&'static str> = None;

    /// What the section's `data` reads to (the whole file for `samples`).
    type Data: DeserializeOwned + Serialize;
    type Report: Serialize;

    /// Checks of values the types do not make: finite, positive, lengths
    /// that match. `at` is the JSON path of the data.
    fn check(data: &Self::Data, cx: &Checker, at: &str) -> Result<(), ReadError>;

    /// The cell.
    fn report(data: &Self::Data, cx: &mut Context) -> Self::Report;

    /// The items files are compared on (with [`Suite::COMPARED`]).
    fn items(_data: &Self::Data) -> Vec<Item> {
        Vec::new()
    }
}

/// What a cell's report is given besides its data.
pub struct Context<'a> {
    pub options: &'a Options,
    /// The run file's host (none for samples).
    pub host: Option<&'a Host>,
    /// The section's fallbacks as the collector recorded them (none for
    /// samples).
    pub fallbacks: &'a [String],
    /// The data come from a section that did not finish.
    pub unfinished: bool,
    /// The file's warnings, to which a cell adds its own.
    pub warnings: &'a mut Vec<String>,
}

/// One item of a compared cell, matched across files by `key`.
pub struct Item {
    pub key: String,
    pub unit: String,
    pub data: Measurements,
    /// Warm-up values (pyperf's), left out of comparisons unless asked for.
    pub warm_up: bool,
}

/// The measurements of one item: flat samples (summarised by the median) or
/// measurements grouped by execution (summarised by the mean of execution
/// means; these are also pooled).
pub enum Measurements {
    Flat(Vec<f64>),
    Grouped(Vec<Vec<f64>>),
}

/// A cell as the front ends list it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CellInfo {
    pub name: &'static str,
    pub title: &'static str,
    /// Position in the worker's progressive analysis, cheapest first.
    pub cost: u8,
}

macro_rules! suite_ids {
    ($($f:ident $V:ident $k:ident;)*) => {
        /// The suites a collector runs.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum SuiteId {
            $($V,)*
        }

        impl SuiteId {
            pub const ALL: &'static [SuiteId] = &[$(SuiteId::$V,)*];

            /// The section name in run files.
            pub fn name(self) -> &'static str {
                match self {
                    $(SuiteId::$V => <$f::$V as Suite>::NAME,)*
                }
            }

            pub fn from_name(name: &str) -> Option<SuiteId> {
                SuiteId::ALL.iter().copied().find(|s| s.name() == name)
            }
        }
    };
}
registry!(runs => suite_ids);

macro_rules! typed_round_trip {
    ($($f:ident $V:ident $k:ident;)*) => {
        /// A section's `data` read by its suite's type and written back:
        /// what the types keep of it (`None` for a suite this build does not
        /// know, or data that do not read). The schema tests compare it with
        /// what a collector wrote, to find fields the types would drop.
        pub fn typed_round_trip(suite: &str, data: &Value) -> Option<Value> {
            $(
                if suite == <$f::$V as Suite>::NAME {
                    let typed: <$f::$V as Suite>::Data =
                        serde_json::from_value(data.clone()).ok()?;
                    return serde_json::to_value(typed).ok();
                }
            )*
            None
        }
    };
}
registry!(sections => typed_round_trip);

macro_rules! cell_infos {
    ($($f:ident $V:ident $k:ident;)*) => {
        fn cell_infos() -> Vec<(u8, CellInfo)> {
            vec![$((
                <$f::$V as Suite>::ORDER,
                CellInfo {
                    name: <$f::$V as Suite>::NAME,
                    title: <$f::$V as Suite>::TITLE,
                    cost: <$f::$V as Suite>::COST,
                },
            ),)*]
        }
    };
}
registry!(cell_infos);

/// Every cell, in the page's order.
pub fn cell_list() -> &'static [CellInfo] {
    static LIST: OnceLock<Vec<CellInfo>> = OnceLock::new();
    LIST.get_or_init(|| {
        let mut cells = cell_infos();
        cells.sort_by_key(|(order, _)| *order);
        cells.into_iter().map(|(_, c)| c).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_are_permutations_and_names_round_trip() {
        let mut orders: Vec<u8> = cell_infos().iter().map(|(o, _)| *o).collect();
        let mut costs: Vec<u8> = cell_list().iter().map(|c| c.cost).collect();
        orders.sort();
        costs.sort();
        let n = cell_list().len() as u8;
        assert_eq!(orders, (0..n).collect::<Vec<_>>());
        assert_eq!(costs, (0..n).collect::<Vec<_>>());
        for &s in SuiteId::ALL {
            assert_eq!(SuiteId::from_name(s.name()), Some(s));
        }
        assert_eq!(SuiteId::from_name("samples"), None);
    }

    #[test]
    fn names_and_titles_are_unique() {
        // The order itself is each suite's ORDER; restating it here would be
        // a second list of suites to keep.
        let list = cell_list();
        let mut names: Vec<&str> = list.iter().map(|c| c.name).collect();
        let mut titles: Vec<&str> = list.iter().map(|c| c.title).collect();
        assert!(titles.iter().all(|t| !t.is_empty()));
        names.sort();
        names.dedup();
        titles.sort();
        titles.dedup();
        assert_eq!((names.len(), titles.len()), (list.len(), list.len()));
        assert_eq!(list.first().map(|c| c.name), Some("clocks"));
    }

    #[test]
    fn cell_list_json_is_what_the_page_reads() {
        let json = serde_json::to_string(cell_list()).unwrap();
        assert!(
            json.starts_with(r#"[{"name":"clocks","title":"Clocks","cost":0},{"name":"bernoulli""#),
            "{json}"
        );
    }
}
