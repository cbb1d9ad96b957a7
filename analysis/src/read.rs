//! Reading untrusted bytes into [`crate::format`] types.
//!
//! Every failure is a [`ReadError`] naming the file, the JSON path (when there
//! is one) and what was expected, in one line. Nothing here panics on input:
//! syntax, depth (serde_json's recursion limit), types, versions and values
//! are all checked and reported.

use crate::error::{type_name, Checker};
use crate::format::{
    RunFile, SamplesFile, Suite as Section, FORMAT_MAJOR, FORMAT_TAG, KIND_RUN, KIND_SAMPLES,
};
use crate::limits::Limits;
use crate::suites::samples::Samples;
use crate::suites::{registry, Suite, SuiteId};
use serde_json::Value;

pub use crate::error::ReadError;

/// A parsed, validated file.
#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    Run(Box<RunDocument>),
    Samples(SamplesFile),
}

macro_rules! run_document {
    ($($f:ident $V:ident $k:ident;)*) => {
        /// A run file with its known suites parsed.
        #[derive(Debug, Clone, PartialEq)]
        pub struct RunDocument {
            pub run: RunFile,
            $(pub $f: Option<<crate::suites::$f::$V as Suite>::Data>,)*
            /// Suites whose data come from a section that did not finish
            /// (what they checkpointed).
            pub unfinished: Vec<SuiteId>,
            /// Suites this build does not know (from a newer minor version), skipped.
            pub skipped_suites: Vec<String>,
        }

        impl RunDocument {
            fn new(run: RunFile) -> Self {
                RunDocument {
                    run,
                    $($f: None,)*
                    unfinished: Vec::new(),
                    skipped_suites: Vec::new(),
                }
            }
        }

        /// Read one section into `doc` by the suite's type and checks; `false`
        /// when this build does not know the suite.
        fn read_section(
            doc: &mut RunDocument,
            cx: &Checker,
            section: &Section,
            at: &str,
        ) -> Result<bool, ReadError> {
            $(
                if section.suite == <crate::suites::$f::$V as Suite>::NAME {
                    if section.status == "complete" {
                        let data = cx.typed(&section.data, at)?;
                        <crate::suites::$f::$V as Suite>::check(&data, cx, at)?;
                        doc.$f = Some(data);
                    } else if <crate::suites::$f::$V as Suite>::SHOWS_UNFINISHED {
                        if let Ok(data) = serde_json::from_value(section.data.clone()) {
                            doc.$f = Some(data);
                            doc.unfinished.push(SuiteId::$V);
                        }
                    }
                    return Ok(true);
                }
            )*
            Ok(false)
        }
    };
}
registry!(runs => run_document);

macro_rules! cell_of {
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
            Document::Run(r) => r.unfinished.iter().any(|s| s.name() == suite),
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
/// before the document is handed on to be analysed.
pub fn read_document_within(
    file: &str,
    bytes: &[u8],
    limits: &Limits,
) -> Result<Document, ReadError> {
    limits.check_size(file, bytes.len() as u64)?;
    limits.check_counts(file, bytes)?;
    let doc = read_unlimited(file, bytes)?;
    if let Document::Samples(s) = &doc {
        limits.check_series(file, s.series.len())?;
    }
    Ok(doc)
}

fn read_unlimited(file: &str, bytes: &[u8]) -> Result<Document, ReadError> {
    let cx = Checker::new(file);
    // Results of other harnesses (docs/importers.md), detected by content.
    // A cargo-criterion stream (one object per line) is not one JSON
    // document; one that is (a one-line stream, or any file whose first line
    // holds the whole document and a "reason") is told apart by its shape
    // below, where a tickbook file or a folder bundle comes first.
    let value = match parse_json(&cx, bytes) {
        Ok(v) => v,
        Err(_) if crate::import::cargo_criterion::looks_like_stream(bytes) => {
            // Checked as every other import is.
            let s = crate::import::cargo_criterion::read(file, bytes)?;
            Samples::check(&s, &cx, "")?;
            return Ok(Document::Samples(s));
        }
        Err(e) => return Err(crate::import::name_parse_error(bytes, e)),
    };
    if let Some(imported) = crate::import::import_value(file, &value) {
        let s = imported?;
        Samples::check(&s, &cx, "")?;
        return Ok(Document::Samples(s));
    }
    let obj = value.as_object().ok_or_else(|| {
        cx.err(
            None,
            format!(
                "expected a JSON object at the top level, found {} (not a tickbook file; also tried {})",
                type_name(&value),
                crate::import::TRIED
            ),
        )
    })?;

    match obj.get("format") {
        Some(Value::String(s)) if s == FORMAT_TAG => {}
        Some(Value::String(s)) => {
            return Err(cx.err(
                Some("format".into()),
                format!("format is \"{s}\", expected \"{FORMAT_TAG}\""),
            ))
        }
        Some(other) => {
            return Err(cx.err(
                Some("format".into()),
                format!("expected the string \"{FORMAT_TAG}\", found {}", type_name(other)),
            ))
        }
        None => {
            return Err(cx.err(
                None,
                format!("no \"format\" field: expected \"format\": \"{FORMAT_TAG}\" (is this a tickbook result file?); not a file tickbook imports either: tried {}", crate::import::TRIED),
            ))
        }
    }
    check_version(&cx, obj.get("format_version"))?;

    match obj.get("kind") {
        Some(Value::String(k)) if k == KIND_RUN => {
            read_run(&cx, &value).map(|r| Document::Run(Box::new(r)))
        }
        Some(Value::String(k)) if k == KIND_SAMPLES => {
            let s: SamplesFile = cx.typed(&value, "")?;
            Samples::check(&s, &cx, "")?;
            Ok(Document::Samples(s))
        }
        Some(Value::String(k)) => Err(cx.err(
            Some("kind".into()),
            format!("unknown kind \"{k}\": expected \"{KIND_RUN}\" or \"{KIND_SAMPLES}\""),
        )),
        Some(other) => Err(cx.err(
            Some("kind".into()),
            format!("expected a string, found {}", type_name(other)),
        )),
        None => Err(cx.err(
            None,
            format!("no \"kind\" field: expected \"{KIND_RUN}\" or \"{KIND_SAMPLES}\""),
        )),
    }
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

fn check_version(cx: &Checker, v: Option<&Value>) -> Result<(), ReadError> {
    let path = Some("format_version".to_string());
    let s = match v {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(cx.err(
                path,
                format!(
                    "expected a version string like \"1.0\", found {}",
                    type_name(other)
                ),
            ))
        }
        None => {
            return Err(cx.err(
                None,
                "no \"format_version\" field: expected e.g. \"format_version\": \"1.0\"",
            ))
        }
    };
    let major = s
        .split('.')
        .next()
        .and_then(|m| m.parse::<u64>().ok())
        .ok_or_else(|| {
            cx.err(
                path.clone(),
                format!("\"{s}\" is not a version: expected MAJOR.MINOR such as \"1.0\""),
            )
        })?;
    if major != FORMAT_MAJOR {
        return Err(cx.err(
            path,
            format!(
                "format version {s} is not supported: this build of tickbook reads format {FORMAT_MAJOR}.x"
            ),
        ));
    }
    Ok(())
}

fn read_run(cx: &Checker, value: &Value) -> Result<RunDocument, ReadError> {
    let run: RunFile = cx.typed(value, "")?;
    let mut doc = RunDocument::new(run);
    // Taken out while the sections fill `doc`, then put back.
    let sections = std::mem::take(&mut doc.run.suites);
    for (i, section) in sections.iter().enumerate() {
        let known = read_section(&mut doc, cx, section, &format!("suites[{i}].data"))?;
        // Unknown suites that did not finish are not worth a warning.
        if !known && section.status == "complete" {
            doc.skipped_suites.push(section.suite.clone());
        }
    }
    doc.run.suites = sections;
    Ok(doc)
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
