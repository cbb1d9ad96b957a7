//! Reading the workload thread's metrics: perf events opened on its tid
//! (hardware where the PMU allows, software always tried), `/proc` task
//! files, the TSC, the clock, the workload's progress and its
//! instrumentation counters. A [`Plan`] (decided once per suite) says which
//! metric comes from where; a [`Reader`] (one per run) reads them all.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::time::Instant;

use perf_event::events::{Cache, CacheId, CacheOp, CacheResult, Hardware, Software};
use perf_event::Builder;
use tickbook_analysis::suites::trace::{TraceMetric, UnavailableMetric};

use super::counters::Probe;

/// The perf events asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerfEv {
    Cycles,
    Instructions,
    CacheReferences,
    CacheMisses,
    Branches,
    BranchMisses,
    L1dReadMisses,
    LlcReadMisses,
    DtlbReadMisses,
    TaskClock,
    MinorFaults,
    MajorFaults,
    ContextSwitches,
    CpuMigrations,
}

pub const PERF_EVENTS: [PerfEv; 14] = [
    PerfEv::Cycles,
    PerfEv::Instructions,
    PerfEv::CacheReferences,
    PerfEv::CacheMisses,
    PerfEv::Branches,
    PerfEv::BranchMisses,
    PerfEv::L1dReadMisses,
    PerfEv::LlcReadMisses,
    PerfEv::DtlbReadMisses,
    PerfEv::TaskClock,
    PerfEv::MinorFaults,
    PerfEv::MajorFaults,
    PerfEv::ContextSwitches,
    PerfEv::CpuMigrations,
];

impl PerfEv {
    pub fn name(self) -> &'static str {
        match self {
            PerfEv::Cycles => "cycles",
            PerfEv::Instructions => "instructions",
            PerfEv::CacheReferences => "cache_references",
            PerfEv::CacheMisses => "cache_misses",
            PerfEv::Branches => "branches",
            PerfEv::BranchMisses => "branch_misses",
            PerfEv::L1dReadMisses => "l1d_read_misses",
            PerfEv::LlcReadMisses => "llc_read_misses",
            PerfEv::DtlbReadMisses => "dtlb_read_misses",
            PerfEv::TaskClock => "task_clock",
            PerfEv::MinorFaults => "minor_faults",
            PerfEv::MajorFaults => "major_faults",
            PerfEv::ContextSwitches => "context_switches",
            PerfEv::CpuMigrations => "cpu_migrations",
        }
    }

    pub fn hardware(self) -> bool {
        !matches!(
            self,
            PerfEv::TaskClock
                | PerfEv::MinorFaults
                | PerfEv::MajorFaults
                | PerfEv::ContextSwitches
                | PerfEv::CpuMigrations
        )
    }

    fn unit(self) -> &'static str {
        match self {
            PerfEv::Cycles => "cycles",
            PerfEv::TaskClock => "ns",
            _ => "count",
        }
    }

    fn perf_name(self) -> &'static str {
        match self {
            PerfEv::Cycles => "PERF_COUNT_HW_CPU_CYCLES",
            PerfEv::Instructions => "PERF_COUNT_HW_INSTRUCTIONS",
            PerfEv::CacheReferences => "PERF_COUNT_HW_CACHE_REFERENCES",
            PerfEv::CacheMisses => "PERF_COUNT_HW_CACHE_MISSES",
            PerfEv::Branches => "PERF_COUNT_HW_BRANCH_INSTRUCTIONS",
            PerfEv::BranchMisses => "PERF_COUNT_HW_BRANCH_MISSES",
            PerfEv::L1dReadMisses => "PERF_COUNT_HW_CACHE_L1D read miss",
            PerfEv::LlcReadMisses => "PERF_COUNT_HW_CACHE_LL read miss",
            PerfEv::DtlbReadMisses => "PERF_COUNT_HW_CACHE_DTLB read miss",
            PerfEv::TaskClock => "PERF_COUNT_SW_TASK_CLOCK",
            PerfEv::MinorFaults => "PERF_COUNT_SW_PAGE_FAULTS_MIN",
            PerfEv::MajorFaults => "PERF_COUNT_SW_PAGE_FAULTS_MAJ",
            PerfEv::ContextSwitches => "PERF_COUNT_SW_CONTEXT_SWITCHES",
            PerfEv::CpuMigrations => "PERF_COUNT_SW_CPU_MIGRATIONS",
        }
    }

    fn builder(self) -> Builder<'static> {
        let cache = |which| Cache {
            which,
            operation: CacheOp::READ,
            result: CacheResult::MISS,
        };
        match self {
            PerfEv::Cycles => Builder::new(Hardware::CPU_CYCLES),
            PerfEv::Instructions => Builder::new(Hardware::INSTRUCTIONS),
            PerfEv::CacheReferences => Builder::new(Hardware::CACHE_REFERENCES),
            PerfEv::CacheMisses => Builder::new(Hardware::CACHE_MISSES),
            PerfEv::Branches => Builder::new(Hardware::BRANCH_INSTRUCTIONS),
            PerfEv::BranchMisses => Builder::new(Hardware::BRANCH_MISSES),
            PerfEv::L1dReadMisses => Builder::new(cache(CacheId::L1D)),
            PerfEv::LlcReadMisses => Builder::new(cache(CacheId::LL)),
            PerfEv::DtlbReadMisses => Builder::new(cache(CacheId::DTLB)),
            PerfEv::TaskClock => Builder::new(Software::TASK_CLOCK),
            PerfEv::MinorFaults => Builder::new(Software::PAGE_FAULTS_MIN),
            PerfEv::MajorFaults => Builder::new(Software::PAGE_FAULTS_MAJ),
            PerfEv::ContextSwitches => Builder::new(Software::CONTEXT_SWITCHES),
            PerfEv::CpuMigrations => Builder::new(Software::CPU_MIGRATIONS),
        }
    }

    /// Open on thread `tid` (any CPU, enabled). Kernel-mode events are
    /// counted when allowed: context switches and migrations happen in the
    /// kernel and read 0 in user-only counting.
    pub fn open(self, tid: i32, user_only: bool) -> io::Result<perf_event::Counter> {
        let mut b = self.builder();
        b.observe_pid(tid)
            .any_cpu()
            .exclude_kernel(user_only)
            .exclude_hv(true)
            .enabled(true);
        b.build()
    }
}

/// The symbolic name of an errno, for the reasons recorded.
pub fn errno_name(e: &io::Error) -> String {
    let n = match e.raw_os_error() {
        Some(n) => n,
        None => return e.to_string(),
    };
    let sym = match n {
        libc::ENOENT => "ENOENT",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        libc::EACCES => "EACCES",
        libc::EPERM => "EPERM",
        libc::EINVAL => "EINVAL",
        libc::ENODEV => "ENODEV",
        libc::ENOSYS => "ENOSYS",
        libc::EBUSY => "EBUSY",
        libc::EMFILE => "EMFILE",
        libc::ESRCH => "ESRCH",
        _ => "",
    };
    let msg = io::Error::from_raw_os_error(n).to_string();
    // "Operation not supported (os error 95)" → "… (EOPNOTSUPP, errno 95)"
    let text = msg.split(" (os error").next().unwrap_or(&msg).to_string();
    if sym.is_empty() {
        format!("{text} (errno {n})")
    } else {
        format!("{text} ({sym}, errno {n})")
    }
}

pub(crate) fn errno_hint(e: &io::Error) -> &'static str {
    match e.raw_os_error() {
        Some(libc::ENOENT) | Some(libc::EOPNOTSUPP) => {
            ": the kernel exposes no PMU event for it here (no hardware counters, e.g. a VM without a virtual PMU)"
        }
        Some(libc::EACCES) | Some(libc::EPERM) => {
            ": not permitted (kernel.perf_event_paranoid, missing CAP_PERFMON, or a seccomp filter)"
        }
        Some(libc::ENOSYS) => ": perf_event_open is not implemented by this kernel",
        _ => "",
    }
}

/// Where each column of a record comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Src {
    /// CLOCK_MONOTONIC (through `Instant`), ns.
    Wall,
    Tsc,
    Progress,
    Perf(PerfEv),
    /// `/proc/self/task/<tid>/schedstat` first field: ns on CPU.
    SchedstatCpu,
    /// `/proc/self/task/<tid>/stat` minflt / majflt.
    StatMinflt,
    StatMajflt,
    /// `/proc/self/task/<tid>/status` voluntary / nonvoluntary_ctxt_switches.
    StatusVoluntary,
    StatusInvoluntary,
    /// The workload's instrumentation counter `i` (from a level on).
    Instr(usize, u32),
}

#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    pub src: Src,
}

/// What the suite reads, decided once by probing a parked thread.
pub struct Plan {
    /// Columns every run has (instrumentation columns are added per run).
    pub columns: Vec<Column>,
    pub metrics: Vec<TraceMetric>,
    pub unavailable: Vec<UnavailableMetric>,
    pub fallbacks: Vec<String>,
    /// perf events count user mode only (kernel counting was refused).
    pub user_only: bool,
    pub tsc: Option<fn() -> u64>,
}

fn metric(name: &str, unit: &str, class: &str, source: &str, d: String) -> TraceMetric {
    TraceMetric {
        name: name.to_string(),
        unit: unit.to_string(),
        class: class.to_string(),
        source: source.to_string(),
        description: Some(d),
    }
}

fn proc_readable(tid: i32, file: &str) -> Result<(), String> {
    let path = format!("/proc/self/task/{tid}/{file}");
    std::fs::read(&path)
        .map(|_| ())
        .map_err(|e| format!("{path}: {e}"))
}

/// Probe perf events and /proc files on a parked thread and decide every
/// metric's source. `tsc`: the counter read, or why there is none.
pub fn plan(tsc: Result<fn() -> u64, String>) -> Plan {
    let (tx, rx) = std::sync::mpsc::channel();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let parked = std::thread::spawn(move || {
        // SAFETY: gettid has no preconditions.
        let _ = tx.send(unsafe { libc::gettid() });
        let _ = done_rx.recv();
    });
    let tid = rx.recv().unwrap_or(0);

    let mut p = Plan {
        columns: Vec::new(),
        metrics: Vec::new(),
        unavailable: Vec::new(),
        fallbacks: Vec::new(),
        user_only: false,
        tsc: None,
    };
    let col = |p: &mut Plan, m: TraceMetric, src: Src| {
        p.columns.push(Column {
            name: m.name.clone(),
            src,
        });
        p.metrics.push(m);
    };
    col(
        &mut p,
        metric(
            "wall_ns",
            "ns",
            "software",
            "clock_gettime",
            "length of the interval, CLOCK_MONOTONIC (std::time::Instant) read by the sampler"
                .into(),
        ),
        Src::Wall,
    );
    match tsc {
        Ok(read) => {
            p.tsc = Some(read);
            col(
                &mut p,
                metric(
                    "tsc_cycles",
                    "cycles",
                    "software",
                    "tsc",
                    format!(
                        "cycle counter ticks ({}) over the interval, read by the sampler: elapsed time at the counter's constant rate, not core cycles",
                        super::super::tsc::ORDERED_NAME
                    ),
                ),
                Src::Tsc,
            );
        }
        Err(why) => p.unavailable.push(UnavailableMetric {
            name: "tsc_cycles".into(),
            source: "tsc".into(),
            reason: why,
        }),
    }
    col(
        &mut p,
        metric(
            "progress",
            "work units",
            "progress",
            "workload",
            "work units the workload finished in the interval (its unit is the workload's progress_unit in the suite config)".into(),
        ),
        Src::Progress,
    );

    // Testing aid: exercise the /proc fallbacks on a machine where perf
    // events work.
    let no_perf = std::env::var_os("TICKBOOK_TRACE_NO_PERF").is_some();
    if no_perf {
        p.fallbacks
            .push("perf events not tried: TICKBOOK_TRACE_NO_PERF is set (testing aid)".to_string());
    }
    // Kernel-mode counting first; user-only when that is refused.
    let first = if no_perf {
        Ok(())
    } else {
        PerfEv::TaskClock.open(tid, false).map(drop)
    };
    if let Err(e) = &first {
        if matches!(e.raw_os_error(), Some(libc::EACCES) | Some(libc::EPERM))
            && PerfEv::TaskClock.open(tid, true).is_ok()
        {
            p.user_only = true;
            p.fallbacks.push(format!(
                "perf events count user mode only: counting kernel mode was refused ({}); context switches and migrations are then not counted by perf",
                errno_name(e)
            ));
        }
    }
    let mode = if p.user_only {
        "user mode only"
    } else {
        "user and kernel mode"
    };
    let mut perf_ok = Vec::new();
    for ev in PERF_EVENTS {
        let kernel_only = matches!(ev, PerfEv::ContextSwitches | PerfEv::CpuMigrations);
        if p.user_only && kernel_only {
            p.unavailable.push(UnavailableMetric {
                name: ev.name().into(),
                source: "perf_event".into(),
                reason: format!(
                    "{}: counting kernel mode was refused, and user-only counting never sees these kernel events",
                    ev.perf_name()
                ),
            });
            continue;
        }
        if no_perf {
            p.unavailable.push(UnavailableMetric {
                name: ev.name().into(),
                source: "perf_event".into(),
                reason: "not tried: TICKBOOK_TRACE_NO_PERF is set (testing aid)".into(),
            });
            continue;
        }
        match ev.open(tid, p.user_only) {
            Ok(_) => {
                perf_ok.push(ev);
                let class = if ev.hardware() {
                    "hardware"
                } else {
                    "software"
                };
                col(
                    &mut p,
                    metric(
                        ev.name(),
                        ev.unit(),
                        class,
                        "perf_event",
                        format!(
                            "{} on the workload thread, {mode}; scaled by time_enabled/time_running if multiplexed",
                            ev.perf_name()
                        ),
                    ),
                    Src::Perf(ev),
                );
            }
            Err(e) => p.unavailable.push(UnavailableMetric {
                name: ev.name().into(),
                source: "perf_event".into(),
                reason: format!(
                    "perf_event_open({}) on the workload thread: {}{}",
                    ev.perf_name(),
                    errno_name(&e),
                    errno_hint(&e)
                ),
            }),
        }
    }

    // Software metrics perf could not give come from /proc.
    let fallback = |p: &mut Plan, ev: PerfEv, file: &str, src: Src, d: &str| {
        if perf_ok.contains(&ev) {
            return;
        }
        match proc_readable(tid, file) {
            Ok(()) => {
                p.fallbacks.push(format!(
                    "{} read from /proc/self/task/<tid>/{file} instead of perf_event",
                    ev.name()
                ));
                col(
                    p,
                    metric(
                        ev.name(),
                        ev.unit(),
                        "software",
                        &format!("proc_{file}"),
                        d.into(),
                    ),
                    src,
                );
            }
            Err(e) => p.unavailable.push(UnavailableMetric {
                name: ev.name().into(),
                source: format!("proc_{file}"),
                reason: e,
            }),
        }
    };
    fallback(
        &mut p,
        PerfEv::TaskClock,
        "schedstat",
        Src::SchedstatCpu,
        "ns the workload thread ran on a CPU (schedstat field 1)",
    );
    fallback(
        &mut p,
        PerfEv::MinorFaults,
        "stat",
        Src::StatMinflt,
        "minor faults of the workload thread (stat field 10, minflt)",
    );
    fallback(
        &mut p,
        PerfEv::MajorFaults,
        "stat",
        Src::StatMajflt,
        "major faults of the workload thread (stat field 12, majflt)",
    );
    // The voluntary/involuntary split exists only in /proc: always read.
    match proc_readable(tid, "status") {
        Ok(()) => {
            col(
                &mut p,
                metric(
                    "voluntary_context_switches",
                    "count",
                    "software",
                    "proc_status",
                    "voluntary_ctxt_switches of the workload thread (it blocked)".into(),
                ),
                Src::StatusVoluntary,
            );
            col(
                &mut p,
                metric(
                    "involuntary_context_switches",
                    "count",
                    "software",
                    "proc_status",
                    "nonvoluntary_ctxt_switches of the workload thread (preempted)".into(),
                ),
                Src::StatusInvoluntary,
            );
        }
        Err(e) => {
            for n in ["voluntary_context_switches", "involuntary_context_switches"] {
                p.unavailable.push(UnavailableMetric {
                    name: n.into(),
                    source: "proc_status".into(),
                    reason: e.clone(),
                });
            }
        }
    }
    let _ = done_tx.send(());
    let _ = parked.join();
    p
}

/// One reading of every column: cumulative values, plus perf's enabled and
/// running times for multiplexing.
#[derive(Clone)]
pub struct Snapshot {
    pub at: Instant,
    pub values: Vec<u64>,
    pub enabled: Vec<u64>,
    pub running: Vec<u64>,
}

pub struct Reader<'a> {
    pub columns: Vec<Column>,
    perf: Vec<Option<perf_event::Counter>>,
    stat: Option<File>,
    status: Option<File>,
    schedstat: Option<File>,
    probe: &'a Probe,
    tsc: Option<fn() -> u64>,
    buf: Vec<u8>,
    /// Largest running/enabled shortfall seen (multiplexing), per column.
    pub multiplexed: Vec<f64>,
    /// Longest time one read of all columns took.
    pub max_read: std::time::Duration,
}

impl<'a> Reader<'a> {
    /// Open everything for thread `tid`. A planned source that fails now is
    /// dropped from this run's columns with a note in `notes`.
    pub fn open(
        plan: &Plan,
        extra: Vec<Column>,
        tid: i32,
        probe: &'a Probe,
        notes: &mut Vec<String>,
    ) -> Reader<'a> {
        let task = format!("/proc/self/task/{tid}");
        let open_file = |name: &str, wanted: bool, notes: &mut Vec<String>| {
            if !wanted {
                return None;
            }
            match File::open(format!("{task}/{name}")) {
                Ok(f) => Some(f),
                Err(e) => {
                    notes.push(format!("{task}/{name}: {e}"));
                    None
                }
            }
        };
        let cols = &plan.columns;
        let uses = |f: &dyn Fn(Src) -> bool| cols.iter().any(|c| f(c.src));
        let stat = open_file(
            "stat",
            uses(&|s| matches!(s, Src::StatMinflt | Src::StatMajflt)),
            notes,
        );
        let status = open_file(
            "status",
            uses(&|s| matches!(s, Src::StatusVoluntary | Src::StatusInvoluntary)),
            notes,
        );
        let schedstat = open_file("schedstat", uses(&|s| s == Src::SchedstatCpu), notes);
        let mut columns = Vec::new();
        let mut perf = Vec::new();
        for c in cols.iter().chain(extra.iter()) {
            let (keep, counter) = match c.src {
                Src::Perf(ev) => match ev.open(tid, plan.user_only) {
                    Ok(k) => (true, Some(k)),
                    Err(e) => {
                        notes.push(format!("{}: {}", c.name, errno_name(&e)));
                        (false, None)
                    }
                },
                Src::StatMinflt | Src::StatMajflt => (stat.is_some(), None),
                Src::StatusVoluntary | Src::StatusInvoluntary => (status.is_some(), None),
                Src::SchedstatCpu => (schedstat.is_some(), None),
                _ => (true, None),
            };
            if keep {
                columns.push(c.clone());
                perf.push(counter);
            }
        }
        let n = columns.len();
        Reader {
            columns,
            perf,
            stat,
            status,
            schedstat,
            probe,
            tsc: plan.tsc,
            buf: vec![0; 4096],
            multiplexed: vec![0.0; n],
            max_read: std::time::Duration::ZERO,
        }
    }

    fn read_file(buf: &mut [u8], f: &Option<File>) -> Option<String> {
        let f = f.as_ref()?;
        let n = f.read_at(buf, 0).ok()?;
        Some(String::from_utf8_lossy(&buf[..n]).into_owned())
    }

    /// Read every column. The clock, the TSC, progress, instrumentation
    /// counters and perf counters are read first and close together; the
    /// /proc files (tens of µs) after them. How long the whole read took is
    /// kept (`max_read`): a sampler preempted inside a read skews that
    /// record's columns against each other.
    pub fn read(&mut self) -> Snapshot {
        let n = self.columns.len();
        let mut s = Snapshot {
            at: Instant::now(),
            values: vec![0; n],
            enabled: vec![0; n],
            running: vec![0; n],
        };
        let tsc = self.tsc.map(|r| r()).unwrap_or(0);
        for (i, c) in self.columns.iter().enumerate() {
            s.values[i] = match c.src {
                Src::Tsc => tsc,
                Src::Progress => self.probe.progress(),
                Src::Instr(k, _) => self.probe.counter(k),
                Src::Perf(_) => match self.perf[i].as_mut().map(|k| k.read_count_and_time()) {
                    Some(Ok(ct)) => {
                        s.enabled[i] = ct.time_enabled;
                        s.running[i] = ct.time_running;
                        ct.count
                    }
                    _ => 0,
                },
                _ => 0,
            };
        }
        let stat = Self::read_file(&mut self.buf, &self.stat);
        let stat_fields: Vec<&str> = stat
            .as_deref()
            .and_then(|t| t.rsplit_once(')'))
            .map(|(_, rest)| rest.split_whitespace().collect())
            .unwrap_or_default();
        let status = Self::read_file(&mut self.buf, &self.status);
        let schedstat = Self::read_file(&mut self.buf, &self.schedstat);
        let status_field = |key: &str| -> u64 {
            status
                .as_deref()
                .and_then(|t| t.lines().find_map(|l| l.strip_prefix(key)))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0)
        };
        // After the ")" of comm: state is field 3, minflt 10, majflt 12.
        let stat_field = |i: usize| -> u64 {
            stat_fields
                .get(i - 3)
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        for (i, c) in self.columns.iter().enumerate() {
            let v = match c.src {
                Src::SchedstatCpu => schedstat
                    .as_deref()
                    .and_then(|t| t.split_whitespace().next())
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0),
                Src::StatMinflt => stat_field(10),
                Src::StatMajflt => stat_field(12),
                Src::StatusVoluntary => status_field("voluntary_ctxt_switches:"),
                Src::StatusInvoluntary => status_field("nonvoluntary_ctxt_switches:"),
                _ => continue,
            };
            s.values[i] = v;
        }
        self.max_read = self.max_read.max(s.at.elapsed());
        s
    }

    /// The record between two snapshots: deltas, perf counts scaled when
    /// the counter was multiplexed.
    pub fn delta(&mut self, a: &Snapshot, b: &Snapshot) -> Vec<f64> {
        let mut r = Vec::with_capacity(self.columns.len());
        for (i, c) in self.columns.iter().enumerate() {
            let d = b.values[i].saturating_sub(a.values[i]) as f64;
            r.push(match c.src {
                Src::Wall => b.at.duration_since(a.at).as_nanos() as f64,
                Src::Perf(_) => {
                    let en = b.enabled[i].saturating_sub(a.enabled[i]);
                    let run = b.running[i].saturating_sub(a.running[i]);
                    if run > 0 && run < en {
                        let short = 1.0 - run as f64 / en as f64;
                        self.multiplexed[i] = self.multiplexed[i].max(short);
                        d * en as f64 / run as f64
                    } else {
                        d
                    }
                }
                _ => d,
            });
        }
        r
    }
}
