//! The Bernoulli cell: events shorter than a clock's tick, estimated from
//! tick counts (Lambert & Power, eqs. 1, 2, 5, 6) and checked against the
//! TSC reference; plus the trial planner (the paper's Table 1).

use super::{BernoulliChunks, BernoulliData, BernoulliTrials};
use crate::options::Options;
use crate::stats::bernoulli::{
    disturbance, estimate, mean_trial_ns, plan, Chunk, Disturbance, Interval,
};
use crate::stats::{quantile, quantile_sorted, QuantileType, Summary};
use serde::Serialize;

/// Events at least this long take part in the coverage check (the issue's
/// acceptance: the reference inside the interval for ≥ 90 % of them).
pub const COVERAGE_MIN_NS: f64 = 100.0;

#[derive(Debug, Clone, Serialize)]
pub struct BernoulliReport {
    pub clock: String,
    pub tick_ns: f64,
    pub reference: String,
    /// ε and confidence the collector planned the trials with.
    pub planned_epsilon: f64,
    pub planned_confidence: f64,
    /// Confidence of the intervals shown here (the analysis option).
    pub confidence: f64,
    /// The timer overhead To from the empty-event trials.
    pub overhead: Option<TrialsRow>,
    /// To as the events' estimates and the planner use it: `overhead`'s
    /// p·Tc, or its corrected value where the empty-event trials were
    /// disturbed (0 without overhead trials).
    pub to_ns: f64,
    /// Median of the reference clock's own overhead, subtracted from the
    /// reference samples.
    pub reference_overhead_ns: Option<f64>,
    pub events: Vec<EventRow>,
    pub coverage: Coverage,
    /// Trials and wall time for a range of event lengths at this tick and
    /// overhead (Lambert & Power's Table 1, for this machine).
    pub planner: Vec<PlanRow>,
}

impl BernoulliReport {
    /// What the events' references are, each once, in event order.
    pub fn reference_bases(&self) -> Vec<&str> {
        let mut bases: Vec<&str> = Vec::new();
        for b in self
            .events
            .iter()
            .filter_map(|e| e.reference_basis.as_deref())
        {
            if !bases.contains(&b) {
                bases.push(b);
            }
        }
        bases
    }
}

/// n trials of which m ticked, as an estimate of (event + overhead).
#[derive(Debug, Clone, Serialize)]
pub struct TrialsRow {
    pub n: u64,
    pub m: u64,
    pub p: f64,
    /// p · Tc: event plus timer overhead, in ns (eq. 1).
    pub raw_ns: f64,
    pub raw_interval_ns: Interval,
    /// Wilson's interval was used (m or n − m small); else the normal one.
    pub wilson_used: bool,
    pub planned: u64,
    pub capped: bool,
    /// eq. 5 for the observed p at the planned ε and confidence.
    pub trials_needed: Option<u64>,
    /// n / trials_needed.
    pub trials_ratio: Option<f64>,
    /// Mean clock step among trials that ticked, in ns (≈ Tc when each
    /// tick was a single tick).
    pub mean_step_ns: Option<f64>,
    /// Trials set aside as disturbed by collectors that set chunks aside
    /// (older files), not in n and m.
    pub disturbed_n: u64,
    pub disturbed_m: u64,
    /// What the chunks of trials say about disturbance, and p corrected for
    /// it; `None` for files without chunks.
    pub disturbance: Option<Disturbance>,
}

impl TrialsRow {
    /// Te+o and its interval as the event's estimate uses them: corrected
    /// for disturbance where there was some, else the plain p·Tc; `Err`
    /// with the reason where the chunks cannot support an interval.
    fn used(&self, tick_ns: f64) -> Result<(f64, Interval), String> {
        match &self.disturbance {
            Some(Disturbance {
                p: Some(p),
                interval: Some(i),
                ..
            }) => Ok((
                p * tick_ns,
                Interval {
                    lo: i.lo * tick_ns,
                    hi: i.hi * tick_ns,
                },
            )),
            Some(Disturbance {
                no_interval: Some(why),
                ..
            }) => Err(why.clone()),
            _ => Ok((self.raw_ns, self.raw_interval_ns.clone())),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct EventRow {
    pub name: String,
    pub target_ns: f64,
    pub trials: TrialsRow,
    /// Te = p·Tc − To (eq. 6), in ns: with p and To corrected for
    /// disturbance where the trials were disturbed and the chunks support
    /// it (`corrected`), else as m/n gives them.
    pub estimate_ns: f64,
    /// Te from the plain m/n of the event and of the overhead, whatever the
    /// disturbance.
    pub uncorrected_ns: f64,
    pub corrected: bool,
    /// Interval for Te: the trial interval less To, widened by To's own
    /// uncertainty (half-widths added in quadrature, each side). `None`
    /// where the data cannot support one (`no_interval` says why).
    pub interval_ns: Option<Interval>,
    /// Share of the event's trials whose chunk lost the CPU; `None` for
    /// files without chunks.
    pub disturbed_share: Option<f64>,
    pub no_interval: Option<String>,
    /// The reference samples (ns, raw): the event timed alone.
    pub reference: Option<Summary>,
    /// What the estimate is checked against, in ns. Where the trials were
    /// timed chunk by chunk by the reference clock (or, in older files, by
    /// the wall clock): the mean time of one trial of the event less that of
    /// the empty event, over the chunks that kept the CPU — the very
    /// quantity p·Tc − To estimates, in the trials' own context, with the
    /// interrupts every trial pays its share of. Otherwise the event alone
    /// (`reference_alone_ns`).
    pub reference_ns: Option<f64>,
    /// Which of the two `reference_ns` is, and by what clock.
    pub reference_basis: Option<String>,
    /// The event timed alone: the median of the reference samples at most
    /// twice the shortest, less the reference clock's median overhead, in
    /// ns. Its typical undisturbed length: the median, because a sample hit
    /// by an interrupt or a preemption is far longer and a few of them move
    /// the mean of a thousand samples; below the trials' mean by about the
    /// share of time interrupts take (about 1 % in a virtual machine), and
    /// apart from it by how the event overlaps what surrounds it.
    pub reference_alone_ns: Option<f64>,
    /// Reference samples longer than twice the shortest, left out.
    pub reference_excluded: usize,
    /// Whether `reference_ns` lies inside `interval_ns`.
    pub covered: Option<bool>,
    /// (estimate − reference) / reference.
    pub relative_error: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Coverage {
    pub min_target_ns: f64,
    /// Events at least `min_target_ns` long with an interval and a
    /// reference, and those whose interval holds the reference.
    pub events: usize,
    pub covered: usize,
    pub share: Option<f64>,
    /// Events at least `min_target_ns` long given no interval (too
    /// disturbed).
    pub no_interval: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct PlanRow {
    pub event_ns: f64,
    pub epsilon: f64,
    pub trials: u64,
    pub wall_time_ns: f64,
}

fn trials_row(t: &BernoulliTrials, d: &BernoulliData, confidence: f64) -> Option<TrialsRow> {
    let e = estimate(t.m, t.n, d.tick_ns, d.epsilon, confidence)?;
    let needed = crate::stats::bernoulli::trials_needed(e.p, d.epsilon, d.planned_confidence());
    Some(TrialsRow {
        n: t.n,
        m: t.m,
        p: e.p,
        raw_ns: e.duration,
        raw_interval_ns: e.interval,
        wilson_used: e.wilson_used,
        planned: t.planned,
        capped: t.capped,
        trials_needed: needed,
        trials_ratio: needed.map(|k| t.n as f64 / k as f64),
        mean_step_ns: (t.m > 0).then(|| t.sum_steps_ns / t.m as f64),
        disturbed_n: t.disturbed_n,
        disturbed_m: t.disturbed_m,
        disturbance: t
            .chunks
            .as_ref()
            .and_then(|c| disturbance(&chunks(c, d.tick_ns), d.tick_ns, confidence)),
    })
}

/// The file's chunk columns as the estimator's chunks (the reader checked
/// that the columns have one value per chunk).
fn chunks(c: &BernoulliChunks, tick_ns: f64) -> Vec<Chunk> {
    (0..c.n.len())
        .map(|i| Chunk {
            n: c.n[i],
            m: c.m[i],
            steps: c.steps_ns[i] as f64 / tick_ns,
            advance: c.coarse_ns[i] as f64 / tick_ns,
            wall_ns: c.wall_ns[i] as f64,
            cpu_ns: c.cpu_ns[i] as f64,
            reference_ns: c.reference_ns.as_ref().map(|v| v[i] as f64),
            switches: c.involuntary_switches.as_ref().map(|v| v[i]),
            steal_ns: c.steal_ns.as_ref().map(|v| v[i] as f64),
        })
        .collect()
}

impl BernoulliData {
    fn planned_confidence(&self) -> f64 {
        self.confidence
    }
}

pub fn bernoulli_report(d: &BernoulliData, opts: &Options) -> BernoulliReport {
    let conf = opts.confidence;
    let overhead = trials_row(&d.overhead, d, conf);
    // To as m/n gives it, for the uncorrected estimate; and as the events'
    // estimates use it (corrected where the overhead trials were disturbed).
    let to_raw = overhead.as_ref().map_or(0.0, |o| o.raw_ns);
    // Where the empty event's trials are too disturbed to estimate To, To
    // is still known to lie between 0 and the length of a whole empty trial
    // (its window is part of it): that range is its interval.
    let to_used: Result<(f64, Interval), String> =
        match &overhead {
            Some(o) => o.used(d.tick_ns).or_else(|why| {
                match o.disturbance.as_ref().and_then(|x| x.trial_ns) {
                    Some(trial) => {
                        Ok((o.raw_ns.clamp(0.0, trial), Interval { lo: 0.0, hi: trial }))
                    }
                    None => Err(format!(
                        "no interval: the overhead trials were too disturbed ({})",
                        why.trim_start_matches("no interval: ")
                    )),
                }
            }),
            None => Ok((0.0, Interval { lo: 0.0, hi: 0.0 })),
        };
    let ref_overhead = quantile(&d.reference_overhead_ns, 0.5, QuantileType::TYPE7);
    // One trial of the event less one of the empty event, by a fine clock,
    // and that clock: the reference clock where every chunk has its time,
    // else the chunks' wall time.
    let overhead_chunks = d.overhead.chunks.as_ref().map(|c| chunks(c, d.tick_ns));
    let in_trials = |t: &BernoulliTrials| -> Option<(f64, String)> {
        let ev = chunks(t.chunks.as_ref()?, d.tick_ns);
        let ov = overhead_chunks.as_ref()?;
        let by =
            |f: fn(&Chunk) -> Option<f64>| Some(mean_trial_ns(&ev, f)? - mean_trial_ns(ov, f)?);
        by(|c| c.reference_ns)
            .map(|r| (r, d.reference.clone()))
            .or_else(|| by(|c| Some(c.wall_ns)).map(|r| (r, "the wall clock".to_string())))
    };

    let events: Vec<EventRow> = d
        .events
        .iter()
        .filter_map(|ev| {
            let tr = trials_row(&ev.trials, d, conf)?;
            let uncorrected_ns = tr.raw_ns - to_raw;
            let used = tr.used(d.tick_ns).and_then(|e| Ok((e, to_used.clone()?)));
            let (estimate_ns, interval_ns, no_interval, corrected) = match used {
                Ok(((te_o, i), (to, to_i))) => {
                    let est = te_o - to;
                    let lo = est - ((te_o - i.lo).powi(2) + (to_i.hi - to).powi(2)).sqrt();
                    let hi = est + ((i.hi - te_o).powi(2) + (to - to_i.lo).powi(2)).sqrt();
                    let corrected = tr.disturbance.as_ref().is_some_and(|x| x.p.is_some())
                        || overhead
                            .as_ref()
                            .and_then(|o| o.disturbance.as_ref())
                            .is_some_and(|x| x.p.is_some());
                    (est, Some(Interval { lo, hi }), None, corrected)
                }
                Err(why) => (uncorrected_ns, None, Some(why), false),
            };
            let mut sorted = ev.reference_ns.clone();
            sorted.sort_by(f64::total_cmp);
            let reference = Summary::of_sorted(&sorted, opts.quantile_type);
            let limit = sorted.first().map_or(0.0, |s| 2.0 * s);
            let kept = sorted.partition_point(|x| *x <= limit);
            let reference_alone_ns = quantile_sorted(&sorted[..kept], 0.5, QuantileType::TYPE7)
                .map(|m| m - ref_overhead.unwrap_or(0.0));
            let (reference_ns, reference_basis) = match in_trials(&ev.trials) {
                Some((r, clock)) => (Some(r), Some(format!("the trials, by {clock}"))),
                None => (
                    reference_alone_ns,
                    reference_alone_ns.map(|_| format!("the event alone, by {}", d.reference)),
                ),
            };
            Some(EventRow {
                name: ev.name.clone(),
                target_ns: ev.target_ns,
                estimate_ns,
                uncorrected_ns,
                corrected,
                covered: interval_ns
                    .as_ref()
                    .zip(reference_ns)
                    .map(|(i, r)| r >= i.lo && r <= i.hi),
                relative_error: reference_ns
                    .filter(|r| *r > 0.0)
                    .map(|r| (estimate_ns - r) / r),
                interval_ns,
                disturbed_share: tr.disturbance.as_ref().map(|x| x.disturbed_share),
                no_interval,
                reference,
                reference_ns,
                reference_basis,
                reference_alone_ns,
                reference_excluded: sorted.len() - kept,
                trials: tr,
            })
        })
        .collect();

    let considered: Vec<&EventRow> = events
        .iter()
        .filter(|e| e.target_ns >= COVERAGE_MIN_NS && e.covered.is_some())
        .collect();
    let covered = considered
        .iter()
        .filter(|e| e.covered == Some(true))
        .count();
    let coverage = Coverage {
        min_target_ns: COVERAGE_MIN_NS,
        events: considered.len(),
        covered,
        share: (!considered.is_empty()).then(|| covered as f64 / considered.len() as f64),
        no_interval: events
            .iter()
            .filter(|e| e.target_ns >= COVERAGE_MIN_NS && e.interval_ns.is_none())
            .count(),
    };
    let to = to_used.as_ref().map_or(to_raw, |u| u.0);

    let mut planner = Vec::new();
    for event_ns in [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6] {
        for epsilon in [0.1, 0.05, 0.01] {
            if let Some(p) = plan(event_ns, d.tick_ns, to.max(0.0), epsilon, conf) {
                planner.push(PlanRow {
                    event_ns,
                    epsilon,
                    trials: p.trials,
                    wall_time_ns: p.wall_time,
                });
            }
        }
    }

    BernoulliReport {
        clock: d.clock.clone(),
        tick_ns: d.tick_ns,
        reference: d.reference.clone(),
        planned_epsilon: d.epsilon,
        planned_confidence: d.confidence,
        confidence: conf,
        overhead,
        to_ns: to,
        reference_overhead_ns: ref_overhead,
        events,
        coverage,
        planner,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BernoulliChunks, BernoulliEvent};
    use super::*;

    fn trials(n: u64, m: u64) -> BernoulliTrials {
        BernoulliTrials {
            n,
            m,
            sum_steps_ns: m as f64 * 1e6,
            planned: n,
            capped: false,
            block_size: 0,
            block_m: vec![],
            ..BernoulliTrials::default()
        }
    }

    fn data() -> BernoulliData {
        BernoulliData {
            clock: "CLOCK_MONOTONIC_COARSE".into(),
            tick_ns: 1e6,
            reference: "tsc_lfence_rdtsc".into(),
            epsilon: 0.05,
            confidence: 0.95,
            budget_s: 1.0,
            // To = 10 ns: p = 1e-5.
            overhead: trials(100_000_000, 1000),
            reference_overhead_ns: vec![20.0, 20.0, 21.0],
            events: vec![BernoulliEvent {
                name: "busy_237us".into(),
                target_ns: 237_000.0,
                work_units: 1,
                trials: trials(1000, 237),
                reference_ns: vec![237_010.0, 237_030.0, 240_000.0],
            }],
        }
    }

    #[test]
    fn reference_vector_and_overhead_subtraction() {
        let r = bernoulli_report(&data(), &Options::default());
        let ev = &r.events[0];
        // eq. 1 with the reference vector: p = 0.237, Tc = 1 ms.
        assert!((ev.trials.raw_ns - 237_000.0).abs() < 1e-6);
        assert!((ev.trials.raw_interval_ns.lo - 210_643.694_492_494_98).abs() < 1e-6);
        assert_eq!(ev.trials.trials_needed, Some(4947));
        // eq. 6: To = 10 ns comes off.
        assert!((ev.estimate_ns - 236_990.0).abs() < 1e-6);
        // The reference median less its 20 ns overhead: 237 010 ns, inside
        // (the preempted 240 µs sample does not move it).
        assert!((ev.reference_ns.unwrap() - 237_010.0).abs() < 1e-9);
        assert_eq!(ev.covered, Some(true));
        assert_eq!((r.coverage.events, r.coverage.covered), (1, 1));
        assert_eq!(ev.trials.mean_step_ns, Some(1e6));
    }

    /// Chunks of `t` split evenly, none disturbed unless `switch` says so;
    /// by the reference clock, each trial lasts `trial_ns`.
    fn chunked(
        t: &BernoulliTrials,
        k: u64,
        trial_ns: f64,
        switch: impl Fn(u64) -> bool,
    ) -> BernoulliChunks {
        let mut c = BernoulliChunks {
            involuntary_switches: Some(Vec::new()),
            steal_ns: Some(Vec::new()),
            reference_ns: Some(Vec::new()),
            ..BernoulliChunks::default()
        };
        for i in 0..k {
            let n = t.n / k + u64::from(i < t.n % k);
            let m = t.m / k + u64::from(i < t.m % k);
            let disturbed = switch(i);
            c.n.push(n);
            c.m.push(m);
            c.steps_ns.push(m * 1_000_000);
            c.coarse_ns.push(2_000_000);
            c.wall_ns.push(2_000_000);
            c.cpu_ns.push(if disturbed { 500_000 } else { 2_000_000 });
            c.reference_ns
                .as_mut()
                .unwrap()
                .push((n as f64 * trial_ns).round() as u64);
            c.involuntary_switches
                .as_mut()
                .unwrap()
                .push(u64::from(disturbed));
            c.steal_ns.as_mut().unwrap().push(0);
        }
        c
    }

    #[test]
    fn undisturbed_chunks_give_exactly_the_plain_numbers() {
        let plain = bernoulli_report(&data(), &Options::default());
        let mut d = data();
        // A trial of the empty event lasts 30 ns by the TSC, one of the
        // event 237 030 ns: the trials' reference is 237 000 ns.
        d.overhead.chunks = Some(chunked(&d.overhead, 100, 30.0, |_| false));
        d.events[0].trials.chunks = Some(chunked(&d.events[0].trials, 100, 237_030.0, |_| false));
        let r = bernoulli_report(&d, &Options::default());
        let (a, b) = (&plain.events[0], &r.events[0]);
        assert!(
            (b.reference_ns.unwrap() - 237_000.0).abs() < 1e-6,
            "{:?}",
            b.reference_ns
        );
        assert_eq!(
            b.reference_basis.as_deref(),
            Some("the trials, by tsc_lfence_rdtsc")
        );
        assert_eq!(b.reference_alone_ns, a.reference_ns);
        assert_eq!(
            a.reference_basis.as_deref(),
            Some("the event alone, by tsc_lfence_rdtsc")
        );
        assert_eq!(a.estimate_ns, b.estimate_ns);
        assert_eq!(a.interval_ns, b.interval_ns);
        assert_eq!(b.uncorrected_ns, b.estimate_ns);
        assert!(!b.corrected);
        assert_eq!(b.disturbed_share, Some(0.0));
        assert_eq!(a.disturbed_share, None);
        assert_eq!((r.coverage.covered, r.coverage.no_interval), (1, 0));
    }

    #[test]
    fn a_fully_disturbed_event_gets_no_interval() {
        let mut d = data();
        d.events[0].trials.chunks = Some(chunked(&d.events[0].trials, 100, 237_030.0, |_| true));
        let r = bernoulli_report(&d, &Options::default());
        let e = &r.events[0];
        assert_eq!(e.interval_ns, None);
        assert_eq!(e.covered, None);
        assert_eq!(e.disturbed_share, Some(1.0));
        assert_eq!(e.estimate_ns, e.uncorrected_ns);
        assert!(e
            .no_interval
            .as_deref()
            .unwrap()
            .starts_with("no interval: 100 % of trials disturbed"));
        assert_eq!((r.coverage.events, r.coverage.no_interval), (0, 1));
        assert_eq!(r.coverage.share, None);
    }

    #[test]
    fn the_reference_leaves_out_preempted_samples() {
        let mut d = data();
        // Three of five samples preempted: the plain median would be one.
        d.events[0].reference_ns = vec![237_010.0, 237_030.0, 4e6, 5e6, 6e6];
        let r = bernoulli_report(&d, &Options::default());
        assert_eq!(r.events[0].reference_excluded, 3);
        assert!((r.events[0].reference_ns.unwrap() - 237_000.0).abs() < 1e-9);
    }

    #[test]
    fn planner_rows_follow_eq5() {
        let r = bernoulli_report(&data(), &Options::default());
        let row = r
            .planner
            .iter()
            .find(|p| p.event_ns == 1e3 && p.epsilon == 0.05)
            .unwrap();
        let p = (1e3 + 10.0) / 1e6;
        let want = crate::stats::bernoulli::trials_needed(p, 0.05, 0.95).unwrap();
        assert_eq!(row.trials, want);
        assert!((row.wall_time_ns - want as f64 * 1010.0).abs() < 1e-3);
    }
}
