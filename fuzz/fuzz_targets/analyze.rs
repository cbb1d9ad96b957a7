//! The whole path of one file's bytes: `report::analyze_bytes` (reading
//! and every cell's analysis), as `tickbook analyze` and the page run it.
//! The report must agree with the reader and serialize (front ends print
//! its JSON).
//!
//! With fewer bootstrap resamples than the default (the same code, fewer
//! turns of its loops), so the fuzzer tries more files.
#![no_main]

use tickbook_analysis::report::{analyze_bytes, Options};
use tickbook_analysis::stats::bootstrap::BootstrapOptions;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let file = tickbook_fuzz::FILE;
    let read = tickbook_fuzz::read_checked(file, data);
    let opts = Options {
        bootstrap: BootstrapOptions {
            resamples: 50,
            ..Options::default().bootstrap
        },
        impact_resamples: 10,
        ..Options::default()
    };
    let report = analyze_bytes(file, data, &opts);
    assert_eq!(
        report.ok,
        read.is_ok(),
        "the report and the reader disagree"
    );
    assert_eq!(
        report.error,
        read.err(),
        "the report's error is not the reader's"
    );
    serde_json::to_string(&report).expect("the report serializes");
});
tickbook_fuzz::json_mutator!();
