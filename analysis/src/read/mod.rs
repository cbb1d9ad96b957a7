//! Reading untrusted bytes into a [`Document`]: the dispatcher.
//!
//! The bytes are parsed as JSON (or recognised as a cargo-criterion stream;
//! other bytes that are not JSON go to the text formats, `import::text`),
//! the format is detected by content and the document handed to an
//! importer (`crate::import`, other tools' results onto the samples model)
//! or to the native reader (`native`, tickbook's own files; a run's
//! sections through the suites' registry). Importers never call back here:
//! a folder they cannot read as Criterion.rs output comes back as its
//! files, read here as each would be alone.
//!
//! Every failure is a [`ReadError`] naming the file, the JSON path (when there
//! is one) and what was expected, in one line. Nothing here panics on input:
//! syntax, depth (serde_json's recursion limit), types, versions and values
//! are all checked and reported.

use crate::error::Checker;
use crate::format::{Alternatives, SamplesFile};
use crate::import::{self, Imported};
use crate::limits::Limits;
use crate::suites::samples::Samples;
use crate::suites::{registry, Suite};
use serde_json::Value;

pub mod gzip;
mod native;

pub use crate::error::ReadError;
pub use native::RunDocument;

/// A parsed, validated file.
// A document is made once per file and kept, never moved in a loop: the
// samples variant's few hundred bytes inline cost nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    Run(Box<RunDocument>),
    Samples(SamplesFile),
}

// One cell's data: a run or page suite's from the run document, the `file`
// cell's (samples) from a samples document.
macro_rules! cell_of {
    (page $f:ident $doc:expr) => {
        cell_of!(run $f $doc)
    };
    (run $f:ident $doc:expr) => {
        match $doc {
            Document::Run(r) => r.$f.as_ref(),
            Document::Samples(_) => None,
        }
    };
    (file $f:ident $doc:expr) => {
        match $doc {
            Document::Samples(s) => Some(s),
            Document::Run(_) => None,
        }
    };
}

macro_rules! cell_data {
    ($($f:ident $V:ident $k:ident;)*) => {
        /// Every cell's data in a document, `None` where it has none.
        #[derive(Debug, Clone, Copy)]
        pub struct CellData<'a> {
            $(pub $f: Option<&'a <crate::suites::$f::$V as Suite>::Data>,)*
        }

        impl Document {
            /// The data of each cell.
            pub fn data(&self) -> CellData<'_> {
                CellData {
                    $($f: cell_of!($k $f self),)*
                }
            }
        }
    };
}
registry!(cell_data);

impl Document {
    /// The run's host (none in a samples file).
    pub fn host(&self) -> Option<&crate::format::Host> {
        match self {
            Document::Run(r) => Some(&r.run.host),
            Document::Samples(_) => None,
        }
    }

    /// The fallbacks recorded in the first section of `suite` (none in a
    /// samples file).
    pub fn fallbacks(&self, suite: &str) -> &[String] {
        match self {
            Document::Run(r) => r
                .run
                .suites
                .iter()
                .find(|s| s.suite == suite)
                .map_or(&[], |s| s.fallbacks.as_slice()),
            Document::Samples(_) => &[],
        }
    }

    /// Whether the data of `suite` come from a section that did not finish.
    pub fn is_unfinished(&self, suite: &str) -> bool {
        match self {
            Document::Run(r) => r.unfinished.contains(&suite),
            Document::Samples(_) => false,
        }
    }
}

/// Parse and validate one file within the default [`Limits`]. `file` is the
/// name used in messages.
pub fn read_document(file: &str, bytes: &[u8]) -> Result<Document, ReadError> {
    read_document_within(file, bytes, &Limits::default())
}

/// [`read_document`] within `limits`: the size and the counts of numbers
/// and other values are checked before the bytes are parsed, the series
/// before the document is handed on to be analysed. gzip-compressed bytes
/// (any format) are inflated first, within the size limit.
pub fn read_document_within(
    file: &str,
    bytes: &[u8],
    limits: &Limits,
) -> Result<Document, ReadError> {
    limits.check_size(file, bytes.len() as u64)?;
    let inflated;
    let bytes = if gzip::is_gzip(bytes) {
        inflated = gzip::inflate(file, bytes, limits)?;
        &inflated[..]
    } else {
        bytes
    };
    limits.check_counts(file, bytes)?;
    let doc = read_unlimited(file, bytes)?;
    if let Document::Samples(s) = &doc {
        limits.check_series(file, s.series.len())?;
    }
    Ok(doc)
}

/// A folder given as (relative path, bytes) entries — a Criterion.rs
/// `target/criterion` tree (`import::criterion::read_dir`), or a folder of
/// other files, each read as it would be alone. `name` is the folder's name
/// in messages.
pub fn read_folder(name: &str, entries: &[(String, Vec<u8>)]) -> Result<Document, ReadError> {
    let imported = import::criterion::read_dir(name, entries)?;
    imported_samples(&Checker::new(name), imported).map(Document::Samples)
}

fn read_unlimited(file: &str, bytes: &[u8]) -> Result<Document, ReadError> {
    let cx = Checker::new(file);
    // Results of other harnesses (docs/importers.md), detected by content.
    // A stream of JSON lines is not one JSON document; one that is (a
    // one-line stream, or any file whose first line holds the whole
    // document) is told apart by its shape below, where a tickbook file or a
    // folder bundle comes first.
    let value = match parse_json(&cx, bytes) {
        Ok(v) => v,
        Err(e) => {
            return match import::import_bytes(file, bytes) {
                Some(imported) => imported_samples(&cx, imported?).map(Document::Samples),
                None => Err(import::not_recognised(
                    bytes,
                    import::name_parse_error(bytes, e),
                )),
            }
        }
    };
    match import::import_value(file, &value) {
        Some(imported) => imported_samples(&cx, imported?).map(Document::Samples),
        None => native::read(&cx, &value),
    }
}

/// An importer's result as a checked samples document. A folder's files
/// are read here as they would be alone, and must be samples files or
/// imports: one file is itself; several are one document whose series are
/// named `FILE: SERIES`, a file that cannot be read named in its warnings.
fn imported_samples(cx: &Checker, imported: Imported) -> Result<SamplesFile, ReadError> {
    let s = match imported {
        Imported::Samples(s) => s,
        Imported::Files { folder, files } => read_files(&folder, files)?,
    };
    // Checked as a samples file is.
    Samples::check(&s, cx, "")?;
    Ok(s)
}

fn read_files(folder: &str, files: Vec<(String, Vec<u8>)>) -> Result<SamplesFile, ReadError> {
    let one = files.len() == 1;
    // perf stat files are one run each: together, runs of the same events.
    let perf_runs = !one && files.iter().all(|(_, b)| import::perf_stat::recognises(b));
    let mut read = Vec::new();
    let mut warnings = Vec::new();
    let mut first_error = None;
    for (file, bytes) in files {
        let result = match read_document(&file, &bytes) {
            Ok(Document::Samples(s)) => Ok(s),
            Ok(Document::Run(_)) => Err(ReadError {
                file: if one {
                    folder.to_string()
                } else {
                    file.clone()
                },
                path: None,
                message: "a folder holding a tickbook run file: load the file itself".into(),
            }),
            Err(e) => Err(e),
        };
        match result {
            Ok(s) => read.push((file, s)),
            Err(e) if one => return Err(e),
            Err(e) => {
                warnings.push(format!("not read: {e}"));
                first_error.get_or_insert(e);
            }
        }
    }
    if one {
        if let Some((_, s)) = read.pop() {
            return Ok(s);
        }
    }
    if perf_runs && !read.is_empty() {
        return Ok(import::perf_stat::runs(folder, read, warnings));
    }
    let Some((_, first)) = read.first() else {
        return Err(ReadError {
            file: folder.to_string(),
            path: None,
            message: match first_error {
                Some(e) => format!(
                    "no Criterion.rs sample.json in this folder, and none of its {} files could be read alone; the first: {e}",
                    warnings.len()
                ),
                None => "the folder holds no files".into(),
            },
        });
    };
    let prefix = format!("{folder}/");
    let mut merged = SamplesFile {
        source: Some(format!(
            "{} files of {folder}: {}",
            read.len(),
            read.iter()
                .map(|(f, s)| format!(
                    "{} ({})",
                    f.strip_prefix(&prefix).unwrap_or(f),
                    s.source.as_deref().unwrap_or("no source recorded")
                ))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        description: {
            let mut ds: Vec<&str> = Vec::new();
            for d in read.iter().filter_map(|(_, s)| s.description.as_deref()) {
                if !ds.contains(&d) {
                    ds.push(d);
                }
            }
            (!ds.is_empty()).then(|| ds.join(" "))
        },
        host: first.host.clone(),
        // A folder's files measure one revision when they all say the same.
        revision: first
            .revision
            .clone()
            .filter(|r| read.iter().all(|(_, s)| s.revision.as_ref() == Some(r))),
        format: first.format.clone(),
        format_version: first.format_version.clone(),
        kind: first.kind.clone(),
        series: Vec::new(),
        // Each file's alternatives stay its own: the series of a file that
        // compares all of them form its group.
        alternatives: if read.iter().all(|(_, s)| s.alternatives.is_all()) {
            Alternatives::All
        } else {
            Alternatives::Groups
        },
        warnings,
    };
    for (file, s) in read {
        let short = file.strip_prefix(&prefix).unwrap_or(&file).to_string();
        merged
            .warnings
            .extend(s.warnings.iter().map(|w| format!("{short}: {w}")));
        let all = s.alternatives.is_all();
        merged.series.extend(s.series.into_iter().map(|mut x| {
            x.name = format!("{short}: {}", x.name);
            x.group = match (all, x.group.take()) {
                (true, _) => Some(short.clone()),
                (false, Some(g)) => Some(format!("{short}: {g}")),
                (false, None) => None,
            };
            x
        }));
    }
    Ok(merged)
}

fn parse_json(cx: &Checker, bytes: &[u8]) -> Result<Value, ReadError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(cx.err(None, "the file is empty: expected a tickbook JSON document"));
    }
    serde_json::from_slice(bytes).map_err(|e| {
        use serde_json::error::Category;
        let at = format!("line {} column {}", e.line(), e.column());
        let msg = match e.classify() {
            Category::Eof => format!("truncated JSON: the file ends early ({at}); expected more"),
            Category::Syntax => match non_finite_token(bytes, e.line(), e.column()) {
                Some(tok) => {
                    format!("{tok} at {at}: samples must be finite numbers, and JSON has no {tok}")
                }
                None => format!("not valid JSON: {e}"),
            },
            Category::Io | Category::Data => format!("not valid JSON: {e}"),
        };
        cx.err(None, msg)
    })
}

/// Whether a syntax error sits on a `NaN` or `Infinity` token (as Python's
/// `json.dump` writes them), so the message can say so.
fn non_finite_token(bytes: &[u8], line: usize, column: usize) -> Option<&'static str> {
    let line_bytes = bytes.split(|&b| b == b'\n').nth(line.checked_sub(1)?)?;
    // serde_json reports the column of the character it choked on (1-based);
    // look a few characters around it for the token.
    let start = column.saturating_sub(10);
    let window = line_bytes.get(start..line_bytes.len().min(column + 10))?;
    let text = String::from_utf8_lossy(window);
    if text.contains("NaN") {
        Some("NaN")
    } else if text.contains("Infinity") {
        Some("Infinity")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> ReadError {
        read_document("f.json", text.as_bytes()).unwrap_err()
    }

    const GOOD: &str = r#"{"format":"tickbook","format_version":"1.0","kind":"samples",
        "series":[{"name":"a","unit":"ns","executions":[[1,2,3],[4,5]]}]}"#;

    #[test]
    fn good_samples_and_unknown_fields() {
        let with_extra = GOOD.replace("\"kind\"", "\"future_field\":{\"x\":1},\"kind\"");
        for t in [GOOD, with_extra.as_str(), &GOOD.replace("1.0", "1.7")] {
            match read_document("f.json", t.as_bytes()).unwrap() {
                Document::Samples(s) => assert_eq!(s.series[0].executions[1], vec![4.0, 5.0]),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn garbage_truncated_and_empty() {
        let e = err("this is not json");
        assert!(e.message.starts_with("not valid JSON"), "{e}");
        let e = err(&GOOD[..GOOD.len() - 20]);
        assert!(e.message.starts_with("truncated JSON"), "{e}");
        assert!(err("  \n").message.contains("empty"));
        assert!(err("[1,2]").message.contains("found an array"));
        assert_eq!(e.to_string().split(": ").next(), Some("f.json"));
    }

    #[test]
    fn versions_and_tags() {
        let e = err(&GOOD.replace("1.0", "2.0"));
        assert_eq!(e.path.as_deref(), Some("format_version"));
        assert!(
            e.message.contains("format version 2.0 is not supported"),
            "{e}"
        );
        assert!(err(&GOOD.replace("\"1.0\"", "1"))
            .message
            .contains("version string"));
        assert!(err(&GOOD.replace("\"1.0\"", "\"one\""))
            .message
            .contains("not a version"));
        assert!(err(&GOOD.replace("tickbook", "pyperf"))
            .message
            .contains("\"pyperf\""));
        assert!(err(r#"{"a":1}"#).message.contains("no \"format\" field"));
        assert!(err(&GOOD.replace("samples\"", "nope\""))
            .message
            .contains("unknown kind"));
    }

    #[test]
    fn bad_samples_name_the_path() {
        let e = err(&GOOD.replace("[4,5]", "[4,-5]"));
        assert_eq!(e.path.as_deref(), Some("series[0].executions[1][1]"));
        assert!(e.message.contains("-5") && e.message.contains("≥ 0"), "{e}");
        let e = err(&GOOD.replace("[4,5]", "[4,NaN]"));
        assert!(e.message.starts_with("NaN at line"), "{e}");
        let e = err(&GOOD.replace("[4,5]", "[4,Infinity]"));
        assert!(e.message.starts_with("Infinity"), "{e}");
        let e = err(&GOOD.replace("[4,5]", "[4,\"5\"]"));
        assert_eq!(e.path.as_deref(), Some("series[0].executions[1][1]"));
        let e = err(&GOOD.replace("[4,5]", "[]"));
        assert_eq!(e.path.as_deref(), Some("series[0].executions[1]"));
        let e = err(&GOOD.replace("\"unit\":\"ns\",", ""));
        assert_eq!(e.path.as_deref(), Some("series[0]"));
        assert!(e.message.contains("unit"), "{e}");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000);
        assert!(err(&deep).message.contains("JSON"));
    }
}
