//! Go's benchmark results: the text `go test -bench` prints (also what
//! `go test -bench -json`'s events carry, [`super::go_test_json`]).
//!
//! The text follows Go's benchmark format: configuration lines `key: value`
//! (`goos`, `goarch`, `pkg`, `cpu`) and result lines `BenchmarkName-P N
//! VALUE UNIT [VALUE UNIT…]`, where `-P` is GOMAXPROCS (absent when 1) and N
//! the iterations the values are averaged over. Every other line (`PASS`,
//! `ok …`, logs) is skipped. `-count N` prints N result lines per benchmark,
//! all from the one test process: one execution whose measurements are the
//! rows. Each unit is its own series: a time per operation (`ns/op`) is the
//! benchmark's own name in that time unit (`ns`); anything else (`B/op` and
//! `allocs/op` of `-benchmem`, `MB/s` of `b.SetBytes`, `b.ReportMetric`'s
//! units) is `NAME [UNIT]` in that unit, never converted. Go prints no
//! statistics of its own: the values are what it printed.

use super::{metadata, samples_file, utf8, About, Importer, Shape};
use crate::error::{Checker, ReadError};
use crate::format::{Alternatives, SamplesFile, Series};
use serde_json::{json, Map, Value};

/// A time-per-operation unit Go or `b.ReportMetric` writes, as the samples
/// unit of the time it stands for.
fn time_unit(go_unit: &str) -> Option<&'static str> {
    match go_unit {
        "ns/op" => Some("ns"),
        "us/op" | "µs/op" | "μs/op" => Some("us"),
        "ms/op" => Some("ms"),
        "s/op" | "sec/op" => Some("s"),
        _ => None,
    }
}

/// One result line: name, iterations and (value, unit) pairs; `None` when
/// the line is no result line (a name alone, a log line, `--- FAIL`).
type Row<'a> = (&'a str, u64, Vec<(f64, &'a str)>);

/// `Err` (the reason) when a line with a name and an iteration count has
/// no well-formed value/unit pairs.
pub(crate) fn result_line(line: &str) -> Option<Result<Row<'_>, String>> {
    if !line.starts_with("Benchmark") {
        return None;
    }
    let mut fields = line.split_whitespace();
    let name = fields.next()?;
    let iterations: u64 = fields.next()?.parse().ok()?;
    let rest: Vec<&str> = fields.collect();
    if rest.is_empty() || rest.len() % 2 != 0 {
        return Some(Err(format!(
            "expected VALUE UNIT pairs after the iteration count, found {} field(s)",
            rest.len()
        )));
    }
    let mut pairs: Vec<(f64, &str)> = Vec::with_capacity(rest.len() / 2);
    for p in rest.chunks(2) {
        // Each row holds one value per unit (a unit twice would leave a
        // series with more values than rows).
        if pairs.iter().any(|(_, u)| *u == p[1]) {
            return Some(Err(format!("the unit \"{}\" twice in one result line", p[1])));
        }
        match p[0].parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 => pairs.push((x, p[1])),
            _ => {
                return Some(Err(format!(
                    "\"{}\" ({}) is not a finite number ≥ 0",
                    p[0], p[1]
                )))
            }
        }
    }
    Some(Ok((name, iterations, pairs)))
}

pub struct GoBench;

impl Importer for GoBench {
    fn about(&self) -> About {
        About {
            id: "go_bench",
            label: "Go test -bench text",
            tried: "go test -bench (lines \"BenchmarkName N VALUE UNIT…\")",
            name: "go test -bench",
            shape: Shape::Text,
            fixtures: &["gobench/go-bench.txt"],
        }
    }

    /// The text holds a Go benchmark result line.
    fn marks(&self) -> &'static [&'static str] {
        &["Benchmark", "ns/op", "goos:", "goarch:", "pkg:", "B/op", "allocs/op"]
    }

    fn recognises_bytes(&self, bytes: &[u8]) -> bool {
        let text = String::from_utf8_lossy(bytes);
        text.lines()
            .any(|l| matches!(result_line(l.trim_end()), Some(Ok(_))))
    }

    fn read_bytes(&self, cx: &Checker, bytes: &[u8]) -> Result<SamplesFile, ReadError> {
        let text = utf8(cx, bytes)?;
        let mut parsed = Parsed::default();
        parsed.add_text(cx, text, None, &|n| format!("line {n}"))?;
        parsed.into_samples(cx, "go test -bench (text)")
    }

    fn why_not(&self, _bytes: &[u8]) -> Option<String> {
        Some("no result line \"BenchmarkName N VALUE UNIT…\"".into())
    }
}

/// One benchmark as printed (`name` with its `-P` suffix) in one package.
struct Bench {
    pkg: String,
    full: String,
    base: String,
    procs: Option<u64>,
    config: Map<String, Value>,
    iterations: Vec<u64>,
    /// Go's unit → values, in the order units first appear.
    metrics: Vec<(String, Vec<f64>)>,
}

/// What the text of one or more packages holds.
#[derive(Default)]
pub(crate) struct Parsed {
    benches: Vec<Bench>,
    config: Map<String, Value>,
}

impl Parsed {
    /// Read one package's text. `pkg` is the package the text belongs to
    /// (the `-json` event's), or the last `pkg:` line's. `at` names a line.
    /// Whether no result line was read.
    pub(crate) fn is_empty(&self) -> bool {
        self.benches.is_empty()
    }

    pub(crate) fn add_text(
        &mut self,
        cx: &Checker,
        text: &str,
        pkg: Option<&str>,
        at: &dyn Fn(usize) -> String,
    ) -> Result<(), ReadError> {
        let mut config = Map::new();
        if let Some(p) = pkg {
            config.insert("pkg".into(), json!(p));
        }
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim_end();
            if let Some(row) = result_line(line) {
                let (name, iterations, pairs) = row.map_err(|why| {
                    let short: String = line.chars().take(80).collect();
                    let more = if short.len() < line.len() { "…" } else { "" };
                    cx.err(Some(at(i + 1)), format!("\"{short}{more}\": {why}"))
                })?;
                self.add_row(&config, name, iterations, pairs);
            } else if let Some((k, v)) = config_line(line) {
                // A configuration applies to the result lines after it
                // until changed (benchstat's semantics): results of one
                // benchmark under two configurations are two series.
                match v {
                    Some(v) => {
                        config.insert(k.into(), json!(v));
                        self.config.insert(k.into(), json!(v));
                    }
                    None => {
                        config.remove(k);
                    }
                }
            }
        }
        Ok(())
    }

    fn add_row(
        &mut self,
        config: &Map<String, Value>,
        name: &str,
        iterations: u64,
        pairs: Vec<(f64, &str)>,
    ) {
        let pkg = config
            .get("pkg")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let (base, procs): (String, Option<u64>) = match name.rsplit_once('-') {
            Some((b, p)) if !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()) => {
                (b.to_string(), p.parse().ok())
            }
            _ => (name.to_string(), None),
        };
        let idx = match self
            .benches
            .iter()
            .position(|b| b.pkg == pkg && b.full == name && &b.config == config)
        {
            Some(i) => i,
            None => {
                self.benches.push(Bench {
                    pkg,
                    full: name.to_string(),
                    base,
                    procs,
                    config: config.clone(),
                    iterations: Vec::new(),
                    metrics: Vec::new(),
                });
                self.benches.len() - 1
            }
        };
        let b = &mut self.benches[idx];
        b.iterations.push(iterations);
        for (x, unit) in pairs {
            match b.metrics.iter_mut().find(|(u, _)| u == unit) {
                Some((_, xs)) => xs.push(x),
                None => b.metrics.push((unit.to_string(), vec![x])),
            }
        }
    }

    pub(crate) fn into_samples(self, cx: &Checker, source: &str) -> Result<SamplesFile, ReadError> {
        let benches = &self.benches;
        // The configuration keys (other than the package, named apart)
        // whose value is not the same for every benchmark of the file: they
        // tell one benchmark's configurations apart, so they are part of
        // every name, as benchstat makes them columns.
        let mut keys: Vec<&String> = Vec::new();
        for b in benches {
            for k in b.config.keys() {
                if k != "pkg" && !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
        keys.retain(|k| {
            let first = benches[0].config.get(k.as_str());
            benches.iter().any(|b| b.config.get(k.as_str()) != first)
        });
        let label = |b: &Bench| -> String {
            let parts: Vec<String> = keys
                .iter()
                .filter_map(|k| {
                    b.config
                        .get(k.as_str())
                        .and_then(Value::as_str)
                        .map(|v| format!("{k}={v}"))
                })
                .collect();
            if parts.is_empty() {
                String::new()
            } else {
                format!(" ({})", parts.join(", "))
            }
        };
        let mut series = Vec::new();
        for b in benches {
            // The name without GOMAXPROCS (kept in metadata), so that runs on
            // machines with other core counts match; with it when the file
            // has the benchmark at several GOMAXPROCS (`-cpu 1,2`) under one
            // configuration; with the package when two packages have the
            // benchmark.
            let config = label(b);
            let several_procs = benches.iter().any(|o| {
                o.pkg == b.pkg && o.base == b.base && o.procs != b.procs && label(o) == config
            });
            let several_pkgs = benches.iter().any(|o| o.pkg != b.pkg && o.base == b.base);
            let mut name = if several_procs {
                b.full.clone()
            } else {
                b.base.clone()
            };
            if several_pkgs && !b.pkg.is_empty() {
                name = format!("{}.{name}", b.pkg);
            }
            // One benchmark under several configurations: benchstat's columns.
            let group = name.clone();
            name.push_str(&config);
            let mut extra = Map::new();
            extra.insert("go_name".into(), json!(b.full));
            if let Some(p) = b.procs {
                extra.insert("gomaxprocs".into(), json!(p));
            }
            extra.insert("iterations".into(), json!(b.iterations));
            extra.insert("go_config".into(), Value::Object(b.config.clone()));
            for (go_unit, values) in &b.metrics {
                let mut extra = extra.clone();
                extra.insert("go_unit".into(), json!(go_unit));
                if values.len() != b.iterations.len() {
                    extra.insert(
                        "rows_without_this_unit".into(),
                        json!(b.iterations.len() - values.len()),
                    );
                }
                let (series_name, unit) = match time_unit(go_unit) {
                    Some(u) => (name.clone(), u.to_string()),
                    None => (format!("{name} [{go_unit}]"), go_unit.clone()),
                };
                series.push(Series {
                    name: series_name,
                    unit,
                    executions: vec![values.clone()],
                    metadata: metadata("go test -bench", None, extra),
                    group: Some(group.clone()),
                });
            }
        }
        let get = |k: &str| self.config.get(k).and_then(Value::as_str);
        let host = (get("cpu").is_some() || get("goos").is_some()).then(|| {
            json!({
                "cpu_model_name": get("cpu"),
                "platform": match (get("goos"), get("goarch")) {
                    (Some(os), Some(arch)) => Some(format!("{os}/{arch}")),
                    (os, arch) => os.or(arch).map(str::to_string),
                },
            })
        });
        samples_file(
            cx,
            source.into(),
            Some(
                "Imported from go test -bench: all rows of a benchmark come from one test \
                 process (one execution); each row (one per -count) is a measurement, the \
                 mean over its iterations."
                    .into(),
            ),
            host,
            series,
        )
        .map(|mut f| {
            f.alternatives = Alternatives::Groups;
            f
        })
    }
}

/// A configuration line as Go's benchmark format has it (golang.org/x/perf
/// `benchfmt`): `key: value`, the key starting with a lower-case letter and
/// holding no space and no upper-case letter, the value after one or more
/// spaces or tabs; `key:` alone (no value) removes the key. `Some((key,
/// None))` for a removal.
fn config_line(line: &str) -> Option<(&str, Option<&str>)> {
    let (key, val) = line.split_once(':')?;
    let mut chars = key.chars();
    let first = chars.next()?;
    if !first.is_lowercase() || key.chars().any(|c| c.is_whitespace() || c.is_uppercase()) {
        return None;
    }
    if val.is_empty() {
        return Some((key, None));
    }
    let value = val.trim_start_matches([' ', '\t']);
    if value.len() == val.len() {
        // `key:value` with no space is not a configuration line (a URL, a
        // log line `file.go:12:`).
        return None;
    }
    let value = value.trim_end();
    Some((key, (!value.is_empty()).then_some(value)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{checker, go_test_json::GoTestJson};

    fn read_text(file: &str, bytes: &[u8]) -> Result<SamplesFile, ReadError> {
        GoBench.read_bytes(&checker(&GoBench, file), bytes)
    }

    fn read_json_stream(file: &str, bytes: &[u8]) -> Result<SamplesFile, ReadError> {
        GoTestJson.read_bytes(&checker(&GoTestJson, file), bytes)
    }

    #[test]
    fn result_lines() {
        let (name, n, pairs) = result_line(
            "BenchmarkFib/n=10-2   \t 3902574\t       307.2 ns/op\t       0 B/op\t       0 allocs/op",
        )
        .unwrap()
        .unwrap();
        assert_eq!((name, n), ("BenchmarkFib/n=10-2", 3902574));
        assert_eq!(
            pairs,
            vec![(307.2, "ns/op"), (0.0, "B/op"), (0.0, "allocs/op")]
        );
        // A name printed before the benchmark runs, a log line, a failure.
        assert!(result_line("BenchmarkFib-2   \t").is_none());
        assert!(result_line("--- FAIL: BenchmarkFib-2").is_none());
        assert!(result_line("BenchmarkX 10 1.5").unwrap().is_err());
        assert!(result_line("BenchmarkX 10 NaN ns/op").unwrap().is_err());
        assert!(config_line("goos: linux").is_some());
        assert!(config_line("PASS").is_none());
        assert!(config_line("ok  \tpkg\t1.2s").is_none());
        assert_eq!(config_line("note: hw on"), Some(("note", Some("hw on"))));
        assert_eq!(config_line("key2:"), Some(("key2", None)));
        // No space after the colon, a space or capital in the key: not
        // configuration (benchfmt's rule).
        assert!(config_line("http://example.com").is_none());
        assert!(config_line("a_test.go:12: log").is_none());
        assert!(config_line("my Key: v").is_none());
        assert!(config_line("goOS: linux").is_none());
    }

    #[test]
    fn names_units_and_rows() {
        let text = "goos: linux\npkg: a/b\nBenchmarkX-2 10 5 ns/op 8 B/op\nBenchmarkX-2 10 7 ns/op 8 B/op\n\
                    BenchmarkY 3 2.5 ms/op 1 MB/s\nPASS\n";
        let s = read_text("t", text.as_bytes()).unwrap();
        let names: Vec<_> = s
            .series
            .iter()
            .map(|x| (x.name.as_str(), x.unit.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("BenchmarkX", "ns"),
                ("BenchmarkX [B/op]", "B/op"),
                ("BenchmarkY", "ms"),
                ("BenchmarkY [MB/s]", "MB/s")
            ]
        );
        assert_eq!(s.series[0].executions, vec![vec![5.0, 7.0]]);
        assert_eq!(s.series[0].metadata["gomaxprocs"], 2);
        // The same benchmark at two GOMAXPROCS keeps them apart.
        let s = read_text("t", b"BenchmarkX 1 5 ns/op\nBenchmarkX-2 1 6 ns/op\n").unwrap();
        assert_eq!(s.series[0].name, "BenchmarkX");
        assert_eq!(s.series[1].name, "BenchmarkX-2");
        // -json: a result line split over two output events, two packages.
        let stream = [
            r#"{"Action":"output","Package":"a","Output":"BenchmarkX-2   \t"}"#,
            r#"{"Action":"output","Package":"b","Output":"BenchmarkX-2 4 9 ns/op\n"}"#,
            r#"{"Action":"output","Package":"a","Output":"  100\t  5 ns/op\n"}"#,
            r#"{"Action":"pass","Package":"a"}"#,
        ]
        .join("\n");
        let s = read_json_stream("t", stream.as_bytes()).unwrap();
        let got: Vec<_> = s
            .series
            .iter()
            .map(|x| (x.name.as_str(), x.executions.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("a.BenchmarkX", vec![vec![5.0]]),
                ("b.BenchmarkX", vec![vec![9.0]])
            ]
        );
        let e = read_text("t", b"BenchmarkX 1 5 ns/op\nBenchmarkX 1 5 ns/op 3\n").unwrap_err();
        assert_eq!(e.path.as_deref(), Some("line 2"));
        assert!(e.message.starts_with("Go test -bench text: "), "{e}");
    }

    #[test]
    fn configurations_are_kept_apart() {
        // benchstat's input: one benchmark before and after a change.
        let text =
            "goos: linux\nnote: before\nBenchmarkX-4 10 115 ns/op\nBenchmarkX-4 10 114 ns/op\n\
                    BenchmarkY-4 10 3 ns/op\n\nnote: after\nBenchmarkX-4 10 78.8 ns/op 8 B/op\n";
        let s = read_text("t", text.as_bytes()).unwrap();
        let got: Vec<_> = s
            .series
            .iter()
            .map(|x| (x.name.as_str(), x.executions.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("BenchmarkX (note=before)", vec![vec![115.0, 114.0]]),
                ("BenchmarkY (note=before)", vec![vec![3.0]]),
                ("BenchmarkX (note=after)", vec![vec![78.8]]),
                ("BenchmarkX (note=after) [B/op]", vec![vec![8.0]]),
            ]
        );
        assert_eq!(s.series[0].metadata["go_config"]["note"], "before");
        assert_eq!(s.series[2].metadata["go_config"]["note"], "after");
        // A key the whole file shares is in the metadata, not the names.
        assert_eq!(s.series[2].metadata["go_config"]["goos"], "linux");
        // `key:` removes the key from what follows.
        let s = read_text(
            "t",
            b"k: a\nBenchmarkA 1 1 ns/op\nk:\nBenchmarkA 1 2 ns/op\n",
        )
        .unwrap();
        let names: Vec<_> = s.series.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(names, ["BenchmarkA (k=a)", "BenchmarkA"]);
        assert!(s.series[1].metadata["go_config"].get("k").is_none());
        // One configuration throughout: plain names.
        let s = read_text(
            "t",
            b"note: x\nBenchmarkA 1 1 ns/op\nBenchmarkA 1 2 ns/op\n",
        )
        .unwrap();
        assert_eq!(s.series[0].name, "BenchmarkA");
        assert_eq!(s.series[0].executions, vec![vec![1.0, 2.0]]);
    }
}
