//! The bottleneck suite's kernels and their exact operation counts.
//!
//! On x86_64 with FMA each kernel is an asm loop (VEX scalar double
//! instructions, one 64-bit pointer or counter per loop level), so every
//! executed instruction is known and `counts` is exact: loads, stores,
//! floating operations, integer operations (adds, moves, `lea`, pointer
//! steps) and loop branches (a `cmp`/`dec`/`sub` fused with its `jcc`).
//! On aarch64 the same loops are A64 asm (scalar `d` registers; A64 has no
//! load folded into arithmetic, so a load is its own `ldr`, and a closing
//! `subs` with its `b.ne` is one loop branch); their counts are exact too.
//! Elsewhere the same loops are compiled Rust; their counts are the
//! source's operations (the compiler may vectorise or unroll), recorded as
//! `portable`.
//!
//! Every kernel sweeps its data `passes` times inside one timed region.

use std::collections::BTreeMap;
use std::hint::black_box;

/// Operation names, as in the ops table.
pub const LOAD: &str = "load_u64";
pub const STORE: &str = "store_u64";
pub const ADD_F: &str = "add_f64";
pub const MUL_F: &str = "mul_f64";
pub const FMA_F: &str = "fma_f64";
pub const ADD_I: &str = "add_i64";
/// A loop's closing `dec`/`sub`/`cmp` fused with its taken `jcc`, timed
/// by this suite as a loop of nothing else (see `loop_branch_cost`).
pub const BRANCH: &str = "loop_branch";

pub type Counts = BTreeMap<String, u64>;

fn counts(items: &[(&str, u64)]) -> Counts {
    let mut m = Counts::new();
    for (k, v) in items {
        if *v > 0 {
            *m.entry((*k).to_string()).or_insert(0) += v;
        }
    }
    m
}

pub fn asm_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("fma")
        && std::arch::is_x86_feature_detected!("avx");
    // Scalar FMA (fmadd) is in the A64 base instruction set.
    #[cfg(target_arch = "aarch64")]
    return true;
    #[allow(unreachable_code)]
    false
}

/// What the asm kernels are, for the suite's config.
pub const ASM_KERNELS: &str = if cfg!(target_arch = "aarch64") {
    "asm (aarch64, A64 scalar double)"
} else {
    "asm (x86_64, VEX scalar double)"
};

/// A vector of f64 whose data starts on a 64-byte line.
pub struct Lines {
    buf: Vec<f64>,
    off: usize,
    pub len: usize,
}

impl Lines {
    pub fn new(len: usize, value: f64) -> Self {
        let buf = vec![value; len + 8];
        let addr = buf.as_ptr() as usize;
        let off = ((64 - addr % 64) % 64) / 8;
        Lines { buf, off, len }
    }
    pub fn ptr(&self) -> *const f64 {
        self.buf[self.off..].as_ptr()
    }
    pub fn mut_ptr(&mut self) -> *mut f64 {
        self.buf[self.off..].as_mut_ptr()
    }
    pub fn slice_mut(&mut self) -> &mut [f64] {
        &mut self.buf[self.off..self.off + self.len]
    }
}

// ------------------------------------------------------------------ triad

/// a[i] = b[i] + s·c[i], i < m (m a multiple of 4). Working set 24·m bytes.
pub struct Triad {
    pub m: usize,
    a: Lines,
    b: Lines,
    c: Lines,
}

impl Triad {
    pub fn for_bytes(ws: u64) -> Self {
        let m = ((ws / 24) as usize / 4).max(1) * 4;
        Triad {
            m,
            a: Lines::new(m, 0.0),
            b: Lines::new(m, 1.0),
            c: Lines::new(m, 2.0),
        }
    }
    pub fn bytes(&self) -> u64 {
        24 * self.m as u64
    }
    pub fn shape(&self) -> String {
        format!("m={}", self.m)
    }
    pub fn counts(&self, asm: bool, passes: u64) -> (Counts, Counts) {
        let m = self.m as u64;
        let c = if asm && cfg!(target_arch = "aarch64") {
            // Per element: 2 loads, 1 FMA, 1 store; per 4 elements: 3
            // pointer adds + subs/b.ne; per pass: 4 movs + subs/b.ne.
            counts(&[
                (LOAD, 2 * m * passes),
                (FMA_F, m * passes),
                (STORE, m * passes),
                (ADD_I, (3 * (m / 4) + 4) * passes),
                (BRANCH, (m / 4 + 1) * passes),
            ])
        } else if asm {
            // Per element: 2 loads (one folded into the FMA), 1 FMA, 1 store;
            // per 4 elements: add + cmp/jb; per pass: xor + dec/jnz.
            counts(&[
                (LOAD, 2 * m * passes),
                (FMA_F, m * passes),
                (STORE, m * passes),
                (ADD_I, (m / 4 + 1) * passes),
                (BRANCH, (m / 4 + 1) * passes),
            ])
        } else {
            counts(&[
                (LOAD, 2 * m * passes),
                (MUL_F, m * passes),
                (ADD_F, m * passes),
                (STORE, m * passes),
                (ADD_I, m * passes),
                (BRANCH, m * passes),
            ])
        };
        (c, Counts::new())
    }
    pub fn run(&mut self, asm: bool, passes: u64) {
        let s = black_box(3.0f64);
        let (a, b, c, m) = (self.a.mut_ptr(), self.b.ptr(), self.c.ptr(), self.m);
        #[cfg(target_arch = "x86_64")]
        if asm {
            // SAFETY: a, b, c hold m (a multiple of 4) f64 each; the loop
            // reads b[0..m], c[0..m] and writes a[0..m]; registers declared.
            unsafe {
                core::arch::asm!(
                    "2:",
                    "xor {i:e}, {i:e}",
                    "3:",
                    "vmovsd {x0}, qword ptr [{b} + {i}*8]",
                    "vfmadd231sd {x0}, {s}, qword ptr [{c} + {i}*8]",
                    "vmovsd qword ptr [{a} + {i}*8], {x0}",
                    "vmovsd {x1}, qword ptr [{b} + {i}*8 + 8]",
                    "vfmadd231sd {x1}, {s}, qword ptr [{c} + {i}*8 + 8]",
                    "vmovsd qword ptr [{a} + {i}*8 + 8], {x1}",
                    "vmovsd {x2}, qword ptr [{b} + {i}*8 + 16]",
                    "vfmadd231sd {x2}, {s}, qword ptr [{c} + {i}*8 + 16]",
                    "vmovsd qword ptr [{a} + {i}*8 + 16], {x2}",
                    "vmovsd {x3}, qword ptr [{b} + {i}*8 + 24]",
                    "vfmadd231sd {x3}, {s}, qword ptr [{c} + {i}*8 + 24]",
                    "vmovsd qword ptr [{a} + {i}*8 + 24], {x3}",
                    "add {i}, 4",
                    "cmp {i}, {m}",
                    "jb 3b",
                    "dec {p}",
                    "jnz 2b",
                    a = in(reg) a, b = in(reg) b, c = in(reg) c, m = in(reg) m,
                    i = out(reg) _, p = inout(reg) passes => _,
                    s = in(xmm_reg) s,
                    x0 = out(xmm_reg) _, x1 = out(xmm_reg) _, x2 = out(xmm_reg) _, x3 = out(xmm_reg) _,
                    options(nostack),
                );
            }
            return;
        }
        #[cfg(target_arch = "aarch64")]
        if asm {
            // SAFETY: a, b, c hold m (a multiple of 4) f64 each; the loop
            // reads b[0..m], c[0..m] and writes a[0..m]; registers declared.
            unsafe {
                core::arch::asm!(
                    "2:",
                    "mov {pa}, {a}",
                    "mov {pb}, {b}",
                    "mov {pc}, {c}",
                    "mov {n}, {m}",
                    "3:",
                    "ldr {x0:d}, [{pb}]",
                    "ldr {y0:d}, [{pc}]",
                    "fmadd {x0:d}, {y0:d}, {s:d}, {x0:d}",
                    "str {x0:d}, [{pa}]",
                    "ldr {x1:d}, [{pb}, #8]",
                    "ldr {y1:d}, [{pc}, #8]",
                    "fmadd {x1:d}, {y1:d}, {s:d}, {x1:d}",
                    "str {x1:d}, [{pa}, #8]",
                    "ldr {x2:d}, [{pb}, #16]",
                    "ldr {y2:d}, [{pc}, #16]",
                    "fmadd {x2:d}, {y2:d}, {s:d}, {x2:d}",
                    "str {x2:d}, [{pa}, #16]",
                    "ldr {x3:d}, [{pb}, #24]",
                    "ldr {y3:d}, [{pc}, #24]",
                    "fmadd {x3:d}, {y3:d}, {s:d}, {x3:d}",
                    "str {x3:d}, [{pa}, #24]",
                    "add {pa}, {pa}, #32",
                    "add {pb}, {pb}, #32",
                    "add {pc}, {pc}, #32",
                    "subs {n}, {n}, #4",
                    "b.ne 3b",
                    "subs {p}, {p}, #1",
                    "b.ne 2b",
                    a = in(reg) a, b = in(reg) b, c = in(reg) c, m = in(reg) m,
                    pa = out(reg) _, pb = out(reg) _, pc = out(reg) _, n = out(reg) _,
                    p = inout(reg) passes => _,
                    s = in(vreg) s,
                    x0 = out(vreg) _, x1 = out(vreg) _, x2 = out(vreg) _, x3 = out(vreg) _,
                    y0 = out(vreg) _, y1 = out(vreg) _, y2 = out(vreg) _, y3 = out(vreg) _,
                    options(nostack),
                );
            }
            return;
        }
        let _ = asm;
        for _ in 0..passes {
            // SAFETY: as above; raw pointers because a and b/c never alias.
            unsafe {
                for i in 0..m {
                    *a.add(i) = *b.add(i) + s * *c.add(i);
                }
            }
            black_box(a);
        }
    }
}

// ------------------------------------------------------------ strided sum

/// sum += x[8k] over one f64 per 64-byte line (`lines` a multiple of 4):
/// every access touches a new line. Working set 64·lines bytes.
pub struct StridedSum {
    pub lines: usize,
    x: Lines,
    pub acc: f64,
}

impl StridedSum {
    pub fn for_bytes(ws: u64) -> Self {
        let lines = ((ws / 64) as usize / 4).max(1) * 4;
        StridedSum {
            lines,
            x: Lines::new(lines * 8, 1.0),
            acc: 0.0,
        }
    }
    pub fn bytes(&self) -> u64 {
        64 * self.lines as u64
    }
    pub fn shape(&self) -> String {
        format!("lines={} stride=64B", self.lines)
    }
    pub fn counts(&self, asm: bool, passes: u64) -> (Counts, Counts) {
        let l = self.lines as u64;
        let c = if asm && cfg!(target_arch = "aarch64") {
            // Per line: a load and an add; per 4 lines: add + subs/b.ne;
            // per pass: 2 movs + subs/b.ne.
            counts(&[
                (LOAD, l * passes),
                (ADD_F, l * passes),
                (ADD_I, (l / 4 + 2) * passes),
                (BRANCH, (l / 4 + 1) * passes),
            ])
        } else if asm {
            // Per line: a load folded into the add; per 4 lines: add + sub/jnz;
            // per pass: 2 movs + dec/jnz.
            counts(&[
                (LOAD, l * passes),
                (ADD_F, l * passes),
                (ADD_I, (l / 4 + 3) * passes),
                (BRANCH, (l / 4 + 1) * passes),
            ])
        } else {
            counts(&[
                (LOAD, l * passes),
                (ADD_F, l * passes),
                (ADD_I, l * passes),
                (BRANCH, l * passes),
            ])
        };
        // One accumulator: every add waits for the previous one.
        (c, counts(&[(ADD_F, l * passes)]))
    }
    pub fn run(&mut self, asm: bool, passes: u64) {
        let (x, lines) = (self.x.ptr(), self.lines);
        #[cfg(target_arch = "x86_64")]
        if asm {
            let mut acc = self.acc;
            // SAFETY: reads x[0], x[8], … x[8·(lines−1)], all inside the
            // buffer of 8·lines f64; lines is a multiple of 4.
            unsafe {
                core::arch::asm!(
                    "2:",
                    "mov {q}, {x}",
                    "mov {n}, {lines}",
                    "3:",
                    "vaddsd {acc}, {acc}, qword ptr [{q}]",
                    "vaddsd {acc}, {acc}, qword ptr [{q} + 64]",
                    "vaddsd {acc}, {acc}, qword ptr [{q} + 128]",
                    "vaddsd {acc}, {acc}, qword ptr [{q} + 192]",
                    "add {q}, 256",
                    "sub {n}, 4",
                    "jnz 3b",
                    "dec {p}",
                    "jnz 2b",
                    x = in(reg) x, lines = in(reg) lines,
                    q = out(reg) _, n = out(reg) _, p = inout(reg) passes => _,
                    acc = inout(xmm_reg) acc,
                    options(nostack, readonly),
                );
            }
            self.acc = acc;
            return;
        }
        #[cfg(target_arch = "aarch64")]
        if asm {
            let mut acc = self.acc;
            // SAFETY: reads x[0], x[8], … x[8·(lines−1)], all inside the
            // buffer of 8·lines f64; lines is a multiple of 4.
            unsafe {
                core::arch::asm!(
                    "2:",
                    "mov {q}, {x}",
                    "mov {n}, {lines}",
                    "3:",
                    "ldr {t:d}, [{q}]",
                    "fadd {acc:d}, {acc:d}, {t:d}",
                    "ldr {t:d}, [{q}, #64]",
                    "fadd {acc:d}, {acc:d}, {t:d}",
                    "ldr {t:d}, [{q}, #128]",
                    "fadd {acc:d}, {acc:d}, {t:d}",
                    "ldr {t:d}, [{q}, #192]",
                    "fadd {acc:d}, {acc:d}, {t:d}",
                    "add {q}, {q}, #256",
                    "subs {n}, {n}, #4",
                    "b.ne 3b",
                    "subs {p}, {p}, #1",
                    "b.ne 2b",
                    x = in(reg) x, lines = in(reg) lines,
                    q = out(reg) _, n = out(reg) _, p = inout(reg) passes => _,
                    acc = inout(vreg) acc, t = out(vreg) _,
                    options(nostack, readonly),
                );
            }
            self.acc = acc;
            return;
        }
        let _ = asm;
        let mut acc = self.acc;
        for _ in 0..passes {
            for k in 0..lines {
                // SAFETY: k·8 < 8·lines, inside the buffer.
                acc += unsafe { *x.add(k * 8) };
            }
        }
        self.acc = black_box(acc);
    }
}

// ---------------------------------------------------------- pointer chase

/// p = *p through a random cyclic permutation of the lines (one pointer
/// per 64-byte line, Sattolo's algorithm: one cycle through all of them),
/// so that neither the next-line nor the stride prefetcher can guess the
/// next address. Working set 64·lines bytes.
pub struct Chase {
    pub lines: usize,
    ring: Vec<u64>,
    off: usize,
    pub at: u64,
}

impl Chase {
    pub fn for_bytes(ws: u64, seed: u64) -> Self {
        let lines = ((ws / 64) as usize / 4).max(1) * 4;
        let mut ring = vec![0u64; lines * 8 + 8];
        let addr = ring.as_ptr() as usize;
        let off = ((64 - addr % 64) % 64) / 8;
        let base = addr as u64 + off as u64 * 8;
        // Sattolo: a uniformly random cyclic permutation.
        let mut perm: Vec<u32> = (0..lines as u32).collect();
        let mut r = seed | 1;
        for i in (1..lines).rev() {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            let j = (r % i as u64) as usize;
            perm.swap(i, j);
        }
        for (i, &next) in perm.iter().enumerate() {
            ring[off + i * 8] = base + u64::from(next) * 64;
        }
        Chase {
            lines,
            ring,
            off,
            at: base,
        }
    }
    pub fn bytes(&self) -> u64 {
        64 * self.lines as u64
    }
    pub fn shape(&self) -> String {
        format!("lines={} random cycle", self.lines)
    }
    pub fn counts(&self, asm: bool, passes: u64) -> (Counts, Counts) {
        let l = self.lines as u64;
        let c = if asm && cfg!(target_arch = "aarch64") {
            // Per line: one load; per 4: subs/b.ne; per pass: mov + subs/b.ne.
            counts(&[
                (LOAD, l * passes),
                (ADD_I, passes),
                (BRANCH, (l / 4 + 1) * passes),
            ])
        } else if asm {
            // Per line: one load; per 4: sub/jnz; per pass: mov + dec/jnz.
            counts(&[
                (LOAD, l * passes),
                (ADD_I, 2 * passes),
                (BRANCH, (l / 4 + 1) * passes),
            ])
        } else {
            counts(&[
                (LOAD, l * passes),
                (ADD_I, l * passes),
                (BRANCH, l * passes),
            ])
        };
        (c, counts(&[(LOAD, l * passes)]))
    }
    pub fn run(&mut self, asm: bool, passes: u64) {
        // The ring must stay where the pointers point.
        let _keep = &self.ring[self.off];
        let lines = self.lines;
        let mut at = self.at;
        #[cfg(target_arch = "x86_64")]
        if asm {
            // SAFETY: every pointer in the ring points at a line of the ring
            // (built above); the ring lives as long as self.
            unsafe {
                core::arch::asm!(
                    "2:",
                    "mov {n}, {lines}",
                    "3:",
                    "mov {at}, qword ptr [{at}]",
                    "mov {at}, qword ptr [{at}]",
                    "mov {at}, qword ptr [{at}]",
                    "mov {at}, qword ptr [{at}]",
                    "sub {n}, 4",
                    "jnz 3b",
                    "dec {p}",
                    "jnz 2b",
                    lines = in(reg) lines, n = out(reg) _, p = inout(reg) passes => _,
                    at = inout(reg) at,
                    options(nostack, readonly),
                );
            }
            self.at = at;
            return;
        }
        #[cfg(target_arch = "aarch64")]
        if asm {
            // SAFETY: every pointer in the ring points at a line of the ring
            // (built above); the ring lives as long as self.
            unsafe {
                core::arch::asm!(
                    "2:",
                    "mov {n}, {lines}",
                    "3:",
                    "ldr {at}, [{at}]",
                    "ldr {at}, [{at}]",
                    "ldr {at}, [{at}]",
                    "ldr {at}, [{at}]",
                    "subs {n}, {n}, #4",
                    "b.ne 3b",
                    "subs {p}, {p}, #1",
                    "b.ne 2b",
                    lines = in(reg) lines, n = out(reg) _, p = inout(reg) passes => _,
                    at = inout(reg) at,
                    options(nostack, readonly),
                );
            }
            self.at = at;
            return;
        }
        let _ = asm;
        for _ in 0..passes * lines as u64 {
            // SAFETY: as above.
            at = unsafe { *(at as *const u64) };
        }
        self.at = black_box(at);
    }
}

// --------------------------------------------------------- matrix multiply

/// C += A·B for n×n row-major f64 matrices, 8 accumulators (a 1×8 block of
/// C) per inner loop over k. `tile` splits k: naive is tile = n (each
/// block's k loop walks a whole column strip of B), blocked is tile = 32
/// (a 32-row strip of B is reused by every row of A). Working set 24·n².
///
/// Per k step: 1 load of A, 8 FMAs each with a load of B (one line), so
/// 8 chains of FMA latency against 8 FMAs of throughput: on a core with
/// 2 FMA units of latency 4 both bounds coincide, which makes the
/// prediction insensitive to how far the out-of-order window overlaps
/// neighbouring blocks.
pub struct Matmul {
    pub n: usize,
    pub tile: usize,
    a: Lines,
    b: Lines,
    c: Lines,
}

impl Matmul {
    /// n: the largest multiple of 8 (≥ 8) with 24·n² ≤ ws.
    pub fn for_bytes(ws: u64, blocked: bool) -> Self {
        let n = (((ws as f64 / 24.0).sqrt() as usize) / 8).max(1) * 8;
        let tile = if blocked {
            [32, 16, 8].into_iter().find(|t| n % t == 0).unwrap_or(8)
        } else {
            n
        };
        Matmul {
            n,
            tile,
            a: Lines::new(n * n, 1.0 / 1024.0),
            b: Lines::new(n * n, 1.0 / 1024.0),
            c: Lines::new(n * n, 0.0),
        }
    }
    pub fn bytes(&self) -> u64 {
        24 * (self.n * self.n) as u64
    }
    pub fn shape(&self) -> String {
        format!("n={} tile={}", self.n, self.tile)
    }
    pub fn counts(&self, asm: bool, passes: u64) -> (Counts, Counts) {
        let n = self.n as u64;
        let t = self.tile as u64;
        let tiles = n / t;
        let ksteps = n * (n / 8) * t * tiles; // = n³/8
        let blocks = n * (n / 8) * tiles;
        let rows = n * tiles;
        let c = if asm {
            // k step: 9 loads, 8 FMA, 2 pointer adds, dec/jnz (aarch64:
            // the same, B's loads separate from the FMAs, subs/b.ne).
            // block: 8 loads + 8 stores of C, 3 movs + 2 adds, dec/jnz.
            // row: 2 movs + 1 add, dec/jnz. (The tile and pass loops are
            // Rust around the asm: a few instructions per n² · tile FMAs,
            // not counted.)
            counts(&[
                (LOAD, (9 * ksteps + 8 * blocks) * passes),
                (FMA_F, 8 * ksteps * passes),
                (STORE, 8 * blocks * passes),
                (ADD_I, (2 * ksteps + 5 * blocks + 3 * rows) * passes),
                (BRANCH, (ksteps + blocks + rows) * passes),
            ])
        } else {
            counts(&[
                (LOAD, (9 * ksteps + 8 * blocks) * passes),
                (MUL_F, 8 * ksteps * passes),
                (ADD_F, 8 * ksteps * passes),
                (STORE, 8 * blocks * passes),
                (ADD_I, (ksteps + blocks + rows) * passes),
                (BRANCH, (ksteps + blocks + rows) * passes),
            ])
        };
        // Each accumulator's chain is one FMA per k step; the 8 chains of a
        // block run side by side, blocks one after another.
        let chain_op = if asm { FMA_F } else { ADD_F };
        (c, counts(&[(chain_op, ksteps * passes)]))
    }
    pub fn run(&mut self, asm: bool, passes: u64) {
        let (n, t) = (self.n, self.tile);
        let stride = n * 8;
        let (a, b, c) = (self.a.ptr(), self.b.ptr(), self.c.mut_ptr());
        for _ in 0..passes {
            for kk in (0..n).step_by(t) {
                #[cfg(target_arch = "x86_64")]
                if asm {
                    // SAFETY: rows of A from column kk, rows kk..kk+t of B,
                    // all of C; n a multiple of 8 and of t; every address
                    // stays inside the n² buffers. Registers declared.
                    unsafe {
                        core::arch::asm!(
                            "2:",
                            "mov {bj}, {bk}",
                            "mov {jc}, {nb8}",
                            "3:",
                            "vmovsd xmm0, qword ptr [{cp}]",
                            "vmovsd xmm1, qword ptr [{cp} + 8]",
                            "vmovsd xmm2, qword ptr [{cp} + 16]",
                            "vmovsd xmm3, qword ptr [{cp} + 24]",
                            "vmovsd xmm4, qword ptr [{cp} + 32]",
                            "vmovsd xmm5, qword ptr [{cp} + 40]",
                            "vmovsd xmm6, qword ptr [{cp} + 48]",
                            "vmovsd xmm7, qword ptr [{cp} + 56]",
                            "mov {pa}, {ap}",
                            "mov {pb}, {bj}",
                            "mov {k}, {t}",
                            "4:",
                            "vmovsd xmm8, qword ptr [{pa}]",
                            "vfmadd231sd xmm0, xmm8, qword ptr [{pb}]",
                            "vfmadd231sd xmm1, xmm8, qword ptr [{pb} + 8]",
                            "vfmadd231sd xmm2, xmm8, qword ptr [{pb} + 16]",
                            "vfmadd231sd xmm3, xmm8, qword ptr [{pb} + 24]",
                            "vfmadd231sd xmm4, xmm8, qword ptr [{pb} + 32]",
                            "vfmadd231sd xmm5, xmm8, qword ptr [{pb} + 40]",
                            "vfmadd231sd xmm6, xmm8, qword ptr [{pb} + 48]",
                            "vfmadd231sd xmm7, xmm8, qword ptr [{pb} + 56]",
                            "add {pa}, 8",
                            "add {pb}, {stride}",
                            "dec {k}",
                            "jnz 4b",
                            "vmovsd qword ptr [{cp}], xmm0",
                            "vmovsd qword ptr [{cp} + 8], xmm1",
                            "vmovsd qword ptr [{cp} + 16], xmm2",
                            "vmovsd qword ptr [{cp} + 24], xmm3",
                            "vmovsd qword ptr [{cp} + 32], xmm4",
                            "vmovsd qword ptr [{cp} + 40], xmm5",
                            "vmovsd qword ptr [{cp} + 48], xmm6",
                            "vmovsd qword ptr [{cp} + 56], xmm7",
                            "add {cp}, 64",
                            "add {bj}, 64",
                            "dec {jc}",
                            "jnz 3b",
                            "add {ap}, {stride}",
                            "dec {ic}",
                            "jnz 2b",
                            ap = inout(reg) a.add(kk) => _,
                            bk = in(reg) b.add(kk * n),
                            cp = inout(reg) c => _,
                            ic = inout(reg) n => _,
                            nb8 = in(reg) n / 8,
                            stride = in(reg) stride,
                            t = in(reg) t,
                            bj = out(reg) _, jc = out(reg) _, pa = out(reg) _, pb = out(reg) _,
                            k = out(reg) _,
                            out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _,
                            out("xmm4") _, out("xmm5") _, out("xmm6") _, out("xmm7") _,
                            out("xmm8") _,
                            options(nostack),
                        );
                    }
                    continue;
                }
                #[cfg(target_arch = "aarch64")]
                if asm {
                    // SAFETY: rows of A from column kk, rows kk..kk+t of B,
                    // all of C; n a multiple of 8 and of t; every address
                    // stays inside the n² buffers. Registers declared (the
                    // accumulators and temporaries avoid v8..v15, whose low
                    // halves the caller keeps).
                    unsafe {
                        core::arch::asm!(
                            "2:",
                            "mov {bj}, {bk}",
                            "mov {jc}, {nb8}",
                            "3:",
                            "ldr d0, [{cp}]",
                            "ldr d1, [{cp}, #8]",
                            "ldr d2, [{cp}, #16]",
                            "ldr d3, [{cp}, #24]",
                            "ldr d4, [{cp}, #32]",
                            "ldr d5, [{cp}, #40]",
                            "ldr d6, [{cp}, #48]",
                            "ldr d7, [{cp}, #56]",
                            "mov {pa}, {ap}",
                            "mov {pb}, {bj}",
                            "mov {k}, {t}",
                            "4:",
                            "ldr d24, [{pa}]",
                            "ldr d16, [{pb}]",
                            "fmadd d0, d24, d16, d0",
                            "ldr d17, [{pb}, #8]",
                            "fmadd d1, d24, d17, d1",
                            "ldr d18, [{pb}, #16]",
                            "fmadd d2, d24, d18, d2",
                            "ldr d19, [{pb}, #24]",
                            "fmadd d3, d24, d19, d3",
                            "ldr d20, [{pb}, #32]",
                            "fmadd d4, d24, d20, d4",
                            "ldr d21, [{pb}, #40]",
                            "fmadd d5, d24, d21, d5",
                            "ldr d22, [{pb}, #48]",
                            "fmadd d6, d24, d22, d6",
                            "ldr d23, [{pb}, #56]",
                            "fmadd d7, d24, d23, d7",
                            "add {pa}, {pa}, #8",
                            "add {pb}, {pb}, {stride}",
                            "subs {k}, {k}, #1",
                            "b.ne 4b",
                            "str d0, [{cp}]",
                            "str d1, [{cp}, #8]",
                            "str d2, [{cp}, #16]",
                            "str d3, [{cp}, #24]",
                            "str d4, [{cp}, #32]",
                            "str d5, [{cp}, #40]",
                            "str d6, [{cp}, #48]",
                            "str d7, [{cp}, #56]",
                            "add {cp}, {cp}, #64",
                            "add {bj}, {bj}, #64",
                            "subs {jc}, {jc}, #1",
                            "b.ne 3b",
                            "add {ap}, {ap}, {stride}",
                            "subs {ic}, {ic}, #1",
                            "b.ne 2b",
                            ap = inout(reg) a.add(kk) => _,
                            bk = in(reg) b.add(kk * n),
                            cp = inout(reg) c => _,
                            ic = inout(reg) n => _,
                            nb8 = in(reg) n / 8,
                            stride = in(reg) stride,
                            t = in(reg) t,
                            bj = out(reg) _, jc = out(reg) _, pa = out(reg) _, pb = out(reg) _,
                            k = out(reg) _,
                            out("v0") _, out("v1") _, out("v2") _, out("v3") _,
                            out("v4") _, out("v5") _, out("v6") _, out("v7") _,
                            out("v16") _, out("v17") _, out("v18") _, out("v19") _,
                            out("v20") _, out("v21") _, out("v22") _, out("v23") _,
                            out("v24") _,
                            options(nostack),
                        );
                    }
                    continue;
                }
                let _ = asm;
                // SAFETY: the same index ranges as the asm.
                unsafe {
                    for i in 0..n {
                        for j in (0..n).step_by(8) {
                            let mut acc = [0.0f64; 8];
                            for (q, v) in acc.iter_mut().enumerate() {
                                *v = *c.add(i * n + j + q);
                            }
                            for k in kk..kk + t {
                                let x = *a.add(i * n + k);
                                for (q, v) in acc.iter_mut().enumerate() {
                                    *v += x * *b.add(k * n + j + q);
                                }
                            }
                            for (q, v) in acc.iter().enumerate() {
                                *c.add(i * n + j + q) = *v;
                            }
                        }
                    }
                }
            }
        }
        black_box(self.c.slice_mut());
    }
}

// ---------------------------------------------------------------- stencil

/// 5-point stencil on an N×N grid into a second grid:
/// out = (c + w + e + n + s) · 0.2 over the (N−2)² interior points.
/// Working set 16·N².
pub struct Stencil {
    pub n: usize,
    inp: Lines,
    out: Lines,
}

impl Stencil {
    pub fn for_bytes(ws: u64) -> Self {
        let n = ((ws as f64 / 16.0).sqrt() as usize).max(3);
        Stencil {
            n,
            inp: Lines::new(n * n, 1.0),
            out: Lines::new(n * n, 0.0),
        }
    }
    pub fn bytes(&self) -> u64 {
        16 * (self.n * self.n) as u64
    }
    pub fn shape(&self) -> String {
        format!("N={}", self.n)
    }
    pub fn counts(&self, asm: bool, passes: u64) -> (Counts, Counts) {
        let inner = (self.n as u64 - 2).pow(2);
        let rows = self.n as u64 - 2;
        let c = if asm && cfg!(target_arch = "aarch64") {
            // Point: 5 loads, 4 adds, 1 mul, 1 store, 2 pointer adds,
            // subs/b.ne. Row: mov + 2 adds, subs/b.ne. Pass: 4 adds + mov,
            // subs/b.ne.
            counts(&[
                (LOAD, 5 * inner * passes),
                (ADD_F, 4 * inner * passes),
                (MUL_F, inner * passes),
                (STORE, inner * passes),
                (ADD_I, (2 * inner + 3 * rows + 5) * passes),
                (BRANCH, (inner + rows + 1) * passes),
            ])
        } else if asm {
            // Point: 5 loads, 4 adds, 1 mul, 1 store, 2 pointer adds, dec/jnz.
            // Row: mov + 2 adds, dec/jnz. Pass: 2 lea + mov, dec/jnz.
            counts(&[
                (LOAD, 5 * inner * passes),
                (ADD_F, 4 * inner * passes),
                (MUL_F, inner * passes),
                (STORE, inner * passes),
                (ADD_I, (2 * inner + 3 * rows + 4) * passes),
                (BRANCH, (inner + rows + 1) * passes),
            ])
        } else {
            counts(&[
                (LOAD, 5 * inner * passes),
                (ADD_F, 4 * inner * passes),
                (MUL_F, inner * passes),
                (STORE, inner * passes),
                (ADD_I, (inner + rows) * passes),
                (BRANCH, (inner + rows) * passes),
            ])
        };
        (c, Counts::new())
    }
    pub fn run(&mut self, asm: bool, passes: u64) {
        let n = self.n;
        let stride = (n * 8) as isize;
        let (inp, out) = (self.inp.ptr(), self.out.mut_ptr());
        let coef = black_box(0.2f64);
        #[cfg(target_arch = "x86_64")]
        if asm {
            // SAFETY: interior points only: every neighbour is inside the
            // n×n input; writes go to the interior of the output.
            unsafe {
                core::arch::asm!(
                    "2:",
                    "lea {p}, [{inp} + {s} + 8]",
                    "lea {q}, [{outp} + {s} + 8]",
                    "mov {ic}, {rows}",
                    "3:",
                    "mov {jc}, {cols}",
                    "4:",
                    "vmovsd {x}, qword ptr [{p} - 8]",
                    "vaddsd {x}, {x}, qword ptr [{p}]",
                    "vaddsd {x}, {x}, qword ptr [{p} + 8]",
                    "vaddsd {x}, {x}, qword ptr [{p} + {ns}]",
                    "vaddsd {x}, {x}, qword ptr [{p} + {s}]",
                    "vmulsd {x}, {x}, {coef}",
                    "vmovsd qword ptr [{q}], {x}",
                    "add {p}, 8",
                    "add {q}, 8",
                    "dec {jc}",
                    "jnz 4b",
                    "add {p}, 16",
                    "add {q}, 16",
                    "dec {ic}",
                    "jnz 3b",
                    "dec {passes}",
                    "jnz 2b",
                    inp = in(reg) inp, outp = in(reg) out,
                    s = in(reg) stride, ns = in(reg) -stride,
                    rows = in(reg) n - 2, cols = in(reg) n - 2,
                    p = out(reg) _, q = out(reg) _, ic = out(reg) _, jc = out(reg) _,
                    passes = inout(reg) passes => _,
                    coef = in(xmm_reg) coef, x = out(xmm_reg) _,
                    options(nostack),
                );
            }
            return;
        }
        #[cfg(target_arch = "aarch64")]
        if asm {
            // SAFETY: interior points only: every neighbour is inside the
            // n×n input; writes go to the interior of the output.
            unsafe {
                core::arch::asm!(
                    "2:",
                    "add {p}, {inp}, {s}",
                    "add {p}, {p}, #8",
                    "add {q}, {outp}, {s}",
                    "add {q}, {q}, #8",
                    "mov {ic}, {rows}",
                    "3:",
                    "mov {jc}, {cols}",
                    "4:",
                    "ldur {x:d}, [{p}, #-8]",
                    "ldr {y:d}, [{p}]",
                    "fadd {x:d}, {x:d}, {y:d}",
                    "ldr {y:d}, [{p}, #8]",
                    "fadd {x:d}, {x:d}, {y:d}",
                    "ldr {y:d}, [{p}, {ns}]",
                    "fadd {x:d}, {x:d}, {y:d}",
                    "ldr {y:d}, [{p}, {s}]",
                    "fadd {x:d}, {x:d}, {y:d}",
                    "fmul {x:d}, {x:d}, {coef:d}",
                    "str {x:d}, [{q}]",
                    "add {p}, {p}, #8",
                    "add {q}, {q}, #8",
                    "subs {jc}, {jc}, #1",
                    "b.ne 4b",
                    "add {p}, {p}, #16",
                    "add {q}, {q}, #16",
                    "subs {ic}, {ic}, #1",
                    "b.ne 3b",
                    "subs {passes}, {passes}, #1",
                    "b.ne 2b",
                    inp = in(reg) inp, outp = in(reg) out,
                    s = in(reg) stride, ns = in(reg) -stride,
                    rows = in(reg) n - 2, cols = in(reg) n - 2,
                    p = out(reg) _, q = out(reg) _, ic = out(reg) _, jc = out(reg) _,
                    passes = inout(reg) passes => _,
                    coef = in(vreg) coef, x = out(vreg) _, y = out(vreg) _,
                    options(nostack),
                );
            }
            return;
        }
        let _ = asm;
        for _ in 0..passes {
            // SAFETY: interior points, as above.
            unsafe {
                for i in 1..n - 1 {
                    for j in 1..n - 1 {
                        let at = i * n + j;
                        *out.add(at) = (*inp.add(at)
                            + *inp.add(at - 1)
                            + *inp.add(at + 1)
                            + *inp.add(at - n)
                            + *inp.add(at + n))
                            * coef;
                    }
                }
            }
        }
        black_box(self.out.slice_mut());
    }
}

/// One kernel instance behind one interface.
pub enum Kernel {
    Triad(Triad),
    StridedSum(StridedSum),
    Chase(Chase),
    Matmul(Matmul),
    Stencil(Stencil),
}

impl Kernel {
    pub fn build(name: &str, ws: u64) -> Self {
        match name {
            "triad" => Kernel::Triad(Triad::for_bytes(ws)),
            "strided_sum" => Kernel::StridedSum(StridedSum::for_bytes(ws)),
            "pointer_chase" => Kernel::Chase(Chase::for_bytes(ws, 0x9e37_79b9_7f4a_7c15 ^ ws)),
            "matmul_naive" => Kernel::Matmul(Matmul::for_bytes(ws, false)),
            "matmul_blocked" => Kernel::Matmul(Matmul::for_bytes(ws, true)),
            _ => Kernel::Stencil(Stencil::for_bytes(ws)),
        }
    }
    pub fn bytes(&self) -> u64 {
        match self {
            Kernel::Triad(k) => k.bytes(),
            Kernel::StridedSum(k) => k.bytes(),
            Kernel::Chase(k) => k.bytes(),
            Kernel::Matmul(k) => k.bytes(),
            Kernel::Stencil(k) => k.bytes(),
        }
    }
    pub fn shape(&self) -> String {
        match self {
            Kernel::Triad(k) => k.shape(),
            Kernel::StridedSum(k) => k.shape(),
            Kernel::Chase(k) => k.shape(),
            Kernel::Matmul(k) => k.shape(),
            Kernel::Stencil(k) => k.shape(),
        }
    }
    /// (all operations, dependency-chain operations) of `passes` sweeps.
    pub fn counts(&self, asm: bool, passes: u64) -> (Counts, Counts) {
        match self {
            Kernel::Triad(k) => k.counts(asm, passes),
            Kernel::StridedSum(k) => k.counts(asm, passes),
            Kernel::Chase(k) => k.counts(asm, passes),
            Kernel::Matmul(k) => k.counts(asm, passes),
            Kernel::Stencil(k) => k.counts(asm, passes),
        }
    }
    #[inline(never)]
    pub fn run(&mut self, asm: bool, passes: u64) {
        match self {
            Kernel::Triad(k) => k.run(asm, passes),
            Kernel::StridedSum(k) => k.run(asm, passes),
            Kernel::Chase(k) => k.run(asm, passes),
            Kernel::Matmul(k) => k.run(asm, passes),
            Kernel::Stencil(k) => k.run(asm, passes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The asm and portable forms compute the same thing.
    #[test]
    fn asm_matches_portable() {
        if !asm_available() {
            return;
        }
        for blocked in [false, true] {
            let mut x = Matmul::for_bytes(24 * 64 * 64, blocked);
            let mut y = Matmul::for_bytes(24 * 64 * 64, blocked);
            x.run(true, 2);
            y.run(false, 2);
            assert_eq!(x.c.slice_mut(), y.c.slice_mut());
            // 2 passes of n products of (1/1024)².
            let want = 2.0 * 64.0 / (1024.0 * 1024.0);
            assert!((x.c.slice_mut()[5] - want).abs() < 1e-15);
        }
        let mut s = StridedSum::for_bytes(64 * 64);
        s.run(true, 3);
        assert_eq!(s.acc, 3.0 * 64.0);
        let mut c = Chase::for_bytes(64 * 64, 7);
        let start = c.at;
        c.run(true, 1);
        assert_eq!(
            c.at, start,
            "one pass of a single cycle returns to the start"
        );
        let mut st = Stencil::for_bytes(16 * 10 * 10);
        st.run(true, 1);
        assert!((st.out.slice_mut()[11] - 1.0).abs() < 1e-12);
        assert_eq!(st.out.slice_mut()[0], 0.0);
        let mut t = Triad::for_bytes(24 * 64);
        t.run(true, 1);
        assert_eq!(t.a.slice_mut()[63], 7.0);
    }

    #[test]
    fn chase_is_one_cycle() {
        let c = Chase::for_bytes(64 * 1000, 3);
        let mut seen = vec![false; c.lines];
        let base = c.at;
        let mut at = base;
        for _ in 0..c.lines {
            let i = ((at - base) / 64) as usize;
            assert!(!seen[i]);
            seen[i] = true;
            at = c.ring[c.off + i * 8];
        }
        assert_eq!(at, base);
    }
}
