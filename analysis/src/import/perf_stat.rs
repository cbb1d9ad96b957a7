//! `perf stat` results, what its readers share: the CSV of `perf stat -x,
//! [-o FILE]` ([`super::perf_stat_csv`]) and the JSON lines of `perf stat -j`
//! ([`super::perf_stat_json`]) are rows of events, made into series here,
//! and a folder's files are runs of the same events ([`runs`]). Lines
//! starting with `#` (`-o`'s "# started on …") are skipped.
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

use super::{metadata, samples_file, IMPORTERS};
use crate::error::{Checker, ReadError};
use crate::format::{Alternatives, SamplesFile, Series, FORMAT_TAG, KIND_SAMPLES};
use serde_json::{json, Map, Value};

/// One event of a run, as a reader of perf's output found it.
pub(crate) struct Row {
    /// `None` when perf could not count the event.
    pub value: Option<f64>,
    pub value_text: String,
    pub unit: String,
    pub event: String,
    pub figures: Map<String, Value>,
}

/// At most 40 characters of `s`, for messages.
pub(crate) fn short(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

pub(crate) fn number(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok().filter(|x| x.is_finite())
}

pub(crate) fn not_counted(s: &str) -> bool {
    let s = s.trim();
    s.starts_with('<') && s.ends_with('>')
}

/// The lines that are not blank and not `#` comments, with their numbers.
pub(crate) fn data_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
}

/// The date of `-o FILE`'s "# started on …" line.
pub(crate) fn started_on(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("# started on "))
        .map(|s| s.trim().to_string())
}

pub(crate) fn samples(
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
            group: None,
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

/// Whether `bytes` are `perf stat` output, `-x,` CSV or `-j` lines: the
/// registry's `perf_stat_*` importers (found by their file, so that this
/// module, whose rows they use, does not import them back).
pub fn recognises(bytes: &[u8]) -> bool {
    IMPORTERS
        .iter()
        .filter(|i| i.about().id.starts_with("perf_stat_"))
        .any(|i| i.recognises_bytes(bytes))
}

/// Several `perf stat` files of one folder, each one run of the command
/// (as read alone, in file order), as runs of the same events: one series
/// per event with one execution per file that counted it. A figure of
/// perf's that differs between runs (the running time, the derived metric)
/// becomes a list in file order; `metadata.runs` names the file of each
/// execution. `warnings` are the folder's so far (files not read).
/// What a folder of runs is, as the file's description says it.
fn runs_description(runs: usize, folder: &str, repeated: bool, uncounted: &[String]) -> String {
    let mut description = format!(
        "Imported from perf stat: {runs} runs of the command, one per file of {folder} (one \
         execution per run, of one measurement per event)"
    );
    if repeated {
        description.push_str("; with -r, each value is perf's mean over its runs");
    }
    if !uncounted.is_empty() {
        description.push_str(&format!("; not counted: {}", uncounted.join(", ")));
    }
    description.push('.');
    description
}

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
            group: None,
        });
    }
    let description = runs_description(files.len(), folder, repeated, &uncounted);
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
        revision: None,
        series,
        // Events count different things.
        alternatives: Alternatives::Groups,
        warnings,
    }
}
