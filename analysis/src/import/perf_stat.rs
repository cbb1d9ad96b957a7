//! `perf stat` results: the CSV of `perf stat -x, [-o FILE]` and the JSON
//! lines of `perf stat -j` (one object per event).
//!
//! CSV rows are `VALUE,UNIT,EVENT[,VARIANCE%],RUNTIME,PERCENT,METRIC,
//! METRIC-UNIT` (VARIANCE with `-r N`); JSON objects have `counter-value`
//! (a string in perf 6.1), `unit`, `event`, `event-runtime`, `pcnt-running`,
//! `metric-value`, `metric-unit` and with `-r N` `variance`. Lines starting
//! with `#` (`-o`'s "# started on …") are skipped.
//!
//! A file is one run of the command: one execution of one measurement per
//! event, a series named after the event. `msec` (task-clock, cpu-clock) is
//! a time, `ms`; an empty unit is a count; other units are kept as written.
//! Events perf could not count (`<not supported>`, `<not counted>`) are
//! listed in the description, never measured. perf's derived metric ("0.057
//! CPUs utilized"), the event's running time and share, and with `-r` the
//! variance are the tool's own figures. With `-r N` the value is perf's mean
//! over N runs (N is not in the file): still one measurement. Interval
//! (`-I`) and per-CPU or per-core (`-A`, `--per-core`, …) output is refused
//! with that reason.

use super::{metadata, samples_file, Format};
use crate::error::{Checker, ReadError};
use crate::format::{SamplesFile, Series, FORMAT_TAG, KIND_SAMPLES};
use serde_json::{json, Map, Value};

struct Row {
    /// `None` when perf could not count the event.
    value: Option<f64>,
    value_text: String,
    unit: String,
    event: String,
    figures: Map<String, Value>,
}

/// At most 40 characters of `s`, for messages.
fn short(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

fn number(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok().filter(|x| x.is_finite())
}

fn not_counted(s: &str) -> bool {
    let s = s.trim();
    s.starts_with('<') && s.ends_with('>')
}

/// The lines that are not blank and not `#` comments, with their numbers.
fn data_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
}

/// One CSV row, or why it is not one.
fn csv_row(line: &str) -> Result<Row, String> {
    let f: Vec<&str> = line.split(',').collect();
    if f.len() < 7 {
        return Err(format!(
            "{} field(s): expected VALUE,UNIT,EVENT,RUNTIME,PERCENT,METRIC,METRIC-UNIT",
            f.len()
        ));
    }
    let (value_text, unit) = (f[0].trim(), f[1].trim());
    if number(value_text).is_none() && !not_counted(value_text) && !value_text.is_empty() {
        if value_text.starts_with("CPU") || value_text.starts_with('S') {
            return Err(format!(
                "\"{}\" before the value: per-CPU or per-core output (-A, \
                 --per-core, --per-socket …), which is not supported; run perf stat \
                 without them",
                short(value_text)
            ));
        }
        return Err(format!("\"{}\" is not a count ≥ 0", short(value_text)));
    }
    if number(unit).is_some() || not_counted(unit) {
        return Err(
            "a number before the value: interval (-I) output, which is not supported; run \
             perf stat without -I"
                .into(),
        );
    }
    let value = if not_counted(value_text) {
        None
    } else {
        match number(value_text) {
            Some(x) if x >= 0.0 => Some(x),
            _ => return Err(format!("\"{}\" is not a count ≥ 0", short(value_text))),
        }
    };
    // From the right, as event names may hold commas (`cpu/event=0x3c,umask=0/`).
    let n = f.len();
    let with_variance = n >= 8 && f[n - 5].trim().ends_with('%');
    let event_end = if with_variance { n - 5 } else { n - 4 };
    let event = f[2..event_end].join(",");
    if event.trim().is_empty() {
        return Err("no event name in the third field".into());
    }
    let mut figures = Map::new();
    if with_variance {
        let v = f[n - 5].trim().trim_end_matches('%');
        figures.insert("variance_percent".into(), json!(number(v)));
    }
    figures.insert("event_runtime".into(), json!(number(f[n - 4])));
    figures.insert("pcnt_running".into(), json!(number(f[n - 3])));
    if let Some(m) = number(f[n - 2]) {
        figures.insert("metric_value".into(), json!(m));
        figures.insert("metric_unit".into(), json!(f[n - 1].trim()));
    }
    Ok(Row {
        value,
        value_text: value_text.to_string(),
        unit: unit.to_string(),
        event: event.trim().to_string(),
        figures,
    })
}

/// Whether the first data line is a `perf stat -x,` row (or one of the
/// kinds of rows it refuses with a reason).
pub fn looks_like_csv(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    let Some((_, line)) = data_lines(&text).next() else {
        return false;
    };
    let f: Vec<&str> = line.split(',').collect();
    f.len() >= 7
        && f[2..].iter().any(|x| !x.trim().is_empty())
        && (number(f[0]).is_some() || not_counted(f[0]) || line.starts_with("CPU"))
}

/// Why the text is not `perf stat -x,` CSV, for the "formats tried" message.
pub fn why_not_csv(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let first = data_lines(&text).next();
    match first {
        None => "no line that is not a # comment".into(),
        Some((n, line)) => match csv_row(line) {
            Err(why) => format!("line {n}: {why}"),
            Ok(_) => format!("line {n} is a row but the file is not recognised"),
        },
    }
}

pub fn read_csv(file: &str, bytes: &[u8]) -> Result<SamplesFile, ReadError> {
    let cx = Format::PerfStatCsv.checker(file);
    let text =
        std::str::from_utf8(bytes).map_err(|e| cx.err(None, format!("not UTF-8 text ({e})")))?;
    let mut rows = Vec::new();
    for (n, line) in data_lines(text) {
        let f: Vec<&str> = line.split(',').collect();
        // A further metric of the event above (`,,,,,1.2,frontend cycles idle`).
        if f.len() >= 3 && f[0].trim().is_empty() && f[2].trim().is_empty() {
            continue;
        }
        rows.push(csv_row(line).map_err(|why| cx.err(Some(format!("line {n}")), why))?);
    }
    samples(&cx, rows, started_on(text), "perf stat -x, (CSV)")
}

/// Whether the first data line is a `perf stat -j` object.
pub fn looks_like_json_lines(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    let first = data_lines(&text).next();
    first
        .and_then(|(_, l)| serde_json::from_str::<Value>(l).ok())
        .is_some_and(|v| is_event(&v))
}

pub(crate) fn is_event(v: &Value) -> bool {
    v.get("counter-value").is_some() && v.get("event").is_some()
}

pub fn read_json_lines(file: &str, bytes: &[u8]) -> Result<SamplesFile, ReadError> {
    let cx = Format::PerfStatJson.checker(file);
    let text =
        std::str::from_utf8(bytes).map_err(|e| cx.err(None, format!("not UTF-8 text ({e})")))?;
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
    read_values(&cx, values.iter().map(|(n, v)| (*n, v)), started_on(text))
}

/// perf stat -j objects as (line number, object).
pub(crate) fn read_values<'v>(
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

/// The date of `-o FILE`'s "# started on …" line.
fn started_on(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("# started on "))
        .map(|s| s.trim().to_string())
}

fn samples(
    cx: &Checker,
    rows: Vec<Row>,
    started: Option<String>,
    source: &str,
) -> Result<SamplesFile, ReadError> {
    let mut series: Vec<Series> = Vec::new();
    let mut uncounted = Vec::new();
    for r in rows {
        let Some(x) = r.value else {
            uncounted.push(format!("{} ({})", r.event, r.value_text));
            continue;
        };
        let unit = match r.unit.as_str() {
            "msec" => "ms",
            "" => "count",
            u => u,
        };
        // The same event twice (`-e task-clock,task-clock`): kept apart.
        let taken = series
            .iter()
            .filter(|s| s.name == r.event || s.name.starts_with(&format!("{} #", r.event)));
        let name = match taken.count() {
            0 => r.event.clone(),
            k => format!("{} #{}", r.event, k + 1),
        };
        let mut extra = Map::new();
        extra.insert("event".into(), json!(r.event));
        extra.insert("perf_unit".into(), json!(r.unit));
        if r.figures.contains_key("variance_percent") {
            extra.insert("repeated".into(), json!(true));
        }
        if let Some(s) = &started {
            extra.insert("started_on".into(), json!(s));
        }
        series.push(Series {
            name,
            unit: unit.to_string(),
            executions: vec![vec![x]],
            metadata: metadata("perf stat", Some(Value::Object(r.figures)), extra),
        });
    }
    let mut description = "Imported from perf stat: one run of the command (one execution of \
         one measurement per event)"
        .to_string();
    if series.iter().any(|s| s.metadata.get("repeated").is_some()) {
        description.push_str("; with -r, each value is perf's mean over its runs");
    }
    if !uncounted.is_empty() {
        description.push_str(&format!("; not counted: {}", uncounted.join(", ")));
    }
    description.push('.');
    samples_file(cx, source.into(), Some(description), None, series)
}

/// One run of an event in a folder of runs: its value and its series' metadata.
type Run = (f64, Map<String, Value>);

/// Whether `bytes` are `perf stat` output, `-x,` CSV or `-j` lines.
pub fn recognises(bytes: &[u8]) -> bool {
    looks_like_json_lines(bytes) || looks_like_csv(bytes)
}

/// Several `perf stat` files of one folder, each one run of the command
/// (as read alone, in file order), as runs of the same events: one series
/// per event with one execution per file that counted it. A figure of
/// perf's that differs between runs (the running time, the derived metric)
/// becomes a list in file order; `metadata.runs` names the file of each
/// execution. `warnings` are the folder's so far (files not read).
pub(crate) fn runs(
    folder: &str,
    files: Vec<(String, SamplesFile)>,
    mut warnings: Vec<String>,
) -> SamplesFile {
    let prefix = format!("{folder}/");
    let short = |f: &str| f.strip_prefix(&prefix).unwrap_or(f).to_string();
    let names: Vec<String> = files.iter().map(|(f, _)| short(f)).collect();
    // Per event: its unit, then per file the value and the series' metadata.
    let mut events: Vec<(String, String, Vec<Option<Run>>)> = Vec::new();
    let mut sources: Vec<String> = Vec::new();
    let mut uncounted: Vec<String> = Vec::new();
    let mut repeated = false;
    for (k, (file, s)) in files.iter().enumerate() {
        if let Some(src) = &s.source {
            if !sources.contains(src) {
                sources.push(src.clone());
            }
        }
        if let Some(d) = &s.description {
            repeated |= d.contains("mean over its runs");
            if let Some(list) = d.split("; not counted: ").nth(1) {
                for u in list.trim_end_matches('.').split(", ") {
                    if !uncounted.iter().any(|x| x == u) {
                        uncounted.push(u.to_string());
                    }
                }
            }
        }
        warnings.extend(s.warnings.iter().map(|w| format!("{}: {w}", names[k])));
        for x in &s.series {
            let Some(v) = x.executions.first().and_then(|e| e.first()) else {
                continue;
            };
            let meta = x.metadata.as_object().cloned().unwrap_or_default();
            match events.iter_mut().find(|(n, _, _)| *n == x.name) {
                Some((_, unit, per_file)) if *unit == x.unit => per_file[k] = Some((*v, meta)),
                Some((_, unit, _)) => warnings.push(format!(
                    "{}: event \"{}\" in {} here but in {unit} in an earlier file: left out",
                    short(file),
                    x.name,
                    x.unit
                )),
                None => {
                    let mut per_file = vec![None; files.len()];
                    per_file[k] = Some((*v, meta));
                    events.push((x.name.clone(), x.unit.clone(), per_file));
                }
            }
        }
    }
    let mut series = Vec::new();
    for (name, unit, per_file) in events {
        let missing: Vec<&str> = per_file
            .iter()
            .zip(&names)
            .filter(|(x, _)| x.is_none())
            .map(|(_, n)| n.as_str())
            .collect();
        if !missing.is_empty() {
            warnings.push(format!(
                "event \"{name}\" is not in {}: {} runs of it instead of {}",
                missing.join(", "),
                per_file.len() - missing.len(),
                per_file.len()
            ));
        }
        let present: Vec<(&str, &Run)> = per_file
            .iter()
            .zip(&names)
            .filter_map(|(x, n)| Some((n.as_str(), x.as_ref()?)))
            .collect();
        let mut extra = Map::new();
        let mut figures = Map::new();
        for (_, (_, meta)) in &present {
            for (key, v) in meta {
                let into = match key.as_str() {
                    "tool" => continue,
                    "tool_statistics" => {
                        for (fk, _) in v.as_object().into_iter().flatten() {
                            figures.entry(fk.clone()).or_insert(Value::Null);
                        }
                        continue;
                    }
                    _ => &mut extra,
                };
                into.entry(key.clone()).or_insert(Value::Null);
            }
        }
        // One value when every run has the same, else the list in file order.
        let gather = |get: &dyn Fn(&Map<String, Value>) -> Value| -> Value {
            let all: Vec<Value> = present.iter().map(|(_, (_, m))| get(m)).collect();
            if all.windows(2).all(|w| w[0] == w[1]) {
                all.into_iter().next().unwrap_or(Value::Null)
            } else {
                Value::Array(all)
            }
        };
        for (fk, slot) in figures.iter_mut() {
            *slot = gather(&|m| {
                m.get("tool_statistics")
                    .and_then(|t| t.get(fk))
                    .cloned()
                    .unwrap_or(Value::Null)
            });
        }
        for (key, slot) in extra.iter_mut() {
            *slot = gather(&|m| m.get(key).cloned().unwrap_or(Value::Null));
        }
        extra.insert(
            "runs".into(),
            json!(present.iter().map(|(n, _)| *n).collect::<Vec<_>>()),
        );
        series.push(Series {
            name,
            unit,
            executions: present.iter().map(|(_, (v, _))| vec![*v]).collect(),
            metadata: metadata("perf stat", Some(Value::Object(figures)), extra),
        });
    }
    let mut description = format!(
        "Imported from perf stat: {} runs of the command, one per file of {folder} (one \
         execution per run, of one measurement per event)",
        files.len()
    );
    if repeated {
        description.push_str("; with -r, each value is perf's mean over its runs");
    }
    if !uncounted.is_empty() {
        description.push_str(&format!("; not counted: {}", uncounted.join(", ")));
    }
    description.push('.');
    SamplesFile {
        format: FORMAT_TAG.to_string(),
        format_version: "1.0".to_string(),
        kind: KIND_SAMPLES.to_string(),
        source: Some(format!(
            "{}, {} runs (the files of {folder})",
            sources.join(" and "),
            files.len()
        )),
        description: Some(description),
        host: None,
        series,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "# started on Wed Nov 25 01:04:56 2026\n\n\
        0.92,msec,task-clock,916768,100.00,0.057,CPUs utilized\n\
        2,,context-switches,916768,100.00,2.182,K/sec\n\
        <not supported>,,cycles,0,100.00,,\n";

    #[test]
    fn csv_rows_units_and_uncounted() {
        assert!(looks_like_csv(CSV.as_bytes()));
        let s = read_csv("p", CSV.as_bytes()).unwrap();
        assert_eq!(s.series.len(), 2);
        assert_eq!(
            (s.series[0].name.as_str(), s.series[0].unit.as_str()),
            ("task-clock", "ms")
        );
        assert_eq!(s.series[0].executions, vec![vec![0.92]]);
        assert_eq!(s.series[1].unit, "count");
        let ts = &s.series[0].metadata["tool_statistics"];
        assert_eq!(ts["metric_value"], 0.057);
        assert_eq!(ts["metric_unit"], "CPUs utilized");
        assert!(s.description.unwrap().contains("cycles (<not supported>)"));
        // -r: a variance column; an event name with a comma.
        let s = read_csv(
            "p",
            b"0.50,msec,task-clock,7.87%,504077,100.00,0.355,CPUs utilized\n\
            12,,cpu/event=0x3c,umask=0x0/,1.5%,504077,100.00,,\n",
        )
        .unwrap();
        assert_eq!(
            s.series[0].metadata["tool_statistics"]["variance_percent"],
            7.87
        );
        assert_eq!(s.series[1].name, "cpu/event=0x3c,umask=0x0/");
    }

    /// Runs read by another reader (no perf figures in their metadata) are
    /// merged without a panic.
    #[test]
    fn runs_without_perf_figures_do_not_panic() {
        let one = |v: f64, perf: bool| {
            let mut s = read_csv("p", CSV.as_bytes()).unwrap();
            s.series[0].executions = vec![vec![v]];
            if !perf {
                s.series[0].metadata = json!({"tool": "other"});
            }
            s
        };
        let merged = runs(
            "d",
            vec![
                ("d/a".into(), one(1.0, true)),
                ("d/b".into(), one(2.0, false)),
            ],
            Vec::new(),
        );
        assert_eq!(merged.series[0].executions, vec![vec![1.0], vec![2.0]]);
        assert_eq!(merged.series[0].metadata["runs"], json!(["a", "b"]));
    }

    #[test]
    fn interval_and_per_cpu_are_refused() {
        let e = read_csv(
            "p",
            b"     0.100167075,0.89,msec,task-clock,892463,100.00,0.009,CPUs utilized\n",
        )
        .unwrap_err();
        assert!(e.message.contains("interval (-I)"), "{e}");
        let e = read_csv(
            "p",
            b"CPU0,1.17,msec,task-clock,1171277,100.00,1.011,CPUs utilized\n",
        )
        .unwrap_err();
        assert!(e.message.contains("per-CPU"), "{e}");
        assert_eq!(e.path.as_deref(), Some("line 1"));
    }
}
