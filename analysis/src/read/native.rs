//! tickbook's own files: the tag, the major version, the kind, then a run's
//! sections, each read by its suite's type and checks (the registry's
//! dispatch), or a samples file.

use crate::error::{type_name, Checker, ReadError};
use crate::format::{
    RunFile, SamplesFile, Suite as Section, FORMAT_MAJOR, FORMAT_TAG, KIND_RUN, KIND_SAMPLES,
};
use crate::suites::samples::Samples;
use crate::suites::{registry, Suite};
use serde_json::Value;

use super::Document;
use crate::import;

macro_rules! run_document {
    ($($f:ident $V:ident $k:ident;)*) => {
        /// A run file with its known suites parsed.
        #[derive(Debug, Clone, PartialEq)]
        pub struct RunDocument {
            pub run: RunFile,
            $(pub $f: Option<<crate::suites::$f::$V as Suite>::Data>,)*
            /// Suites whose data come from a section that did not finish
            /// (what they checkpointed), by name.
            pub unfinished: Vec<&'static str>,
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
                            doc.unfinished.push(<crate::suites::$f::$V as Suite>::NAME);
                        }
                    }
                    return Ok(true);
                }
            )*
            Ok(false)
        }
    };
}
registry!(sections => run_document);

/// A parsed JSON document that is no other tool's format.
pub(super) fn read(cx: &Checker, value: &Value) -> Result<Document, ReadError> {
    let obj = value.as_object().ok_or_else(|| {
        cx.err(
            None,
            match import::closest_document(cx.file, value) {
                Some(closest) => format!(
                    "expected a JSON object at the top level, found {} (not a tickbook file, nor a file tickbook imports: {closest})",
                    type_name(value)
                ),
                None => format!(
                    "expected a JSON object at the top level, found {} (not a tickbook file; also tried {})",
                    type_name(value),
                    import::tried()
                ),
            },
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
                match import::closest_document(cx.file, value) {
                    Some(closest) => format!("no \"format\" field: not a tickbook result file, nor a file tickbook imports: {closest}"),
                    None => format!("no \"format\" field: expected \"format\": \"{FORMAT_TAG}\" (is this a tickbook result file?); not a file tickbook imports either: tried {}", import::tried()),
                },
            ))
        }
    }
    check_version(cx, obj.get("format_version"))?;

    match obj.get("kind") {
        Some(Value::String(k)) if k == KIND_RUN => {
            read_run(cx, value).map(|r| Document::Run(Box::new(r)))
        }
        Some(Value::String(k)) if k == KIND_SAMPLES => {
            let s: SamplesFile = cx.typed(value, "")?;
            Samples::check(&s, cx, "")?;
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
