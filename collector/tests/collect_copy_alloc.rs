//! End to end: the copy and alloc suites through the real binary, their data
//! parsed into the format types, and properties that must hold checked.

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tickbook_analysis::format::{RunFile, Suite};
use tickbook_analysis::suites::{alloc::AllocData, copy::CopyData};

fn tmp_path(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("tickbook-test-{tag}-{}.json", std::process::id()))
}

fn read_file(path: &PathBuf) -> RunFile {
    let bytes = std::fs::read(path).expect("output file exists");
    serde_json::from_slice(&bytes).expect("the file is a valid run file")
}

fn suite<'a>(run: &'a RunFile, name: &str) -> &'a Suite {
    run.suites
        .iter()
        .find(|s| s.suite == name)
        .unwrap_or_else(|| panic!("no {name} suite in the file"))
}

fn is_root() -> bool {
    // SAFETY: no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn quick_copy_has_every_variant_and_alignment() {
    let out = tmp_path("copy");
    let t0 = Instant::now();
    let res = Command::new(env!("CARGO_BIN_EXE_tickbook"))
        .args(["collect", "copy", "--quick", "--out"])
        .arg(&out)
        .output()
        .expect("run tickbook");
    println!(
        "collect copy --quick took {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    assert!(
        res.status.success(),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    let run = read_file(&out);
    let s = suite(&run, "copy");
    assert_eq!(s.status, "complete");
    let d: CopyData = serde_json::from_value(s.data.clone()).expect("copy data parses");
    assert!(d.repetitions >= 10);

    let mut imps: Vec<&str> = d.cases.iter().map(|c| c.implementation.as_str()).collect();
    imps.sort_unstable();
    imps.dedup();
    let mut lengths: Vec<u64> = d.cases.iter().map(|c| c.length - c.length % 64).collect();
    lengths.sort_unstable();
    lengths.dedup();
    assert!(lengths.len() >= 3, "lengths {lengths:?}");
    for imp in &imps {
        for &len in &lengths {
            let cases: Vec<_> = d
                .cases
                .iter()
                .filter(|c| c.implementation == *imp && c.length - c.length % 64 == len)
                .collect();
            // 8 variants × 7 alignments, each exactly once.
            assert_eq!(cases.len(), 56, "{imp} at {len}");
            for v in 1..=8u8 {
                for a in [1u64, 2, 4, 8, 16, 32, 64] {
                    let c = cases
                        .iter()
                        .find(|c| c.variant == v && c.alignment == a)
                        .unwrap_or_else(|| panic!("{imp} {len} v{v} a{a} missing"));
                    assert_eq!(c.same_array, v >= 5);
                    assert_eq!(c.src_offset % a, 0);
                    assert_eq!(c.dst_offset % a, 0);
                    assert_eq!(c.length % a, 0);
                    if c.available {
                        assert_eq!(c.samples_ns.len(), d.repetitions as usize);
                        assert!(c.samples_ns.iter().all(|s| s.is_finite() && *s > 0.0));
                    } else {
                        assert!(c.unavailable_reason.is_some());
                        assert!(c.samples_ns.is_empty());
                    }
                }
            }
        }
    }
    // The library copy is there on every platform; copy_nonoverlapping only
    // where the ranges do not overlap.
    for c in &d.cases {
        if c.implementation == "std_copy" || c.implementation == "byte_loop" {
            assert!(c.available);
        }
        if c.implementation == "std_copy_nonoverlapping" {
            assert_eq!(c.available, !c.same_array, "v{}", c.variant);
        }
    }
    #[cfg(target_arch = "x86_64")]
    assert!(d
        .cases
        .iter()
        .any(|c| c.implementation == "rep_movsb" && c.available));
    // A longer copy takes longer: the plain case of the shortest length
    // against the longest, per implementation.
    for imp in &imps {
        let med = |len: u64| {
            d.cases
                .iter()
                .find(|c| {
                    c.implementation == *imp
                        && c.variant == 1
                        && c.alignment == 64
                        && c.length - c.length % 64 == len
                })
                .filter(|c| c.available)
                .map(|c| {
                    let mut v = c.samples_ns.clone();
                    v.sort_by(f64::total_cmp);
                    v[v.len() / 2]
                })
        };
        if let (Some(a), Some(b)) = (med(lengths[0]), med(*lengths.last().unwrap())) {
            assert!(b > a * 10.0, "{imp}: {a} ns vs {b} ns");
        }
    }
    common::terminal_shows(&out, "copy");
    let _ = std::fs::remove_file(&out);
}

/// A small alloc run: the first 12 configurations (fft at ½ L2, every
/// strategy × allocator), 3 executions of 5 measurements, two children made
/// to fail on purpose.
fn small_alloc(out: &PathBuf, fail: Option<&str>) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tickbook"));
    cmd.args([
        "collect",
        "alloc",
        "--quick",
        "--executions",
        "3",
        "--measurements",
        "5",
        "--out",
    ])
    .arg(out)
    .env("TICKBOOK_ALLOC_CONFIG_LIMIT", "12")
    .env("TICKBOOK_ALLOC_SEED", "42");
    if let Some(f) = fail {
        cmd.env("TICKBOOK_ALLOC_FAIL", f);
    }
    cmd
}

#[test]
fn small_alloc_run_records_executions_failures_and_colours() {
    let out = tmp_path("alloc");
    let t0 = Instant::now();
    let res = small_alloc(&out, Some("2:exit,5:abort"))
        .output()
        .expect("run tickbook");
    println!("small alloc run took {:.1} s", t0.elapsed().as_secs_f64());
    let run = read_file(&out);
    let s = suite(&run, "alloc");
    assert_eq!(
        s.status,
        "complete",
        "{:?} {}",
        s.error,
        String::from_utf8_lossy(&res.stderr)
    );
    let d: AllocData = serde_json::from_value(s.data.clone()).expect("alloc data parses");
    assert_eq!(d.executions_per_config, 3);
    assert_eq!(d.measurements_per_execution, 5);
    assert_eq!(d.schedule_seed, 42);
    assert_eq!(d.configs.len(), 12);
    let mut orders = Vec::new();
    let mut failed = Vec::new();
    for c in &d.configs {
        if !c.available {
            assert!(c.unavailable_reason.is_some());
            assert!(c.executions.is_empty());
            continue;
        }
        assert_eq!(c.executions.len(), 3, "{} {}", c.strategy, c.allocator);
        for e in &c.executions {
            orders.push(e.order);
            assert!(e.env_padding_bytes <= 4096);
            if !e.ok {
                failed.push((e.order, e.error.clone().unwrap_or_default()));
                assert!(e.measurements.is_empty());
                continue;
            }
            assert_eq!(e.measurements.len(), 5);
            assert!(e.measurements.iter().all(|m| m.is_finite() && *m > 0.0));
            if c.strategy == "page_colouring" || c.strategy == "bin_hopping" {
                let pages: u64 = e.colour_histogram.iter().sum();
                let misses = e.colour_misses.expect("colouring reports misses");
                assert!(pages > 0);
                assert_eq!(e.colour_histogram.len() as u32, d.colours.unwrap());
                // ≥ 90 % of the pages on the wanted colour.
                assert!(misses * 10 <= pages, "{misses} misses of {pages}");
            }
        }
    }
    // Every scheduled position ran once.
    orders.sort_unstable();
    assert_eq!(orders, (0..orders.len() as u32).collect::<Vec<_>>());
    // The two injected failures are recorded, not dropped.
    failed.sort();
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert_eq!(failed[0].0, 2);
    assert!(failed[0].1.contains("code 3"), "{}", failed[0].1);
    assert_eq!(failed[1].0, 5);
    assert!(failed[1].1.contains("killed by SIGABRT"), "{}", failed[1].1);
    let colouring = d
        .configs
        .iter()
        .find(|c| c.strategy == "page_colouring")
        .expect("page_colouring configured");
    if is_root() {
        assert!(colouring.available, "{:?}", colouring.unavailable_reason);
    } else {
        // Never faked: unavailable, and said why.
        assert!(!colouring.available);
        assert!(colouring
            .unavailable_reason
            .as_deref()
            .unwrap_or("")
            .contains("frame"));
    }
    common::terminal_shows(&out, "alloc");
    let _ = std::fs::remove_file(&out);
}

/// Wait until the file shows at least one configuration with all its
/// executions, or give up after `limit`.
fn wait_for_finished_config(out: &PathBuf, limit: Duration) {
    let t0 = Instant::now();
    while t0.elapsed() < limit {
        if let Ok(bytes) = std::fs::read(out) {
            if let Ok(run) = serde_json::from_slice::<RunFile>(&bytes) {
                if let Some(s) = run.suites.iter().find(|s| s.suite == "alloc") {
                    if let Ok(d) = serde_json::from_value::<AllocData>(s.data.clone()) {
                        if d.configs.iter().any(|c| c.executions.len() == 3) {
                            return;
                        }
                    }
                }
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no configuration finished within {limit:?}");
}

fn check_partial(out: &PathBuf) -> (RunFile, usize) {
    let run = read_file(out);
    let s = suite(&run, "alloc");
    assert_eq!(s.status, "failed");
    let d: AllocData = serde_json::from_value(s.data.clone()).expect("partial data parses");
    let finished = d.configs.iter().filter(|c| c.executions.len() == 3).count();
    assert!(finished >= 1);
    // Not everything ran.
    let ran: usize = d.configs.iter().map(|c| c.executions.len()).sum();
    assert!(ran < 36, "{ran}");
    for c in &d.configs {
        for e in &c.executions {
            assert!(e.ok, "{:?}", e.error);
            assert_eq!(e.measurements.len(), 5);
        }
    }
    (run, finished)
}

#[test]
fn killing_mid_run_keeps_finished_configurations() {
    for sig in [libc::SIGINT, libc::SIGKILL] {
        let out = tmp_path(&format!("alloc-kill-{sig}"));
        let _ = std::fs::remove_file(&out);
        let mut child = small_alloc(&out, None)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run tickbook");
        wait_for_finished_config(&out, Duration::from_secs(60));
        // SAFETY: signalling our own child process by its pid.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
        let status = child.wait().expect("wait");
        let (run, finished) = check_partial(&out);
        if sig == libc::SIGINT {
            assert_eq!(status.code(), Some(130));
            assert_eq!(run.status, "interrupted");
            assert!(suite(&run, "alloc")
                .error
                .as_deref()
                .unwrap_or("")
                .contains("SIGINT"));
        } else {
            // Killed outright: the last checkpoint is what is left.
            assert_eq!(run.status, "in_progress");
            assert!(suite(&run, "alloc")
                .error
                .as_deref()
                .unwrap_or("")
                .contains("in progress"));
        }
        println!("signal {sig}: {finished} finished configurations kept");
        common::terminal_shows(&out, "alloc");
        let _ = std::fs::remove_file(&out);
    }
}
