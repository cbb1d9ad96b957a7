//! What `perf stat` prints (and writes with `-o FILE`): the human-readable
//! table people save and paste, not `-x,` or `-j`.
//!
//! ```text
//!  Performance counter stats for './prog' (3 runs):
//!
//!          16,130.41 msec task-clock          #    0.996 CPUs utilized   ( +-  0.12% )
//!                287      context-switches    #   17.792 /sec
//!    <not supported>      LLC-loads
//!      <not counted>      LLC-load-misses                                 (0.00%)
//!
//!        5.536177603 +- 0.0123 seconds time elapsed  ( +-  0.22% )
//!        0.242781000 seconds user
//!        1.975013000 seconds sys
//! ```
//!
//! One line per event: the value, the unit if the event has one (`msec`,
//! `Joules`; perf 4.x wrote `task-clock (msec)` after the name instead),
//! the event, then perf's derived metric after `#`, the share of the time
//! the event was counted when perf multiplexed (`(66.67%)`), and with `-r N`
//! its relative standard deviation over the runs (`( +-  0.12% )`). Lines
//! of a further metric alone (`# 0.14 stalled cycles per insn`) are perf's
//! figures, not counts. `seconds time elapsed`, `seconds user` and `seconds
//! sys` are series of their own (`time elapsed`, `user`, `sys`, in `s`).
//! Values are written in the locale perf ran in: the decimal separator is
//! the one of the elapsed time (`0,39829 seconds time elapsed` in pt_BR,
//! where `1.385.284.504` is a count), else `.`.
//!
//! A table is one run of the command, made into series as
//! [`super::perf_stat`] says (with `-r N`, each value is perf's mean over
//! the runs). A file holding several tables (`--append`, or runs pasted one
//! after another) is one execution per table, as a folder of one file per
//! run is. Interval (`-I`) and per-CPU (`-A`, `--per-core`) tables are
//! refused with that reason.

use super::perf_stat::{runs, samples, short, started_on, Row};
use super::{utf8, About, Importer, Shape};
use crate::error::{Checker, ReadError};
use crate::format::SamplesFile;
use serde_json::{json, Map};

const HEADER: &str = "Performance counter stats for ";

pub struct PerfStatText;

impl Importer for PerfStatText {
    fn about(&self) -> About {
        About {
            id: "perf_stat_text",
            label: "perf stat output",
            tried: "perf stat's printed table (\"Performance counter stats for …\")",
            name: "perf stat (printed)",
            shape: Shape::Text,
            fixtures: &[
                "real/perf-text/dedup-perf_stat.txt",
                "real/perf-text/base_r_stats.txt",
                "real/perf-text/meas.log",
            ],
        }
    }

    fn marks(&self) -> &'static [&'static str] {
        &["Performance counter stats for", "seconds time elapsed", "task-clock", "context-switches", "page-faults", "cycles", "instructions"]
    }

    fn recognises_bytes(&self, bytes: &[u8]) -> bool {
        String::from_utf8_lossy(bytes)
            .lines()
            .any(|l| l.trim_start().starts_with(HEADER))
    }

    fn read_bytes(&self, cx: &Checker, bytes: &[u8]) -> Result<SamplesFile, ReadError> {
        read(cx, utf8(cx, bytes)?)
    }

    fn why_not(&self, _bytes: &[u8]) -> Option<String> {
        Some(format!("no line \"{HEADER}'…':\""))
    }
}

/// One table: its rows, the lines left out (line number, why) and what the
/// header says.
struct Table {
    rows: Vec<Row>,
    skipped: Vec<(usize, String)>,
    command: String,
    runs: Option<u64>,
}

fn read(cx: &Checker, text: &str) -> Result<SamplesFile, ReadError> {
    let decimal = decimal_separator(text);
    let lines: Vec<&str> = text.lines().collect();
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with(HEADER))
        .map(|(i, _)| i)
        .collect();
    if starts.is_empty() {
        return Err(cx.err(None, format!("no line \"{HEADER}'…':\"")));
    }
    let started = started_on(text);
    let mut tables = Vec::new();
    for (k, &s) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(lines.len());
        tables.push(table(cx, &lines, s, end, decimal)?);
    }
    let mut warnings = Vec::new();
    let mut files = Vec::new();
    let several = tables.len() > 1;
    for (k, t) in tables.into_iter().enumerate() {
        for (n, why) in &t.skipped {
            warnings.push(cx.warning(&format!("line {n}"), why));
        }
        let mut rows = t.rows;
        for r in &mut rows {
            r.figures.insert("command".into(), json!(t.command));
            if let Some(n) = t.runs {
                r.figures.insert("runs".into(), json!(n));
            }
        }
        let source = "perf stat (printed table)";
        let at = if several {
            format!("{} table {}", cx.file, k + 1)
        } else {
            cx.file.to_string()
        };
        let tcx = Checker::of_format(&at, "perf stat output");
        match samples(&tcx, rows, started.clone(), source) {
            Ok(f) => files.push((at, f)),
            Err(e) => warnings.push(e.to_string()),
        }
    }
    match files.len() {
        0 => Err(cx.err(
            None,
            format!(
                "no event perf counted{}",
                warnings
                    .first()
                    .map(|w| format!(" ({w})"))
                    .unwrap_or_default()
            ),
        )),
        1 if !several => {
            let (_, mut f) = files.remove(0);
            f.warnings.extend(warnings);
            Ok(f)
        }
        _ => Ok(runs(cx.file, files, warnings)),
    }
}

/// The table whose header is `lines[start]`, up to `end`.
fn table(
    cx: &Checker,
    lines: &[&str],
    start: usize,
    end: usize,
    decimal: char,
) -> Result<Table, ReadError> {
    // The line starts with the header once its indent is trimmed (found so);
    // what follows may be nothing at all.
    let rest = lines[start]
        .trim_start()
        .strip_prefix(HEADER)
        .unwrap_or("")
        .trim();
    // 'command' or 'system wide', then `(N runs)` with -r N.
    let command = rest
        .split('\'')
        .nth(1)
        .unwrap_or(rest.trim_end_matches(':'))
        .to_string();
    let runs = rest
        .rsplit_once('(')
        .and_then(|(_, r)| r.split_whitespace().next())
        .and_then(|n| n.parse::<u64>().ok());
    let mut t = Table {
        rows: Vec::new(),
        skipped: Vec::new(),
        command,
        runs,
    };
    for (i, raw) in lines.iter().enumerate().take(end).skip(start + 1) {
        let n = i + 1;
        let line = raw.trim();
        // Blank lines, `#` lines (a further metric of the event above, the
        // `-o` date) and perf's advice ("Some events weren't counted…").
        if line.is_empty() || line.starts_with('#') || !starts_like_a_value(line) {
            continue;
        }
        match row(line, decimal) {
            Ok(r) => t.rows.push(r),
            Err(why) if why.starts_with("refused: ") => {
                return Err(cx.err(Some(format!("line {n}")), &why["refused: ".len()..]))
            }
            Err(why) => t.skipped.push((n, format!("\"{}\" left out: {why}", short(line)))),
        }
    }
    Ok(t)
}

fn starts_like_a_value(line: &str) -> bool {
    line.starts_with(|c: char| c.is_ascii_digit())
        || line.starts_with("<not")
        || line.starts_with("CPU")
}

/// The decimal separator of the file's numbers: that of the elapsed time
/// (which perf always prints with decimals), else `.`.
fn decimal_separator(text: &str) -> char {
    let elapsed = text
        .lines()
        .find(|l| l.contains("seconds time elapsed"))
        .and_then(|l| l.split_whitespace().next());
    match elapsed {
        Some(v) if v.contains(',') && !v.contains('.') => ',',
        _ => '.',
    }
}

/// A number as perf printed it in a locale whose decimal separator is
/// `decimal` (the other of `.` and `,` separates thousands).
fn number(s: &str, decimal: char) -> Option<f64> {
    let thousands = if decimal == '.' { ',' } else { '.' };
    let plain: String = s
        .chars()
        .filter(|&c| c != thousands)
        .map(|c| if c == decimal { '.' } else { c })
        .collect();
    plain
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x >= 0.0)
}

/// `( +-  0.12% )` → 0.12, and the line without it.
fn variance(line: &str, decimal: char) -> (Option<f64>, String) {
    let Some(i) = line.find("( +-") else {
        return (None, line.to_string());
    };
    let Some(j) = line[i..].find(')') else {
        return (None, line.to_string());
    };
    let inner = line[i + 4..i + j].trim().trim_end_matches('%').trim();
    let rest = format!("{}{}", &line[..i], &line[i + j + 1..]);
    (number(inner, decimal), rest)
}

/// One event's line, or why not. A reason starting `refused: ` refuses the
/// file (interval or per-CPU output).
fn row(line: &str, decimal: char) -> Result<Row, String> {
    let mut figures = Map::new();
    let (var, line) = variance(line, decimal);
    if let Some(v) = var {
        figures.insert("variance_percent".into(), json!(v));
    }
    let line = line.trim_end();
    // A share `(66.67%)` at the end: perf multiplexed the event.
    let mut body = line;
    if let Some(open) = line.rfind('(') {
        let tail = line[open..].trim();
        if tail.ends_with("%)") && !line[..open].trim_end().ends_with('#') {
            if let Some(p) = number(tail[1..tail.len() - 2].trim(), decimal) {
                figures.insert("pcnt_running".into(), json!(p));
                body = line[..open].trim_end();
            }
        }
    }
    let (counts, metric) = match body.split_once('#') {
        Some((c, m)) => (c.trim(), Some(m.trim())),
        None => (body.trim(), None),
    };
    if let Some(m) = metric.filter(|m| !m.is_empty()) {
        figures.insert("metric".into(), json!(m));
    }
    if let Some(rest) = counts.strip_suffix("seconds time elapsed") {
        return time_row(rest, "time elapsed", decimal, figures);
    }
    for (suffix, name) in [("seconds user", "user"), ("seconds sys", "sys")] {
        if let Some(rest) = counts.strip_suffix(suffix) {
            return time_row(rest, name, decimal, figures);
        }
    }
    let (value_text, rest) = if counts.starts_with('<') {
        match counts.find('>') {
            Some(j) => (&counts[..=j], counts[j + 1..].trim()),
            None => return Err("a value \"<…\" not closed by \">\"".into()),
        }
    } else {
        match counts.split_once(char::is_whitespace) {
            Some((v, r)) => (v, r.trim()),
            None => return Err("a value without an event".into()),
        }
    };
    if value_text.starts_with("CPU") || value_text.starts_with("S0") {
        return Err(format!(
            "refused: \"{}\" before the value: per-CPU or per-core output (-A, --per-core, \
             --per-socket …), which is not supported; run perf stat without them",
            short(value_text)
        ));
    }
    let value = if value_text.starts_with('<') {
        None
    } else {
        Some(number(value_text, decimal).ok_or_else(|| {
            format!("\"{}\" is not a count ≥ 0", short(value_text))
        })?)
    };
    let tokens: Vec<&str> = rest.split_whitespace().collect();
    if value.is_some() && tokens.first().and_then(|t| number(t, decimal)).is_some() {
        return Err(
            "refused: a number before the value: interval (-I) output, which is not \
             supported; run perf stat without -I"
                .into(),
        );
    }
    let (unit, event) = match tokens.as_slice() {
        [] => return Err("no event name after the value".into()),
        [event] => ("", *event),
        // perf 4.x: `task-clock (msec)`.
        [event, u] if u.starts_with('(') && u.ends_with(')') => (&u[1..u.len() - 1], *event),
        [u, event] => (*u, *event),
        _ => return Err(format!("\"{}\": expected VALUE [UNIT] EVENT", short(rest))),
    };
    Ok(Row {
        value,
        value_text: value_text.to_string(),
        unit: unit.to_string(),
        event: event.to_string(),
        figures,
    })
}

/// `5.536177603 [+- 0.0123]` before `seconds time elapsed` (or `user`,
/// `sys`): a series in `s`, perf's `+-` kept as its figure.
fn time_row(
    rest: &str,
    name: &str,
    decimal: char,
    mut figures: Map<String, serde_json::Value>,
) -> Result<Row, String> {
    let mut parts = rest.split("+-");
    let v = parts.next().unwrap_or("").trim();
    let value = number(v, decimal).ok_or_else(|| format!("\"{}\" is not a time ≥ 0", short(v)))?;
    if let Some(e) = parts.next().and_then(|e| number(e.trim(), decimal)) {
        figures.insert("plus_minus".into(), json!(e));
    }
    Ok(Row {
        value: Some(value),
        value_text: v.to_string(),
        unit: "s".into(),
        event: name.into(),
        figures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_every_perf_version() {
        let r = row(
            "16,130.41 msec task-clock                       #    0.996 CPUs utilized",
            '.',
        )
        .unwrap();
        assert_eq!((r.value, r.unit.as_str(), r.event.as_str()), (Some(16130.41), "msec", "task-clock"));
        assert_eq!(r.figures["metric"], "0.996 CPUs utilized");
        let r = row("0.437559      task-clock (msec)         #    0.516 CPUs utilized", '.').unwrap();
        assert_eq!((r.value, r.unit.as_str(), r.event.as_str()), (Some(0.437559), "msec", "task-clock"));
        let r = row("<not counted>      LLC-loads                  (0.00%)", '.').unwrap();
        assert_eq!((r.value, r.event.as_str()), (None, "LLC-loads"));
        assert_eq!(r.figures["pcnt_running"], 0.0);
        let r = row("<not supported>      LLC-load-misses", '.').unwrap();
        assert_eq!(r.value, None);
        let r = row(
            "1.385.284.504      cycles                    #    3,487 GHz                      ( +-  0,41% )",
            ',',
        )
        .unwrap();
        assert_eq!(r.value, Some(1_385_284_504.0));
        assert_eq!(r.figures["variance_percent"], 0.41);
        let r = row("0,39829 +- 0,00160 seconds time elapsed  ( +-  0,40% )", ',').unwrap();
        assert_eq!((r.value, r.unit.as_str(), r.event.as_str()), (Some(0.39829), "s", "time elapsed"));
        assert_eq!(r.figures["plus_minus"], 0.0016);
        let r = row("1,666,805,699  \tcpu_core/cache-misses:u/   \t(96.40%)", '.').unwrap();
        assert_eq!((r.value, r.event.as_str()), (Some(1_666_805_699.0), "cpu_core/cache-misses:u/"));
        assert_eq!(r.figures["pcnt_running"], 96.4);
        assert!(row("1.001 123 cycles", '.').err().unwrap().starts_with("refused: "));
        assert!(row("CPU0 123 cycles", '.').err().unwrap().starts_with("refused: "));
        assert_eq!(number("0,63", ','), Some(0.63));
        assert_eq!(number("-1", '.'), None);
    }

    #[test]
    fn tables_runs_and_refusals() {
        let cx = Checker::of_format("t", "perf stat output");
        let one = " Performance counter stats for './a' (3 runs):\n\n   5.00 msec task-clock  #  1.0 CPUs utilized  ( +-  1.00% )\n   <not counted>  cycles\n\n   0.005 +- 0.001 seconds time elapsed  ( +- 20.00% )\n\nSome events weren't counted. Try disabling the NMI watchdog:\n\techo 0 > /proc/sys/kernel/nmi_watchdog\n";
        let f = read(&cx, one).unwrap();
        let names: Vec<_> = f.series.iter().map(|s| (s.name.as_str(), s.unit.as_str())).collect();
        assert_eq!(names, [("task-clock", "ms"), ("time elapsed", "s")]);
        assert_eq!(f.series[0].metadata["tool_statistics"]["runs"], 3);
        assert!(f.warnings.is_empty(), "{:?}", f.warnings);
        // Two tables pasted one after the other: two runs of each event.
        let two = format!("{one}{one}").replace("5.00 msec", "7.00 msec");
        let f = read(&cx, &two).unwrap();
        assert_eq!(f.series[0].executions, vec![vec![7.0], vec![7.0]]);
        // A line that is not an event's is named in a warning.
        let bad = one.replace("<not counted>  cycles", "12 cycles extra words here");
        let f = read(&cx, &bad).unwrap();
        assert_eq!(f.warnings.len(), 1, "{:?}", f.warnings);
        assert!(f.warnings[0].contains("line 4"), "{:?}", f.warnings);
        let e = read(&cx, " Performance counter stats for 'system wide':\n\n     1.000 1,234 cycles\n")
            .unwrap_err();
        assert!(e.message.contains("interval (-I)"), "{e}");
        let e = read(&cx, " Performance counter stats for './a':\n\n   <not supported> cycles\n").unwrap_err();
        assert!(e.message.contains("no event perf counted"), "{e}");
    }
}
