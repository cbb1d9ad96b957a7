//! Reading untrusted bytes into [`crate::format`] types.
//!
//! Every failure is a [`ReadError`] naming the file, the JSON path (when there
//! is one) and what was expected, in one line. Nothing here panics on input:
//! syntax, depth (serde_json's recursion limit), types, versions and values
//! are all checked and reported.

use crate::error::{type_name, Checker};
use crate::format::{RunFile, SamplesFile, FORMAT_MAJOR, FORMAT_TAG, KIND_RUN, KIND_SAMPLES};
use crate::limits::Limits;
use crate::suites::alloc::AllocData;
use crate::suites::bernoulli::{BernoulliData, BernoulliTrials};
use crate::suites::bottleneck::BottleneckData;
use crate::suites::clocks::ClocksData;
use crate::suites::copy::CopyData;
use crate::suites::ops::OpsData;
use crate::suites::trace::TraceData;
use serde_json::Value;

pub use crate::error::ReadError;

/// A parsed, validated file.
#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    Run(Box<RunDocument>),
    Samples(SamplesFile),
}

/// A run file with its known suites parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct RunDocument {
    pub run: RunFile,
    pub clocks: Option<ClocksData>,
    pub bernoulli: Option<BernoulliData>,
    pub ops: Option<OpsData>,
    pub copy: Option<CopyData>,
    pub alloc: Option<AllocData>,
    pub trace: Option<TraceData>,
    pub bottleneck: Option<BottleneckData>,
    /// The alloc data come from an unfinished suite (what it checkpointed).
    pub partial_alloc: bool,
    /// Suites this build does not know (from a newer minor version), skipped.
    pub skipped_suites: Vec<String>,
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
            validate_samples(&cx, &s)?;
            return Ok(Document::Samples(s));
        }
        Err(e) => return Err(crate::import::name_parse_error(bytes, e)),
    };
    if let Some(imported) = crate::import::import_value(file, &value) {
        let s = imported?;
        validate_samples(&cx, &s)?;
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
            validate_samples(&cx, &s)?;
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
    let mut clocks = None;
    let mut bernoulli = None;
    let mut ops = None;
    let mut copy = None;
    let mut alloc = None;
    let mut trace = None;
    let mut bottleneck = None;
    let mut partial_alloc = false;
    let mut skipped_suites = Vec::new();
    for (i, suite) in run.suites.iter().enumerate() {
        let prefix = format!("suites[{i}].data");
        match suite.suite.as_str() {
            // A long alloc run checkpoints its finished executions into a
            // suite marked failed; show them (the report says it is partial).
            "alloc" if suite.status != "complete" => {
                if let Ok(data) = serde_json::from_value::<AllocData>(suite.data.clone()) {
                    partial_alloc = true;
                    alloc = Some(data);
                }
            }
            _ if suite.status != "complete" => {}
            "clocks" => {
                let data: ClocksData = cx.typed(&suite.data, &prefix)?;
                validate_clocks(cx, &data, &prefix)?;
                clocks = Some(data);
            }
            "bernoulli" => {
                let data: BernoulliData = cx.typed(&suite.data, &prefix)?;
                validate_bernoulli(cx, &data, &prefix)?;
                bernoulli = Some(data);
            }
            "ops" => {
                let data: OpsData = cx.typed(&suite.data, &prefix)?;
                validate_ops(cx, &data, &prefix)?;
                ops = Some(data);
            }
            "copy" => {
                let data: CopyData = cx.typed(&suite.data, &prefix)?;
                for (i, c) in data.cases.iter().enumerate() {
                    cx.check_samples(&c.samples_ns, &format!("{prefix}.cases[{i}].samples_ns"))?;
                }
                copy = Some(data);
            }
            "alloc" => {
                let data: AllocData = cx.typed(&suite.data, &prefix)?;
                for (i, c) in data.configs.iter().enumerate() {
                    for (j, e) in c.executions.iter().enumerate() {
                        let at = format!("{prefix}.configs[{i}].executions[{j}].measurements");
                        cx.check_samples(&e.measurements, &at)?;
                    }
                }
                alloc = Some(data);
            }
            "trace" => {
                let data: TraceData = cx.typed(&suite.data, &prefix)?;
                validate_trace(cx, &data, &prefix)?;
                trace = Some(data);
            }
            "bottleneck" => {
                let data: BottleneckData = cx.typed(&suite.data, &prefix)?;
                validate_bottleneck(cx, &data, &prefix)?;
                bottleneck = Some(data);
            }
            other => skipped_suites.push(other.to_string()),
        }
    }
    Ok(RunDocument {
        run,
        clocks,
        bernoulli,
        ops,
        copy,
        alloc,
        trace,
        bottleneck,
        partial_alloc,
        skipped_suites,
    })
}

/// Every record has one finite value per column, and every column is a
/// declared metric.
fn validate_trace(cx: &Checker, d: &TraceData, prefix: &str) -> Result<(), ReadError> {
    for (w, wl) in d.workloads.iter().enumerate() {
        for (r, run) in wl.runs.iter().enumerate() {
            let at = format!("{prefix}.workloads[{w}].runs[{r}]");
            for (c, col) in run.columns.iter().enumerate() {
                if !d.metrics.iter().any(|m| &m.name == col) {
                    return Err(cx.err(
                        Some(format!("{at}.columns[{c}]")),
                        format!("column \"{col}\" is not one of the suite's metrics"),
                    ));
                }
            }
            for (i, rec) in run.records.iter().enumerate() {
                if rec.len() != run.columns.len() {
                    return Err(cx.err(
                        Some(format!("{at}.records[{i}]")),
                        format!(
                            "record has {} values: expected one per column ({})",
                            rec.len(),
                            run.columns.len()
                        ),
                    ));
                }
                if let Some(j) = rec.iter().position(|v| !v.is_finite()) {
                    return Err(cx.err(
                        Some(format!("{at}.records[{i}][{j}]")),
                        "expected a finite number",
                    ));
                }
            }
            if !(run.wall_ns.is_finite() && run.wall_ns > 0.0) {
                return Err(cx.err(Some(format!("{at}.wall_ns")), "expected a positive number"));
            }
        }
    }
    Ok(())
}

/// Times and costs are durations in the declared unit; ticks need a
/// frequency; cost pairs match.
fn validate_bottleneck(cx: &Checker, d: &BottleneckData, prefix: &str) -> Result<(), ReadError> {
    match (d.unit.as_str(), d.counter_hz) {
        ("counter_ticks", Some(hz)) => cx.check_positive(hz, &format!("{prefix}.counter_hz"))?,
        ("counter_ticks", None) => {
            return Err(cx.err(
                Some(format!("{prefix}.counter_hz")),
                "unit is counter_ticks: expected the counter frequency",
            ))
        }
        ("ns", _) => {}
        (other, _) => {
            return Err(cx.err(
                Some(format!("{prefix}.unit")),
                format!("expected \"counter_ticks\" or \"ns\", found \"{other}\""),
            ))
        }
    }
    cx.check_positive(d.tick, &format!("{prefix}.tick"))?;
    if d.copies == 0 {
        return Err(cx.err(
            Some(format!("{prefix}.copies")),
            "expected at least one copy",
        ));
    }
    cx.check_samples(&d.read_cost, &format!("{prefix}.read_cost"))?;
    for (i, op) in d.costs.iter().enumerate() {
        let at = format!("{prefix}.costs[{i}]");
        for (name, a, b) in [
            ("portable", &op.portable_n_ns, &op.portable_2n_ns),
            ("counter", &op.counter_n_ticks, &op.counter_2n_ticks),
        ] {
            if a.len() != b.len() {
                return Err(cx.err(
                    Some(at.clone()),
                    format!(
                        "{name}: {} n-copy samples but {} 2n-copy samples; expected one pair per repetition",
                        a.len(),
                        b.len()
                    ),
                ));
            }
            cx.check_samples(a, &format!("{at}.{name}_n"))?;
            cx.check_samples(b, &format!("{at}.{name}_2n"))?;
        }
    }
    for (i, c) in d.cases.iter().enumerate() {
        let at = format!("{prefix}.cases[{i}]");
        if c.times.is_empty() {
            return Err(cx.err(
                Some(format!("{at}.times")),
                "expected at least one repetition",
            ));
        }
        cx.check_samples(&c.times, &format!("{at}.times"))?;
    }
    Ok(())
}

fn validate_clocks(cx: &Checker, d: &ClocksData, prefix: &str) -> Result<(), ReadError> {
    if !(d.reference_ns_per_unit.is_finite() && d.reference_ns_per_unit > 0.0) {
        return Err(cx.err(
            Some(format!("{prefix}.reference_ns_per_unit")),
            "expected a positive number",
        ));
    }
    for (i, c) in d.clocks.iter().enumerate() {
        let at = format!("{prefix}.clocks[{i}]");
        if let Some(rc) = &c.read_cost {
            cx.check_samples(&rc.samples_ns, &format!("{at}.read_cost.samples_ns"))?;
        }
        if let Some(scan) = &c.scan {
            if scan.steps.len() != scan.reads_between.len() {
                return Err(cx.err(
                    Some(format!("{at}.scan")),
                    format!(
                        "steps has {} entries but reads_between has {}: expected one count per step",
                        scan.steps.len(),
                        scan.reads_between.len()
                    ),
                ));
            }
        }
        if let Some(npu) = c.ns_per_unit {
            if !(npu.is_finite() && npu > 0.0) {
                return Err(cx.err(
                    Some(format!("{at}.ns_per_unit")),
                    "expected a positive number",
                ));
            }
        }
    }
    Ok(())
}

fn validate_bernoulli(cx: &Checker, d: &BernoulliData, prefix: &str) -> Result<(), ReadError> {
    cx.check_positive(d.tick_ns, &format!("{prefix}.tick_ns"))?;
    if !(d.epsilon > 0.0 && d.confidence > 0.0 && d.confidence < 1.0) {
        return Err(cx.err(
            Some(format!("{prefix}.confidence")),
            format!(
                "expected epsilon > 0 and 0 < confidence < 1, found {} and {}",
                d.epsilon, d.confidence
            ),
        ));
    }
    trials(cx, &d.overhead, &format!("{prefix}.overhead"))?;
    cx.check_samples(
        &d.reference_overhead_ns,
        &format!("{prefix}.reference_overhead_ns"),
    )?;
    for (i, e) in d.events.iter().enumerate() {
        let at = format!("{prefix}.events[{i}]");
        trials(cx, &e.trials, &format!("{at}.trials"))?;
        cx.check_samples(&e.reference_ns, &format!("{at}.reference_ns"))?;
    }
    Ok(())
}

fn trials(cx: &Checker, t: &BernoulliTrials, path: &str) -> Result<(), ReadError> {
    if t.n == 0 || t.m > t.n {
        return Err(cx.err(
            Some(path.to_string()),
            format!(
                "expected 0 ≤ m ≤ n and n > 0, found m = {} and n = {}",
                t.m, t.n
            ),
        ));
    }
    Ok(())
}

fn validate_ops(cx: &Checker, d: &OpsData, prefix: &str) -> Result<(), ReadError> {
    if d.copies == 0 {
        return Err(cx.err(
            Some(format!("{prefix}.copies")),
            "expected at least one copy",
        ));
    }
    if let Some(hz) = d.counter_hz {
        cx.check_positive(hz, &format!("{prefix}.counter_hz"))?;
    }
    if let Some(c) = &d.core_clock {
        cx.check_samples(&c.ticks, &format!("{prefix}.core_clock.ticks"))?;
        cx.check_samples(&c.ticks_2n, &format!("{prefix}.core_clock.ticks_2n"))?;
        if !c.ticks_2n.is_empty() && c.ticks_2n.len() != c.ticks.len() {
            return Err(cx.err(
                Some(format!("{prefix}.core_clock.ticks_2n")),
                format!(
                    "{} samples of 2n adds but {} of n adds; expected one pair per sample",
                    c.ticks_2n.len(),
                    c.ticks.len()
                ),
            ));
        }
        if c.adds == 0 {
            return Err(cx.err(
                Some(format!("{prefix}.core_clock.adds")),
                "expected at least one add per sample",
            ));
        }
    }
    for (i, op) in d.ops.iter().enumerate() {
        let at = format!("{prefix}.ops[{i}]");
        for (name, a, b) in [
            ("portable", &op.portable_n_ns, &op.portable_2n_ns),
            ("counter", &op.counter_n_ticks, &op.counter_2n_ticks),
        ] {
            if a.len() != b.len() {
                return Err(cx.err(
                    Some(at.clone()),
                    format!(
                        "{name}: {} n-copy samples but {} 2n-copy samples; expected one pair per repetition",
                        a.len(),
                        b.len()
                    ),
                ));
            }
        }
        cx.check_samples(&op.portable_n_ns, &format!("{at}.portable_n_ns"))?;
        cx.check_samples(&op.portable_2n_ns, &format!("{at}.portable_2n_ns"))?;
        cx.check_samples(&op.counter_n_ticks, &format!("{at}.counter_n_ticks"))?;
        cx.check_samples(&op.counter_2n_ticks, &format!("{at}.counter_2n_ticks"))?;
    }
    Ok(())
}

fn validate_samples(cx: &Checker, s: &SamplesFile) -> Result<(), ReadError> {
    if s.series.is_empty() {
        return Err(cx.err(Some("series".into()), "expected at least one series"));
    }
    for (i, series) in s.series.iter().enumerate() {
        let at = format!("series[{i}]");
        if series.name.trim().is_empty() {
            return Err(cx.err(Some(format!("{at}.name")), "expected a non-empty name"));
        }
        if series.executions.is_empty() {
            return Err(cx.err(
                Some(format!("{at}.executions")),
                "expected at least one execution (a list of measurements)",
            ));
        }
        for (j, ex) in series.executions.iter().enumerate() {
            let path = format!("{at}.executions[{j}]");
            if ex.is_empty() {
                return Err(cx.err(Some(path), "expected at least one measurement"));
            }
            cx.check_samples(ex, &path)?;
        }
    }
    Ok(())
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
