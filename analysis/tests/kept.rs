//! A file read once and kept (`report::kept`, the page's worker) gives the
//! same reports, to the bit, as reading its bytes each time: a samples
//! file analysed in batches of any size equals the whole-file analysis,
//! and so do the comparison, the campaign and the series comparison of
//! kept files.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tickbook_analysis::options::Options;
use tickbook_analysis::report::campaign::campaign_files;
use tickbook_analysis::report::kept::{
    campaign_kept, compare_kept, compare_kept_part, compare_series_kept, KeptFile,
};
use tickbook_analysis::report::{
    analyze_bytes, analyze_bytes_suites, compare_files_with, compare_series_bytes, CompareSettings,
};

/// A samples file of `series` series of 5 executions × 30 measurements
/// (every third series in µs, so the clustering spans units).
fn samples(series: usize, host: &str, seed: u64) -> Vec<u8> {
    let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
    let list: Vec<serde_json::Value> = (0..series)
        .map(|s| {
            let base = 50.0 + 1000.0 * r.random::<f64>();
            let executions: Vec<Vec<f64>> = (0..5)
                .map(|_| {
                    let shift = 0.03 * base * r.random::<f64>();
                    (0..30)
                        .map(|_| base + shift + 0.02 * base * r.random::<f64>())
                        .collect()
                })
                .collect();
            let unit = if s % 3 == 2 { "us" } else { "ns" };
            serde_json::json!({ "name": format!("s{s}"), "unit": unit, "executions": executions })
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({
        "format": "tickbook", "format_version": "1.0", "kind": "samples",
        "source": "tests/kept.rs", "host": {"hostname": host}, "series": list,
    }))
    .expect("json")
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("json")
}

fn fixture(f: &str) -> Vec<u8> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read(root.join(f)).expect("fixture")
}

#[test]
fn batches_of_any_size_equal_the_whole_file() {
    let o = Options::default();
    let bytes = samples(23, "a", 5);
    let whole = analyze_bytes("g.json", &bytes, &o);
    assert!(whole.ok);
    let whole_json = json(&whole);
    let whole_series = json(&whole.samples.as_ref().expect("samples").series);
    // A batch's report is the final one's without its cell.
    let head = json(&tickbook_analysis::report::FileReport {
        samples: None,
        ..whole.clone()
    });
    for size in [1, 4, 7, 22, 23, 100] {
        let mut kept = KeptFile::read("g.json", &bytes, &o);
        let mut series = Vec::new();
        let mut batches = 0;
        loop {
            let b = kept.samples_batch(&o, size).expect("a samples file");
            assert!(b.cell.clustering.is_none());
            assert!(
                json(&b.report) == head,
                "batches of {size}: the report's header"
            );
            assert_eq!(b.total, 23);
            series.extend(b.cell.series);
            batches += 1;
            assert_eq!(b.done, series.len());
            if b.done == b.total {
                break;
            }
        }
        assert_eq!(batches, 23_usize.div_ceil(size), "batches of {size}");
        assert!(
            json(&series) == whole_series,
            "batches of {size}: series differ"
        );
        assert!(
            json(&kept.report(&o)) == whole_json,
            "batches of {size}: the final report differs from analyze_bytes"
        );
    }
    // Some batches, then the report: the rest are analysed then.
    let mut kept = KeptFile::read("g.json", &bytes, &o);
    kept.samples_batch(&o, 10).expect("batch");
    assert!(json(&kept.report(&o)) == whole_json);
    // Batches under other options are not used for these.
    let other = Options {
        quantile_type: tickbook_analysis::stats::QuantileType::new(6).expect("type 6"),
        ..Options::default()
    };
    let mut kept = KeptFile::read("g.json", &bytes, &o);
    kept.samples_batch(&other, 10).expect("batch");
    assert!(json(&kept.report(&o)) == whole_json);
    assert!(json(&kept.report(&other)) == json(&analyze_bytes("g.json", &bytes, &other)));
    assert_ne!(json(&kept.report(&other)), whole_json);
}

#[test]
fn kept_reports_equal_reading_the_bytes() {
    let o = Options::default();
    let inputs = [
        ("run-clocks.json", fixture("tests/fixtures/run-clocks.json")),
        (
            "samples-3x5.json",
            fixture("tests/fixtures/samples-3x5.json"),
        ),
        ("g.json", samples(9, "a", 1)),
        ("bad.json", b"{\"format\": \"tickbook\"".to_vec()),
    ];
    for (name, bytes) in &inputs {
        let mut kept = KeptFile::read(name, bytes, &o);
        assert!(
            json(&kept.report(&o)) == json(&analyze_bytes(name, bytes, &o)),
            "{name}"
        );
        for suites in [vec![], vec!["clocks".to_string()], vec!["samples".into()]] {
            assert!(
                json(&kept.report_suites(&o, &suites))
                    == json(&analyze_bytes_suites(name, bytes, &o, &suites)),
                "{name} {suites:?}"
            );
        }
    }
    assert!(KeptFile::read("r", &inputs[0].1, &o)
        .samples_batch(&o, 5)
        .is_none());
}

#[test]
fn a_kept_files_header_is_its_reports_without_the_cells() {
    // The page picks the cells across files by the header before the
    // analysis is done: its verdict, kind and suites must be the report's.
    let o = Options::default();
    let inputs = [
        ("run-clocks.json", fixture("tests/fixtures/run-clocks.json")),
        ("g.json", samples(9, "a", 1)),
        ("bad.json", b"{\"format\": \"tickbook\"".to_vec()),
    ];
    for (name, bytes) in &inputs {
        let full: serde_json::Value =
            serde_json::from_str(&json(&analyze_bytes(name, bytes, &o))).unwrap();
        let head: serde_json::Value =
            serde_json::from_str(&json(&KeptFile::read(name, bytes, &o).header(&o))).unwrap();
        for key in ["file", "ok", "kind", "info", "error", "options"] {
            assert_eq!(head[key], full[key], "{name}: {key}");
        }
        assert!(head["ok"].is_boolean(), "{name}");
        for cell in ["clocks", "samples"] {
            assert!(head[cell].is_null(), "{name}: {cell}");
        }
    }
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&json(
            &KeptFile::read("g.json", &samples(9, "a", 1), &o).header(&o)
        ))
        .unwrap()["info"]["suites"],
        serde_json::json!(["samples"])
    );
}

#[test]
fn comparisons_and_campaigns_of_kept_files_equal_reading_the_bytes() {
    let o = Options::default();
    let inputs: Vec<(String, Vec<u8>)> = (0..6)
        .map(|k| {
            let host = ["a", "b", "c"][k % 3];
            (format!("f{k}.json"), samples(7, host, 100 + k as u64))
        })
        .chain([("bad.json".to_string(), b"not json".to_vec())])
        // Two runs, so the comparison has two suites (clocks, samples).
        .chain(
            ["r1.json", "r2.json"]
                .map(|n| (n.to_string(), fixture("tests/fixtures/run-clocks.json"))),
        )
        .collect();
    let entries: Vec<(&str, &[u8])> = inputs
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let kept: Vec<KeptFile> = inputs
        .iter()
        .map(|(n, b)| KeptFile::read(n, b, &o))
        .collect();
    let refs: Vec<&KeptFile> = kept.iter().collect();
    for settings in [
        CompareSettings::default(),
        CompareSettings {
            pool: true,
            warm_ups: true,
        },
    ] {
        let whole = compare_files_with(&entries, &o, settings);
        let read = json(&whole);
        assert!(json(&compare_kept(&refs, &o, settings)) == read);
        // In parts, a suite each (the page's workers): the parts' suites in
        // order, with the first part's files and pooled items, are the whole.
        let names: Vec<String> = whole.suites.iter().map(|s| s.suite.clone()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        let mut merged = compare_kept_part(&refs, &o, settings, Some(&[]), true);
        for (k, name) in names.iter().enumerate() {
            let part = compare_kept_part(
                &refs,
                &o,
                settings,
                Some(std::slice::from_ref(name)),
                k == 0,
            );
            merged.suites.extend(part.suites);
        }
        assert!(json(&merged) == read, "the parts differ from the whole");
    }
    let campaign = json(&campaign_kept(&refs, &o));
    assert!(campaign == json(&campaign_files(&entries, &o)));
    assert!(
        campaign.contains("\"machines\":[\"a\",\"b\",\"c\","),
        "{campaign:.300}"
    );
    let series = compare_series_kept(&kept[0], Some("s1"), &o, false, false).map(|r| json(&r));
    assert_eq!(
        series,
        compare_series_bytes("f0.json", &inputs[0].1, Some("s1"), &o, false, false)
            .map(|r| json(&r))
    );
    assert!(series.is_ok());
}
