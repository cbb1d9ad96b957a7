//! Bernoulli timing on real data from a busy machine: the fixture
//! `run-bernoulli-stressed.json` is a `collect bernoulli --quick` run under
//! `stress-ng --cpu 2 --switch 1 --vm 1 --vm-bytes 256M` (five of its events
//! kept). Its TSC reference is the independent check: the uncorrected
//! estimates miss it, the corrected intervals hold it, and the event whose
//! chunks cannot support an interval gets none, with its share.

use tickbook_analysis::report::{analyze_bytes, Options};

fn report() -> tickbook_analysis::report::BernoulliReport {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/run-bernoulli-stressed.json"
    );
    let bytes = std::fs::read(path).expect("the fixture");
    let r = analyze_bytes("run-bernoulli-stressed.json", &bytes, &Options::default());
    assert!(r.ok, "{:?}", r.error);
    r.bernoulli.expect("a bernoulli cell")
}

#[test]
fn uncorrected_estimates_miss_the_reference_under_load() {
    let b = report();
    let far = b
        .events
        .iter()
        .filter(|e| {
            let r = e.reference_ns.unwrap();
            ((e.uncorrected_ns - r) / r).abs() > 0.2
        })
        .count();
    assert!(far >= 3, "uncorrected estimates more than 20 % off: {far}");
}

#[test]
fn corrected_intervals_hold_the_reference() {
    let b = report();
    let given: Vec<_> = b
        .events
        .iter()
        .filter(|e| e.interval_ns.is_some())
        .collect();
    assert_eq!(given.len(), 4);
    for e in &given {
        assert!(e.corrected, "{}", e.name);
        assert!(e.disturbed_share.unwrap() > 0.5, "{}", e.name);
        assert_eq!(e.covered, Some(true), "{}: {:?}", e.name, e.interval_ns);
        // The file predates the chunks' reference-clock times: the trials'
        // reference is their wall time. The event timed alone by the TSC,
        // measured apart from the trials, lies inside as well.
        assert_eq!(
            e.reference_basis.as_deref(),
            Some("the trials, by the wall clock")
        );
        let (alone, i) = (
            e.reference_alone_ns.unwrap(),
            e.interval_ns.as_ref().unwrap(),
        );
        assert!(i.lo <= alone && alone <= i.hi, "{}: {alone} {i:?}", e.name);
    }
    assert_eq!((b.coverage.events, b.coverage.covered), (4, 4));
}

#[test]
fn the_event_too_disturbed_gets_no_interval_and_its_share() {
    let b = report();
    let e = b.events.iter().find(|e| e.name == "busy_10us").unwrap();
    assert_eq!(e.interval_ns, None);
    assert_eq!(e.covered, None);
    let share = e.disturbed_share.unwrap();
    assert!((share - 0.977).abs() < 0.001, "{share}");
    let why = e.no_interval.as_deref().unwrap();
    assert!(
        why.starts_with("no interval: 98 % of trials disturbed"),
        "{why}"
    );
    assert_eq!(e.estimate_ns, e.uncorrected_ns);
    assert_eq!(b.coverage.no_interval, 1);
}
