//! `perf stat -j [-o FILE]`: one JSON object per event and line, with
//! `counter-value` (a string in perf 6.1), `unit`, `event`, `event-runtime`,
//! `pcnt-running`, `metric-value`, `metric-unit` and with `-r N`
//! `variance`. Made into series as [`super::perf_stat`] says.

use super::perf_stat::{data_lines, not_counted, number, samples, short, started_on, Row};
use super::{utf8, About, Importer, Shape};
use crate::error::{Checker, ReadError};
use crate::format::SamplesFile;
use serde_json::{Map, Value};

pub struct PerfStatJson;

fn is_event(v: &Value) -> bool {
    v.get("counter-value").is_some() && v.get("event").is_some()
}

impl Importer for PerfStatJson {
    fn about(&self) -> About {
        About {
            id: "perf_stat_json",
            label: "perf stat -j JSON",
            tried: "perf stat -j (objects with \"counter-value\" and \"event\")",
            name: "perf stat -j",
            shape: Shape::Stream {
                key: "counter-value",
            },
            fixtures: &["perf/perf-stat.json"],
        }
    }

    /// A stream of one event (`perf stat -j -e task-clock`).
    fn recognises_document(&self, v: &Value) -> bool {
        v.is_object() && is_event(v)
    }

    /// The first data line is an event.
    /// Why the first line, an object, is not an event.
    fn why_not(&self, bytes: &[u8]) -> Option<String> {
        let text = String::from_utf8_lossy(bytes);
        let (_, l) = data_lines(&text).next()?;
        let v = serde_json::from_str::<Value>(l).ok()?;
        let missing: Vec<&str> = ["counter-value", "event"]
            .into_iter()
            .filter(|k| v.get(k).is_none())
            .collect();
        Some(format!("it has no \"{}\"", missing.join("\" or \"")))
    }

    fn recognises_bytes(&self, bytes: &[u8]) -> bool {
        let text = String::from_utf8_lossy(bytes);
        let first = data_lines(&text).next();
        first
            .and_then(|(_, l)| serde_json::from_str::<Value>(l).ok())
            .is_some_and(|v| is_event(&v))
    }

    fn read_document(&self, cx: &Checker, v: &Value) -> Result<SamplesFile, ReadError> {
        read_values(cx, std::iter::once((1, v)), None)
    }

    fn read_bytes(&self, cx: &Checker, bytes: &[u8]) -> Result<SamplesFile, ReadError> {
        let text = utf8(cx, bytes)?;
        let mut values = Vec::new();
        for (n, line) in data_lines(text) {
            let v: Value = serde_json::from_str(line).map_err(|e| {
                cx.err(
                    Some(format!("line {n}")),
                    format!("not a JSON object ({e}); perf stat -j writes one object per line"),
                )
            })?;
            values.push((n, v));
        }
        read_values(cx, values.iter().map(|(n, v)| (*n, v)), started_on(text))
    }
}

/// perf stat -j objects as (line number, object).
fn read_values<'v>(
    cx: &Checker,
    lines: impl Iterator<Item = (usize, &'v Value)>,
    started: Option<String>,
) -> Result<SamplesFile, ReadError> {
    let mut rows = Vec::new();
    for (n, v) in lines {
        let at = format!("line {n}");
        let o = cx.obj(v, &at)?;
        for (key, what) in [
            ("interval", "interval (-I)"),
            ("cpu", "per-CPU (-A)"),
            ("core", "per-core"),
            ("socket", "per-socket"),
            ("die", "per-die"),
            ("node", "per-node"),
            ("thread", "per-thread"),
        ] {
            if o.contains_key(key) {
                return Err(cx.err(
                    Some(format!("{at}.{key}")),
                    format!("{what} output is not supported; run perf stat without it"),
                ));
            }
        }
        let event = cx.str(cx.field(o, "event", &at)?, &format!("{at}.event"))?;
        let vat = format!("{at}.counter-value");
        let raw = cx.field(o, "counter-value", &at)?;
        let (value, value_text) = match raw {
            Value::String(s) if not_counted(s) => (None, s.clone()),
            Value::String(s) => match number(s) {
                Some(x) if x >= 0.0 => (Some(x), s.clone()),
                _ => return Err(cx.err(Some(vat), format!("\"{}\" is not a count ≥ 0", short(s)))),
            },
            other => (Some(cx.sample(other, &vat)?), other.to_string()),
        };
        let unit = match o.get("unit") {
            Some(u) => cx.str(u, &format!("{at}.unit"))?,
            None => "",
        };
        let mut figures = Map::new();
        for (key, name) in [
            ("variance", "variance_percent"),
            ("event-runtime", "event_runtime"),
            ("pcnt-running", "pcnt_running"),
            ("metric-value", "metric_value"),
            ("metric-unit", "metric_unit"),
        ] {
            if let Some(x) = o.get(key) {
                figures.insert(name.into(), x.clone());
            }
        }
        rows.push(Row {
            value,
            value_text,
            unit: unit.to_string(),
            event: event.to_string(),
            figures,
        });
    }
    samples(cx, rows, started, "perf stat -j (JSON)")
}
