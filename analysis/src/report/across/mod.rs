//! Cells across files: a cell computed from several loaded files at once
//! (the Comparison, the Campaign, WebAssembly against native), beside the
//! suites' cells of each file. Each is a module here behind the [`Across`]
//! trait — its name, title, what the loaded files must hold for it, its
//! parameters, and its computation from kept documents — and one line of
//! `across_registry!`. The page lists them with [`across_list`] (through the
//! binding), asks for one by name with [`across_kept`], and draws it with
//! `web/src/across/<name>/index.js`, found by that name; `tickbook analyze`
//! computes them with [`Across::compute`].

use super::kept::KeptFile;
use crate::options::Options;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A cell across files.
pub trait Across {
    /// Its key: the page's module `web/src/across/<NAME>/index.js`.
    const NAME: &'static str;
    /// Its title as the page shows it.
    const TITLE: &'static str;
    /// Which loaded files it is asked for.
    const NEEDS: Needs;
    /// Its place in the page's requests, cheapest first (as a suite's
    /// `COST`): the workers take requests in order, so a cheap cell asked
    /// after a dear one waited for it (a History of a thousand commits
    /// behind their thousand-file Comparison). A cell that says nothing is
    /// taken as cheap.
    const COST: u8 = 0;
    /// What the page (or the command line) may set, as JSON; a field left
    /// out takes its default.
    type Params: DeserializeOwned + Default;
    type Report: Serialize;

    /// The cell of `files` (the page's kept files, in its order), or why
    /// there is none.
    fn compute(
        files: &[&KeptFile],
        opts: &Options,
        params: &Self::Params,
    ) -> Result<Self::Report, String>;
}

/// Which loaded files a cell across files is asked for: the readable ones
/// (their reports `ok`), chosen by the suites their reports list
/// (`FileReport.info.suites`).
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Needs {
    /// One request of every readable file, when there are `min` or more.
    All { min: usize },
    /// One request of the readable files that share a suite with another
    /// (the files a comparison may hold), when there are `min` or more;
    /// else the page's module may ask for one file with the suite `series`
    /// (one file's series against each other).
    Sharing { min: usize, series: &'static str },
    /// One request per pair of readable files: one with the suite `first`,
    /// then one with the suite `second`.
    Pairs {
        first: &'static str,
        second: &'static str,
    },
}

/// A cell across files as the page lists it.
#[derive(Debug, Clone, Serialize)]
pub struct AcrossInfo {
    pub name: &'static str,
    pub title: &'static str,
    pub needs: Needs,
    pub cost: u8,
}

/// The registry: every cell across files, one line each — its module (and
/// key) and its type — in the page's order (top to bottom, above the
/// files' cells). `across_registry!(m)` calls the macro `m` with the lines.
macro_rules! across_registry {
    ($then:ident) => {
        $then! {
            compare Compare;
            history History;
            campaign Campaign;
            native Native;
        }
    };
}

macro_rules! modules {
    ($($m:ident $T:ident;)*) => {
        $(pub mod $m;)*
        $(pub use $m::$T;)*

        /// A cell across files' report, whichever cell it is (serialized as
        /// the cell's own report).
        #[derive(Debug, Clone, Serialize)]
        #[serde(untagged)]
        pub enum AcrossReport {
            $($T(<$T as Across>::Report),)*
        }

        /// Every cell across files, in the page's order.
        pub fn across_list() -> Vec<AcrossInfo> {
            vec![$(AcrossInfo { name: <$T as Across>::NAME, title: <$T as Across>::TITLE, needs: <$T as Across>::NEEDS, cost: <$T as Across>::COST },)*]
        }

        /// The cell across files `name` of `files`, with `params` as JSON
        /// (the page's request); an error for an unknown cell, bad
        /// parameters, or the cell's own refusal.
        pub fn across_kept(
            name: &str,
            files: &[&KeptFile],
            opts: &Options,
            params: serde_json::Value,
        ) -> Result<AcrossReport, String> {
            $(
                if name == <$T as Across>::NAME {
                    return compute_value::<$T>(files, opts, params).map(AcrossReport::$T);
                }
            )*
            Err(format!("no cell across files is named {name:?}"))
        }
    };
}
across_registry!(modules);

/// One cell across files, its parameters given as JSON (null for the
/// defaults).
fn compute_value<A: Across>(
    files: &[&KeptFile],
    opts: &Options,
    params: serde_json::Value,
) -> Result<A::Report, String> {
    let params: A::Params = if params.is_null() {
        A::Params::default()
    } else {
        serde_json::from_value(params)
            .map_err(|e| format!("bad parameters for the cell {:?}: {e}", A::NAME))?
    };
    A::compute(files, opts, &params)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_unknown_ones_refused() {
        let list = across_list();
        let mut names: Vec<&str> = list.iter().map(|c| c.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), list.len());
        // The History (a fit per series) is asked before the Comparison (bootstraps).
        let cost = |n: &str| list.iter().find(|c| c.name == n).map(|c| c.cost);
        assert!(cost(History::NAME) < cost(Compare::NAME));
        let e = across_kept("nope", &[], &Options::default(), serde_json::Value::Null).unwrap_err();
        assert!(e.contains("\"nope\""), "{e}");
        let e = across_kept(
            Campaign::NAME,
            &[],
            &Options::default(),
            serde_json::json!({"no_such_field": 1}),
        )
        .unwrap_err();
        assert!(e.contains("no_such_field"), "{e}");
    }
}
