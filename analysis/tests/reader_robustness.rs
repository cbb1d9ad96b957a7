//! Fuzz-style property test of the reader: deterministic pseudo-random
//! mutations of the fixture bytes must never panic `read_document` or
//! `analyze_bytes`, and every error must name the file.

use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use tickbook_analysis::read::read_document;
use tickbook_analysis::report::{analyze_bytes, Options};

/// xorshift64*: small, deterministic, good enough to pick positions.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let mut out = Vec::new();
    for sub in [dir.clone(), dir.join("bad")] {
        let mut names: Vec<_> = std::fs::read_dir(&sub)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        names.sort();
        for p in names {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            out.push((name, std::fs::read(&p).unwrap()));
        }
    }
    // Results of other harnesses (importers): one file per format (each
    // accepted mutation runs the whole analysis, so not every fixture).
    for rel in [
        "import/pyperf/suite.json",
        "import/jmh/result.json",
        "import/googlebench/repetitions.json",
        "import/hyperfine/param.json",
        "import/criterion/target-criterion/tiny/fib 10/new/sample.json",
        "import/criterion/target-criterion/tiny/fib 10/new/estimates.json",
        "import/criterion/cargo-criterion.ndjson",
    ] {
        let name = rel.replace(['/', ' '], "_");
        out.push((name, std::fs::read(dir.join(rel)).unwrap()));
    }
    assert!(out.len() >= 7, "fixtures missing");
    out
}

/// Feed one input to both entry points; return a description of what went
/// wrong, if anything.
fn check(case: &str, bytes: &[u8]) -> Result<bool, String> {
    let file = format!("{case}.json");
    let read = catch_unwind(AssertUnwindSafe(|| read_document(&file, bytes)))
        .map_err(|_| format!("{file}: read_document panicked"))?;
    if let Err(e) = &read {
        if e.file != file || !e.to_string().starts_with(&format!("{file}: ")) {
            return Err(format!("{file}: error does not name the file: {e}"));
        }
        if e.message.is_empty() {
            return Err(format!("{file}: empty error message"));
        }
    }
    let report = catch_unwind(AssertUnwindSafe(|| {
        let r = analyze_bytes(&file, bytes, &Options::default());
        // The report is what front ends print; it must serialize too.
        serde_json::to_string(&r).map(|_| r)
    }))
    .map_err(|_| format!("{file}: analyze_bytes panicked"))?
    .map_err(|e| format!("{file}: report does not serialize: {e}"))?;
    if report.file != file {
        return Err(format!("{file}: report names {}", report.file));
    }
    if report.ok != read.is_ok() {
        return Err(format!(
            "{file}: analyze_bytes ok={} but read_document {:?}",
            report.ok,
            read.as_ref().err()
        ));
    }
    match (&report.error, &read) {
        (Some(a), Err(b)) if a == b => {}
        (None, Ok(_)) => {}
        (a, b) => return Err(format!("{file}: report error {a:?} vs reader {b:?}")),
    }
    Ok(read.is_ok())
}

struct Tally {
    cases: usize,
    accepted: usize,
    failures: Vec<String>,
}

impl Tally {
    fn run(&mut self, case: String, bytes: &[u8]) {
        self.cases += 1;
        match check(&case, bytes) {
            Ok(true) => self.accepted += 1,
            Ok(false) => {}
            Err(e) => self.failures.push(e),
        }
    }
}

const INSERTS: &[&[u8]] = &[
    b"[",
    b"]",
    b"{",
    b"}",
    b"\"",
    b",",
    b":",
    b"-",
    b"0",
    b"1e999",
    b"-1",
    b"null",
    b"NaN",
    b"Infinity",
    b"\\",
    b"\\u0000",
    b"\xff",
    b"\xc3",
    b"\n",
    b"[[[[[[[[",
    b"{\"a\":",
];

/// Values a number in a valid document is replaced with (structure kept).
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-0.0",
    "5e-324",
    "1e308",
    "-1e308",
    "1.7976931348623157e308",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "-1",
    "4294967296",
    "0.5",
    "1e-300",
    "123456789012345678901234567890",
];

#[test]
fn mutated_fixtures_never_panic_and_errors_name_the_file() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut t = Tally {
        cases: 0,
        accepted: 0,
        failures: Vec::new(),
    };
    let files = fixtures();
    let started = std::time::Instant::now();

    for (name, orig) in &files {
        t.run(format!("{name}-orig"), orig);

        // Every prefix at a stride (and the very short ones).
        let stride = (orig.len() / 150).max(1);
        for n in (0..orig.len()).step_by(stride).chain(0..8.min(orig.len())) {
            t.run(format!("{name}-trunc{n}"), &orig[..n]);
        }

        // Random byte flips, 1–4 per case.
        for i in 0..120 {
            let mut b = orig.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(b.len());
                b[at] ^= 1 << rng.below(8);
            }
            t.run(format!("{name}-flip{i}"), &b);
        }

        // Random bytes (any value) overwritten.
        for i in 0..60 {
            let mut b = orig.clone();
            let at = rng.below(b.len());
            b[at] = rng.next() as u8;
            t.run(format!("{name}-byte{i}"), &b);
        }

        // Insert brackets and other JSON punctuation.
        for i in 0..120 {
            let mut b = orig.clone();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(b.len() + 1);
                let ins = rng.pick(INSERTS);
                b.splice(at..at, ins.iter().copied());
            }
            t.run(format!("{name}-insert{i}"), &b);
        }

        // Delete a random span.
        for i in 0..40 {
            let mut b = orig.clone();
            let at = rng.below(b.len());
            let len = 1 + rng.below(40);
            b.drain(at..(at + len).min(b.len()));
            t.run(format!("{name}-delete{i}"), &b);
        }

        // Structure-preserving: replace numbers in a valid document with
        // extreme values, so the analysis (not only the parser) is exercised.
        if let Ok(v) = serde_json::from_slice::<Value>(orig) {
            let mut numbers = Vec::new();
            number_paths(&v, &mut Vec::new(), &mut numbers);
            for i in 0..150.min(numbers.len() * 4) {
                let mut text = orig.clone();
                let mut v2 = v.clone();
                for _ in 0..1 + rng.below(3) {
                    let path = rng.pick(&numbers);
                    let repl = *rng.pick(NUMBERS);
                    if let Some(slot) = at_path(&mut v2, path) {
                        *slot = raw_number(repl);
                    }
                }
                if let Ok(s) = serde_json::to_vec(&v2) {
                    text = s;
                }
                t.run(format!("{name}-number{i}"), &text);
            }
            // And every number out of range in turn (serde_json rejects 1e999).
            for (i, path) in numbers.iter().enumerate().take(60) {
                let mut v2 = v.clone();
                *at_path(&mut v2, path).unwrap() = Value::String("@@BIG@@".into());
                let s = serde_json::to_string(&v2)
                    .unwrap()
                    .replace("\"@@BIG@@\"", "1e999");
                t.run(format!("{name}-huge{i}"), s.as_bytes());
            }
        }
    }

    // Deep nesting, alone and inside a valid document.
    let base = &files.iter().find(|f| f.0 == "samples-3x5.json").unwrap().1;
    let base = String::from_utf8(base.clone()).unwrap();
    for depth in [1, 2, 16, 126, 127, 128, 129, 200, 1_000, 100_000] {
        t.run(format!("deep-array{depth}"), "[".repeat(depth).as_bytes());
        let closed = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        t.run(format!("deep-closed{depth}"), closed.as_bytes());
        let objs = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        t.run(format!("deep-object{depth}"), objs.as_bytes());
        let inside = base.replacen("12.28", &closed, 1);
        t.run(format!("deep-in-sample{depth}"), inside.as_bytes());
        let meta = base.replacen(
            "\"unit\": \"ms\",",
            &format!("\"unit\": \"ms\", \"metadata\": {closed},"),
            1,
        );
        t.run(format!("deep-in-metadata{depth}"), meta.as_bytes());
    }

    // A few oddities.
    for (i, b) in [
        &b""[..],
        b" ",
        b"\xef\xbb\xbf{}",
        b"\xef\xbb\xbf",
        b"null",
        b"\"tickbook\"",
        b"{}",
        b"{\"format\":\"tickbook\"}",
        b"{\"format\":\"tickbook\",\"format_version\":\"18446744073709551616.0\"}",
        b"{\"format\":\"tickbook\",\"format_version\":\"\"}",
        b"{\"format\":\"tickbook\",\"format_version\":\"1.0\",\"kind\":\"run\"}",
        b"{\"format\":\"tickbook\",\"format_version\":\"1.0\",\"kind\":\"samples\",\"series\":{}}",
        b"\x00\x00\x00\x00",
    ]
    .iter()
    .enumerate()
    {
        t.run(format!("odd{i}"), b);
    }

    let elapsed = started.elapsed();
    assert!(
        t.failures.is_empty(),
        "{} of {} cases failed:\n  {}",
        t.failures.len(),
        t.cases,
        t.failures.join("\n  ")
    );
    assert!(t.cases >= 2_000, "only {} cases", t.cases);
    // The mutations must not all be trivially rejected.
    assert!(t.accepted >= 100, "only {} accepted", t.accepted);
    eprintln!(
        "{} cases ({} accepted) in {:.2?}",
        t.cases, t.accepted, elapsed
    );
}

fn number_paths(v: &Value, at: &mut Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
    match v {
        Value::Number(_) => out.push(at.clone()),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                at.push(PathStep::Index(i));
                number_paths(x, at, out);
                at.pop();
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                at.push(PathStep::Key(k.clone()));
                number_paths(x, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn at_path<'a>(v: &'a mut Value, path: &[PathStep]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, s| match s {
        PathStep::Key(k) => v.get_mut(k.as_str()),
        PathStep::Index(i) => v.get_mut(*i),
    })
}

/// A JSON number from text, as serde_json parses it (big integers become f64).
fn raw_number(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}
