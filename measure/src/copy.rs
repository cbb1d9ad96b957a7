//! The `copy` suite: the array-copy benchmark ArrayCopyTest3 (a study of
//! Java's System.arraycopy with MMX and SSE2) — 8 variants (distinct arrays
//! / the same array × offsets (0,0), (off,0), (0,off), (off,off)) ×
//! alignments 1…64 × copy implementations × lengths around the caches.
//! Offset and length are both rounded `i − i % align`, as in
//! ArrayCopyTest3, so one raw offset and one raw length give every
//! alignment.

use std::hint::black_box;
use std::time::Instant;

use serde_json::json;
use tickbook_analysis::format::{Cache, NamedSize};
use tickbook_analysis::stats::bootstrap::median;
use tickbook_analysis::suites::copy::{CopyCase, CopyData};

use super::alloc::mem::Mapping;
use super::{signals, Ctx, SuiteFailure, SuiteOutput, SuiteResult};

const ALIGNMENTS: [u64; 7] = [1, 2, 4, 8, 16, 32, 64];

/// The raw offset before rounding: 1024 + 63, so that rounding to 1…64 gives
/// offsets with exactly that alignment (1087, 1086, 1084, 1080, 1072, 1056,
/// 1024) and none of them a multiple of the page size (which would add 4 KiB
/// aliasing between loads and stores to the alignment effect).
const OFFSET_RAW: u64 = 1024 + 63;
/// Added to each nominal length before rounding, for the same reason: the
/// unrounded length ends 63 bytes past a 64-byte boundary.
const LENGTH_EXTRA: u64 = 63;

/// Copies per timed sample for short lengths: ArrayCopyTest3's 10 calls per
/// iteration. Longer copies (≥ 64 KiB) are timed one per sample: they take
/// tens of µs or more, so the read cost of the clock no longer matters.
const COPIES_SHORT: u32 = 10;
const SHORT_LIMIT: u64 = 64 << 10;

/// The longest length: 2 × LLC would need two buffers of 2 × LLC each (on
/// this kind of host 520 MiB apiece), so it is capped.
const LONGEST_CAP: u64 = 64 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Imp {
    StdCopyNonoverlapping,
    StdCopy,
    RepMovsb,
    Sse2Loop16,
    Avx2Loop32,
    ByteLoop,
}

const IMPS: [Imp; 6] = [
    Imp::StdCopyNonoverlapping,
    Imp::StdCopy,
    Imp::RepMovsb,
    Imp::Sse2Loop16,
    Imp::Avx2Loop32,
    Imp::ByteLoop,
];

impl Imp {
    fn name(self) -> &'static str {
        match self {
            Imp::StdCopyNonoverlapping => "std_copy_nonoverlapping",
            Imp::StdCopy => "std_copy",
            Imp::RepMovsb => "rep_movsb",
            Imp::Sse2Loop16 => "sse2_loop16",
            Imp::Avx2Loop32 => "avx2_loop32",
            Imp::ByteLoop => "byte_loop",
        }
    }

    /// Why this implementation cannot run on this CPU at all, if it cannot.
    fn unavailable(self) -> Option<String> {
        match self {
            Imp::RepMovsb if !cfg!(target_arch = "x86_64") => Some(format!(
                "rep movsb is x86 only (this is {})",
                std::env::consts::ARCH
            )),
            Imp::Avx2Loop32 => avx2_unavailable(),
            _ => None,
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn avx2_unavailable() -> Option<String> {
    (!std::is_x86_feature_detected!("avx2"))
        .then(|| "the CPU does not report AVX2 (runtime detection)".to_string())
}

#[cfg(not(target_arch = "x86_64"))]
fn avx2_unavailable() -> Option<String> {
    Some(format!(
        "AVX2 is x86 only (this is {})",
        std::env::consts::ARCH
    ))
}

// ------------------------------------------------------------ implementations
//
// All take raw pointers and may be given overlapping ranges (the same-array
// variants). The asm loops and the byte loop copy forwards, like `rep movsb`:
// for an overlapping copy with the destination above the source (variant 7)
// they are not memmove, which is recorded; their timing is what is wanted.

/// `rep movsb` (ERMS / FSRM make it the fast path of modern memcpy).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn rep_movsb(src: *const u8, dst: *mut u8, len: usize) {
    // SAFETY (caller): [src, src+len) readable, [dst, dst+len) writable.
    // The direction flag is clear by the ABI, so the copy runs forwards.
    core::arch::asm!(
        "rep movsb",
        inout("rcx") len => _,
        inout("rsi") src => _,
        inout("rdi") dst => _,
        options(nostack, preserves_flags)
    );
}

/// 16 bytes per iteration through an XMM register with `movdqu` (unaligned
/// load and store, as HotSpot's UseUnalignedLoadStores loop), then bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn sse2_loop16(src: *const u8, dst: *mut u8, len: usize) {
    // SAFETY (caller): as for rep_movsb. SSE2 is part of x86_64.
    core::arch::asm!(
        "2:",
        "test {n}, {n}",
        "jz 3f",
        "movdqu {x}, xmmword ptr [{s}]",
        "movdqu xmmword ptr [{d}], {x}",
        "add {s}, 16",
        "add {d}, 16",
        "dec {n}",
        "jmp 2b",
        "3:",
        "test {t}, {t}",
        "jz 5f",
        "4:",
        "mov {b}, byte ptr [{s}]",
        "mov byte ptr [{d}], {b}",
        "inc {s}",
        "inc {d}",
        "dec {t}",
        "jnz 4b",
        "5:",
        n = inout(reg) len / 16 => _,
        t = inout(reg) len % 16 => _,
        s = inout(reg) src => _,
        d = inout(reg) dst => _,
        x = out(xmm_reg) _,
        b = out(reg_byte) _,
        options(nostack)
    );
}

/// 32 bytes per iteration through a YMM register (`vmovdqu`), then bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn avx2_loop32(src: *const u8, dst: *mut u8, len: usize) {
    // SAFETY (caller): as for rep_movsb, and AVX2 was detected at run time.
    // vzeroupper avoids the SSE/AVX transition penalty in the code after us.
    core::arch::asm!(
        "2:",
        "test {n}, {n}",
        "jz 3f",
        "vmovdqu {y}, ymmword ptr [{s}]",
        "vmovdqu ymmword ptr [{d}], {y}",
        "add {s}, 32",
        "add {d}, 32",
        "dec {n}",
        "jmp 2b",
        "3:",
        "vzeroupper",
        "test {t}, {t}",
        "jz 5f",
        "4:",
        "mov {b}, byte ptr [{s}]",
        "mov byte ptr [{d}], {b}",
        "inc {s}",
        "inc {d}",
        "dec {t}",
        "jnz 4b",
        "5:",
        n = inout(reg) len / 32 => _,
        t = inout(reg) len % 32 => _,
        s = inout(reg) src => _,
        d = inout(reg) dst => _,
        y = out(ymm_reg) _,
        b = out(reg_byte) _,
        options(nostack)
    );
}

/// Portable stand-in for the SSE2 loop off x86: 16-byte unaligned reads and
/// writes of `u128` (the compiler picks the registers; recorded as a fallback).
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
unsafe fn sse2_loop16(src: *const u8, dst: *mut u8, len: usize) {
    let mut i = 0;
    while i + 16 <= len {
        // SAFETY (caller): in range. black_box on the pointer keeps this a
        // 16-byte loop instead of being recognised as a memcpy idiom.
        let v = black_box(src.add(i) as *const u128).read_unaligned();
        (dst.add(i) as *mut u128).write_unaligned(v);
        i += 16;
    }
    while i < len {
        dst.add(i).write_volatile(src.add(i).read_volatile());
        i += 1;
    }
}

/// One byte per iteration; volatile so it is not vectorized or turned into
/// a memcpy call.
#[inline(always)]
unsafe fn byte_loop(src: *const u8, dst: *mut u8, len: usize) {
    for i in 0..len {
        // SAFETY (caller): i < len, inside both ranges.
        dst.add(i).write_volatile(src.add(i).read_volatile());
    }
}

// ------------------------------------------------------------------ timing

/// The clock that times samples: the ordered counter read and its ns per
/// tick, or `Instant`.
#[derive(Clone, Copy)]
enum Clock {
    Counter(fn() -> u64, f64),
    Instant,
}

/// How one case is sampled.
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// Untimed copies first.
    warmup: u32,
    /// Samples.
    reps: u32,
    /// Copies per sample.
    copies: u32,
}

/// Time `reps` samples of `copies` copies each; `warmup` untimed copies first.
/// Generic over the copy so that every implementation gets its own loop with
/// the copy inlined (no indirect call inside the timed region).
///
/// # Safety
/// `f(src, dst, len)` must be sound for these pointers.
unsafe fn time_copies<F: Fn(*const u8, *mut u8, usize)>(
    f: F,
    clock: Clock,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    plan: Plan,
) -> Vec<f64> {
    let Plan {
        warmup,
        reps,
        copies,
    } = plan;
    for _ in 0..warmup {
        f(black_box(src), black_box(dst), black_box(len));
    }
    let mut out = Vec::with_capacity(reps as usize);
    for _ in 0..reps {
        let ns = match clock {
            Clock::Counter(read, ns_per_tick) => {
                let t0 = read();
                for _ in 0..copies {
                    // black_box: the repeated identical copy must not be
                    // merged or hoisted out of the loop.
                    f(black_box(src), black_box(dst), black_box(len));
                }
                let t1 = read();
                t1.wrapping_sub(t0) as f64 * ns_per_tick
            }
            Clock::Instant => {
                let t0 = Instant::now();
                for _ in 0..copies {
                    f(black_box(src), black_box(dst), black_box(len));
                }
                t0.elapsed().as_nanos() as f64
            }
        };
        out.push(ns / f64::from(copies));
    }
    out
}

/// Run one implementation on one (src, dst, len).
///
/// # Safety
/// As [`time_copies`]; `StdCopyNonoverlapping` only for disjoint ranges and
/// `Avx2Loop32` only where AVX2 was detected.
unsafe fn time_imp(
    imp: Imp,
    clock: Clock,
    src: *const u8,
    dst: *mut u8,
    len: usize,
    plan: Plan,
) -> Vec<f64> {
    match imp {
        Imp::StdCopyNonoverlapping => time_copies(
            |s, d, n| std::ptr::copy_nonoverlapping(s, d, n),
            clock,
            src,
            dst,
            len,
            plan,
        ),
        Imp::StdCopy => time_copies(
            |s, d, n| std::ptr::copy(s, d, n),
            clock,
            src,
            dst,
            len,
            plan,
        ),
        #[cfg(target_arch = "x86_64")]
        Imp::RepMovsb => time_copies(|s, d, n| rep_movsb(s, d, n), clock, src, dst, len, plan),
        #[cfg(not(target_arch = "x86_64"))]
        Imp::RepMovsb => Vec::new(),
        Imp::Sse2Loop16 => time_copies(|s, d, n| sse2_loop16(s, d, n), clock, src, dst, len, plan),
        #[cfg(target_arch = "x86_64")]
        Imp::Avx2Loop32 => time_copies(|s, d, n| avx2_loop32(s, d, n), clock, src, dst, len, plan),
        #[cfg(not(target_arch = "x86_64"))]
        Imp::Avx2Loop32 => Vec::new(),
        Imp::ByteLoop => time_copies(|s, d, n| byte_loop(s, d, n), clock, src, dst, len, plan),
    }
}

// ------------------------------------------------------------------ lengths

/// A nominal copy length and the cache level it is meant to sit in.
#[derive(Debug, Clone)]
struct Length {
    bytes: u64,
    /// Where the working set (source + destination) of a distinct-array copy
    /// lives, e.g. `L1d` or `beyond L2, within L3`.
    placement: String,
}

fn cache_size(caches: &[Cache], level: u32, data: bool) -> Option<u64> {
    caches
        .iter()
        .filter(|c| c.level == level && (!data || c.kind != "Instruction"))
        .find_map(|c| c.size_bytes)
}

/// Lengths crossing L1, L2 and the last-level cache. Each is a multiple of
/// 4 KiB; a distinct-array copy touches twice the length.
fn lengths(caches: &[Cache], fallbacks: &mut Vec<String>) -> (Vec<Length>, Vec<NamedSize>) {
    let mut named = Vec::new();
    let l1 = cache_size(caches, 1, true);
    let l2 = cache_size(caches, 2, true);
    let llc = caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .max_by_key(|c| c.level)
        .and_then(|c| c.size_bytes.map(|s| (c.level, s)));
    for (name, v) in [("L1d", l1), ("L2", l2)] {
        if let Some(b) = v {
            named.push(NamedSize {
                name: name.to_string(),
                bytes: b,
            });
        }
    }
    if let Some((level, b)) = llc.filter(|(l, _)| *l > 2) {
        named.push(NamedSize {
            name: format!("L{level}"),
            bytes: b,
        });
    }
    let round = |b: u64| (b / 4096).max(1) * 4096;
    let l1 = l1.unwrap_or_else(|| {
        fallbacks.push("L1d size unknown (sysfs): assumed 32 KiB for the lengths".to_string());
        32 << 10
    });
    let l2 = l2.unwrap_or_else(|| {
        fallbacks.push("L2 size unknown (sysfs): assumed 1 MiB for the lengths".to_string());
        1 << 20
    });
    let llc_bytes = match llc {
        Some((_, b)) if b > l2 => b,
        _ => {
            fallbacks.push(
                "no cache level beyond L2 known (sysfs): assumed an LLC of 8 × L2 for the lengths"
                    .to_string(),
            );
            l2 * 8
        }
    };
    let mut v = vec![
        Length {
            bytes: round(l1 / 4),
            placement: "in L1d (source + destination = L1d / 2)".to_string(),
        },
        Length {
            bytes: round(l2 / 4),
            placement: "beyond L1d, in L2 (source + destination = L2 / 2)".to_string(),
        },
    ];
    // Between L2 and the LLC: 4 × L2 per array, well clear of L2, and at most
    // a quarter of the LLC.
    let mid = round((l2 * 4).min(llc_bytes / 4).max(l2));
    v.push(Length {
        bytes: mid,
        placement: "beyond L2, within the LLC".to_string(),
    });
    let beyond = 2 * llc_bytes;
    if beyond <= LONGEST_CAP {
        v.push(Length {
            bytes: round(beyond),
            placement: "beyond the LLC (2 × LLC)".to_string(),
        });
    } else {
        fallbacks.push(format!(
            "longest length capped at {} MiB instead of 2 × LLC ({} MiB): buffers of that size would not be sensible; it stays within the LLC ({} MiB), so no length here is DRAM-bound",
            LONGEST_CAP >> 20,
            beyond >> 20,
            llc_bytes >> 20
        ));
        if LONGEST_CAP > mid {
            v.push(Length {
                bytes: LONGEST_CAP,
                placement: "capped longest length (within the LLC)".to_string(),
            });
        }
    }
    (v, named)
}

/// `i − i % align`, ArrayCopyTest3's rounding.
fn round_down(i: u64, align: u64) -> u64 {
    i - i % align
}

fn copies_for(len: u64) -> u32 {
    if len < SHORT_LIMIT {
        COPIES_SHORT
    } else {
        1
    }
}

/// Untimed copies before the samples: at least 2, and at least ~1 MiB of
/// copying so short cases reach a steady state.
fn warmup_for(len: u64) -> u32 {
    ((1u64 << 20) / len.max(1)).clamp(2, 200) as u32
}

// -------------------------------------------------------------------- suite

pub fn run(ctx: &Ctx) -> SuiteResult {
    let mut fallbacks: Vec<String> = Vec::new();
    let pinned = super::pin_here(&mut fallbacks);
    let pinned_cpu = pinned.cpu;
    let counter = super::counter(ctx);
    fallbacks.extend(counter.fallbacks.iter().cloned());
    let (clock, clock_name) = match counter.reader() {
        Some((read, ns_per_tick)) => (
            Clock::Counter(read, ns_per_tick),
            super::tsc::ORDERED_NAME.to_string(),
        ),
        None => {
            fallbacks.push(format!(
                "samples timed with std::time::Instant instead of {}: no usable counter or frequency",
                super::tsc::ORDERED_NAME
            ));
            (Clock::Instant, "std::time::Instant".to_string())
        }
    };

    let host = super::host::collect();
    let (mut lens, cache_bytes) = lengths(&host.caches, &mut fallbacks);
    if super::emulation::emulated().is_some() {
        // Byte loops over LLC-sized buffers take hours under an emulator.
        lens.truncate(2);
        fallbacks.push(
            "emulated: only the lengths within L1d and L2 are copied; the longer ones take too long under an emulator, whose timings mean nothing anyway"
                .to_string(),
        );
    }
    let reps: u32 = if ctx.quick { 10 } else { 100 };

    let mut imp_status: Vec<(Imp, Option<String>)> = Vec::new();
    for imp in IMPS {
        let why = imp.unavailable();
        if let Some(w) = &why {
            fallbacks.push(format!("{}: not run: {w}", imp.name()));
        }
        imp_status.push((imp, why));
    }
    if !cfg!(target_arch = "x86_64") {
        fallbacks.push(
            "sse2_loop16 is a portable 16-byte loop (u128 unaligned loads/stores) on this architecture, not SSE2"
                .to_string(),
        );
    }
    fallbacks.push(
        "rep_movsb, sse2_loop16, avx2_loop32 and byte_loop copy forwards: in variant 7 (same array, destination above an overlapping source) they do not have memmove semantics; their time is that of the forward copy"
            .to_string(),
    );

    let total: u64 = (lens.len() * IMPS.len() * 8 * ALIGNMENTS.len()) as u64;
    let bar = ctx.progress.bar("copy cases", total);
    let mut cases: Vec<CopyCase> = Vec::new();
    let mut interrupted: Option<i32> = None;
    let mut length_rows = Vec::new();
    'lengths: for len in &lens {
        let max_len = (len.bytes + LENGTH_EXTRA) as usize;
        let size = max_len + OFFSET_RAW as usize + 4096;
        let (src_map, dst_map) = match (Mapping::new(size), Mapping::new(size)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => {
                return Err(SuiteFailure {
                    message: format!("cannot map two buffers of {size} bytes: {e}"),
                    partial: None,
                })
            }
        };
        // Distinct, non-zero contents so no page is the shared zero page and
        // the verification below can see a copy that went wrong.
        // SAFETY: both mappings are `size` bytes, live, and not aliased.
        unsafe {
            for i in 0..size {
                src_map.ptr().add(i).write((i % 251) as u8);
            }
            std::ptr::write_bytes(dst_map.ptr(), 0xA5, size);
        }
        let copies = copies_for(len.bytes);
        let warmup = warmup_for(len.bytes);
        length_rows.push(json!({
            "nominal_bytes": len.bytes,
            "placement": len.placement,
            "copies_per_sample": copies,
            "warmup_copies": warmup,
        }));
        for (imp, why) in &imp_status {
            for variant in 1u8..=8 {
                let same = variant >= 5;
                let (src_uses_off, dst_uses_off) = match (variant - 1) % 4 {
                    0 => (false, false),
                    1 => (true, false),
                    2 => (false, true),
                    _ => (true, true),
                };
                for &align in &ALIGNMENTS {
                    if let Some(sig) = signals::stop_requested() {
                        interrupted = Some(sig);
                        break 'lengths;
                    }
                    let off = round_down(OFFSET_RAW, align);
                    let length = round_down(len.bytes + LENGTH_EXTRA, align);
                    let src_offset = if src_uses_off { off } else { 0 };
                    let dst_offset = if dst_uses_off { off } else { 0 };
                    let mut case = CopyCase {
                        implementation: imp.name().to_string(),
                        variant,
                        same_array: same,
                        src_offset,
                        dst_offset,
                        alignment: align,
                        length,
                        available: true,
                        unavailable_reason: None,
                        samples_ns: Vec::new(),
                        copies_per_sample: (copies != COPIES_SHORT).then_some(copies),
                    };
                    let overlaps = same && src_offset.abs_diff(dst_offset) < length;
                    if let Some(w) = why {
                        case.available = false;
                        case.unavailable_reason = Some(w.clone());
                    } else if *imp == Imp::StdCopyNonoverlapping && overlaps {
                        case.available = false;
                        case.unavailable_reason = Some(
                            "source and destination overlap (same array): copy_nonoverlapping would be undefined behaviour"
                                .to_string(),
                        );
                    } else {
                        let src = src_map.ptr();
                        let dst = if same { src_map.ptr() } else { dst_map.ptr() };
                        // SAFETY: offsets + length ≤ OFFSET_RAW + max_len <
                        // size, so both ranges lie inside live mappings;
                        // copy_nonoverlapping only gets disjoint ranges (checked
                        // above) and avx2_loop32 only runs where AVX2 was
                        // detected (imp_status). No references to the buffers
                        // exist while the raw copies run.
                        let samples = unsafe {
                            let s = src.add(src_offset as usize);
                            let d = dst.add(dst_offset as usize);
                            let samples = time_imp(
                                *imp,
                                clock,
                                s,
                                d,
                                length as usize,
                                Plan {
                                    warmup,
                                    reps,
                                    copies,
                                },
                            );
                            if !same && !verify(s, d, length as usize) {
                                return Err(SuiteFailure {
                                    message: format!(
                                        "{} copied wrongly (variant {variant}, alignment {align}, length {length})",
                                        imp.name()
                                    ),
                                    partial: None,
                                });
                            }
                            samples
                        };
                        case.samples_ns = samples;
                    }
                    cases.push(case);
                    bar.inc(1);
                }
            }
        }
    }
    bar.finish_with_message(format!("{} cases", cases.len()));

    let data = CopyData {
        clock: clock_name.clone(),
        copies_per_sample: COPIES_SHORT,
        repetitions: reps,
        cache_bytes,
        cases,
    };
    let summary = summarize(&data);
    let data = serde_json::to_value(&data).map_err(|e| SuiteFailure {
        message: format!("cannot serialize copy data: {e}"),
        partial: None,
    })?;
    let config = json!({
        "quick": ctx.quick,
        "repetitions": reps,
        "alignments": ALIGNMENTS,
        "offset_raw": OFFSET_RAW,
        "length_extra": LENGTH_EXTRA,
        "rounding": "offset and length are both i − i % alignment (ArrayCopyTest3)",
        "lengths": length_rows,
        "copies_per_sample_short": COPIES_SHORT,
        "copies_per_sample_note": format!("lengths below {} KiB: {COPIES_SHORT} copies per sample; longer: 1 (the case's copies_per_sample says so)", SHORT_LIMIT >> 10),
        "longest_cap_bytes": LONGEST_CAP,
        "buffers": "two anonymous mmap buffers per length (page-aligned, written before timing); same-array variants use the source buffer only",
        "clock": clock_name,
        "pinned_cpu": pinned_cpu,
        "cpu_flags": copy_flags(),
        "implementations": imp_status.iter().map(|(i, w)| json!({
            "name": i.name(),
            "available": w.is_none(),
            "unavailable_reason": w,
        })).collect::<Vec<_>>(),
        "no_counter_flag": ctx.no_counter,
    });
    let out = SuiteOutput {
        config,
        fallbacks,
        data,
        summary,
    };
    out.finish(interrupted)
}

/// # Safety
/// Both ranges readable for `len` bytes.
unsafe fn verify(src: *const u8, dst: *const u8, len: usize) -> bool {
    std::slice::from_raw_parts(src, len) == std::slice::from_raw_parts(dst, len)
}

/// The CPU flags that decide which copy is fast.
fn copy_flags() -> Vec<String> {
    let wanted = [
        "sse2", "ssse3", "avx", "avx2", "avx512f", "avx512bw", "erms", "fsrm", "asimd", "sve",
    ];
    super::host::cpuinfo_flags()
        .into_iter()
        .filter(|f| wanted.contains(&f.as_str()))
        .collect()
}

/// One line per length: each implementation's median time per byte in the
/// plain case (distinct arrays, both offsets 0, alignment 64) and the slowest
/// variant × alignment relative to it.
fn summarize(d: &CopyData) -> Vec<String> {
    let mut out = Vec::new();
    let mut lens: Vec<u64> = d
        .cases
        .iter()
        .filter(|c| c.alignment == 64)
        .map(|c| c.length)
        .collect();
    lens.sort_unstable();
    lens.dedup();
    for len in lens {
        let mut parts = Vec::new();
        for imp in IMPS {
            let of_imp: Vec<&CopyCase> = d
                .cases
                .iter()
                .filter(|c| {
                    c.implementation == imp.name() && c.available && round_down(c.length, 64) == len
                })
                .collect();
            let Some(base) = of_imp
                .iter()
                .find(|c| c.variant == 1 && c.alignment == 64)
                .map(|c| median(&c.samples_ns))
            else {
                continue;
            };
            let worst = of_imp
                .iter()
                .map(|c| (median(&c.samples_ns) / c.length as f64, c))
                .max_by(|a, b| a.0.total_cmp(&b.0));
            if let Some((w, c)) = worst {
                parts.push(format!(
                    "{} {:.3} ns/B (worst v{} a{} ×{:.1})",
                    imp.name(),
                    base / len as f64,
                    c.variant,
                    c.alignment,
                    w / (base / len as f64)
                ));
            }
        }
        out.push(format!("{} KiB: {}", len >> 10, parts.join("; ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_gives_each_alignment() {
        for a in ALIGNMENTS {
            let off = round_down(OFFSET_RAW, a);
            assert_eq!(off % a, 0);
            assert!(a == 64 || off % (a * 2) != 0, "offset {off} for {a}");
            assert_ne!(off % 4096, 0);
        }
    }

    #[test]
    fn implementations_copy_correctly() {
        let n = 1000 + 37;
        let src: Vec<u8> = (0..n).map(|i| (i * 7 % 256) as u8).collect();
        for imp in IMPS {
            if imp.unavailable().is_some() {
                continue;
            }
            for off in [0usize, 1, 3, 17] {
                let len = n - off - 5;
                let mut dst = vec![0u8; n];
                // SAFETY: in range, distinct buffers; AVX2 checked above.
                let v = unsafe {
                    time_imp(
                        imp,
                        Clock::Instant,
                        src.as_ptr().add(off),
                        dst.as_mut_ptr().add(5),
                        len,
                        Plan {
                            warmup: 1,
                            reps: 1,
                            copies: 1,
                        },
                    )
                };
                assert_eq!(v.len(), 1);
                assert_eq!(&dst[5..5 + len], &src[off..off + len], "{}", imp.name());
            }
        }
    }

    #[test]
    fn lengths_cross_the_caches() {
        let c = |level, kind: &str, size| Cache {
            level,
            kind: kind.to_string(),
            size_bytes: Some(size),
            ways: None,
            line_bytes: None,
            sets: None,
            shared_cpu_list: None,
        };
        let caches = [
            c(1, "Data", 48 << 10),
            c(1, "Instruction", 32 << 10),
            c(2, "Unified", 2 << 20),
            c(3, "Unified", 260 << 20),
        ];
        let mut fb = Vec::new();
        let (l, named) = lengths(&caches, &mut fb);
        let b: Vec<u64> = l.iter().map(|l| l.bytes).collect();
        assert_eq!(b, vec![12 << 10, 512 << 10, 8 << 20, 64 << 20]);
        assert_eq!(named.len(), 3);
        assert!(fb.iter().any(|f| f.contains("capped")), "{fb:?}");
    }
}
