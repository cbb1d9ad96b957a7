//! Readers for results other harnesses write: pyperf, JMH, Google Benchmark,
//! hyperfine, Criterion.rs (`sample.json`/`estimates.json` directories),
//! cargo-criterion's JSON message stream, pytest-benchmark, Go's
//! `go test -bench` (text and `-json`) and `perf stat` (`-x,` and `-j`).
//!
//! Each maps the foreign file onto the `samples` model ([`SamplesFile`]):
//! named series in one unit, measurements grouped by execution where the
//! format records process runs (pyperf worker runs, JMH forks, hyperfine
//! runs), and a single execution where the tool ran everything in one process
//! (Google Benchmark repetitions, Criterion samples). Each series keeps the
//! tool's own metadata under `metadata` and, where the file has them, the
//! tool's own statistics under `metadata.tool_statistics`, so the page can
//! show both. See `docs/importers.md`.
//!
//! The format is detected from the content, never the file name. Errors name
//! the format and the JSON path inside the foreign file.

use crate::error::{Checker, ReadError};
use crate::format::{SamplesFile, Series, FORMAT_TAG, KIND_SAMPLES};
use serde_json::{Map, Value};

pub mod cargo_criterion;
pub mod criterion;
pub mod go_bench;
pub mod google_benchmark;
pub mod hyperfine;
pub mod jmh;
pub mod perf_stat;
pub mod pyperf;
pub mod pytest_benchmark;
pub mod text;

pub use text::{import_text, not_recognised};

/// What the readers try, each with what it needs (which a file it rejected
/// lacks), in the order a "none of these" message lists them.
pub const TRIED: &str = "pyperf JSON (-o: an object with \"benchmarks\" and \"version\" \
or \"metadata\"), pytest-benchmark JSON (--benchmark-json: \"benchmarks\" and \
\"machine_info\" or \"commit_info\"), JMH JSON (-rf json: an array of objects with \
\"jmhVersion\" or \"primaryMetric\"), Google Benchmark JSON (--benchmark_out_format=json: \
\"benchmarks\" and \"context\"), hyperfine JSON (--export-json: \"results\"), Criterion.rs \
sample.json/estimates.json (\"iters\" and \"times\", or \"mean\".\"point_estimate\"), \
cargo-criterion --message-format=json (objects with \"reason\"), go test -json (objects \
with \"Action\"), perf stat -j (objects with \"counter-value\" and \"event\"); as text: \
go test -bench (lines \"BenchmarkName N VALUE UNIT…\"), perf stat -x, (lines \
VALUE,UNIT,EVENT,…)";

/// A foreign format recognised by its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Pyperf,
    Jmh,
    GoogleBenchmark,
    Hyperfine,
    CriterionSample,
    CriterionEstimates,
    CargoCriterion,
    PytestBenchmark,
    /// `go test -bench` text (not JSON: recognised by `import_text`).
    GoBenchText,
    GoTestJson,
    /// `perf stat -x,` (not JSON: recognised by `import_text`).
    PerfStatCsv,
    PerfStatJson,
    /// Not a tool's format: a folder the page read and bundled as
    /// `{"tickbook_folder": 1, "entries": [{"path", "text"}…]}`
    /// (web/src/app/intake.js), read as [`criterion::read_dir`] reads a tree.
    Folder,
}

impl Format {
    /// The name messages use.
    pub fn label(self) -> &'static str {
        match self {
            Format::Pyperf => "pyperf JSON",
            Format::Jmh => "JMH JSON",
            Format::GoogleBenchmark => "Google Benchmark JSON",
            Format::Hyperfine => "hyperfine JSON",
            Format::CriterionSample => "Criterion.rs sample.json",
            Format::CriterionEstimates => "Criterion.rs estimates.json",
            Format::CargoCriterion => "cargo-criterion JSON stream",
            Format::PytestBenchmark => "pytest-benchmark JSON",
            Format::GoBenchText => "Go test -bench text",
            Format::GoTestJson => "go test -json stream",
            Format::PerfStatCsv => "perf stat -x, CSV",
            Format::PerfStatJson => "perf stat -j JSON",
            Format::Folder => "folder",
        }
    }

    /// The checker of a file in this format: every message starts with the
    /// format's label.
    pub fn checker(self, file: &str) -> Checker<'_> {
        Checker::of_format(file, self.label())
    }
}

/// Recognise a parsed document by its shape (top-level keys), or `None`.
pub fn detect(v: &Value) -> Option<Format> {
    match v {
        Value::Array(items) => {
            let first = items.first()?.as_object()?;
            (first.contains_key("jmhVersion")
                || (first.contains_key("benchmark") && first.contains_key("primaryMetric")))
            .then_some(Format::Jmh)
        }
        Value::Object(o) => {
            let has = |k: &str| o.contains_key(k);
            if has("format") {
                None
            } else if has("tickbook_folder") {
                Some(Format::Folder)
            } else if has("benchmarks") && has("context") {
                Some(Format::GoogleBenchmark)
            } else if has("benchmarks") && (has("machine_info") || has("commit_info")) {
                // Before pyperf: pytest-benchmark also writes "version".
                Some(Format::PytestBenchmark)
            } else if has("benchmarks") && (has("version") || has("metadata")) {
                Some(Format::Pyperf)
            } else if has("results") {
                Some(Format::Hyperfine)
            } else if has("sampling_mode") || (has("iters") && has("times")) {
                Some(Format::CriterionSample)
            } else if has("mean")
                && o.get("mean")
                    .is_some_and(|m| m.get("point_estimate").is_some())
            {
                Some(Format::CriterionEstimates)
            } else if o.get("reason").is_some_and(Value::is_string) {
                Some(Format::CargoCriterion)
            } else if go_bench::is_event(v) {
                Some(Format::GoTestJson)
            } else if perf_stat::is_event(v) {
                Some(Format::PerfStatJson)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Guess the format of bytes that are not valid JSON (a truncated file), so
/// the message can name it. Looks only at the first few KB.
pub fn sniff(bytes: &[u8]) -> Option<Format> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(8192)]);
    let has = |s: &str| head.contains(s);
    if has("\"tickbook\"") {
        None
    } else if has("\"jmhVersion\"") || has("\"primaryMetric\"") {
        Some(Format::Jmh)
    } else if has("\"reason\"") && (has("benchmark-complete") || has("group-complete")) {
        Some(Format::CargoCriterion)
    } else if has("\"benchmarks\"") && (has("\"context\"") || has("\"run_type\"")) {
        Some(Format::GoogleBenchmark)
    } else if has("\"machine_info\"") && has("\"commit_info\"") {
        // pytest-benchmark writes them first: a long machine_info can push
        // "benchmarks" out of the head.
        Some(Format::PytestBenchmark)
    } else if has("\"benchmarks\"") && (has("\"runs\"") || has("\"perf_version\"")) {
        Some(Format::Pyperf)
    } else if has("\"results\"") && has("\"command\"") {
        Some(Format::Hyperfine)
    } else if has("\"sampling_mode\"") || (has("\"iters\"") && has("\"times\"")) {
        Some(Format::CriterionSample)
    } else if has("\"point_estimate\"") {
        Some(Format::CriterionEstimates)
    } else {
        None
    }
}

/// What an importer made of its input.
#[derive(Debug, Clone, PartialEq)]
pub enum Imported {
    Samples(SamplesFile),
    /// A folder with no Criterion.rs `sample.json`: its files, each to be
    /// read as it would be alone (by `crate::read`, which knows every
    /// format), as (name in messages, bytes). `folder` names the folder.
    Files {
        folder: String,
        files: Vec<(String, Vec<u8>)>,
    },
}

/// Import a parsed foreign document, or `None` when it is none of the formats.
pub fn import_value(file: &str, v: &Value) -> Option<Result<Imported, ReadError>> {
    let format = detect(v)?;
    let cx = format.checker(file);
    let samples = match format {
        Format::Pyperf => pyperf::read(&cx, v),
        Format::Jmh => jmh::read(&cx, v),
        Format::GoogleBenchmark => google_benchmark::read(&cx, v),
        Format::Hyperfine => hyperfine::read(&cx, v),
        Format::CriterionSample => criterion::read_lone_sample(&cx, v),
        Format::CriterionEstimates => Err(cx.err(
            None,
            "this holds Criterion's estimates, not its measurements: load the benchmark's \
             folder (target/criterion/…) or its new/sample.json",
        )),
        Format::CargoCriterion => cargo_criterion::read_value_lines(&cx, std::iter::once((1, v))),
        Format::PytestBenchmark => pytest_benchmark::read(&cx, v),
        Format::GoTestJson => go_bench::read_events(&cx, std::iter::once((1, v))),
        Format::PerfStatJson => perf_stat::read_values(&cx, std::iter::once((1, v)), None),
        // Text: never detected in a JSON document.
        Format::GoBenchText | Format::PerfStatCsv => return None,
        Format::Folder => return Some(folder(&cx, v)),
    };
    Some(samples.map(Imported::Samples))
}

/// A folder's files as the one document the page reads (`Format::Folder`),
/// for front ends that pass bytes around (`tickbook report DIR`). Files are
/// JSON text; bytes that are not UTF-8 are replaced (and then fail to parse
/// with a message, as they would alone).
pub fn folder_bundle(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let entries: Vec<Value> = entries
        .iter()
        .map(|(p, b)| serde_json::json!({"path": p, "text": String::from_utf8_lossy(b)}))
        .collect();
    serde_json::json!({"tickbook_folder": 1, "entries": entries})
        .to_string()
        .into_bytes()
}

/// The page's folder bundle: entries as (path, bytes), then the folder reader.
fn folder(cx: &Checker, v: &Value) -> Result<Imported, ReadError> {
    let o = cx.obj(v, "")?;
    let items = cx.arr(cx.field(o, "entries", "")?, "entries")?;
    let mut entries = Vec::with_capacity(items.len());
    for (i, e) in items.iter().enumerate() {
        let at = format!("entries[{i}]");
        let eo = cx.obj(e, &at)?;
        let path = cx.str(cx.field(eo, "path", &at)?, &format!("{at}.path"))?;
        let text = cx.str(cx.field(eo, "text", &at)?, &format!("{at}.text"))?;
        entries.push((path.to_string(), text.as_bytes().to_vec()));
    }
    criterion::read_dir(cx.file.trim_end_matches('/'), &entries)
}

/// Prefix a JSON syntax error with the format the bytes look like, if any.
pub fn name_parse_error(bytes: &[u8], mut e: ReadError) -> ReadError {
    if let Some(f) = sniff(bytes) {
        e.message = format!("{} (recognised by its content): {}", f.label(), e.message);
    }
    e
}

/// A JSON-lines stream as (line number, value), blank lines skipped; a line
/// that is not JSON is refused with its number. `each` names what one line
/// holds ("event", "object") for the message.
pub(crate) fn json_lines(
    cx: &Checker,
    bytes: &[u8],
    each: &str,
) -> Result<Vec<(usize, Value)>, ReadError> {
    let mut values = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let v: Value = serde_json::from_slice(line).map_err(|e| {
            cx.err(
                None,
                format!(
                    "line {}: not a JSON object ({e}); the stream holds one {each} per line",
                    i + 1
                ),
            )
        })?;
        values.push((i + 1, v));
    }
    Ok(values)
}

/// A `samples` document from imported series; an error when nothing usable
/// was found.
pub(crate) fn samples_file(
    cx: &Checker,
    source: String,
    description: Option<String>,
    host: Option<Value>,
    series: Vec<Series>,
) -> Result<SamplesFile, ReadError> {
    if series.is_empty() {
        return Err(cx.err(
            None,
            format!(
                "no measurements found{}",
                description
                    .as_deref()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default()
            ),
        ));
    }
    Ok(SamplesFile {
        format: FORMAT_TAG.to_string(),
        format_version: "1.0".to_string(),
        kind: KIND_SAMPLES.to_string(),
        source: Some(source),
        description,
        host,
        series,
        warnings: Vec::new(),
    })
}

/// Series metadata: the tool, its own statistics (if the file has them) and
/// anything else the importer keeps.
pub(crate) fn metadata(
    tool: &str,
    tool_statistics: Option<Value>,
    extra: Map<String, Value>,
) -> Value {
    let mut m = Map::new();
    m.insert("tool".into(), Value::String(tool.into()));
    if let Some(s) = tool_statistics {
        m.insert("tool_statistics".into(), s);
    }
    m.extend(extra);
    Value::Object(m)
}
