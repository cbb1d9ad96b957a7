//! The native side of `scripts/bench-analysis`: times analysis kernels and
//! whole analyses in-process, one request per line on stdin, so the script
//! can interleave them with numpy/scipy/dtw-python and the wasm module.
//!
//! Request: `KERNEL FILE [THREADS]` (FILE: little-endian f64s written by
//! the script, or for `analyze` a result file; THREADS: the rayon pool it
//! runs on, 1 by default). Answer: one line, the seconds the
//! kernel took (its input read beforehand, its result kept from the
//! optimiser), or `error: …`.
//!
//! Kernels: `boot-mean`, `boot-median` (10,000 resamples, 95 %),
//! `linkage` (average), `dtw` (first half of FILE against the second,
//! symmetric2, with the path), `spearman` (same halves), `median` (type 7),
//! `exec-stats:E` (FILE cut into E executions, one series' execution
//! statistics with the default options), `analyze` (the whole file, as
//! `tickbook analyze`, on a one-thread pool).

use std::hint::black_box;
use std::io::{BufRead, Write};
use std::time::Instant;
use tickbook_analysis::options::Options;
use tickbook_analysis::report::analyze_bytes;
use tickbook_analysis::stats::bootstrap::{mean, median_ci, percentile_ci, BootstrapOptions};
use tickbook_analysis::stats::cluster::{cluster_1d, Linkage};
use tickbook_analysis::stats::dtw::{dtw, StepPattern};
use tickbook_analysis::stats::spearman::spearman;
use tickbook_analysis::stats::{quantile, QuantileType};
use tickbook_analysis::suites::executions::execution_stats;

fn f64s(path: &str) -> Result<Vec<f64>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    if bytes.len() % 8 != 0 {
        return Err(format!("{path}: not a whole number of f64s"));
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect())
}

fn run(kernel: &str, path: &str) -> Result<f64, String> {
    let boot = BootstrapOptions {
        resamples: 10_000,
        confidence: 0.95,
        ..BootstrapOptions::default()
    };
    if kernel == "analyze" {
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        let o = Options::default();
        let t = Instant::now();
        let r = analyze_bytes(path, &bytes, &o);
        let s = t.elapsed().as_secs_f64();
        if let Some(e) = &r.error {
            return Err(format!("{path}: {e:?}"));
        }
        black_box(r);
        return Ok(s);
    }
    let x = f64s(path)?;
    let (a, b) = x.split_at(x.len() / 2);
    let t = Instant::now();
    match kernel.split_once(':').map_or(kernel, |(k, _)| k) {
        "boot-mean" => {
            black_box(percentile_ci(&x, mean, &boot));
        }
        "boot-median" => {
            black_box(median_ci(&x, &boot));
        }
        "linkage" => {
            black_box(cluster_1d(&x, Linkage::Average));
        }
        "dtw" => {
            black_box(dtw(a, b, StepPattern::Symmetric2, None)?);
        }
        "spearman" => {
            black_box(spearman(a, b)?);
        }
        "median" => {
            black_box(quantile(&x, 0.5, QuantileType::TYPE7));
        }
        "exec-stats" => {
            let e: usize = kernel
                .split_once(':')
                .and_then(|(_, e)| e.parse().ok())
                .filter(|&e| e > 0 && x.len() % e == 0)
                .ok_or("exec-stats:E needs E dividing the values")?;
            let execs: Vec<Vec<f64>> = x.chunks(x.len() / e).map(<[f64]>::to_vec).collect();
            let t = Instant::now();
            black_box(execution_stats(&execs, &Options::default()));
            return Ok(t.elapsed().as_secs_f64());
        }
        k => return Err(format!("unknown kernel {k}")),
    }
    Ok(t.elapsed().as_secs_f64())
}

fn main() {
    // As `tickbook analyze`, on a rayon pool (of THREADS threads).
    let mut pools = std::collections::HashMap::new();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    for line in stdin.lock().lines().map_while(Result::ok) {
        let mut words = line.split_whitespace();
        let (Some(kernel), Some(path)) = (words.next(), words.next()) else {
            continue;
        };
        let threads: usize = words.next().and_then(|t| t.parse().ok()).unwrap_or(1);
        let pool = pools
            .entry(threads)
            .or_insert_with(|| rayon::ThreadPoolBuilder::new().num_threads(threads).build());
        let answer = match pool {
            Ok(p) => p.install(|| run(kernel, path)),
            Err(_) => run(kernel, path),
        };
        let _ = match answer {
            Ok(s) => writeln!(out, "{s:.9}"),
            Err(e) => writeln!(out, "error: {}", e.replace('\n', " ")),
        };
        let _ = out.flush();
    }
}
