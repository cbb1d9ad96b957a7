//! Is the machine fit to measure on: its configuration for timing (the
//! checks pyperf's `system show` makes, each with what it means and the
//! command that would change it) and samples of what disturbs timing while
//! a run measures — steal, the measuring thread's waits for its CPU, the
//! process's involuntary context switches, interrupts, the core clock and
//! every CPU's load. The analysis crate turns the samples into findings;
//! here nothing is judged but each setting against the quiet one.
//! Whatever cannot be read says why (a value `None` with `not_readable`, or
//! a note), never a guess.

use std::fs;

use tickbook_analysis::format::{
    CpuTimes, EnvCheck, EnvSample, Environment, Host, ProcessUsage, ThreadSched,
};

use super::host::{bracketed, read_text};

/// The checks and no samples yet; `notes` says what the samples will lack.
pub fn start(host: &Host, counter: Option<fn() -> u64>) -> Environment {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let mut notes = Vec::new();
    if counter.is_none() {
        notes.push(
            "no core clock: the cycle counter cannot be read (or --no-counter), so the add chains cannot be timed"
                .to_string(),
        );
    }
    if cfg!(not(any(target_arch = "x86_64", target_arch = "aarch64"))) {
        notes.push(format!(
            "no core clock: no add chain for {}",
            std::env::consts::ARCH
        ));
    }
    Environment {
        user_hz: (hz > 0).then_some(hz as u64),
        checks: checks(host),
        samples: Vec::new(),
        notes,
    }
}

/// `tickbook doctor`'s environment: the checks, and samples at the start,
/// halfway and at the end of `seconds` on the CPU the calling thread is
/// pinned to — the ops table timed quickly first (for the shared-core
/// check), then a busy loop of add chains — so that the samples see what a
/// collection would meet there. Also the host and the ops data (or why
/// there is none).
pub fn check_now(
    seconds: f64,
    no_counter: bool,
) -> (
    Environment,
    Host,
    Result<tickbook_analysis::suites::ops::OpsData, String>,
) {
    let host = super::host::collect();
    let counter = super::tsc::ordered_reader(&super::tsc::detect(
        no_counter,
        &super::host::cpuinfo_flags(),
    ));
    let mut fallbacks = Vec::new();
    let _pinned = super::pin_here(&mut fallbacks);
    let mut env = start(&host, counter);
    env.notes.extend(fallbacks);
    let t0 = std::time::Instant::now();
    let end = std::time::Duration::from_secs_f64(seconds.max(0.2));
    sample_into(&mut env, "start", counter);
    let ops = super::ops::quick_table(no_counter);
    for (at, upto) in [("middle", end / 2), ("end", end)] {
        while t0.elapsed() < upto {
            std::hint::black_box(super::ops::counter_ticks_per_cycle());
        }
        sample_into(&mut env, at, counter);
    }
    (env, host, ops)
}

/// Take one sample and add it; a source that cannot be read is noted once.
pub fn sample_into(env: &mut Environment, at: &str, counter: Option<fn() -> u64>) {
    let mut notes = Vec::new();
    let s = sample(at, counter, &mut notes);
    for n in notes {
        if !env.notes.contains(&n) {
            env.notes.push(n);
        }
    }
    env.samples.push(s);
}

fn sample(at: &str, counter: Option<fn() -> u64>, notes: &mut Vec<String>) -> EnvSample {
    // The core clock first: the reads below cost microseconds and must not
    // sit between the chains.
    let counter_ticks_per_cycle = counter.and_then(|_| super::ops::counter_ticks_per_cycle());
    let (monotonic_ns, counter) = (monotonic_raw_ns(), counter.map(|read| read()));
    let cpu = super::affinity::current_cpu().map(|c| c as u32);
    let mut cpus = match read_text("/proc/stat") {
        Ok(t) => parse_proc_stat(&t),
        Err(e) => {
            notes.push(format!("CPU times (steal, load) unknown: {e}"));
            Vec::new()
        }
    };
    match read_text("/proc/interrupts") {
        Ok(t) => {
            let per_cpu = parse_interrupts(&t);
            for c in &mut cpus {
                c.interrupts = per_cpu
                    .iter()
                    .find(|(n, _)| *n == c.cpu)
                    .map(|&(_, count)| count);
            }
        }
        Err(e) => notes.push(format!("interrupts unknown: {e}")),
    }
    let process = rusage();
    if process.is_none() {
        notes.push(format!(
            "context switches unknown: getrusage: {}",
            std::io::Error::last_os_error()
        ));
    }
    let thread = match read_text("/proc/thread-self/schedstat") {
        Ok(t) => {
            let s = parse_schedstat(&t);
            if s.is_none() {
                notes.push(format!(
                    "the measuring thread's waits unknown: /proc/thread-self/schedstat reads {t:?}"
                ));
            }
            s
        }
        Err(e) => {
            notes.push(format!(
                "the measuring thread's waits unknown (kernel without CONFIG_SCHED_INFO?): {e}"
            ));
            None
        }
    };
    EnvSample {
        at: at.to_string(),
        monotonic_ns,
        counter,
        counter_ticks_per_cycle,
        cpu,
        cpus,
        process,
        thread,
    }
}

fn monotonic_raw_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_RAW, &mut ts) };
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
}

fn rusage() -> Option<ProcessUsage> {
    // SAFETY: rusage is plain integers; getrusage fills it.
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `r` is a valid, writable rusage.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut r) } != 0 {
        return None;
    }
    let us = |t: libc::timeval| (t.tv_sec as u64) * 1_000_000 + t.tv_usec as u64;
    Some(ProcessUsage {
        user_us: us(r.ru_utime),
        system_us: us(r.ru_stime),
        voluntary_switches: r.ru_nvcsw as u64,
        involuntary_switches: r.ru_nivcsw as u64,
    })
}

/// The `cpuN` lines of `/proc/stat` (not the `cpu` total). Fields a kernel
/// does not print (steal before 2.6.11) are 0.
pub fn parse_proc_stat(text: &str) -> Vec<CpuTimes> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut f = line.split_whitespace();
        let Some(cpu) = f
            .next()
            .and_then(|n| n.strip_prefix("cpu"))
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let v: Vec<u64> = f.map_while(|x| x.parse().ok()).collect();
        let g = |i: usize| v.get(i).copied().unwrap_or(0);
        out.push(CpuTimes {
            cpu,
            user: g(0),
            nice: g(1),
            system: g(2),
            idle: g(3),
            iowait: g(4),
            irq: g(5),
            softirq: g(6),
            steal: g(7),
            interrupts: None,
        });
    }
    out
}

/// Each CPU's column of `/proc/interrupts`, summed: (CPU number, count).
/// Rows with fewer counts than CPUs (`ERR`, `MIS`) are totals, not per CPU,
/// and are left out.
pub fn parse_interrupts(text: &str) -> Vec<(u32, u64)> {
    let mut lines = text.lines();
    let Some(header) = lines.next() else {
        return Vec::new();
    };
    let cpus: Vec<u32> = header
        .split_whitespace()
        .filter_map(|c| c.strip_prefix("CPU").and_then(|n| n.parse().ok()))
        .collect();
    let mut sums = vec![0u64; cpus.len()];
    for line in lines {
        let Some((_, rest)) = line.split_once(':') else {
            continue;
        };
        let counts: Vec<u64> = rest
            .split_whitespace()
            .take(cpus.len())
            .map_while(|x| x.parse().ok())
            .collect();
        if counts.len() == cpus.len() {
            for (s, c) in sums.iter_mut().zip(counts) {
                *s = s.saturating_add(c);
            }
        }
    }
    cpus.into_iter().zip(sums).collect()
}

pub fn parse_schedstat(text: &str) -> Option<ThreadSched> {
    let v: Vec<u64> = text
        .split_whitespace()
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    match v[..] {
        [run_ns, wait_ns, timeslices, ..] => Some(ThreadSched {
            run_ns,
            wait_ns,
            timeslices,
        }),
        _ => None,
    }
}

// ---------------------------------------------------------------- checks

fn check(name: &str, value: Result<String, String>, judge: impl Fn(&str) -> Judged) -> EnvCheck {
    match value {
        Ok(v) => {
            let j = judge(&v);
            EnvCheck {
                name: name.to_string(),
                value: Some(v),
                quiet: j.quiet,
                meaning: j.meaning,
                change: j.change,
                not_readable: None,
            }
        }
        Err(why) => {
            let j = judge("");
            EnvCheck {
                name: name.to_string(),
                value: None,
                quiet: None,
                meaning: j.generic,
                change: None,
                not_readable: Some(why),
            }
        }
    }
}

/// What a value means: whether it is quiet, why, and what would change it;
/// `generic` is the setting's meaning when its value could not be read.
struct Judged {
    quiet: Option<bool>,
    meaning: String,
    change: Option<String>,
    generic: String,
}

fn judged(quiet: Option<bool>, meaning: &str, change: Option<&str>, generic: &str) -> Judged {
    Judged {
        quiet,
        meaning: meaning.to_string(),
        change: change.map(str::to_string),
        generic: generic.to_string(),
    }
}

/// The configuration checks, in pyperf's order.
pub fn checks(host: &Host) -> Vec<EnvCheck> {
    let cpufreq = "/sys/devices/system/cpu/cpu0/cpufreq";
    let no_cpufreq = |what: &str| {
        format!("{what}: no {cpufreq} (no cpufreq driver; usual in a VM, where the host sets the frequency)")
    };
    let mut out = Vec::new();

    let governor = if fs::metadata(cpufreq).is_err() {
        Err(no_cpufreq("the governor"))
    } else {
        read_text(&format!("{cpufreq}/scaling_governor"))
    };
    out.push(check("cpu_governor", governor, |v| {
        let generic = "the cpufreq governor chooses the core clock; any but performance changes it with the load, so the same code takes different times";
        if v == "performance" {
            judged(Some(true), "performance: the core clock stays at its highest", None, generic)
        } else {
            judged(
                Some(false),
                &format!("{v}: the core clock follows the load, so early and late samples of one run differ"),
                Some("cpupower frequency-set -g performance   (as root)"),
                generic,
            )
        }
    }));

    out.push(check("boost", boost(), |v| {
        let generic = "turbo/boost raises the core clock while the package is cool and few cores are busy: it drifts with temperature and the other CPUs' load";
        if v == "off" {
            judged(Some(true), "off: the core clock does not depend on temperature or the other cores' load", None, generic)
        } else {
            judged(
                Some(false),
                "on: the core clock depends on temperature and on how many cores are busy",
                Some("echo 0 > /sys/devices/system/cpu/cpufreq/boost   (intel_pstate: echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo)"),
                generic,
            )
        }
    }));

    out.push(check("smt", smt(), |v| {
        let generic = "simultaneous multithreading: a sibling thread on the same core shares its issue width, caches and branch predictors";
        let alone = v.starts_with("off") || v.starts_with("forceoff") || v.starts_with("notsupported") || v.starts_with("notimplemented");
        if alone {
            judged(
                Some(true),
                &format!("{v}: no sibling this kernel can see; under a hypervisor another guest's thread may still share the physical core (the ops suite's one-cycle throughputs show it)"),
                None,
                generic,
            )
        } else {
            judged(
                Some(false),
                &format!("{v}: a sibling thread can run on the measuring core and take half its issue width"),
                Some("echo off > /sys/devices/system/cpu/smt/control   (as root), or keep the siblings idle"),
                generic,
            )
        }
    }));

    let cpu_list = |path: &str| {
        read_text(path).map(|s| {
            if s.is_empty() || s == "(null)" {
                "none".to_string()
            } else {
                s
            }
        })
    };
    out.push(check(
        "isolated_cpus",
        cpu_list("/sys/devices/system/cpu/isolated"),
        |v| {
            let generic = "CPUs the scheduler keeps other tasks off (isolcpus=)";
            if v == "none" {
                judged(
                    Some(false),
                    "none: other tasks may be scheduled on the measuring CPU",
                    Some("boot with isolcpus=1 rcu_nocbs=1 and measure with taskset -c 1"),
                    generic,
                )
            } else {
                judged(
                    Some(true),
                    &format!("{v}: pin the collector there (taskset -c {v})"),
                    None,
                    generic,
                )
            }
        },
    ));
    let nohz = match cpu_list("/sys/devices/system/cpu/nohz_full") {
        Err(e) if e.contains("No such file") => Err(
            "/sys/devices/system/cpu/nohz_full absent: kernel built without CONFIG_NO_HZ_FULL"
                .to_string(),
        ),
        other => other,
    };
    out.push(check("nohz_full", nohz, |v| {
        let generic = "CPUs without the periodic scheduler tick while one task runs (nohz_full=)";
        if v == "none" {
            judged(Some(false), "none: every CPU takes a timer interrupt each tick, a few µs each, inside timed code", Some("boot with nohz_full=1 (with isolcpus=1)"), generic)
        } else {
            judged(Some(true), &format!("{v}: a lone task there runs without the tick"), None, generic)
        }
    }));

    out.push(check("aslr", read_text("/proc/sys/kernel/randomize_va_space"), |v| {
        let generic = "address space layout randomisation: each process's stack, heap and libraries land at other addresses, so their alignment and cache sets change from run to run";
        match v {
            "0" => judged(Some(true), "0 (off): the same addresses in every process", None, generic),
            _ => judged(
                Some(false),
                &format!("{v} (on): addresses, and so alignments and cache sets, differ between runs; a source of run-to-run spread"),
                Some("sysctl -w kernel.randomize_va_space=0   (as root), or one process: setarch -R tickbook collect …"),
                generic,
            ),
        }
    }));

    let thp = read_text("/sys/kernel/mm/transparent_hugepage/enabled").and_then(|s| {
        bracketed(&s)
            .map(str::to_string)
            .ok_or_else(|| format!("no [bracketed] choice in {s:?}"))
    });
    out.push(check("thp", thp, |v| {
        let generic = "transparent huge pages: the kernel may back memory with 2 MiB pages, and khugepaged merges pages in the background";
        if v == "always" {
            judged(Some(false), "always: whether a buffer gets huge pages depends on memory's state, and khugepaged works during the run", Some("echo madvise > /sys/kernel/mm/transparent_hugepage/enabled   (as root)"), generic)
        } else {
            judged(Some(true), &format!("{v}: huge pages only where a program asks for them"), None, generic)
        }
    }));

    out.push(check("irqbalance", irqbalance(), |v| {
        let generic = "irqbalance moves device interrupts between CPUs while it runs";
        if v.starts_with("running") {
            judged(Some(false), &format!("{v}: interrupts may move onto the measuring CPU during the run"), Some("systemctl stop irqbalance, then steer IRQs off the measuring CPU (/proc/irq/*/smp_affinity_list)"), generic)
        } else {
            judged(Some(true), "not running: interrupts stay where they are", None, generic)
        }
    }));

    let clocksource = host
        .clocksource
        .clone()
        .ok_or_else(|| "clocksource0/current_clocksource unreadable (see host notes)".to_string());
    out.push(check("clocksource", clocksource, |v| {
        let generic = "the kernel's clock source: what CLOCK_MONOTONIC and friends read";
        match v {
            "tsc" | "kvm-clock" | "arch_sys_counter" | "hyperv_clocksource_tsc_page" => judged(Some(true), &format!("{v}: read in user space (vDSO), tens of ns a read"), None, generic),
            _ => judged(
                Some(false),
                &format!("{v}: every clock read is a system call or a slow device read, µs each"),
                Some("echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource   (as root, when tsc is listed as available)"),
                generic,
            ),
        }
    }));

    let hypervisor = host
        .hypervisor
        .clone()
        .ok_or_else(|| "none reported (CPUID leaf 1 ECX[31] clear or not x86-64, no /sys/hypervisor/type): bare metal, or a hypervisor that hides".to_string());
    out.push(check("hypervisor", hypervisor, |v| {
        judged(
            None,
            &format!("{v}: a virtual machine; the host sets the frequency, may run other guests' threads on this vCPU's physical core, and takes time from it (steal)"),
            None,
            "the hypervisor, if any: under one the host decides the frequency and who shares the physical core",
        )
    }));

    out.push(check("perf_events", perf_events(), |v| {
        let generic = "hardware performance counters (perf events): instructions and cycles counted beside the times";
        if v.contains("no hardware PMU") {
            judged(None, &format!("{v}: nothing counts instructions or cycles here; times are measured by the clocks alone (the core clock by the add chain against the cycle counter)"), None, generic)
        } else if v.starts_with("paranoid 3") || v.starts_with("paranoid 4") {
            judged(Some(false), &format!("{v}: unprivileged processes may not open perf events, so instructions and cycles are not counted"), Some("sysctl kernel.perf_event_paranoid=2   (as root)"), generic)
        } else {
            judged(Some(true), &format!("{v}: instructions and cycles can be counted"), None, generic)
        }
    }));
    out
}

/// `perf_event_paranoid` and whether the kernel lists a hardware PMU among
/// its event sources (a `cpu`, `cpu_core` or `armv8_pmuv3*` source).
fn perf_events() -> Result<String, String> {
    let paranoid = read_text("/proc/sys/kernel/perf_event_paranoid").map_err(|e| {
        format!("/proc/sys/kernel/perf_event_paranoid: {e} (a kernel without perf events)")
    })?;
    let sources: Vec<String> = fs::read_dir("/sys/bus/event_source/devices")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    let pmu = sources.iter().any(|s| {
        s == "cpu"
            || s == "cpu_core"
            || s == "cpu_atom"
            || s.starts_with("armv8_pmuv3")
            || s.starts_with("armv9")
    });
    let mut sorted = sources;
    sorted.sort();
    Ok(format!(
        "paranoid {}; {} (event sources: {})",
        paranoid.trim(),
        if pmu {
            "a hardware PMU"
        } else {
            "no hardware PMU"
        },
        if sorted.is_empty() {
            "none listed".to_string()
        } else {
            sorted.join(" ")
        }
    ))
}

fn boost() -> Result<String, String> {
    let on_off = |s: String, on: &str| if s == on { "on" } else { "off" }.to_string();
    if let Ok(s) = read_text("/sys/devices/system/cpu/cpufreq/boost") {
        return Ok(on_off(s, "1"));
    }
    if let Ok(s) = read_text("/sys/devices/system/cpu/intel_pstate/no_turbo") {
        return Ok(on_off(s, "0"));
    }
    Err("neither /sys/devices/system/cpu/cpufreq/boost nor …/intel_pstate/no_turbo exists (no cpufreq driver that exposes it; usual in a VM)".to_string())
}

fn smt() -> Result<String, String> {
    let control = read_text("/sys/devices/system/cpu/smt/control");
    let siblings = read_text("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list");
    match (control, siblings) {
        (Ok(c), Ok(s)) => Ok(format!("{c} (cpu0's siblings: {s})")),
        (Ok(c), Err(_)) => Ok(c),
        (Err(_), Ok(s)) if s.contains(['-', ',']) => Ok(format!("on (cpu0's siblings: {s})")),
        (Err(_), Ok(s)) => Ok(format!("off (cpu0's siblings: {s})")),
        (Err(e), Err(_)) => Err(e),
    }
}

fn irqbalance() -> Result<String, String> {
    let dir = fs::read_dir("/proc").map_err(|e| format!("/proc: {e}"))?;
    for e in dir.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        if let Ok(comm) = fs::read_to_string(format!("/proc/{pid}/comm")) {
            if comm.trim() == "irqbalance" {
                return Ok(format!("running (pid {pid})"));
            }
        }
    }
    Ok("not running".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_per_cpu_lines() {
        let t = "cpu  10 0 5 100 1 0 0 3 0 0\ncpu0 4 1 2 50 1 0 0 2 0 0\ncpu1 6 0 3 50 0 7 8 1\nintr 123 4\nctxt 99\n";
        let v = parse_proc_stat(t);
        assert_eq!(v.len(), 2);
        assert_eq!((v[0].cpu, v[0].user, v[0].nice, v[0].steal), (0, 4, 1, 2));
        assert_eq!((v[1].cpu, v[1].irq, v[1].softirq, v[1].steal), (1, 7, 8, 1));
        // An old kernel without steal: 0, not a failure.
        let old = parse_proc_stat("cpu0 1 2 3 4\n");
        assert_eq!((old[0].idle, old[0].steal), (4, 0));
    }

    #[test]
    fn interrupts_per_cpu_column() {
        let t = "           CPU0       CPU1\n  0:         40          2   IO-APIC   2-edge      timer\nLOC:       1000        500   Local timer interrupts\nERR:          7\nMIS:          0\n";
        assert_eq!(parse_interrupts(t), vec![(0, 1040), (1, 502)]);
        assert!(parse_interrupts("").is_empty());
    }

    #[test]
    fn schedstat() {
        let s = parse_schedstat("598940 83270 2\n").expect("three numbers");
        assert_eq!((s.run_ns, s.wait_ns, s.timeslices), (598_940, 83_270, 2));
        assert!(parse_schedstat("1 x 2").is_none());
        assert!(parse_schedstat("1 2").is_none());
    }

    #[test]
    fn every_check_has_a_value_or_a_reason() {
        for c in checks(&Host::default()) {
            assert!(
                c.value.is_some() != c.not_readable.is_some(),
                "{}: {c:?}",
                c.name
            );
            assert!(!c.meaning.is_empty(), "{}", c.name);
            if c.quiet == Some(false) {
                assert!(c.change.is_some(), "{}: no command to change it", c.name);
            }
        }
    }
}
