//! Portable forms: compiled Rust, for targets without an asm table (and for
//! the libm `fmod` everywhere). Each copy is one loop iteration whose result
//! passes through `black_box`, which keeps LLVM from folding the chain (a
//! chain of `x + y` would become one multiply) at the price of a register
//! spill and reload per copy: these figures include that and the loop, so
//! they are recorded as `portable`, never mixed with `asm` ones.

use std::hint::black_box;

use super::{timed, Init, OpDef, Ptr, COPIES};

/// Latency: one chain of n (or 2n) dependent copies.
#[inline(always)]
fn chain<T: Copy>(long: bool, x0: T, y: T, f: impl Fn(T, T) -> T) -> T {
    let n = if long { 2 * COPIES } else { COPIES };
    let y = black_box(y);
    let mut x = black_box(x0);
    for _ in 0..n {
        x = black_box(f(x, y));
    }
    x
}

/// Throughput: four independent chains, n copies in all.
#[inline(always)]
fn four<T: Copy>(long: bool, x0: T, y: T, f: impl Fn(T, T) -> T) -> T {
    let n = if long { 2 * COPIES } else { COPIES };
    let y = black_box(y);
    let (mut a, mut b, mut c, mut d) = (black_box(x0), black_box(x0), black_box(x0), black_box(x0));
    for _ in 0..n / 4 {
        a = black_box(f(a, y));
        b = black_box(f(b, y));
        c = black_box(f(c, y));
        d = black_box(f(d, y));
    }
    black_box((b, c, d));
    a
}

const NOINIT: Init = Init {
    g: [0; 13],
    x: [0; 12],
};

/// Both forms of one operation: `$f` maps (x, y) to the next x.
macro_rules! p {
    ($name:literal, $group:literal, $t:ty, $x0:expr, $y:expr, $f:expr, $what:literal) => {
        [
            OpDef {
                name: $name,
                group: $group,
                form: "latency",
                implementation: "portable",
                instruction: concat!($what, " (Rust, one black_box per copy)"),
                requires: None,
                init: NOINIT,
                ptr: Ptr::None,
                run: |long: bool, counter: bool, _: &Init| {
                    timed(counter, || chain::<$t>(long, $x0, $y, $f))
                },
            },
            OpDef {
                name: $name,
                group: $group,
                form: "throughput",
                implementation: "portable",
                instruction: concat!(
                    $what,
                    " (Rust, 4 independent chains, one black_box per copy)"
                ),
                requires: None,
                init: NOINIT,
                ptr: Ptr::None,
                run: |long: bool, counter: bool, _: &Init| {
                    timed(counter, || four::<$t>(long, $x0, $y, $f))
                },
            },
        ]
    };
}

/// The floating remainder through libm's `fmod` (Rust's `%` on floats).
pub fn libm_fmod() -> Vec<OpDef> {
    p!(
        "rem_f64_libm",
        "float",
        f64,
        1e6 + 0.25,
        std::f64::consts::PI,
        |x, y| (x + 1e6) % y,
        "x = (x + 1e6) % y  (libm fmod)"
    )
    .into()
}

/// The portable table, for targets without the asm one.
#[allow(dead_code)] // used where there is no asm table
pub fn table() -> Vec<OpDef> {
    let groups: Vec<[OpDef; 2]> = vec![
        p!(
            "add_i64",
            "integer",
            u64,
            1,
            3,
            |x, y| x.wrapping_add(y),
            "x = x + y"
        ),
        p!(
            "sub_i64",
            "integer",
            u64,
            1,
            3,
            |x, y| x.wrapping_sub(y),
            "x = x - y"
        ),
        p!(
            "mul_i64",
            "integer",
            u64,
            1,
            3,
            |x, y| x.wrapping_mul(y),
            "x = x * y"
        ),
        p!("and_i64", "integer", u64, 1, 3, |x, y| x & y, "x = x & y"),
        p!("or_i64", "integer", u64, 1, 3, |x, y| x | y, "x = x | y"),
        p!("xor_i64", "integer", u64, 1, 3, |x, y| x ^ y, "x = x ^ y"),
        p!(
            "neg_i64",
            "integer",
            i64,
            1,
            0,
            |x, _| x.wrapping_neg(),
            "x = -x"
        ),
        p!(
            "shl_i64",
            "integer",
            u64,
            1,
            3,
            |x, y| x.wrapping_shl(y as u32),
            "x = x << y"
        ),
        p!(
            "shr_u64",
            "integer",
            u64,
            1,
            3,
            |x, y| x.wrapping_shr(y as u32),
            "x = x >> y"
        ),
        p!(
            "sar_i64",
            "integer",
            i64,
            -1,
            3,
            |x, y| x.wrapping_shr(y as u32),
            "x = x >> y (arithmetic)"
        ),
        p!(
            "rol_i64",
            "integer",
            u64,
            1,
            3,
            |x, y| x.rotate_left(y as u32),
            "x = x.rotate_left(y)"
        ),
        p!(
            "ror_i64",
            "integer",
            u64,
            1,
            3,
            |x, y| x.rotate_right(y as u32),
            "x = x.rotate_right(y)"
        ),
        p!(
            "add_i32",
            "integer",
            u32,
            1,
            3,
            |x, y| x.wrapping_add(y),
            "x = x + y"
        ),
        p!(
            "sub_i32",
            "integer",
            u32,
            1,
            3,
            |x, y| x.wrapping_sub(y),
            "x = x - y"
        ),
        p!(
            "mul_i32",
            "integer",
            u32,
            1,
            3,
            |x, y| x.wrapping_mul(y),
            "x = x * y"
        ),
        p!("and_i32", "integer", u32, 1, 3, |x, y| x & y, "x = x & y"),
        p!("or_i32", "integer", u32, 1, 3, |x, y| x | y, "x = x | y"),
        p!("xor_i32", "integer", u32, 1, 3, |x, y| x ^ y, "x = x ^ y"),
        p!(
            "neg_i32",
            "integer",
            i32,
            1,
            0,
            |x, _| x.wrapping_neg(),
            "x = -x"
        ),
        p!(
            "shl_i32",
            "integer",
            u32,
            1,
            3,
            |x, y| x.wrapping_shl(y),
            "x = x << y"
        ),
        p!(
            "shr_u32",
            "integer",
            u32,
            1,
            3,
            |x, y| x.wrapping_shr(y),
            "x = x >> y"
        ),
        p!(
            "sar_i32",
            "integer",
            i32,
            -1,
            3,
            |x, y| x.wrapping_shr(y as u32),
            "x = x >> y (arithmetic)"
        ),
        p!(
            "rol_i32",
            "integer",
            u32,
            1,
            3,
            |x, y| x.rotate_left(y),
            "x = x.rotate_left(y)"
        ),
        p!(
            "ror_i32",
            "integer",
            u32,
            1,
            3,
            |x, y| x.rotate_right(y),
            "x = x.rotate_right(y)"
        ),
        // Divisions: x / 1 keeps the dividend wide (a real divisor would
        // drive the chain to zero); the divisor is opaque to the compiler.
        p!(
            "div_u64",
            "integer",
            u64,
            u64::MAX / 3,
            1,
            |x, y| x / y,
            "x = x / y (y = 1)"
        ),
        p!(
            "rem_u64",
            "integer",
            u64,
            u64::MAX / 3,
            0xfedc_ba98_7654_3211,
            |x, y| (x % y) | (1 << 62),
            "x = (x % y) | 2^62"
        ),
        p!(
            "div_i64",
            "integer",
            i64,
            i64::MAX / 3,
            1,
            |x, y| x.wrapping_div(y),
            "x = x / y (y = 1)"
        ),
        p!(
            "rem_i64",
            "integer",
            i64,
            i64::MAX / 3,
            0x7edc_ba98_7654_3211,
            |x, y| x.wrapping_rem(y) | (1 << 61),
            "x = (x % y) | 2^61"
        ),
        p!(
            "div_u32",
            "integer",
            u32,
            u32::MAX / 3,
            1,
            |x, y| x / y,
            "x = x / y (y = 1)"
        ),
        p!(
            "rem_u32",
            "integer",
            u32,
            u32::MAX / 3,
            0xfedc_ba99,
            |x, y| (x % y) | (1 << 30),
            "x = (x % y) | 2^30"
        ),
        p!(
            "div_i32",
            "integer",
            i32,
            i32::MAX / 3,
            1,
            |x, y| x.wrapping_div(y),
            "x = x / y (y = 1)"
        ),
        p!(
            "rem_i32",
            "integer",
            i32,
            i32::MAX / 3,
            0x7edc_ba99,
            |x, y| x.wrapping_rem(y) | (1 << 29),
            "x = (x % y) | 2^29"
        ),
        p!(
            "popcnt_i64",
            "bit",
            u64,
            12345,
            0,
            |x, _| u64::from(x.count_ones()),
            "x = x.count_ones()"
        ),
        p!(
            "lzcnt_i64",
            "bit",
            u64,
            12345,
            0,
            |x, _| u64::from(x.leading_zeros()),
            "x = x.leading_zeros()"
        ),
        p!(
            "tzcnt_i64",
            "bit",
            u64,
            12345,
            0,
            |x, _| u64::from(x.trailing_zeros()),
            "x = x.trailing_zeros()"
        ),
        p!(
            "bswap_i64",
            "bit",
            u64,
            12345,
            0,
            |x, _| x.swap_bytes(),
            "x = x.swap_bytes()"
        ),
        p!(
            "add_f64",
            "float",
            f64,
            1.5,
            1.000_000_1,
            |x, y| x + y,
            "x = x + y"
        ),
        p!(
            "sub_f64",
            "float",
            f64,
            1.5,
            1.000_000_1,
            |x, y| x - y,
            "x = x - y"
        ),
        p!(
            "mul_f64",
            "float",
            f64,
            1.5,
            1.000_000_1,
            |x, y| x * y,
            "x = x * y"
        ),
        p!(
            "div_f64",
            "float",
            f64,
            1.5,
            1.000_000_1,
            |x, y| x / y,
            "x = x / y"
        ),
        p!(
            "sqrt_f64",
            "float",
            f64,
            1.5,
            0.0,
            |x, _| x.sqrt(),
            "x = x.sqrt()"
        ),
        p!(
            "min_f64",
            "float",
            f64,
            1.5,
            1.000_000_1,
            |x, y| x.min(y),
            "x = x.min(y)"
        ),
        p!(
            "max_f64",
            "float",
            f64,
            1.5,
            1.000_000_1,
            |x, y| x.max(y),
            "x = x.max(y)"
        ),
        p!(
            "fma_f64",
            "float",
            f64,
            1.5,
            1.000_000_1,
            |x, y| y.mul_add(y, x),
            "x = y.mul_add(y, x) (a libm call without target FMA)"
        ),
        p!(
            "rem_f64",
            "float",
            f64,
            1e6 + 0.25,
            std::f64::consts::PI,
            |x, y| (x + 1e6) % y,
            "x = (x + 1e6) % y (libm fmod)"
        ),
        p!(
            "add_f32",
            "float",
            f32,
            1.5,
            1.000_000_1,
            |x, y| x + y,
            "x = x + y"
        ),
        p!(
            "sub_f32",
            "float",
            f32,
            1.5,
            1.000_000_1,
            |x, y| x - y,
            "x = x - y"
        ),
        p!(
            "mul_f32",
            "float",
            f32,
            1.5,
            1.000_000_1,
            |x, y| x * y,
            "x = x * y"
        ),
        p!(
            "div_f32",
            "float",
            f32,
            1.5,
            1.000_000_1,
            |x, y| x / y,
            "x = x / y"
        ),
        p!(
            "sqrt_f32",
            "float",
            f32,
            1.5,
            0.0,
            |x, _| x.sqrt(),
            "x = x.sqrt()"
        ),
        p!(
            "min_f32",
            "float",
            f32,
            1.5,
            1.000_000_1,
            |x, y| x.min(y),
            "x = x.min(y)"
        ),
        p!(
            "max_f32",
            "float",
            f32,
            1.5,
            1.000_000_1,
            |x, y| x.max(y),
            "x = x.max(y)"
        ),
        p!(
            "fma_f32",
            "float",
            f32,
            1.5,
            1.000_000_1,
            |x, y| y.mul_add(y, x),
            "x = y.mul_add(y, x) (a libm call without target FMA)"
        ),
        // Conversions as round trips (a conversion cannot feed itself); the
        // inner black_box keeps LLVM from folding an exact round trip away.
        p!(
            "cvt_f64_i32",
            "conversion",
            i32,
            12345,
            0,
            |x, _| black_box(f64::from(x)) as i32,
            "x = (x as f64) as i32"
        ),
        p!(
            "cvt_f64_i64",
            "conversion",
            i64,
            12345,
            0,
            |x, _| black_box(x as f64) as i64,
            "x = (x as f64) as i64"
        ),
        p!(
            "cvt_f64_u32",
            "conversion",
            u32,
            12345,
            0,
            |x, _| black_box(f64::from(x)) as u32,
            "x = (x as f64) as u32"
        ),
        p!(
            "cvt_f32_i32",
            "conversion",
            i32,
            12345,
            0,
            |x, _| black_box(x as f32) as i32,
            "x = (x as f32) as i32"
        ),
        p!(
            "cvt_f32_i64",
            "conversion",
            i64,
            12345,
            0,
            |x, _| black_box(x as f32) as i64,
            "x = (x as f32) as i64"
        ),
        p!(
            "cvt_f32_u32",
            "conversion",
            u32,
            12345,
            0,
            |x, _| black_box(x as f32) as u32,
            "x = (x as f32) as u32"
        ),
        p!(
            "cvt_f64_f32",
            "conversion",
            f32,
            1.5,
            0.0,
            |x, _| black_box(f64::from(x)) as f32,
            "x = (x as f64) as f32"
        ),
        p!(
            "sext_i8_i64",
            "conversion",
            i64,
            12345,
            0,
            |x, _| i64::from(x as i8),
            "x = (x as i8) as i64"
        ),
        p!(
            "sext_i16_i64",
            "conversion",
            i64,
            12345,
            0,
            |x, _| i64::from(x as i16),
            "x = (x as i16) as i64"
        ),
        p!(
            "sext_i32_i64",
            "conversion",
            i64,
            12345,
            0,
            |x, _| i64::from(x as i32),
            "x = (x as i32) as i64"
        ),
        p!(
            "zext_u8_u64",
            "conversion",
            u64,
            12345,
            0,
            |x, _| u64::from(x as u8),
            "x = (x as u8) as u64"
        ),
        p!(
            "zext_u16_u64",
            "conversion",
            u64,
            12345,
            0,
            |x, _| u64::from(x as u16),
            "x = (x as u16) as u64"
        ),
        p!(
            "zext_u32_u64",
            "conversion",
            u64,
            12345,
            0,
            |x, _| u64::from(x as u32),
            "x = (x as u32) as u64"
        ),
    ];
    groups.into_iter().flatten().collect()
}
