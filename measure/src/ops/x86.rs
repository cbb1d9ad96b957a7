//! x86_64: every operation as an exact instruction sequence. One copy's
//! text is repeated with the assembler's `.rept` (n and 2n copies are two
//! separate blocks), so nothing but the copies sits between the clock reads
//! apart from the operand set-up, which is the same for both lengths and
//! cancels in t(2n) − t(n).
//!
//! Forms: `latency` copies form one dependency chain (each consumes the
//! previous result); `throughput` copies are independent — 8 (integer) or
//! 10 (xmm) accumulators in rotation, which keeps even a 4-cycle op below
//! its latency bound — or copies whose inputs are all constants.

use std::time::Instant;

use super::{Init, OpDef, Ptr};
use crate::tsc;

/// Times one `.rept` block: the portable clock outside, the counter inside
/// (lfence;rdtsc both sides: the read waits for the copies to finish). Every
/// register the copies may touch is an operand (inputs from `init`, results
/// discarded), so the compiler keeps nothing live in them.
macro_rules! seq {
    ($reps:literal, $pre:expr, $body:expr, $post:expr, $counter:expr, $i:expr) => {{
        let i: &Init = $i;
        let counter: bool = $counter;
        let t0 = Instant::now();
        let c0 = if counter { tsc::lfence_rdtsc() } else { 0 };
        // SAFETY: the template only touches the registers listed (all
        // declared as clobbered), the flags, the x87 stack (left empty, as
        // declared by the st(i) clobbers) and memory through rsi/rdi, which
        // point into buffers `Env` keeps alive and large enough for 2n copies
        // (checked where `Ptr` is resolved). The divisions cannot fault: see
        // the operand choice in `div()`. A sequence that changes MXCSR's
        // rounding puts the caller's MXCSR back before it ends. No stack use.
        unsafe {
            core::arch::asm!(
                concat!($pre, "\n.rept ", $reps, "\n", $body, "\n.endr\n", $post),
                inout("rax") i.g[0] => _, inout("rcx") i.g[1] => _, inout("rdx") i.g[2] => _,
                inout("rsi") i.g[3] => _, inout("rdi") i.g[4] => _,
                inout("r8") i.g[5] => _, inout("r9") i.g[6] => _, inout("r10") i.g[7] => _,
                inout("r11") i.g[8] => _, inout("r12") i.g[9] => _, inout("r13") i.g[10] => _,
                inout("r14") i.g[11] => _, inout("r15") i.g[12] => _,
                inout("xmm0") f64::from_bits(i.x[0]) => _, inout("xmm1") f64::from_bits(i.x[1]) => _,
                inout("xmm2") f64::from_bits(i.x[2]) => _, inout("xmm3") f64::from_bits(i.x[3]) => _,
                inout("xmm4") f64::from_bits(i.x[4]) => _, inout("xmm5") f64::from_bits(i.x[5]) => _,
                inout("xmm6") f64::from_bits(i.x[6]) => _, inout("xmm7") f64::from_bits(i.x[7]) => _,
                inout("xmm8") f64::from_bits(i.x[8]) => _, inout("xmm9") f64::from_bits(i.x[9]) => _,
                inout("xmm10") f64::from_bits(i.x[10]) => _, inout("xmm11") f64::from_bits(i.x[11]) => _,
                out("st(0)") _, out("st(1)") _, out("st(2)") _, out("st(3)") _,
                out("st(4)") _, out("st(5)") _, out("st(6)") _, out("st(7)") _,
                options(nostack),
            );
        }
        let c1 = if counter { tsc::lfence_rdtsc() } else { 0 };
        let ns = t0.elapsed().as_nanos() as f64;
        (ns, c1.wrapping_sub(c0) as f64)
    }};
}

/// One table entry: both lengths of one sequence.
macro_rules! def {
    ($name:literal, $group:literal, $form:literal, $req:expr, $init:expr, $ptr:expr,
     $reps:literal, $reps2:literal, $pre:expr, $body:expr, $post:expr, $instr:expr) => {
        OpDef {
            name: $name,
            group: $group,
            form: $form,
            implementation: "asm",
            instruction: $instr,
            requires: $req,
            init: $init,
            ptr: $ptr,
            run: |long: bool, counter: bool, init: &Init| {
                if long {
                    seq!($reps2, $pre, $body, $post, counter, init)
                } else {
                    seq!($reps, $pre, $body, $post, counter, init)
                }
            },
        }
    };
}

/// A dependency chain: n copies of `body`.
macro_rules! lat {
    ($name:literal, $group:literal, $req:expr, $init:expr, $body:expr) => {
        def!(
            $name,
            $group,
            "latency",
            $req,
            $init,
            Ptr::None,
            1000,
            2000,
            "",
            $body,
            "",
            $body
        )
    };
    ($name:literal, $group:literal, $req:expr, $init:expr, $ptr:expr, $pre:expr, $body:expr, $post:expr) => {
        def!($name, $group, "latency", $req, $init, $ptr, 1000, 2000, $pre, $body, $post, $body)
    };
}

/// Independent copies of a body whose inputs are constants.
macro_rules! ind {
    ($name:literal, $group:literal, $req:expr, $init:expr, $body:expr) => {
        def!(
            $name,
            $group,
            "throughput",
            $req,
            $init,
            Ptr::None,
            1000,
            2000,
            "",
            $body,
            "",
            $body
        )
    };
    ($name:literal, $group:literal, $req:expr, $init:expr, $ptr:expr, $pre:expr, $body:expr, $post:expr) => {
        def!(
            $name,
            $group,
            "throughput",
            $req,
            $init,
            $ptr,
            1000,
            2000,
            $pre,
            $body,
            $post,
            $body
        )
    };
}

/// 8 accumulators r8..r15 in rotation: `p` + register + `s`, 125 groups of 8.
macro_rules! rot_q {
    ($name:literal, $group:literal, $req:expr, $init:expr, $p:expr, $s:expr) => {
        rot_q!($name, $group, $req, $init, "", $p, $s)
    };
    ($name:literal, $group:literal, $req:expr, $init:expr, $pre:expr, $p:expr, $s:expr) => {
        def!(
            $name,
            $group,
            "throughput",
            $req,
            $init,
            Ptr::None,
            125,
            250,
            $pre,
            concat!(
                $p, "r8", $s, "; ", $p, "r9", $s, "; ", $p, "r10", $s, "; ", $p, "r11", $s, "; ",
                $p, "r12", $s, "; ", $p, "r13", $s, "; ", $p, "r14", $s, "; ", $p, "r15", $s
            ),
            "",
            concat!($p, "rN", $s, "  (N = 8..15 in rotation)")
        )
    };
}

/// As `rot_q` with the 32-bit names r8d..r15d.
macro_rules! rot_d {
    ($name:literal, $group:literal, $req:expr, $init:expr, $p:expr, $s:expr) => {
        rot_d!($name, $group, $req, $init, "", $p, $s)
    };
    ($name:literal, $group:literal, $req:expr, $init:expr, $pre:expr, $p:expr, $s:expr) => {
        def!(
            $name,
            $group,
            "throughput",
            $req,
            $init,
            Ptr::None,
            125,
            250,
            $pre,
            concat!(
                $p, "r8d", $s, "; ", $p, "r9d", $s, "; ", $p, "r10d", $s, "; ", $p, "r11d", $s,
                "; ", $p, "r12d", $s, "; ", $p, "r13d", $s, "; ", $p, "r14d", $s, "; ", $p, "r15d",
                $s
            ),
            "",
            concat!($p, "rNd", $s, "  (N = 8..15 in rotation)")
        )
    };
}

/// 10 accumulators xmm2..xmm11 in rotation, 100 groups of 10.
macro_rules! rot_x {
    ($name:literal, $group:literal, $req:expr, $init:expr, $p:expr, $s:expr) => {
        def!(
            $name,
            $group,
            "throughput",
            $req,
            $init,
            Ptr::None,
            100,
            200,
            "",
            concat!(
                $p, "xmm2", $s, "; ", $p, "xmm3", $s, "; ", $p, "xmm4", $s, "; ", $p, "xmm5", $s,
                "; ", $p, "xmm6", $s, "; ", $p, "xmm7", $s, "; ", $p, "xmm8", $s, "; ", $p, "xmm9",
                $s, "; ", $p, "xmm10", $s, "; ", $p, "xmm11", $s
            ),
            "",
            concat!($p, "xmmN", $s, "  (N = 2..11 in rotation)")
        )
    };
}

/// A latency chain of 32-bit moves between different registers: eax → r8d
/// → … → r14d → eax, 125 rounds of 8 moves (n = 1000).
macro_rules! mov_chain {
    ($name:literal) => {
        def!(
            $name,
            "conversion",
            "latency",
            NONE,
            int(),
            Ptr::None,
            125,
            250,
            "",
            "mov r8d, eax; mov r9d, r8d; mov r10d, r9d; mov r11d, r10d; \
             mov r12d, r11d; mov r13d, r12d; mov r14d, r13d; mov eax, r14d",
            "",
            "mov r(N+1)d, rNd  (eax, r8d..r14d, eax in a ring)"
        )
    };
}

// ---------------------------------------------------------------- operands

// Built at run time: `to_bits` is const only from Rust 1.83 (MSRV 1.80).
fn f32x(v: f32) -> u64 {
    u64::from(v.to_bits())
}
fn f64x(v: f64) -> u64 {
    v.to_bits()
}

/// GPRs: rax, rcx, rdx, rsi, rdi, r8..r15. Shift counts come from cl = 3.
const GPR: [u64; 13] = [
    0x0123_4567_89ab_cdef,
    3,
    5,
    1,
    0x7777,
    0x1111,
    0x2222,
    0x3333,
    0x4444,
    0x5555,
    0x6666,
    0x7777,
    0x8888,
];

fn xf64() -> [u64; 12] {
    [
        f64x(1.5),
        f64x(1.000_000_1),
        f64x(1.000_000_1),
        f64x(1.25),
        f64x(1.26),
        f64x(1.27),
        f64x(1.28),
        f64x(1.29),
        f64x(1.30),
        f64x(1.31),
        f64x(1.32),
        f64x(1.33),
    ]
}

fn xf32() -> [u64; 12] {
    [
        f32x(1.5),
        f32x(1.000_000_1),
        f32x(1.000_000_1),
        f32x(1.25),
        f32x(1.26),
        f32x(1.27),
        f32x(1.28),
        f32x(1.29),
        f32x(1.30),
        f32x(1.31),
        f32x(1.32),
        f32x(1.33),
    ]
}

/// Integer operations (xmm unused but kept finite).
fn int() -> Init {
    Init { g: GPR, x: xf64() }
}

/// Divisions: divisor rcx = 7, high half of the dividend rsi = 1 (< 7), so
/// every dividend is 2^w + low with low < 2^w: the quotient is below
/// 2^(w+1)/7 < 2^(w−1), which fits even a signed result. No #DE possible.
/// rdx starts as a valid remainder (3 < 7). The independent forms divide
/// the 64-bit (32-bit) rdi = 0x7edc…3210 as compiled code does, the high
/// half zeroed (`xor edx, edx`) or sign-extended (`cqo`/`cdq`); the chains
/// need the high half 1, or the quotient would fall to 0 (a faster case).
fn div() -> Init {
    Init {
        g: [
            0x0123_4567_89ab_cdef,
            7,
            3,
            1,
            0x7edc_ba98_7654_3210,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
        ],
        x: xf64(),
    }
}

fn f64i() -> Init {
    Init { g: GPR, x: xf64() }
}
fn f32i() -> Init {
    Init { g: GPR, x: xf32() }
}

/// Conversions: integers and floats hold the same small whole numbers, so
/// a round trip int → float → int is exact and the chain keeps its value.
const CVT_GPR: [u64; 13] = [12345, 54321, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
fn cvt64() -> Init {
    Init {
        g: CVT_GPR,
        x: [f64x(12345.0), f64x(54321.0), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    }
}
fn cvt32() -> Init {
    Init {
        g: CVT_GPR,
        x: [f32x(12345.0), f32x(54321.0), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    }
}

/// MXCSR's rounding control set to round up (RC = 10b) around a sequence;
/// the caller's MXCSR is kept at [rsi + 256] and put back after. Needs
/// `Ptr::Mem` (rsi = scratch).
macro_rules! round_up {
    () => {
        "stmxcsr dword ptr [rsi + 256]; mov ecx, dword ptr [rsi + 256]; \
         and ecx, 0xffff9fff; or ecx, 0x4000; mov dword ptr [rsi + 260], ecx; \
         ldmxcsr dword ptr [rsi + 260]"
    };
}
macro_rules! round_back {
    () => {
        "ldmxcsr dword ptr [rsi + 256]"
    };
}

const NONE: Option<&str> = None;
const POPCNT: Option<&str> = Some("popcnt");
const LZCNT: Option<&str> = Some("lzcnt");
const BMI1: Option<&str> = Some("bmi1");
const BMI2: Option<&str> = Some("bmi2");
const FMA: Option<&str> = Some("fma");

/// Whether this CPU has the feature an entry needs.
pub fn has_feature(name: &str) -> bool {
    match name {
        "popcnt" => std::arch::is_x86_feature_detected!("popcnt"),
        "lzcnt" => std::arch::is_x86_feature_detected!("lzcnt"),
        "bmi1" => std::arch::is_x86_feature_detected!("bmi1"),
        "bmi2" => std::arch::is_x86_feature_detected!("bmi2"),
        "fma" => std::arch::is_x86_feature_detected!("fma"),
        _ => false,
    }
}

// ---------------------------------------------------------------- the table

/// Integer ALU operations that follow the `op rax, rcx` / `op rN, rcx`
/// pattern at both widths.
macro_rules! alu2 {
    ($n64:literal, $n32:literal, $mn:literal) => {
        [
            lat!($n64, "integer", NONE, int(), concat!($mn, " rax, rcx")),
            rot_q!($n64, "integer", NONE, int(), concat!($mn, " "), ", rcx"),
            lat!($n32, "integer", NONE, int(), concat!($mn, " eax, ecx")),
            rot_d!($n32, "integer", NONE, int(), concat!($mn, " "), ", ecx"),
        ]
    };
}

/// One-operand (`op rax`) and immediate/`cl` forms.
macro_rules! alu1 {
    ($n64:literal, $n32:literal, $mn:literal, $s64:literal, $s32:literal) => {
        [
            lat!($n64, "integer", NONE, int(), concat!($mn, " rax", $s64)),
            rot_q!($n64, "integer", NONE, int(), concat!($mn, " "), $s64),
            lat!($n32, "integer", NONE, int(), concat!($mn, " eax", $s32)),
            rot_d!($n32, "integer", NONE, int(), concat!($mn, " "), $s32),
        ]
    };
}

/// Bit operations with a feature requirement: `op rax, rax` chains.
macro_rules! bit1 {
    ($n64:literal, $n32:literal, $req:expr, $mn:literal) => {
        [
            lat!($n64, "bit", $req, int(), concat!($mn, " rax, rax")),
            rot_q!($n64, "bit", $req, int(), concat!($mn, " "), ", rcx"),
            lat!($n32, "bit", $req, int(), concat!($mn, " eax, eax")),
            rot_d!($n32, "bit", $req, int(), concat!($mn, " "), ", ecx"),
        ]
    };
}

/// BMI2 three-operand forms: chain through the first source.
macro_rules! bmi3 {
    ($n64:literal, $n32:literal, $mn:literal) => {
        [
            lat!($n64, "bit", BMI2, int(), concat!($mn, " rax, rax, rcx")),
            rot_q!($n64, "bit", BMI2, int(), concat!($mn, " "), ", rdx, rcx"),
            lat!($n32, "bit", BMI2, int(), concat!($mn, " eax, eax, ecx")),
            rot_d!($n32, "bit", BMI2, int(), concat!($mn, " "), ", edx, ecx"),
        ]
    };
}

/// Scalar SSE arithmetic `op xmm0, xmm1` at both precisions.
macro_rules! fp2 {
    ($n64:literal, $n32:literal, $sd:literal, $ss:literal) => {
        [
            lat!($n64, "float", NONE, f64i(), concat!($sd, " xmm0, xmm1")),
            rot_x!($n64, "float", NONE, f64i(), concat!($sd, " "), ", xmm1"),
            lat!($n32, "float", NONE, f32i(), concat!($ss, " xmm0, xmm1")),
            rot_x!($n32, "float", NONE, f32i(), concat!($ss, " "), ", xmm1"),
        ]
    };
}

/// int → float and back. The latency form is the round trip (a conversion
/// alone cannot feed itself), so both directions share it; the throughput
/// form is the named conversion alone into rotating destinations.
macro_rules! cvt {
    ($to_f:literal, $to_i:literal, $init:expr, $rt_f_first:literal, $rt_i_first:literal,
     $thr_f_p:literal, $thr_f_s:literal, $rot_i:ident, $thr_i_p:literal, $thr_i_s:literal) => {
        [
            lat!($to_f, "conversion", NONE, $init, $rt_f_first),
            rot_x!($to_f, "conversion", NONE, $init, $thr_f_p, $thr_f_s),
            lat!($to_i, "conversion", NONE, $init, $rt_i_first),
            $rot_i!($to_i, "conversion", NONE, $init, $thr_i_p, $thr_i_s),
        ]
    };
}

pub fn table() -> Vec<OpDef> {
    let groups: Vec<Vec<OpDef>> = vec![
        // ---- integer arithmetic and logic
        alu2!("add_i64", "add_i32", "add").into(),
        alu2!("sub_i64", "sub_i32", "sub").into(),
        alu2!("mul_i64", "mul_i32", "imul").into(),
        alu2!("and_i64", "and_i32", "and").into(),
        alu2!("or_i64", "or_i32", "or").into(),
        alu2!("xor_i64", "xor_i32", "xor").into(),
        alu1!("neg_i64", "neg_i32", "neg", "", "").into(),
        alu1!("not_i64", "not_i32", "not", "", "").into(),
        alu1!("inc_i64", "inc_i32", "inc", "", "").into(),
        alu1!("dec_i64", "dec_i32", "dec", "", "").into(),
        alu1!("shl_i64", "shl_i32", "shl", ", 3", ", 3").into(),
        alu1!("shr_u64", "shr_u32", "shr", ", 3", ", 3").into(),
        alu1!("sar_i64", "sar_i32", "sar", ", 3", ", 3").into(),
        alu1!("rol_i64", "rol_i32", "rol", ", 3", ", 3").into(),
        alu1!("ror_i64", "ror_i32", "ror", ", 3", ", 3").into(),
        alu1!("shl_cl_i64", "shl_cl_i32", "shl", ", cl", ", cl").into(),
        alu1!("shr_cl_u64", "shr_cl_u32", "shr", ", cl", ", cl").into(),
        alu1!("sar_cl_i64", "sar_cl_i32", "sar", ", cl", ", cl").into(),
        alu1!("rol_cl_i64", "rol_cl_i32", "rol", ", cl", ", cl").into(),
        alu1!("ror_cl_i64", "ror_cl_i32", "ror", ", cl", ", cl").into(),
        vec![
            lat!("mul_imm_i64", "integer", NONE, int(), "imul rax, rax, 7"),
            rot_q!("mul_imm_i64", "integer", NONE, int(), "imul ", ", rcx, 7"),
            lat!("mul_imm_i32", "integer", NONE, int(), "imul eax, eax, 7"),
            rot_d!("mul_imm_i32", "integer", NONE, int(), "imul ", ", ecx, 7"),
            lat!("lea3_i64", "integer", NONE, int(), "lea rax, [rax + rcx*2 + 8]"),
            rot_q!("lea3_i64", "integer", NONE, int(), "lea ", ", [rcx + rdx*2 + 8]"),
            lat!("lea3_i32", "integer", NONE, int(), "lea eax, [rax + rcx*2 + 8]"),
            rot_d!("lea3_i32", "integer", NONE, int(), "lea ", ", [rcx + rdx*2 + 8]"),
            // Widening unsigned multiply: rdx:rax = rax * rcx.
            lat!("mulw_u64", "integer", NONE, int(), "mul rcx"),
            ind!("mulw_u64", "integer", NONE, int(), "mov rax, rdi; mul rcx"),
            lat!("mulw_u32", "integer", NONE, int(), "mul ecx"),
            ind!("mulw_u32", "integer", NONE, int(), "mov eax, edi; mul ecx"),
            // Division and remainder (see `div()`): the quotient chain feeds
            // rax, the remainder chain feeds rdx back into rax; x86 computes
            // both with one instruction, the independent forms are shared.
            lat!("div_u64", "integer", NONE, div(), "mov rdx, rsi; div rcx"),
            ind!("div_u64", "integer", NONE, div(), "xor edx, edx; mov rax, rdi; div rcx"),
            lat!("rem_u64", "integer", NONE, div(), "mov rax, rdx; mov rdx, rsi; div rcx"),
            ind!("rem_u64", "integer", NONE, div(), "xor edx, edx; mov rax, rdi; div rcx"),
            lat!("div_i64", "integer", NONE, div(), "mov rdx, rsi; idiv rcx"),
            ind!("div_i64", "integer", NONE, div(), "mov rax, rdi; cqo; idiv rcx"),
            lat!("rem_i64", "integer", NONE, div(), "mov rax, rdx; mov rdx, rsi; idiv rcx"),
            ind!("rem_i64", "integer", NONE, div(), "mov rax, rdi; cqo; idiv rcx"),
            lat!("div_u32", "integer", NONE, div(), "mov edx, esi; div ecx"),
            ind!("div_u32", "integer", NONE, div(), "xor edx, edx; mov eax, edi; div ecx"),
            lat!("rem_u32", "integer", NONE, div(), "mov eax, edx; mov edx, esi; div ecx"),
            ind!("rem_u32", "integer", NONE, div(), "xor edx, edx; mov eax, edi; div ecx"),
            lat!("div_i32", "integer", NONE, div(), "mov edx, esi; idiv ecx"),
            ind!("div_i32", "integer", NONE, div(), "mov eax, edi; cdq; idiv ecx"),
            lat!("rem_i32", "integer", NONE, div(), "mov eax, edx; mov edx, esi; idiv ecx"),
            ind!("rem_i32", "integer", NONE, div(), "mov eax, edi; cdq; idiv ecx"),
            // Conditional move: ZF set once before the copies.
            lat!("cmov_i64", "integer", NONE, int(), Ptr::None, "cmp rcx, rcx", "cmovz rax, rcx", ""),
            rot_q!("cmov_i64", "integer", NONE, int(), "cmp rcx, rcx", "cmovz ", ", rcx"),
            lat!("cmov_i32", "integer", NONE, int(), Ptr::None, "cmp rcx, rcx", "cmovz eax, ecx", ""),
            rot_d!("cmov_i32", "integer", NONE, int(), "cmp rcx, rcx", "cmovz ", ", ecx"),
            // Widenings and truncation.
            lat!("sext_i8_i64", "conversion", NONE, int(), "movsx rax, al"),
            rot_q!("sext_i8_i64", "conversion", NONE, int(), "movsx ", ", cl"),
            lat!("sext_i16_i64", "conversion", NONE, int(), "movsx rax, ax"),
            rot_q!("sext_i16_i64", "conversion", NONE, int(), "movsx ", ", cx"),
            lat!("sext_i32_i64", "conversion", NONE, int(), "movsxd rax, eax"),
            rot_q!("sext_i32_i64", "conversion", NONE, int(), "movsxd ", ", ecx"),
            lat!("zext_u8_u64", "conversion", NONE, int(), "movzx eax, al"),
            rot_d!("zext_u8_u64", "conversion", NONE, int(), "movzx ", ", cl"),
            lat!("zext_u16_u64", "conversion", NONE, int(), "movzx eax, ax"),
            rot_d!("zext_u16_u64", "conversion", NONE, int(), "movzx ", ", cx"),
            // A 32-bit move zero-extends. Between different registers, as
            // the references time it, the renamer may eliminate it; a move
            // of a register to itself never is. So the chain passes the
            // value round eight registers, 125 rounds of eight moves.
            mov_chain!("zext_u32_u64"),
            rot_d!("zext_u32_u64", "conversion", NONE, int(), "mov ", ", ecx"),
            // x86 truncates by naming the 32-bit register: a 32-bit write
            // (which zero-extends) is the whole operation.
            mov_chain!("trunc_i64_i32"),
            rot_d!("trunc_i64_i32", "conversion", NONE, int(), "mov ", ", ecx"),
        ],
        // ---- bit operations
        bit1!("popcnt_i64", "popcnt_i32", POPCNT, "popcnt").into(),
        bit1!("lzcnt_i64", "lzcnt_i32", LZCNT, "lzcnt").into(),
        bit1!("tzcnt_i64", "tzcnt_i32", BMI1, "tzcnt").into(),
        alu1!("bswap_i64", "bswap_i32", "bswap", "", "").into(),
        bmi3!("shlx_i64", "shlx_i32", "shlx").into(),
        bmi3!("shrx_u64", "shrx_u32", "shrx").into(),
        bmi3!("sarx_i64", "sarx_i32", "sarx").into(),
        bmi3!("pdep_i64", "pdep_i32", "pdep").into(),
        bmi3!("pext_i64", "pext_i32", "pext").into(),
        vec![
            lat!("andn_i64", "bit", BMI1, int(), "andn rax, rcx, rax"),
            rot_q!("andn_i64", "bit", BMI1, int(), "andn ", ", rcx, rdx"),
            lat!("andn_i32", "bit", BMI1, int(), "andn eax, ecx, eax"),
            rot_d!("andn_i32", "bit", BMI1, int(), "andn ", ", ecx, edx"),
            lat!("rorx_i64", "bit", BMI2, int(), "rorx rax, rax, 7"),
            rot_q!("rorx_i64", "bit", BMI2, int(), "rorx ", ", rdx, 7"),
            lat!("rorx_i32", "bit", BMI2, int(), "rorx eax, eax, 7"),
            rot_d!("rorx_i32", "bit", BMI2, int(), "rorx ", ", edx, 7"),
        ],
        // ---- floating point (scalar SSE; FMA is VEX-encoded)
        fp2!("add_f64", "add_f32", "addsd", "addss").into(),
        fp2!("sub_f64", "sub_f32", "subsd", "subss").into(),
        fp2!("mul_f64", "mul_f32", "mulsd", "mulss").into(),
        fp2!("div_f64", "div_f32", "divsd", "divss").into(),
        fp2!("min_f64", "min_f32", "minsd", "minss").into(),
        fp2!("max_f64", "max_f32", "maxsd", "maxss").into(),
        vec![
            // Square roots are faster for simple operands on some cores, and
            // a chain x ← √x rounded to nearest reaches exactly 1.0 within
            // ~60 copies. Rounded up (MXCSR, restored after), it stops at
            // 1 + 1 ulp instead — √(1 + u) rounds up to itself —, whose
            // last mantissa bit is set: every copy is a full-precision root.
            // (Chaining through the destination's kept upper half instead
            // does not carry the latency: on Zen 4 it ran at the
            // throughput, 8.4 cycles.)
            def!("sqrt_f64", "float", "latency", NONE, f64i(), Ptr::Mem, 1000, 2000,
                 round_up!(), "sqrtsd xmm0, xmm0", round_back!(),
                 "sqrtsd xmm0, xmm0  (rounding up: x stays 1 + 1 ulp)"),
            rot_x!("sqrt_f64", "float", NONE, f64i(), "sqrtsd ", ", xmm1"),
            def!("sqrt_f32", "float", "latency", NONE, f32i(), Ptr::Mem, 1000, 2000,
                 round_up!(), "sqrtss xmm0, xmm0", round_back!(),
                 "sqrtss xmm0, xmm0  (rounding up: x stays 1 + 1 ulp)"),
            rot_x!("sqrt_f32", "float", NONE, f32i(), "sqrtss ", ", xmm1"),
            lat!("fma_f64", "float", FMA, f64i(), "vfmadd231sd xmm0, xmm1, xmm2"),
            rot_x!("fma_f64", "float", FMA, f64i(), "vfmadd231sd ", ", xmm1, xmm1"),
            lat!("fma_f32", "float", FMA, f32i(), "vfmadd231ss xmm0, xmm1, xmm2"),
            rot_x!("fma_f32", "float", FMA, f32i(), "vfmadd231ss ", ", xmm1, xmm1"),
            lat!("rcp_approx_f32", "float", NONE, f32i(), "rcpss xmm0, xmm0"),
            rot_x!("rcp_approx_f32", "float", NONE, f32i(), "rcpss ", ", xmm1"),
            lat!("rsqrt_approx_f32", "float", NONE, f32i(), "rsqrtss xmm0, xmm0"),
            rot_x!("rsqrt_approx_f32", "float", NONE, f32i(), "rsqrtss ", ", xmm1"),
            // Floating remainder by x87 FPREM (one partial-remainder step,
            // which is the whole remainder here: the exponents differ by ~18).
            // Chain: x = (x + K) rem d with st0 = x, st1 = d, st2 = K.
            lat!(
                "rem_f64",
                "float",
                NONE,
                int(),
                Ptr::Mem,
                "fld qword ptr [rsi]; fld qword ptr [rsi + 8]; fld qword ptr [rsi]",
                "fadd st(0), st(2); fprem",
                "fstp st(0); fstp st(0); fstp st(0)"
            ),
            ind!(
                "rem_f64",
                "float",
                NONE,
                int(),
                Ptr::Mem,
                "fld qword ptr [rsi]; fld qword ptr [rsi + 8]",
                "fld st(1); fprem; fstp st(0)",
                "fstp st(0); fstp st(0)"
            ),
        ],
        // ---- conversions
        cvt!("cvt_f64_i32", "cvt_i32_f64", cvt64(),
             "cvtsi2sd xmm0, eax; cvttsd2si eax, xmm0", "cvttsd2si eax, xmm0; cvtsi2sd xmm0, eax",
             "cvtsi2sd ", ", ecx", rot_d, "cvttsd2si ", ", xmm1").into(),
        cvt!("cvt_f64_i64", "cvt_i64_f64", cvt64(),
             "cvtsi2sd xmm0, rax; cvttsd2si rax, xmm0", "cvttsd2si rax, xmm0; cvtsi2sd xmm0, rax",
             "cvtsi2sd ", ", rcx", rot_q, "cvttsd2si ", ", xmm1").into(),
        cvt!("cvt_f32_i32", "cvt_i32_f32", cvt32(),
             "cvtsi2ss xmm0, eax; cvttss2si eax, xmm0", "cvttss2si eax, xmm0; cvtsi2ss xmm0, eax",
             "cvtsi2ss ", ", ecx", rot_d, "cvttss2si ", ", xmm1").into(),
        cvt!("cvt_f32_i64", "cvt_i64_f32", cvt32(),
             "cvtsi2ss xmm0, rax; cvttss2si rax, xmm0", "cvttss2si rax, xmm0; cvtsi2ss xmm0, rax",
             "cvtsi2ss ", ", rcx", rot_q, "cvttss2si ", ", xmm1").into(),
        // u32 the way compilers do it without AVX-512: the signed 64-bit
        // conversion of a register whose upper half is zero; back, the
        // 64-bit truncation, keeping the low half. A u32 produced by a
        // 32-bit write or by the truncation (both zero the upper half) needs
        // no extension in between, so the chain has none: a `mov eax, eax`
        // there added a move the references do not time.
        cvt!("cvt_f64_u32", "cvt_u32_f64", cvt64(),
             "cvtsi2sd xmm0, rax; cvttsd2si rax, xmm0",
             "cvttsd2si rax, xmm0; cvtsi2sd xmm0, rax",
             "cvtsi2sd ", ", rcx", rot_q, "cvttsd2si ", ", xmm1").into(),
        cvt!("cvt_f32_u32", "cvt_u32_f32", cvt32(),
             "cvtsi2ss xmm0, rax; cvttss2si rax, xmm0",
             "cvttss2si rax, xmm0; cvtsi2ss xmm0, rax",
             "cvtsi2ss ", ", rcx", rot_q, "cvttss2si ", ", xmm1").into(),
        vec![
            lat!("cvt_f64_f32", "conversion", NONE, cvt32(), "cvtss2sd xmm0, xmm0; cvtsd2ss xmm0, xmm0"),
            rot_x!("cvt_f64_f32", "conversion", NONE, cvt32(), "cvtss2sd ", ", xmm1"),
            lat!("cvt_f32_f64", "conversion", NONE, cvt64(), "cvtsd2ss xmm0, xmm0; cvtss2sd xmm0, xmm0"),
            rot_x!("cvt_f32_f64", "conversion", NONE, cvt64(), "cvtsd2ss ", ", xmm1"),
        ],
        // ---- memory (L1)
        vec![
            // Pointer chase through a ring of lines in one 4 KiB page.
            lat!("load_u64", "memory", NONE, int(), Ptr::Mem, "", "mov rdi, [rdi]", ""),
            def!("load_u64", "memory", "throughput", NONE, int(), Ptr::Mem, 125, 250, "",
                 "mov r8, [rdi]; mov r9, [rdi + 8]; mov r10, [rdi + 16]; mov r11, [rdi + 24]; \
                  mov r12, [rdi + 32]; mov r13, [rdi + 40]; mov r14, [rdi + 48]; mov r15, [rdi + 56]",
                 "", "mov rN, [rdi + 8k]  (N = 8..15, k = 0..7 in rotation)"),
            // Store then reload the same qword: store-to-load forwarding.
            lat!("store_u64", "memory", NONE, int(), Ptr::Mem, "", "mov [rsi + 64], rax; mov rax, [rsi + 64]", ""),
            def!("store_u64", "memory", "throughput", NONE, int(), Ptr::Mem, 125, 250, "",
                 "mov [rsi + 64], rcx; mov [rsi + 72], rcx; mov [rsi + 80], rcx; mov [rsi + 88], rcx; \
                  mov [rsi + 96], rcx; mov [rsi + 104], rcx; mov [rsi + 112], rcx; mov [rsi + 120], rcx",
                 "", "mov [rsi + 64 + 8k], rcx  (k = 0..7 in rotation)"),
        ],
        // ---- branches (throughput only: a branch has no result to chain)
        vec![
            ind!("branch_taken", "branch", NONE, int(), "cmp rcx, rdx; jne 2f; 2:"),
            ind!("branch_not_taken", "branch", NONE, int(), "cmp rcx, rdx; je 2f; 2:"),
            // One byte of a table per copy; the table is redrawn at random
            // before every timing, so no predictor can learn it.
            ind!("branch_unpredictable", "branch", NONE, int(), Ptr::Table,
                 "", "cmp byte ptr [rsi], 0; lea rsi, [rsi + 1]; jne 2f; 2:", ""),
            // The same code over a table of all ones: the baseline.
            ind!("branch_table_predictable", "branch", NONE, int(), Ptr::Table,
                 "", "cmp byte ptr [rsi], 0; lea rsi, [rsi + 1]; jne 2f; 2:", ""),
        ],
    ];
    groups.into_iter().flatten().collect()
}

/// Core clock: `blocks` iterations of 1000 dependent adds (plus the loop's
/// independent counter), timed by the counter. Returns ticks.
pub fn core_clock_sample(blocks: u64) -> f64 {
    let c0 = tsc::lfence_rdtsc();
    // SAFETY: register-only arithmetic on the declared operands; the local
    // label is unique to this block.
    unsafe {
        core::arch::asm!(
            "2:",
            ".rept 1000",
            "add rax, rdx",
            ".endr",
            "dec rcx",
            "jnz 2b",
            inout("rax") 0u64 => _,
            inout("rcx") blocks.max(1) => _,
            in("rdx") 1u64,
            options(nostack, nomem),
        );
    }
    let c1 = tsc::lfence_rdtsc();
    c1.wrapping_sub(c0) as f64
}
