//! What the machine is: CPU, caches, clock source, kernel knobs. Every value
//! that cannot be read is `None` with a note saying what and why; odd sysfs
//! contents are notes too, never panics.

use std::fs;
use std::path::Path;

use tickbook_analysis::format::{Cache, Cpu, Host};

/// Flags worth recording, by their /proc/cpuinfo names (CPUID adds
/// `invariant_tsc` and `lfence_serializing`, which Linux does not print).
const TIMING_FLAGS: &[&str] = &[
    "tsc",
    "constant_tsc",
    "nonstop_tsc",
    "tsc_known_freq",
    "tsc_reliable",
    "rdtscp",
    "tsc_deadline_timer",
    "tsc_adjust",
    "hypervisor",
    "sse2",
    "avx",
    "avx2",
    "avx512f",
    "erms",
    "fsrm",
    "rdpid",
    "serialize",
    "bmi1",
    "bmi2",
    "popcnt",
    "lzcnt",
    "fma",
    // aarch64 `Features`
    "evtstrm",
    "ecv",
    "asimd",
    "sve",
    "atomics",
    "sb",
];

/// Read a small text file, trimmed; the error names the file.
pub fn read_text(path: &str) -> Result<String, String> {
    fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .map_err(|e| format!("{path}: {e}"))
}

pub fn collect() -> Host {
    let mut notes = Vec::new();
    let mut h = Host {
        os: std::env::consts::OS.to_string(),
        arch: std::env::consts::ARCH.to_string(),
        ..Host::default()
    };
    match uname() {
        Ok((node, release, version)) => {
            h.hostname = node;
            h.kernel = Some(format!("{release} {version}"));
        }
        Err(e) => {
            notes.push(format!("uname failed ({e}): hostname and kernel unknown"));
            h.hostname = read_text("/proc/sys/kernel/hostname").unwrap_or_default();
        }
    }
    if h.hostname.is_empty() {
        h.hostname = "unknown-host".to_string();
        notes.push("hostname is empty; recorded as unknown-host".to_string());
    }

    h.cpu = cpu(&mut notes);
    h.caches = caches(&mut notes);
    h.hypervisor = hypervisor(&mut notes);

    let cs = "/sys/devices/system/clocksource/clocksource0";
    match read_text(&format!("{cs}/current_clocksource")) {
        Ok(s) if !s.is_empty() => h.clocksource = Some(s),
        Ok(_) => notes.push("current_clocksource is empty".to_string()),
        Err(e) => notes.push(format!("clock source unknown: {e}")),
    }
    match read_text(&format!("{cs}/available_clocksource")) {
        Ok(s) => h.available_clocksources = s.split_whitespace().map(str::to_string).collect(),
        Err(e) => notes.push(format!("available clock sources unknown: {e}")),
    }

    let thp = "/sys/kernel/mm/transparent_hugepage/enabled";
    match read_text(thp) {
        Ok(s) => match bracketed(&s) {
            Some(w) => h.thp = Some(w.to_string()),
            None => notes.push(format!("{thp}: no [bracketed] choice in {s:?}")),
        },
        Err(e) => notes.push(format!("transparent huge pages mode unknown: {e}")),
    }

    h.cpu_governor = governor(&mut notes);

    match read_text("/proc/meminfo") {
        Ok(s) => match meminfo_total_bytes(&s) {
            Some(b) => h.memory_bytes = Some(b),
            None => notes.push("/proc/meminfo: no readable MemTotal line".to_string()),
        },
        Err(e) => notes.push(format!("memory size unknown: {e}")),
    }

    // SAFETY: sysconf and geteuid have no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if page > 0 {
        h.page_size = Some(page as u64);
    } else {
        notes.push("sysconf(_SC_PAGESIZE) failed".to_string());
    }
    // SAFETY: as above.
    h.is_root = Some(unsafe { libc::geteuid() } == 0);

    let paranoid = "/proc/sys/kernel/perf_event_paranoid";
    match read_text(paranoid).map(|s| {
        s.parse::<i64>()
            .map_err(|e| format!("{paranoid}: {s:?}: {e}"))
    }) {
        Ok(Ok(v)) => h.perf_event_paranoid = Some(v),
        Ok(Err(e)) | Err(e) => notes.push(format!("perf_event_paranoid unknown: {e}")),
    }

    h.notes = notes;
    h
}

fn uname() -> Result<(String, String, String), String> {
    // SAFETY: utsname is plain bytes; uname fills it and NUL-terminates each field.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is a valid, writable utsname.
    if unsafe { libc::uname(&mut u) } != 0 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    let field = |f: &[libc::c_char]| {
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|&&c| c != 0)
            // c_char is i8 on x86_64, u8 on aarch64: no cast fits both.
            .map(|&c| c.to_ne_bytes()[0])
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Ok((field(&u.nodename), field(&u.release), field(&u.version)))
}

// ---------------------------------------------------------------- CPU

/// The first processor block of /proc/cpuinfo as key/value pairs, plus the
/// number of `processor` entries.
#[derive(Debug, Default)]
pub struct CpuInfoText {
    pub first: Vec<(String, String)>,
    pub processors: u32,
}

impl CpuInfoText {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.first
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The CPU's feature flags by Linux's names: x86's `flags` line, arm's
    /// `Features`.
    pub fn flags(&self) -> impl Iterator<Item = &str> {
        self.get("flags")
            .or_else(|| self.get("Features"))
            .unwrap_or("")
            .split_whitespace()
    }
}

/// This machine's feature flags from /proc/cpuinfo (see
/// [`CpuInfoText::flags`]); none when it cannot be read.
pub fn cpuinfo_flags() -> Vec<String> {
    read_text("/proc/cpuinfo")
        .map(|t| parse_cpuinfo(&t).flags().map(str::to_string).collect())
        .unwrap_or_default()
}

pub fn parse_cpuinfo(text: &str) -> CpuInfoText {
    let mut out = CpuInfoText::default();
    for line in text.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        if k == "processor" {
            out.processors += 1;
        }
        // Keep the first value of each key: the first CPU's, and global lines
        // some kernels print after the per-CPU blocks.
        if out.get(k).is_none() {
            out.first.push((k.to_string(), v.to_string()));
        }
    }
    out
}

fn cpu(notes: &mut Vec<String>) -> Cpu {
    let mut cpu = Cpu::default();
    let info = match read_text("/proc/cpuinfo") {
        Ok(t) => parse_cpuinfo(&t),
        Err(e) => {
            notes.push(format!("/proc/cpuinfo unreadable: {e}"));
            CpuInfoText::default()
        }
    };
    let mut flags: Vec<String> = Vec::new();

    #[cfg(target_arch = "x86_64")]
    {
        let id = super::cpuid::read();
        cpu.vendor = Some(id.vendor.clone()).filter(|v| !v.is_empty());
        cpu.model_name = id.brand.clone();
        if id.max_leaf >= 1 {
            let (f, m, s) = super::cpuid::signature(id.leaf1.eax);
            (cpu.family, cpu.model, cpu.stepping) = (Some(f), Some(m), Some(s));
        }
        flags.extend(super::cpuid::flags(&id).into_iter().map(str::to_string));
    }
    #[cfg(target_arch = "aarch64")]
    {
        let midr = read_text("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1")
            .ok()
            .and_then(|s| parse_hex(&s))
            .or_else(|| midr_from_cpuinfo(&info));
        match midr {
            Some(m) => {
                let d = decode_midr(m);
                cpu.vendor = Some(d.vendor.to_string());
                cpu.model = Some(d.part);
                cpu.stepping = Some(d.revision);
                cpu.model_name = Some(d.name());
                notes.push(format!(
                    "aarch64 MIDR_EL1 {m:#x}: implementer {:#x}, variant {:#x}, part {:#x}, revision {}; family not applicable",
                    d.implementer, d.variant, d.part, d.revision
                ));
            }
            None => notes.push(
                "aarch64 MIDR unreadable (no midr_el1 in sysfs, no CPU implementer/part in /proc/cpuinfo)"
                    .to_string(),
            ),
        }
    }

    // /proc/cpuinfo fills what CPUID did not give, and adds Linux's own flags
    // (constant_tsc, nonstop_tsc, tsc_known_freq, …).
    if cpu.vendor.is_none() {
        cpu.vendor = info.get("vendor_id").map(str::to_string);
    }
    if cpu.model_name.is_none() {
        cpu.model_name = info.get("model name").map(str::to_string);
    }
    if cpu.family.is_none() {
        cpu.family = info.get("cpu family").and_then(|v| v.parse().ok());
    }
    if cpu.model.is_none() {
        cpu.model = info.get("model").and_then(|v| v.parse().ok());
    }
    if cpu.stepping.is_none() {
        cpu.stepping = info.get("stepping").and_then(|v| v.parse().ok());
    }
    for f in info.flags() {
        // Linux calls LZCNT "abm" on Intel.
        let f = if f == "abm" { "lzcnt" } else { f };
        if TIMING_FLAGS.contains(&f) && !flags.iter().any(|x| x == f) {
            flags.push(f.to_string());
        }
    }
    cpu.flags = flags;
    for (what, missing) in [
        ("vendor", cpu.vendor.is_none()),
        ("model name", cpu.model_name.is_none()),
    ] {
        if missing {
            notes.push(format!(
                "CPU {what} unknown (neither CPUID nor /proc/cpuinfo gave it)"
            ));
        }
    }

    cpu.logical_cpus = if info.processors > 0 {
        Some(info.processors)
    } else {
        // SAFETY: sysconf has no preconditions.
        let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) };
        (n > 0).then_some(n as u32)
    };
    if cpu.logical_cpus.is_none() {
        notes.push("number of logical CPUs unknown".to_string());
    }
    match read_text("/sys/devices/system/cpu/online") {
        Ok(s) => cpu.online = Some(s),
        Err(e) => notes.push(format!("online CPU list unknown: {e}")),
    }
    cpu
}

/// MIDR_EL1 fields.
#[derive(Debug, PartialEq)]
pub struct Midr {
    pub implementer: u32,
    pub variant: u32,
    pub part: u32,
    pub revision: u32,
    pub vendor: &'static str,
}

impl Midr {
    #[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
    pub fn name(&self) -> String {
        let part = match (self.implementer, self.part) {
            (0x41, 0xd03) => Some("Cortex-A53"),
            (0x41, 0xd05) => Some("Cortex-A55"),
            (0x41, 0xd07) => Some("Cortex-A57"),
            (0x41, 0xd08) => Some("Cortex-A72"),
            (0x41, 0xd0b) => Some("Cortex-A76"),
            (0x41, 0xd0c) => Some("Neoverse-N1"),
            (0x41, 0xd40) => Some("Neoverse-V1"),
            (0x41, 0xd49) => Some("Neoverse-N2"),
            (0x41, 0xd4f) => Some("Neoverse-V2"),
            (0x41, 0xd8e) => Some("Neoverse-N3"),
            (0x41, 0xd84) => Some("Neoverse-V3"),
            _ => None,
        };
        match part {
            Some(p) => format!("{} {p}", self.vendor),
            None => format!("{} part {:#x}", self.vendor, self.part),
        }
    }
}

#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
pub fn decode_midr(m: u64) -> Midr {
    let implementer = ((m >> 24) & 0xff) as u32;
    Midr {
        implementer,
        variant: ((m >> 20) & 0xf) as u32,
        part: ((m >> 4) & 0xfff) as u32,
        revision: (m & 0xf) as u32,
        vendor: match implementer {
            0x41 => "ARM",
            0x42 => "Broadcom",
            0x43 => "Cavium",
            0x46 => "Fujitsu",
            0x48 => "HiSilicon",
            0x4e => "NVIDIA",
            0x50 => "APM",
            0x51 => "Qualcomm",
            0x61 => "Apple",
            0x6d => "Microsoft",
            0xc0 => "Ampere",
            _ => "unknown implementer",
        },
    }
}

#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
pub fn midr_from_cpuinfo(info: &CpuInfoText) -> Option<u64> {
    let f = |k: &str| info.get(k).and_then(parse_hex);
    let (imp, var, part, rev) = (
        f("CPU implementer")?,
        f("CPU variant")?,
        f("CPU part")?,
        info.get("CPU revision")?.parse::<u64>().ok()?,
    );
    Some((imp << 24) | (var << 20) | (0xf << 16) | (part << 4) | rev)
}

pub fn parse_hex(s: &str) -> Option<u64> {
    let s = s.trim();
    let digits = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    u64::from_str_radix(digits, 16).ok()
}

// ---------------------------------------------------------------- caches

fn caches(notes: &mut Vec<String>) -> Vec<Cache> {
    let base = "/sys/devices/system/cpu/cpu0/cache";
    let entries = match fs::read_dir(base) {
        Ok(e) => e,
        Err(e) => {
            notes.push(format!("cache geometry unknown: {base}: {e}"));
            return Vec::new();
        }
    };
    let mut dirs: Vec<(u32, String)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let n = name.strip_prefix("index")?.parse::<u32>().ok()?;
            Some((n, e.path().to_string_lossy().into_owned()))
        })
        .collect();
    dirs.sort();
    let mut out = Vec::new();
    for (_, dir) in dirs {
        let get = |f: &str| read_text(&format!("{dir}/{f}")).ok();
        let num = |f: &str| get(f).and_then(|s| s.parse::<u32>().ok());
        let Some(level) = num("level") else {
            notes.push(format!("{dir}: no readable level; entry skipped"));
            continue;
        };
        let size = get("size");
        let size_bytes = size.as_deref().and_then(parse_size);
        if size.is_some() && size_bytes.is_none() {
            notes.push(format!(
                "{dir}/size: cannot parse {:?}",
                size.unwrap_or_default()
            ));
        }
        out.push(Cache {
            level,
            kind: get("type").unwrap_or_else(|| "unknown".to_string()),
            size_bytes,
            ways: num("ways_of_associativity"),
            line_bytes: num("coherency_line_size"),
            sets: num("number_of_sets"),
            shared_cpu_list: get("shared_cpu_list"),
        });
    }
    if out.is_empty() {
        notes.push(format!(
            "cache geometry unknown: no index* entries under {base}"
        ));
    }
    out
}

/// sysfs sizes: `48K`, `2048K`, `32M`, or plain bytes.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mult) = match s.chars().last()? {
        'K' | 'k' => (&s[..s.len() - 1], 1u64 << 10),
        'M' | 'm' => (&s[..s.len() - 1], 1 << 20),
        'G' | 'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mult)
}

// ---------------------------------------------------------------- misc

fn hypervisor(notes: &mut Vec<String>) -> Option<String> {
    let mut found: Vec<String> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    if let Some((_, sig)) = super::cpuid::read().hypervisor {
        if !sig.is_empty() {
            found.push(sig);
        }
    }
    if let Ok(t) = read_text("/sys/hypervisor/type") {
        if !t.is_empty() && !found.iter().any(|f| f.eq_ignore_ascii_case(&t)) {
            found.push(format!("{t} (/sys/hypervisor/type)"));
        }
    }
    if found.is_empty() {
        notes.push(
            "no hypervisor detected (no CPUID hypervisor signature, no /sys/hypervisor/type)"
                .to_string(),
        );
        None
    } else {
        Some(found.join(", "))
    }
}

fn governor(notes: &mut Vec<String>) -> Option<String> {
    let dir = "/sys/devices/system/cpu/cpu0/cpufreq";
    if !Path::new(dir).exists() {
        notes.push(format!(
            "CPU governor unknown: {dir} does not exist (no frequency-scaling driver; usual in VMs)"
        ));
        return None;
    }
    match read_text(&format!("{dir}/scaling_governor")) {
        Ok(g) => Some(g),
        Err(e) => {
            notes.push(format!("CPU governor unknown: {e}"));
            None
        }
    }
}

/// The word in brackets: `always [madvise] never` → `madvise`.
pub fn bracketed(s: &str) -> Option<&str> {
    let start = s.find('[')? + 1;
    let len = s[start..].find(']')?;
    let w = s[start..start + len].trim();
    (!w.is_empty()).then_some(w)
}

pub fn meminfo_total_bytes(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut it = line["MemTotal:".len()..].split_whitespace();
    let n: u64 = it.next()?.parse().ok()?;
    match it.next() {
        Some("kB") => n.checked_mul(1024),
        None => Some(n),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const X86: &str = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 207\nmodel name\t: Intel(R) Xeon(R) Processor\nstepping\t: 2\nflags\t\t: fpu tsc rdtscp constant_tsc nonstop_tsc tsc_known_freq abm avx2 weird\n\nprocessor\t: 1\nvendor_id\t: GenuineIntel\nmodel name\t: other\n\n";

    const ARM: &str = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes atomics\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n\nprocessor\t: 1\nCPU part\t: 0xd0c\n";

    #[test]
    fn cpuinfo_x86() {
        let c = parse_cpuinfo(X86);
        assert_eq!(c.processors, 2);
        assert_eq!(c.get("model name"), Some("Intel(R) Xeon(R) Processor"));
        assert_eq!(c.get("cpu family"), Some("6"));
        assert!(c.get("flags").unwrap().contains("constant_tsc"));
        let flags: Vec<&str> = c.flags().collect();
        assert_eq!(
            flags,
            [
                "fpu",
                "tsc",
                "rdtscp",
                "constant_tsc",
                "nonstop_tsc",
                "tsc_known_freq",
                "abm",
                "avx2",
                "weird"
            ]
        );
    }

    #[test]
    fn cpuinfo_arm_and_midr() {
        let c = parse_cpuinfo(ARM);
        assert_eq!(c.processors, 2);
        let flags: Vec<&str> = c.flags().collect();
        assert_eq!(flags, ["fp", "asimd", "evtstrm", "aes", "atomics"]);
        assert_eq!(parse_cpuinfo("processor : 0").flags().count(), 0);
        let m = midr_from_cpuinfo(&c).unwrap();
        assert_eq!(m, 0x413f_d0c1);
        let d = decode_midr(m);
        assert_eq!(
            (d.implementer, d.variant, d.part, d.revision),
            (0x41, 3, 0xd0c, 1)
        );
        assert_eq!(d.name(), "ARM Neoverse-N1");
        assert_eq!(decode_midr(0x0000_0000_610f_0221).vendor, "Apple");
        assert_eq!(parse_hex("0x00000000410fd0c1\n"), Some(0x410f_d0c1));
        assert_eq!(parse_hex("d0c"), None);
    }

    #[test]
    fn odd_cpuinfo_does_not_panic() {
        for t in [
            "",
            ":",
            "::::\n\n\n",
            "processor",
            "flags: \u{0}\u{ff}",
            "a:b:c\nprocessor : x",
        ] {
            let _ = parse_cpuinfo(t);
        }
        assert_eq!(parse_cpuinfo("processor : 0\na:b:c").get("a"), Some("b:c"));
    }

    #[test]
    fn sysfs_values() {
        assert_eq!(parse_size("48K"), Some(48 * 1024));
        assert_eq!(parse_size("2048K\n"), Some(2 << 20));
        assert_eq!(parse_size("32M"), Some(32 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("K"), None);
        assert_eq!(parse_size(""), None);
        assert_eq!(parse_size("99999999999999999999G"), None);
        assert_eq!(bracketed("always [madvise] never"), Some("madvise"));
        assert_eq!(bracketed("[always] madvise never"), Some("always"));
        assert_eq!(bracketed("always madvise"), None);
        assert_eq!(bracketed("[]"), None);
        assert_eq!(bracketed("x]["), None);
        assert_eq!(
            meminfo_total_bytes("MemTotal:        8131720 kB\nMemFree: 1 kB\n"),
            Some(8_131_720 * 1024)
        );
        assert_eq!(meminfo_total_bytes("MemFree: 1 kB"), None);
        assert_eq!(meminfo_total_bytes("MemTotal: lots"), None);
    }
}
