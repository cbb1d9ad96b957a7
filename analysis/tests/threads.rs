//! The analysis gives the same report, to the bit, whatever the number of
//! threads it runs on, and from a plain thread as from a pool thread:
//! series and configurations are spread over rayon's threads.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tickbook_analysis::options::Options;
use tickbook_analysis::report::analyze_bytes;

/// A samples file of `series` series of 12 executions × 40 measurements,
/// the execution means in two groups (so mode detection has modes to find).
fn samples(series: usize) -> Vec<u8> {
    let mut r = Xoshiro256PlusPlus::seed_from_u64(17);
    let list: Vec<serde_json::Value> = (0..series)
        .map(|s| {
            let base = 50.0 + 1000.0 * r.random::<f64>();
            let executions: Vec<Vec<f64>> = (0..12)
                .map(|e| {
                    let shift = if e % 3 == 0 { 0.2 * base } else { 0.0 };
                    (0..40)
                        .map(|_| base + shift + 0.02 * base * r.random::<f64>())
                        .collect()
                })
                .collect();
            serde_json::json!({ "name": format!("s{s}"), "unit": "ns", "executions": executions })
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({
        "format": "tickbook", "format_version": "1.0", "kind": "samples",
        "source": "tests/threads.rs", "series": list,
    }))
    .expect("json")
}

fn report_on(threads: Option<usize>, name: &str, bytes: &[u8]) -> String {
    let o = Options::default();
    let run = || serde_json::to_string(&analyze_bytes(name, bytes, &o)).expect("json");
    match threads {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .expect("pool")
            .install(run),
        // A plain thread, outside any pool.
        None => std::thread::scope(|s| s.spawn(run).join().expect("thread")),
    }
}

#[test]
fn reports_are_the_same_on_one_thread_and_on_many() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut inputs = vec![("generated.json".to_string(), samples(16))];
    for f in [
        "tests/fixtures/run-clocks.json",
        "tests/fixtures/samples-3x5.json",
    ] {
        inputs.push((f.to_string(), std::fs::read(root.join(f)).expect("fixture")));
    }
    for (name, bytes) in &inputs {
        let one = report_on(Some(1), name, bytes);
        assert!(!one.contains("\"ok\":false"), "{name}: {one:.300}");
        for other in [Some(2), Some(4), None] {
            assert!(
                report_on(other, name, bytes) == one,
                "{name}: the report on {other:?} threads differs from one thread's"
            );
        }
    }
    // The generated file's modes were found (mode detection ran).
    let one = report_on(Some(1), &inputs[0].0, &inputs[0].1);
    assert!(one.contains("\"modes\":{"), "no modes in {one:.300}");
}
