//! What the fuzz targets share: the checks every read must pass, and a
//! JSON-aware mutator.
//!
//! Byte-level mutations of a JSON file mostly break its syntax, so almost
//! every input would stop at the parser. The mutator here parses the input
//! (one document, or one per line for cargo-criterion's stream), changes its
//! structure or values (numbers to extremes, types swapped, keys renamed or
//! dropped, arrays emptied or grown, subtrees copied, nesting deepened, JSON
//! held in strings — the folder bundle's files — mutated in turn) and writes
//! it back, so the readers' semantic checks are reached; a quarter of the
//! time, and whenever the input is not JSON, libFuzzer's own byte mutations
//! run instead, so syntax errors are fuzzed too.

use serde_json::{Map, Value};
use tickbook_analysis::import;
use tickbook_analysis::read::{read_document, Document, ReadError};

/// The name every target reads its input under.
pub const FILE: &str = "fuzz-input.json";

/// `read_document` with the properties every reader promises: no panic
/// (libFuzzer reports one), an error that names the file (or, for a folder,
/// a file in it) and says something, and accepted samples that are finite
/// and ≥ 0 in non-empty, named series.
pub fn read_checked(file: &str, bytes: &[u8]) -> Result<Document, ReadError> {
    let r = read_document(file, bytes);
    match &r {
        Err(e) => {
            assert!(
                e.file == file || e.file.starts_with(&format!("{file}/")),
                "the error names another file: {e}"
            );
            assert!(!e.message.trim().is_empty(), "empty error message: {e:?}");
            assert!(
                e.to_string().starts_with(&format!("{}: ", e.file)),
                "the message does not start with the file: {e}"
            );
        }
        Ok(Document::Samples(s)) => {
            assert!(
                !s.series.is_empty(),
                "accepted a samples file without series"
            );
            for series in &s.series {
                assert!(
                    !series.name.trim().is_empty(),
                    "accepted a series without a name"
                );
                assert!(!series.executions.is_empty(), "accepted an empty series");
                for ex in &series.executions {
                    assert!(!ex.is_empty(), "accepted an empty execution");
                    assert!(
                        ex.iter().all(|x| x.is_finite() && *x >= 0.0),
                        "accepted a sample that is not finite and ≥ 0: {ex:?}"
                    );
                }
            }
        }
        Ok(Document::Run(_)) => {}
    }
    r
}

/// The foreign format the bytes look like (its importer's id, or `folder`
/// for the page's folder bundle), or `None` for tickbook's own format or
/// something unrecognised. Targets keep only inputs of their format in
/// their corpus. `import::sniff_importer` (the crate's own guess for
/// truncated files) looks at the text without parsing it, which would cost
/// as much again as the read; streams and text are told by the importers
/// that read bytes.
pub fn detected(bytes: &[u8]) -> Option<&'static str> {
    if bytes.windows(17).any(|w| w == b"\"tickbook_folder\"") {
        return Some("folder");
    }
    import::sniff_importer(bytes)
        .or_else(|| import::detect_bytes(bytes))
        .map(|i| i.about().id)
}

/// The custom mutator (see the module comment).
pub fn mutate(data: &mut [u8], size: usize, max_size: usize, seed: u32) -> usize {
    let mut rng = Rng::new(seed);
    if rng.below(4) == 0 {
        return libfuzzer_sys::fuzzer_mutate(data, size, max_size);
    }
    let Some(mut doc) = Doc::parse(&data[..size]) else {
        return libfuzzer_sys::fuzzer_mutate(data, size, max_size);
    };
    for _ in 0..1 + rng.below(3) {
        doc.mutate(&mut rng);
    }
    let out = doc.to_bytes(&mut rng);
    if out.len() > max_size || out.len() > data.len() {
        return libfuzzer_sys::fuzzer_mutate(data, size, max_size);
    }
    data[..out.len()].copy_from_slice(&out);
    out.len()
}

/// xorshift64*, seeded by libFuzzer so a mutation can be replayed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u32) -> Rng {
        Rng(u64::from(seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// One JSON document, or a stream of one document per line.
enum Doc {
    One(Value),
    Lines(Vec<Value>),
}

impl Doc {
    fn parse(bytes: &[u8]) -> Option<Doc> {
        if let Ok(v) = serde_json::from_slice(bytes) {
            return Some(Doc::One(v));
        }
        let lines: Vec<Value> = bytes
            .split(|&b| b == b'\n')
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
            .map(serde_json::from_slice)
            .collect::<Result<_, _>>()
            .ok()?;
        (!lines.is_empty()).then_some(Doc::Lines(lines))
    }

    fn mutate(&mut self, rng: &mut Rng) {
        match self {
            Doc::One(v) => mutate_value(v, rng, 0),
            Doc::Lines(lines) => {
                let i = rng.below(lines.len());
                match rng.below(8) {
                    0 if lines.len() > 1 => {
                        lines.remove(i);
                    }
                    1 => {
                        let copy = lines[i].clone();
                        lines.insert(rng.below(lines.len() + 1), copy);
                    }
                    2 => {
                        let j = rng.below(lines.len());
                        lines.swap(i, j);
                    }
                    _ => mutate_value(&mut lines[i], rng, 0),
                }
            }
        }
    }

    fn to_bytes(&self, rng: &mut Rng) -> Vec<u8> {
        match self {
            Doc::One(v) if rng.chance(2) => serde_json::to_vec_pretty(v),
            Doc::One(v) => serde_json::to_vec(v),
            Doc::Lines(lines) => {
                let mut out = Vec::new();
                for l in lines {
                    out.extend(serde_json::to_vec(l).unwrap_or_default());
                    out.push(b'\n');
                }
                Ok(out)
            }
        }
        .unwrap_or_default()
    }
}

/// Numbers readers and statistics find awkward.
const NUMBERS: &[f64] = &[
    0.0,
    -0.0,
    -1.0,
    1.0,
    0.5,
    2.0,
    3.0,
    1e-300,
    5e-324,
    1e300,
    1.797_693_134_862_315_7e308,
    -1e308,
    4_294_967_296.0,
    9_007_199_254_740_993.0,
    1.8446744073709552e19,
];

/// Keys and strings of the formats read (tickbook's and the importers'),
/// and a few hostile ones.
const STRINGS: &[&str] = &[
    "",
    " ",
    "x",
    "ns",
    "us",
    "µs",
    "ms",
    "s",
    "counter_ticks",
    "complete",
    "failed",
    "interrupted",
    "run",
    "samples",
    "tickbook",
    "1.0",
    "1.999",
    "2.0",
    "format",
    "format_version",
    "kind",
    "series",
    "executions",
    "suites",
    "suite",
    "status",
    "data",
    "unit",
    "name",
    "metadata",
    "host",
    "source",
    "benchmarks",
    "context",
    "runs",
    "values",
    "warmups",
    "results",
    "times",
    "iters",
    "sampling_mode",
    "Linear",
    "Flat",
    "point_estimate",
    "mean",
    "median",
    "reason",
    "benchmark-complete",
    "group-complete",
    "measured_values",
    "iteration_count",
    "primaryMetric",
    "rawData",
    "jmhVersion",
    "score",
    "run_type",
    "iteration",
    "aggregate",
    "repetitions",
    "real_time",
    "cpu_time",
    "time_unit",
    "tickbook_folder",
    "entries",
    "path",
    "text",
    "new/sample.json",
    "a/new/sample.json",
    "a/base/sample.json",
    "a/new/estimates.json",
    "a/new/benchmark.json",
    "/",
    "../",
    "a//new/sample.json",
    "\u{0}",
    "\u{fffd}",
    "é",
    "😀",
    "\u{202e}",
];

/// Replace, reshape or grow one part of `v`.
fn mutate_value(v: &mut Value, rng: &mut Rng, depth: usize) {
    let donor = random_node(v, rng, |_| true).cloned();
    match rng.below(10) {
        // A number to an extreme or a neighbour.
        0..=2 => {
            if let Some(n) = random_node_mut(v, rng, Value::is_number) {
                let x = n.as_f64().unwrap_or(0.0);
                let y = match rng.below(6) {
                    0 => -x,
                    1 => x * 2.0,
                    2 => x / 2.0,
                    3 => x.trunc() + 1.0,
                    _ => *rng.pick(NUMBERS),
                };
                *n = if y.fract() == 0.0 && y.abs() < 9e15 && rng.chance(2) {
                    Value::from(y as i64)
                } else {
                    Value::from(y)
                };
            }
        }
        // Any node to another type, or to a copy of another node.
        3 => {
            let node = random_node_mut(v, rng, |_| true);
            if let Some(node) = node {
                *node = match rng.below(8) {
                    0 => Value::Null,
                    1 => Value::Bool(rng.chance(2)),
                    2 => Value::from(*rng.pick(NUMBERS)),
                    3 => Value::String(rng.pick(STRINGS).to_string()),
                    4 => Value::Array(Vec::new()),
                    5 => Value::Object(Map::new()),
                    _ => donor.unwrap_or(Value::Null),
                };
            }
        }
        // An array shortened, emptied, grown or reordered.
        4 | 5 => {
            if let Some(Value::Array(a)) = random_node_mut(v, rng, Value::is_array) {
                let n = a.len();
                match rng.below(6) {
                    0 if n > 0 => {
                        a.remove(rng.below(n));
                    }
                    1 => a.truncate(rng.below(2)),
                    2 if n > 0 => {
                        let x = a[rng.below(n)].clone();
                        let most = if rng.chance(4) { 64 } else { 3 };
                        for _ in 0..1 + rng.below(most) {
                            a.insert(rng.below(a.len() + 1), x.clone());
                        }
                    }
                    3 if n > 1 => {
                        let (i, j) = (rng.below(n), rng.below(n));
                        a.swap(i, j);
                    }
                    _ => a.push(donor.unwrap_or(Value::Null)),
                }
            }
        }
        // An object's key dropped, renamed or added.
        6 | 7 => {
            if let Some(Value::Object(o)) = random_node_mut(v, rng, Value::is_object) {
                let keys: Vec<String> = o.keys().cloned().collect();
                match rng.below(3) {
                    0 if !keys.is_empty() => {
                        o.remove(rng.pick(&keys));
                    }
                    1 if !keys.is_empty() => {
                        let k = rng.pick(&keys).clone();
                        if let Some(x) = o.remove(&k) {
                            o.insert(rng.pick(STRINGS).to_string(), x);
                        }
                    }
                    _ => {
                        let x = donor.unwrap_or(Value::Null);
                        o.insert(rng.pick(STRINGS).to_string(), x);
                    }
                }
            }
        }
        // A string changed; JSON held in a string mutated as JSON.
        8 => {
            if let Some(Value::String(s)) = random_node_mut(v, rng, Value::is_string) {
                if depth < 2 && rng.chance(2) {
                    if let Ok(mut inner) = serde_json::from_str::<Value>(s) {
                        mutate_value(&mut inner, rng, depth + 1);
                        *s = serde_json::to_string_pretty(&inner).unwrap_or_default();
                        return;
                    }
                }
                match rng.below(4) {
                    0 => *s = rng.pick(STRINGS).to_string(),
                    1 => s.push_str(rng.pick(STRINGS)),
                    2 => {
                        let cut = (0..=rng.below(s.len() + 1))
                            .rev()
                            .find(|&i| s.is_char_boundary(i))
                            .unwrap_or(0);
                        s.truncate(cut);
                    }
                    _ => *s = s.repeat(1 + rng.below(8)),
                }
            }
        }
        // A node nested deeper (serde_json's recursion limit is 128).
        _ => {
            if let Some(node) = random_node_mut(v, rng, |_| true) {
                let levels = *rng.pick(&[1, 2, 8, 120, 126, 127, 128, 129]);
                for _ in 0..levels {
                    let inner = std::mem::take(node);
                    *node = if rng.chance(2) {
                        Value::Array(vec![inner])
                    } else {
                        let mut m = Map::new();
                        m.insert(rng.pick(STRINGS).to_string(), inner);
                        Value::Object(m)
                    };
                }
            }
        }
    }
}

fn count(v: &Value, keep: fn(&Value) -> bool) -> usize {
    let inner = match v {
        Value::Array(a) => a.iter().map(|x| count(x, keep)).sum(),
        Value::Object(o) => o.values().map(|x| count(x, keep)).sum(),
        _ => 0,
    };
    inner + usize::from(keep(v))
}

fn nth<'a>(v: &'a Value, k: &mut usize, keep: fn(&Value) -> bool) -> Option<&'a Value> {
    if keep(v) {
        if *k == 0 {
            return Some(v);
        }
        *k -= 1;
    }
    match v {
        Value::Array(a) => a.iter().find_map(|x| nth(x, k, keep)),
        Value::Object(o) => o.values().find_map(|x| nth(x, k, keep)),
        _ => None,
    }
}

fn nth_mut<'a>(v: &'a mut Value, k: &mut usize, keep: fn(&Value) -> bool) -> Option<&'a mut Value> {
    if keep(v) {
        if *k == 0 {
            return Some(v);
        }
        *k -= 1;
    }
    match v {
        Value::Array(a) => a.iter_mut().find_map(|x| nth_mut(x, k, keep)),
        Value::Object(o) => o.values_mut().find_map(|x| nth_mut(x, k, keep)),
        _ => None,
    }
}

fn random_node<'a>(v: &'a Value, rng: &mut Rng, keep: fn(&Value) -> bool) -> Option<&'a Value> {
    let n = count(v, keep);
    if n == 0 {
        return None;
    }
    let mut k = rng.below(n);
    nth(v, &mut k, keep)
}

fn random_node_mut<'a>(
    v: &'a mut Value,
    rng: &mut Rng,
    keep: fn(&Value) -> bool,
) -> Option<&'a mut Value> {
    let n = count(v, keep);
    if n == 0 {
        return None;
    }
    let mut k = rng.below(n);
    nth_mut(v, &mut k, keep)
}

/// A reader target: read the input (every input, whatever its format) and
/// keep it in the corpus only if it is detected as one of `formats` (the
/// importers' ids; `[]`: tickbook's own format, i.e. none of the foreign
/// ones), so each target's corpus stays on its reader.
pub fn reader_target(bytes: &[u8], formats: &[&str]) -> libfuzzer_sys::Corpus {
    let _ = read_checked(FILE, bytes);
    let keep = match detected(bytes) {
        Some(f) => formats.contains(&f),
        None => formats.is_empty(),
    };
    if keep {
        libfuzzer_sys::Corpus::Keep
    } else {
        libfuzzer_sys::Corpus::Reject
    }
}

/// Declare a target's custom mutator ([`mutate`]).
#[macro_export]
macro_rules! json_mutator {
    () => {
        libfuzzer_sys::fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
            $crate::mutate(data, size, max_size, seed)
        });
    };
}
