//! aarch64: every operation the A64 base instruction set has as one
//! instruction, as an exact instruction sequence, in the same forms as
//! `x86.rs`: one copy's text repeated with the assembler's `.rept` (n and 2n
//! copies are two separate blocks), the portable clock outside, the counter
//! (`isb; mrs cntvct_el0`) inside.
//!
//! Forms: `latency` copies form one dependency chain; `throughput` copies
//! are independent — 8 (integer: x5..x12) or 10 (floating: v2..v11)
//! accumulators in rotation, or copies whose inputs are all constants.
//!
//! Operations the x86 table has but A64 has no single instruction for are
//! listed by [`lacking`], each with the reason; the suite records them as
//! unavailable rather than timing a different instruction sequence under the
//! same name.

use std::time::Instant;

use super::{Init, OpDef, Ptr};
use crate::tsc;

/// Times one `.rept` block (see `x86.rs`). Operands: x0..x12 from `init.g`,
/// v0..v11 from `init.x` (raw bits of the low 64 bits), x13/x14 scratch.
macro_rules! seq {
    ($reps:literal, $pre:expr, $body:expr, $post:expr, $counter:expr, $i:expr) => {{
        let i: &Init = $i;
        let counter: bool = $counter;
        let t0 = Instant::now();
        let c0 = if counter { tsc::cntvct() } else { 0 };
        // SAFETY: the template only touches the registers listed (all
        // declared as clobbered), the flags, FPCR (a sequence that changes
        // its rounding mode puts the caller's FPCR back before it ends) and
        // memory through x3/x4, which point into buffers `Env` keeps alive
        // and large enough for 2n copies (see where `Ptr` is resolved). A64
        // divisions never fault (a zero divisor gives 0; none is used). No
        // stack use.
        unsafe {
            core::arch::asm!(
                concat!($pre, "\n.rept ", $reps, "\n", $body, "\n.endr\n", $post),
                inout("x0") i.g[0] => _, inout("x1") i.g[1] => _, inout("x2") i.g[2] => _,
                inout("x3") i.g[3] => _, inout("x4") i.g[4] => _,
                inout("x5") i.g[5] => _, inout("x6") i.g[6] => _, inout("x7") i.g[7] => _,
                inout("x8") i.g[8] => _, inout("x9") i.g[9] => _, inout("x10") i.g[10] => _,
                inout("x11") i.g[11] => _, inout("x12") i.g[12] => _,
                out("x13") _, out("x14") _,
                inout("v0") f64::from_bits(i.x[0]) => _, inout("v1") f64::from_bits(i.x[1]) => _,
                inout("v2") f64::from_bits(i.x[2]) => _, inout("v3") f64::from_bits(i.x[3]) => _,
                inout("v4") f64::from_bits(i.x[4]) => _, inout("v5") f64::from_bits(i.x[5]) => _,
                inout("v6") f64::from_bits(i.x[6]) => _, inout("v7") f64::from_bits(i.x[7]) => _,
                inout("v8") f64::from_bits(i.x[8]) => _, inout("v9") f64::from_bits(i.x[9]) => _,
                inout("v10") f64::from_bits(i.x[10]) => _, inout("v11") f64::from_bits(i.x[11]) => _,
                options(nostack),
            );
        }
        let c1 = if counter { tsc::cntvct() } else { 0 };
        let ns = t0.elapsed().as_nanos() as f64;
        (ns, c1.wrapping_sub(c0) as f64)
    }};
}

/// One table entry: both lengths of one sequence, each its own function.
/// The compiler's branch relaxation sizes an asm block by its lines, so a
/// `.rept` block counts as one instruction: a `tbz` (±32 KiB) jumping over
/// a long block in the same function may end out of range ("fixup value out
/// of range"). Separate functions leave no branch across a block.
macro_rules! def {
    ($name:literal, $group:literal, $form:literal, $init:expr, $ptr:expr,
     $reps:literal, $reps2:literal, $pre:expr, $body:expr, $post:expr, $instr:expr) => {
        OpDef {
            name: $name,
            group: $group,
            form: $form,
            implementation: "asm",
            instruction: $instr,
            requires: None,
            init: $init,
            ptr: $ptr,
            run: {
                fn run(long: bool, counter: bool, init: &Init) -> (f64, f64) {
                    #[inline(never)]
                    fn short(counter: bool, init: &Init) -> (f64, f64) {
                        seq!($reps, $pre, $body, $post, counter, init)
                    }
                    #[inline(never)]
                    fn long2(counter: bool, init: &Init) -> (f64, f64) {
                        seq!($reps2, $pre, $body, $post, counter, init)
                    }
                    if long {
                        long2(counter, init)
                    } else {
                        short(counter, init)
                    }
                }
                run
            },
        }
    };
}

/// A dependency chain: n copies of `body` (with `pre`/`post` around them).
macro_rules! lat {
    ($name:literal, $group:literal, $init:expr, $body:expr) => {
        lat!($name, $group, $init, Ptr::None, "", $body, "")
    };
    ($name:literal, $group:literal, $init:expr, $ptr:expr, $pre:expr, $body:expr, $post:expr) => {
        def!($name, $group, "latency", $init, $ptr, 1000, 2000, $pre, $body, $post, $body)
    };
}

/// Independent copies of a body whose inputs are constants.
macro_rules! ind {
    ($name:literal, $group:literal, $init:expr, $body:expr) => {
        ind!($name, $group, $init, Ptr::None, $body)
    };
    ($name:literal, $group:literal, $init:expr, $ptr:expr, $body:expr) => {
        def!(
            $name,
            $group,
            "throughput",
            $init,
            $ptr,
            1000,
            2000,
            "",
            $body,
            "",
            $body
        )
    };
}

/// A copy's text with the token `R` replaced by a register name.
macro_rules! with_reg {
    ($r:literal; $($t:tt),*) => { concat!($(with_reg!(@one $r; $t)),*) };
    (@one $r:literal; R) => { $r };
    (@one $r:literal; $l:literal) => { $l };
}

/// 8 accumulators x5..x12 in rotation (`R` in the text), 125 groups of 8.
macro_rules! rot_x {
    ($name:literal, $group:literal, $init:expr, $pre:expr; $($t:tt),*) => {
        def!($name, $group, "throughput", $init, Ptr::None, 125, 250, $pre,
            concat!(
                with_reg!("x5"; $($t),*), "\n", with_reg!("x6"; $($t),*), "\n",
                with_reg!("x7"; $($t),*), "\n", with_reg!("x8"; $($t),*), "\n",
                with_reg!("x9"; $($t),*), "\n", with_reg!("x10"; $($t),*), "\n",
                with_reg!("x11"; $($t),*), "\n", with_reg!("x12"; $($t),*)
            ),
            "",
            concat!(with_reg!("xN"; $($t),*), "  (N = 5..12 in rotation)"))
    };
}

/// As `rot_x` with the 32-bit names w5..w12.
macro_rules! rot_w {
    ($name:literal, $group:literal, $init:expr, $pre:expr; $($t:tt),*) => {
        def!($name, $group, "throughput", $init, Ptr::None, 125, 250, $pre,
            concat!(
                with_reg!("w5"; $($t),*), "\n", with_reg!("w6"; $($t),*), "\n",
                with_reg!("w7"; $($t),*), "\n", with_reg!("w8"; $($t),*), "\n",
                with_reg!("w9"; $($t),*), "\n", with_reg!("w10"; $($t),*), "\n",
                with_reg!("w11"; $($t),*), "\n", with_reg!("w12"; $($t),*)
            ),
            "",
            concat!(with_reg!("wN"; $($t),*), "  (N = 5..12 in rotation)"))
    };
}

/// 10 accumulators d2..d11 in rotation, 100 groups of 10.
macro_rules! rot_d {
    ($name:literal, $group:literal, $init:expr; $($t:tt),*) => {
        def!($name, $group, "throughput", $init, Ptr::None, 100, 200, "",
            concat!(
                with_reg!("d2"; $($t),*), "\n", with_reg!("d3"; $($t),*), "\n",
                with_reg!("d4"; $($t),*), "\n", with_reg!("d5"; $($t),*), "\n",
                with_reg!("d6"; $($t),*), "\n", with_reg!("d7"; $($t),*), "\n",
                with_reg!("d8"; $($t),*), "\n", with_reg!("d9"; $($t),*), "\n",
                with_reg!("d10"; $($t),*), "\n", with_reg!("d11"; $($t),*)
            ),
            "",
            concat!(with_reg!("dN"; $($t),*), "  (N = 2..11 in rotation)"))
    };
}

/// As `rot_d` with the single-precision names s2..s11.
macro_rules! rot_s {
    ($name:literal, $group:literal, $init:expr; $($t:tt),*) => {
        def!($name, $group, "throughput", $init, Ptr::None, 100, 200, "",
            concat!(
                with_reg!("s2"; $($t),*), "\n", with_reg!("s3"; $($t),*), "\n",
                with_reg!("s4"; $($t),*), "\n", with_reg!("s5"; $($t),*), "\n",
                with_reg!("s6"; $($t),*), "\n", with_reg!("s7"; $($t),*), "\n",
                with_reg!("s8"; $($t),*), "\n", with_reg!("s9"; $($t),*), "\n",
                with_reg!("s10"; $($t),*), "\n", with_reg!("s11"; $($t),*)
            ),
            "",
            concat!(with_reg!("sN"; $($t),*), "  (N = 2..11 in rotation)"))
    };
}

/// A latency chain of 32-bit moves between different registers: w0 → w5
/// → … → w11 → w0, 125 rounds of 8 (n = 1000). A move between different
/// registers may be eliminated by the renamer, as on x86; one of a
/// register to itself is not a move the references time.
macro_rules! mov_chain {
    ($name:literal) => {
        def!(
            $name,
            "conversion",
            "latency",
            int(),
            Ptr::None,
            125,
            250,
            "",
            "mov w5, w0\nmov w6, w5\nmov w7, w6\nmov w8, w7\n\
             mov w9, w8\nmov w10, w9\nmov w11, w10\nmov w0, w11",
            "",
            "mov w(N+1), wN  (w0, w5..w11, w0 in a ring)"
        )
    };
}

// ---------------------------------------------------------------- operands

fn f32x(v: f32) -> u64 {
    u64::from(v.to_bits())
}
fn f64x(v: f64) -> u64 {
    v.to_bits()
}

/// x0..x12. Shift and rotate counts come from x1 = 3.
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

fn int() -> Init {
    Init { g: GPR, x: xf64() }
}

/// Divisions. Dividers finish early for short quotients, so every copy
/// must keep a full-width one. The chains divide x0 (a 63-bit value; as
/// 32 bits, w0 = 0x7654_3210) by x1 = 1: the quotient is the dividend, the
/// chain keeps its value and every quotient has all its bits. The
/// independent forms divide x4 (the same value) by x2 = 7, as compiled
/// code divides by a constant it cannot turn into a multiply.
fn div() -> Init {
    Init {
        g: [
            0x7edc_ba98_7654_3210,
            1,
            7,
            0,
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

/// FPCR's rounding mode set to round towards +∞ (RMode, bits 23:22 = 01)
/// around a sequence; the caller's FPCR is kept in x13 and put back after.
macro_rules! round_up {
    () => {
        "mrs x13, fpcr\norr x14, x13, #0x400000\nand x14, x14, #0xffffffffff7fffff\nmsr fpcr, x14"
    };
}
macro_rules! round_back {
    () => {
        "msr fpcr, x13"
    };
}

// ---------------------------------------------------------------- the table

/// Three-operand ALU operations `op x0, x0, x1` at both widths.
macro_rules! alu2 {
    ($n64:literal, $n32:literal, $mn:literal) => {
        [
            lat!($n64, "integer", int(), concat!($mn, " x0, x0, x1")),
            rot_x!($n64, "integer", int(), ""; $mn, " ", R, ", ", R, ", x1"),
            lat!($n32, "integer", int(), concat!($mn, " w0, w0, w1")),
            rot_w!($n32, "integer", int(), ""; $mn, " ", R, ", ", R, ", w1"),
        ]
    };
}

/// Operations with the operand after the source: `op x0, x0<s64>`.
macro_rules! alu1 {
    ($n64:literal, $n32:literal, $mn:literal, $s64:literal, $s32:literal) => {
        [
            lat!($n64, "integer", int(), concat!($mn, " x0, x0", $s64)),
            rot_x!($n64, "integer", int(), ""; $mn, " ", R, ", ", R, $s64),
            lat!($n32, "integer", int(), concat!($mn, " w0, w0", $s32)),
            rot_w!($n32, "integer", int(), ""; $mn, " ", R, ", ", R, $s32),
        ]
    };
}

/// One-source operations `op x0, x0` (chain) and `op xN, x1` (independent).
macro_rules! un {
    ($n64:literal, $n32:literal, $group:literal, $mn:literal) => {
        [
            lat!($n64, $group, int(), concat!($mn, " x0, x0")),
            rot_x!($n64, $group, int(), ""; $mn, " ", R, ", x1"),
            lat!($n32, $group, int(), concat!($mn, " w0, w0")),
            rot_w!($n32, $group, int(), ""; $mn, " ", R, ", w1"),
        ]
    };
}

/// Scalar floating arithmetic `op d0, d0, d1` at both precisions.
macro_rules! fp2 {
    ($n64:literal, $n32:literal, $mn:literal) => {
        [
            lat!($n64, "float", f64i(), concat!($mn, " d0, d0, d1")),
            rot_d!($n64, "float", f64i(); $mn, " ", R, ", ", R, ", d1"),
            lat!($n32, "float", f32i(), concat!($mn, " s0, s0, s1")),
            rot_s!($n32, "float", f32i(); $mn, " ", R, ", ", R, ", s1"),
        ]
    };
}

/// int → float and back (see `x86.rs`): the latency form is the round trip
/// in either order, the throughput form the named conversion alone.
macro_rules! cvt {
    ($to_f:literal, $to_i:literal, $init:expr, $rot_f:ident, $rot_i:ident,
     $f:literal, $i:literal, $freg:literal, $ireg:literal) => {
        [
            lat!($to_f, "conversion", $init,
                 concat!($f, " ", $freg, "0, ", $ireg, "0\n", $i, " ", $ireg, "0, ", $freg, "0")),
            $rot_f!($to_f, "conversion", $init; $f, " ", R, ", ", $ireg, "1"),
            lat!($to_i, "conversion", $init,
                 concat!($i, " ", $ireg, "0, ", $freg, "0\n", $f, " ", $freg, "0, ", $ireg, "0")),
            $rot_i!($to_i, "conversion", $init, ""; $i, " ", R, ", ", $freg, "1"),
        ]
    };
}

/// An operation the x86 table times that A64 has no single instruction for.
pub struct Lacking {
    pub name: &'static str,
    pub group: &'static str,
    pub reason: &'static str,
}

/// The x86 table's operations this one leaves out, with the reason (both
/// forms of each are recorded as unavailable).
pub fn lacking() -> Vec<Lacking> {
    let l = |name, group, reason| Lacking {
        name,
        group,
        reason,
    };
    const BMI2_SHIFT: &str = "x86's flag-free BMI2 shift by register: on aarch64 every shift leaves the flags, and the shift by register is shl_cl/shr_cl/sar_cl (lslv/lsrv/asrv)";
    const BMI2_ROR: &str =
        "x86's flag-free BMI2 rotate: on aarch64 the rotate by an immediate is ror_i64/ror_i32";
    const PDEP: &str =
        "no scalar bit deposit or extract in A64 (SVE2's BDEP/BEXT are vector instructions)";
    const REM: &str = "no integer remainder instruction in A64: compilers divide (udiv/sdiv), then multiply-subtract (msub)";
    vec![
        l("mul_imm_i64", "integer", "no multiply by an immediate in A64: compilers multiply by a register (mul_i64) or shift and add"),
        l("mul_imm_i32", "integer", "no multiply by an immediate in A64: compilers multiply by a register (mul_i32) or shift and add"),
        l("lea3_i64", "integer", "no three-operand address arithmetic in A64: base + index·2 + 8 is two adds"),
        l("lea3_i32", "integer", "no three-operand address arithmetic in A64: base + index·2 + 8 is two adds"),
        l("mulw_u64", "integer", "no single 64×64→128-bit multiply in A64: mul gives the low half, umulh the high half"),
        l("rem_u64", "integer", REM),
        l("rem_i64", "integer", REM),
        l("rem_u32", "integer", REM),
        l("rem_i32", "integer", REM),
        l("popcnt_i64", "bit", "no scalar population count in A64 before FEAT_CSSC (Armv8.9): compilers count in a vector register (cnt, addv)"),
        l("popcnt_i32", "bit", "no scalar population count in A64 before FEAT_CSSC (Armv8.9): compilers count in a vector register (cnt, addv)"),
        l("tzcnt_i64", "bit", "no count of trailing zeros in A64 before FEAT_CSSC (Armv8.9): compilers reverse the bits, then count leading zeros (rbit, clz)"),
        l("tzcnt_i32", "bit", "no count of trailing zeros in A64 before FEAT_CSSC (Armv8.9): compilers reverse the bits, then count leading zeros (rbit, clz)"),
        l("shlx_i64", "bit", BMI2_SHIFT),
        l("shlx_i32", "bit", BMI2_SHIFT),
        l("shrx_u64", "bit", BMI2_SHIFT),
        l("shrx_u32", "bit", BMI2_SHIFT),
        l("sarx_i64", "bit", BMI2_SHIFT),
        l("sarx_i32", "bit", BMI2_SHIFT),
        l("rorx_i64", "bit", BMI2_ROR),
        l("rorx_i32", "bit", BMI2_ROR),
        l("pdep_i64", "bit", PDEP),
        l("pdep_i32", "bit", PDEP),
        l("pext_i64", "bit", PDEP),
        l("pext_i32", "bit", PDEP),
        l("rem_f64", "float", "no floating remainder instruction in A64 (x86 has x87 FPREM): rem_f64_libm times libm's fmod"),
    ]
}

pub fn table() -> Vec<OpDef> {
    let groups: Vec<Vec<OpDef>> = vec![
        // ---- integer arithmetic and logic
        alu2!("add_i64", "add_i32", "add").into(),
        alu2!("sub_i64", "sub_i32", "sub").into(),
        alu2!("mul_i64", "mul_i32", "mul").into(),
        alu2!("and_i64", "and_i32", "and").into(),
        alu2!("or_i64", "or_i32", "orr").into(),
        alu2!("xor_i64", "xor_i32", "eor").into(),
        un!("neg_i64", "neg_i32", "integer", "neg").into(),
        un!("not_i64", "not_i32", "integer", "mvn").into(),
        // A64 has no increment: an add of the immediate 1 is the operation.
        alu1!("inc_i64", "inc_i32", "add", ", #1", ", #1").into(),
        alu1!("dec_i64", "dec_i32", "sub", ", #1", ", #1").into(),
        alu1!("shl_i64", "shl_i32", "lsl", ", #3", ", #3").into(),
        alu1!("shr_u64", "shr_u32", "lsr", ", #3", ", #3").into(),
        alu1!("sar_i64", "sar_i32", "asr", ", #3", ", #3").into(),
        // A64 rotates right only: left by 3 is right by width − 3.
        alu1!("rol_i64", "rol_i32", "ror", ", #61", ", #29").into(),
        alu1!("ror_i64", "ror_i32", "ror", ", #3", ", #3").into(),
        // By a register (x1 = 3), as x86's count in cl.
        alu1!("shl_cl_i64", "shl_cl_i32", "lsl", ", x1", ", w1").into(),
        alu1!("shr_cl_u64", "shr_cl_u32", "lsr", ", x1", ", w1").into(),
        alu1!("sar_cl_i64", "sar_cl_i32", "asr", ", x1", ", w1").into(),
        alu1!("ror_cl_i64", "ror_cl_i32", "ror", ", x1", ", w1").into(),
        vec![
            // Left by a register: right by the negated count, as compilers
            // do; the count is negated once, before the copies.
            lat!(
                "rol_cl_i64",
                "integer",
                int(),
                Ptr::None,
                "neg x2, x1",
                "ror x0, x0, x2",
                ""
            ),
            rot_x!("rol_cl_i64", "integer", int(), "neg x2, x1"; "ror ", R, ", ", R, ", x2"),
            lat!(
                "rol_cl_i32",
                "integer",
                int(),
                Ptr::None,
                "neg w2, w1",
                "ror w0, w0, w2",
                ""
            ),
            rot_w!("rol_cl_i32", "integer", int(), "neg w2, w1"; "ror ", R, ", ", R, ", w2"),
            // Widening 32×32→64 multiply: one instruction in A64.
            lat!("mulw_u32", "integer", int(), "umull x0, w0, w1"),
            rot_x!("mulw_u32", "integer", int(), ""; "umull ", R, ", w2, w1"),
            // Division (see `div()`).
            lat!("div_u64", "integer", div(), "udiv x0, x0, x1"),
            rot_x!("div_u64", "integer", div(), ""; "udiv ", R, ", x4, x2"),
            lat!("div_i64", "integer", div(), "sdiv x0, x0, x1"),
            rot_x!("div_i64", "integer", div(), ""; "sdiv ", R, ", x4, x2"),
            lat!("div_u32", "integer", div(), "udiv w0, w0, w1"),
            rot_w!("div_u32", "integer", div(), ""; "udiv ", R, ", w4, w2"),
            lat!("div_i32", "integer", div(), "sdiv w0, w0, w1"),
            rot_w!("div_i32", "integer", div(), ""; "sdiv ", R, ", w4, w2"),
            // Conditional select: the flags set once before the copies.
            lat!(
                "cmov_i64",
                "integer",
                int(),
                Ptr::None,
                "cmp x1, x1",
                "csel x0, x1, x0, eq",
                ""
            ),
            rot_x!("cmov_i64", "integer", int(), "cmp x1, x1"; "csel ", R, ", x1, ", R, ", eq"),
            lat!(
                "cmov_i32",
                "integer",
                int(),
                Ptr::None,
                "cmp x1, x1",
                "csel w0, w1, w0, eq",
                ""
            ),
            rot_w!("cmov_i32", "integer", int(), "cmp x1, x1"; "csel ", R, ", w1, ", R, ", eq"),
            // Widenings and truncation.
            lat!("sext_i8_i64", "conversion", int(), "sxtb x0, w0"),
            rot_x!("sext_i8_i64", "conversion", int(), ""; "sxtb ", R, ", w1"),
            lat!("sext_i16_i64", "conversion", int(), "sxth x0, w0"),
            rot_x!("sext_i16_i64", "conversion", int(), ""; "sxth ", R, ", w1"),
            lat!("sext_i32_i64", "conversion", int(), "sxtw x0, w0"),
            rot_x!("sext_i32_i64", "conversion", int(), ""; "sxtw ", R, ", w1"),
            lat!("zext_u8_u64", "conversion", int(), "uxtb w0, w0"),
            rot_w!("zext_u8_u64", "conversion", int(), ""; "uxtb ", R, ", w1"),
            lat!("zext_u16_u64", "conversion", int(), "uxth w0, w0"),
            rot_w!("zext_u16_u64", "conversion", int(), ""; "uxth ", R, ", w1"),
            // A 32-bit write zero-extends, and naming the 32-bit register
            // truncates: a 32-bit move is the whole operation (as on x86).
            mov_chain!("zext_u32_u64"),
            rot_w!("zext_u32_u64", "conversion", int(), ""; "mov ", R, ", w1"),
            mov_chain!("trunc_i64_i32"),
            rot_w!("trunc_i64_i32", "conversion", int(), ""; "mov ", R, ", w1"),
        ],
        // ---- bit operations
        un!("lzcnt_i64", "lzcnt_i32", "bit", "clz").into(),
        un!("bswap_i64", "bswap_i32", "integer", "rev").into(),
        vec![
            // x86's andn (~a & b) is A64's bic (b & ~a).
            lat!("andn_i64", "bit", int(), "bic x0, x0, x1"),
            rot_x!("andn_i64", "bit", int(), ""; "bic ", R, ", x2, x1"),
            lat!("andn_i32", "bit", int(), "bic w0, w0, w1"),
            rot_w!("andn_i32", "bit", int(), ""; "bic ", R, ", w2, w1"),
        ],
        // ---- floating point (scalar)
        fp2!("add_f64", "add_f32", "fadd").into(),
        fp2!("sub_f64", "sub_f32", "fsub").into(),
        fp2!("mul_f64", "mul_f32", "fmul").into(),
        fp2!("div_f64", "div_f32", "fdiv").into(),
        fp2!("min_f64", "min_f32", "fmin").into(),
        fp2!("max_f64", "max_f32", "fmax").into(),
        vec![
            // Rounded up, x ← √x stops at 1 + 1 ulp, whose last mantissa bit
            // is set: every copy is a full-precision root (see `x86.rs`).
            def!(
                "sqrt_f64",
                "float",
                "latency",
                f64i(),
                Ptr::None,
                1000,
                2000,
                round_up!(),
                "fsqrt d0, d0",
                round_back!(),
                "fsqrt d0, d0  (rounding up: x stays 1 + 1 ulp)"
            ),
            rot_d!("sqrt_f64", "float", f64i(); "fsqrt ", R, ", d1"),
            def!(
                "sqrt_f32",
                "float",
                "latency",
                f32i(),
                Ptr::None,
                1000,
                2000,
                round_up!(),
                "fsqrt s0, s0",
                round_back!(),
                "fsqrt s0, s0  (rounding up: x stays 1 + 1 ulp)"
            ),
            rot_s!("sqrt_f32", "float", f32i(); "fsqrt ", R, ", s1"),
            // The chain through the addend, as x86's vfmadd231sd.
            lat!("fma_f64", "float", f64i(), "fmadd d0, d1, d2, d0"),
            rot_d!("fma_f64", "float", f64i(); "fmadd ", R, ", d1, d1, ", R),
            lat!("fma_f32", "float", f32i(), "fmadd s0, s1, s2, s0"),
            rot_s!("fma_f32", "float", f32i(); "fmadd ", R, ", s1, s1, ", R),
            lat!("rcp_approx_f32", "float", f32i(), "frecpe s0, s0"),
            rot_s!("rcp_approx_f32", "float", f32i(); "frecpe ", R, ", s1"),
            lat!("rsqrt_approx_f32", "float", f32i(), "frsqrte s0, s0"),
            rot_s!("rsqrt_approx_f32", "float", f32i(); "frsqrte ", R, ", s1"),
        ],
        // ---- conversions (A64 converts unsigned integers directly)
        cvt!(
            "cvt_f64_i32",
            "cvt_i32_f64",
            cvt64(),
            rot_d,
            rot_w,
            "scvtf",
            "fcvtzs",
            "d",
            "w"
        )
        .into(),
        cvt!(
            "cvt_f64_i64",
            "cvt_i64_f64",
            cvt64(),
            rot_d,
            rot_x,
            "scvtf",
            "fcvtzs",
            "d",
            "x"
        )
        .into(),
        cvt!(
            "cvt_f32_i32",
            "cvt_i32_f32",
            cvt32(),
            rot_s,
            rot_w,
            "scvtf",
            "fcvtzs",
            "s",
            "w"
        )
        .into(),
        cvt!(
            "cvt_f32_i64",
            "cvt_i64_f32",
            cvt32(),
            rot_s,
            rot_x,
            "scvtf",
            "fcvtzs",
            "s",
            "x"
        )
        .into(),
        cvt!(
            "cvt_f64_u32",
            "cvt_u32_f64",
            cvt64(),
            rot_d,
            rot_w,
            "ucvtf",
            "fcvtzu",
            "d",
            "w"
        )
        .into(),
        cvt!(
            "cvt_f32_u32",
            "cvt_u32_f32",
            cvt32(),
            rot_s,
            rot_w,
            "ucvtf",
            "fcvtzu",
            "s",
            "w"
        )
        .into(),
        vec![
            lat!(
                "cvt_f64_f32",
                "conversion",
                cvt32(),
                "fcvt d0, s0\nfcvt s0, d0"
            ),
            rot_d!("cvt_f64_f32", "conversion", cvt32(); "fcvt ", R, ", s1"),
            lat!(
                "cvt_f32_f64",
                "conversion",
                cvt64(),
                "fcvt s0, d0\nfcvt d0, s0"
            ),
            rot_s!("cvt_f32_f64", "conversion", cvt64(); "fcvt ", R, ", d1"),
        ],
        // ---- memory (L1)
        vec![
            // Pointer chase through a ring of lines in one 4 KiB page.
            lat!(
                "load_u64",
                "memory",
                int(),
                Ptr::Mem,
                "",
                "ldr x4, [x4]",
                ""
            ),
            def!(
                "load_u64",
                "memory",
                "throughput",
                int(),
                Ptr::Mem,
                125,
                250,
                "",
                "ldr x5, [x4]\nldr x6, [x4, #8]\nldr x7, [x4, #16]\nldr x8, [x4, #24]\n\
                  ldr x9, [x4, #32]\nldr x10, [x4, #40]\nldr x11, [x4, #48]\nldr x12, [x4, #56]",
                "",
                "ldr xN, [x4, #8k]  (N = 5..12, k = 0..7 in rotation)"
            ),
            // Store then reload the same doubleword: store-to-load forwarding.
            lat!(
                "store_u64",
                "memory",
                int(),
                Ptr::Mem,
                "",
                "str x0, [x3, #64]\nldr x0, [x3, #64]",
                ""
            ),
            def!(
                "store_u64",
                "memory",
                "throughput",
                int(),
                Ptr::Mem,
                125,
                250,
                "",
                "str x1, [x3, #64]\nstr x1, [x3, #72]\nstr x1, [x3, #80]\nstr x1, [x3, #88]\n\
                  str x1, [x3, #96]\nstr x1, [x3, #104]\nstr x1, [x3, #112]\nstr x1, [x3, #120]",
                "",
                "str x1, [x3, #64 + 8k]  (k = 0..7 in rotation)"
            ),
        ],
        // ---- branches (throughput only: a branch has no result to chain)
        vec![
            ind!("branch_taken", "branch", int(), "cmp x1, x2\nb.ne 2f\n2:"),
            ind!(
                "branch_not_taken",
                "branch",
                int(),
                "cmp x1, x2\nb.eq 2f\n2:"
            ),
            // One byte of a table per copy (x3 steps past it); the table is
            // redrawn at random before every timing.
            ind!(
                "branch_unpredictable",
                "branch",
                int(),
                Ptr::Table,
                "ldrb w13, [x3], #1\ncbnz w13, 2f\n2:"
            ),
            // The same code over a table of all ones: the baseline.
            ind!(
                "branch_table_predictable",
                "branch",
                int(),
                Ptr::Table,
                "ldrb w13, [x3], #1\ncbnz w13, 2f\n2:"
            ),
        ],
    ];
    groups.into_iter().flatten().collect()
}
