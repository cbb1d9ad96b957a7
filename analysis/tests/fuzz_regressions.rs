//! Inputs the fuzz targets (`fuzz/`, `scripts/fuzz`) found breaking a
//! reader's promise, minimised, in `tests/fixtures/fuzz-regressions/`. Each
//! must now be refused with an error that names the file, the JSON path and
//! what was expected, by the reader and by the whole analysis alike.

use std::collections::BTreeSet;
use std::path::Path;
use tickbook_analysis::read::read_document;
use tickbook_analysis::report::{analyze_bytes, Options};

/// File, the path the error must name, and words its message must hold.
const CASES: &[(&str, &str, &str)] = &[
    // A tiny positive iteration count made the time per iteration infinite,
    // and the stream (read without the JSON parse other formats go through)
    // skipped the sample checks: `inf` was accepted.
    (
        "cargo-criterion-tiny-iteration-count.ndjson",
        "line 1.iteration_count[4]",
        "measured_values[4] / this count = 3 / 2e-323 is inf: expected a count that gives a \
         finite measurement per iteration",
    ),
    // The same division in a lone Criterion.rs sample.json.
    (
        "criterion-sample-tiny-iteration-count.json",
        "iters[1]",
        "times[1] / this count = 3 / 5e-324 is inf",
    ),
];

#[test]
fn every_fuzz_regression_is_refused_with_a_clear_error() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fuzz-regressions");
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .expect("the regression folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let listed: BTreeSet<String> = CASES.iter().map(|c| c.0.to_string()).collect();
    assert_eq!(
        on_disk, listed,
        "every regression file needs its expected error here"
    );

    for (name, path, words) in CASES {
        let bytes = std::fs::read(dir.join(name)).expect("a regression file");
        let e = match read_document(name, &bytes) {
            Ok(doc) => panic!("{name} was accepted: {doc:?}"),
            Err(e) => e,
        };
        assert_eq!(e.file, *name);
        assert_eq!(e.path.as_deref(), Some(*path), "{name}: {e}");
        assert!(e.message.contains(words), "{name}: {e}");
        let report = analyze_bytes(name, &bytes, &Options::default());
        assert!(!report.ok, "{name}: the analysis accepted it");
        assert_eq!(report.error.as_ref(), Some(&e), "{name}");
    }
}
