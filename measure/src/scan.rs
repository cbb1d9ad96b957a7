//! The measuring loops, generic over the clock read and the reference read
//! so that each pair is compiled into its own tight loop (no dynamic dispatch
//! between back-to-back reads).

use std::hint::black_box;

use tickbook_analysis::format::ClockScan;

use super::{affinity, signals};

/// Run-length encoder for a sequence of clock values: keeps every change as
/// a signed step (in the clock's native unit) and how many unchanged reads
/// preceded it. Values are u64; a step is their wrapping difference read as
/// i64, so a clock going backwards gives a negative step.
pub struct StepRecorder {
    prev: u64,
    unchanged: u64,
    reads: u64,
    pub steps: Vec<i64>,
    pub reads_between: Vec<u64>,
}

impl StepRecorder {
    /// Start from the first value read. Capacity is reserved up front so the
    /// scan never allocates (an allocation would show up as a gap).
    pub fn new(first: u64, capacity: usize) -> Self {
        StepRecorder {
            prev: first,
            unchanged: 0,
            reads: 1,
            steps: Vec::with_capacity(capacity),
            reads_between: Vec::with_capacity(capacity),
        }
    }

    /// Record one more read; true when the value changed.
    #[inline(always)]
    pub fn push(&mut self, v: u64) -> bool {
        self.reads += 1;
        if v == self.prev {
            self.unchanged += 1;
            false
        } else {
            self.steps.push(v.wrapping_sub(self.prev) as i64);
            self.reads_between.push(self.unchanged);
            self.unchanged = 0;
            self.prev = v;
            true
        }
    }

    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn reads(&self) -> u64 {
        self.reads
    }
}

pub struct ScanLimits {
    pub max_steps: usize,
    pub max_duration_ns: f64,
    /// The duration limit stops the scan only once this many changes were
    /// seen (a preempted thread sees several coarse ticks as one step), up
    /// to `hard_max_duration_ns`.
    pub min_steps: usize,
    pub hard_max_duration_ns: f64,
    /// Reads between looks at the reference clock and the stop flag.
    pub check_every: u32,
}

/// Read `clock` back to back until `max_steps` changes were seen, or
/// `max_duration_ns` passed on the reference with at least `min_steps`
/// changes, or `hard_max_duration_ns` passed. Returns the scan and whether a
/// signal stopped it.
#[inline(never)]
pub fn scan<C: Fn() -> u64, R: Fn() -> u64>(
    clock: C,
    reference: R,
    ref_ns_per_unit: f64,
    lim: &ScanLimits,
) -> (ClockScan, bool) {
    let max_ref = (lim.max_duration_ns / ref_ns_per_unit).max(1.0) as u64;
    let hard_ref = (lim.hard_max_duration_ns / ref_ns_per_unit).max(1.0) as u64;
    let r0 = reference();
    let mut rec = StepRecorder::new(clock(), lim.max_steps);
    let stopped_by = 'outer: loop {
        for _ in 0..lim.check_every {
            if rec.push(clock()) && rec.len() >= lim.max_steps {
                break 'outer "max_steps";
            }
        }
        let elapsed = reference().wrapping_sub(r0);
        if elapsed >= hard_ref || (elapsed >= max_ref && rec.len() >= lim.min_steps) {
            break "max_duration";
        }
        if signals::stop_requested().is_some() {
            break "interrupted";
        }
    };
    let r1 = reference();
    let scan = ClockScan {
        reads: rec.reads(),
        duration_ns: r1.wrapping_sub(r0) as f64 * ref_ns_per_unit,
        steps: rec.steps,
        reads_between: rec.reads_between,
        stopped_by: Some(stopped_by.to_string()),
    };
    (scan, stopped_by == "interrupted")
}

pub struct ReadCostRaw {
    pub samples_ns: Vec<f64>,
    /// Batches dropped because the reference went backwards.
    pub dropped: u64,
    pub interrupted: bool,
}

/// `batches` batches of `batch` back-to-back reads, each batch bracketed by
/// two reference reads. One sample per batch, ns per read, rounded to 1e-4 ns
/// (far below one reference tick over a batch, so the raw ticks can be
/// recovered).
#[inline(never)]
pub fn read_cost<C: Fn() -> u64, R: Fn() -> u64>(
    clock: C,
    reference: R,
    ref_ns_per_unit: f64,
    batch: u32,
    batches: usize,
    warmup_reads: u32,
    mut on_progress: impl FnMut(usize),
) -> ReadCostRaw {
    for _ in 0..warmup_reads {
        black_box(clock());
    }
    let mut out = ReadCostRaw {
        samples_ns: Vec::with_capacity(batches),
        dropped: 0,
        interrupted: false,
    };
    for i in 0..batches {
        let r0 = reference();
        for _ in 0..batch {
            black_box(clock());
        }
        let r1 = reference();
        let d = r1.wrapping_sub(r0) as i64;
        if d < 0 {
            out.dropped += 1;
        } else {
            let ns = d as f64 * ref_ns_per_unit / f64::from(batch);
            out.samples_ns.push((ns * 1e4).round() / 1e4);
        }
        // Progress and the stop flag between batches, outside the timed region.
        if i % 256 == 255 {
            on_progress(i + 1);
            if signals::stop_requested().is_some() {
                out.interrupted = true;
                break;
            }
        }
    }
    out
}

pub struct CrossCpuRaw {
    pub cpus: [usize; 2],
    pub migrations: usize,
    /// Reads after the move minus reads before, native unit.
    pub steps: Vec<i64>,
    /// Moves after which sched_getcpu did not report the target CPU.
    pub not_moved: u64,
}

/// Read the clock, move the thread to the other CPU, read again; repeat,
/// alternating. A negative step means the clock on the new CPU was behind by
/// more than the move took.
#[inline(never)]
pub fn cross_cpu<C: Fn() -> u64>(
    clock: C,
    cpus: [usize; 2],
    migrations: usize,
) -> Result<CrossCpuRaw, String> {
    let [a, b] = cpus;
    affinity::set(&affinity::CpuSet::single(a)).map_err(|e| format!("sched_setaffinity: {e}"))?;
    let mut out = CrossCpuRaw {
        cpus,
        migrations: 0,
        steps: Vec::with_capacity(migrations),
        not_moved: 0,
    };
    for i in 0..migrations {
        let target = if i % 2 == 0 { b } else { a };
        let set = affinity::CpuSet::single(target);
        let v0 = clock();
        affinity::set(&set).map_err(|e| format!("sched_setaffinity: {e}"))?;
        let v1 = clock();
        if affinity::current_cpu() != Some(target) {
            out.not_moved += 1;
        }
        out.steps.push(v1.wrapping_sub(v0) as i64);
        out.migrations += 1;
        if signals::stop_requested().is_some() {
            break;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn run_length_encoding_is_lossless() {
        let values = [10u64, 10, 10, 14, 14, 18, 17, 17, 17, 17, 30, 30];
        let mut r = StepRecorder::new(values[0], 4);
        for &v in &values[1..] {
            r.push(v);
        }
        assert_eq!(r.steps, vec![4, 4, -1, 13]);
        assert_eq!(r.reads_between, vec![2, 1, 0, 3]);
        assert_eq!(r.reads(), values.len() as u64);
        // Decode and compare.
        let mut decoded = vec![values[0]];
        for (s, n) in r.steps.iter().zip(&r.reads_between) {
            let last = *decoded.last().unwrap();
            decoded.extend(std::iter::repeat_n(last, *n as usize));
            decoded.push(last.wrapping_add(*s as u64));
        }
        let trailing = r.reads() as usize - decoded.len();
        let last = *decoded.last().unwrap();
        decoded.extend(std::iter::repeat_n(last, trailing));
        assert_eq!(decoded, values);
    }

    #[test]
    fn wrapping_and_large_steps() {
        let mut r = StepRecorder::new(u64::MAX, 2);
        r.push(1); // wrapped forward by 2
        r.push(0); // back by 1
        assert_eq!(r.steps, vec![2, -1]);
    }

    #[test]
    fn scan_stops_by_steps_or_duration() {
        let t = Cell::new(0u64);
        let clock = || {
            t.set(t.get() + 1);
            t.get() / 3
        };
        let lim = ScanLimits {
            max_steps: 10,
            max_duration_ns: 1e18,
            min_steps: 0,
            hard_max_duration_ns: 1e18,
            check_every: 4,
        };
        let (s, int) = scan(clock, || t.get(), 1.0, &lim);
        assert!(!int);
        assert_eq!(s.stopped_by.as_deref(), Some("max_steps"));
        assert_eq!(s.steps, vec![1; 10]);
        assert_eq!(s.steps.len(), s.reads_between.len());
        let frozen = || 7u64;
        let lim = ScanLimits {
            max_steps: 10,
            max_duration_ns: 100.0,
            min_steps: 0,
            hard_max_duration_ns: 1e18,
            check_every: 4,
        };
        let (s, _) = scan(frozen, clock, 1.0, &lim);
        assert_eq!(s.stopped_by.as_deref(), Some("max_duration"));
        assert!(s.steps.is_empty() && s.reads > 1);
    }

    #[test]
    fn read_cost_samples() {
        let t = Cell::new(0u64);
        let clock = || {
            t.set(t.get() + 2);
            t.get()
        };
        let r = read_cost(clock, || t.get(), 0.5, 16, 10, 0, |_| {});
        assert_eq!(r.samples_ns, vec![1.0; 10]);
        assert_eq!(r.dropped, 0);
    }
}
