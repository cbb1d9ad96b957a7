//! `go test -bench -json`: one event object per line (`{"Time", "Action",
//! "Package", "Output"}`, `go tool test2json`'s format), whose `output`
//! events carry the text `go test -bench` prints, sometimes a result line
//! split over two events. Each package's output is joined and read as that
//! text ([`super::go_bench`]).
//!
//! `go tool test2json` run on a test binary's output writes the same events
//! without `Package` or `Time` (`{"Action":"start"}`): they are read too.
//! What the stream says of a run that did not finish is kept: a stream
//! whose output holds a `panic:` is read up to it with a warning naming
//! the line (the benchmarks after it did not run), a result line cut short
//! at the end of the stream is named in a warning, and a stream with no
//! result at all is refused with what it does say (a benchmark's `--- FAIL`,
//! the panic, the line cut short).

use super::go_bench::Parsed;
use super::{first_json_line, About, Importer, Shape};
use crate::error::{Checker, ReadError};
use crate::format::SamplesFile;
use serde_json::Value;

pub struct GoTestJson;

/// The actions test2json writes (cmd/internal/test2json).
const ACTIONS: &[&str] = &[
    "start", "run", "pause", "cont", "pass", "bench", "fail", "output", "skip",
];

/// An event: `Action` with `Package` or `Time` (go test -json), or an
/// action test2json writes (a stream of a test binary's output, which has
/// neither).
fn is_event(v: &Value) -> bool {
    let Some(action) = v.get("Action").and_then(Value::as_str) else {
        return false;
    };
    v.get("Package").is_some() || v.get("Time").is_some() || ACTIONS.contains(&action)
}

impl Importer for GoTestJson {
    fn about(&self) -> About {
        About {
            id: "go_test_json",
            label: "go test -json stream",
            tried: "go test -json (objects with \"Action\")",
            name: "go test -json",
            shape: Shape::Stream { key: "Action" },
            fixtures: &["gobench/go-bench.json"],
        }
    }

    /// A stream of one event.
    fn recognises_document(&self, v: &Value) -> bool {
        v.is_object() && is_event(v)
    }

    /// The first line that is not blank is an event.
    fn recognises_bytes(&self, bytes: &[u8]) -> bool {
        first_json_line(bytes).is_some_and(|v| is_event(&v))
    }

    fn read_document(&self, cx: &Checker, v: &Value) -> Result<SamplesFile, ReadError> {
        read_events(cx, std::iter::once((1, v)))
    }

    /// Why the first line, an object, is not an event.
    fn why_not(&self, bytes: &[u8]) -> Option<String> {
        let v = first_json_line(bytes)?;
        Some(match v.get("Action") {
            None => "it has no \"Action\"".into(),
            Some(Value::String(a)) => format!(
                "its \"Action\" \"{}\" is not one go test writes ({}) and it has no \
                 \"Package\" or \"Time\"",
                a.chars().take(40).collect::<String>(),
                ACTIONS.join(", ")
            ),
            Some(_) => "its \"Action\" is not a string".into(),
        })
    }

    fn read_bytes(&self, cx: &Checker, bytes: &[u8]) -> Result<SamplesFile, ReadError> {
        let values = super::json_lines(cx, bytes, "event")?;
        read_events(cx, values.iter().map(|(n, v)| (*n, v)))
    }
}

/// Where something the stream says of the run was found: the event's line
/// and the output line's text.
struct Said {
    line: usize,
    text: String,
}

/// The events of a `go test -json` stream, as (line number, event).
fn read_events<'v>(
    cx: &Checker,
    events: impl Iterator<Item = (usize, &'v Value)>,
) -> Result<SamplesFile, ReadError> {
    // Each package's output, in the order packages first speak.
    let mut outputs: Vec<(String, String)> = Vec::new();
    let mut panic: Option<Said> = None;
    let mut failed: Option<Said> = None;
    for (line, v) in events {
        let at = format!("line {line}");
        let o = cx.obj(v, &at)?;
        let action = cx.str(cx.field(o, "Action", &at)?, &format!("{at}.Action"))?;
        if action != "output" {
            continue;
        }
        let Some(out) = o.get("Output") else { continue };
        let out = cx.str(out, &format!("{at}.Output"))?;
        let said = || Said {
            line,
            text: out.trim_end().chars().take(80).collect(),
        };
        if panic.is_none() && out.starts_with("panic: ") {
            panic = Some(said());
        }
        if failed.is_none() && out.starts_with("--- FAIL: Benchmark") {
            failed = Some(said());
        }
        let pkg = match o.get("Package") {
            Some(p) => cx.str(p, &format!("{at}.Package"))?,
            None => "",
        };
        match outputs.iter_mut().find(|(p, _)| p == pkg) {
            Some((_, text)) => text.push_str(out),
            None => outputs.push((pkg.to_string(), out.to_string())),
        }
    }
    let mut parsed = Parsed::default();
    let mut warnings = Vec::new();
    let mut cut: Option<String> = None;
    for (pkg, text) in &outputs {
        let named = (!pkg.is_empty()).then_some(pkg.as_str());
        let whose = if pkg.is_empty() {
            "the output".to_string()
        } else {
            format!("package {pkg}'s output")
        };
        // A result line the stream ends in the middle of (no newline after
        // it): the run was cut short there.
        let mut text = text.as_str();
        if !text.ends_with('\n') {
            let (head, last) = text.rsplit_once('\n').unwrap_or(("", text));
            if matches!(super::go_bench::result_line(last.trim_end()), Some(Err(_))) {
                let n = text.lines().count();
                let shown: String = last.trim_end().chars().take(80).collect();
                cut = Some(format!("{whose}, line {n}"));
                warnings.push(cx.warning(
                    &format!("{whose}, line {n}"),
                    format!("\"{shown}\": the stream ends in the middle of this result line, which is left out"),
                ));
                text = head;
            }
        }
        parsed.add_text(cx, text, named, &|n| format!("{whose}, line {n}"))?;
    }
    if parsed.is_empty() {
        let why = if let Some(p) = &panic {
            format!(
                "no benchmark result: the test binary panicked (line {}: \"{}\") before any \
                 benchmark finished",
                p.line, p.text
            )
        } else if let Some(f) = &failed {
            format!(
                "no benchmark result: line {}: \"{}\"; run the benchmark until it passes",
                f.line, f.text
            )
        } else if let Some(c) = &cut {
            format!("no benchmark result: the stream ends in the middle of a result line ({c})")
        } else {
            "no benchmark result line (\"BenchmarkName N VALUE UNIT…\") in the output events: \
             run go test with -bench and -run='^$'"
                .to_string()
        };
        return Err(cx.err(None, why));
    }
    if let Some(p) = &panic {
        warnings.push(cx.warning(
            &format!("line {}", p.line),
            format!(
                "\"{}\": the test binary panicked; the results before it are read, the \
                 benchmarks after it did not run",
                p.text
            ),
        ));
    }
    if let Some(f) = &failed {
        warnings.push(cx.warning(
            &format!("line {}", f.line),
            format!("\"{}\": a benchmark failed; the others are read", f.text),
        ));
    }
    let mut file = parsed.into_samples(cx, "go test -bench -json")?;
    file.warnings.extend(warnings);
    Ok(file)
}
