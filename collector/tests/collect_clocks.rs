//! End to end: run the real binary, read its file back with the same reader
//! and analysis the other front ends use, and check properties of the
//! machine that must hold (not just that fields exist).

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tickbook_analysis::read::{read_document, Document, RunDocument};
use tickbook_analysis::report::{analyze_bytes, Options};
use tickbook_analysis::suites::clocks::ClocksData;

fn tmp_path(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("tickbook-test-{tag}-{}.json", std::process::id()))
}

fn read_run(path: &PathBuf) -> (Vec<u8>, RunDocument) {
    let bytes = std::fs::read(path).expect("output file exists");
    match read_document("out.json", &bytes) {
        // Works whether the reader boxes the document or not.
        Ok(Document::Run(r)) => (bytes, RunDocument::clone(&r)),
        Ok(other) => panic!("expected a run file, got {other:?}"),
        Err(e) => panic!("the collector wrote a file its own reader rejects: {e}"),
    }
}

fn getres_ns(id: libc::clockid_t) -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write.
    assert_eq!(unsafe { libc::clock_getres(id, &mut ts) }, 0);
    ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
}

fn has_tsc() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: CPUID leaf 1 exists on every x86_64 CPU.
        #[allow(unused_unsafe)]
        let r = unsafe { core::arch::x86_64::__cpuid(1) };
        r.edx >> 4 & 1 == 1
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

#[test]
fn quick_clocks_run_is_valid_and_plausible() {
    let out = tmp_path("quick");
    let t0 = Instant::now();
    let res = Command::new(env!("CARGO_BIN_EXE_tickbook"))
        .args(["collect", "clocks", "--quick", "--out"])
        .arg(&out)
        .output()
        .expect("run tickbook");
    let elapsed = t0.elapsed();
    println!("collect clocks --quick took {:.2} s", elapsed.as_secs_f64());
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(res.status.success(), "exit {:?}\n{stderr}", res.status);
    assert!(
        elapsed < Duration::from_secs(30),
        "quick run took {elapsed:?}"
    );
    // Exactly one line on stdout: the path.
    let stdout = String::from_utf8_lossy(&res.stdout);
    assert_eq!(stdout.trim(), out.display().to_string());

    let (bytes, doc) = read_run(&out);
    println!("file size {} bytes", bytes.len());
    assert_eq!(doc.run.status, "complete");
    assert!(doc.run.ended_at.is_some());
    assert_eq!(doc.run.suites.len(), 1);
    assert_eq!(doc.run.suites[0].status, "complete");
    assert!(!doc.run.host.hostname.is_empty());
    let clocks: &ClocksData = doc.clocks.as_ref().expect("clocks suite parsed");

    // Every expected clock is listed, available or with a reason.
    let mut expected = vec![
        "CLOCK_MONOTONIC",
        "CLOCK_MONOTONIC_RAW",
        "CLOCK_MONOTONIC_COARSE",
        "CLOCK_REALTIME",
        "CLOCK_REALTIME_COARSE",
        "CLOCK_BOOTTIME",
        "CLOCK_PROCESS_CPUTIME_ID",
        "CLOCK_THREAD_CPUTIME_ID",
        "std::time::Instant",
    ];
    if cfg!(target_arch = "x86_64") {
        expected.extend(["tsc_rdtsc", "tsc_lfence_rdtsc", "tsc_rdtscp"]);
    }
    if cfg!(target_arch = "aarch64") {
        expected.push("cntvct_el0");
    }
    for name in expected {
        let c = clocks
            .clocks
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("clock {name} not listed"));
        if c.available {
            assert!(c.read_cost.is_some() && c.scan.is_some(), "{name}");
        } else {
            let why = c.unavailable_reason.as_deref().unwrap_or("");
            assert!(!why.is_empty(), "{name} unavailable without a reason");
        }
    }

    let report = analyze_bytes("out.json", &bytes, &Options::default());
    assert!(report.ok, "{:?}", report.error);
    let cr = report.clocks.expect("clocks report");

    for row in cr.clocks.iter().filter(|r| r.available) {
        let med = row.read_cost.as_ref().map(|s| s.median).unwrap_or(0.0);
        println!(
            "{:<26} cost p50 {med:>10.2} ns  tick {:?} ns  modal {:?} ns",
            row.name, row.observed_tick_ns, row.modal_step_ns
        );
        assert!(med > 0.0, "{}: median read cost {med}", row.name);
        assert!(row.scan_reads > 1, "{}", row.name);
    }

    // The coarse clock really ticks at its advertised resolution. Single
    // steps may come out 1 ns short (the kernel accumulates sub-ns
    // remainders), so the modal step must match exactly and the smallest
    // step to within 10 ppm.
    let res = getres_ns(libc::CLOCK_MONOTONIC_COARSE);
    let coarse = cr
        .clocks
        .iter()
        .find(|r| r.name == "CLOCK_MONOTONIC_COARSE")
        .expect("coarse row");
    let ticks: u64 = coarse.step_histogram.iter().map(|b| b.count).sum();
    println!("CLOCK_MONOTONIC_COARSE: getres {res} ns, {ticks} steps");
    assert!(ticks >= 25, "only {ticks} coarse ticks seen");
    assert_eq!(coarse.modal_step_ns, Some(res));
    let tick = coarse.observed_tick_ns.expect("coarse tick");
    assert!(
        (tick - res).abs() / res < 1e-5,
        "tick {tick} vs getres {res}"
    );

    // With a TSC, at least two independent-enough sources agree.
    if has_tsc() {
        let readable: Vec<(String, f64)> = cr
            .frequency
            .sources
            .iter()
            .filter_map(|s| Some((s.name.clone(), s.hz?)))
            .collect();
        println!(
            "frequency sources: {readable:?}, spread {:?} ppm",
            cr.frequency.spread_ppm
        );
        // The kernel log needs root where dmesg_restrict=1; without it a VM
        // may offer only the calibration.
        if doc.run.host.is_root == Some(true) {
            assert!(readable.len() >= 2, "readable sources: {readable:?}");
        } else {
            println!("not root: requiring one readable source only");
            assert!(!readable.is_empty());
        }
        if let Some(spread) = cr.frequency.spread_ppm {
            assert!(spread < 1000.0, "sources disagree by {spread} ppm");
        }
        assert!(clocks.tsc_hz.is_some() && clocks.tsc_hz_source.is_some());
    }
    common::terminal_shows(&out, "clocks");
    let _ = std::fs::remove_file(&out);
}

#[test]
fn sigint_leaves_a_valid_interrupted_file() {
    let out = tmp_path("sigint");
    let _ = std::fs::remove_file(&out);
    // Full mode: its scans of the coarse clocks alone take seconds, so the
    // signal lands mid-suite.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tickbook"))
        .args(["collect", "clocks", "--out"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tickbook");
    // The file is written before any measuring starts.
    let t0 = Instant::now();
    while !out.exists() && t0.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: signalling our own child by its pid.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
    let status = child.wait().expect("wait");
    println!(
        "child exited {status:?} after {:.2} s",
        t0.elapsed().as_secs_f64()
    );
    assert_eq!(status.code(), Some(130));

    let (bytes, doc) = read_run(&out);
    assert_eq!(doc.run.status, "interrupted");
    assert!(doc.run.ended_at.is_some());
    let suite = &doc.run.suites[0];
    assert_eq!(suite.status, "failed");
    assert!(
        suite.error.as_deref().unwrap_or("").contains("SIGINT"),
        "{:?}",
        suite.error
    );
    let report = analyze_bytes("out.json", &bytes, &Options::default());
    assert!(report.ok);
    assert!(
        report.warnings.iter().any(|w| w.contains("interrupted")),
        "{:?}",
        report.warnings
    );
    // No temporary file left next to the output.
    let dir = out.parent().expect("dir");
    let name = out
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .expect("read tmp dir")
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!(".{name}.tmp"))
        })
        .collect();
    assert!(leftovers.is_empty());
    common::terminal_agrees_with_json(&[&out]);
    let _ = std::fs::remove_file(&out);
}

/// The paths a machine without a usable counter takes (hidden testing flag).
#[test]
fn without_a_counter_falls_back_and_says_so() {
    let out = tmp_path("nocounter");
    let res = Command::new(env!("CARGO_BIN_EXE_tickbook"))
        .args(["collect", "clocks", "--quick", "--no-counter", "--out"])
        .arg(&out)
        .output()
        .expect("run tickbook");
    assert!(
        res.status.success(),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    let (_, doc) = read_run(&out);
    let clocks = doc.clocks.as_ref().expect("clocks");
    assert_eq!(clocks.reference, "CLOCK_MONOTONIC_RAW");
    assert_eq!(clocks.reference_ns_per_unit, 1.0);
    assert_eq!(clocks.tsc_hz, None);
    let fallbacks = &doc.run.suites[0].fallbacks;
    assert!(
        fallbacks
            .iter()
            .any(|f| f.contains("reference clock is CLOCK_MONOTONIC_RAW")),
        "{fallbacks:?}"
    );
    for c in &clocks.clocks {
        if c.name.starts_with("tsc_") || c.name == "cntvct_el0" {
            assert!(!c.available, "{}", c.name);
            assert!(c
                .unavailable_reason
                .as_deref()
                .unwrap_or("")
                .contains("--no-counter"));
        }
    }
    let cal = clocks
        .tsc_frequency
        .iter()
        .find(|s| s.name == "calibration_monotonic_raw")
        .expect("calibration listed");
    assert!(cal.hz.is_none() && cal.error.is_some());
    common::terminal_shows(&out, "clocks");
    let _ = std::fs::remove_file(&out);
}
