//! The workloads: SciMark2's kernels (FFT, SOR, LU, sparse matrix multiply,
//! Monte Carlo) and a stream triad, sized by a working set in bytes. Each
//! declares its arrays first (so they can be allocated and placed before any
//! is written) and then runs on them.

use std::hint::black_box;

pub const ALL: [&str; 6] = ["fft", "sor", "lu", "sparse_matmul", "monte_carlo", "stream"];

/// What a workload needs: its arrays in bytes (allocation order), and how
/// much work one measurement does.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub arrays: Vec<usize>,
    /// Repetitions of the kernel per measurement.
    pub reps: u32,
    /// The problem size in the workload's own terms.
    pub describe: String,
}

fn sqrt_floor(x: usize) -> usize {
    let mut r = (x as f64).sqrt() as usize;
    while r * r > x {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= x {
        r += 1;
    }
    r
}

/// The arrays and repetitions for `workload` at `ws` bytes. The repetition
/// counts are fixed functions of the size (never calibrated per execution,
/// so every execution of a configuration does the same work), chosen for a
/// measurement of a few ms here.
pub fn shape(workload: &str, ws: usize) -> Result<Shape, String> {
    let f = 8usize; // f64
    Ok(match workload {
        "fft" => {
            // n complex doubles (16 B each), n a power of two.
            let mut n = 1usize;
            while n * 2 * 16 <= ws {
                n *= 2;
            }
            Shape {
                arrays: vec![n * 16],
                reps: 1,
                describe: format!(
                    "n = {n} complex points; a measurement is a forward and an inverse transform"
                ),
            }
        }
        "sor" => {
            let n = sqrt_floor(ws / f).max(3);
            Shape {
                arrays: vec![n * n * f],
                reps: 10,
                describe: format!("{n} × {n} grid, ω = 1.25; a measurement is 10 sweeps"),
            }
        }
        "lu" => {
            // A and its factorization LU (n × n each) and the pivots.
            let mut n = sqrt_floor(ws / (2 * f)).max(2);
            while n > 2 && 2 * n * n * f + n * 8 > ws {
                n -= 1;
            }
            Shape {
                arrays: vec![n * n * f, n * n * f, n * 8],
                reps: 1,
                describe: format!(
                    "{n} × {n}; a measurement copies A and factors it with partial pivoting"
                ),
            }
        }
        "sparse_matmul" => {
            // CSR with 5 entries per row: val (8 B) + col (4 B) per entry,
            // row pointers (4 B), x and y (8 B each) per row.
            let rows = (ws / 84).max(5);
            let nz = rows * 5;
            let reps = (4_000_000 / nz).max(1) as u32;
            Shape {
                arrays: vec![nz * 8, nz * 4, (rows + 1) * 4, rows * 8, rows * 8],
                reps,
                describe: format!("{rows} rows, {nz} non-zeros (SciMark's column pattern); a measurement is {reps} products y = A·x"),
            }
        }
        "monte_carlo" => {
            let n = (ws / f).max(2);
            Shape {
                arrays: vec![n * f],
                reps: 1,
                describe: format!("integral of √(1−x²) over a table of {n} values read at 1 000 000 random points (π/4); a measurement is one estimate"),
            }
        }
        "stream" => {
            let n = (ws / (3 * f)).max(1);
            let reps = ((64usize << 20) / (3 * n * f)).max(1) as u32;
            Shape {
                arrays: vec![n * f, n * f, n * f],
                reps,
                describe: format!(
                    "triad a = b + 3·c over {n} doubles per array; a measurement is {reps} passes"
                ),
            }
        }
        other => return Err(format!("unknown workload {other:?}")),
    })
}

/// The arrays as typed slices, ready to run. Built only after the arrays'
/// pages are placed and zero-filled.
pub enum Work<'a> {
    Fft(&'a mut [f64]),
    Sor(&'a mut [f64], usize),
    Lu {
        a: &'a mut [f64],
        lu: &'a mut [f64],
        pivot: &'a mut [u64],
        n: usize,
    },
    Sparse {
        val: &'a mut [f64],
        col: &'a mut [u32],
        row: &'a mut [u32],
        x: &'a mut [f64],
        y: &'a mut [f64],
    },
    MonteCarlo(&'a mut [f64], u64),
    Stream(&'a mut [f64], &'a mut [f64], &'a mut [f64]),
}

/// View byte slices (64-byte aligned, zero-filled) as the workload's arrays
/// and fill them with their initial data.
pub fn build<'a>(workload: &str, arrays: Vec<&'a mut [u8]>) -> Result<Work<'a>, String> {
    fn cast<T: Copy>(b: &mut [u8]) -> Result<&mut [T], String> {
        // SAFETY: the target types (f64, u32, u64) are valid for any bit
        // pattern and align_to_mut puts only whole, aligned Ts in the middle.
        let (head, mid, _) = unsafe { b.align_to_mut::<T>() };
        if head.is_empty() {
            Ok(mid)
        } else {
            Err("array not aligned".to_string())
        }
    }
    let mut it = arrays.into_iter();
    let mut next = || it.next().ok_or_else(|| "missing array".to_string());
    let mut rng = Rng(12345);
    Ok(match workload {
        "fft" => {
            let d: &mut [f64] = cast(next()?)?;
            d.iter_mut().for_each(|v| *v = rng.f64());
            Work::Fft(d)
        }
        "sor" => {
            let g: &mut [f64] = cast(next()?)?;
            let n = sqrt_floor(g.len());
            g.iter_mut().for_each(|v| *v = rng.f64());
            Work::Sor(g, n)
        }
        "lu" => {
            let a: &mut [f64] = cast(next()?)?;
            let lu: &mut [f64] = cast(next()?)?;
            let pivot: &mut [u64] = cast(next()?)?;
            let n = pivot.len();
            a.iter_mut().for_each(|v| *v = rng.f64());
            Work::Lu { a, lu, pivot, n }
        }
        "sparse_matmul" => {
            let val: &mut [f64] = cast(next()?)?;
            let col: &mut [u32] = cast(next()?)?;
            let row: &mut [u32] = cast(next()?)?;
            let x: &mut [f64] = cast(next()?)?;
            let y: &mut [f64] = cast(next()?)?;
            let rows = x.len();
            let per_row = val.len() / rows;
            // SciMark2's pattern: row r has its entries `step` columns apart,
            // step = r / per_row (at least 1).
            for r in 0..rows {
                row[r] = (r * per_row) as u32;
                let step = (r / per_row).max(1);
                for i in 0..per_row {
                    col[r * per_row + i] = ((i * step) % rows) as u32;
                    val[r * per_row + i] = rng.f64();
                }
            }
            row[rows] = (rows * per_row) as u32;
            x.iter_mut().for_each(|v| *v = rng.f64());
            Work::Sparse {
                val,
                col,
                row,
                x,
                y,
            }
        }
        "monte_carlo" => {
            let t: &mut [f64] = cast(next()?)?;
            let n = t.len();
            for (i, v) in t.iter_mut().enumerate() {
                let x = (i as f64 + 0.5) / n as f64;
                *v = (1.0 - x * x).sqrt();
            }
            Work::MonteCarlo(t, 1_000_000)
        }
        "stream" => {
            let a: &mut [f64] = cast(next()?)?;
            let b: &mut [f64] = cast(next()?)?;
            let c: &mut [f64] = cast(next()?)?;
            b.iter_mut().for_each(|v| *v = rng.f64());
            c.iter_mut().for_each(|v| *v = rng.f64());
            Work::Stream(a, b, c)
        }
        other => return Err(format!("unknown workload {other:?}")),
    })
}

impl Work<'_> {
    /// One measurement's worth of work (`reps` kernels); returns a value
    /// derived from the results so the work cannot be optimized away.
    pub fn run(&mut self, reps: u32) -> f64 {
        let mut acc = 0.0;
        for _ in 0..reps {
            acc += match self {
                Work::Fft(d) => {
                    fft_transform(d, -1);
                    fft_transform(d, 1);
                    let n = (d.len() / 2) as f64;
                    d.iter_mut().for_each(|v| *v /= n);
                    d[0]
                }
                Work::Sor(g, n) => sor(g, *n, 1.25, 1),
                Work::Lu { a, lu, pivot, n } => {
                    lu.copy_from_slice(a);
                    lu_factor(lu, pivot, *n)
                }
                Work::Sparse {
                    val,
                    col,
                    row,
                    x,
                    y,
                } => {
                    sparse_matmul(val, col, row, x, y);
                    y[y.len() / 2]
                }
                Work::MonteCarlo(t, samples) => monte_carlo(t, *samples),
                Work::Stream(a, b, c) => {
                    triad(a, b, c, 3.0);
                    a[a.len() / 2]
                }
            };
        }
        black_box(acc)
    }
}

/// SciMark2's in-place radix-2 FFT (`FFT.transform_internal`) over
/// interleaved (re, im) pairs; `direction` −1 forward, +1 inverse (unscaled).
fn fft_transform(data: &mut [f64], direction: i32) {
    let n = data.len() / 2;
    if n <= 1 {
        return;
    }
    let logn = n.trailing_zeros();
    bitreverse(data);
    let mut dual = 1usize;
    for _ in 0..logn {
        let mut w_real = 1.0f64;
        let mut w_imag = 0.0f64;
        let theta = 2.0 * f64::from(direction) * std::f64::consts::PI / (2.0 * dual as f64);
        let s = theta.sin();
        let t = (theta / 2.0).sin();
        let s2 = 2.0 * t * t;
        let mut b = 0;
        while b < n {
            let i = 2 * b;
            let j = 2 * (b + dual);
            let (wr, wi) = (data[j], data[j + 1]);
            data[j] = data[i] - wr;
            data[j + 1] = data[i + 1] - wi;
            data[i] += wr;
            data[i + 1] += wi;
            b += 2 * dual;
        }
        for a in 1..dual {
            let tr = w_real - s * w_imag - s2 * w_real;
            let ti = w_imag + s * w_real - s2 * w_imag;
            w_real = tr;
            w_imag = ti;
            let mut b = 0;
            while b < n {
                let i = 2 * (b + a);
                let j = 2 * (b + a + dual);
                let (zr, zi) = (data[j], data[j + 1]);
                let wr = w_real * zr - w_imag * zi;
                let wi = w_real * zi + w_imag * zr;
                data[j] = data[i] - wr;
                data[j + 1] = data[i + 1] - wi;
                data[i] += wr;
                data[i + 1] += wi;
                b += 2 * dual;
            }
        }
        dual *= 2;
    }
}

fn bitreverse(data: &mut [f64]) {
    let n = data.len() / 2;
    let mut j = 0usize;
    for i in 0..n.saturating_sub(1) {
        if i < j {
            data.swap(2 * i, 2 * j);
            data.swap(2 * i + 1, 2 * j + 1);
        }
        let mut k = n >> 1;
        while k <= j {
            j -= k;
            k >>= 1;
        }
        j += k;
    }
}

/// SciMark2's successive over-relaxation on an n × n grid (row-major).
fn sor(g: &mut [f64], n: usize, omega: f64, sweeps: u32) -> f64 {
    let c1 = omega * 0.25;
    let c2 = 1.0 - omega;
    for _ in 0..sweeps {
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                let k = i * n + j;
                g[k] = c1 * (g[k - n] + g[k + n] + g[k - 1] + g[k + 1]) + c2 * g[k];
            }
        }
    }
    g[n * n / 2]
}

/// SciMark2's LU factorization with partial pivoting (row-major, in place).
fn lu_factor(a: &mut [f64], pivot: &mut [u64], n: usize) -> f64 {
    for j in 0..n {
        let mut jp = j;
        let mut t = a[j * n + j].abs();
        for i in j + 1..n {
            let ab = a[i * n + j].abs();
            if ab > t {
                jp = i;
                t = ab;
            }
        }
        pivot[j] = jp as u64;
        if a[jp * n + j] == 0.0 {
            return f64::NAN;
        }
        if jp != j {
            for k in 0..n {
                a.swap(j * n + k, jp * n + k);
            }
        }
        if j < n - 1 {
            let recp = 1.0 / a[j * n + j];
            for k in j + 1..n {
                a[k * n + j] *= recp;
            }
        }
        if j < n - 1 {
            let (top, bottom) = a.split_at_mut((j + 1) * n);
            let pivot_row = &top[j * n..j * n + n];
            for ii in 0..n - j - 1 {
                let row = &mut bottom[ii * n..ii * n + n];
                let aiij = row[j];
                for jj in j + 1..n {
                    row[jj] -= aiij * pivot_row[jj];
                }
            }
        }
    }
    a[n * n - 1]
}

fn sparse_matmul(val: &[f64], col: &[u32], row: &[u32], x: &[f64], y: &mut [f64]) {
    for r in 0..y.len() {
        let mut sum = 0.0;
        for i in row[r] as usize..row[r + 1] as usize {
            sum += x[col[i] as usize] * val[i];
        }
        y[r] = sum;
    }
}

/// Monte Carlo integration of the tabulated quarter circle: random reads
/// over the whole table (SciMark's kernel computes √(1−x²) instead; the
/// table gives the kernel a working set).
fn monte_carlo(table: &[f64], samples: u64) -> f64 {
    let mut rng = Rng(113);
    let n = table.len() as u64;
    let mut sum = 0.0;
    for _ in 0..samples {
        let i = rng.next() % n;
        sum += table[i as usize];
    }
    4.0 * sum / samples as f64
}

fn triad(a: &mut [f64], b: &[f64], c: &[f64], s: f64) {
    for ((a, b), c) in a.iter_mut().zip(b).zip(c) {
        *a = b + s * c;
    }
}

/// splitmix64: small, fast, good enough for data and schedules.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn f64(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_small(w: &str, ws: usize) -> f64 {
        let s = shape(w, ws).unwrap();
        let mut bufs: Vec<Vec<u64>> = s.arrays.iter().map(|b| vec![0u64; b.div_ceil(8)]).collect();
        let views: Vec<&mut [u8]> = bufs
            .iter_mut()
            .zip(&s.arrays)
            .map(|(v, &b)| {
                // SAFETY: a u64 buffer of ≥ b bytes viewed as bytes.
                unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), b) }
            })
            .collect();
        let mut work = build(w, views).unwrap();
        work.run(1)
    }

    #[test]
    fn every_workload_runs_and_sizes_fit() {
        for w in ALL {
            let ws = 64 << 10;
            let s = shape(w, ws).unwrap();
            let total: usize = s.arrays.iter().sum();
            assert!(total <= ws && total * 10 >= ws * 7, "{w}: {total} of {ws}");
            assert!(run_small(w, ws).is_finite(), "{w}");
        }
    }

    #[test]
    fn fft_round_trip_and_monte_carlo_estimate() {
        let mut d: Vec<f64> = (0..64).map(|i| (i as f64).sin()).collect();
        let orig = d.clone();
        fft_transform(&mut d, -1);
        fft_transform(&mut d, 1);
        for (a, b) in d.iter().zip(&orig) {
            assert!((a / 32.0 - b).abs() < 1e-12);
        }
        let t: Vec<f64> = (0..10000)
            .map(|i| {
                let x = (i as f64 + 0.5) / 10000.0;
                (1.0 - x * x).sqrt()
            })
            .collect();
        assert!((monte_carlo(&t, 200_000) - std::f64::consts::PI).abs() < 0.02);
    }
}
