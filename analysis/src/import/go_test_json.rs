//! `go test -bench -json`: one event object per line (`{"Time", "Action",
//! "Package", "Output"}`, `go tool test2json`'s format), whose `output`
//! events carry the text `go test -bench` prints, sometimes a result line
//! split over two events. Each package's output is joined and read as that
//! text ([`super::go_bench`]).

use super::go_bench::Parsed;
use super::{first_json_line, About, Importer, Shape};
use crate::error::{Checker, ReadError};
use crate::format::SamplesFile;
use serde_json::Value;

pub struct GoTestJson;

fn is_event(v: &Value) -> bool {
    v.get("Action").is_some_and(Value::is_string)
        && (v.get("Package").is_some() || v.get("Time").is_some())
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

    fn read_bytes(&self, cx: &Checker, bytes: &[u8]) -> Result<SamplesFile, ReadError> {
        let values = super::json_lines(cx, bytes, "event")?;
        read_events(cx, values.iter().map(|(n, v)| (*n, v)))
    }
}

/// The events of a `go test -json` stream, as (line number, event).
fn read_events<'v>(
    cx: &Checker,
    events: impl Iterator<Item = (usize, &'v Value)>,
) -> Result<SamplesFile, ReadError> {
    // Each package's output, in the order packages first speak.
    let mut outputs: Vec<(String, String)> = Vec::new();
    for (line, v) in events {
        let at = format!("line {line}");
        let o = cx.obj(v, &at)?;
        let action = cx.str(cx.field(o, "Action", &at)?, &format!("{at}.Action"))?;
        if action != "output" {
            continue;
        }
        let Some(out) = o.get("Output") else { continue };
        let out = cx.str(out, &format!("{at}.Output"))?;
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
    for (pkg, text) in &outputs {
        let named = (!pkg.is_empty()).then_some(pkg.as_str());
        parsed.add_text(cx, text, named, &|n| {
            format!("package {pkg}'s output, line {n}")
        })?;
    }
    parsed.into_samples(cx, "go test -bench -json")
}
