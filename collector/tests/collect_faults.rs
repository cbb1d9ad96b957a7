//! Faults around the result file, with the real binary: a busy `--out`, a
//! read-only folder, and a disk that fills up between two suites. Each gets
//! a named, one-line error, and what was written before survives.

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
