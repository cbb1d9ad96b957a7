//! WebAssembly against native: a browser measurement beside a native `ops`
//! run of the same machine (`report::native_comparison_documents`).

use super::{Across, Needs};
use crate::options::Options;
use crate::report::kept::{native_comparison_kept, KeptFile};
use crate::suites::browser::report::NativeComparison;
use crate::suites::browser::Browser;
use crate::suites::ops::Ops;
use crate::suites::Suite;
use serde::Deserialize;

pub struct Native;

/// Nothing to set.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NativeParams {}

impl Across for Native {
    const NAME: &'static str = "native";
    const TITLE: &'static str = "WebAssembly against native";
    const NEEDS: Needs = Needs::Pairs {
        first: Browser::NAME,
        second: Ops::NAME,
    };
    const COST: u8 = 0;
    type Params = NativeParams;
    type Report = NativeComparison;

    fn compute(
        files: &[&KeptFile],
        opts: &Options,
        _: &NativeParams,
    ) -> Result<NativeComparison, String> {
        let [browser, native] = files else {
            return Err(format!(
                "WebAssembly against native takes a browser file and a native one ({} given)",
                files.len()
            ));
        };
        native_comparison_kept(browser, native, opts)
    }
}
