//! Faults around the result file, with the real binary: a busy `--out`, a
//! read-only folder, and a disk that fills up between two suites; and alloc
//! children that hang or crash (real child processes, made to fail by the
//! collector's fault-injection hook `TICKBOOK_ALLOC_FAIL`). Each gets a
//! named, one-line error, and what was written before survives.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use tickbook_analysis::format::RunFile;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tickbook"))
}

fn tmp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tickbook-faults-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A tmpfs of `size` at `dir` (root only), unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, opts: &str) -> Tmpfs {
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", opts, "tickbook-test"])
            .arg(dir)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, "mount -t tmpfs -o {opts} {}", dir.display());
        Tmpfs(dir.to_path_buf())
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

fn read_run(path: &Path) -> Option<RunFile> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

fn stderr_lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| l.contains("tickbook collect:"))
        .map(str::to_string)
        .collect()
}

#[test]
fn two_collections_cannot_share_an_output_file() {
    let dir = tmp_dir("lock");
    let out = dir.join("run.json");
    let mut first = bin()
        .args(["collect", "bottleneck", "--quick", "--out"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The first run writes its file before measuring anything.
    let t = Instant::now();
    while read_run(&out).is_none() {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "no file from the first run"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = bin()
        .args(["collect", "clocks", "--quick", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(!second.status.success());
    let lines = stderr_lines(&second);
    println!("second run: {lines:?}");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains("another tickbook collect is writing") && lines[0].contains("run.json")
    );
    assert!(first.wait().unwrap().success());
    let run = read_run(&out).expect("the first run's file");
    assert_eq!(run.status, "complete");
    let names: Vec<_> = run.suites.iter().map(|s| s.suite.as_str()).collect();
    assert_eq!(names, ["bottleneck"], "only the first run's suite");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_read_only_folder_is_refused_before_any_suite_runs() {
    let dir = tmp_dir("ro");
    let ro = dir.join("ro");
    std::fs::create_dir_all(&ro).unwrap();
    // Root writes through permission bits: mount a read-only tmpfs instead.
    let _mount = if is_root() {
        Some(Tmpfs::mount(&ro, "ro,size=1m"))
    } else {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        None
    };
    let t = Instant::now();
    let o = bin()
        .args(["collect", "bernoulli", "--quick", "--out"])
        .arg(ro.join("run.json"))
        .output()
        .unwrap();
    let took = t.elapsed();
    assert!(!o.status.success());
    let lines = stderr_lines(&o);
    println!("read-only folder: {lines:?} after {took:?}");
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains("cannot write") && lines[0].contains("ro/run.json"),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].contains("Read-only file system") || lines[0].contains("Permission denied"),
        "{}",
        lines[0]
    );
    // bernoulli takes tens of seconds: refusing first means no suite ran.
    assert!(
        took < Duration::from_secs(15),
        "refused only after {took:?}"
    );
    drop(_mount);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_full_disk_keeps_the_file_of_the_last_suite_that_fit() {
    if !is_root() {
        println!("skipped: mounting a small tmpfs needs root; run as root to test a full disk");
        return;
    }
    let dir = tmp_dir("full");
    let disk = dir.join("disk");
    std::fs::create_dir_all(&disk).unwrap();
    let _mount = Tmpfs::mount(&disk, "size=64m");
    let out = disk.join("run.json");
    let child = bin()
        .args(["collect", "clocks", "bottleneck", "--quick", "--out"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once the clocks suite is in the file, fill the disk so the next write
    // (after bottleneck, seconds later) finds no room.
    let t = Instant::now();
    let after_clocks = loop {
        if let Some(r) = read_run(&out).filter(|r| r.suites.iter().any(|s| s.suite == "clocks")) {
            break r;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the clocks suite never landed"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(
        after_clocks.suites.iter().all(|s| s.suite == "clocks"),
        "filled before bottleneck landed"
    );
    // tmpfs has no fallocate of more than is free: write zeros until full.
    let _ = Command::new("dd")
        .args(["if=/dev/zero", "bs=64k"])
        .arg(format!("of={}", disk.join("filler").display()))
        .stderr(Stdio::null())
        .status();
    let o = child.wait_with_output().unwrap();
    assert!(!o.status.success(), "a failed write fails the run");
    let stderr = String::from_utf8_lossy(&o.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("cannot write"))
        .collect();
    println!("full disk: {errors:?}");
    assert_eq!(errors.len(), 1, "said once: {errors:?}");
    assert!(
        errors
            .iter()
            .all(|l| l.contains("run.json") && l.contains("No space left on device")),
        "{errors:?}"
    );
    let kept = read_run(&out).expect("the last good file is intact and readable");
    let clocks = kept
        .suites
        .iter()
        .find(|s| s.suite == "clocks")
        .expect("clocks kept");
    assert_eq!(clocks.status, "complete");
    let leftovers: Vec<_> = std::fs::read_dir(&disk)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    drop(_mount);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The alloc executions of a result file, by schedule position:
/// (configuration key, ok, error, measurements).
type Executions = std::collections::BTreeMap<u32, (String, bool, Option<String>, Vec<f64>)>;

fn alloc_executions(run: &RunFile) -> Option<Executions> {
    let suite = run.suites.iter().find(|s| s.suite == "alloc")?;
    let data: tickbook_analysis::suites::alloc::AllocData =
        serde_json::from_value(suite.data.clone()).ok()?;
    let mut out = Executions::new();
    for c in &data.configs {
        let key = format!("{} {} {}", c.workload, c.strategy, c.allocator);
        for e in &c.executions {
            out.insert(
                e.order,
                (key.clone(), e.ok, e.error.clone(), e.measurements.clone()),
            );
        }
    }
    Some(out)
}

/// Processes whose environment holds `marker` (children inherit it).
fn processes_marked(marker: &str) -> Vec<String> {
    let needle = marker.as_bytes();
    std::fs::read_dir("/proc")
        .map(|d| {
            d.filter_map(|e| {
                let e = e.ok()?;
                let pid = e.file_name().into_string().ok()?;
                pid.parse::<u32>().ok()?;
                let env = std::fs::read(e.path().join("environ")).ok()?;
                env.windows(needle.len())
                    .any(|w| w == needle)
                    .then_some(pid)
            })
            .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_hung_or_crashed_alloc_child_is_recorded_and_the_run_goes_on() {
    let dir = tmp_dir("alloc-child");
    let out = dir.join("alloc.json");
    let marker = format!("TICKBOOK_FAULTS_MARK=hang-{}", std::process::id());
    let timeout = Duration::from_secs(2);
    // Position 3 hangs (with a helper process of its own), position 7 dies
    // of SIGSEGV; the others run normally.
    let started = Instant::now();
    let mut child = bin()
        .args([
            "collect",
            "alloc",
            "--quick",
            "--executions",
            "4",
            "--measurements",
            "6",
            "--execution-timeout",
            "2",
            "--out",
        ])
        .arg(&out)
        .env("TICKBOOK_ALLOC_CONFIG_LIMIT", "12")
        .env("TICKBOOK_ALLOC_SEED", "42")
        .env("TICKBOOK_ALLOC_FAIL", "3:hang,7:segv")
        .env(
            marker.split_once('=').unwrap().0,
            marker.split_once('=').unwrap().1,
        )
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Watch the file while the run goes: the executions before the hang
    // must be in it while the child hangs, and the hang must last the
    // timeout, not more.
    let mut before_hang: Option<(Instant, Executions)> = None;
    let mut hang_ended: Option<Instant> = None;
    while child.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the run did not end"
        );
        if let Some(ex) = read_run(&out).as_ref().and_then(alloc_executions) {
            let orders: Vec<u32> = ex.keys().copied().collect();
            if orders == [0, 1, 2] && before_hang.is_none() {
                before_hang = Some((Instant::now(), ex));
            } else if orders.contains(&3) && hang_ended.is_none() {
                hang_ended = Some(Instant::now());
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = started.elapsed();
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let (seen_at, before) = before_hang.expect("the file held executions 0–2 during the hang");
    let hang = hang_ended.expect("the hung execution was recorded") - seen_at;
    println!("run took {took:?}; the hung execution was recorded {hang:?} after the one before it");
    // Killed at the timeout: not before, and not much after (the file is
    // read every 10 ms; an execution takes ~0.1 s here).
    assert!(
        hang >= timeout - Duration::from_millis(100) && hang < timeout + Duration::from_secs(2),
        "{hang:?}"
    );
    // The hung child and its helper were killed with their process group.
    let left = processes_marked(&marker);
    assert!(left.is_empty(), "processes left: {left:?}");

    let run = read_run(&out).expect("the file");
    assert_eq!(run.status, "complete");
    let suite = run.suites.iter().find(|s| s.suite == "alloc").unwrap();
    assert_eq!(suite.status, "complete", "{:?}", suite.error);
    let ex = alloc_executions(&run).unwrap();
    // Every scheduled execution ran, the two faults failed, the rest have
    // all their samples.
    assert_eq!(
        ex.keys().copied().collect::<Vec<_>>(),
        (0..ex.len() as u32).collect::<Vec<_>>()
    );
    assert!(ex.len() >= 40, "{} executions", ex.len());
    let failed: Vec<(u32, &str)> = ex
        .iter()
        .filter(|(_, e)| !e.1)
        .map(|(o, e)| (*o, e.2.as_deref().unwrap_or("")))
        .collect();
    println!("failed: {failed:?}");
    assert_eq!(
        failed,
        [
            (
                3,
                "timed out after 2 s (the execution timeout) and was killed"
            ),
            (7, "killed by SIGSEGV"),
        ]
    );
    for (order, (key, ok, _, m)) in &ex {
        if *ok {
            assert_eq!(m.len(), 6, "execution {order} of {key}");
            assert!(m.iter().all(|v| v.is_finite() && *v > 0.0));
        } else {
            assert!(m.is_empty());
        }
    }
    // What was in the file before the hang is in the final file unchanged.
    for (order, e) in &before {
        assert_eq!(&ex[order], e, "execution {order}");
    }

    // `tickbook analyze` shows both failures against their configurations.
    let text = bin().arg("analyze").arg(&out).output().unwrap();
    assert!(text.status.success());
    let text = String::from_utf8_lossy(&text.stdout);
    let json = bin()
        .args(["analyze", "--json"])
        .arg(&out)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    for (order, message) in failed {
        let key = &ex[&order].0;
        let (workload, rest) = key.split_once(' ').unwrap();
        let (strategy, allocator) = rest.split_once(' ').unwrap();
        let config = json[0]["alloc"]["configs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| {
                c["workload"] == workload
                    && c["strategy"] == strategy
                    && c["allocator"] == allocator
            })
            .unwrap();
        assert_eq!(config["executions_failed"], 1, "{key}");
        assert_eq!(config["executions_ok"], 3, "{key}");
        assert_eq!(
            config["failures"],
            serde_json::json!([[message, 1]]),
            "{key}"
        );
        let line = text
            .lines()
            .find(|l| {
                l.contains("failed executions of") && l.contains(strategy) && l.contains(allocator)
            })
            .unwrap_or_else(|| panic!("no failure line for {key} in:\n{text}"));
        assert!(line.ends_with(&format!("1× {message}")), "{line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
