//! The cycle counter (x86 TSC, aarch64 generic timer CNTVCT_EL0): whether it
//! can be read, how to read it, and every source of its frequency.

use serde_json::{json, Value};
use tickbook_analysis::format::{CalibrationWindow, FrequencySource};

use super::signals;

/// Can the counter be used, and how far can it be trusted.
#[derive(Debug, Clone)]
pub struct CounterSupport {
    /// Why the counter cannot be read from user space, if it cannot.
    pub unavailable: Option<String>,
    /// x86 only: why RDTSCP cannot be used, if it cannot.
    pub rdtscp_unavailable: Option<String>,
    /// Ticks at a constant rate through frequency and sleep states.
    pub invariant: bool,
    /// What `invariant` rests on.
    pub invariant_evidence: String,
}

impl CounterSupport {
    pub fn usable(&self) -> bool {
        self.unavailable.is_none()
    }
}

// ---------------------------------------------------------------- reads

/// `rdtsc` alone: cheap, but the CPU may execute it before earlier
/// instructions finish.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn rdtsc() -> u64 {
    let (lo, hi): (u32, u32);
    // SAFETY: only called once CPUID reported a TSC and prctl did not disable
    // it. No `nomem`: the asm also acts as a compiler barrier around the
    // timed code.
    unsafe {
        core::arch::asm!("rdtsc", out("eax") lo, out("edx") hi, options(nostack, preserves_flags));
    }
    (u64::from(hi) << 32) | u64::from(lo)
}

/// `lfence; rdtsc`: the read waits for earlier instructions (on Intel, and on
/// AMD when LFENCE is dispatch-serializing).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn lfence_rdtsc() -> u64 {
    let (lo, hi): (u32, u32);
    // SAFETY: as for `rdtsc`; LFENCE is part of SSE2, which x86_64 guarantees.
    unsafe {
        core::arch::asm!("lfence", "rdtsc", out("eax") lo, out("edx") hi, options(nostack, preserves_flags));
    }
    (u64::from(hi) << 32) | u64::from(lo)
}

/// `rdtscp`: waits for earlier instructions; also returns IA32_TSC_AUX (ignored).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn rdtscp() -> u64 {
    let (lo, hi): (u32, u32);
    // SAFETY: only called once CPUID 0x80000001 EDX[27] reported RDTSCP.
    unsafe {
        core::arch::asm!("rdtscp", out("eax") lo, out("edx") hi, out("ecx") _, options(nostack, preserves_flags));
    }
    (u64::from(hi) << 32) | u64::from(lo)
}

/// `isb; mrs cntvct_el0`: the ISB keeps the read from being speculated early.
#[cfg(target_arch = "aarch64")]
#[inline(always)]
pub fn cntvct() -> u64 {
    let v: u64;
    // SAFETY: Linux enables EL0 access to CNTVCT_EL0 (or traps and emulates
    // it on CPUs with timer errata).
    unsafe {
        core::arch::asm!("isb", "mrs {v}, cntvct_el0", v = out(reg) v, options(nostack, preserves_flags));
    }
    v
}

#[cfg(target_arch = "aarch64")]
pub fn cntfrq() -> u64 {
    let v: u64;
    // SAFETY: CNTFRQ_EL0 is readable at EL0 whenever CNTVCT_EL0 is.
    unsafe {
        core::arch::asm!("mrs {v}, cntfrq_el0", v = out(reg) v, options(nomem, nostack, preserves_flags));
    }
    v
}

/// The ordered counter read used for calibration and as the reference clock.
pub fn ordered_reader(s: &CounterSupport) -> Option<fn() -> u64> {
    if !s.usable() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    return Some(lfence_rdtsc);
    #[cfg(target_arch = "aarch64")]
    return Some(cntvct);
    #[allow(unreachable_code)]
    None
}

/// Name of the ordered read as a clock.
pub const ORDERED_NAME: &str = if cfg!(target_arch = "aarch64") {
    "cntvct_el0"
} else {
    "tsc_lfence_rdtsc"
};

// ---------------------------------------------------------------- detection

pub fn detect(no_counter: bool, cpuinfo_flags: &[String]) -> CounterSupport {
    let mut s = CounterSupport {
        unavailable: None,
        rdtscp_unavailable: None,
        invariant: false,
        invariant_evidence: String::new(),
    };
    #[cfg(target_arch = "x86_64")]
    {
        use super::cpuid::{bit, read};
        let id = read();
        if !bit(id.leaf1.edx, 4) {
            s.unavailable = Some("CPUID leaf 1 EDX[4] reports no TSC".to_string());
        } else if let Some(why) = tsc_disabled_by_prctl() {
            s.unavailable = Some(why);
        }
        if s.unavailable.is_some() {
            s.rdtscp_unavailable = s.unavailable.clone();
        } else if !bit(id.ext1.edx, 27) {
            s.rdtscp_unavailable = Some("CPUID 0x80000001 EDX[27] reports no RDTSCP".to_string());
        }
        let has = |f: &str| cpuinfo_flags.iter().any(|x| x == f);
        if bit(id.ext7.edx, 8) {
            s.invariant = true;
            s.invariant_evidence = "CPUID 0x80000007 EDX[8] (invariant TSC)".to_string();
        } else if has("constant_tsc") && has("nonstop_tsc") {
            s.invariant = true;
            s.invariant_evidence =
                "Linux flags constant_tsc and nonstop_tsc (CPUID invariant bit not set)"
                    .to_string();
        } else {
            s.invariant_evidence = "no invariant-TSC bit and no constant_tsc+nonstop_tsc flags: \
                the TSC rate may change with frequency or stop in sleep states"
                .to_string();
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        let _ = cpuinfo_flags;
        s.invariant = true;
        s.invariant_evidence =
            "the architected generic timer counts at a fixed frequency (CNTFRQ_EL0)".to_string();
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = cpuinfo_flags;
        s.unavailable = Some(format!(
            "no user-space cycle counter is supported on {}",
            std::env::consts::ARCH
        ));
        s.invariant_evidence = "no counter".to_string();
    }
    if no_counter {
        let why = "disabled by --no-counter (testing aid)".to_string();
        s.unavailable = Some(why.clone());
        if cfg!(target_arch = "x86_64") {
            s.rdtscp_unavailable = Some(why);
        }
    }
    s
}

/// RDTSC can be made to fault per process (prctl PR_SET_TSC, seccomp sandboxes).
#[cfg(target_arch = "x86_64")]
fn tsc_disabled_by_prctl() -> Option<String> {
    let mut state: libc::c_int = 0;
    // SAFETY: PR_GET_TSC writes one int through the pointer we pass.
    let rc = unsafe { libc::prctl(libc::PR_GET_TSC, &mut state as *mut libc::c_int) };
    if rc == 0 && state != libc::PR_TSC_ENABLE {
        Some(
            "RDTSC is disabled for this process (prctl PR_GET_TSC says it would fault)".to_string(),
        )
    } else {
        None
    }
}

// ---------------------------------------------------------------- sources

fn source(name: &str) -> FrequencySource {
    FrequencySource {
        name: name.to_string(),
        hz: None,
        error: None,
        detail: Value::Null,
        windows: Vec::new(),
    }
}

/// Every frequency source for this architecture, readable or not, in a fixed
/// order. `on_step` is told the name of each source before it is tried.
pub fn frequency_sources(
    support: &CounterSupport,
    quick: bool,
    mut on_step: impl FnMut(&str),
) -> Vec<FrequencySource> {
    let mut out = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        let id = super::cpuid::read();
        on_step("cpuid");
        out.push(cpuid_15(&id));
        out.push(cpuid_16(&id));
        out.push(cpuid_hypervisor(&id));
    }
    #[cfg(target_arch = "aarch64")]
    {
        on_step("cntfrq_el0");
        let mut s = source("cntfrq_el0");
        if let Some(why) = &support.unavailable {
            s.error = Some(format!("counter not used: {why}"));
        } else {
            let f = cntfrq();
            s.detail = json!({ "cntfrq_el0": f });
            if f == 0 {
                s.error = Some("CNTFRQ_EL0 is 0: firmware did not program it".to_string());
            } else {
                s.hz = Some(f as f64);
            }
        }
        out.push(s);
    }
    on_step("perf_mmap_page");
    out.push(perf_mmap_page());
    on_step("kernel_log");
    out.push(kernel_log());
    on_step("calibration_monotonic_raw");
    out.push(calibration(support, quick));
    out
}

#[cfg(target_arch = "x86_64")]
fn cpuid_15(id: &super::cpuid::CpuidInfo) -> FrequencySource {
    let mut s = source("cpuid_0x15");
    if id.max_leaf < 0x15 {
        s.error = Some(format!(
            "CPUID maximum basic leaf is {:#x}, below 0x15 (usual on AMD and older Intel)",
            id.max_leaf
        ));
        return s;
    }
    let r = super::cpuid::cpuid(0x15, 0);
    s.detail = json!({ "eax_denominator": r.eax, "ebx_numerator": r.ebx, "ecx_crystal_hz": r.ecx });
    s.error = if r.eax == 0 || r.ebx == 0 {
        Some("TSC/crystal ratio not enumerated (EAX or EBX is 0; usual in VMs)".to_string())
    } else if r.ecx == 0 {
        Some(format!(
            "crystal frequency not enumerated (ECX is 0); the TSC/crystal ratio is {}/{}",
            r.ebx, r.eax
        ))
    } else {
        s.hz = Some(f64::from(r.ecx) * f64::from(r.ebx) / f64::from(r.eax));
        None
    };
    s
}

#[cfg(target_arch = "x86_64")]
fn cpuid_16(id: &super::cpuid::CpuidInfo) -> FrequencySource {
    let mut s = source("cpuid_0x16");
    if id.max_leaf < 0x16 {
        s.error = Some(format!(
            "CPUID maximum basic leaf is {:#x}, below 0x16",
            id.max_leaf
        ));
        return s;
    }
    let r = super::cpuid::cpuid(0x16, 0);
    let base = r.eax & 0xffff;
    s.detail = json!({
        "base_mhz": base, "max_mhz": r.ebx & 0xffff, "bus_mhz": r.ecx & 0xffff,
        "note": "processor base frequency in whole MHz: the TSC rate on most Intel CPUs, to 1 MHz at best"
    });
    if base == 0 {
        s.error = Some("base frequency not enumerated (EAX is 0)".to_string());
    } else {
        s.hz = Some(f64::from(base) * 1e6);
    }
    s
}

#[cfg(target_arch = "x86_64")]
fn cpuid_hypervisor(id: &super::cpuid::CpuidInfo) -> FrequencySource {
    let mut s = source("cpuid_hypervisor_0x40000010");
    let Some((max, sig)) = &id.hypervisor else {
        s.error = Some("no hypervisor (CPUID leaf 1 ECX[31] clear)".to_string());
        return s;
    };
    if *max < 0x4000_0010 {
        s.error = Some(format!(
            "hypervisor {sig:?} reports maximum leaf {max:#x}, below 0x40000010 (the timing leaf is not offered)"
        ));
        return s;
    }
    let r = super::cpuid::cpuid(0x4000_0010, 0);
    s.detail = json!({ "tsc_khz": r.eax, "apic_bus_khz": r.ebx, "hypervisor": sig });
    if r.eax == 0 {
        s.error = Some("leaf 0x40000010 EAX (TSC kHz) is 0".to_string());
    } else {
        s.hz = Some(f64::from(r.eax) * 1e3);
    }
    s
}

// ---------------------------------------------------------------- perf page

/// `perf_event_attr` up to PERF_ATTR_SIZE_VER0 (64 bytes): all we set.
#[repr(C)]
#[derive(Default)]
struct PerfEventAttr {
    type_: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
}

const PERF_TYPE_SOFTWARE: u32 = 1;
const PERF_ATTR_EXCLUDE_KERNEL: u64 = 1 << 5;
const PERF_ATTR_EXCLUDE_HV: u64 = 1 << 6;
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 8;

/// The kernel publishes its counter→ns conversion (`time_mult`,
/// `time_shift`) in the first page of a perf event's mmap; a software event
/// needs no hardware counters. hz = 1e9 · 2^shift / mult.
fn perf_mmap_page() -> FrequencySource {
    let mut s = source("perf_mmap_page");
    let mut errors = Vec::new();
    let mut fd: libc::c_int = -1;
    let mut event = "";
    // Enabled (not `disabled`), so the kernel fills the page when it
    // schedules the event in; CPU_CLOCK first because every kernel schedules
    // it like any counting event.
    for (config, name) in [
        (0u64, "PERF_COUNT_SW_CPU_CLOCK"),
        (9, "PERF_COUNT_SW_DUMMY"),
    ] {
        let attr = PerfEventAttr {
            type_: PERF_TYPE_SOFTWARE,
            size: std::mem::size_of::<PerfEventAttr>() as u32,
            config,
            flags: PERF_ATTR_EXCLUDE_KERNEL | PERF_ATTR_EXCLUDE_HV,
            ..PerfEventAttr::default()
        };
        // SAFETY: `attr` is a valid PERF_ATTR_SIZE_VER0 attribute that lives
        // across the call; pid 0 / cpu -1 = this thread on any CPU.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_perf_event_open,
                &attr as *const PerfEventAttr,
                0 as libc::pid_t,
                -1 as libc::c_int,
                -1 as libc::c_int,
                PERF_FLAG_FD_CLOEXEC,
            )
        };
        if rc >= 0 {
            fd = rc as libc::c_int;
            event = name;
            break;
        }
        errors.push(format!("{name}: {}", std::io::Error::last_os_error()));
    }
    if fd < 0 {
        s.error = Some(format!(
            "perf_event_open refused ({}); see /proc/sys/kernel/perf_event_paranoid",
            errors.join("; ")
        ));
        return s;
    }
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as usize;
    // SAFETY: mapping one read-only page of a perf fd we own; checked below.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            page,
            libc::PROT_READ,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        s.error = Some(format!(
            "mmap of the perf event page failed: {}",
            std::io::Error::last_os_error()
        ));
        // SAFETY: fd is ours and open.
        unsafe { libc::close(fd) };
        return s;
    }
    // The kernel fills the page when the event is next scheduled in: give it
    // a context switch first.
    std::thread::sleep(std::time::Duration::from_millis(2));
    let page_fields = read_perf_page(p.cast::<u8>().cast_const());
    // SAFETY: unmapping exactly what we mapped; closing our fd.
    unsafe {
        libc::munmap(p, page);
        libc::close(fd);
    }
    let Some(f) = page_fields else {
        s.error = Some("the perf page kept changing under its seqlock".to_string());
        return s;
    };
    let cap_user_time = f.capabilities >> 3 & 1 == 1;
    s.detail = json!({
        "event": event,
        "version": f.version,
        "lock": f.lock,
        "capabilities": f.capabilities,
        "cap_user_time": cap_user_time,
        "cap_user_time_zero": f.capabilities >> 4 & 1 == 1,
        "cap_user_time_short": f.capabilities >> 5 & 1 == 1,
        "time_mult": f.time_mult,
        "time_shift": f.time_shift,
        "time_zero": f.time_zero,
    });
    if !cap_user_time {
        s.error = Some(
            "cap_user_time is 0: the kernel does not publish a counter-to-ns conversion here \
             (x86 does only when sched_clock is the stable native TSC clock; under kvm-clock it often is not)"
                .to_string(),
        );
    } else if f.time_mult == 0 {
        s.error = Some("time_mult is 0".to_string());
    } else {
        s.hz = Some(1e9 * 2f64.powi(i32::from(f.time_shift)) / f64::from(f.time_mult));
    }
    s
}

struct PerfPage {
    version: u32,
    lock: u32,
    capabilities: u64,
    time_shift: u16,
    time_mult: u32,
    time_zero: u64,
}

/// Read the fields under the page's seqlock (`lock` changes while the
/// kernel updates them).
fn read_perf_page(base: *const u8) -> Option<PerfPage> {
    use std::ptr::read_volatile;
    use std::sync::atomic::{fence, Ordering};
    for _ in 0..1000 {
        // SAFETY: all offsets are inside the first page of struct
        // perf_event_mmap_page (uapi/linux/perf_event.h), naturally aligned.
        unsafe {
            let seq = read_volatile(base.add(8).cast::<u32>());
            fence(Ordering::Acquire);
            let f = PerfPage {
                version: read_volatile(base.cast::<u32>()),
                lock: seq,
                capabilities: read_volatile(base.add(40).cast::<u64>()),
                time_shift: read_volatile(base.add(50).cast::<u16>()),
                time_mult: read_volatile(base.add(52).cast::<u32>()),
                time_zero: read_volatile(base.add(64).cast::<u64>()),
            };
            fence(Ordering::Acquire);
            if read_volatile(base.add(8).cast::<u32>()) == seq {
                return Some(f);
            }
        }
    }
    None
}

// ---------------------------------------------------------------- kernel log

const SYSLOG_ACTION_READ_ALL: libc::c_int = 3;
const SYSLOG_ACTION_SIZE_BUFFER: libc::c_int = 10;

fn kernel_log() -> FrequencySource {
    let mut s = source("kernel_log");
    // SAFETY: SIZE_BUFFER ignores the buffer arguments.
    let size = unsafe { libc::klogctl(SYSLOG_ACTION_SIZE_BUFFER, std::ptr::null_mut(), 0) };
    let size = if size > 0 { size } else { 1 << 20 };
    let mut buf = vec![0u8; size as usize];
    // SAFETY: `buf` has `size` writable bytes and we pass that length.
    let n = unsafe { libc::klogctl(SYSLOG_ACTION_READ_ALL, buf.as_mut_ptr().cast(), size) };
    if n < 0 {
        let e = std::io::Error::last_os_error();
        s.error = Some(if e.raw_os_error() == Some(libc::EPERM) {
            format!("reading the kernel log was refused ({e}): needs CAP_SYSLOG (root) when kernel.dmesg_restrict=1")
        } else {
            format!("klogctl(SYSLOG_ACTION_READ_ALL) failed: {e}")
        });
        return s;
    }
    buf.truncate(n as usize);
    let text = String::from_utf8_lossy(&buf);
    match parse_kernel_log(&text) {
        Some((hz, line)) => {
            s.hz = Some(hz);
            s.detail = json!({
                "line": line,
                "note": "the kernel prints MHz with 3 decimals: 1 kHz resolution"
            });
        }
        None => {
            s.error = Some(
                "no TSC/timer frequency line in the kernel log (it may have rotated out since boot)"
                    .to_string(),
            );
        }
    }
    s
}

/// The best frequency line of a kernel log: the last "Refined TSC clocksource
/// calibration", else the last "tsc: Detected … MHz", else the arm
/// "arch_timer: … running at …MHz". Returns (Hz, the line).
pub fn parse_kernel_log(text: &str) -> Option<(f64, String)> {
    const PATTERNS: [&str; 3] = [
        "Refined TSC clocksource calibration:",
        "tsc: Detected",
        "arch_timer: cp15 timer(s) running at",
    ];
    for pat in PATTERNS {
        let found = text.lines().rev().find_map(|line| {
            let rest = &line[line.find(pat)? + pat.len()..];
            Some((mhz_at(rest)? * 1e6, line.trim().to_string()))
        });
        if found.is_some() {
            return found;
        }
    }
    None
}

/// `  2299.998 MHz processor` → 2299.998; requires the MHz unit.
fn mhz_at(s: &str) -> Option<f64> {
    let s = s.trim_start();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let v: f64 = s[..end].parse().ok()?;
    s[end..].trim_start().starts_with("MHz").then_some(v)
}

// ---------------------------------------------------------------- calibration

/// A timespec as ns (wrapping, so odd values cannot panic).
#[inline(always)]
// time_t and c_long are i64 here but i32 on 32-bit targets.
#[allow(clippy::useless_conversion)]
pub fn timespec_ns(ts: &libc::timespec) -> i64 {
    i64::from(ts.tv_sec)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(i64::from(ts.tv_nsec))
}

fn monotonic_raw_ns() -> Option<i64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_RAW, &mut ts) };
    (rc == 0).then(|| timespec_ns(&ts))
}

/// A (counter, CLOCK_MONOTONIC_RAW) pair read as close together as we can:
/// the counter is read on both sides of the clock and the narrowest of a
/// few tries wins. Returns (counter midpoint, ns, bracket width in ticks).
fn paired(read: fn() -> u64) -> Option<(f64, i64, u64)> {
    let mut best: Option<(f64, i64, u64)> = None;
    for _ in 0..16 {
        let a = read();
        let t = monotonic_raw_ns()?;
        let b = read();
        let w = b.wrapping_sub(a);
        if best.map_or(true, |x| w < x.2) {
            best = Some((a as f64 + w as f64 / 2.0, t, w));
        }
    }
    best
}

/// Count counter ticks against CLOCK_MONOTONIC_RAW over doubling windows
/// until two consecutive windows agree within `TOLERANCE_PPM` and the window
/// itself is that precise.
fn calibration(support: &CounterSupport, quick: bool) -> FrequencySource {
    const TOLERANCE_PPM: f64 = 1.0;
    let mut s = source("calibration_monotonic_raw");
    let Some(read) = ordered_reader(support) else {
        s.error = Some(format!(
            "no usable counter: {}",
            support.unavailable.as_deref().unwrap_or("unsupported")
        ));
        return s;
    };
    let max_window_ms: u64 = if quick { 256 } else { 4096 };
    let mut uncertainty_ppm = Vec::new();
    let mut converged = false;
    let mut window_ms = 1;
    let mut prev_hz: Option<f64> = None;
    let mut interrupted = false;
    while window_ms <= max_window_ms {
        let Some(p0) = paired(read) else {
            s.error = Some("clock_gettime(CLOCK_MONOTONIC_RAW) failed".to_string());
            return s;
        };
        // Sleep most of the window: the endpoints carry the measurement.
        let deadline = p0.1 + window_ms as i64 * 1_000_000;
        while let Some(now) = monotonic_raw_ns() {
            if now >= deadline || signals::stop_requested().is_some() {
                break;
            }
            let left = (deadline - now) as u64;
            std::thread::sleep(std::time::Duration::from_nanos(left.min(10_000_000)));
        }
        if signals::stop_requested().is_some() {
            interrupted = true;
            break;
        }
        let Some(p1) = paired(read) else {
            s.error = Some("clock_gettime(CLOCK_MONOTONIC_RAW) failed".to_string());
            return s;
        };
        let ns = (p1.1 - p0.1) as f64;
        let ticks = p1.0 - p0.0;
        if ns <= 0.0 || ticks <= 0.0 {
            s.error = Some(format!(
                "counter or clock did not advance over a {window_ms} ms window (ticks {ticks}, ns {ns})"
            ));
            return s;
        }
        let hz = ticks / ns * 1e9;
        // Half of each bracket, plus 1 ns of clock resolution per endpoint.
        let u = ((p0.2 + p1.2) as f64 / 2.0 / ticks + 2.0 / ns) * 1e6;
        uncertainty_ppm.push(u);
        s.windows.push(CalibrationWindow {
            window_ns: ns,
            ticks,
            hz,
        });
        if let Some(p) = prev_hz {
            if ((hz - p) / p).abs() * 1e6 <= TOLERANCE_PPM && u <= TOLERANCE_PPM {
                converged = true;
                break;
            }
        }
        prev_hz = Some(hz);
        window_ms *= 2;
    }
    s.detail = json!({
        "converged": converged,
        "tolerance_ppm": TOLERANCE_PPM,
        "max_window_ms": max_window_ms,
        "uncertainty_ppm": uncertainty_ppm,
        "interrupted": interrupted,
        "note": "when the clocksource is tsc, CLOCK_MONOTONIC_RAW is computed from the TSC with the \
                 kernel's own calibration, so this mostly reproduces the kernel's figure"
    });
    match s.windows.last() {
        Some(w) => s.hz = Some(w.hz),
        None => s.error = Some("interrupted before the first window finished".to_string()),
    }
    s
}

/// Pick the frequency to convert ticks with. Returns (Hz, source name, why).
pub fn choose(sources: &[FrequencySource]) -> Option<(f64, String, String)> {
    let get = |name: &str| {
        sources
            .iter()
            .find(|s| s.name == name)
            .and_then(|s| s.hz.filter(|h| h.is_finite() && *h > 0.0).map(|h| (h, s)))
    };
    let converged = |s: &FrequencySource| s.detail.get("converged") == Some(&Value::Bool(true));
    if let Some((hz, s)) = get("calibration_monotonic_raw") {
        if converged(s) {
            return Some((hz, s.name.clone(), "calibration converged".to_string()));
        }
    }
    for name in [
        "cntfrq_el0",
        "perf_mmap_page",
        "kernel_log",
        "cpuid_hypervisor_0x40000010",
        "cpuid_0x15",
        "calibration_monotonic_raw",
        "cpuid_0x16",
    ] {
        if let Some((hz, s)) = get(name) {
            let why = if name == "calibration_monotonic_raw" {
                "calibration did not converge; no better source was readable"
            } else {
                "calibration did not converge (or was unavailable); next source in order of preference"
            };
            return Some((hz, s.name.clone(), why.to_string()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_log_lines() {
        let log = "<6>[    0.000062] tsc: Detected 2299.998 MHz processor\n\
                   <6>[    0.1] something else 3.0 MHz\n";
        let (hz, line) = parse_kernel_log(log).unwrap();
        assert_eq!(hz, 2_299_998_000.0);
        assert!(line.contains("Detected"));
        let refined =
            format!("{log}<6>[    1.5] tsc: Refined TSC clocksource calibration: 2300.012 MHz\n");
        assert_eq!(parse_kernel_log(&refined).unwrap().0, 2_300_012_000.0);
        let arm = "[    0.000000] arch_timer: cp15 timer(s) running at 25.00MHz (virt).\n";
        assert_eq!(parse_kernel_log(arm).unwrap().0, 25_000_000.0);
        assert_eq!(parse_kernel_log("tsc: Detected fast MHz\n"), None);
        assert_eq!(parse_kernel_log("tsc: Detected 2300 kHz\n"), None);
        assert_eq!(parse_kernel_log(""), None);
        assert_eq!(parse_kernel_log("\u{fffd}\u{fffd} tsc: Detected"), None);
    }

    #[test]
    fn choice_prefers_converged_calibration() {
        let src = |name: &str, hz: Option<f64>, detail: Value| FrequencySource {
            name: name.into(),
            hz,
            error: None,
            detail,
            windows: vec![],
        };
        let mut v = vec![
            src("cpuid_0x16", Some(2.3e9), Value::Null),
            src("kernel_log", Some(2.299998e9), Value::Null),
            src(
                "calibration_monotonic_raw",
                Some(2.2999981e9),
                json!({"converged": true}),
            ),
        ];
        assert_eq!(choose(&v).unwrap().1, "calibration_monotonic_raw");
        v[2].detail = json!({"converged": false});
        assert_eq!(choose(&v).unwrap().1, "kernel_log");
        v[1].hz = None;
        assert_eq!(choose(&v).unwrap().1, "calibration_monotonic_raw");
        v[2].hz = None;
        assert_eq!(choose(&v).unwrap().1, "cpuid_0x16");
        v[0].hz = Some(f64::NAN);
        assert!(choose(&v).is_none());
    }
}
