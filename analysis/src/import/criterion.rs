//! Criterion.rs output directories (`target/criterion/<group>/<bench>/new/`):
//! `sample.json` (`{"sampling_mode", "iters": […], "times": […]}`, times in
//! ns for `iters[i]` iterations each), `estimates.json` (Criterion's own
//! point estimates and bootstrap CIs of the mean, median, std_dev,
//! median_abs_dev and slope, per iteration) and `benchmark.json` (the
//! benchmark's id). Criterion.rs 0.3.0 and 0.3.1 wrote `sample.json` as
//! `[[iters…], [times…]]` and keyed the estimates `Mean`, `Median`,
//! `MedianAbsDev`, `Slope`, `StdDev`: both layouts are read, the estimates
//! kept under today's keys.
//!
//! Each sample is one measurement, `times[i] / iters[i]` ns per iteration
//! (exact: the iteration count is stored). Criterion takes all samples in one
//! process, so a benchmark is one execution. `base/` (the previous saved
//! run), `change/` and a baseline saved by name beside `new/` are skipped. The estimates are kept under
//! `metadata.tool_statistics`.

use super::{metadata, samples_file, About, Imported, Importer, Shape};
use crate::error::Checker;
use crate::error::ReadError;
use crate::format::{Alternatives, SamplesFile, Series};
use serde_json::{Map, Value};

/// How messages name a `sample.json` and an `estimates.json`.
const SAMPLE: &str = "Criterion.rs sample.json";
const ESTIMATES: &str = "Criterion.rs estimates.json";

/// A lone `sample.json` or `estimates.json` (a folder is read by
/// [`read_dir`]): the samples, named after the file; the estimates are
/// refused with the reason.
pub struct LoneFile;

fn is_sample(v: &Value) -> bool {
    v.get("sampling_mode").is_some()
        || (v.get("iters").is_some() && v.get("times").is_some())
        || is_old_sample(v)
}

impl Importer for LoneFile {
    fn about(&self) -> About {
        About {
            id: "criterion",
            label: SAMPLE,
            tried: "Criterion.rs sample.json/estimates.json (\"iters\" and \"times\", or \"mean\".\"point_estimate\")",
            name: "Criterion.rs",
            shape: Shape::Document,
            fixtures: &[
                "criterion/target-criterion/tiny/fib 10/new/sample.json",
                "criterion/target-criterion/tiny/fib 10/new/estimates.json",
            ],
        }
    }

    fn marks(&self) -> &'static [&'static str] {
        &["iters", "times", "sampling_mode", "mean", "median", "median_abs_dev", "slope", "std_dev"]
    }

    fn recognises_document(&self, v: &Value) -> bool {
        is_sample(v)
            || ["mean", "Mean"]
                .iter()
                .any(|k| v.get(*k).is_some_and(|m| m.get("point_estimate").is_some()))
    }

    fn cut_short(&self, head: &str) -> Option<&'static str> {
        let has = |s: &str| head.contains(s);
        if has("\"sampling_mode\"") || (has("\"iters\"") && has("\"times\"")) {
            Some(SAMPLE)
        } else if has("\"point_estimate\"") {
            Some(ESTIMATES)
        } else {
            None
        }
    }

    fn read_document(&self, cx: &Checker, v: &Value) -> Result<SamplesFile, ReadError> {
        if is_sample(v) {
            return read_lone_sample(cx, v);
        }
        Err(Checker::of_format(cx.file, ESTIMATES).err(
            None,
            "this holds Criterion's estimates, not its measurements: load the benchmark's \
             folder (target/criterion/…) or its new/sample.json",
        ))
    }
}

/// One benchmark's per-iteration times from a parsed `sample.json`.
fn per_iteration(cx: &Checker, o: &Map<String, Value>, at: &str) -> Result<Vec<f64>, ReadError> {
    let p = |k: &str| {
        if at.is_empty() {
            k.to_string()
        } else {
            format!("{at}.{k}")
        }
    };
    let iters = cx.arr(cx.field(o, "iters", at)?, &p("iters"))?;
    let times = cx.samples(cx.field(o, "times", at)?, &p("times"))?;
    if iters.len() != times.len() {
        return Err(cx.err(
            Some(p("times")),
            format!(
                "{} times but {} iteration counts: expected one count per sample",
                times.len(),
                iters.len()
            ),
        ));
    }
    if times.is_empty() {
        return Err(cx.err(Some(p("times")), "no samples"));
    }
    iters
        .iter()
        .zip(&times)
        .enumerate()
        .map(|(i, (n, t))| {
            cx.per_iteration(
                *t,
                &format!("{}[{i}]", p("times")),
                n,
                &format!("{}[{i}]", p("iters")),
            )
        })
        .collect()
}

/// The per-iteration times and the sampling mode of a parsed `sample.json`
/// in either layout: `{"iters", "times"}` or 0.3.0/0.3.1's `[[iters…],
/// [times…]]` (no sampling mode then).
fn sample_of(cx: &Checker, v: &Value) -> Result<(Vec<f64>, Option<Value>), ReadError> {
    if let Some([iters, times]) = v.as_array().map(Vec::as_slice) {
        let mut o = Map::new();
        o.insert("iters".into(), iters.clone());
        o.insert("times".into(), times.clone());
        // Messages name the places as the file has them.
        let xs = per_iteration(cx, &o, "").map_err(|mut e| {
            e.path = e
                .path
                .map(|p| p.replacen("iters", "[0]", 1).replacen("times", "[1]", 1));
            e
        })?;
        return Ok((xs, None));
    }
    let o = cx.obj(v, "")?;
    Ok((per_iteration(cx, o, "")?, o.get("sampling_mode").cloned()))
}

/// Whether a parsed document is a 0.3.0/0.3.1 `sample.json`: two arrays of
/// numbers of one length.
pub(crate) fn is_old_sample(v: &Value) -> bool {
    matches!(v.as_array().map(Vec::as_slice), Some([a, b])
    if a.as_array().zip(b.as_array()).is_some_and(|(a, b)| {
        !a.is_empty() && a.len() == b.len() && a.iter().chain(b).all(Value::is_number)
    }))
}

/// Today's key for an estimate 0.3.0/0.3.1 keyed in CamelCase.
fn estimate_key(k: &str) -> &str {
    match k {
        "Mean" => "mean",
        "Median" => "median",
        "MedianAbsDev" => "median_abs_dev",
        "Slope" => "slope",
        "StdDev" => "std_dev",
        _ => k,
    }
}

/// Criterion's estimates with a point estimate each. An estimate recorded as
/// `null` is left out: Flat sampling has no slope (`"slope": null`).
fn estimates(cx: &Checker, v: &Value) -> Result<Value, ReadError> {
    let o = cx.obj(v, "")?;
    let mut out = Map::new();
    for (k, e) in o {
        if e.is_null() {
            continue;
        }
        let eo = cx.obj(e, k)?;
        let pe = cx.field(eo, "point_estimate", k)?;
        cx.sample(pe, &format!("{k}.point_estimate"))?;
        out.insert(estimate_key(k).to_string(), e.clone());
    }
    Ok(Value::Object(out))
}

fn series(
    name: String,
    xs: Vec<f64>,
    mode: Option<&Value>,
    est: Option<Value>,
    throughput: Option<Value>,
) -> Series {
    let mut extra = Map::new();
    if let Some(m) = mode {
        extra.insert("sampling_mode".into(), m.clone());
    }
    if let Some(t) = throughput {
        extra.insert("throughput".into(), t);
    }
    extra.insert(
        "unit_note".into(),
        "ns per iteration (times[i] / iters[i])".into(),
    );
    Series {
        name,
        unit: "ns".into(),
        executions: vec![xs],
        metadata: metadata("Criterion.rs", est, extra),
        group: None,
    }
}

const DESCRIPTION: &str = "Imported from Criterion.rs: each sample is a measurement of ns per \
iteration (its time over its exact iteration count); all samples of a benchmark come from one \
process, so it is one execution.";

/// A `sample.json` loaded by itself (no name, no estimates beside it).
fn read_lone_sample(cx: &Checker, v: &Value) -> Result<SamplesFile, ReadError> {
    let (xs, mode) = sample_of(cx, v)?;
    let name = cx
        .file
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(cx.file)
        .trim_end_matches(".json")
        .to_string();
    let s = series(name, xs, mode.as_ref(), None, None);
    samples_file(
        cx,
        "Criterion.rs (a lone sample.json: load the benchmark's folder for its name and estimates)"
            .into(),
        Some(DESCRIPTION.into()),
        None,
        vec![s],
    )
}

fn parse(cx: &Checker, bytes: &[u8]) -> Result<Value, ReadError> {
    serde_json::from_slice(bytes).map_err(|e| cx.err(None, format!("not valid JSON: {e}")))
}

/// Whether `parts` (a `sample.json` path) is a baseline saved with
/// `--save-baseline NAME` (`BENCH/NAME/sample.json`) beside the latest run
/// `BENCH/new/`: Criterion's report shows the latest run, and so does the
/// folder's analysis (each benchmark once). Comparisons take the
/// baselines from the folder themselves.
fn is_saved_baseline(parts: &[&str], entries: &[(String, &[u8])]) -> bool {
    let [bench @ .., run, _] = parts else {
        return false;
    };
    if *run == "new" {
        return false;
    }
    let new = if bench.is_empty() {
        "new/sample.json".to_string()
    } else {
        format!("{}/new/sample.json", bench.join("/"))
    };
    entries.iter().any(|(p, _)| *p == new)
}

/// A Criterion directory as (relative path, bytes) entries: every
/// `…/sample.json` not under `base/` or `change/` is one benchmark, named by
/// the `benchmark.json` beside it (else its directory). When the entries hold
/// no `sample.json`, each file is read as usual ([`Imported::Files`]).
pub fn read_dir(name: &str, entries: &[(String, Vec<u8>)]) -> Result<Imported, ReadError> {
    let norm: Vec<(String, &[u8])> = entries
        .iter()
        .map(|(p, b)| {
            (
                p.replace('\\', "/").trim_start_matches("./").to_string(),
                b.as_slice(),
            )
        })
        .collect();
    let find = |dir: &str, file: &str| {
        let want = if dir.is_empty() {
            file.to_string()
        } else {
            format!("{dir}/{file}")
        };
        norm.iter().find(|(p, _)| *p == want).map(|(_, b)| *b)
    };
    let mut samples: Vec<&(String, &[u8])> = norm
        .iter()
        .filter(|(p, _)| {
            let parts: Vec<&str> = p.split('/').collect();
            parts.last() == Some(&"sample.json")
                && !parts
                    .iter()
                    .any(|d| matches!(*d, "base" | "change" | "report"))
                && !is_saved_baseline(&parts, &norm)
        })
        .collect();
    samples.sort_by(|a, b| a.0.cmp(&b.0));
    if samples.is_empty() {
        return without_samples(name, &norm);
    }
    // One benchmark that cannot be read (a file cut short, a newer layout)
    // must not hide the others: it is named in the warnings instead.
    let mut series_out = Vec::new();
    let mut warnings = Vec::new();
    let mut first_error = None;
    for (path, bytes) in samples {
        let dir = path
            .strip_suffix("sample.json")
            .unwrap_or("")
            .trim_end_matches('/');
        let bench =
            find(dir, "benchmark.json").and_then(|b| serde_json::from_slice::<Value>(b).ok());
        let bench_name = bench
            .as_ref()
            .and_then(|b| b.get("full_id").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_else(|| {
                let d = dir
                    .strip_suffix("/new")
                    .or(dir.strip_suffix("new"))
                    .unwrap_or(dir);
                if d.is_empty() {
                    name.to_string()
                } else {
                    d.to_string()
                }
            });
        let file = format!("{name}/{path}");
        let cx = Checker::of_format(&file, SAMPLE);
        let read = parse(&cx, bytes).and_then(|v| sample_of(&cx, &v));
        let (xs, mode) = match read {
            Ok(r) => r,
            Err(e) => {
                warnings.push(format!("benchmark \"{bench_name}\" not read: {e}"));
                first_error.get_or_insert(e);
                continue;
            }
        };
        let est = find(dir, "estimates.json").and_then(|b| {
            let efile = format!("{name}/{dir}/estimates.json");
            let ecx = Checker::of_format(&efile, ESTIMATES);
            match parse(&ecx, b).and_then(|v| estimates(&ecx, &v)) {
                Ok(e) => Some(e),
                Err(e) => {
                    warnings.push(format!(
                        "benchmark \"{bench_name}\": its samples are read, not Criterion's estimates: {e}"
                    ));
                    None
                }
            }
        });
        let throughput = bench
            .as_ref()
            .and_then(|b| b.get("throughput"))
            .filter(|t| !t.is_null())
            .cloned();
        let mean = est
            .as_ref()
            .and_then(|e| e.get("mean"))
            .and_then(|m| m.get("point_estimate"))
            .and_then(Value::as_f64);
        // Criterion's own comparisons are of a group's functions (its
        // summary violin plots); groups are unrelated.
        let group = bench
            .as_ref()
            .and_then(|b| b.get("group_id").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_else(|| bench_name.split('/').next().unwrap_or_default().to_string());
        let mut s = series(bench_name, xs, mode.as_ref(), est, throughput);
        s.group = Some(group);
        if let Some(m) = mean {
            let ecx = Checker::of_format(name, ESTIMATES);
            let at = format!("{dir}/estimates.json: mean.point_estimate");
            warnings.extend(super::consistency::check_mean(&ecx, &at, &s, m));
        }
        series_out.push(s);
    }
    if series_out.is_empty() {
        if let Some(mut e) = first_error {
            if warnings.len() > 1 {
                e.message = format!(
                    "{} (and {} other benchmarks of the folder could not be read either)",
                    e.message,
                    warnings.len() - 1
                );
            }
            return Err(e);
        }
    }
    let cx = Checker::of_format(name, SAMPLE);
    let mut file = samples_file(
        &cx,
        "Criterion.rs (target/criterion)".into(),
        Some(DESCRIPTION.into()),
        None,
        series_out,
    )?;
    file.warnings = warnings;
    file.alternatives = Alternatives::Groups;
    Ok(Imported::Samples(file))
}

/// A folder with no `sample.json`: refused when it holds nothing or only
/// cargo-criterion's `.cbor` data, else each file read as it would be alone.
fn without_samples(name: &str, norm: &[(String, &[u8])]) -> Result<Imported, ReadError> {
    let cbor = norm.iter().any(|(p, _)| p.ends_with(".cbor"));
    if norm.is_empty() || (cbor && norm.iter().all(|(p, _)| p.ends_with(".cbor"))) {
        return Err(ReadError {
            file: name.into(),
            path: None,
            message: format!(
                "no Criterion.rs sample.json in this folder ({} files{}); tried {}",
                norm.len(),
                if cbor {
                    "; cargo-criterion's .cbor data is not read: use cargo criterion --message-format=json"
                } else {
                    ""
                },
                super::tried()
            ),
        });
    }
    // Not a Criterion tree: each file is read as it would be alone, in
    // path order whatever order the entries came in.
    let mut files: Vec<(String, Vec<u8>)> = norm
        .iter()
        .map(|(p, b)| (format!("{name}/{p}"), b.to_vec()))
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Imported::Files {
        folder: name.into(),
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_0_3_layout_is_read_and_named_as_written() {
        let cx = Checker::of_format("s.json", "Criterion.rs sample.json");
        let v = json!([[1.0, 2.0], [10.0, 40.0]]);
        assert!(is_old_sample(&v));
        let (xs, mode) = sample_of(&cx, &v).unwrap();
        assert_eq!(xs, [10.0, 20.0]);
        assert!(mode.is_none());
        let e = sample_of(&cx, &json!([[1.0, 2.0], [10.0]])).unwrap_err();
        assert_eq!(e.path.as_deref(), Some("[1]"), "{e}");
        assert!(!is_old_sample(&json!([[1.0], [1.0, 2.0]])));
        assert!(!is_old_sample(&json!([{"benchmark": "x"}])));
        assert_eq!(estimate_key("MedianAbsDev"), "median_abs_dev");
    }
}
