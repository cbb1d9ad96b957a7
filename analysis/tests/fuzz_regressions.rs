//! Inputs the fuzz targets (`fuzz/`, `scripts/fuzz`) found breaking a
//! reader's promise, minimised, in `tests/fixtures/fuzz-regressions/`. Each
//! is now read as it should be: refused with an error that names the file,
//! the JSON path and what was expected, or read as the format it is, by the
//! reader and by the whole analysis alike.

use std::collections::BTreeSet;
use std::path::Path;
use tickbook_analysis::read::{read_document, Document};
use tickbook_analysis::report::{analyze_bytes, Options};

enum Expect {
    /// Refused: the path the error names and words its message holds.
    Refused(Option<&'static str>, &'static str),
    /// Read as a `samples` document with this many series.
    Samples(usize),
}

const CASES: &[(&str, Expect)] = &[
    // A tiny positive iteration count made the time per iteration infinite,
    // and the stream (read without the JSON parse other formats go through)
    // skipped the sample checks: `inf` was accepted.
    (
        "cargo-criterion-tiny-iteration-count.ndjson",
        Expect::Refused(
            Some("line 1.iteration_count[4]"),
            "measured_values[4] / this count = 3 / 2e-323 is inf: expected a count that gives \
             a finite measurement per iteration",
        ),
    ),
    // The same division in a lone Criterion.rs sample.json.
    (
        "criterion-sample-tiny-iteration-count.json",
        Expect::Refused(
            Some("iters[1]"),
            "times[1] / this count = 3 / 5e-324 is inf",
        ),
    ),
    // A one-line document with a string "reason" was taken for a
    // cargo-criterion stream before its shape was looked at: a folder
    // bundle (found by the `folder` target: the page's bundle and the CLI's
    // read differently) ...
    (
        "folder-bundle-with-reason.json",
        Expect::Refused(None, "no Criterion.rs sample.json in this folder (0 files"),
    ),
    // ... and a tickbook file written on one line with an extra field.
    ("samples-one-line-with-reason.json", Expect::Samples(2)),
    // perf stat's printed header with nothing after "for ": the header was
    // cut at its full length once trimmed, past the end of the line.
    (
        "perf-stat-text-bare-header.txt",
        Expect::Refused(None, "no event perf counted"),
    ),
    // A go test -bench result line with a unit twice gave its series more
    // values than rows, and counting the rows without the unit underflowed.
    (
        "go-bench-unit-twice.txt",
        Expect::Refused(
            Some("line 2"),
            "Go test -bench text: \"BenchmarkX 10 5 ns/op 6 ns/op\": the unit \"ns/op\" twice in one result line",
        ),
    ),
];

#[test]
fn every_fuzz_regression_is_read_as_it_should_be() {
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
        "every regression file needs its expectation here"
    );

    for (name, expect) in CASES {
        let bytes = std::fs::read(dir.join(name)).expect("a regression file");
        let read = read_document(name, &bytes);
        let report = analyze_bytes(name, &bytes, &Options::default());
        match (expect, read) {
            (Expect::Refused(path, words), Err(e)) => {
                assert_eq!(e.file, *name);
                assert_eq!(e.path.as_deref(), *path, "{name}: {e}");
                assert!(e.message.contains(words), "{name}: {e}");
                assert!(!report.ok, "{name}: the analysis accepted it");
                assert_eq!(report.error.as_ref(), Some(&e), "{name}");
            }
            (Expect::Samples(n), Ok(Document::Samples(s))) => {
                assert_eq!(s.series.len(), *n, "{name}");
                assert!(report.ok, "{name}: {:?}", report.error);
                assert_eq!(report.samples.map(|r| r.series.len()), Some(*n), "{name}");
            }
            (_, read) => panic!("{name}: read as {read:?}"),
        }
    }
}
