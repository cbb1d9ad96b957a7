//! Inputs that are not one JSON document: the line-based JSON streams
//! (`go test -json`, `perf stat -j`) and the text formats (`go test -bench`,
//! `perf stat -x,`), tried in that order, and what a file none of the
//! readers accepts is told: every format tried, each with why it was not it.
//! (cargo-criterion's stream is recognised before, by `crate::read`.)

use super::{go_bench, perf_stat, sniff};
use crate::error::ReadError;
use crate::format::SamplesFile;

/// Read bytes that are not a JSON document with the first text format that
/// recognises them, or `None` when none does.
pub fn import_text(file: &str, bytes: &[u8]) -> Option<Result<SamplesFile, ReadError>> {
    if go_bench::looks_like_json_stream(bytes) {
        Some(go_bench::read_json_stream(file, bytes))
    } else if perf_stat::looks_like_json_lines(bytes) {
        Some(perf_stat::read_json_lines(file, bytes))
    } else if go_bench::looks_like_text(bytes) {
        Some(go_bench::read_text(file, bytes))
    } else if perf_stat::looks_like_csv(bytes) {
        Some(perf_stat::read_csv(file, bytes))
    } else {
        None
    }
}

/// The error for bytes no reader accepts. `e` is the JSON parser's; when the
/// bytes look like a JSON format cut short (`sniff`) or like a tickbook
/// file, that message alone is the answer. Otherwise every format tried is
/// listed with why it is not this file.
pub fn not_recognised(bytes: &[u8], e: ReadError) -> ReadError {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(8192)]);
    if sniff(bytes).is_some() || head.contains("\"tickbook\"") {
        return e;
    }
    let first = head
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let short: String = l.trim().chars().take(40).collect();
            let more = if l.trim().chars().count() > 40 {
                "…"
            } else {
                ""
            };
            format!("line {} (\"{short}{more}\")", i + 1)
        })
        .unwrap_or_else(|| "the first line".into());
    let message = format!(
        "{}; not a format tickbook reads. Tried: the JSON formats (tickbook, {}): not one \
         JSON document; the JSON streams (cargo-criterion, go test -json, perf stat -j): \
         {first} is not an object with \"reason\", \"Action\" or \"counter-value\"; Go test \
         -bench text: no result line \"BenchmarkName N VALUE UNIT…\"; perf stat -x, CSV: {}",
        e.message,
        JSON_FORMATS,
        perf_stat::why_not_csv(bytes)
    );
    ReadError { message, ..e }
}

/// The formats that are one JSON document, as the message lists them.
const JSON_FORMATS: &str = "pyperf, pytest-benchmark, JMH, Google Benchmark, hyperfine, \
Criterion.rs";
