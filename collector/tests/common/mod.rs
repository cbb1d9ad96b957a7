//! `tickbook analyze`'s terminal tables checked against its own `--json`:
//! every cell the JSON has must have its section in the text, and the
//! numbers in the tables must equal the JSON's to the precision printed
//! (parsed back with their units). Shared by the collector's integration
//! tests, which run it on the files they collect.
#![allow(dead_code)]

use serde_json::Value;
use std::ffi::OsStr;
use std::process::Command;

pub fn tickbook() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tickbook"))
}

/// `tickbook analyze ARGS` and `tickbook analyze --json ARGS`: the text and
/// the parsed JSON. Panics unless both exit with `code`.
pub fn analyze_both<S: AsRef<OsStr>>(args: &[S], code: i32) -> (String, Value) {
    let run = |json: bool| {
        let mut cmd = tickbook();
        cmd.arg("analyze");
        if json {
            cmd.arg("--json");
        }
        let out = cmd.args(args).output().expect("run tickbook analyze");
        assert_eq!(
            out.status.code(),
            Some(code),
            "analyze (json: {json}): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8 output")
    };
    let text = run(false);
    let json: Value = serde_json::from_str(&run(true)).expect("--json parses");
    (text, json)
}

// ------------------------------------------------------------------ parsing

/// A number as printed, in base units (ns, bytes, a share as a fraction),
/// with half a unit in its last printed digit (the rounding it may carry).
#[derive(Debug, Clone, Copy)]
pub struct Num {
    pub value: f64,
    pub half_ulp: f64,
    /// Base units per printed unit (1e3 for µs): how a bare interval end
    /// after this estimate is read.
    pub scale: f64,
}

fn unit_scale(unit: &str) -> Option<f64> {
    Some(match unit {
        "ns" => 1.0,
        "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "min" => 60e9,
        "h" => 3600e9,
        "days" => 86400e9,
        "years" => 86400e9 * 365.25,
        "B" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1048576.0,
        _ => return None,
    })
}

/// Parse `12.35 ns`, `+4.20%`, `1.70×`, `-0.0106`, `1.234e-5`, `512 KiB`;
/// a bare number takes `default_scale`. `None` for `—` and text.
pub fn num_in(text: &str, default_scale: f64) -> Option<Num> {
    let t = text.trim().trim_end_matches('*').trim();
    let (t, suffix_scale) = if let Some(x) = t.strip_suffix('%') {
        (x, Some(0.01))
    } else if let Some(x) = t.strip_suffix('×') {
        (x, Some(1.0))
    } else {
        (t, None)
    };
    // The terminal's "no bound" (the analysis writes the largest double).
    if t == "∞" && suffix_scale.is_some() {
        return Some(Num {
            value: f64::MAX,
            half_ulp: 0.0,
            scale: 1.0,
        });
    }
    let mut parts = t.split(' ');
    let number = parts.next()?;
    let unit = parts.next();
    let value: f64 = number.parse().ok()?;
    let scale = match (suffix_scale, unit) {
        (Some(s), None) => s,
        (None, None) => default_scale,
        (None, Some(u)) => unit_scale(u).unwrap_or(1.0),
        (Some(_), Some(_)) => return None,
    };
    let (mantissa, exp) = match number.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (number, 0),
    };
    let decimals = mantissa.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
    let half_ulp = 0.5 * 10f64.powi(exp - decimals) * scale;
    Some(Num {
        value: value * scale,
        half_ulp,
        scale,
    })
}

pub fn num(text: &str) -> Option<Num> {
    num_in(text, 1.0)
}

/// `estimate [lo, hi]`; bare ends are in the estimate's unit.
pub fn ci(text: &str) -> Option<(Num, Num, Num)> {
    let (est, rest) = text.trim().split_once(" [")?;
    let (lo, hi) = rest
        .trim_end()
        .trim_end_matches(['*', ' '])
        .strip_suffix(']')?
        .split_once(", ")?;
    let e = num(est)?;
    Some((e, num_in(lo, e.scale)?, num_in(hi, e.scale)?))
}

/// `lo to hi`.
pub fn range(text: &str) -> Option<(Num, Num)> {
    let (a, b) = text.split_once(" to ")?;
    Some((num(a)?, num(b.trim_end_matches(" (Wilson)"))?))
}

/// `printed` is `expected` rounded to the digits printed.
#[track_caller]
pub fn agree(printed: Option<Num>, expected: f64, what: &str) {
    let Some(p) = printed else {
        panic!("{what}: nothing parseable printed for {expected}");
    };
    let tol = p.half_ulp * 1.000001 + expected.abs() * 1e-12;
    assert!(
        (p.value - expected).abs() <= tol,
        "{what}: printed {} (±{}), JSON {expected}",
        p.value,
        p.half_ulp
    );
}

#[track_caller]
pub fn agree_ci(printed: &str, json: &Value, scale: f64, what: &str) {
    let (e, lo, hi) = ci(printed).unwrap_or_else(|| panic!("{what}: not an interval: {printed:?}"));
    agree(
        Some(e),
        f(json, "estimate") * scale,
        &format!("{what} estimate"),
    );
    agree(Some(lo), f(json, "lo") * scale, &format!("{what} lo"));
    agree(Some(hi), f(json, "hi") * scale, &format!("{what} hi"));
}

#[track_caller]
pub fn f(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is not a number in {v}"))
}

#[track_caller]
pub fn arr<'a>(v: &'a Value, key: &str) -> &'a Vec<Value> {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} is not an array"))
}

/// The names of the files a `--compare --json` report compares, in order
/// (A, the baseline, first).
#[track_caller]
pub fn compared_names(json: &Value) -> Vec<&str> {
    arr(json, "files")
        .iter()
        .filter_map(|f| f["name"].as_str())
        .collect()
}

fn s<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or("")
}

/// Cells of a table line: the three-space indent off, split at runs of two
/// or more spaces.
pub fn cells(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut spaces = 0;
    for c in line.trim_start().chars() {
        if c == ' ' {
            spaces += 1;
            continue;
        }
        if spaces >= 2 && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push_str(&" ".repeat(spaces));
        }
        spaces = 0;
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[derive(Debug)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    #[track_caller]
    pub fn col(&self, name: &str) -> usize {
        self.header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name:?} in {:?}", self.header))
    }

    /// The row whose first cells are `key`.
    #[track_caller]
    pub fn row(&self, key: &[&str]) -> &Vec<String> {
        self.rows
            .iter()
            .find(|r| r.len() >= key.len() && key.iter().zip(r.iter()).all(|(k, c)| k == c))
            .unwrap_or_else(|| panic!("no row {key:?} in the table {:?}", self.header))
    }

    #[track_caller]
    pub fn get<'a>(&self, row: &'a [String], col: &str) -> &'a str {
        let i = self.col(col);
        row.get(i)
            .map(String::as_str)
            .unwrap_or_else(|| panic!("row {row:?} has no {col:?}"))
    }
}

/// The tables of `lines` whose heading starts with `head`, in order: the
/// heading, then rows up to a blank line or a line that is not a row.
pub fn tables(lines: &[&str], head: &[&str]) -> Vec<Table> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let h = cells(lines[i]);
        if lines[i].starts_with("   ")
            && h.len() >= head.len()
            && head.iter().zip(&h).all(|(a, b)| a == b)
        {
            let mut rows = Vec::new();
            i += 1;
            while i < lines.len() && lines[i].starts_with("   ") && cells(lines[i]).len() >= 2 {
                rows.push(cells(lines[i]));
                i += 1;
            }
            out.push(Table { header: h, rows });
        } else {
            i += 1;
        }
    }
    out
}

#[track_caller]
pub fn table(lines: &[&str], head: &[&str]) -> Table {
    tables(lines, head)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no table headed {head:?} in:\n{}", lines.join("\n")))
}

/// The table right after the line starting with `title` (after the indent).
#[track_caller]
pub fn table_after(lines: &[&str], title: &str) -> Table {
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with(title))
        .unwrap_or_else(|| panic!("no line {title:?} in:\n{}", lines.join("\n")));
    let head = cells(lines[at + 1]);
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    table(&lines[at + 1..], &head)
}

/// A file's cells: each title with its lines.
pub type Cells<'a> = Vec<(String, Vec<&'a str>)>;

/// The text of each file (`== FILE`), split into cells (`-- Title`).
pub fn files(text: &str) -> Vec<(String, Cells<'_>)> {
    let mut out: Vec<(String, Cells<'_>)> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("== ") {
            out.push((name.to_string(), Vec::new()));
        } else if let Some(title) = line.strip_prefix("-- ") {
            let title = title.split(" (").next().unwrap_or(title).to_string();
            if let Some(f) = out.last_mut() {
                f.1.push((title, Vec::new()));
            }
        } else if let Some((_, cells)) = out.last_mut().and_then(|f| f.1.last_mut()) {
            cells.push(line);
        }
    }
    out
}

// ------------------------------------------------------------ the checks

/// Keys of a file report that are not cells.
const NOT_CELLS: [&str; 7] = ["file", "ok", "error", "kind", "info", "warnings", "options"];

/// Each cell: the key in `--json`, the page's title, and its check.
type Check = fn(&[&str], &Value);
const CELLS: [(&str, &str, Check); 10] = [
    ("fitness", "Fitness", fitness),
    ("clocks", "Clocks", clocks),
    ("bernoulli", "Bernoulli timing", bernoulli),
    ("ops", "Operations", ops),
    ("copy", "Copy", copy),
    ("alloc", "Allocation and page placement", alloc),
    ("trace", "Perturbation", trace),
    ("bottleneck", "Bottlenecks", bottleneck),
    ("samples", "Samples", samples),
    ("commands", "Commands", commands),
];

/// Run `analyze` and `analyze --json` on `args` and check every cell of
/// every readable file (`check_text`); then make sure each cell's check can
/// fail: with every number in that cell's text changed, it must. Returns
/// the cells checked (for the caller to insist on the ones it collected).
#[track_caller]
pub fn terminal_agrees_with_json<S: AsRef<OsStr>>(args: &[S]) -> Vec<String> {
    let (text, json) = analyze_both(args, 0);
    let seen = check_text(&text, &json);
    for (k, (name, cells)) in files(&text).iter().enumerate() {
        for (title, _) in cells {
            let wrong = change_numbers(&text, k, title);
            // A cell with no number in it (a killed run's Fitness, every
            // signal not measured for want of a second sample) has nothing
            // to change.
            if wrong.trim_end() == text.trim_end() {
                continue;
            }
            let caught = fails(|| {
                check_text(&wrong, &json);
            });
            assert!(
                caught,
                "{name}: the check of {title} passes with every number in it changed"
            );
        }
    }
    seen
}

thread_local! {
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether `f` panics; its panic message is not printed (the checks are
/// expected to fail on wrong numbers), other threads' messages still are.
fn fails(f: impl FnOnce() + std::panic::UnwindSafe) -> bool {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(|q| q.get()) {
                default(info);
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let failed = std::panic::catch_unwind(f).is_err();
    QUIET.with(|q| q.set(false));
    failed
}

/// `terminal_agrees_with_json` on one collected file, which must show `cell`.
#[track_caller]
pub fn terminal_shows(path: &std::path::Path, cell: &str) {
    let t0 = std::time::Instant::now();
    let seen = terminal_agrees_with_json(&[path]);
    assert!(seen.iter().any(|s| s == cell), "{cell} not among {seen:?}");
    println!(
        "analyze (terminal and --json) agree on {cell}: checked in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}

/// An ops file's latency fit exported and applied back to it: the
/// calibrated table agrees with `ops.calibrated` in `--json`.
#[track_caller]
pub fn calibrated_terminal_agrees(path: &std::path::Path) {
    let fit = path.with_extension("fit.json");
    let out = tickbook()
        .arg("analyze")
        .arg(path)
        .arg("--export-fit")
        .arg(&fit)
        .output()
        .expect("run tickbook");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let args = [
        OsStr::new("--calibrate-with"),
        fit.as_os_str(),
        path.as_os_str(),
    ];
    let seen = terminal_agrees_with_json(&args);
    let _ = std::fs::remove_file(&fit);
    assert!(seen.iter().any(|c| c == "ops"), "{seen:?}");
}

/// `text` with every measured value in cell `title` of file `file` changed
/// (each digit one up, 9 to 0); table headings and row keys (a line's first word)
/// left alone, so that the check finds every table and row and fails on the
/// numbers alone.
pub fn change_numbers(text: &str, file: usize, title: &str) -> String {
    let mut out = Vec::new();
    let (mut f, mut t): (Option<usize>, String) = (None, String::new());
    let mut prev_cells = 0;
    for line in text.lines() {
        let heading = cells(line).len() >= 2 && prev_cells < 2;
        prev_cells = cells(line).len();
        if line.starts_with("== ") {
            f = Some(f.map_or(0, |x| x + 1));
            t.clear();
        } else if let Some(x) = line.strip_prefix("-- ") {
            t = x.split(" (").next().unwrap_or(x).to_string();
        } else if f == Some(file) && t == title && !heading {
            out.push(change_line(line));
            continue;
        }
        out.push(line.to_string());
    }
    out.join("\n")
}

/// A line with each measured value's digits one up (9 to 0), its first word
/// left alone.
fn change_line(line: &str) -> String {
    let lead = line.len() - line.trim_start().len();
    let words: Vec<String> = line
        .split(' ')
        .enumerate()
        .map(|(i, w)| {
            let core = w.trim_matches(|c: char| "[]+-,%×*()".contains(c));
            // Measured values: decimals, shares and factors (not
            // the integers of labels such as "variant 1").
            let value = core.contains('.') || w.contains('%') || w.contains('×');
            if i != lead && value && !w.contains(['(', ')']) && core.parse::<f64>().is_ok() {
                w.chars()
                    .map(|c| {
                        c.to_digit(10)
                            .map_or(c, |d| char::from(b'0' + ((d + 1) % 10) as u8))
                    })
                    .collect()
            } else {
                w.to_string()
            }
        })
        .collect();
    words.join(" ")
}

/// `text` with every measured value changed, table headings and row keys
/// left alone (see `change_numbers`).
pub fn change_all_numbers(text: &str) -> String {
    let mut prev_cells = 0;
    text.lines()
        .map(|line| {
            let heading = cells(line).len() >= 2 && prev_cells < 2;
            prev_cells = cells(line).len();
            if heading {
                line.to_string()
            } else {
                change_line(line)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Check `text` (the terminal) against `json` (`--json`, an array of
/// reports): every cell of every readable file.
#[track_caller]
pub fn check_text(text: &str, json: &Value) -> Vec<String> {
    let reports: Vec<&Value> = json
        .as_array()
        .expect("an array of reports")
        .iter()
        .filter(|r| r["ok"] == true)
        .collect();
    let printed = files(text);
    assert_eq!(
        printed.len(),
        reports.len(),
        "one `== FILE` block per readable file:\n{text}"
    );
    let mut seen = Vec::new();
    for (r, (name, cells)) in reports.iter().zip(&printed) {
        assert_eq!(name, s(r, "file"));
        let mut checked = 0;
        for (key, v) in r.as_object().expect("a report object") {
            if NOT_CELLS.contains(&key.as_str()) || v.is_null() {
                continue;
            }
            let (_, title, check) = CELLS
                .iter()
                .find(|(k, _, _)| k == key)
                .unwrap_or_else(|| panic!("the report has a cell {key:?} that this test does not know: add its terminal check"));
            let (_, lines) = cells
                .iter()
                .find(|(t, _)| t == title)
                .unwrap_or_else(|| panic!("{name}: the JSON has {key:?} but the terminal has no `-- {title}` cell:\n{text}"));
            check(lines, v);
            checked += 1;
            seen.push(key.clone());
        }
        // No cell in the terminal that the JSON does not have.
        assert_eq!(
            cells.len(),
            checked,
            "{name}: {:?}",
            cells.iter().map(|c| &c.0).collect::<Vec<_>>()
        );
    }
    seen
}

fn fitness(lines: &[&str], c: &Value) {
    let t = table(lines, &["signal", "level", "figure", "unit"]);
    for x in arr(c, "findings") {
        let r = t.row(&[s(x, "signal")]);
        assert_eq!(t.get(r, "level"), s(x, "level"), "{r:?}");
        match x["figure"].as_f64() {
            Some(v) => {
                agree(num(t.get(r, "figure")), v, s(x, "signal"));
                assert_eq!(t.get(r, "unit"), s(x, "unit"), "{r:?}");
            }
            // The reason in full: its numbers (samples, seconds) are checked too.
            None => assert_eq!(
                t.get(r, "figure"),
                format!(
                    "not measured: {}",
                    x["reason"].as_str().unwrap_or("no reason recorded")
                ),
                "{r:?}"
            ),
        }
    }
    // The configuration below the table, line for line (values such as
    // ASLR's 2 and the CPU a change names are numbers of the cell too).
    let shown: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
    for x in arr(c, "configuration") {
        let name = s(x, "name");
        let want = match x["value"].is_null() {
            false => format!("{name}: {}", s(x, "meaning")),
            true => format!(
                "{name}: not readable: {}",
                x["not_readable"].as_str().unwrap_or("no reason recorded")
            ),
        };
        assert!(shown.contains(&want.as_str()), "{want:?} not in {shown:?}");
        if let (false, Some(ch)) = (x["value"].is_null(), x["change"].as_str()) {
            let want = format!("change: {ch}");
            assert!(shown.contains(&want.as_str()), "{want:?} not in {shown:?}");
        }
    }
}

fn clocks(lines: &[&str], c: &Value) {
    let t = table(lines, &["clock", "nominal", "tick"]);
    for row in arr(c, "clocks") {
        let r = t.row(&[s(row, "name")]);
        if row["available"] != true {
            assert!(r[1].starts_with("unavailable"), "{r:?}");
            continue;
        }
        let what = s(row, "name");
        if let Some(x) = row["observed_tick_ns"].as_f64() {
            agree(num(t.get(r, "tick")), x, &format!("{what} tick"));
        }
        if let Some(x) = row["read_cost"]["median"].as_f64() {
            agree(
                num(t.get(r, "median read")),
                x,
                &format!("{what} median read"),
            );
        }
        if let Some(x) = row["read_cost_p99_ns"].as_f64() {
            agree(num(t.get(r, "p99 read")), x, &format!("{what} p99"));
        }
        let back = t.get(r, "backwards");
        assert_eq!(
            back.split(',').next().unwrap_or(""),
            row["violations"].to_string(),
            "{what} backwards"
        );
    }
    let scans = table(lines, &["clock", "scan reads"]);
    for row in arr(c, "clocks").iter().filter(|r| r["available"] == true) {
        let r = scans.row(&[s(row, "name")]);
        assert_eq!(scans.get(r, "scan reads"), row["scan_reads"].to_string());
        // The most frequent step is shown first, with its count.
        let steps = arr(row, "step_histogram");
        if let Some(top) = steps.iter().max_by_key(|b| b["count"].as_u64()) {
            let first = scans
                .get(r, "steps (count)")
                .split(" (")
                .next()
                .unwrap_or("");
            let count = top["count"].as_u64().unwrap_or(0);
            // Ties in count: any of the tied steps may come first.
            assert!(
                steps
                    .iter()
                    .filter(|b| b["count"].as_u64() == Some(count))
                    .any(|b| {
                        let p = num(first);
                        p.is_some_and(|p| {
                            (p.value - f(b, "step_ns")).abs() <= p.half_ulp * 1.000001
                        })
                    }),
                "{}: first step {first:?}",
                s(row, "name")
            );
        }
    }
    if let Some(cross) = c["cross_cpu"].as_array().filter(|x| !x.is_empty()) {
        let t = table(lines, &["clock", "CPUs", "moves"]);
        assert_eq!(t.rows.len(), cross.len());
        for (x, r) in cross.iter().zip(&t.rows) {
            assert_eq!(t.get(r, "moves"), x["migrations"].to_string());
            assert_eq!(t.get(r, "backwards"), x["backwards"].to_string());
            if let Some(v) = x["min_step_ns"].as_f64() {
                agree(num(t.get(r, "smallest step")), v, "cross-CPU smallest step");
            }
        }
    }
    let freq = table(lines, &["source", "MHz"]);
    for src in arr(&c["frequency"], "sources") {
        let r = freq.row(&[s(src, "name")]);
        match src["hz"].as_f64() {
            Some(hz) => agree(num(&r[1]), hz / 1e6, "frequency MHz"),
            None => assert!(r[1].starts_with("unreadable"), "{r:?}"),
        }
    }
}

fn bernoulli(lines: &[&str], b: &Value) {
    let t = table(lines, &["event", "target", "n", "m"]);
    let events = arr(b, "events");
    assert_eq!(t.rows.len(), events.len());
    for e in events {
        let r = t.row(&[s(e, "name")]);
        let what = s(e, "name");
        assert_eq!(t.get(r, "n"), e["trials"]["n"].to_string(), "{what} n");
        assert_eq!(t.get(r, "m"), e["trials"]["m"].to_string(), "{what} m");
        match e["disturbed_share"].as_f64() {
            Some(x) => agree(
                num(t.get(r, "disturbed")),
                x,
                &format!("{what} disturbed share"),
            ),
            None => assert!(
                t.get(r, "disturbed") == "—"
                    || t.get(r, "disturbed") == format!("{} set aside", e["trials"]["disturbed_n"]),
                "{what} set aside"
            ),
        }
        agree(
            num(t.get(r, "uncorrected")),
            f(e, "uncorrected_ns"),
            &format!("{what} uncorrected"),
        );
        agree(
            num(t.get(r, "target")),
            f(e, "target_ns"),
            &format!("{what} target"),
        );
        agree(
            num(t.get(r, "estimate Te")),
            f(e, "estimate_ns"),
            &format!("{what} estimate"),
        );
        let interval = t
            .header
            .iter()
            .find(|h| h.ends_with("interval"))
            .expect("interval column");
        if e["interval_ns"].is_null() {
            assert_eq!(t.get(r, interval), "NO INTERVAL", "{what} no interval");
            let why = s(e, "no_interval");
            assert!(
                lines.iter().any(|l| l.trim() == format!("{what}: {why}")),
                "{what}: the reason is printed"
            );
        } else {
            let (lo, hi) = range(t.get(r, interval)).expect("an interval");
            agree(Some(lo), f(&e["interval_ns"], "lo"), &format!("{what} lo"));
            agree(Some(hi), f(&e["interval_ns"], "hi"), &format!("{what} hi"));
        }
        if let Some(x) = e["reference_ns"].as_f64() {
            agree(num(t.get(r, "reference")), x, &format!("{what} reference"));
        }
        if let Some(x) = e["reference_alone_ns"].as_f64() {
            agree(num(t.get(r, "alone")), x, &format!("{what} timed alone"));
        }
        if let Some(x) = e["relative_error"].as_f64() {
            agree(
                num(t.get(r, "rel. error")),
                x,
                &format!("{what} relative error"),
            );
        }
    }
    let plan = arr(b, "planner");
    if !plan.is_empty() {
        let t = table_after(lines, "Planner");
        for p in plan {
            let eps = f(p, "epsilon");
            let row = t
                .rows
                .iter()
                .find(|r| {
                    num(&r[0]).is_some_and(|n| (n.value - f(p, "event_ns")).abs() <= n.half_ulp)
                })
                .expect("a planner row per event");
            let eps_text = format!("{}%", (eps * 100.0).round());
            assert_eq!(
                t.get(row, &format!("trials, ε {eps_text}")),
                p["trials"].to_string()
            );
            agree(
                num(t.get(row, &format!("wall time, ε {eps_text}"))),
                f(p, "wall_time_ns"),
                "planner wall time",
            );
        }
    }
}

fn ops(lines: &[&str], o: &Value) {
    let t = table(lines, &["operation", "form", "group"]);
    let all = arr(o, "ops");
    assert_eq!(t.rows.len(), all.len());
    for op in all {
        let r = t.row(&[s(op, "name"), s(op, "form")]);
        let what = format!("{} {}", s(op, "name"), s(op, "form"));
        if op["available"] != true {
            assert!(r[3].starts_with("unavailable"), "{what}: {r:?}");
            continue;
        }
        if !op["portable_ns"].is_null() {
            agree_ci(t.get(r, "ns/op (portable)"), &op["portable_ns"], 1.0, &what);
        }
        if !op["counter_ns"].is_null() {
            agree_ci(t.get(r, "ns/op (counter)"), &op["counter_ns"], 1.0, &what);
            agree(
                num(t.get(r, "counter ticks/op")),
                f(&op["counter_ticks"], "estimate"),
                &what,
            );
        }
        if !op["core_cycles"].is_null() {
            agree_ci(t.get(r, "core cycles/op"), &op["core_cycles"], 1.0, &what);
        }
    }
    if !o["published"].is_null() {
        published(lines, &o["published"]);
    }
    if !o["calibrated"].is_null() {
        let c = &o["calibrated"];
        let t = table(lines, &["operation", "form", "portable", "calibrated"]);
        let calibrated = arr(c, "ops");
        assert_eq!(t.rows.len(), calibrated.len());
        for (x, r) in calibrated.iter().zip(&t.rows) {
            assert_eq!((r[0].as_str(), r[1].as_str()), (s(x, "name"), s(x, "form")));
            agree(num(t.get(r, "portable")), f(x, "portable_ns"), "portable");
            agree(
                num(t.get(r, "calibrated")),
                f(x, "calibrated_ns"),
                "calibrated",
            );
            let interval = t
                .header
                .iter()
                .find(|h| h.ends_with("interval"))
                .expect("interval");
            let (lo, hi) = range(t.get(r, interval)).expect("an interval");
            agree(
                Some(lo),
                x["interval_ns"][0].as_f64().unwrap_or(f64::NAN),
                "calibrated lo",
            );
            agree(
                Some(hi),
                x["interval_ns"][1].as_f64().unwrap_or(f64::NAN),
                "calibrated hi",
            );
        }
    }
    let forms = arr(o, "forms");
    let summaries = tables(lines, &["n", "min", "Q1", "median"]);
    let with_summary: Vec<&Value> = forms.iter().filter(|f| !f["summary"].is_null()).collect();
    assert_eq!(summaries.len(), with_summary.len());
    for (form, t) in with_summary.iter().zip(&summaries) {
        let sm = &form["summary"];
        let r = &t.rows[0];
        assert_eq!(t.get(r, "n"), sm["n"].to_string());
        for k in ["min", "median", "mean", "max"] {
            agree(
                num(t.get(r, k)),
                f(sm, k),
                &format!("{} summary {k}", s(form, "form")),
            );
        }
    }
    // One outliers line per form, counting its outliers.
    let outlier_lines: Vec<&&str> = lines
        .iter()
        .filter(|l| l.trim_start().starts_with("Tukey outliers"))
        .collect();
    assert_eq!(outlier_lines.len(), forms.len());
    for (form, line) in forms.iter().zip(outlier_lines) {
        let n = arr(form, "outliers").len();
        if n == 0 {
            assert!(line.ends_with("none"), "{line}");
        } else {
            assert!(line.contains(&format!("({n})")), "{line}: {n} outliers");
        }
    }
    let clustered: Vec<&Value> = forms
        .iter()
        .filter(|f| !f["clustering"].is_null())
        .collect();
    check_clusterings(
        lines,
        &clustered
            .iter()
            .map(|f| &f["clustering"])
            .collect::<Vec<_>>(),
    );
    let calibrated: Vec<&Value> = forms
        .iter()
        .filter(|f| !f["calibration"].is_null())
        .collect();
    let fits = tables(lines, &["n", "Pearson r", "slope β"]);
    assert_eq!(fits.len(), calibrated.len());
    for (form, t) in calibrated.iter().zip(&fits) {
        let fit = &form["calibration"]["fit"];
        let r = &t.rows[0];
        assert_eq!(t.get(r, "n"), fit["n"].to_string());
        agree(num(t.get(r, "Pearson r")), f(fit, "r"), "fit r");
        agree(num(t.get(r, "slope β")), f(fit, "slope"), "fit slope");
        agree(
            num(t.get(r, "intercept α")),
            f(fit, "intercept"),
            "fit intercept",
        );
    }
}

/// A published range as printed: `3` or `7 to 19`, a trailing `*` ignored.
fn published_range(text: &str, low: f64, high: f64, what: &str) {
    let text = text.trim().trim_end_matches('*').trim();
    match range(text) {
        Some((l, h)) => {
            agree(Some(l), low, &format!("{what} low"));
            agree(Some(h), high, &format!("{what} high"));
        }
        None => {
            assert_eq!(low, high, "{what}: one value printed for a range");
            agree(num(text), low, what);
        }
    }
}

/// The published comparison: the match line, the score per core, the
/// discriminating operations and every row's figures and verdict.
fn published(lines: &[&str], p: &Value) {
    let summary = s(p, "summary");
    assert!(
        lines.iter().any(|l| l.trim() == summary),
        "no line {summary:?}"
    );
    let scores = table(lines, &["core", "latencies agree", "of latencies"]);
    assert_eq!(scores.rows.len(), arr(p, "scores").len());
    for (x, r) in arr(p, "scores").iter().zip(&scores.rows) {
        assert_eq!(r[0], s(x, "name"));
        assert_eq!(
            scores.get(r, "latencies agree"),
            x["latency"]["agree"].to_string()
        );
        assert_eq!(
            scores.get(r, "of latencies"),
            x["latency"]["comparable"].to_string()
        );
        assert_eq!(
            scores.get(r, "throughputs agree"),
            x["throughput"]["agree"].to_string()
        );
        assert_eq!(
            scores.get(r, "of throughputs"),
            x["throughput"]["comparable"].to_string()
        );
        if let Some(share) = x["share"].as_f64() {
            agree(num(scores.get(r, "share")), share, "share");
        }
    }
    let disc = arr(p, "discriminating");
    if !disc.is_empty() {
        let t = table(lines, &["discriminating op", "form", "measured"]);
        assert_eq!(t.rows.len(), disc.len());
        for d in disc {
            let r = t.row(&[s(d, "name"), s(d, "form")]);
            if let Some(m) = d["measured"].as_f64() {
                agree(num(t.get(r, "measured")), m, "discriminating measured");
            }
            for c in arr(d, "cores") {
                let cell = t.get(r, s(c, "name"));
                published_range(cell, f(c, "low"), f(c, "high"), s(d, "name"));
                assert_eq!(
                    cell.trim_end().ends_with('*'),
                    c["agrees"] == true,
                    "{cell}"
                );
            }
        }
    }
    let rows = arr(p, "rows");
    if rows.is_empty() {
        return;
    }
    let t = table(
        lines,
        &["operation", "form", "measured", "published", "verdict"],
    );
    assert_eq!(t.rows.len(), rows.len());
    for (x, r) in rows.iter().zip(&t.rows) {
        let what = format!("{} {}", s(x, "name"), s(x, "form"));
        assert_eq!((r[0].as_str(), r[1].as_str()), (s(x, "name"), s(x, "form")));
        match x["measured"].as_f64() {
            Some(m) => agree(num(t.get(r, "measured")), m, &what),
            None => assert_eq!(t.get(r, "measured"), "—"),
        }
        match (x["low"].as_f64(), x["high"].as_f64()) {
            (Some(l), Some(h)) => published_range(t.get(r, "published"), l, h, &what),
            _ => assert_eq!(t.get(r, "published"), "—"),
        }
        let verdict = t.get(r, "verdict");
        match s(x, "verdict") {
            "not_comparable" => assert_eq!(
                verdict,
                format!("not comparable: {}", s(x, "reason")),
                "{what}"
            ),
            v => assert_eq!(verdict, v.replace('_', " "), "{what}"),
        }
    }
}

/// Cut tables and the members at the median cut, one per clustering.
fn check_clusterings(lines: &[&str], clusterings: &[&Value]) {
    let cuts = tables(lines, &["granularity set to", "granularity", "clusters"]);
    let members = tables(lines, &["cluster", "size", "cheapest"]);
    assert_eq!(cuts.len(), clusterings.len());
    assert_eq!(members.len(), clusterings.len());
    for ((c, t), m) in clusterings.iter().zip(&cuts).zip(&members) {
        let all = arr(c, "cuts");
        assert_eq!(t.rows.len(), all.len());
        for cut in all {
            let r = t.row(&[s(cut, "statistic")]);
            agree(num(&r[1]), f(cut, "granularity_ns"), "granularity");
            assert_eq!(r[2], cut["clusters"].to_string());
        }
        let median = all
            .iter()
            .find(|x| s(x, "statistic") == "median")
            .unwrap_or(&all[0]);
        let clusters = arr(median, "members");
        assert_eq!(m.rows.len(), clusters.len());
        for (k, (cl, r)) in clusters.iter().zip(&m.rows).enumerate() {
            assert_eq!(r[0], (k + 1).to_string());
            assert_eq!(m.get(r, "size"), arr(cl, "names").len().to_string());
            agree(num(m.get(r, "mean")), f(cl, "mean_ns"), "cluster mean");
            agree(num(m.get(r, "cheapest")), f(cl, "min_ns"), "cluster min");
        }
    }
}

fn copy(lines: &[&str], c: &Value) {
    let lengths = arr(c, "lengths");
    let maps = tables(lines, &["implementation", "variant", "align 1"]);
    assert_eq!(maps.len(), lengths.len(), "one table per nominal length");
    for cell in arr(c, "cells") {
        let len = cell["nominal_length"].as_u64().unwrap_or(0);
        let k = lengths
            .iter()
            .position(|l| l.as_u64() == Some(len))
            .expect("the cell's length is listed");
        let t = &maps[k];
        let v = cell["variant"].to_string();
        let r = t
            .rows
            .iter()
            .find(|r| r[0] == s(cell, "implementation") && r[1].split(' ').next() == Some(&v))
            .unwrap_or_else(|| panic!("no row for {cell}"));
        let shown = t.get(r, &format!("align {}", cell["alignment"]));
        if cell["available"] != true || cell["ns_per_copy"].is_null() {
            assert_eq!(shown, "n/a", "{cell}");
            continue;
        }
        agree(
            num(shown),
            f(&cell["ns_per_copy"], "estimate"),
            "copy median",
        );
        assert_eq!(
            shown.ends_with('*'),
            cell["flagged"] == true,
            "flag of {cell}"
        );
    }
    let flagged = arr(c, "flagged");
    if flagged.is_empty() {
        assert!(lines
            .iter()
            .any(|l| l.trim_start().starts_with("Flagged cases: none")));
        return;
    }
    let t = table(lines, &["implementation", "length", "variant", "alignment"]);
    assert_eq!(t.rows.len(), flagged.len());
    let cells = arr(c, "cells");
    for (i, r) in flagged.iter().zip(&t.rows) {
        let cell = &cells[i.as_u64().unwrap_or(0) as usize];
        assert_eq!(r[0], s(cell, "implementation"));
        agree(
            num(t.get(r, "ratio to baseline")),
            f(cell, "ratio_to_baseline"),
            "copy ratio",
        );
        agree_ci(
            t.get(r, "median per copy"),
            &cell["ns_per_copy"],
            1.0,
            "flagged copy",
        );
    }
}

fn alloc(lines: &[&str], a: &Value) {
    let strategies: Vec<&str> = arr(a, "strategies")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let mut head = vec!["threshold"];
    head.extend(&strategies);
    let rankings = tables(lines, &head);
    assert_eq!(rankings.len(), 2, "the mean and the impact-factor rankings");
    for (t, key) in rankings.iter().zip(["mean_ranking", "impact_ranking"]) {
        let rk = &a[key];
        for (ti, th) in arr(rk, "thresholds").iter().enumerate() {
            let r = &t.rows[ti];
            agree(
                num(&r[0]),
                th.as_f64().unwrap_or(f64::NAN),
                "ranking threshold",
            );
            for (si, st) in strategies.iter().enumerate() {
                let v = rk["first_percent"][ti][si].as_f64().unwrap_or(f64::NAN);
                agree(num(t.get(r, st)), v / 100.0, &format!("{key} {st}"));
            }
        }
    }
    let t = table(lines, &["strategy", "time ratio", "groups"]);
    for r in arr(a, "time_ratios") {
        let row = t.row(&[s(r, "strategy")]);
        if let Some(g) = r["geometric_mean"].as_f64() {
            agree(num(&row[1]), g, "time ratio");
        }
        assert_eq!(row[2], r["groups"].to_string());
    }
    let configs = arr(a, "configs");
    let t = table(
        lines,
        &["workload", "size", "strategy", "allocator", "executions"],
    );
    assert_eq!(t.rows.len(), configs.len());
    for (c, r) in configs.iter().zip(&t.rows) {
        assert_eq!(
            (r[0].as_str(), r[2].as_str(), r[3].as_str()),
            (s(c, "workload"), s(c, "strategy"), s(c, "allocator"))
        );
        if c["available"] != true {
            assert!(r[4].starts_with("not run"), "{r:?}");
            continue;
        }
        assert!(
            t.get(r, "executions")
                .starts_with(&format!("{} ok", c["executions_ok"])),
            "{r:?}"
        );
        let st = &c["stats"];
        let mean = if st["mean_hierarchical"].is_null() {
            &st["mean_bootstrap"]
        } else {
            &st["mean_hierarchical"]
        };
        if !mean.is_null() && s(c, "unit") == "ns" {
            agree_ci(t.get(r, "mean"), mean, 1.0, "alloc mean");
        }
        if !c["ratio_to_baseline"].is_null() {
            agree_ci(
                t.get(r, "× default_4k"),
                &c["ratio_to_baseline"],
                1.0,
                "alloc ratio",
            );
        }
    }
    let t = table(
        lines,
        &["workload", "size", "strategy", "allocator", "CV within"],
    );
    let available: Vec<&Value> = configs.iter().filter(|c| c["available"] == true).collect();
    assert_eq!(t.rows.len(), available.len());
    for (c, r) in available.iter().zip(&t.rows) {
        let st = &c["stats"];
        if !st["cv_within"].is_null() {
            agree_ci(t.get(r, "CV within"), &st["cv_within"], 1.0, "CV within");
        }
        if let Some(h) = c["huge_page_share"].as_f64() {
            agree(num(t.get(r, "huge pages")), h, "huge page share");
        }
    }
    let t_key = table(
        lines,
        &["workload", "size", "strategy", "allocator", "CV within"],
    );
    let items: Vec<(Vec<String>, &Value)> = available
        .iter()
        .zip(&t_key.rows)
        .map(|(c, r)| (r[..4].to_vec(), &c["stats"]))
        .collect();
    impact(
        lines,
        &["workload", "size", "strategy", "allocator"],
        &items,
    );
}

/// The impact factor table (Samples and Allocation): one row per item with
/// an impact factor, named by its first `key.len()` cells; the factor, its
/// p-value, the shuffles, the null band and the paper's statistic with its
/// null mean as `--json` has them.
#[track_caller]
fn impact(lines: &[&str], key: &[&str], items: &[(Vec<String>, &Value)]) {
    let items: Vec<_> = items
        .iter()
        .filter(|(_, st)| !st["impact_factor"].is_null())
        .collect();
    let mut head = key.to_vec();
    head.push("impact factor");
    let found = tables(lines, &head);
    if items.is_empty() {
        assert!(found.is_empty(), "an impact factor table with no factor");
        return;
    }
    let t = table(lines, &head);
    assert_eq!(t.rows.len(), items.len());
    for ((names, st), r) in items.iter().zip(&t.rows) {
        assert_eq!(&r[..names.len()], &names[..], "{r:?}");
        let what = names.join(" ");
        agree_ci(
            t.get(r, "impact factor"),
            &st["impact_factor"],
            1.0,
            &format!("{what} impact factor"),
        );
        let n = &st["impact_null"];
        agree(num(t.get(r, "p")), f(n, "p_value"), &format!("{what} p"));
        assert_eq!(t.get(r, "shuffles"), n["permutations"].to_string());
        let (lo, hi) = range(t.get(r, "noise alone"))
            .unwrap_or_else(|| panic!("{what}: noise alone is not a range: {r:?}"));
        agree(
            Some(lo),
            n["band"][0].as_f64().unwrap_or(f64::NAN),
            &format!("{what} band lo"),
        );
        agree(
            Some(hi),
            n["band"][1].as_f64().unwrap_or(f64::NAN),
            &format!("{what} band hi"),
        );
        let paper = t.get(r, "paper's statistic");
        match st["impact_factor_paper"].is_null() {
            true => assert_eq!(paper, "—"),
            false => agree_ci(
                paper,
                &st["impact_factor_paper"],
                1.0,
                &format!("{what} paper's"),
            ),
        }
        let null = t.get(r, "paper's, no execution effect");
        match n["paper_mean"].as_f64() {
            Some(m) => agree(num(null), m, &format!("{what} paper's null mean")),
            None => assert_eq!(null, "—"),
        }
    }
}

fn trace(lines: &[&str], tr: &Value) {
    let workloads = arr(tr, "workloads");
    let levels = tables(lines, &["level", "runs", "mean wall time"]);
    let runs = tables(lines, &["level", "run", "records"]);
    let inner = tables(lines, &["pair", "baseline ρ"]);
    let outer = tables(lines, &["metric", "baseline outer ρ"]);
    assert_eq!(levels.len(), workloads.len());
    assert_eq!(runs.len(), workloads.len());
    let (mut ii, mut oi) = (0, 0);
    for (k, w) in workloads.iter().enumerate() {
        let t = &levels[k];
        let lv = arr(w, "levels");
        assert_eq!(t.rows.len(), lv.len());
        for (l, r) in lv.iter().zip(&t.rows) {
            assert_eq!(r[0], l["level"].to_string());
            assert_eq!(t.get(r, "runs"), l["runs"].to_string());
            if let Some(x) = l["wall_ns_mean"].as_f64() {
                agree(num(t.get(r, "mean wall time")), x, "level wall time");
            }
            if let Some(x) = l["overhead"].as_f64() {
                agree(num(t.get(r, "overhead")), x, "level overhead");
            }
            assert_eq!(
                t.get(r, "flagged pairs"),
                format!("{}/{}", l["flagged_inner"], arr(l, "inner").len())
            );
        }
        let instrumented: Vec<&Value> = lv.iter().filter(|l| l["level"] != 0).collect();
        let check_matrix = |t: &Table, names: Vec<String>, kind: &str, base: &str, spread: &str| {
            assert_eq!(t.rows.len(), names.len());
            for (i, (name, r)) in names.iter().zip(&t.rows).enumerate() {
                assert_eq!(&r[0], name);
                if let Some(x) = w["baseline"][base][i].as_f64() {
                    agree(num(&r[1]), x, &format!("{name} baseline"));
                }
                if let Some(x) = w["baseline"][spread][i].as_f64() {
                    agree(num(&r[2]), x, &format!("{name} spread"));
                }
                for l in &instrumented {
                    let c = &l[kind][i];
                    let shown = t.get(r, &format!("level {} ρ", l["level"]));
                    match c["correlation"].as_f64() {
                        Some(x) => agree(num(shown), x, &format!("{name} level {}", l["level"])),
                        None => assert_eq!(shown, "—"),
                    }
                    assert_eq!(shown.ends_with('*'), c["flagged"] == true, "{name} flag");
                }
            }
        };
        if !arr(w, "pairs").is_empty() {
            let names = arr(w, "pairs")
                .iter()
                .map(|p| s(p, "label").to_string())
                .collect();
            check_matrix(&inner[ii], names, "inner", "inner_mean", "inner_spread");
            ii += 1;
        }
        if !w["reference"].is_null() && !arr(w, "metrics").is_empty() {
            let names = arr(w, "metrics")
                .iter()
                .filter_map(|m| m.as_str().map(String::from))
                .collect();
            check_matrix(&outer[oi], names, "outer", "outer_mean", "outer_spread");
            oi += 1;
        }
        let t = &runs[k];
        let rs = arr(w, "runs");
        assert_eq!(t.rows.len(), rs.len());
        for (x, r) in rs.iter().zip(&t.rows) {
            assert_eq!(
                (r[0].as_str(), r[1].as_str()),
                (
                    x["level"].to_string().as_str(),
                    x["repetition"].to_string().as_str()
                )
            );
            assert_eq!(t.get(r, "records"), x["records"].to_string());
            agree(num(t.get(r, "wall time")), f(x, "wall_ns"), "run wall time");
            match x["dtw_distance"].as_f64() {
                Some(d) => agree(num(t.get(r, "DTW distance")), d, "DTW distance"),
                None => assert_eq!(t.get(r, "DTW distance"), "—"),
            }
        }
    }
    assert_eq!(ii, inner.len());
    assert_eq!(oi, outer.len());
}

fn bottleneck(lines: &[&str], b: &Value) {
    let cases = arr(b, "cases");
    let t = table(lines, &["kernel", "working set", "fits in"]);
    assert_eq!(t.rows.len(), cases.len());
    let ov = t.header.last().cloned().unwrap_or_default();
    for (c, r) in cases.iter().zip(&t.rows) {
        assert_eq!(r[0], s(c, "kernel"));
        assert_eq!(t.get(r, "passes"), c["passes"].to_string());
        if !c["measured_ns"].is_null() {
            agree_ci(t.get(r, "measured"), &c["measured_ns"], 1.0, "measured");
        }
        if let Some(p) = c["predicted_ns"].as_f64() {
            agree(num(t.get(r, "predicted")), p, "predicted");
        }
        let last = r.last().map(String::as_str).unwrap_or("");
        match (c["timable"] == true, c["overhead"].is_null()) {
            (true, false) => agree_ci(t.get(r, &ov), &c["overhead"], 1.0, "overhead"),
            (false, _) => assert!(last.starts_with("not timable"), "{r:?}"),
            (true, true) => assert!(last.starts_with("no prediction"), "{r:?}"),
        }
    }
    let crossings: Vec<(&str, &Value)> = arr(b, "kernels")
        .iter()
        .flat_map(|k| arr(k, "crossings").iter().map(move |x| (s(k, "name"), x)))
        .collect();
    let t = table(lines, &["kernel", "boundary", "last inside"]);
    assert_eq!(t.rows.len(), crossings.len());
    for ((k, x), r) in crossings.iter().zip(&t.rows) {
        assert_eq!(&r[0], k);
        agree(num(t.get(r, "jump")), f(x, "jump"), "crossing jump");
        agree(
            num(t.get(r, "overhead after")),
            f(x, "overhead_after"),
            "overhead after",
        );
        agree(
            num(t.get(r, "first beyond")),
            f(x, "to_bytes"),
            "first beyond",
        );
    }
    let costs = arr(b, "costs");
    let t = table(lines, &["operation", "form", "ns per op"]);
    assert_eq!(t.rows.len(), costs.len());
    for (c, r) in costs.iter().zip(&t.rows) {
        assert_eq!((r[0].as_str(), r[1].as_str()), (s(c, "name"), s(c, "form")));
        if !c["ns"].is_null() {
            agree_ci(t.get(r, "ns per op"), &c["ns"], 1.0, "cost");
        }
    }
    if let Some(x) = b["explained"]["explained_share"].as_f64() {
        let line = lines
            .iter()
            .find(|l| l.contains("time explained by the L1 predictions"))
            .expect("the explained line");
        let after = line
            .split("time explained by the L1 predictions ")
            .nth(1)
            .unwrap_or("");
        agree(
            num(after.split(';').next().unwrap_or("")),
            x,
            "explained share",
        );
    }
}

/// The perf events' table of a file that counted some, and a line for
/// each event not counted with the file's reason.
fn commands_counters(lines: &[&str], c: &Value, list: &[Value]) {
    const COLUMNS: [(&str, &str); 3] = [
        ("task-clock", "task_clock_mean_ns"),
        ("instructions", "instructions_mean"),
        ("cycles", "cycles_mean"),
    ];
    let counted = list
        .iter()
        .any(|x| COLUMNS.iter().any(|(_, k)| x[*k].is_number()));
    if !c["counters"].is_null() && counted {
        let t = table(lines, &["command", "task-clock", "instructions", "cycles"]);
        assert_eq!(t.rows.len(), list.len());
        for (x, r) in list.iter().zip(&t.rows) {
            for (col, key) in COLUMNS {
                match x[key].as_f64() {
                    Some(v) => agree(num(t.get(r, col)), v, &format!("{} {key}", s(x, "name"))),
                    None => assert_eq!(t.get(r, col), "—"),
                }
            }
        }
    }
    for (event, why) in c["counters"]["unavailable"]
        .as_object()
        .into_iter()
        .flatten()
    {
        let line = format!("{event} not counted: {}", why.as_str().unwrap_or(""));
        assert!(
            lines.iter().any(|l| l.trim() == line),
            "no line {line:?} in:\n{}",
            lines.join("\n")
        );
    }
}

fn commands(lines: &[&str], c: &Value) {
    let t = table(lines, &["command", "runs", "failed", "mean"]);
    let list = arr(c, "commands");
    assert_eq!(t.rows.len(), list.len());
    for (x, r) in list.iter().zip(&t.rows) {
        let what = s(x, "name");
        assert_eq!(r[0], what);
        assert_eq!(t.get(r, "runs"), x["runs"].to_string());
        assert_eq!(t.get(r, "failed"), x["failed_runs"].to_string());
        for (col, key) in [
            ("mean", "mean_ns"),
            ("± σ", "sd_ns"),
            ("median", "median_ns"),
            ("min", "min_ns"),
            ("max", "max_ns"),
            ("user", "user_mean_ns"),
            ("system", "sys_mean_ns"),
        ] {
            agree(num(t.get(r, col)), f(x, key), &format!("{what} {key}"));
        }
        if let Some(d) = x["drift"].as_object() {
            let (e, lo, hi) = ci(t.get(r, "drift over run")).expect("drift interval");
            agree(Some(e), d["over_run"].as_f64().unwrap(), "drift");
            agree(Some(lo), d["over_run_ci"][0].as_f64().unwrap(), "drift lo");
            agree(Some(hi), d["over_run_ci"][1].as_f64().unwrap(), "drift hi");
        }
    }
    commands_counters(lines, c, list);
    let comparisons = arr(c, "comparisons");
    if comparisons.is_empty() {
        return;
    }
    let t = table(lines, &["command", "pairs", "paired ratio"]);
    assert_eq!(t.rows.len(), comparisons.len());
    for (x, r) in comparisons.iter().zip(&t.rows) {
        let name = s(&list[x["command"].as_u64().unwrap() as usize], "name");
        assert_eq!(r[0], name);
        assert_eq!(t.get(r, "pairs"), x["paired"]["rounds"].to_string());
        for (col, v) in [
            ("paired ratio", &x["paired"]["ratio"]),
            ("unpaired ratio", &x["unpaired"]["ratio"]),
        ] {
            match v.is_null() {
                true => assert_eq!(t.get(r, col), "—"),
                false => agree_ci(t.get(r, col), v, 1.0, col),
            }
        }
        for (col, v) in [
            ("signed-rank p", &x["paired"]["test"]),
            ("U test p", &x["unpaired"]["test"]),
        ] {
            match v.is_null() {
                true => assert_eq!(t.get(r, col), "—"),
                false => agree(num(t.get(r, col)), f(v, "p_value"), col),
            }
        }
    }
    // `NAME CPU time (user + system), paired: R [LO, HI], signed-rank p P, …`.
    let cpu: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("CPU time (user + system), paired:"))
        .collect();
    assert_eq!(cpu.len(), comparisons.len());
    for (x, line) in comparisons.iter().zip(cpu) {
        let q = &x["paired_cpu"];
        let rest = line.split_once("paired: ").unwrap().1;
        let (ratio, rest) = rest.split_once(", signed-rank p ").unwrap();
        match q["ratio"].is_null() {
            true => assert_eq!(ratio, "—"),
            false => agree_ci(ratio, &q["ratio"], 1.0, "CPU ratio"),
        }
        let p = rest.split(", ").next().unwrap();
        match q["test"].is_null() {
            true => assert_eq!(p, "—"),
            false => agree(num(p), f(&q["test"], "p_value"), "CPU p"),
        }
    }
    // hyperfine's lines: `N.NNN ± N.NNN times faster than NAME`.
    let speeds: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("times faster than"))
        .collect();
    assert_eq!(speeds.len(), comparisons.len());
    for (x, line) in comparisons.iter().zip(speeds) {
        let mut words = line.split_whitespace();
        agree(
            num(words.next().unwrap()),
            f(x, "relative_speed"),
            "relative speed",
        );
        if let Some(e) = x["relative_speed_error"].as_f64() {
            assert_eq!(words.next(), Some("±"));
            agree(num(words.next().unwrap()), e, "relative speed error");
        }
    }
}

fn samples(lines: &[&str], sm: &Value) {
    let series = arr(sm, "series");
    let value_scale = |x: &Value| x["unit_ns"].as_f64().unwrap_or(1.0);
    let t = table(lines, &["series", "executions", "n", "min"]);
    assert_eq!(t.rows.len(), series.len());
    for (x, r) in series.iter().zip(&t.rows) {
        let what = s(x, "name");
        assert_eq!(r[0], what);
        assert_eq!(t.get(r, "executions"), x["executions"].to_string());
        assert_eq!(t.get(r, "n"), x["summary"]["n"].to_string());
        for (col, key) in [
            ("min", "min"),
            ("median", "median"),
            ("mean", "mean"),
            ("max", "max"),
        ] {
            agree(
                num(t.get(r, col)),
                f(&x["summary"], key) * value_scale(x),
                &format!("{what} {key}"),
            );
        }
        if let Some(cv) = x["summary"]["cv"].as_f64() {
            agree(num(t.get(r, "CV")), cv, &format!("{what} CV"));
        }
    }
    let t = table(lines, &["series", "execution", "n", "mean"]);
    let per: Vec<(&Value, &Value)> = series
        .iter()
        .flat_map(|x| arr(x, "per_execution").iter().map(move |e| (x, e)))
        .collect();
    assert_eq!(t.rows.len(), per.len());
    for ((x, e), r) in per.iter().zip(&t.rows) {
        assert_eq!(r[0], s(x, "name"));
        assert_eq!(t.get(r, "n"), e["n"].to_string());
        agree(
            num(t.get(r, "mean")),
            f(e, "mean") * value_scale(x),
            "execution mean",
        );
    }
    let outliers: usize = series.iter().map(|x| arr(x, "outliers").len()).sum();
    if outliers > 0 {
        let t = table(lines, &["series", "execution", "index", "value"]);
        assert_eq!(t.rows.len(), outliers);
        let all: Vec<(&Value, &Value)> = series
            .iter()
            .flat_map(|x| arr(x, "outliers").iter().map(move |o| (x, o)))
            .collect();
        for ((x, o), r) in all.iter().zip(&t.rows) {
            agree(
                num(t.get(r, "value")),
                f(o, "value") * value_scale(x),
                "outlier",
            );
        }
    }
    let with: Vec<&Value> = series
        .iter()
        .filter(|x| !x["execution_stats"].is_null())
        .collect();
    if !with.is_empty() {
        let t = table(lines, &["series", "executions", "T₁² (within)"]);
        assert_eq!(t.rows.len(), with.len());
        for (x, r) in with.iter().zip(&t.rows) {
            let e = &x["execution_stats"];
            assert_eq!(r[0], s(x, "name"));
            if !e["mean_hierarchical"].is_null() {
                agree_ci(
                    t.get(r, "mean, hierarchical bootstrap"),
                    &e["mean_hierarchical"],
                    value_scale(x),
                    "hierarchical mean",
                );
            }
            if let Some(t1) = e["random_effects"]["t1_sq"].as_f64() {
                let shown = t.get(r, "T₁² (within)");
                agree(num(shown.split(' ').next().unwrap_or("")), t1, "T1²");
            }
        }
        let planned: Vec<(&Value, &Value)> = with
            .iter()
            .flat_map(|x| {
                arr(&x["execution_stats"], "planning")
                    .iter()
                    .map(move |p| (*x, p))
            })
            .collect();
        if !planned.is_empty() {
            let t = table(lines, &["series", "execution cost"]);
            assert_eq!(t.rows.len(), planned.len());
            for ((x, p), r) in planned.iter().zip(&t.rows) {
                assert_eq!(r[0], s(x, "name"));
                let n = |v: &Value| {
                    v.as_u64()
                        .map(|v| v.to_string())
                        .unwrap_or_else(|| "—".into())
                };
                assert_eq!(
                    t.get(r, "measurements / execution"),
                    n(&p["measurements_per_execution"])
                );
                assert_eq!(
                    t.get(r, "executions for ±1 %"),
                    n(&p["executions_for_1pct"])
                );
            }
        }
    }
    // What the file records beside the times: one line per series with
    // metadata, naming each of its keys.
    let with_meta: Vec<&Value> = series.iter().filter(|x| !x["metadata"].is_null()).collect();
    let meta_lines: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("   metadata of "))
        .collect();
    assert_eq!(
        meta_lines.len(),
        with_meta.len(),
        "a metadata line per series with metadata"
    );
    for (x, line) in with_meta.iter().zip(&meta_lines) {
        let head = format!("   metadata of {}: ", s(x, "name"));
        assert!(line.starts_with(&head), "{line} for {head}");
        if let Some(o) = x["metadata"].as_object() {
            for k in o.keys() {
                assert!(line.contains(k.as_str()), "{k} not in {line}");
            }
        }
    }
    let items: Vec<(Vec<String>, &Value)> = series
        .iter()
        .map(|x| (vec![s(x, "name").to_string()], &x["execution_stats"]))
        .collect();
    impact(lines, &["series"], &items);
    match sm["clustering"].is_null() {
        true => assert!(tables(lines, &["granularity set to"]).is_empty()),
        false => check_clusterings(lines, &[&sm["clustering"]["clustering"]]),
    }
}

// ------------------------------------------------------------ comparison

/// `analyze --compare ARGS` against `analyze --compare --json ARGS`: every
/// file listed, every suite's table with each item's estimates, ratios and
/// verdicts, and the pooled table.
#[track_caller]
pub fn comparison_agrees_with_json<S: AsRef<OsStr>>(args: &[S]) -> Value {
    let mut all: Vec<&OsStr> = vec![OsStr::new("--compare")];
    all.extend(args.iter().map(AsRef::as_ref));
    let (text, json) = analyze_both(&all, 0);
    check_comparison(&text, &json);
    let wrong = change_all_numbers(&text);
    let caught = fails(|| check_comparison(&wrong, &json));
    assert!(
        caught,
        "the comparison check passes with every number changed"
    );
    json
}

#[track_caller]
fn check_comparison(text: &str, json: &Value) {
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.iter().any(|l| l.starts_with("-- Comparison")),
        "{text}"
    );
    let t = table(&lines, &["file", "host", "started", "suites"]);
    let files = arr(json, "files");
    assert_eq!(t.rows.len(), files.len(), "{text}");
    for (i, (fj, r)) in files.iter().zip(&t.rows).enumerate() {
        assert_eq!(r[0], char::from(b'A' + i as u8).to_string());
        assert_eq!(r[1], s(fj, "name"));
    }
    for suite in arr(json, "suites") {
        let t = table_after(
            &lines,
            &format!("{}: {}", s(suite, "suite"), s(suite, "statistic")),
        );
        let items = arr(suite, "items");
        assert_eq!(t.rows.len(), items.len());
        for (it, r) in items.iter().zip(&t.rows) {
            assert_eq!(r[0], s(it, "key"));
            // Values in the item's unit, shown scaled (times and bytes).
            let scale = it["unit_ns"]
                .as_f64()
                .or(it["unit_bytes"].as_f64())
                .unwrap_or(1.0);
            for (k, v) in arr(it, "values").iter().enumerate() {
                let shown = &r[1 + if k == 0 { 0 } else { 1 + 4 * (k - 1) }];
                if v.is_null() {
                    assert_eq!(shown, "—");
                } else {
                    agree_ci(shown, v, scale, &format!("{} in file {k}", s(it, "key")));
                }
            }
            let quantity = s(it, "quantity");
            for (k, p) in arr(it, "against_baseline").iter().enumerate() {
                let at = 3 + 4 * k;
                if !p["ratio"].is_null() {
                    agree_ci(&r[at], &p["ratio"], 1.0, "ratio");
                }
                match p["test"]["p_value"].as_f64() {
                    Some(pv) => agree(num(&r[at + 1]), pv, "p"),
                    None => assert_eq!(r[at + 1], "—"),
                }
                let verdict = &r[at + 2];
                let (low, high) = match quantity {
                    "time" => ("faster", "slower"),
                    "memory" => ("smaller", "larger"),
                    _ => ("less", "more"),
                };
                let word = if p["lower"] == p["file"] { low } else { high };
                match s(p, "verdict") {
                    "same" => assert_eq!(verdict, "same"),
                    "missing" => assert!(verdict.starts_with("only in "), "{verdict}"),
                    "no_estimate" => assert_eq!(verdict, "no estimate"),
                    "unclear" => assert!(verdict.starts_with("unclear"), "{verdict}"),
                    "within_threshold" => assert!(
                        verdict.starts_with("within threshold: ") && verdict.contains(word),
                        "{verdict}"
                    ),
                    _ => {
                        let d = f(p, "relative_difference");
                        if let Some(by) = verdict.strip_suffix(&format!(" {word}")) {
                            // `B 32.0× faster`: the factor 1 + d.
                            let x = by.rsplit(' ').next().unwrap_or("");
                            agree(num(x), 1.0 + d, "factor");
                        } else {
                            assert!(verdict.contains(&format!(" {word} by ")), "{verdict}");
                            let by = verdict.rsplit(" by ").next().unwrap_or("");
                            agree(num(by), d, "relative difference");
                        }
                    }
                }
            }
        }
    }
    if json["pooling"] == true && !arr(json, "pooled").is_empty() {
        let t = table(&lines, &["suite", "item", "host", "files pooled"]);
        let pooled = arr(json, "pooled");
        assert_eq!(t.rows.len(), pooled.len());
        for (p, r) in pooled.iter().zip(&t.rows) {
            assert_eq!(r[1], s(p, "key"));
            assert_eq!(t.get(r, "executions"), p["stats"]["executions"].to_string());
            let scale = p["unit_ns"].as_f64().unwrap_or(1.0);
            if let Some(m) = p["stats"]["random_effects"]["mean"].as_f64() {
                let shown = t.get(r, "mean [CI]");
                agree(
                    num(shown.split(" [").next().unwrap_or("")),
                    m * scale,
                    "pooled mean",
                );
            }
        }
    }
}
