//! The paper's impact factor statistic (Hocko & Kalibera): the mean over
//! random pairs of SD(g measurements, each from a different execution) /
//! SD(g measurements of one execution), on the data, a bootstrap
//! replicate's executions or a shuffle; and its mean with no execution
//! effect for normal data. Its inner loop was tuned draw by draw (natively
//! and in WebAssembly); the comments say what each shape spares.

use super::starts;
use crate::stats::bootstrap::{index, index_u32};
use statrs::function::gamma::ln_gamma;

/// A series' measurements, executions one after another, as
/// [`paper_statistic`] reads them.
pub(super) trait Groups {
    /// The measurement at position `at`.
    fn get(&mut self, at: usize, r: &mut impl rand::Rng) -> f64;
}

impl Groups for &[f64] {
    fn get(&mut self, at: usize, _: &mut impl rand::Rng) -> f64 {
        self[at]
    }
}

/// Scratch space for [`paper_statistic`].
pub(super) struct Scratch {
    /// Each execution's length and start in the series (a shuffle keeps
    /// them).
    lens: Vec<u32>,
    starts: Vec<usize>,
    /// The group in which each execution was last seen among the slots (a
    /// count, so nothing is reset per group).
    seen: Vec<u64>,
    group: u64,
    /// The slots of the group across executions, looked up as the group is
    /// chosen (once, when every slot is in every group): three lookups per
    /// draw were a tenth of the time in WebAssembly.
    slots: Vec<Slot>,
    /// Identity permutation of measurement indices, for partial shuffles.
    m: Vec<u32>,
    swaps: Vec<u32>,
    /// The measurements drawn for the group being built.
    ks: Vec<u32>,
    /// Each pair's n·Σ(x − x̄)² across and within.
    spreads: Vec<(f64, f64)>,
}

/// A slot of the group across executions, read once per group: the
/// execution's length, start and repeats were three lookups per draw.
#[derive(Clone, Copy, Default)]
struct Slot {
    e: usize,
    start: usize,
    len: u32,
    /// An earlier slot holds the same execution.
    repeat: bool,
}

impl Scratch {
    pub(super) fn new(executions: &[Vec<f64>]) -> Self {
        let sizes: Vec<usize> = executions.iter().map(Vec::len).collect();
        let longest = sizes.iter().copied().max().unwrap_or(0);
        Scratch {
            // `group_size` refuses an execution of 2³² or more.
            lens: sizes
                .iter()
                .map(|&n| u32::try_from(n).unwrap_or(u32::MAX))
                .collect(),
            starts: starts(&sizes),
            seen: vec![0; executions.len()],
            group: 0,
            slots: Vec::new(),
            m: (0..u32::try_from(longest).unwrap_or(u32::MAX)).collect(),
            swaps: Vec::new(),
            ks: Vec::new(),
            spreads: Vec::new(),
        }
    }
}

/// n·Σ(x − x̄)² of a group of n, built one value at a time as n·Σd² − (Σd)²
/// over the values' deviations d from the first: no division at all
/// (`Welford::push` divides per value, and those divisions were most of
/// the statistic's time), no buffer, and the shift keeps the sums free of
/// cancellation. Equal values give exactly 0.
#[derive(Clone, Copy, Default)]
struct GroupSpread {
    c: f64,
    s1: f64,
    s2: f64,
}

impl GroupSpread {
    /// Adds value `i` of the group (the first sets the shift).
    #[inline(always)]
    fn push(&mut self, i: usize, x: f64) {
        if i == 0 {
            self.c = x;
        }
        let d = x - self.c;
        self.s1 += d;
        self.s2 += d * d;
    }

    #[inline(always)]
    fn scaled(&self, n: usize) -> f64 {
        // A comparison, not `f64::max`: WebAssembly's `f64.max` treats NaN
        // otherwise, so `max` is a call there.
        let v = n as f64 * self.s2 - self.s1 * self.s1;
        if v > 0.0 {
            v
        } else {
            0.0
        }
    }
}

/// The paper's statistic on the executions in `slots` (indices into
/// `executions`, repeats allowed; `order` is the same list unshuffled): the
/// mean over `pairs` pairs of SD(g measurements from g distinct slots) /
/// SD(g distinct measurements of one slot's execution). Two slots of one
/// execution (a bootstrap replicate's repeats) give two different
/// measurements of it, never one twice: copies would add ties and shrink
/// the SD. Needs 2 ≤ g ≤ slots and g ≤ every execution's length. `None`
/// when no within group varies.
pub(super) fn paper_statistic<R: rand::Rng + Clone>(
    executions: &mut impl Groups,
    slots: &mut [usize],
    order: &[usize],
    g: usize,
    pairs: usize,
    stream: &mut R,
    s: &mut Scratch,
) -> Option<f64> {
    // The generator's state in a local of its own: the scratch writes
    // below could alias a `&mut` one, which would send it back to memory
    // at every draw.
    let mut local = stream.clone();
    let r = &mut local;
    // With g slots of g, every slot is in the group, and a group's order
    // does not change its SD: no slot shuffle, one group of slots.
    let every_slot = g == slots.len();
    s.ks.resize(g, 0);
    s.swaps.resize(g, 0);
    s.slots.resize(g, Slot::default());
    s.spreads.resize(pairs, (0.0, 0.0));
    // Slices and a local count: kept in registers, where the vectors'
    // lengths and pointers were read back from memory after every write.
    let (lens, starts, seen, m) = (&s.lens[..], &s.starts[..], &mut s.seen[..], &mut s.m[..]);
    let (group, swaps, ks) = (&mut s.slots[..g], &mut s.swaps[..g], &mut s.ks[..g]);
    let mut count = s.group;
    // Slot i's execution e, and whether an earlier slot of the group holds
    // it.
    let mut slot = |e: usize, count: u64| {
        let repeat = seen[e] == count;
        seen[e] = count;
        Slot {
            e,
            start: starts[e],
            len: lens[e],
            repeat,
        }
    };
    if every_slot {
        count += 1;
        for (sl, &e) in group.iter_mut().zip(slots.iter()) {
            *sl = slot(e, count);
        }
    }
    for spread in s.spreads.iter_mut() {
        // g distinct slots: a partial Fisher–Yates shuffle.
        if !every_slot {
            count += 1;
            for (i, sl) in group.iter_mut().enumerate() {
                let j = i + index(r, slots.len() - i);
                slots.swap(i, j);
                *sl = slot(slots[i], count);
            }
        }
        let mut across = GroupSpread::default();
        for i in 0..g {
            let Slot {
                e,
                start,
                len,
                repeat,
            } = group[i];
            let mut k = index_u32(r, len);
            if repeat {
                while group[..i]
                    .iter()
                    .zip(&ks[..i])
                    .any(|(f, &j)| f.e == e && j == k)
                {
                    k = index_u32(r, len);
                }
            }
            ks[i] = k;
            across.push(i, executions.get(start + k as usize, r));
        }
        let across = across.scaled(g);
        // g distinct measurements of one execution: drawn and redrawn on a
        // repeat when g is small against the execution (a repeat is rare);
        // else the identity permutation of indices, shuffled in its first
        // g places and put back after (O(g), not O(measurements)).
        let e = order[index(r, order.len())];
        let (start, len) = (starts[e], lens[e]);
        let mut within = GroupSpread::default();
        if len as usize == g {
            // The whole execution, whose spread its order does not change:
            // read in place, no draws.
            for i in 0..g {
                within.push(i, executions.get(start + i, r));
            }
        } else if 4 * g * g <= len as usize {
            for i in 0..g {
                let mut k = index_u32(r, len);
                while ks[..i].contains(&k) {
                    k = index_u32(r, len);
                }
                ks[i] = k;
                within.push(i, executions.get(start + k as usize, r));
            }
        } else {
            let view = &mut m[..len as usize];
            for (i, swap) in swaps.iter_mut().enumerate() {
                let j = i as u32 + index_u32(r, len - i as u32);
                view.swap(i, j as usize);
                *swap = j;
            }
            for (i, &k) in view[..g].iter().enumerate() {
                within.push(i, executions.get(start + k as usize, r));
            }
            for (i, &j) in swaps.iter().enumerate().rev() {
                view.swap(i, j as usize);
            }
        }
        *spread = (across, within.scaled(g));
    }
    *stream = local;
    s.group = count;
    // SD over SD, as the root of the variances' ratio (the groups are of
    // one size, so n(n − 1) cancels), in a pass of its own: the root and
    // the division, slow and chained, held up every pair's draws.
    let (mut sum, mut used) = (0.0, 0usize);
    for &(across, within) in s.spreads.iter() {
        if within > 0.0 {
            sum += (across / within).sqrt();
            used += 1;
        }
    }
    (used > 0).then(|| sum / used as f64)
}

/// The paper's statistic's mean with no execution effect for normal data
/// and independent groups: E[χ_{g−1}]·E[1/χ_{g−1}] =
/// Γ(g/2)·Γ((g − 2)/2) / Γ((g − 1)/2)² (infinite for g = 2). A cross-check
/// of the permutation null, which holds for any distribution.
pub fn normal_null_mean(g: usize) -> f64 {
    if g < 3 {
        return f64::INFINITY;
    }
    let k = (g - 1) as f64;
    (ln_gamma((k + 1.0) / 2.0) + ln_gamma((k - 1.0) / 2.0) - 2.0 * ln_gamma(k / 2.0)).exp()
}
