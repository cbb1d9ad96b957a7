//! Whether this process runs under user-mode emulation (qemu-user and
//! other binary translators): then every timing is the translator's, not
//! the CPU's, and each suite records that as its first fallback.
//!
//! The test asks the kernel, not the CPU. A kernel runs only its own
//! instruction set's programs natively, so a kernel whose architecture
//! differs from the one this binary was compiled for means a translator sits
//! between them. The kernel's own answers are `/proc/sys/kernel/arch` (the
//! `kernel.arch` sysctl) and, where that is missing, the fields of
//! `/proc/cpuinfo`, which differ per architecture (`vendor_id`/`flags` on
//! x86, `CPU implementer`/`Features` on arm64). What the translator itself
//! answers cannot be trusted and is not used: qemu-user fakes `uname`, the
//! auxiliary vector's HWCAP and platform, and it emulates the generic timer
//! with a plausible CNTFRQ_EL0 and a CNTVCT_EL0 that ticks at that rate in
//! real time, so neither the frequency nor a comparison of the counter's
//! rate with CLOCK_MONOTONIC tells it from hardware. Suites whose largest
//! cases take minutes under an emulator (copy, bottleneck) shrink them
//! there, and say so. Not detected:
//! full-system emulation (a whole emulated machine, kernel included), where
//! the kernel's architecture is the program's.

use std::fs;

/// The kernel architecture `cpuinfo`'s fields show, when they show one.
fn arch_of_cpuinfo(cpuinfo: &str) -> Option<&'static str> {
    let has = |field: &str| {
        cpuinfo
            .lines()
            .any(|l| l.split(':').next().is_some_and(|k| k.trim() == field))
    };
    if has("vendor_id") && has("flags") {
        Some("x86_64")
    } else if has("CPU implementer") && has("Features") {
        Some("aarch64")
    } else {
        None
    }
}

/// Names the same architecture as Rust's `ARCH`? (`kernel.arch` says
/// `arm64` on some systems, `aarch64` on most.)
fn same_arch(kernel: &str, compiled: &str) -> bool {
    let norm = |a: &str| match a {
        "arm64" => "aarch64".to_string(),
        "amd64" => "x86_64".to_string(),
        other => other.to_string(),
    };
    norm(kernel) == norm(compiled)
}

/// The fallback to record, from the kernel's answers: `kernel_arch` (the
/// sysctl, when readable) and `cpuinfo` (when readable).
fn verdict(kernel_arch: Option<&str>, cpuinfo: Option<&str>, compiled: &str) -> Option<String> {
    let (kernel, how) = match kernel_arch.map(str::trim).filter(|a| !a.is_empty()) {
        Some(a) => (a.to_string(), "/proc/sys/kernel/arch"),
        None => (
            arch_of_cpuinfo(cpuinfo?)?.to_string(),
            "the fields of /proc/cpuinfo",
        ),
    };
    (!same_arch(&kernel, compiled)).then(|| {
        format!(
            "emulated: this {compiled} program runs on a {kernel} kernel ({how}), so through a \
             user-mode translator such as qemu-user; every timing here is the emulator's, not a CPU's"
        )
    })
}

/// The emulation fallback, or `None` when the program runs natively (or the
/// kernel does not say). Read once per process.
pub fn emulated() -> Option<&'static str> {
    static CACHE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    CACHE
        .get_or_init(|| {
            let arch = fs::read_to_string("/proc/sys/kernel/arch").ok();
            let cpuinfo = fs::read_to_string("/proc/cpuinfo").ok();
            verdict(arch.as_deref(), cpuinfo.as_deref(), std::env::consts::ARCH)
        })
        .as_deref()
}

#[cfg(test)]
mod tests {
    use super::*;

    const X86: &str = "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu vme sse2\n";
    const ARM: &str = "processor\t: 0\nFeatures\t: fp asimd evtstrm\nCPU implementer\t: 0x41\n";

    #[test]
    fn a_foreign_kernel_is_emulation_and_the_own_is_not() {
        let e = verdict(Some("x86_64\n"), Some(X86), "aarch64").unwrap();
        assert!(
            e.starts_with("emulated: this aarch64 program runs on a x86_64 kernel"),
            "{e}"
        );
        assert_eq!(verdict(Some("x86_64\n"), Some(X86), "x86_64"), None);
        assert_eq!(verdict(Some("aarch64\n"), Some(ARM), "aarch64"), None);
        assert_eq!(verdict(Some("arm64"), None, "aarch64"), None);
        assert!(verdict(Some("aarch64"), None, "x86_64").is_some());
    }

    #[test]
    fn without_the_sysctl_cpuinfo_decides_and_silence_is_native() {
        let e = verdict(None, Some(X86), "aarch64").unwrap();
        assert!(e.contains("/proc/cpuinfo"), "{e}");
        assert_eq!(verdict(None, Some(ARM), "aarch64"), None);
        assert_eq!(verdict(Some(""), Some(ARM), "aarch64"), None);
        // An unknown layout or nothing readable says nothing.
        assert_eq!(verdict(None, Some("model name: ?\n"), "aarch64"), None);
        assert_eq!(verdict(None, None, "aarch64"), None);
    }
}
