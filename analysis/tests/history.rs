//! The History cell across files on generated per-commit files with a known
//! answer: the order taken from the dates the files record, series matched
//! by name with gaps, a step of known size found at its commit with an
//! interval that holds it, a machine-wide shift named, and the CI gate.

use rand::{RngExt, SeedableRng};
use rand_distr::StandardNormal;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::{json, Value};
use tickbook_analysis::report::across::history::{history, OrderChoice};
use tickbook_analysis::report::across::{across_kept, history::latest_regressions};
use tickbook_analysis::report::kept::KeptFile;
use tickbook_analysis::report::Options;

/// A samples file of commit `c`: every series at `level(name, c)` with 1 %
/// noise between commits (shared by the commit's executions) and 0.5 %
/// within, three executions of five values.
fn commit_file(
    rng: &mut Xoshiro256PlusPlus,
    c: usize,
    names: &[&str],
    level: &dyn Fn(&str, usize) -> Option<f64>,
    extra: Value,
) -> Vec<u8> {
    let series: Vec<Value> = names
        .iter()
        .filter_map(|n| {
            let l = level(n, c)?;
            let shift: f64 = rng.sample::<f64, _>(StandardNormal) * 0.01;
            let ex: Vec<Vec<f64>> = (0..3)
                .map(|_| {
                    (0..5)
                        .map(|_| l * (1.0 + shift + 0.005 * rng.sample::<f64, _>(StandardNormal)))
                        .collect()
                })
                .collect();
            Some(json!({"name": n, "unit": "ns", "executions": ex}))
        })
        .collect();
    let mut doc =
        json!({"format": "tickbook", "format_version": "1.3", "kind": "samples", "series": series});
    if let (Some(d), Some(e)) = (doc.as_object_mut(), extra.as_object()) {
        d.extend(e.clone());
    }
    serde_json::to_vec(&doc).unwrap()
}

fn report(files: &[(String, Vec<u8>)], params: Value) -> Value {
    let opts = Options::default();
    let kept: Vec<KeptFile> = files
        .iter()
        .map(|(n, b)| KeptFile::read(n, b, &opts))
        .collect();
    let refs: Vec<&KeptFile> = kept.iter().collect();
    serde_json::to_value(across_kept("history", &refs, &opts, params).unwrap()).unwrap()
}

#[test]
fn a_step_is_found_at_its_commit_in_the_order_the_dates_give() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let names = ["parse", "render", "idle"];
    // parse: +8 % from commit 25; render: absent from commits 10..=12 (a gap).
    let level = |n: &str, c: usize| match n {
        "parse" => Some(if c >= 25 { 1080.0 } else { 1000.0 }),
        "render" if (10..=12).contains(&c) => None,
        _ => Some(500.0),
    };
    let mut files: Vec<(String, Vec<u8>)> = (0..40)
        .map(|c| {
            // The names sort differently from the dates: z-39 … z-0.
            let rev = json!({"revision": {"commit": format!("{c:040x}"),
                "date": format!("2026-01-{:02}T{:02}:00:00+01:00", 1 + c / 24, c % 24)}});
            (
                format!("z-{}.json", 39 - c),
                commit_file(&mut rng, c, &names, &level, rev),
            )
        })
        .collect();
    files.reverse();
    let r = report(&files, Value::Null);
    assert_eq!(r["order"], "commit_date");
    assert_eq!(r["files"][0]["name"], "z-39.json");
    assert_eq!(r["files"][25]["commit"], format!("{:040x}", 25));
    let series = r["series"].as_array().unwrap();
    assert_eq!(series.len(), 3);
    assert_eq!(r["quiet"], 2);
    let parse = &series[0];
    assert_eq!(parse["name"], "parse");
    let cps = parse["change_points"].as_array().unwrap();
    assert_eq!(cps.len(), 1, "{cps:?}");
    assert_eq!(cps[0]["index"], 25);
    assert_eq!(cps[0]["file"], "z-14.json");
    assert_eq!(cps[0]["kind"], "step");
    assert_eq!(cps[0]["regression"], true);
    let (lo, hi) = (
        cps[0]["ratio"]["low"].as_f64().unwrap(),
        cps[0]["ratio"]["high"].as_f64().unwrap(),
    );
    assert!(lo < 1.08 && 1.08 < hi, "[{lo}, {hi}]");
    let render = series.iter().find(|s| s["name"] == "render").unwrap();
    let est = render["estimates"].as_array().unwrap();
    assert!(est[11].is_null() && est[9].is_object() && est[13].is_object());
    // Given order: the names' reverse order is the history reversed, so the
    // step is a −7.4 % improvement at position 15.
    let given = report(&files, json!({"order": "given"}));
    assert_eq!(given["order"], "given");
    let g = &given["series"][0]["change_points"][0];
    assert_eq!(
        (g["index"].as_u64(), g["regression"].as_bool()),
        (Some(15), Some(false))
    );
    // The page's request: the same report, a quiet series without its estimates.
    let slim = report(&files, json!({"quiet_estimates": false}));
    for (a, b) in r["series"]
        .as_array()
        .unwrap()
        .iter()
        .zip(slim["series"].as_array().unwrap())
    {
        let changed = !a["change_points"].as_array().unwrap().is_empty();
        let mut a = a.clone();
        if !changed {
            a["estimates"] = json!([]);
        }
        assert_eq!(&a, b, "{}", a["name"]);
    }
    assert_eq!(
        (slim["quiet"].clone(), slim["files"].clone()),
        (r["quiet"].clone(), r["files"].clone())
    );
}

#[test]
fn a_shift_of_every_series_at_once_is_named_the_machine() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
    let names = ["a", "b", "c", "d"];
    let level = |_: &str, c: usize| Some(if c >= 20 { 1150.0 } else { 1000.0 });
    let files: Vec<(String, Vec<u8>)> = (0..30)
        .map(|c| {
            (
                format!("run-{c}.json"),
                commit_file(&mut rng, c, &names, &level, json!({})),
            )
        })
        .collect();
    let r = report(&files, Value::Null);
    assert_eq!(r["order"], "name");
    assert_eq!(r["machine_changes"][0]["index"], 20);
    assert_eq!(r["machine_changes"][0]["series"], 4);
    for s in r["series"].as_array().unwrap() {
        assert_eq!(s["change_points"][0]["cause"], "machine");
    }
}

#[test]
fn the_gate_fires_only_on_a_regression_at_the_latest_commit() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let names = ["x"];
    let make = |rng: &mut Xoshiro256PlusPlus, step_at: usize, n: usize| -> Vec<(String, Vec<u8>)> {
        (0..n)
            .map(|c| {
                let level = |_: &str, c: usize| Some(if c >= step_at { 1100.0 } else { 1000.0 });
                (
                    format!("c{c}.json"),
                    commit_file(rng, c, &names, &level, json!({})),
                )
            })
            .collect()
    };
    let opts = Options::default();
    let gate = |files: &[(String, Vec<u8>)], pct: f64| {
        let kept: Vec<KeptFile> = files
            .iter()
            .map(|(n, b)| KeptFile::read(n, b, &opts))
            .collect();
        let docs: Vec<_> = kept
            .iter()
            .map(|k| (k.name(), k.document().unwrap()))
            .collect();
        let r = history(&docs, &opts, OrderChoice::Auto);
        latest_regressions(&r, pct).len()
    };
    let latest = make(&mut rng, 29, 30);
    assert_eq!(gate(&latest, 5.0), 1);
    assert_eq!(gate(&latest, 15.0), 0);
    let earlier = make(&mut rng, 15, 30);
    assert_eq!(gate(&earlier, 5.0), 0);
}
