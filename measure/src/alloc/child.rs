//! One execution of an alloc-suite configuration, in its own process
//! (`tickbook __alloc-child --config <json>`): allocate the workload's arrays
//! through the allocator under test, place their pages by the strategy, run
//! warm-up and timed measurements, print one JSON line on stdout.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::placement;
use super::workloads;

/// Exit code of a child whose configuration could not run (bad config,
/// placement failed): the parent records it with the message on stderr.
const EXIT_SETUP: u8 = 2;
/// Exit code of an injected failure (tests).
const EXIT_INJECTED: u8 = 3;

#[derive(clap::Args, Debug)]
pub struct AllocChildArgs {
    /// The configuration as JSON (see `ChildConfig`).
    #[arg(long)]
    pub config: String,
}

/// What the parent tells a child.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChildConfig {
    pub workload: String,
    pub working_set_bytes: u64,
    pub strategy: String,
    pub allocator: String,
    pub warmup: u32,
    pub measurements: u32,
    /// Page colours of the colour cache (colouring strategies).
    pub colours: u32,
    /// Fault injection for tests, never set in normal use (the parent sets
    /// it only from `TICKBOOK_ALLOC_FAIL`): `exit`, `abort`, `segv`,
    /// `garbage`, `hang` (see [`inject`]).
    #[serde(default)]
    pub inject_failure: Option<String>,
}

/// What a child reports.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ChildReport {
    pub measurements_ns: Vec<f64>,
    #[serde(default)]
    pub colour_histogram: Vec<u64>,
    #[serde(default)]
    pub colour_misses: Option<u64>,
    #[serde(default)]
    pub placed_pages: Option<u64>,
    #[serde(default)]
    pub pool_shortfalls: Option<u64>,
    #[serde(default)]
    pub huge_page_bytes: Option<u64>,
    /// `kpageflags` (exact, the arrays' pages) or `smaps` (their mappings).
    #[serde(default)]
    pub huge_page_source: Option<String>,
    /// Page offsets of the arrays (address mod page size): what the
    /// allocator did with the alignment.
    #[serde(default)]
    pub array_page_offsets: Vec<u64>,
    pub checksum: f64,
}

/// The allocator under test, by name; `None` when not compiled in.
pub fn allocator(name: &str) -> Option<&'static dyn GlobalAlloc> {
    match name {
        "system" => Some(&System),
        #[cfg(feature = "mimalloc")]
        "mimalloc" => Some(&mimalloc::MiMalloc),
        #[cfg(feature = "jemalloc")]
        "jemalloc" => Some(&tikv_jemallocator::Jemalloc),
        _ => None,
    }
}

/// One allocation from a `GlobalAlloc`, freed on drop.
struct Buf {
    ptr: *mut u8,
    layout: Layout,
    alloc: &'static dyn GlobalAlloc,
}

impl Buf {
    fn new(alloc: &'static dyn GlobalAlloc, bytes: usize) -> Result<Buf, String> {
        // 64 bytes: a cache line, and enough for any element type here.
        let layout = Layout::from_size_align(bytes.max(64), 64)
            .map_err(|e| format!("layout of {bytes} bytes: {e}"))?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc.alloc(layout) };
        if ptr.is_null() {
            return Err(format!("allocation of {bytes} bytes failed"));
        }
        Ok(Buf { ptr, layout, alloc })
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        // SAFETY: allocated by this allocator with this layout.
        unsafe { self.alloc.dealloc(self.ptr, self.layout) };
    }
}

pub fn run(args: AllocChildArgs) -> ExitCode {
    let cfg: ChildConfig = match serde_json::from_str(&args.config) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("alloc child: bad --config: {e}");
            return ExitCode::from(EXIT_SETUP);
        }
    };
    if let Some(kind) = cfg.inject_failure.as_deref() {
        if let Some(code) = inject(kind, &cfg) {
            return code;
        }
    }
    match execute(&cfg) {
        Ok(report) => match serde_json::to_string(&report) {
            Ok(line) => {
                let mut out = std::io::stdout().lock();
                if writeln!(out, "{line}").and_then(|_| out.flush()).is_err() {
                    return ExitCode::FAILURE;
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("alloc child: cannot serialize the report: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("alloc child: {e}");
            ExitCode::from(EXIT_SETUP)
        }
    }
}

/// Fail on purpose, as the faults the parent must survive: a clean failure
/// (`exit`), a crash (`abort`: SIGABRT; `segv`: SIGSEGV), output that is not
/// a report (`garbage`), a child that never ends (`hang`, with a helper
/// process of its own in its process group, as a workload that forked
/// would leave). `None` for an unknown kind: the execution runs normally.
fn inject(kind: &str, cfg: &ChildConfig) -> Option<ExitCode> {
    match kind {
        "exit" => {
            eprintln!("alloc child: injected failure (exit {EXIT_INJECTED})");
            Some(ExitCode::from(EXIT_INJECTED))
        }
        "abort" => std::process::abort(),
        "segv" => {
            // SAFETY: plain libc calls on this process. The default action
            // first: Rust's own SIGSEGV handler (stack overflow detection)
            // would otherwise return from a raised signal. No core file.
            unsafe {
                let none = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                libc::setrlimit(libc::RLIMIT_CORE, &none);
                libc::signal(libc::SIGSEGV, libc::SIG_DFL);
                libc::raise(libc::SIGSEGV);
            }
            Some(ExitCode::FAILURE)
        }
        "garbage" => {
            println!("this is not JSON");
            Some(ExitCode::SUCCESS)
        }
        "hang" | "hang-helper" => {
            if kind == "hang" {
                // The helper inherits the pipes and the process group: only
                // a kill of the whole group ends both and closes the pipes.
                let helper = ChildConfig {
                    inject_failure: Some("hang-helper".into()),
                    ..cfg.clone()
                };
                if let Ok(json) = serde_json::to_string(&helper) {
                    let _ = std::process::Command::new("/proc/self/exe")
                        .arg("__alloc-child")
                        .arg("--config")
                        .arg(json)
                        .spawn();
                }
            }
            loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
        }
        _ => None,
    }
}

fn execute(cfg: &ChildConfig) -> Result<ChildReport, String> {
    let alloc = allocator(&cfg.allocator)
        .ok_or_else(|| format!("allocator {:?} is not compiled in", cfg.allocator))?;
    let shape = workloads::shape(&cfg.workload, cfg.working_set_bytes as usize)?;
    let bufs = shape
        .arrays
        .iter()
        .map(|&b| Buf::new(alloc, b))
        .collect::<Result<Vec<_>, _>>()?;
    let arrays: Vec<(*mut u8, usize)> = bufs
        .iter()
        .zip(&shape.arrays)
        .map(|(b, &len)| (b.ptr, len))
        .collect();
    let mut report = ChildReport {
        array_page_offsets: arrays
            .iter()
            .map(|(p, _)| (*p as usize % super::mem::page_size()) as u64)
            .collect(),
        ..ChildReport::default()
    };
    match cfg.strategy.as_str() {
        "default_4k" => {}
        "thp_madvise" => {
            placement::thp_advise(&arrays).map_err(|e| format!("madvise(MADV_HUGEPAGE): {e}"))?
        }
        "page_colouring" | "bin_hopping" => {
            // SAFETY: the arrays are live allocations of ours, not yet
            // viewed as slices and not used by anything else.
            let a =
                unsafe { placement::colour(&arrays, cfg.colours, cfg.strategy == "bin_hopping")? };
            report.colour_histogram = a.histogram;
            report.colour_misses = Some(a.misses);
            report.placed_pages = Some(a.pages);
            report.pool_shortfalls = Some(a.pool_shortfalls);
        }
        other => return Err(format!("unknown strategy {other:?}")),
    }
    // The slices live only inside this block, which ends before `bufs`
    // (their memory) is dropped below.
    let (m, checksum) = {
        // Zero-fill and view as slices only now: placement replaced pages.
        let views: Vec<&mut [u8]> = arrays
            .iter()
            .map(|&(p, len)| {
                // SAFETY: each (p, len) is inside its own live allocation of at
                // least len bytes; the allocations are disjoint; the Bufs outlive
                // the views (dropped at the end of this function).
                unsafe {
                    std::ptr::write_bytes(p, 0, len);
                    std::slice::from_raw_parts_mut(p, len)
                }
            })
            .collect();
        let mut work = workloads::build(&cfg.workload, views)?;
        let mut checksum = 0.0;
        for _ in 0..cfg.warmup {
            checksum += work.run(shape.reps);
        }
        let mut m = Vec::with_capacity(cfg.measurements as usize);
        for _ in 0..cfg.measurements {
            let t0 = Instant::now();
            checksum += work.run(shape.reps);
            m.push(t0.elapsed().as_nanos() as f64);
        }
        (m, checksum)
    };
    report.measurements_ns = m;
    report.checksum = checksum;
    match placement::huge_bytes(&arrays) {
        Ok((b, source)) => {
            report.huge_page_bytes = Some(b);
            report.huge_page_source = Some(source.to_string());
        }
        Err(e) => eprintln!("alloc child: huge pages not read: {e}"),
    }
    if report.colour_histogram.is_empty() && cfg.colours >= 2 {
        // The kernel's own placement, for comparison (no wanted colour, so
        // no misses). Empty where frames are hidden.
        if let Ok(h) = placement::colour_histogram(&arrays, cfg.colours) {
            if h.iter().sum::<u64>() > 0 {
                report.colour_histogram = h;
            }
        }
    }
    drop(bufs);
    Ok(report)
}
