//! hyperfine JSON (`--export-json FILE`): `{"results": [{"command", "mean",
//! "stddev", "median", "user", "system", "min", "max", "times": […],
//! "exit_codes": […], "parameters": {…}}…]}`.
//!
//! Every run is a separate process, so each time is one execution of one
//! measurement (seconds). hyperfine records user and system time only as
//! means over the runs; they are kept with its other statistics under
//! `metadata.tool_statistics`. `memory_usage_byte` (hyperfine ≥ 1.19), when
//! present, becomes a series `COMMAND [max RSS]` in bytes. Parameters and
//! exit codes are kept in the metadata; a command whose runs exited non-zero
//! (`--ignore-failure`) gets a warning, since its times may be of failures,
//! and so does one whose every time is 0 in a file without exit codes (an
//! old hyperfine's record of a command that failed at once). A command with
//! no runs is left out with a warning.

use super::consistency::check_mean;
use super::{metadata, samples_file, About, Importer, Shape};
use crate::error::{Checker, ReadError};
use crate::format::{SamplesFile, Series};
use serde_json::{json, Map, Value};

pub struct Hyperfine;

impl Importer for Hyperfine {
    fn about(&self) -> About {
        About {
            id: "hyperfine",
            label: "hyperfine JSON",
            tried: "hyperfine JSON (--export-json: \"results\")",
            name: "hyperfine",
            shape: Shape::Document,
            fixtures: &[
                "hyperfine/sleep.json",
                "hyperfine/param.json",
                "hyperfine/exit-codes.json",
                "hyperfine/memory.json",
            ],
        }
    }

    fn marks(&self) -> &'static [&'static str] {
        &["results", "command", "times", "mean", "stddev", "exit_codes"]
    }

    fn recognises_document(&self, v: &Value) -> bool {
        v.is_object() && v.get("results").is_some()
    }

    fn cut_short(&self, head: &str) -> Option<&'static str> {
        (head.contains("\"results\"") && head.contains("\"command\"")).then_some(self.about().label)
    }

    fn read_document(&self, cx: &Checker, v: &Value) -> Result<SamplesFile, ReadError> {
        read(cx, v)
    }
}

fn read(cx: &Checker, v: &Value) -> Result<SamplesFile, ReadError> {
    let top = cx.obj(v, "")?;
    let results = cx.arr(cx.field(top, "results", "")?, "results")?;
    let mut series = Vec::new();
    let mut warnings = Vec::new();
    for (i, r) in results.iter().enumerate() {
        let at = format!("results[{i}]");
        let o = cx.obj(r, &at)?;
        let command = cx.str(cx.field(o, "command", &at)?, &format!("{at}.command"))?;
        let times = cx.samples(cx.field(o, "times", &at)?, &format!("{at}.times"))?;
        if times.is_empty() {
            // A command with no runs: the others are read.
            warnings.push(cx.warning(
                &format!("{at}.times"),
                format!("\"{command}\": no runs; the command is left out"),
            ));
            continue;
        }
        // hyperfine before 1.12 wrote no exit codes: a command that failed at
        // once shows only as times of zero.
        if o.get("exit_codes").is_none() && times.iter().all(|&t| t == 0.0) {
            warnings.push(cx.warning(
                &format!("{at}.times"),
                format!(
                    "\"{command}\": all {} runs took 0 s and the file records no exit codes \
                     (hyperfine before 1.12): the command most likely failed at once, so its \
                     times are not those of its work",
                    times.len()
                ),
            ));
        }
        let mut stats = Map::new();
        for key in ["mean", "stddev", "median", "min", "max", "user", "system"] {
            if let Some(x) = o.get(key) {
                stats.insert(key.into(), x.clone());
            }
        }
        let mut extra = Map::new();
        if let Some(p) = o.get("parameters") {
            extra.insert(
                "parameters".into(),
                cx.obj(p, &format!("{at}.parameters"))?.clone().into(),
            );
        }
        if let Some(codes) = o.get("exit_codes") {
            let codes = cx.arr(codes, &format!("{at}.exit_codes"))?;
            // A run killed by a signal has no exit code (null): failed too.
            let failed = codes.iter().filter(|c| c.as_i64() != Some(0)).count();
            extra.insert("failed_runs".into(), json!(failed));
            extra.insert("exit_codes".into(), Value::Array(codes.clone()));
            if failed > 0 {
                let mut shown: Vec<String> = Vec::new();
                for c in codes.iter().filter(|c| c.as_i64() != Some(0)) {
                    let c = c.to_string();
                    if !shown.contains(&c) {
                        shown.push(c);
                    }
                }
                let w = if failed == codes.len() {
                    format!(
                        "\"{command}\": every run failed (exit codes {}): its times are those of a failing command",
                        shown.join(", ")
                    )
                } else {
                    format!(
                        "\"{command}\": {failed} of {} runs failed (exit codes {}); their times are in the series",
                        codes.len(),
                        shown.join(", ")
                    )
                };
                extra.insert("warning".into(), json!(w));
                warnings.push(w);
            }
        }
        extra.insert("command".into(), json!(command));
        let memory = match o.get("memory_usage_byte") {
            Some(m) => Some(cx.samples(m, &format!("{at}.memory_usage_byte"))?),
            None => None,
        };
        let s = Series {
            name: command.to_string(),
            unit: "s".into(),
            executions: times.into_iter().map(|t| vec![t]).collect(),
            metadata: metadata("hyperfine", Some(Value::Object(stats)), extra),
            group: None,
        };
        if let Some(mean) = o.get("mean").and_then(Value::as_f64) {
            warnings.extend(check_mean(cx, &format!("{at}.mean"), &s, mean));
        }
        series.push(s);
        if let Some(mem) = memory.filter(|m| !m.is_empty()) {
            series.push(Series {
                name: format!("{command} [max RSS]"),
                unit: "bytes".into(),
                executions: mem.into_iter().map(|t| vec![t]).collect(),
                metadata: metadata("hyperfine", None, Map::new()),
                group: None,
            });
        }
    }
    let mut file = samples_file(
        cx,
        "hyperfine (--export-json)".into(),
        Some("Imported from hyperfine: every run is a separate process, so each time is an execution of one measurement.".into()),
        None,
        series,
    )?;
    file.warnings = warnings;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::checker;

    #[test]
    fn a_failed_command_of_an_old_hyperfine_and_one_without_runs_are_named() {
        // hyperfine 1.x before 1.12: no exit codes; a command that fails at
        // once shows as times of zero.
        let v = json!({"results": [
            {"command": "./missing", "mean": 0.0, "stddev": 0.0, "user": 0.0, "system": 0.0,
             "min": 0.0, "max": 0.0, "times": [0.0, 0.0, 0.0]},
            {"command": "sleep 0.01", "mean": 0.011, "stddev": 0.0, "user": 0.0, "system": 0.0,
             "min": 0.011, "max": 0.011, "times": [0.011]},
            {"command": "none", "times": []}
        ]});
        let f = read(&checker(&Hyperfine, "h.json"), &v).unwrap();
        assert_eq!(f.series.len(), 2);
        assert_eq!(f.warnings.len(), 2, "{:?}", f.warnings);
        assert!(
            f.warnings[0].starts_with("at results[0].times: ")
                && f.warnings[0].contains("\"./missing\": all 3 runs took 0 s"),
            "{:?}",
            f.warnings
        );
        assert!(f.warnings[1].contains("at results[2].times") && f.warnings[1].contains("\"none\": no runs"));
    }
}
