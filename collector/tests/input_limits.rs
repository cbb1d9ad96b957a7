//! Huge inputs given to `tickbook analyze` (the real binary): a file over
//! each limit of `tickbook_analysis::limits` gets one clear line naming the
//! file, the limit and the variable that raises it, a non-zero exit, and
//! neither an OOM kill nor a long wait. Peak memory is read from the
//! child's own rusage.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn tmp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tickbook-limits-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(rel)
}

struct Ran {
    code: Option<i32>,
    signal: Option<i32>,
    stderr: String,
    took: Duration,
    max_rss_mib: f64,
}

/// `tickbook ARGS` with `env`, its exit, stderr, time and peak memory.
// The child is reaped by wait4, which gives its rusage too.
#[allow(clippy::zombie_processes)]
fn run(args: &[&std::ffi::OsStr], env: &[(&str, &str)]) -> Ran {
    let t = Instant::now();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tickbook"));
    cmd.args(args).stdout(Stdio::null()).stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let mut stderr = String::new();
    let mut pipe = child.stderr.take().unwrap();
    std::io::Read::read_to_string(&mut pipe, &mut stderr).unwrap();
    drop(pipe);
    // wait4 on this child alone: its exit and its own peak RSS.
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for a child this process spawned and has not reaped.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    Ran {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        stderr,
        took: t.elapsed(),
        max_rss_mib: usage.ru_maxrss as f64 / 1024.0,
    }
}

fn analyze(file: &Path, env: &[(&str, &str)]) -> Ran {
    run(&["analyze".as_ref(), file.as_os_str()], env)
}

/// One error line naming the file and each of `words`, exit 1, no signal.
fn refused(r: &Ran, file: &Path, words: &[&str]) {
    println!(
        "{} refused in {:?}, peak {:.0} MiB: {}",
        file.display(),
        r.took,
        r.max_rss_mib,
        r.stderr.trim()
    );
    assert_eq!(r.signal, None, "killed: {}", r.stderr);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {lines:?}");
    assert!(
        lines[0].starts_with(&format!("error: {}: too big to analyse: ", file.display())),
        "{}",
        lines[0]
    );
    for w in words {
        assert!(lines[0].contains(w), "{w:?} in {}", lines[0]);
    }
}

/// A `samples` file of `series` series, each one execution of `per`
/// samples, streamed to disk.
fn samples_file(path: &Path, series: usize, per: usize) {
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    w.write_all(br#"{"format":"tickbook","format_version":"1.0","kind":"samples","series":["#)
        .unwrap();
    let samples = vec!["1"; per].join(",");
    for i in 0..series {
        if i > 0 {
            w.write_all(b",").unwrap();
        }
        write!(
            w,
            r#"{{"name":"s{i}","unit":"ns","executions":[[{samples}]]}}"#
        )
        .unwrap();
    }
    w.write_all(b"]}").unwrap();
    w.flush().unwrap();
}

#[test]
fn a_file_over_the_size_limit_is_refused_without_being_read() {
    let dir = tmp_dir("size");
    let big = dir.join("big.json");
    // 1.1 GB on paper, nothing on disk: a sparse file.
    std::fs::File::create(&big)
        .unwrap()
        .set_len(1_181_116_006)
        .unwrap();
    let r = analyze(&big, &[]);
    refused(
        &r,
        &big,
        &[
            "1.1 GiB (1181116006 bytes)",
            "more than the 256 MiB a file may have",
            "TICKBOOK_MAX_FILE_BYTES",
        ],
    );
    // Never read: far below the file's size in memory, at once.
    assert!(r.max_rss_mib < 100.0, "{} MiB", r.max_rss_mib);
    assert!(r.took < Duration::from_secs(5), "{:?}", r.took);
    // The same in --compare, beside a good file, which is still read.
    let good = fixture("samples-3x5.json");
    let r = run(
        &[
            "analyze".as_ref(),
            "--compare".as_ref(),
            big.as_os_str(),
            good.as_os_str(),
        ],
        &[],
    );
    assert_eq!(r.signal, None);
    let errors: Vec<&str> = r.stderr.lines().filter(|l| l.contains("too big")).collect();
    assert_eq!(errors.len(), 1, "{}", r.stderr);
    assert!(errors[0].contains("big.json") && errors[0].contains("TICKBOOK_MAX_FILE_BYTES"));
    // As a calibration fit to apply: refused by its size too, never read.
    let r = run(
        &[
            "analyze".as_ref(),
            good.as_os_str(),
            "--calibrate-with".as_ref(),
            big.as_os_str(),
        ],
        &[],
    );
    assert_eq!((r.signal, r.code), (None, Some(2)), "{}", r.stderr);
    assert_eq!(
        r.stderr.trim(),
        format!(
            "error: {}: too big to analyse: the file is 1.1 GiB (1181116006 bytes), more than \
             the 256 MiB a file may have. Split the file, or set the environment variable \
             TICKBOOK_MAX_FILE_BYTES to a higher limit and use `tickbook analyze` (the page \
             keeps its limits)",
            big.display()
        )
    );
    assert!(r.max_rss_mib < 100.0, "{} MiB", r.max_rss_mib);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ten_million_series_are_refused_by_count_before_they_are_parsed() {
    let dir = tmp_dir("series");
    let file = dir.join("ten-million.json");
    let t = Instant::now();
    samples_file(&file, 10_000_000, 1);
    let size = std::fs::metadata(&file).unwrap().len();
    println!("wrote {size} bytes in {:?}", t.elapsed());
    // Over the size limit first…
    refused(&analyze(&file, &[]), &file, &["TICKBOOK_MAX_FILE_BYTES"]);
    // …and with that raised, over the count of objects, arrays and strings,
    // found by the scan before any JSON tree is built: memory stays near
    // the file's bytes (read whole), far below the tree's gigabytes.
    let raised = [("TICKBOOK_MAX_FILE_BYTES", "1000000000")];
    let r = analyze(&file, &raised);
    refused(
        &r,
        &file,
        &[
            "more than 4000000 JSON objects, arrays, strings and keys",
            "TICKBOOK_MAX_VALUES",
        ],
    );
    assert!(
        r.max_rss_mib < size as f64 / 1048576.0 + 200.0,
        "{} MiB for a {size}-byte file",
        r.max_rss_mib
    );
    assert!(r.took < Duration::from_secs(20), "{:?}", r.took);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn too_many_numbers_or_series_are_refused_with_their_limit() {
    let dir = tmp_dir("numbers");
    // 20 000 010 samples in 10 series: ~40 MB.
    let numbers = dir.join("numbers.json");
    samples_file(&numbers, 10, 2_000_001);
    let r = analyze(&numbers, &[]);
    refused(
        &r,
        &numbers,
        &["more than 20000000 numbers", "TICKBOOK_MAX_NUMBERS"],
    );
    assert!(r.took < Duration::from_secs(10), "{:?}", r.took);

    // 10 001 series: read, then refused before the analysis (which would
    // compare every pair of series).
    let series = dir.join("series.json");
    samples_file(&series, 10_001, 3);
    let r = analyze(&series, &[]);
    refused(
        &r,
        &series,
        &[
            "holds 10001 series, more than the 10000 a file may hold",
            "TICKBOOK_MAX_SERIES",
        ],
    );
    assert!(r.took < Duration::from_secs(10), "{:?}", r.took);

    // The variables move the limits both ways, and a bad one is named.
    let good = fixture("samples-3x5.json");
    let r = analyze(&good, &[]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let r = analyze(&good, &[("TICKBOOK_MAX_SERIES", "1")]);
    refused(
        &r,
        &good,
        &["holds 2 series, more than the 1 a file may hold"],
    );
    let r = analyze(&series, &[("TICKBOOK_MAX_SERIES", "x")]);
    assert_eq!(r.code, Some(2));
    assert_eq!(
        r.stderr.trim(),
        "error: TICKBOOK_MAX_SERIES=\"x\": expected a positive whole number"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
