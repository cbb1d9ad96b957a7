//! `perf stat -x, [-o FILE]`: CSV rows `VALUE,UNIT,EVENT[,VARIANCE%],
//! RUNTIME,PERCENT,METRIC,METRIC-UNIT` (VARIANCE with `-r N`), one per
//! event; a row with no value and no event is a further metric of the event
//! above. Made into series as [`super::perf_stat`] says.

use super::perf_stat::{data_lines, not_counted, number, samples, short, started_on, Row};
use super::{utf8, About, Importer, Shape};
use crate::error::{Checker, ReadError};
use crate::format::SamplesFile;
use serde_json::{json, Map};

pub struct PerfStatCsv;

impl Importer for PerfStatCsv {
    fn about(&self) -> About {
        About {
            id: "perf_stat_csv",
            label: "perf stat -x, CSV",
            tried: "perf stat -x, (lines VALUE,UNIT,EVENT,…)",
            name: "perf stat -x,",
            shape: Shape::Text,
            fixtures: &["perf/perf-stat.csv", "perf/perf-stat-r3.csv"],
        }
    }

    /// The first data line is a `perf stat -x,` row (or one of the kinds
    /// of rows it refuses with a reason).
    fn marks(&self) -> &'static [&'static str] {
        &[",task-clock,", ",context-switches,", ",page-faults,", ",cycles,", ",instructions,", "msec,"]
    }

    fn recognises_bytes(&self, bytes: &[u8]) -> bool {
        let text = String::from_utf8_lossy(bytes);
        let Some((_, line)) = data_lines(&text).next() else {
            return false;
        };
        let f: Vec<&str> = line.split(',').collect();
        f.len() >= 7
            && f[2..].iter().any(|x| !x.trim().is_empty())
            && (number(f[0]).is_some() || not_counted(f[0]) || line.starts_with("CPU"))
    }

    fn read_bytes(&self, cx: &Checker, bytes: &[u8]) -> Result<SamplesFile, ReadError> {
        let text = utf8(cx, bytes)?;
        let mut rows = Vec::new();
        for (n, line) in data_lines(text) {
            let f: Vec<&str> = line.split(',').collect();
            // A further metric of the event above (`,,,,,1.2,frontend cycles idle`).
            if f.len() >= 3 && f[0].trim().is_empty() && f[2].trim().is_empty() {
                continue;
            }
            rows.push(csv_row(line).map_err(|why| cx.err(Some(format!("line {n}")), why))?);
        }
        samples(cx, rows, started_on(text), "perf stat -x, (CSV)")
    }

    /// The first data line and why it is no row.
    fn why_not(&self, bytes: &[u8]) -> Option<String> {
        let text = String::from_utf8_lossy(bytes);
        let why = match data_lines(&text).next() {
            None => "no line that is not a # comment".into(),
            Some((n, line)) => match csv_row(line) {
                Err(why) => format!("line {n}: {why}"),
                Ok(_) => format!("line {n} is a row but the file is not recognised"),
            },
        };
        Some(why)
    }
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::import::checker;

    pub(crate) fn read_csv(file: &str, bytes: &[u8]) -> Result<SamplesFile, ReadError> {
        PerfStatCsv.read_bytes(&checker(&PerfStatCsv, file), bytes)
    }

    pub(crate) const CSV: &str = "# started on Wed Nov 25 01:04:56 2026\n\n\
        0.92,msec,task-clock,916768,100.00,0.057,CPUs utilized\n\
        2,,context-switches,916768,100.00,2.182,K/sec\n\
        <not supported>,,cycles,0,100.00,,\n";

    #[test]
    fn csv_rows_units_and_uncounted() {
        assert!(PerfStatCsv.recognises_bytes(CSV.as_bytes()));
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

    /// Runs read by another reader (no perf figures in their metadata) are
    /// merged without a panic.
    #[test]
    fn runs_without_perf_figures_do_not_panic() {
        let one = |v: f64, perf: bool| {
            let mut s = read_csv("p", CSV.as_bytes()).unwrap();
            s.series[0].executions = vec![vec![v]];
            if !perf {
                s.series[0].metadata = serde_json::json!({"tool": "other"});
            }
            s
        };
        let merged = super::super::perf_stat::runs(
            "d",
            vec![
                ("d/a".into(), one(1.0, true)),
                ("d/b".into(), one(2.0, false)),
            ],
            Vec::new(),
        );
        assert_eq!(merged.series[0].executions, vec![vec![1.0], vec![2.0]]);
        assert_eq!(merged.series[0].metadata["runs"], serde_json::json!(["a", "b"]));
    }
}
