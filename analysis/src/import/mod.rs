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
use crate::format::{Alternatives, SamplesFile, Series, FORMAT_TAG, KIND_SAMPLES};
use serde_json::{Map, Value};

pub(crate) mod consistency;
pub mod perf_stat;
pub mod text;

pub use text::{import_bytes, not_recognised};

/// Declares each format's module and lists its importer in [`IMPORTERS`].
macro_rules! registry {
    ($($module:ident $importer:ident;)*) => {
        $(pub mod $module;)*

        /// Every format tickbook reads, in the registry's order.
        pub static IMPORTERS: &[&dyn Importer] = &[$(&$module::$importer),*];
    };
}

// **The registry**: every format tickbook reads, one line each (its file in
// `import/` and its importer). Its order is the order formats are tried in
// (a file two formats would recognise is the first's; `tests/importers.rs`
// checks that every fixture is recognised by its own format alone) and the
// order the "formats tried" messages list them in. The docs' table, the
// fixtures and the fuzz targets are checked against it
// (`tests/importers.rs`).
registry! {
    pyperf Pyperf;
    pytest_benchmark PytestBenchmark;
    jmh Jmh;
    google_benchmark GoogleBenchmark;
    hyperfine Hyperfine;
    criterion LoneFile;
    cargo_criterion CargoCriterion;
    go_test_json GoTestJson;
    perf_stat_json PerfStatJson;
    go_bench GoBench;
    perf_stat_text PerfStatText;
    perf_stat_csv PerfStatCsv;
}

/// One format: what it is called, how a file in it is recognised, how it
/// is read. Implemented in the format's own file and listed once in
/// [`IMPORTERS`]; nothing else names a format (docs/importers.md, "Adding a
/// format").
///
/// A format is recognised by content, never by file name: a parsed JSON
/// document by its shape ([`Importer::recognises_document`]), other bytes —
/// a stream of JSON lines, text — by [`Importer::recognises_bytes`]. What it
/// reads is a [`SamplesFile`]: what it could not read, or what makes the
/// numbers doubtful, goes in the file's `warnings` (each naming its JSON
/// path or line, [`Checker::warning`]) so that a partial file still loads.
pub trait Importer: Sync {
    /// Its names and what it needs.
    fn about(&self) -> About;

    /// Whether a parsed JSON document is in this format, by its shape.
    fn recognises_document(&self, _v: &Value) -> bool {
        false
    }

    /// The keys a document in this format has (at its top, in its first
    /// element, or in the first element of an array under its top), or for
    /// a text format strings its files hold: the format a file tickbook
    /// does not read has most of is named in the message, with what failed
    /// there ([`closest_document`], `text::not_recognised`).
    fn marks(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether bytes that are not one JSON document (a stream of JSON
    /// lines, text) are in this format.
    fn recognises_bytes(&self, _bytes: &[u8]) -> bool {
        false
    }

    /// The head of bytes that do not parse as JSON (a file cut short),
    /// when it looks like this format: the label to name it by.
    fn cut_short(&self, _head: &str) -> Option<&'static str> {
        None
    }

    /// Read a document it recognised. `cx` names the file and the label.
    fn read_document(&self, cx: &Checker, _v: &Value) -> Result<SamplesFile, ReadError> {
        Err(cx.err(None, "not read from one JSON document"))
    }

    /// Read bytes it recognised. `cx` names the file and the label.
    fn read_bytes(&self, cx: &Checker, _bytes: &[u8]) -> Result<SamplesFile, ReadError> {
        Err(cx.err(None, "only read from one JSON document"))
    }

    /// Why bytes no format recognised are not in this one, for the "not a
    /// format tickbook reads" message: the first thing that is not as the
    /// format has it. Text formats say it themselves; the JSON formats are
    /// described by their [`Shape`].
    fn why_not(&self, _bytes: &[u8]) -> Option<String> {
        None
    }
}

/// A format's names and needs (see [`Importer::about`]).
#[derive(Debug, Clone, Copy)]
pub struct About {
    /// The file of its importer in `import/`; its fuzz target is
    /// `import_{id}` (fuzz/fuzz_targets).
    pub id: &'static str,
    /// The name every message about a file in it starts with.
    pub label: &'static str,
    /// Its entry in the list of formats tried: the name and what a file
    /// needs to be recognised.
    pub tried: &'static str,
    /// Its name in the list of formats a text file is not, and in
    /// docs/importers.md's tables (in bold).
    pub name: &'static str,
    pub shape: Shape,
    /// Files it reads, under `tests/fixtures/import/`.
    pub fixtures: &'static [&'static str],
}

/// What a file in a format is, for the message on a file no format reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One JSON document.
    Document,
    /// JSON objects one per line, each with `key`.
    Stream { key: &'static str },
    /// Text.
    Text,
}

/// The format of the first registered importer `recognises` holds for.
fn first(recognises: impl Fn(&dyn Importer) -> bool) -> Option<&'static dyn Importer> {
    IMPORTERS.iter().copied().find(|i| recognises(*i))
}

/// What the readers try, each with what it needs (which a file it rejected
/// lacks), in the registry's order: the JSON formats, then the text ones.
pub fn tried() -> String {
    let list = |text: bool| {
        IMPORTERS
            .iter()
            .map(|i| i.about())
            .filter(|a| (a.shape == Shape::Text) == text)
            .map(|a| a.tried)
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("{}; as text: {}", list(false), list(true))
}

/// For a JSON document no importer recognises: the format it has most
/// marks of (two or more, or one that is all that format has), and the
/// first thing that failed when read as that format — its reader's error,
/// or the marks it lacks. `None` when nothing is close.
pub fn closest_document(file: &str, v: &Value) -> Option<String> {
    let mut objects: Vec<&Map<String, Value>> = Vec::new();
    match v {
        Value::Object(o) => {
            objects.push(o);
            objects.extend(o.values().filter_map(|x| {
                x.as_array()
                    .and_then(|a| a.first())
                    .and_then(Value::as_object)
            }));
        }
        Value::Array(a) => objects.extend(a.first().and_then(Value::as_object)),
        _ => return None,
    }
    let keys: Vec<&str> = objects
        .iter()
        .flat_map(|o| o.keys().map(String::as_str))
        .collect();
    let (importer, have) = IMPORTERS
        .iter()
        .filter(|i| i.about().shape == Shape::Document)
        .map(|i| {
            let have: Vec<&str> = i
                .marks()
                .iter()
                .copied()
                .filter(|m| keys.contains(m))
                .collect();
            (*i, have)
        })
        .filter(|(i, have)| have.len() >= 2.min(i.marks().len()) && !have.is_empty())
        // The first of equals, in the registry's order.
        .fold(
            None,
            |best: Option<(&dyn Importer, Vec<&str>)>, x| match best {
                Some(b) if b.1.len() >= x.1.len() => Some(b),
                _ => Some(x),
            },
        )?;
    let about = importer.about();
    let quoted = |ks: &[&str]| {
        ks.iter()
            .map(|k| format!("\"{k}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let missing: Vec<&str> = importer
        .marks()
        .iter()
        .copied()
        .filter(|m| !have.contains(m))
        .collect();
    let failed = match importer.read_document(&checker(importer, file), v) {
        Err(e) => format!(
            "read as one: {}{}",
            e.path.map(|p| format!("at {p}: ")).unwrap_or_default(),
            e.message
                .strip_prefix(&format!("{}: ", about.label))
                .unwrap_or(&e.message)
        ),
        Ok(_) => format!("it lacks {}, which such files have", quoted(&missing)),
    };
    Some(format!(
        "it is closest to {} (it has {}): {failed}",
        about.label,
        quoted(&have)
    ))
}

/// The checker of a file in the format: every message starts with its label.
pub fn checker<'a>(importer: &dyn Importer, file: &'a str) -> Checker<'a> {
    Checker::of_format(file, importer.about().label)
}

/// Recognise a parsed document by its shape, or `None` (a tickbook file,
/// the page's folder bundle, or no format tickbook reads).
pub fn detect(v: &Value) -> Option<&'static dyn Importer> {
    if v.get("format").is_some() || is_folder(v) {
        return None;
    }
    first(|i| i.recognises_document(v))
}

/// Whether a parsed document is the page's bundle of a folder's files:
/// `{"tickbook_folder": 1, "entries": [{"path", "text"}…]}`
/// (web/src/app/intake.js, [`folder_bundle`]), read as
/// [`criterion::read_dir`] reads a tree. Not a tool's format.
pub fn is_folder(v: &Value) -> bool {
    v.get("format").is_none() && v.get("tickbook_folder").is_some()
}

/// The format of bytes that are not one JSON document, or `None`.
pub fn detect_bytes(bytes: &[u8]) -> Option<&'static dyn Importer> {
    first(|i| i.recognises_bytes(bytes))
}

/// Guess the format of bytes that are not valid JSON (a truncated file), so
/// the message can name it: its label. Looks only at the first few KB.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(8192)]);
    if head.contains("\"tickbook\"") {
        return None;
    }
    IMPORTERS.iter().find_map(|i| i.cut_short(&head))
}

/// The importer [`sniff`] names a cut file after.
pub fn sniff_importer(bytes: &[u8]) -> Option<&'static dyn Importer> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(8192)]);
    if head.contains("\"tickbook\"") {
        return None;
    }
    first(|i| i.cut_short(&head).is_some())
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

/// Import a parsed foreign document, or `None` when it is none of the
/// formats (a tickbook file, or nothing tickbook reads).
pub fn import_value(file: &str, v: &Value) -> Option<Result<Imported, ReadError>> {
    if is_folder(v) {
        return Some(folder(&Checker::of_format(file, "folder"), v));
    }
    let importer = detect(v)?;
    Some(
        importer
            .read_document(&checker(importer, file), v)
            .map(Imported::Samples),
    )
}

/// A folder's files as the one document the page reads ([`is_folder`]),
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
    if let Some(label) = sniff(bytes) {
        e.message = format!("{label} (recognised by its content): {}", e.message);
    }
    e
}

/// Bytes of a text format as text, or the error.
pub(crate) fn utf8<'b>(cx: &Checker, bytes: &'b [u8]) -> Result<&'b str, ReadError> {
    std::str::from_utf8(bytes).map_err(|e| cx.err(None, format!("not UTF-8 text ({e})")))
}

/// The first line of `bytes` that is not blank, parsed as JSON, or `None`.
pub(crate) fn first_json_line(bytes: &[u8]) -> Option<Value> {
    let line = bytes
        .split(|&b| b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))?;
    serde_json::from_slice(line).ok()
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
        revision: None,
        series,
        alternatives: Alternatives::All,
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
