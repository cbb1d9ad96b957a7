//! Timing events shorter than a clock's tick by Bernoulli trials
//! (Lambert & Power, eqs. 1, 2, 5, 6).
//!
//! Each trial reads the clock before and after one event and scores 1 when
//! the clock ticked in between; with m ticks in n trials, p = m/n estimates
//! Te/Tc, so Te = p·Tc (eq. 1).

use super::dist::z_two_sided;
use serde::Serialize;

/// Below this many successes (or failures) the normal interval is not
/// trusted and Wilson's score interval is reported instead (the usual
/// np ≥ 10 and n(1 − p) ≥ 10 rule).
pub const NORMAL_MIN_COUNT: u64 = 10;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
}

/// eq. 2: p ± z·sqrt(p(1 − p)/n). `None` for n = 0.
pub fn normal_interval(m: u64, n: u64, confidence: f64) -> Option<Interval> {
    if n == 0 || m > n {
        return None;
    }
    let z = z_two_sided(confidence)?;
    let p = m as f64 / n as f64;
    let half = z * (p * (1.0 - p) / n as f64).sqrt();
    Some(Interval {
        lo: p - half,
        hi: p + half,
    })
}

/// Wilson's score interval, valid for m near 0 or n. `None` for n = 0.
pub fn wilson_interval(m: u64, n: u64, confidence: f64) -> Option<Interval> {
    if n == 0 || m > n {
        return None;
    }
    let z = z_two_sided(confidence)?;
    let nf = n as f64;
    let p = m as f64 / nf;
    let z2 = z * z;
    let denom = 1.0 + z2 / nf;
    let centre = (p + z2 / (2.0 * nf)) / denom;
    let half = z / denom * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt();
    // At m = 0 (or n) the bound is exactly 0 (or 1); rounding must not move it.
    let lo = if m == 0 { 0.0 } else { centre - half };
    let hi = if m == n { 1.0 } else { centre + half };
    Some(Interval { lo, hi })
}

/// eq. 5: trials needed for relative error ε at `confidence` when the
/// event covers a fraction p of the tick: n = z²·p·q / (ε·p)². `None` when p
/// is not in (0, 1] or ε ≤ 0.
pub fn trials_needed(p: f64, epsilon: f64, confidence: f64) -> Option<u64> {
    if !(p > 0.0 && p <= 1.0 && epsilon > 0.0) {
        return None;
    }
    let z = z_two_sided(confidence)?;
    let n = z * z * p * (1.0 - p) / (epsilon * p).powi(2);
    // Guard the ceiling against n landing a rounding error above an integer.
    Some((n * (1.0 - 4.0 * f64::EPSILON)).ceil().max(1.0) as u64)
}

/// One event's estimate from m ticks in n trials of a clock with tick `tick`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    pub m: u64,
    pub n: u64,
    pub p: f64,
    /// Te + To (event plus timer overhead) = p · tick, in the tick's unit.
    pub duration: f64,
    /// Interval for the duration, in the tick's unit: Wilson when
    /// `wilson` is set, else the normal one.
    pub interval: Interval,
    pub normal: Option<Interval>,
    pub wilson: Interval,
    /// Set when m or n − m is below [`NORMAL_MIN_COUNT`]: the normal
    /// interval is unreliable and Wilson's is the one reported.
    pub wilson_used: bool,
    /// eq. 5's trial count for this p; `None` when p = 0.
    pub trials_needed: Option<u64>,
}

pub fn estimate(m: u64, n: u64, tick: f64, epsilon: f64, confidence: f64) -> Option<Estimate> {
    let wilson = wilson_interval(m, n, confidence)?;
    let normal = normal_interval(m, n, confidence);
    let p = m as f64 / n as f64;
    let wilson_used = m.min(n - m) < NORMAL_MIN_COUNT;
    let chosen = if wilson_used {
        &wilson
    } else {
        normal.as_ref()?
    };
    Some(Estimate {
        m,
        n,
        p,
        duration: p * tick,
        interval: Interval {
            lo: chosen.lo * tick,
            hi: chosen.hi * tick,
        },
        trials_needed: trials_needed(p, epsilon, confidence),
        normal,
        wilson,
        wilson_used,
    })
}

/// The planner (the paper's Table 1 for any inputs): trials for an event of
/// `event` length with a clock of `tick`, and the wall time they take when
/// each trial costs the event plus `overhead` (two clock reads).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub p: f64,
    pub trials: u64,
    /// trials × (event + overhead), in the unit of the inputs.
    pub wall_time: f64,
}

pub fn plan(event: f64, tick: f64, overhead: f64, epsilon: f64, confidence: f64) -> Option<Plan> {
    if !(event > 0.0 && tick > 0.0 && overhead >= 0.0) {
        return None;
    }
    let p = ((event + overhead) / tick).min(1.0);
    let trials = trials_needed(p, epsilon, confidence)?;
    Some(Plan {
        p,
        trials,
        wall_time: trials as f64 * (event + overhead),
    })
}

/// One chunk of consecutive trials (a few ms of them) with what was
/// measured around it: how much of its wall time the thread really ran.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// Trials, and those that saw the clock change.
    pub n: u64,
    pub m: u64,
    /// Sum of the clock steps those trials saw, in ticks (a trial that lost
    /// the CPU for longer than a tick sees several ticks at once).
    pub steps: f64,
    /// How far the clock advanced over the whole chunk, in ticks: the ticks
    /// there were to see.
    pub advance: f64,
    /// Wall time of the chunk and the thread's CPU time in it, in ns.
    pub wall_ns: f64,
    pub cpu_ns: f64,
    /// The chunk timed by the reference clock (the TSC), in ns, where the
    /// file has it.
    pub reference_ns: Option<f64>,
    /// Involuntary context switches and steal time (ns) in the chunk, where
    /// they could be read.
    pub switches: Option<u64>,
    pub steal_ns: Option<f64>,
}

/// Off-CPU time (wall less the thread's CPU time) a chunk may have and
/// still count as having run through: 50 µs plus 1 % of its wall time.
/// Interrupts cost microseconds and belong to what the trials measure; a
/// lost time slice costs milliseconds.
pub const OFF_CPU_SLACK_NS: f64 = 50_000.0;
pub const OFF_CPU_SLACK_SHARE: f64 = 0.01;

/// Chunks that ran through needed to measure how long one trial lasts, and
/// chunks whose trials saw the clock step needed to measure the spread:
/// below either, a disturbed event gets no interval.
pub const MIN_RUN_THROUGH_CHUNKS: usize = 10;
pub const MIN_TICKED_CHUNKS: usize = 10;

impl Chunk {
    /// Whether the thread lost the CPU for longer than the slack.
    pub fn off_cpu(&self) -> bool {
        self.steal_ns.is_some_and(|s| s > 0.0)
            || self.wall_ns - self.cpu_ns > OFF_CPU_SLACK_NS + OFF_CPU_SLACK_SHARE * self.wall_ns
    }

    /// Whether the thread lost the CPU at all during the chunk: an
    /// involuntary context switch, or off-CPU time (see [`Chunk::off_cpu`]).
    pub fn disturbed(&self) -> bool {
        self.switches.is_some_and(|s| s > 0) || self.off_cpu()
    }
}

/// Mean time of one trial by a fine clock, ns: the chunks' time by `time`
/// over their trials, counting only chunks that kept the CPU (no off-CPU
/// time beyond the slack). Interrupts stay in, as they do in the estimate;
/// time slices lost to other tasks stay out, as the correction takes them
/// out. `None` when no chunk kept the CPU or one lacks the time.
pub fn mean_trial_ns(chunks: &[Chunk], time: impl Fn(&Chunk) -> Option<f64>) -> Option<f64> {
    let (mut total, mut n) = (0.0, 0u64);
    for c in chunks.iter().filter(|c| !c.off_cpu()) {
        total += time(c)?;
        n += c.n;
    }
    (n > 0).then(|| total / n as f64)
}

/// What the chunks say about disturbance, and p corrected for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Disturbance {
    pub chunks: usize,
    pub disturbed_chunks: usize,
    /// Trials in disturbed chunks, and their share of all trials.
    pub disturbed_n: u64,
    pub disturbed_share: f64,
    /// The thread's CPU time over the wall time, all chunks.
    pub running_share: f64,
    /// The clock's advance over the chunks' wall time: 1 when it stepped
    /// every tick while the trials ran.
    pub clock_rate: f64,
    /// Involuntary context switches and steal time (ns) over all chunks;
    /// `None` where the collector could not read them.
    pub switches: Option<u64>,
    pub steal_ns: Option<f64>,
    /// Share of the clock's steps during the chunks that fell inside a
    /// trial (its window: from the first clock read to the second).
    pub window_share: Option<f64>,
    /// Wall time of one trial that kept the CPU: the median over the chunks
    /// that ran through of wall time per trial, in ns.
    pub trial_ns: Option<f64>,
    /// The central range of those chunks' wall time per trial at the
    /// confidence asked, in ns: how far a trial's length drifted.
    pub trial_range_ns: Option<Interval>,
    /// p corrected for the disturbance (`None` when there was none, or
    /// when the chunks cannot support it: see `no_interval`).
    pub p: Option<f64>,
    /// Its interval (in p), from the spread over chunks.
    pub interval: Option<Interval>,
    /// Why the chunks cannot support a corrected estimate.
    pub no_interval: Option<String>,
}

/// Correct p for trials that lost the CPU, from the chunks.
///
/// A trial's window — from its first clock read to its second — is where a
/// step of the clock counts. While the thread runs, a share f = w / P of
/// its time is inside windows (w the window, P one trial's wall time).
/// When it loses the CPU, it stops inside a window with that same
/// probability f, and that window then stretches over the whole time off
/// the CPU. So as long as the moment the clock steps and the moment the
/// thread is stopped are independent of the loop's phase (a tick or
/// another task's wakeup does not know where the loop is), a share f of the
/// clock's steps during the chunks falls inside windows — whether the
/// thread ran or not, and whether or not the clock stepped regularly. Hence
/// f = (steps seen inside windows, counted in ticks) / (the clock's advance
/// over the chunks, in ticks), and p = w / Tc = f · P / Tc.
///
/// P is the median wall time per trial of the chunks that ran through (no
/// off-CPU time beyond the slack) — not the thread's CPU time, which also
/// holds the kernel's work of switching it out and in. The interval
/// combines, in quadrature on each side, the ratio estimator's over chunks
/// (their spread, not a binomial variance: a disturbed trial's step counts
/// several ticks; at least Wilson's for the steps as events, which the
/// spread cannot replace near f = 1) and the central range of P over those
/// chunks.
///
/// Returns `None` when there are no chunks. With no disturbed chunk, `p`
/// and `interval` are `None`: the plain estimate m/n stands unchanged.
pub fn disturbance(chunks: &[Chunk], tick: f64, confidence: f64) -> Option<Disturbance> {
    if chunks.is_empty() {
        return None;
    }
    let n: u64 = chunks.iter().map(|c| c.n).sum();
    let wall: f64 = chunks.iter().map(|c| c.wall_ns).sum();
    let cpu: f64 = chunks.iter().map(|c| c.cpu_ns).sum();
    let advance: f64 = chunks.iter().map(|c| c.advance).sum();
    let steps: f64 = chunks.iter().map(|c| c.steps).sum();
    let flags: Vec<bool> = chunks.iter().map(Chunk::disturbed).collect();
    let disturbed_chunks = flags.iter().filter(|d| **d).count();
    let disturbed_n: u64 = chunks
        .iter()
        .zip(&flags)
        .filter(|(_, d)| **d)
        .map(|(c, _)| c.n)
        .sum();
    let mut per_trial: Vec<f64> = chunks
        .iter()
        .filter(|c| !c.off_cpu() && c.n > 0)
        .map(|c| c.wall_ns / c.n as f64)
        .collect();
    per_trial.sort_by(f64::total_cmp);
    let trial_ns = super::quantile_sorted(&per_trial, 0.5, super::QuantileType::TYPE7);
    let mut out = Disturbance {
        chunks: chunks.len(),
        disturbed_chunks,
        disturbed_n,
        disturbed_share: if n > 0 {
            disturbed_n as f64 / n as f64
        } else {
            0.0
        },
        running_share: if wall > 0.0 { cpu / wall } else { 1.0 },
        clock_rate: if wall > 0.0 {
            advance * tick / wall
        } else {
            0.0
        },
        switches: chunks.iter().map(|c| c.switches).sum(),
        steal_ns: chunks.iter().map(|c| c.steal_ns).sum(),
        window_share: (advance > 0.0).then(|| steps / advance),
        trial_ns,
        trial_range_ns: None,
        p: None,
        interval: None,
        no_interval: None,
    };
    if disturbed_chunks == 0 {
        return Some(out);
    }
    let share = format!("{:.0} % of trials disturbed", 100.0 * out.disturbed_share);
    let Some(trial) = trial_ns.filter(|t| *t > 0.0 && per_trial.len() >= MIN_RUN_THROUGH_CHUNKS)
    else {
        out.no_interval = Some(format!(
            "no interval: {share}; {} of {} chunks kept the CPU, too few to tell how long a trial lasts",
            per_trial.len(),
            chunks.len()
        ));
        return Some(out);
    };
    let ticked = chunks.iter().filter(|c| c.steps > 0.0).count();
    if ticked < MIN_TICKED_CHUNKS {
        out.no_interval = Some(format!(
            "no interval: {share}; the trials of only {ticked} chunks saw the clock step, too few to measure the spread"
        ));
        return Some(out);
    }
    let Some(z) = z_two_sided(confidence) else {
        return Some(out);
    };
    // P is not one number on a busy machine: a trial's length drifts as the
    // core's other hardware thread and the memory traffic change. Its
    // uncertainty is the central range of the chunks' values at the
    // confidence asked, not its median's standard error, because any other
    // measurement of the event (the reference) sees it at another point of
    // that drift.
    let alpha = 1.0 - confidence;
    let q = |x| super::quantile_sorted(&per_trial, x, super::QuantileType::TYPE7).unwrap_or(trial);
    let range = Interval {
        lo: q(alpha / 2.0),
        hi: q(1.0 - alpha / 2.0),
    };
    let f = steps / advance;
    let k = chunks.len() as f64;
    let ss: f64 = chunks
        .iter()
        .map(|c| (c.steps - f * c.advance).powi(2))
        .sum();
    let se_f = (k / (k - 1.0) * ss).sqrt() / advance;
    // Near f = 1 (long events: nearly all of a trial is its window) the
    // spread over chunks vanishes whatever the number of steps, as the
    // normal interval does at m = n. So the interval of f is also at least
    // Wilson's for the steps as events: m of them inside windows, out of
    // m / f in all (a step of several ticks is one event).
    let m: u64 = chunks.iter().map(|c| c.m).sum();
    let events = ((m as f64 / f).round() as u64).max(m);
    let (mut f_lo, mut f_hi) = (f - z * se_f, f + z * se_f);
    if let Some(w) = wilson_interval(m, events, confidence) {
        f_lo = f_lo.min(w.lo);
        f_hi = f_hi.max(w.hi);
    }
    let p = f * trial / tick;
    let (stat_below, stat_above) = ((f - f_lo) * trial / tick, (f_hi - f) * trial / tick);
    let below = f * (trial - range.lo) / tick;
    let above = f * (range.hi - trial) / tick;
    out.trial_range_ns = Some(range);
    out.p = Some(p);
    out.interval = Some(Interval {
        lo: p - stat_below.hypot(below),
        hi: p + stat_above.hypot(above),
    });
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() <= 1e-12 * b.abs().max(1e-300), "{a} vs {b}");
    }

    #[test]
    fn reference_coarse_clock_timing() {
        let e = estimate(237, 1000, 1e-3, 0.05, 0.95).unwrap();
        close(e.duration, 2.37e-4);
        let n = e.normal.clone().unwrap();
        close(n.lo, 0.21064369449249498);
        close(n.hi, 0.263356305507505);
        close(e.wilson.lo, 0.21168136426041648);
        close(e.wilson.hi, 0.26433151070298555);
        assert_eq!(e.trials_needed, Some(4947));
        assert!(!e.wilson_used);
        close(e.interval.lo, 0.21064369449249498e-3);
    }

    #[test]
    fn wilson_at_zero_successes() {
        let w = wilson_interval(0, 50, 0.95).unwrap();
        assert_eq!(w.lo, 0.0);
        close(w.hi, 0.07134759913335874);
        let e = estimate(0, 50, 1.0, 0.05, 0.95).unwrap();
        assert!(e.wilson_used);
        assert_eq!(e.trials_needed, None);
        let all = wilson_interval(50, 50, 0.95).unwrap();
        assert_eq!(all.hi, 1.0);
        close(all.lo, 1.0 - 0.07134759913335874);
    }

    #[test]
    fn planner_explodes_with_precision() {
        // 10 ns event, 1 ms tick: p = 1e-5, so ~1.5e9 trials at 5 %.
        let a = plan(10.0, 1e6, 0.0, 0.05, 0.95).unwrap();
        let b = plan(10.0, 1e6, 0.0, 0.005, 0.95).unwrap();
        assert!((b.trials as f64 / a.trials as f64 - 100.0).abs() < 0.01);
        assert_eq!(a.trials, trials_needed(1e-5, 0.05, 0.95).unwrap());
        close(a.wall_time, a.trials as f64 * 10.0);
        assert!(plan(0.0, 1.0, 0.0, 0.05, 0.95).is_none());
    }
}

#[cfg(test)]
mod disturbance_tests {
    //! Known answers on simulated trials: a trial loop of known window w and
    //! gap g timed by a clock ticking every Tc, on a thread that loses the
    //! CPU at ticks and at random wakeups, recorded in chunks as the
    //! collector records them.
    use super::*;
    use crate::stats::bootstrap::rng;
    use rand::Rng;

    const TC: f64 = 4e6;

    struct Sim {
        window: f64,
        gap: f64,
        /// Chance that a tick while running preempts the thread.
        tick_preempt: f64,
        /// Random wakeups that preempt it, per ns of running.
        wakeup_rate: f64,
        /// Off-CPU time of a preemption: uniform in this range (ns).
        off: (f64, f64),
        /// Running time (ns) the trials get, and trials per chunk.
        running: f64,
        chunk: u64,
    }

    fn uniform(r: &mut impl Rng) -> f64 {
        (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn simulate(s: &Sim, seed: u64) -> Vec<Chunk> {
        let mut r = rng(seed);
        let phase = uniform(&mut r) * TC;
        let coarse = |t: f64| ((t - phase) / TC).floor();
        let mut t = 0.0;
        let next_tick = |t: f64, r: &mut _| {
            // The next tick after t that preempts, or infinity.
            if s.tick_preempt <= 0.0 {
                return f64::INFINITY;
            }
            let mut k = coarse(t) + 1.0;
            while uniform(r) >= s.tick_preempt {
                k += 1.0;
            }
            phase + k * TC
        };
        let next_wakeup = |t: f64, r: &mut _| {
            if s.wakeup_rate <= 0.0 {
                f64::INFINITY
            } else {
                t - uniform(r).max(1e-300).ln() / s.wakeup_rate
            }
        };
        let mut tick_at = next_tick(t, &mut r);
        let mut wake_at = next_wakeup(t, &mut r);
        let mut chunks = Vec::new();
        let mut ran = 0.0;
        while ran < s.running {
            let (start, c0) = (t, coarse(t));
            let (mut m, mut steps, mut off, mut switches) = (0u64, 0.0, 0.0, 0u64);
            for _ in 0..s.chunk {
                let a = coarse(t);
                for (phase_len, is_window) in [(s.window, true), (s.gap, false)] {
                    let mut left = phase_len;
                    loop {
                        let at = tick_at.min(wake_at);
                        if at < t + left {
                            left -= at - t;
                            let d = s.off.0 + uniform(&mut r) * (s.off.1 - s.off.0);
                            t = at + d;
                            off += d;
                            switches += 1;
                            tick_at = next_tick(t, &mut r);
                            wake_at = next_wakeup(t, &mut r);
                        } else {
                            t += left;
                            break;
                        }
                    }
                    if is_window {
                        let b = coarse(t);
                        if b != a {
                            m += 1;
                            steps += b - a;
                        }
                    }
                }
            }
            let wall = t - start;
            ran += wall - off;
            chunks.push(Chunk {
                n: s.chunk,
                m,
                steps,
                advance: coarse(t) - c0,
                wall_ns: wall,
                cpu_ns: wall - off,
                reference_ns: Some(wall),
                switches: Some(switches),
                steal_ns: Some(0.0),
            });
        }
        chunks
    }

    fn busy() -> Sim {
        Sim {
            window: 100e3,
            gap: 3e3,
            tick_preempt: 0.3,
            wakeup_rate: 1.0 / 8e6,
            off: (2e6, 14e6),
            running: 1.5e9,
            chunk: 19,
        }
    }

    #[test]
    fn corrected_interval_covers_the_truth_and_the_plain_one_does_not() {
        let s = busy();
        let truth = s.window / TC;
        let runs = 120;
        let (mut covered, mut plain_covered, mut plain_high) = (0, 0, 0);
        for seed in 0..runs {
            let chunks = simulate(&s, seed);
            let d = disturbance(&chunks, TC, 0.95).unwrap();
            assert!(d.disturbed_share > 0.3, "{d:?}");
            let i = d.interval.as_ref().expect("an interval");
            covered += usize::from(i.lo <= truth && truth <= i.hi);
            let (m, n) = chunks.iter().fold((0, 0), |(m, n), c| (m + c.m, n + c.n));
            let plain = estimate(m, n, 1.0, 0.05, 0.95).unwrap();
            plain_covered += usize::from(plain.interval.lo <= truth && truth <= plain.interval.hi);
            plain_high += usize::from(plain.p > truth * 1.1);
        }
        let share = covered as f64 / runs as f64;
        eprintln!("corrected covers {covered}, plain covers {plain_covered}, plain > +10 % in {plain_high}, of {runs}");
        // Nominal 95 %; the range of P and Wilson's bound make it
        // conservative rather than short.
        assert!(share >= 0.88, "corrected coverage {share}");
        assert!(
            (plain_covered as f64) < 0.2 * runs as f64,
            "plain coverage {plain_covered} of {runs}"
        );
        assert!(
            plain_high as f64 > 0.8 * runs as f64,
            "plain too high in {plain_high}"
        );
    }

    #[test]
    fn no_disturbance_leaves_p_alone() {
        let s = Sim {
            tick_preempt: 0.0,
            wakeup_rate: 0.0,
            ..busy()
        };
        let chunks = simulate(&s, 7);
        let d = disturbance(&chunks, TC, 0.95).unwrap();
        assert_eq!((d.disturbed_chunks, d.disturbed_n), (0, 0));
        assert_eq!((d.p, d.interval, d.no_interval), (None, None, None));
        assert_eq!(d.running_share, 1.0);
    }

    #[test]
    fn every_chunk_disturbed_gives_no_interval() {
        let s = Sim {
            tick_preempt: 1.0,
            ..busy()
        };
        // Chunks of 40 trials last 4 ms of running: every one spans a tick
        // and so loses the CPU.
        let chunks = simulate(&Sim { chunk: 40, ..s }, 3);
        let d = disturbance(&chunks, TC, 0.95).unwrap();
        assert_eq!(d.disturbed_chunks, d.chunks);
        assert_eq!(d.disturbed_share, 1.0);
        assert_eq!((d.p, d.interval.as_ref()), (None, None));
        let why = d.no_interval.unwrap();
        assert!(
            why.starts_with("no interval: 100 % of trials disturbed"),
            "{why}"
        );
    }

    #[test]
    fn mean_trial_time_keeps_interrupts_and_drops_lost_time_slices() {
        let s = busy();
        let chunks = simulate(&s, 5);
        assert!(chunks.iter().any(Chunk::off_cpu) && chunks.iter().any(|c| !c.off_cpu()));
        // A trial that kept the CPU lasts its window and its gap, exactly.
        let t = mean_trial_ns(&chunks, |c| c.reference_ns).unwrap();
        assert!((t - (s.window + s.gap)).abs() < 1e-6 * t, "{t}");
        // An interrupt (microseconds, within the slack) stays in the mean.
        let mut hit = chunks.clone();
        let i = hit.iter().position(|c| !c.off_cpu()).unwrap();
        hit[i].wall_ns += 20e3;
        hit[i].cpu_ns += 20e3;
        hit[i].reference_ns = hit[i].reference_ns.map(|r| r + 20e3);
        let kept: u64 = hit.iter().filter(|c| !c.off_cpu()).map(|c| c.n).sum();
        let t2 = mean_trial_ns(&hit, |c| c.reference_ns).unwrap();
        assert!((t2 - t - 20e3 / kept as f64).abs() < 1e-6 * t, "{t2}");
        // A chunk without the time gives none.
        hit[i].reference_ns = None;
        assert_eq!(mean_trial_ns(&hit, |c| c.reference_ns), None);
    }
}
