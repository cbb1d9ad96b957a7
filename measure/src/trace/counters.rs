//! What a workload shares with the sampler: its progress, a stop request, and
//! the instrumentation counters of its hot functions.
//!
//! Instrumentation levels are compile-time: every workload's hot functions
//! are generic over `const L: u32` and call [`Probe::count::<L>`], whose
//! `if L >= level` folds away. The level-0 instantiation therefore is the
//! uninstrumented code (no counter, no check), and level k is separately
//! compiled code with its counters — as with the paper's instrumented
//! binaries, whose code layout also differs. A runtime `u32` check would
//! leave a compare and branch in level 0 and make it instrumented too.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// Most counters any workload defines.
pub const MAX_COUNTERS: usize = 8;

/// Instrumentation levels 0..=MAX_LEVEL.
pub const MAX_LEVEL: u32 = 3;

/// Counters introduced at this level increment atomically (see [`Probe::count`]).
pub const ATOMIC_LEVEL: u32 = 3;

/// A value on its own cache lines (128 bytes: adjacent-line prefetch pairs
/// 64-byte lines), so the sampler's reads of one do not steal the others.
#[repr(align(128))]
#[derive(Default)]
pub struct Line<T>(pub T);

/// One instrumentation counter of a workload.
#[derive(Debug, Clone, Copy)]
pub struct CounterDef {
    /// Short name; the metric is `<workload>.<name>`.
    pub name: &'static str,
    /// The lowest level that counts it (levels are cumulative).
    pub level: u32,
    pub description: &'static str,
}

#[derive(Default)]
pub struct Probe {
    /// Work units done so far; the workload stores its running total.
    progress: Line<AtomicU64>,
    /// Set by the sampler when a signal asks the run to stop.
    stop: Line<AtomicBool>,
    /// Written only by the workload thread, read by the sampler.
    counts: Line<[AtomicU64; MAX_COUNTERS]>,
}

impl Probe {
    /// Count one event of counter `i`, which exists from level `level` up.
    /// A relaxed load and store, not an atomic read-modify-write: only the
    /// workload thread writes, and a plain `mov` pair is what an
    /// instrumenting compiler emits for a counter in memory. Atomics are
    /// never merged or removed by the compiler, so every increment executes.
    ///
    /// Counters of level [`ATOMIC_LEVEL`] and up are thread-safe instead: a
    /// `lock`-prefixed read-modify-write (`fetch_add`), as a shared metrics
    /// registry would use; it orders the core's memory operations and costs
    /// tens of cycles, which makes the top level the expensive one.
    #[inline(always)]
    pub fn count<const L: u32>(&self, level: u32, i: usize) {
        if L >= level {
            let c = &self.counts.0[i];
            if level >= ATOMIC_LEVEL {
                c.fetch_add(1, Relaxed);
            } else {
                c.store(c.load(Relaxed).wrapping_add(1), Relaxed);
            }
        }
    }

    /// Publish the workload's running total of work units.
    #[inline(always)]
    pub fn set_progress(&self, done: u64) {
        self.progress.0.store(done, Relaxed);
    }

    pub fn progress(&self) -> u64 {
        self.progress.0.load(Relaxed)
    }

    pub fn counter(&self, i: usize) -> u64 {
        self.counts.0[i].load(Relaxed)
    }

    /// Checked by workloads once per work unit.
    #[inline(always)]
    pub fn stopped(&self) -> bool {
        self.stop.0.load(Relaxed)
    }

    pub fn request_stop(&self) {
        self.stop.0.store(true, Relaxed);
    }

    /// Sum of all counters: the increments executed.
    pub fn total(&self) -> u64 {
        (0..MAX_COUNTERS).map(|i| self.counter(i)).sum()
    }
}

/// A small deterministic generator (SplitMix64) for workload inputs and the
/// run schedule: the same seed gives every run the same work.
#[derive(Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, n) (n > 0), by multiply-shift.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bump<const L: u32>(p: &Probe) {
        p.count::<L>(1, 0);
        p.count::<L>(2, 1);
        p.count::<L>(3, 2);
    }

    #[test]
    fn levels_are_cumulative_and_level_0_counts_nothing() {
        let p = Probe::default();
        bump::<0>(&p);
        assert_eq!(p.total(), 0);
        bump::<2>(&p);
        assert_eq!((p.counter(0), p.counter(1), p.counter(2)), (1, 1, 0));
        bump::<3>(&p);
        assert_eq!((p.counter(0), p.counter(1), p.counter(2)), (2, 2, 1));
        assert_eq!(p.total(), 5);
    }

    #[test]
    fn rng_below_stays_in_range_and_is_deterministic() {
        let mut a = Rng(7);
        let mut b = Rng(7);
        for _ in 0..1000 {
            let x = a.below(10);
            assert!(x < 10);
            assert_eq!(x, b.below(10));
        }
        let mut r = Rng(1);
        let mean: f64 = (0..10_000).map(|_| r.unit()).sum::<f64>() / 10_000.0;
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
    }
}
