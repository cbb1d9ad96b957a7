//! x86 CPUID: raw access (x86_64 only) and decoding (pure, tested everywhere).

// Only the decoding is compiled on other architectures, for the tests.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Regs {
    pub eax: u32,
    pub ebx: u32,
    pub ecx: u32,
    pub edx: u32,
}

#[cfg(target_arch = "x86_64")]
pub fn cpuid(leaf: u32, sub: u32) -> Regs {
    // SAFETY: CPUID exists on every x86_64 CPU and has no side effects; a leaf
    // above the maximum returns meaningless values, so callers check the
    // maximum leaf first.
    #[allow(unused_unsafe)]
    let r = unsafe { core::arch::x86_64::__cpuid_count(leaf, sub) };
    Regs {
        eax: r.eax,
        ebx: r.ebx,
        ecx: r.ecx,
        edx: r.edx,
    }
}

/// Everything the host description and the TSC code need from CPUID.
#[derive(Clone, Debug, Default)]
pub struct CpuidInfo {
    pub vendor: String,
    pub max_leaf: u32,
    pub max_ext_leaf: u32,
    pub leaf1: Regs,
    pub leaf7: Regs,
    pub ext1: Regs,
    pub ext7: Regs,
    pub ext21: Regs,
    pub brand: Option<String>,
    /// (max hypervisor leaf, signature) when the hypervisor bit is set.
    pub hypervisor: Option<(u32, String)>,
}

#[cfg(target_arch = "x86_64")]
pub fn read() -> CpuidInfo {
    let l0 = cpuid(0, 0);
    let mut info = CpuidInfo {
        vendor: regs_string(&[l0.ebx, l0.edx, l0.ecx]),
        max_leaf: l0.eax,
        ..CpuidInfo::default()
    };
    if info.max_leaf >= 1 {
        info.leaf1 = cpuid(1, 0);
    }
    if info.max_leaf >= 7 {
        info.leaf7 = cpuid(7, 0);
    }
    let e0 = cpuid(0x8000_0000, 0);
    // A valid extended range answers with a maximum ≥ 0x80000000.
    info.max_ext_leaf = if e0.eax >= 0x8000_0000 { e0.eax } else { 0 };
    if info.max_ext_leaf >= 0x8000_0001 {
        info.ext1 = cpuid(0x8000_0001, 0);
    }
    if info.max_ext_leaf >= 0x8000_0004 {
        let mut words = Vec::with_capacity(12);
        for leaf in 0x8000_0002..=0x8000_0004u32 {
            let r = cpuid(leaf, 0);
            words.extend_from_slice(&[r.eax, r.ebx, r.ecx, r.edx]);
        }
        let b = regs_string(&words);
        if !b.is_empty() {
            info.brand = Some(b);
        }
    }
    if info.max_ext_leaf >= 0x8000_0007 {
        info.ext7 = cpuid(0x8000_0007, 0);
    }
    if info.max_ext_leaf >= 0x8000_0021 {
        info.ext21 = cpuid(0x8000_0021, 0);
    }
    if bit(info.leaf1.ecx, 31) {
        let h = cpuid(0x4000_0000, 0);
        info.hypervisor = Some((h.eax, regs_string(&[h.ebx, h.ecx, h.edx])));
    }
    info
}

/// Little-endian register bytes as text, NULs and padding trimmed.
pub fn regs_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    String::from_utf8_lossy(&bytes)
        .trim_matches(|c: char| c == '\0' || c.is_whitespace())
        .replace('\0', "")
}

pub fn bit(x: u32, n: u32) -> bool {
    (x >> n) & 1 == 1
}

/// (family, model, stepping) from CPUID leaf 1 EAX, with the extended
/// family/model rules: extended family is added only when the base family is
/// 0xF; extended model is prepended when the base family is 0x6 or 0xF.
pub fn signature(eax: u32) -> (u32, u32, u32) {
    let stepping = eax & 0xf;
    let base_model = (eax >> 4) & 0xf;
    let base_family = (eax >> 8) & 0xf;
    let ext_model = (eax >> 16) & 0xf;
    let ext_family = (eax >> 20) & 0xff;
    let family = if base_family == 0xf {
        base_family + ext_family
    } else {
        base_family
    };
    let model = if base_family == 0x6 || base_family == 0xf {
        (ext_model << 4) | base_model
    } else {
        base_model
    };
    (family, model, stepping)
}

/// Timing-relevant features CPUID reports, by their /proc/cpuinfo names.
pub fn flags(i: &CpuidInfo) -> Vec<&'static str> {
    let (c1, d1) = (i.leaf1.ecx, i.leaf1.edx);
    let (b7, c7, d7) = (i.leaf7.ebx, i.leaf7.ecx, i.leaf7.edx);
    let checks: [(&str, bool); 20] = [
        ("tsc", bit(d1, 4)),
        ("sse2", bit(d1, 26)),
        ("fma", bit(c1, 12)),
        ("popcnt", bit(c1, 23)),
        ("tsc_deadline_timer", bit(c1, 24)),
        ("avx", bit(c1, 28)),
        ("hypervisor", bit(c1, 31)),
        ("tsc_adjust", bit(b7, 1)),
        ("bmi1", bit(b7, 3)),
        ("avx2", bit(b7, 5)),
        ("bmi2", bit(b7, 8)),
        ("erms", bit(b7, 9)),
        ("avx512f", bit(b7, 16)),
        ("rdpid", bit(c7, 22)),
        ("fsrm", bit(d7, 4)),
        ("serialize", bit(d7, 14)),
        ("rdtscp", bit(i.ext1.edx, 27)),
        ("lzcnt", bit(i.ext1.ecx, 5)),
        ("invariant_tsc", bit(i.ext7.edx, 8)),
        // LFENCE waits for all earlier instructions to complete (so
        // `lfence; rdtsc` is ordered) on Intel always, on AMD only when
        // CPUID 0x80000021 EAX bit 2 says the OS made it so.
        (
            "lfence_serializing",
            i.vendor == "GenuineIntel"
                || ((i.vendor == "AuthenticAMD" || i.vendor == "HygonGenuine")
                    && bit(i.ext21.eax, 2)),
        ),
    ];
    checks
        .iter()
        .filter(|(_, on)| *on)
        .map(|(n, _)| *n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures() {
        // Sapphire Rapids 0x806F8: family 6, model 0x8F, stepping 8.
        assert_eq!(signature(0x0008_06F8), (6, 0x8f, 8));
        // Emerald Rapids (this VM): family 6 model 207 stepping 2.
        assert_eq!(signature(0x000C_06F2), (6, 207, 2));
        // AMD Zen 3 0xA20F10: base family 0xF + ext 0xA = 0x19, model 0x21.
        assert_eq!(signature(0x00A2_0F10), (0x19, 0x21, 0));
        // Pentium 4 (base family 0xF, ext family 0): family 15, model 2.
        assert_eq!(signature(0x0000_0F29), (15, 2, 9));
        // Family 5 ignores the extended model bits.
        assert_eq!(signature(0x0001_0543), (5, 4, 3));
    }

    #[test]
    fn vendor_text_and_flags() {
        // "GenuineIntel" is EBX, EDX, ECX of leaf 0.
        let v = regs_string(&[0x756e_6547, 0x4965_6e69, 0x6c65_746e]);
        assert_eq!(v, "GenuineIntel");
        assert_eq!(
            regs_string(&[0x4b4d_564b, 0x564b_4d56, 0x0000_004d]),
            "KVMKVMKVM"
        );
        let info = CpuidInfo {
            vendor: v,
            max_leaf: 0x1c,
            leaf1: Regs {
                edx: 1 << 4,
                ecx: 1 << 31,
                ..Regs::default()
            },
            ext1: Regs {
                edx: 1 << 27,
                ..Regs::default()
            },
            ext7: Regs {
                edx: 1 << 8,
                ..Regs::default()
            },
            ..CpuidInfo::default()
        };
        assert_eq!(
            flags(&info),
            vec![
                "tsc",
                "hypervisor",
                "rdtscp",
                "invariant_tsc",
                "lfence_serializing"
            ]
        );
        let amd = CpuidInfo {
            vendor: "AuthenticAMD".into(),
            ..CpuidInfo::default()
        };
        assert!(flags(&amd).is_empty());
    }
}
