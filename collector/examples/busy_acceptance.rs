//! The acceptance figures of Bernoulli timing on a quiet and on a busy
//! machine, printed from result files by the same analysis the page and
//! `tickbook analyze` use: per file, the events of at least 100 ns given an
//! interval, how many of those intervals hold the reference (the trials timed
//! by the TSC), each event
//! too disturbed for one with its measured share of disturbed trials, and
//! the uncapped trial counts against eq. 5.
//!
//! Run by `scripts/bench-busy`, which collects `bernoulli --quick` quietly
//! and under `stress-ng`; by hand:
//! `cargo run --release --example busy_acceptance -- QUIET.json STRESSED.json`
//! (either may be `-` to skip it). Exits 1 if a check failed, 2 if a file
//! could not be read.

use std::process::ExitCode;
use tickbook_analysis::report::{analyze_bytes, BernoulliReport, Options};

/// Events at least this long, under stress, that must get an interval; on a
/// quiet machine, all of them.
const MIN_GIVEN_STRESSED: usize = 10;
const MIN_COVERAGE: f64 = 0.90;
const TRIALS_TOL: f64 = 0.10;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 2 {
        eprintln!("usage: busy_acceptance QUIET.json|- STRESSED.json|-");
        return ExitCode::from(2);
    }
    let mut failed: Vec<String> = Vec::new();
    for (path, stressed) in [(&args[0], false), (&args[1], true)] {
        if path == "-" {
            continue;
        }
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("error: cannot read {path}: {e}");
                return ExitCode::from(2);
            }
        };
        let report = analyze_bytes(path, &bytes, &Options::default());
        let Some(b) = &report.bernoulli else {
            eprintln!("error: {path} has no bernoulli section");
            return ExitCode::from(2);
        };
        let label = if stressed { "stressed" } else { "quiet" };
        println!("\n[{label}] {path}");
        checks(b, stressed, label, &mut failed);
    }
    println!();
    if failed.is_empty() {
        println!("RESULT: all checks passed");
        ExitCode::SUCCESS
    } else {
        println!(
            "RESULT: {} check(s) FAILED: {}",
            failed.len(),
            failed.join(", ")
        );
        ExitCode::FAILURE
    }
}

fn checks(b: &BernoulliReport, stressed: bool, label: &str, failed: &mut Vec<String>) {
    let mut check = |name: &str, ok: bool| {
        if !ok {
            failed.push(format!("{label}: {name}"));
        }
        if ok {
            "PASS"
        } else {
            "FAIL"
        }
    };
    println!(
        "  {:<11} {:>9} {:>13} {:>13} {:>27} {:>13} {:>7} {:>13} {:>11} {:>11} {:>7}",
        "event",
        "disturbed",
        "estimate ns",
        "uncorrected",
        "95% interval ns",
        "reference ns",
        "inside",
        "alone ns",
        "trials n",
        "eq. 5",
        "n/eq.5"
    );
    let long: Vec<_> = b
        .events
        .iter()
        .filter(|e| e.target_ns >= b.coverage.min_target_ns)
        .collect();
    let mut trials_ok = true;
    for e in &b.events {
        let tr = &e.trials;
        let ratio = if tr.capped {
            "capped".to_string()
        } else {
            match tr.trials_ratio {
                Some(r) => {
                    if (r - 1.0).abs() > TRIALS_TOL {
                        trials_ok = false;
                    }
                    format!("{r:.3}")
                }
                None => {
                    trials_ok = false;
                    "-".into()
                }
            }
        };
        println!(
            "  {:<11} {:>9} {:>13.2} {:>13.2} {:>27} {:>13} {:>7} {:>13} {:>11} {:>11} {:>7}",
            e.name,
            e.disturbed_share
                .map_or("-".into(), |s| format!("{:.1}%", 100.0 * s)),
            e.estimate_ns,
            e.uncorrected_ns,
            e.interval_ns
                .as_ref()
                .map_or("no interval".into(), |i| format!("{:.2}–{:.2}", i.lo, i.hi)),
            e.reference_ns.map_or("-".into(), |r| format!("{r:.2}")),
            match e.covered {
                Some(true) => "yes",
                Some(false) => "no",
                None => "-",
            },
            e.reference_alone_ns
                .map_or("-".into(), |r| format!("{r:.2}")),
            tr.n,
            tr.trials_needed.map_or("-".into(), |k| k.to_string()),
            ratio,
        );
    }
    let given = long.iter().filter(|e| e.interval_ns.is_some()).count();
    let need = if stressed {
        MIN_GIVEN_STRESSED
    } else {
        long.len()
    };
    println!(
        "  events ≥ {} ns with an interval: {given} of {} (need ≥ {need}): {}",
        b.coverage.min_target_ns,
        long.len(),
        check("events with an interval", given >= need && !long.is_empty())
    );
    for e in long.iter().filter(|e| e.interval_ns.is_none()) {
        println!(
            "    too disturbed: {} — {} (disturbed share {})",
            e.name,
            e.no_interval.as_deref().unwrap_or("no interval"),
            e.disturbed_share
                .map_or("unknown".into(), |s| format!("{:.1}%", 100.0 * s))
        );
    }
    let c = &b.coverage;
    println!(
        "  coverage of the reference (the trials by a fine clock) by the intervals given: {} of {} = {} (need ≥ {:.0}%): {}",
        c.covered,
        c.events,
        c.share.map_or("-".into(), |s| format!("{:.1}%", 100.0 * s)),
        100.0 * MIN_COVERAGE,
        check("coverage ≥ 90%", c.share.is_some_and(|s| s >= MIN_COVERAGE))
    );
    let alone: Vec<_> = long
        .iter()
        .filter_map(|e| Some((e.interval_ns.as_ref()?, e.reference_alone_ns?)))
        .collect();
    println!(
        "  for comparison, the event timed alone (measured apart from the trials) lies inside {} of {} of those intervals (not a check: it is the typical, not the mean, length)",
        alone.iter().filter(|(i, r)| i.lo <= *r && *r <= i.hi).count(),
        alone.len()
    );
    let uncapped = b.events.iter().filter(|e| !e.trials.capped).count();
    if stressed {
        println!(
            "  trials vs eq. 5 ({uncapped} of {} uncapped): not checked under stress (the wall-time budget caps them)",
            b.events.len()
        );
    } else if uncapped == 0 {
        println!(
            "  trials vs eq. 5: UNCHECKED, every event was capped by the time budget (is the machine quiet?)"
        );
    } else {
        println!(
            "  trials vs eq. 5 within {:.0}% for the {uncapped} uncapped of {} events: {}",
            100.0 * TRIALS_TOL,
            b.events.len(),
            check("uncapped trials match eq. 5", trials_ok)
        );
    }
}
