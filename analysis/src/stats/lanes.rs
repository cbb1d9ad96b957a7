//! Value-by-value resampling with four generators stepped side by side.
//!
//! The hierarchical bootstrap draws one index per resampled measurement
//! (10⁷ draws for a series of 5 × 1,000 and 2,000 replicates). One
//! Xoshiro256++ stream is serial: each output waits on the last, so a draw
//! cost about four cycles however wide the core. Here four xoshiro128++
//! streams (the 32-bit member of the family) are stepped together in one
//! 128-bit vector: SSE2 on x86-64 (always present there), simd128 in
//! WebAssembly, plain arrays elsewhere. For executions of up to [`SHORT`]
//! values each output makes two 16-bit draws: eight indices from one step
//! and one multiply. The three backends give the same draws and the same
//! sums to the bit: the same additions, in the same order. The loop has no
//! branch on the draws (a rarely taken one made the compiler keep the
//! generators in memory, and cost a third of the time).
//!
//! What a resample of n values draws (the stream every platform follows),
//! in batches of eight draws:
//!
//! * up to [`SHORT`] values, a batch is one step of the four lanes, each
//!   output giving two 16-bit draws, its low half first; beyond, two steps,
//!   each output one 32-bit draw. The draws past n of the last batch are
//!   dropped;
//! * index = ⌊u·n / 2ᵇ⌋ for a b-bit draw u (Lemire). When the low b bits
//!   of u·n are below 2ᵇ mod n, that index would favour the first values:
//!   the draw is rejected and adds nothing; after the last batch, as many
//!   draws as were rejected are made with [`index`] on the caller's stream.
//!   Every index is exactly uniform;
//! * draw j of a batch is summed, (d, d²) at a time, into sum j mod 4, in
//!   batch order, the redraws into sum 0; the total is (a₀ + a₁) + (a₂ + a₃).
//!
//! No crate offers a vectorised generator giving the same stream on both
//! targets (portable SIMD is unstable), so the three small backends are
//! here; tests check each lane against rand_xoshiro's Xoshiro128PlusPlus and
//! the vector backend against the array one.

use super::bootstrap::index;
use rand::SeedableRng;
use rand_xoshiro::SplitMix64;

/// Generators stepped together.
pub const LANES: usize = 4;

/// Draws in a batch.
const BATCH: usize = 8;

/// Executions of up to this many values are resampled with 16-bit draws.
/// A draw is rejected with probability (2¹⁶ mod n) / 2¹⁶ < n / 2¹⁶, so at
/// most one in 16 here.
pub const SHORT: usize = 4096;

/// Four xoshiro128++ states, word by word (`s[w][lane]`), so that the
/// lanes' words load as one vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lanes {
    s: [[u32; LANES]; 4],
}

impl Lanes {
    /// Lane k's 128-bit state is the k-th pair of SplitMix64 outputs from
    /// `seed` (as `Xoshiro128PlusPlus::from_seed` reads 16 bytes); callers
    /// pass a seed of their own, apart from their Xoshiro256++ stream's.
    pub fn new(seed: u64) -> Lanes {
        use rand::Rng;
        let mut sm = SplitMix64::seed_from_u64(seed);
        let mut s = [[0u32; LANES]; 4];
        #[allow(clippy::needless_range_loop)]
        for k in 0..LANES {
            // Lane k's four words go to s[0][k] … s[3][k].
            let (a, b) = (sm.next_u64(), sm.next_u64());
            let words = [a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32];
            // An all-zero state would stay zero (probability 2⁻¹²⁸).
            let words = if words == [0; 4] { [1, 0, 0, 0] } else { words };
            for (w, x) in words.into_iter().enumerate() {
                s[w][k] = x;
            }
        }
        Lanes { s }
    }

    /// Lane k's state as the 16 bytes `Xoshiro128PlusPlus::from_seed` takes
    /// (for tests against that implementation).
    #[cfg(test)]
    fn seed_bytes(&self, k: usize) -> [u8; 16] {
        let mut b = [0u8; 16];
        for w in 0..4 {
            b[4 * w..4 * w + 4].copy_from_slice(&self.s[w][k].to_le_bytes());
        }
        b
    }
}

/// Each value's (d, d²), d its deviation from a centre, and a pair of
/// zeros after the last: where a rejected draw points.
#[derive(Debug, Clone)]
pub struct Deviations {
    pairs: Vec<[f64; 2]>,
}

impl Deviations {
    pub fn new(xs: &[f64], centre: f64) -> Deviations {
        let mut pairs: Vec<[f64; 2]> = xs
            .iter()
            .map(|&x| {
                let d = x - centre;
                [d, d * d]
            })
            .collect();
        pairs.push([0.0; 2]);
        Deviations { pairs }
    }

    /// The values (not counting the zeros after them).
    pub fn len(&self) -> usize {
        self.pairs.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Σd and Σd² over a with-replacement resample of as many values as `dev`
/// holds (1 to 2³² − 1 of them). Redraws come from `reserve`.
pub fn resample_sums(
    dev: &Deviations,
    lanes: &mut Lanes,
    reserve: &mut impl rand::Rng,
) -> (f64, f64) {
    sums::<Native>(dev, lanes, reserve)
}

#[inline(always)]
fn sums<B: Backend>(
    dev: &Deviations,
    lanes: &mut Lanes,
    reserve: &mut impl rand::Rng,
) -> (f64, f64) {
    let Ok(n) = u32::try_from(dev.len()) else {
        return (f64::NAN, f64::NAN);
    };
    let s = Sums::<B> {
        pairs: &dev.pairs,
        n: n as usize,
        acc: [B::zero(); 4],
    };
    draw::<B, _>(n, lanes, reserve, s).total()
}

/// Fills `out` with a with-replacement resample of `src` (as many values),
/// drawn as [`resample_sums`] draws them. `src` has 1 to 2³² − 1 values.
pub fn resample_into(
    src: &[f64],
    out: &mut [f64],
    lanes: &mut Lanes,
    reserve: &mut impl rand::Rng,
) {
    let Ok(n) = u32::try_from(src.len()) else {
        return;
    };
    let into = Into {
        src,
        out,
        at: 0,
        rejected: Vec::new(),
        redrawn: 0,
    };
    draw::<Native, _>(n, lanes, reserve, into);
}

#[cfg(target_arch = "x86_64")]
type Native = sse2::B;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
type Native = simd128::B;
#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
type Native = portable::B;

/// The operations a backend gives on a vector `U` (four u32 lanes, or
/// eight u16 ones) and `F` (two f64 lanes).
trait Backend {
    type U: Copy;
    type F: Copy;
    fn load(x: &[u32; 4]) -> Self::U;
    fn store(x: Self::U) -> [u32; 4];
    /// The low and the high 64 bits.
    fn halves64(x: Self::U) -> [u64; 2];
    fn zeros() -> Self::U;
    fn add(a: Self::U, b: Self::U) -> Self::U;
    fn xor(a: Self::U, b: Self::U) -> Self::U;
    fn or(a: Self::U, b: Self::U) -> Self::U;
    fn shl<const S: u32>(a: Self::U) -> Self::U;
    fn shr<const S: u32>(a: Self::U) -> Self::U;
    /// Lane by lane, a − b as u32s, and as u16s.
    fn sub32(a: Self::U, b: Self::U) -> Self::U;
    fn sub16(a: Self::U, b: Self::U) -> Self::U;
    /// Each 16-bit lane shifted left by 4.
    fn times16(a: Self::U) -> Self::U;
    /// For each 32-bit lane u: ⌊u·n / 2³²⌋, or n where the low half of u·n
    /// is below `t` (rejected); and the rejected lanes as all ones.
    fn draw32(u: Self::U, n: u32, t: u32) -> (Self::U, Self::U);
    /// The same for each 16-bit lane, with 2¹⁶.
    fn draw16(u: Self::U, n: u16, t: u16) -> (Self::U, Self::U);
    fn zero() -> Self::F;
    fn fload(x: &[f64; 2]) -> Self::F;
    fn fadd(a: Self::F, b: Self::F) -> Self::F;
    fn fstore(x: Self::F) -> [f64; 2];
}

/// The two 64-bit halves of a vector of drawn indices, for cutting into
/// lanes with shifts. Through `black_box`, which costs a store and two
/// loads: without it the compiler turns the shifts back into one lane
/// extraction per index (natively `pextrw`, two micro-ops at one a cycle;
/// V8 emits the same for WebAssembly's), and those held up the draws by a
/// fifth.
#[inline(always)]
fn halves<B: Backend>(x: B::U) -> [u64; 2] {
    core::hint::black_box(B::halves64(x))
}

/// The eight 16-bit lanes, lowest first.
#[inline(always)]
fn words16<B: Backend>(x: B::U) -> [usize; 8] {
    let h = halves::<B>(x);
    core::array::from_fn(|j| (h[j / 4] >> (16 * (j % 4))) as u16 as usize)
}

/// The four 32-bit lanes, lowest first.
#[inline(always)]
fn words32<B: Backend>(x: B::U) -> [usize; 4] {
    let h = halves::<B>(x);
    core::array::from_fn(|j| (h[j / 2] >> (32 * (j % 2))) as u32 as usize)
}

#[inline(always)]
fn rotl<B: Backend, const L: u32, const R: u32>(x: B::U) -> B::U {
    B::or(B::shl::<L>(x), B::shr::<R>(x))
}

/// One xoshiro128++ step of four lanes: their outputs.
#[inline(always)]
fn step<B: Backend>(s: &mut [B::U; 4]) -> B::U {
    let [s0, s1, s2, s3] = *s;
    let out = B::add(rotl::<B, 7, 25>(B::add(s0, s3)), s0);
    let t = B::shl::<9>(s1);
    let s2 = B::xor(s2, s0);
    let s3 = B::xor(s3, s1);
    let s1 = B::xor(s1, s2);
    let s0 = B::xor(s0, s3);
    let s2 = B::xor(s2, t);
    let s3 = rotl::<B, 11, 21>(s3);
    *s = [s0, s1, s2, s3];
    out
}

/// What is done with the draws (a trait rather than a closure, so that it
/// is inlined at each of `draw`'s call sites).
///
/// A batch comes as byte offsets, 16 × index, of (d, d²) pairs: for 16-bit
/// draws scaled in the vector, eight at once, where each index took a
/// shift of its own (a tenth of the loop's instructions in V8).
trait Take {
    /// A whole batch; a rejected draw's offset is 16n.
    fn full(&mut self, at: &[usize; BATCH]);
    /// The last batch, of which the first `count` draws count.
    fn part(&mut self, at: &[usize; BATCH], count: usize);
    /// A redraw, in place of the next rejected draw.
    fn redraw(&mut self, i: usize);
}

/// Draws n indices into 0..n as the module's header says, giving them to
/// `take`, which is handed back (held by value, its sums stay in
/// registers).
#[inline(always)]
fn draw<B: Backend, T: Take>(
    n: u32,
    lanes: &mut Lanes,
    reserve: &mut impl rand::Rng,
    mut take: T,
) -> T {
    if n == 0 {
        return take;
    }
    // Four locals, not an array: an array stayed in memory.
    let [mut s0, mut s1, mut s2, mut s3] = [0, 1, 2, 3].map(|w| B::load(&lanes.s[w]));
    let mut step = || {
        let mut st = [s0, s1, s2, s3];
        let out = step::<B>(&mut st);
        [s0, s1, s2, s3] = st;
        out
    };
    let (full, count) = (n as usize / BATCH, n as usize % BATCH);
    let mut rejected = 0usize;
    if n as usize <= SHORT {
        let (n16, t) = (n as u16, (65_536 % n) as u16);
        // 16 × index fits 16 bits: an index is below n ≤ 2¹², and a
        // rejected draw's n is 2¹² only when no draw is rejected (2¹⁶ mod
        // 2¹² = 0).
        let at = |idx| words16::<B>(B::times16(idx));
        // Rejections per 16-bit lane (at most SHORT / 8 each).
        let mut tally = B::zeros();
        for _ in 0..full {
            let (idx, rej) = B::draw16(step(), n16, t);
            tally = B::sub16(tally, rej);
            take.full(&at(idx));
        }
        rejected += B::halves64(tally)
            .iter()
            .flat_map(|&h| (0..4).map(move |j| (h >> (16 * j)) as u16 as usize))
            .sum::<usize>();
        if count > 0 {
            let (idx, rej) = B::draw16(step(), n16, t);
            take.part(&at(idx), count);
            rejected += words16::<B>(rej)[..count]
                .iter()
                .filter(|&&r| r != 0)
                .count();
        }
    } else {
        let t = n.wrapping_neg() % n;
        let mut tally = B::zeros();
        let mut batch = || {
            let (a, ra) = B::draw32(step(), n, t);
            let (b, rb) = B::draw32(step(), n, t);
            let (a, b) = (words32::<B>(a), words32::<B>(b));
            // 16 × index ≤ 16n, an offset within the pairs: it fits.
            let at = [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]].map(|i| i << 4);
            (at, ra, rb)
        };
        for _ in 0..full {
            let (at, ra, rb) = batch();
            tally = B::sub32(B::sub32(tally, ra), rb);
            take.full(&at);
        }
        if count > 0 {
            let (at, ra, rb) = batch();
            take.part(&at, count);
            let (ra, rb) = (B::store(ra), B::store(rb));
            let rej = [ra[0], ra[1], ra[2], ra[3], rb[0], rb[1], rb[2], rb[3]];
            rejected += rej[..count].iter().filter(|&&r| r != 0).count();
        }
        rejected += B::store(tally).iter().map(|&c| c as usize).sum::<usize>();
    }
    lanes.s = [s0, s1, s2, s3].map(B::store);
    for _ in 0..rejected {
        take.redraw(index(reserve, n as usize));
    }
    take
}

/// Sums of (d, d²) of the drawn values.
struct Sums<'a, B: Backend> {
    /// n pairs, then zeros.
    pairs: &'a [[f64; 2]],
    n: usize,
    acc: [B::F; 4],
}

impl<B: Backend> Sums<'_, B> {
    /// The pair at byte offset `at` = 16i, i ≤ n (n: the zeros),
    /// unchecked: the check cost a tenth of the loop.
    #[inline(always)]
    fn at(&self, at: usize) -> B::F {
        debug_assert!(at % 16 == 0 && at / 16 <= self.n);
        // SAFETY: `pairs` holds n + 1 pairs of 16 bytes, and every offset
        // given here is 16i with i at most n: a draw's ⌊u·n / 2ᵇ⌋ with
        // u < 2ᵇ is below n, a rejected draw's is n, and so are the unused
        // places of a last batch (`Backend::draw16`/`draw32`, held to the
        // plain arrays' by the tests; `draw`'s scaling; `Take::part`).
        B::fload(unsafe { &*self.pairs.as_ptr().byte_add(at) })
    }

    fn total(&self) -> (f64, f64) {
        let a = self.acc.map(B::fstore);
        let total = |c: usize| (a[0][c] + a[1][c]) + (a[2][c] + a[3][c]);
        (total(0), total(1))
    }
}

impl<B: Backend> Take for Sums<'_, B> {
    #[inline(always)]
    fn full(&mut self, at: &[usize; BATCH]) {
        for (k, &a) in at.iter().enumerate() {
            self.acc[k % 4] = B::fadd(self.acc[k % 4], self.at(a));
        }
    }

    #[inline(always)]
    fn part(&mut self, at: &[usize; BATCH], count: usize) {
        // All eight, those past `count` adding zeros: a loop to `count`
        // would index the sums at run time, and keep them in memory.
        for (k, &a) in at.iter().enumerate() {
            let x = self.at(if k < count { a } else { self.n << 4 });
            self.acc[k % 4] = B::fadd(self.acc[k % 4], x);
        }
    }

    #[inline(always)]
    fn redraw(&mut self, i: usize) {
        self.acc[0] = B::fadd(self.acc[0], B::fload(&self.pairs[i.min(self.n)]));
    }
}

/// The drawn values, in order; a rejected draw's place is filled by the
/// redraws, in turn.
struct Into<'a> {
    src: &'a [f64],
    out: &'a mut [f64],
    at: usize,
    rejected: Vec<usize>,
    redrawn: usize,
}

impl Take for Into<'_> {
    #[inline(always)]
    fn full(&mut self, at: &[usize; BATCH]) {
        self.part(at, BATCH);
    }

    #[inline(always)]
    fn part(&mut self, at: &[usize; BATCH], count: usize) {
        for &a in &at[..count] {
            match (self.out.get_mut(self.at), self.src.get(a >> 4)) {
                (Some(o), Some(&x)) => *o = x,
                _ => self.rejected.push(self.at),
            }
            self.at += 1;
        }
    }

    fn redraw(&mut self, i: usize) {
        if let (Some(&at), Some(&x)) = (self.rejected.get(self.redrawn), self.src.get(i)) {
            if let Some(o) = self.out.get_mut(at) {
                *o = x;
            }
        }
        self.redrawn += 1;
    }
}

/// Plain arrays: the reference the vector backends must equal, and the
/// backend where neither is available (so unused in builds that have one).
#[cfg_attr(not(test), allow(dead_code))]
mod portable {
    pub struct B;

    fn shorts(x: [u32; 4]) -> [u16; 8] {
        core::array::from_fn(|j| (x[j / 2] >> (16 * (j % 2))) as u16)
    }

    fn words(h: [u16; 8]) -> [u32; 4] {
        core::array::from_fn(|k| u32::from(h[2 * k]) | u32::from(h[2 * k + 1]) << 16)
    }

    impl super::Backend for B {
        type U = [u32; 4];
        type F = [f64; 2];
        fn load(x: &[u32; 4]) -> [u32; 4] {
            *x
        }
        fn store(x: [u32; 4]) -> [u32; 4] {
            x
        }
        fn halves64(x: [u32; 4]) -> [u64; 2] {
            [0, 1].map(|h| u64::from(x[2 * h]) | u64::from(x[2 * h + 1]) << 32)
        }
        fn zeros() -> [u32; 4] {
            [0; 4]
        }
        fn add(a: [u32; 4], b: [u32; 4]) -> [u32; 4] {
            [0, 1, 2, 3].map(|k| a[k].wrapping_add(b[k]))
        }
        fn xor(a: [u32; 4], b: [u32; 4]) -> [u32; 4] {
            [0, 1, 2, 3].map(|k| a[k] ^ b[k])
        }
        fn or(a: [u32; 4], b: [u32; 4]) -> [u32; 4] {
            [0, 1, 2, 3].map(|k| a[k] | b[k])
        }
        fn shl<const S: u32>(a: [u32; 4]) -> [u32; 4] {
            a.map(|x| x << S)
        }
        fn shr<const S: u32>(a: [u32; 4]) -> [u32; 4] {
            a.map(|x| x >> S)
        }
        fn sub32(a: [u32; 4], b: [u32; 4]) -> [u32; 4] {
            [0, 1, 2, 3].map(|k| a[k].wrapping_sub(b[k]))
        }
        fn sub16(a: [u32; 4], b: [u32; 4]) -> [u32; 4] {
            let (a, b) = (shorts(a), shorts(b));
            words(core::array::from_fn(|j| a[j].wrapping_sub(b[j])))
        }
        fn times16(a: [u32; 4]) -> [u32; 4] {
            words(shorts(a).map(|x| x << 4))
        }
        fn draw32(u: [u32; 4], n: u32, t: u32) -> ([u32; 4], [u32; 4]) {
            let m = u.map(|x| u64::from(x) * u64::from(n));
            let rej = m.map(|x| (x as u32) < t);
            (
                [0, 1, 2, 3].map(|k| if rej[k] { n } else { (m[k] >> 32) as u32 }),
                rej.map(|r| if r { u32::MAX } else { 0 }),
            )
        }
        fn draw16(u: [u32; 4], n: u16, t: u16) -> ([u32; 4], [u32; 4]) {
            let m = shorts(u).map(|x| u32::from(x) * u32::from(n));
            let rej = m.map(|x| (x as u16) < t);
            (
                words(core::array::from_fn(|j| {
                    if rej[j] {
                        n
                    } else {
                        (m[j] >> 16) as u16
                    }
                })),
                words(rej.map(|r| if r { u16::MAX } else { 0 })),
            )
        }
        fn zero() -> [f64; 2] {
            [0.0; 2]
        }
        fn fload(x: &[f64; 2]) -> [f64; 2] {
            *x
        }
        fn fadd(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
            [a[0] + b[0], a[1] + b[1]]
        }
        fn fstore(x: [f64; 2]) -> [f64; 2] {
            x
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    //! SSE2 only (part of every x86-64, so nothing is detected at run
    //! time): four lanes per vector, as simd128 has, so that WebAssembly
    //! keeps pace with native code.
    use core::arch::x86_64::*;
    pub struct B;

    // SAFETY (every `unsafe` below but the loads and stores): SSE2 is part
    // of every x86-64, so its instructions are always there.
    impl super::Backend for B {
        type U = __m128i;
        type F = __m128d;
        #[inline(always)]
        fn load(x: &[u32; 4]) -> __m128i {
            // SAFETY: an unaligned load of the 16 bytes `x` refers to.
            unsafe { _mm_loadu_si128(x.as_ptr().cast()) }
        }
        #[inline(always)]
        fn store(x: __m128i) -> [u32; 4] {
            let mut out = [0u32; 4];
            // SAFETY: an unaligned store to the 16 bytes of `out`.
            unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), x) };
            out
        }
        #[inline(always)]
        fn halves64(x: __m128i) -> [u64; 2] {
            unsafe {
                [
                    _mm_cvtsi128_si64(x) as u64,
                    _mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x)) as u64,
                ]
            }
        }
        #[inline(always)]
        fn zeros() -> __m128i {
            unsafe { _mm_setzero_si128() }
        }
        #[inline(always)]
        fn add(a: __m128i, b: __m128i) -> __m128i {
            unsafe { _mm_add_epi32(a, b) }
        }
        #[inline(always)]
        fn xor(a: __m128i, b: __m128i) -> __m128i {
            unsafe { _mm_xor_si128(a, b) }
        }
        #[inline(always)]
        fn or(a: __m128i, b: __m128i) -> __m128i {
            unsafe { _mm_or_si128(a, b) }
        }
        #[inline(always)]
        fn shl<const S: u32>(a: __m128i) -> __m128i {
            unsafe { _mm_sll_epi32(a, _mm_cvtsi32_si128(S as i32)) }
        }
        #[inline(always)]
        fn shr<const S: u32>(a: __m128i) -> __m128i {
            unsafe { _mm_srl_epi32(a, _mm_cvtsi32_si128(S as i32)) }
        }
        #[inline(always)]
        fn sub32(a: __m128i, b: __m128i) -> __m128i {
            unsafe { _mm_sub_epi32(a, b) }
        }
        #[inline(always)]
        fn sub16(a: __m128i, b: __m128i) -> __m128i {
            unsafe { _mm_sub_epi16(a, b) }
        }
        #[inline(always)]
        fn times16(a: __m128i) -> __m128i {
            unsafe { _mm_slli_epi16::<4>(a) }
        }
        #[inline(always)]
        fn draw32(u: __m128i, n: u32, t: u32) -> (__m128i, __m128i) {
            unsafe {
                let nv = _mm_set1_epi32(n as i32);
                // 32 × 32 → 64 of lanes 0 and 2, then of lanes 1 and 3.
                let even = _mm_mul_epu32(u, nv);
                let odd = _mm_mul_epu32(_mm_srli_epi64::<32>(u), nv);
                let a = _mm_unpacklo_epi32(even, odd); // lo0 lo1 hi0 hi1
                let b = _mm_unpackhi_epi32(even, odd); // lo2 lo3 hi2 hi3
                let lo = _mm_unpacklo_epi64(a, b);
                let hi = _mm_unpackhi_epi64(a, b);
                // Unsigned lo < t, as a signed comparison with the top bits
                // flipped.
                let flip = _mm_set1_epi32(i32::MIN);
                let tf = _mm_set1_epi32((t ^ 0x8000_0000) as i32);
                let rej = _mm_cmplt_epi32(_mm_xor_si128(lo, flip), tf);
                let idx = _mm_or_si128(_mm_andnot_si128(rej, hi), _mm_and_si128(rej, nv));
                (idx, rej)
            }
        }
        #[inline(always)]
        fn draw16(u: __m128i, n: u16, t: u16) -> (__m128i, __m128i) {
            unsafe {
                let nv = _mm_set1_epi16(n as i16);
                let hi = _mm_mulhi_epu16(u, nv);
                let lo = _mm_mullo_epi16(u, nv);
                // lo ≥ t exactly where t − lo, saturating, is zero.
                let short = _mm_subs_epu16(_mm_set1_epi16(t as i16), lo);
                let kept = _mm_cmpeq_epi16(short, _mm_setzero_si128());
                let idx = _mm_or_si128(_mm_and_si128(kept, hi), _mm_andnot_si128(kept, nv));
                (idx, _mm_xor_si128(kept, _mm_set1_epi32(-1)))
            }
        }
        #[inline(always)]
        fn zero() -> __m128d {
            unsafe { _mm_setzero_pd() }
        }
        #[inline(always)]
        fn fload(x: &[f64; 2]) -> __m128d {
            // SAFETY: an unaligned load of the 16 bytes `x` refers to.
            unsafe { _mm_loadu_pd(x.as_ptr()) }
        }
        #[inline(always)]
        fn fadd(a: __m128d, b: __m128d) -> __m128d {
            unsafe { _mm_add_pd(a, b) }
        }
        #[inline(always)]
        fn fstore(x: __m128d) -> [f64; 2] {
            let mut out = [0.0; 2];
            // SAFETY: an unaligned store to the 16 bytes of `out`.
            unsafe { _mm_storeu_pd(out.as_mut_ptr(), x) };
            out
        }
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use core::arch::wasm32::*;
    pub struct B;
    impl super::Backend for B {
        type U = v128;
        type F = v128;
        #[inline(always)]
        fn load(x: &[u32; 4]) -> v128 {
            u32x4(x[0], x[1], x[2], x[3])
        }
        #[inline(always)]
        fn store(x: v128) -> [u32; 4] {
            let mut out = [0u32; 4];
            // SAFETY: a store to the 16 bytes of `out`.
            unsafe { v128_store(out.as_mut_ptr().cast(), x) };
            out
        }
        #[inline(always)]
        fn halves64(x: v128) -> [u64; 2] {
            [u64x2_extract_lane::<0>(x), u64x2_extract_lane::<1>(x)]
        }
        #[inline(always)]
        fn zeros() -> v128 {
            u32x4_splat(0)
        }
        #[inline(always)]
        fn add(a: v128, b: v128) -> v128 {
            i32x4_add(a, b)
        }
        #[inline(always)]
        fn xor(a: v128, b: v128) -> v128 {
            v128_xor(a, b)
        }
        #[inline(always)]
        fn or(a: v128, b: v128) -> v128 {
            v128_or(a, b)
        }
        #[inline(always)]
        fn shl<const S: u32>(a: v128) -> v128 {
            i32x4_shl(a, S)
        }
        #[inline(always)]
        fn shr<const S: u32>(a: v128) -> v128 {
            u32x4_shr(a, S)
        }
        #[inline(always)]
        fn sub32(a: v128, b: v128) -> v128 {
            i32x4_sub(a, b)
        }
        #[inline(always)]
        fn sub16(a: v128, b: v128) -> v128 {
            i16x8_sub(a, b)
        }
        #[inline(always)]
        fn times16(a: v128) -> v128 {
            i16x8_shl(a, 4)
        }
        #[inline(always)]
        fn draw32(u: v128, n: u32, t: u32) -> (v128, v128) {
            let nv = u32x4_splat(n);
            let a = u64x2_extmul_low_u32x4(u, nv); // lanes 0, 1
            let b = u64x2_extmul_high_u32x4(u, nv); // lanes 2, 3
            let lo = i32x4_shuffle::<0, 2, 4, 6>(a, b);
            let hi = i32x4_shuffle::<1, 3, 5, 7>(a, b);
            let rej = u32x4_lt(lo, u32x4_splat(t));
            (v128_bitselect(nv, hi, rej), rej)
        }
        #[inline(always)]
        fn draw16(u: v128, n: u16, t: u16) -> (v128, v128) {
            let nv = u16x8_splat(n);
            let a = u32x4_extmul_low_u16x8(u, nv); // halves 0..4
            let b = u32x4_extmul_high_u16x8(u, nv); // halves 4..8
                                                    // Written so that they compile to few instructions: the low
                                                    // halves are the 16-bit product, the high ones the 32-bit
                                                    // products shifted and packed (shuffling the halves out of
                                                    // the products took twice the instructions).
            let lo = i16x8_mul(u, nv);
            let hi = u16x8_narrow_i32x4(u32x4_shr(a, 16), u32x4_shr(b, 16));
            let rej = u16x8_lt(lo, u16x8_splat(t));
            (v128_bitselect(nv, hi, rej), rej)
        }
        #[inline(always)]
        fn zero() -> v128 {
            f64x2_splat(0.0)
        }
        #[inline(always)]
        fn fload(x: &[f64; 2]) -> v128 {
            // SAFETY: a load of the 16 bytes `x` refers to (v128_load does
            // not need alignment).
            unsafe { v128_load(x.as_ptr().cast()) }
        }
        #[inline(always)]
        fn fadd(a: v128, b: v128) -> v128 {
            f64x2_add(a, b)
        }
        #[inline(always)]
        fn fstore(x: v128) -> [f64; 2] {
            [f64x2_extract_lane::<0>(x), f64x2_extract_lane::<1>(x)]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::{Xoshiro128PlusPlus, Xoshiro256PlusPlus};

    fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
        (0..n)
            .map(|_| (r.next_u32() as f64 / 2f64.powi(32) - 0.5) * 1e3)
            .collect()
    }

    #[test]
    fn each_lane_is_rand_xoshiros_xoshiro128plusplus() {
        let lanes = Lanes::new(7);
        let mut refs: Vec<Xoshiro128PlusPlus> = (0..LANES)
            .map(|k| Xoshiro128PlusPlus::from_seed(lanes.seed_bytes(k)))
            .collect();
        let mut s = lanes.s;
        for _ in 0..100 {
            let out = step::<portable::B>(&mut s);
            for (k, r) in refs.iter_mut().enumerate() {
                assert_eq!(out[k], r.next_u32());
            }
        }
    }

    /// The backend built here gives the portable one's sums to the bit and
    /// leaves the same states, over sizes that end mid-step.
    #[test]
    fn the_vector_backend_equals_the_arrays() {
        // 3,000 rejects 2,536 in 65,536 16-bit draws (2¹⁶ mod 3,000).
        for (n, seed) in [
            (1, 1),
            (7, 2),
            (8, 3),
            (1000, 4),
            (3000, 5),
            (SHORT, 6),
            (SHORT + 1, 7),
            (65_537, 8),
        ] {
            let dev = Deviations::new(&values(n, seed), 0.0);
            let (mut a, mut b) = (Lanes::new(seed), Lanes::new(seed));
            let (mut ra, mut rb) = (
                Xoshiro256PlusPlus::seed_from_u64(seed),
                Xoshiro256PlusPlus::seed_from_u64(seed),
            );
            for _ in 0..50 {
                let x = resample_sums(&dev, &mut a, &mut ra);
                let y = sums::<portable::B>(&dev, &mut b, &mut rb);
                assert_eq!(x.0.to_bits(), y.0.to_bits(), "n = {n}");
                assert_eq!(x.1.to_bits(), y.1.to_bits(), "n = {n}");
                assert_eq!(a, b);
                assert_eq!(ra, rb);
            }
        }
    }

    /// The sums are those of the values drawn: a resample's Σd and Σd²
    /// equal (to rounding) the sums over the same draws written out, which
    /// read the values by index, not by the sums' byte offsets.
    #[test]
    fn the_sums_are_those_of_the_values_drawn() {
        for (n, seed) in [(7, 1), (1000, 2), (3000, 3), (SHORT, 4), (SHORT + 1, 5)] {
            let xs = values(n, seed);
            let dev = Deviations::new(&xs, 0.0);
            let (mut a, mut b) = (Lanes::new(seed), Lanes::new(seed));
            let (mut ra, mut rb) = (
                Xoshiro256PlusPlus::seed_from_u64(seed),
                Xoshiro256PlusPlus::seed_from_u64(seed),
            );
            let mut out = vec![0.0; n];
            for _ in 0..20 {
                let (s1, s2) = resample_sums(&dev, &mut a, &mut ra);
                resample_into(&xs, &mut out, &mut b, &mut rb);
                let t1: f64 = out.iter().sum();
                let t2: f64 = out.iter().map(|x| x * x).sum();
                assert!(
                    (s1 - t1).abs() <= 1e-9 * t1.abs().max(1.0),
                    "n = {n}: {s1} {t1}"
                );
                assert!(
                    (s2 - t2).abs() <= 1e-9 * t2.abs().max(1.0),
                    "n = {n}: {s2} {t2}"
                );
            }
        }
    }

    /// The draws are uniform: over many resamples of 0..n, the counts of
    /// each value pass a chi-square test (within 6 SDs of its n − 1 degrees
    /// of freedom). Without the rejections, n = 3,000 would favour 2,536
    /// values by 1/21 (2¹⁶ = 21·3,000 + 2,536), a chi-square near 10⁵.
    #[test]
    fn draws_are_uniform() {
        for n in [7usize, 1000, 3000, SHORT, SHORT + 904] {
            let draws = 20_000_000;
            let src: Vec<f64> = (0..n).map(|v| v as f64).collect();
            let mut out = vec![0.0; n];
            let mut counts = vec![0u64; n];
            let mut lanes = Lanes::new(11);
            let mut r = Xoshiro256PlusPlus::seed_from_u64(11);
            for _ in 0..draws / n {
                resample_into(&src, &mut out, &mut lanes, &mut r);
                for &v in &out {
                    counts[v as usize] += 1;
                }
            }
            let e = (draws / n * n) as f64 / n as f64;
            let chi2: f64 = counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum();
            let df = (n - 1) as f64;
            assert!(
                (chi2 - df).abs() < 6.0 * (2.0 * df).sqrt(),
                "n = {n}: χ² = {chi2}, df = {df}"
            );
        }
    }

    /// The backend's products, and its flag for a low half below n (or t),
    /// equal the arrays' for any u and n, rejections included: n = 2³¹ + 1
    /// puts nearly half of the low halves below n (no resample that large
    /// fits in a test), n = 40,000 puts 39 % of 16-bit ones below t.
    #[test]
    fn the_vector_products_equal_the_arrays() {
        let mut r = Xoshiro256PlusPlus::seed_from_u64(9);
        let store = |(i, r)| (<Native as Backend>::store(i), <Native as Backend>::store(r));
        for n in [1u32, 2, 1000, 65_537, (1 << 31) + 1, u32::MAX] {
            let t = n.wrapping_neg() % n;
            for _ in 0..1000 {
                let u = [0; 4].map(|_: u32| r.next_u32());
                let ours = store(<Native as Backend>::draw32(
                    <Native as Backend>::load(&u),
                    n,
                    t,
                ));
                assert_eq!(ours, <portable::B as Backend>::draw32(u, n, t), "n = {n}");
            }
        }
        for n in [1u16, 2, 1000, 3000, 4096, 40_000, u16::MAX] {
            let t = (65_536 % u32::from(n)) as u16;
            for _ in 0..1000 {
                let u = [0; 4].map(|_: u32| r.next_u32());
                let ours = store(<Native as Backend>::draw16(
                    <Native as Backend>::load(&u),
                    n,
                    t,
                ));
                assert_eq!(ours, <portable::B as Backend>::draw16(u, n, t), "n = {n}");
            }
        }
    }

    #[test]
    fn the_sum_of_a_resample_has_the_bootstraps_mean_and_variance() {
        let n = 1000;
        let xs = values(n, 3);
        let dev = Deviations::new(&xs, 0.0);
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        let mut lanes = Lanes::new(3);
        let mut r = Xoshiro256PlusPlus::seed_from_u64(3);
        let reps = 20_000;
        let s: Vec<f64> = (0..reps)
            .map(|_| resample_sums(&dev, &mut lanes, &mut r).0)
            .collect();
        let m = s.iter().sum::<f64>() / reps as f64;
        let v = s.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (reps - 1) as f64;
        // E[Σd] = n·mean, Var[Σd] = n·var; the mean within 5 SEs, the
        // variance within 5 % (its SE is about 1 % here).
        let se = (n as f64 * var / reps as f64).sqrt();
        assert!(
            (m - n as f64 * mean).abs() < 5.0 * se,
            "{m} vs {}",
            n as f64 * mean
        );
        assert!(
            (v / (n as f64 * var) - 1.0).abs() < 0.05,
            "{v} vs {}",
            n as f64 * var
        );
    }
}
