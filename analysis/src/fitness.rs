//! Was the machine fit to measure on while a file was collected: findings
//! from the differences between the `environment` samples a run wrote
//! (`format::Environment`) — steal, the measuring thread's waits for its
//! CPU, involuntary context switches, interrupts on the measuring CPU, the
//! core clock's drift and the other CPUs' load — each fine, disturbed or
//! unfit by the thresholds below (`docs/methods.md`, "Fitness", says why
//! each is where it is), or unknown with the reason. The configuration
//! checks are passed on as they are: they say what could disturb, the
//! findings what did.

use crate::format::{EnvCheck, EnvSample, Environment};
use serde::Serialize;

/// How a signal bears on the timings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Could not be measured; `reason` says why. Never raises the verdict.
    Unknown,
    Fine,
    Disturbed,
    Unfit,
}

/// A signal's two thresholds: at or above `disturbed` the timings are
/// disturbed, at or above `unfit` (when it has one) they are not to be
/// trusted.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Thresholds {
    pub disturbed: f64,
    pub unfit: Option<f64>,
}

/// Steal, % of the measuring CPU's time.
pub const STEAL: Thresholds = Thresholds {
    disturbed: 1.0,
    unfit: Some(10.0),
};
/// The measuring thread runnable but waiting for its CPU, % of wall time.
pub const CPU_TAKEN: Thresholds = Thresholds {
    disturbed: 2.0,
    unfit: Some(10.0),
};
/// Involuntary context switches of the collector, per second.
pub const SWITCHES: Thresholds = Thresholds {
    disturbed: 20.0,
    unfit: Some(200.0),
};
/// Interrupts on the measuring CPU, per second.
pub const INTERRUPTS: Thresholds = Thresholds {
    disturbed: 2000.0,
    unfit: Some(20000.0),
};
/// The largest change of the core clock from the first sample, %.
pub const CORE_CLOCK: Thresholds = Thresholds {
    disturbed: 2.0,
    unfit: Some(10.0),
};
/// The other CPUs' mean load, % of their time. Never unfit by itself.
pub const OTHER_CPUS: Thresholds = Thresholds {
    disturbed: 50.0,
    unfit: None,
};

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// `steal`, `cpu_taken`, `involuntary_switches`, `interrupts`,
    /// `core_clock`, `other_cpus`.
    pub signal: &'static str,
    pub level: Level,
    /// The figure judged, in `unit`; `None` when unknown.
    pub figure: Option<f64>,
    /// `%` or `/s`.
    pub unit: &'static str,
    /// One sentence with the figure, e.g. "steal 12 % of the run".
    pub text: String,
    /// What was measured, and from where.
    pub evidence: String,
    /// The interval between two samples where the figure was highest, and
    /// its figure there, when the run has more than one interval and the
    /// finding is not fine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst: Option<Worst>,
    pub thresholds: Thresholds,
    /// What to do about it, when it is not fine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<&'static str>,
    /// Why the signal could not be measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The rule in words, for a finding not judged by `thresholds` alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Worst {
    /// e.g. `start → after clocks`.
    pub interval: String,
    pub figure: f64,
}

/// A file's verdict: the worst level of its findings (unknown ones aside).
#[derive(Debug, Clone, Serialize)]
pub struct Fitness {
    pub verdict: Level,
    pub findings: Vec<Finding>,
    /// Seconds between the first and the last sample.
    pub span_s: f64,
    /// The CPU the measuring thread was on at the last sample.
    pub measuring_cpu: Option<u32>,
    /// Core clock at each sample, GHz (`null` where unknown), with the
    /// sample's name: start, middle, end.
    pub core_clock_ghz: Vec<(String, Option<f64>)>,
    /// The configuration checks whose value is not the quiet one, and
    /// those that could not be read.
    pub configuration: Vec<EnvCheck>,
    /// What the collector could not read.
    pub notes: Vec<String>,
    /// The cells whose numbers a finding that is not fine bears on, each
    /// with what it was: the suites judged over their own stretch of the
    /// run (the samples before and after each), and the ops table's
    /// throughputs when the core was shared.
    pub affects: Vec<Affected>,
}

/// A cell measured while the machine was disturbed or unfit.
#[derive(Debug, Clone, Serialize)]
pub struct Affected {
    /// The cell's key (a suite's name).
    pub cell: String,
    pub level: Level,
    /// One sentence with the figures, e.g. "measured while disturbed:
    /// other tasks took the measuring CPU … 12 % of the run".
    pub text: String,
}

impl Fitness {
    /// Adds a finding read from a suite's data rather than the
    /// environment (the ops table's issue width), raising the verdict.
    pub fn add(&mut self, f: Finding) {
        self.findings.push(f);
        self.verdict = verdict_of(&self.findings);
    }

    /// The fitness of a file with no environment section (written before
    /// format 1.2) but findings from its data.
    pub fn without_environment(findings: Vec<Finding>) -> Fitness {
        Fitness {
            verdict: verdict_of(&findings),
            findings,
            span_s: 0.0,
            measuring_cpu: None,
            core_clock_ghz: Vec::new(),
            configuration: Vec::new(),
            notes: vec!["the file has no environment section (written before format 1.2): only what its data show is judged".into()],
            affects: Vec::new(),
        }
    }
}

fn verdict_of(findings: &[Finding]) -> Level {
    findings
        .iter()
        .map(|f| f.level)
        .max()
        .filter(|l| *l != Level::Unknown)
        .unwrap_or(Level::Unknown)
}

/// Each suite judged over its own stretch of the run: from the sample
/// before it (`start` or `after` the suite before) to `after SUITE`, the
/// samples within included. Suites with no `after` sample (an interrupted
/// run's last) are left out.
pub fn by_suite(env: &Environment, suites: &[String]) -> Vec<(String, Fitness)> {
    let mut out = Vec::new();
    for suite in suites {
        let end_label = format!("after {suite}");
        let Some(end) = env.samples.iter().position(|s| s.at == end_label) else {
            continue;
        };
        let start = env.samples[..end]
            .iter()
            .rposition(|s| s.at == "start" || s.at.starts_with("after "))
            .unwrap_or(0);
        if start >= end {
            continue;
        }
        let part = Environment {
            samples: env.samples[start..=end].to_vec(),
            ..env.clone()
        };
        out.push((suite.clone(), assess(&part)));
    }
    out
}

/// The sentence a cell shows beside its numbers when its stretch of the
/// run was not fine.
pub fn affected(cell: &str, f: &Fitness) -> Option<Affected> {
    if f.verdict < Level::Disturbed {
        return None;
    }
    let what: Vec<&str> = f
        .findings
        .iter()
        .filter(|x| x.level >= Level::Disturbed)
        .map(|x| x.text.as_str())
        .collect();
    let word = if f.verdict == Level::Unfit {
        "unfit"
    } else {
        "disturbed"
    };
    Some(Affected {
        cell: cell.to_string(),
        level: f.verdict,
        text: format!("measured while the machine was {word}: {}", what.join("; ")),
    })
}

/// One interval's numerator and denominator; the figure is their ratio
/// (× `scale`), summed over the intervals for the whole run.
type Part = Option<(f64, f64)>;

fn interval_label(a: &EnvSample, b: &EnvSample) -> String {
    format!("{} → {}", a.at, b.at)
}

fn ns(a: &EnvSample, b: &EnvSample) -> f64 {
    b.monotonic_ns.saturating_sub(a.monotonic_ns) as f64
}

/// The measuring CPU of an interval: where the thread was at its end.
fn cpu_times(s: &EnvSample, cpu: Option<u32>) -> Option<&crate::format::CpuTimes> {
    let cpu = cpu?;
    s.cpus.iter().find(|c| c.cpu == cpu)
}

fn total(c: &crate::format::CpuTimes) -> u64 {
    c.user
        .saturating_add(c.nice)
        .saturating_add(c.system)
        .saturating_add(c.idle)
        .saturating_add(c.iowait)
        .saturating_add(c.irq)
        .saturating_add(c.softirq)
        .saturating_add(c.steal)
}

fn busy(c: &crate::format::CpuTimes) -> u64 {
    total(c)
        .saturating_sub(c.idle)
        .saturating_sub(c.iowait)
        .saturating_sub(c.steal)
}

struct Signal {
    name: &'static str,
    unit: &'static str,
    scale: f64,
    thresholds: Thresholds,
    part: fn(&EnvSample, &EnvSample, Option<u64>) -> Part,
    missing: &'static str,
    evidence: &'static str,
    advice: &'static str,
    text: fn(f64) -> String,
}

const SIGNALS: &[Signal] = &[
    Signal {
        name: "steal",
        unit: "%",
        scale: 100.0,
        thresholds: STEAL,
        part: |a, b, _| {
            let (x, y) = (cpu_times(a, b.cpu)?, cpu_times(b, b.cpu)?);
            let t = total(y).checked_sub(total(x))?;
            Some((y.steal.saturating_sub(x.steal) as f64, t as f64))
        },
        missing: "no CPU times of the measuring CPU (/proc/stat or sched_getcpu unreadable)",
        advice: "the host ran other work on this vCPU's core: measure at a quieter time, or on a dedicated (bare-metal or pinned) instance",
        evidence: "the measuring CPU's steal time in /proc/stat: time the hypervisor ran something else while this vCPU had work",
        text: |v| format!("steal {} of the measuring CPU's time", pct(v)),
    },
    Signal {
        name: "cpu_taken",
        unit: "%",
        scale: 100.0,
        thresholds: CPU_TAKEN,
        part: |a, b, _| {
            let (x, y) = (a.thread.as_ref()?, b.thread.as_ref()?);
            Some((y.wait_ns.saturating_sub(x.wait_ns) as f64, ns(a, b)))
        },
        missing: "no scheduler statistics of the measuring thread (/proc/thread-self/schedstat)",
        advice: "another task runs on the measuring CPU: stop it, pin tickbook to an idle CPU (taskset -c N tickbook collect …), or isolate one (isolcpus=)",
        evidence: "the measuring thread's run-queue wait in /proc/thread-self/schedstat: time it was ready to run while another task had its CPU",
        text: |v| format!("other tasks took the measuring CPU from the measuring thread {} of the run", pct(v)),
    },
    Signal {
        name: "involuntary_switches",
        unit: "/s",
        scale: 1e9,
        thresholds: SWITCHES,
        part: |a, b, _| {
            let (x, y) = (a.process.as_ref()?, b.process.as_ref()?);
            Some((
                y.involuntary_switches.saturating_sub(x.involuntary_switches) as f64,
                ns(a, b),
            ))
        },
        missing: "no getrusage figures",
        advice: "the collector is being preempted: stop what competes for its CPU, or pin it to an idle or isolated one",
        evidence: "getrusage's ru_nivcsw of the collector: times the kernel took a CPU from it",
        text: |v| format!("the kernel preempted the collector {} times a second", num(v)),
    },
    Signal {
        name: "interrupts",
        unit: "/s",
        scale: 1e9,
        thresholds: INTERRUPTS,
        part: |a, b, _| {
            let x = cpu_times(a, b.cpu)?.interrupts?;
            let y = cpu_times(b, b.cpu)?.interrupts?;
            Some((y.checked_sub(x)? as f64, ns(a, b)))
        },
        missing: "no per-CPU interrupt counts (/proc/interrupts or sched_getcpu unreadable)",
        advice: "steer device interrupts off the measuring CPU (stop irqbalance, write /proc/irq/*/smp_affinity_list) and boot it nohz_full",
        evidence: "the measuring CPU's column of /proc/interrupts (timer ticks, IPIs, devices)",
        text: |v| format!("{} interrupts a second on the measuring CPU", num(v)),
    },
    Signal {
        name: "other_cpus",
        unit: "%",
        scale: 100.0,
        thresholds: OTHER_CPUS,
        part: |a, b, hz| {
            let mine = b.cpu?;
            let (mut busy_ticks, mut all) = (0u64, 0u64);
            for y in b.cpus.iter().filter(|c| c.cpu != mine) {
                let x = a.cpus.iter().find(|c| c.cpu == y.cpu)?;
                busy_ticks += busy(y).saturating_sub(busy(x));
                all += total(y).saturating_sub(total(x));
            }
            if all == 0 {
                return None;
            }
            // The collector's own other threads (not the measuring one) may
            // have run there: their CPU time is not another process's load.
            let own = match (&a.process, &b.process, &a.thread, &b.thread, hz) {
                (Some(pa), Some(pb), Some(ta), Some(tb), Some(hz)) => {
                    let process_us = (pb.user_us + pb.system_us)
                        .saturating_sub(pa.user_us + pa.system_us);
                    let thread_us = tb.run_ns.saturating_sub(ta.run_ns) / 1000;
                    process_us.saturating_sub(thread_us) as f64 * hz as f64 / 1e6
                }
                _ => 0.0,
            };
            Some(((busy_ticks as f64 - own).max(0.0), all as f64))
        },
        missing: "no CPU times of the other CPUs (/proc/stat unreadable, sched_getcpu failed, or one CPU only)",
        advice: "other processes keep the other CPUs busy; they share caches and memory bandwidth (in a VM perhaps the physical core): stop them, or read the results as those of a loaded machine",
        evidence: "the busy share of every other CPU in /proc/stat, less the collector's own other threads",
        text: |v| format!("other processes kept the other CPUs {} busy", pct(v)),
    },
];

fn pct(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.1} %")
    } else {
        format!("{v:.0} %")
    }
}

fn num(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
}

fn level(v: f64, t: Thresholds) -> Level {
    if t.unfit.is_some_and(|u| v >= u) {
        Level::Unfit
    } else if v >= t.disturbed {
        Level::Disturbed
    } else {
        Level::Fine
    }
}

fn unknown(name: &'static str, unit: &'static str, t: Thresholds, why: String) -> Finding {
    Finding {
        signal: name,
        level: Level::Unknown,
        figure: None,
        unit,
        text: format!("{name}: not measured"),
        evidence: String::new(),
        worst: None,
        thresholds: t,
        advice: None,
        reason: Some(why),
        rule: None,
    }
}

fn signal_finding(s: &Signal, env: &Environment) -> Finding {
    let pairs: Vec<(&EnvSample, &EnvSample)> =
        env.samples.windows(2).map(|w| (&w[0], &w[1])).collect();
    let parts: Vec<(String, f64, f64)> = pairs
        .iter()
        .filter_map(|(a, b)| {
            let (n, d) = (s.part)(a, b, env.user_hz)?;
            (d > 0.0 && n.is_finite()).then(|| (interval_label(a, b), n, d))
        })
        .collect();
    if pairs.is_empty() {
        return unknown(
            s.name,
            s.unit,
            s.thresholds,
            "fewer than two environment samples".to_string(),
        );
    }
    if parts.is_empty() {
        return unknown(s.name, s.unit, s.thresholds, s.missing.to_string());
    }
    let (n, d) = parts
        .iter()
        .fold((0.0, 0.0), |(n, d), (_, a, b)| (n + a, d + b));
    let figure = n / d * s.scale;
    let level = level(figure, s.thresholds);
    let worst = (parts.len() > 1 && level > Level::Fine)
        .then(|| {
            parts
                .iter()
                .map(|(l, a, b)| (l, a / b * s.scale))
                .max_by(|x, y| x.1.total_cmp(&y.1))
                .map(|(l, v)| Worst {
                    interval: l.clone(),
                    figure: v,
                })
        })
        .flatten();
    Finding {
        signal: s.name,
        level,
        figure: Some(figure),
        unit: s.unit,
        text: (s.text)(figure),
        evidence: s.evidence.to_string(),
        worst,
        thresholds: s.thresholds,
        advice: (figure >= s.thresholds.disturbed).then_some(s.advice),
        reason: None,
        rule: None,
    }
}

/// The counter's frequency from the first and last samples' counter and
/// monotonic reads, Hz.
fn counter_hz(env: &Environment) -> Option<f64> {
    let with: Vec<&EnvSample> = env.samples.iter().filter(|s| s.counter.is_some()).collect();
    let (a, b) = (with.first()?, with.last()?);
    let dt = ns(a, b);
    let dc = b.counter?.checked_sub(a.counter?)? as f64;
    (dt >= 1e6 && dc > 0.0).then(|| dc / dt * 1e9)
}

/// Under a hypervisor with no cpufreq in the guest the host alone sets the
/// core clock; advice to set the governor would be advice nobody can follow.
fn host_sets_clock(env: &Environment) -> bool {
    let check = |name: &str| env.checks.iter().find(|c| c.name == name);
    check("hypervisor").is_some_and(|c| c.value.is_some())
        && check("cpu_governor").is_some_and(|c| c.value.is_none())
}

fn core_clock(env: &Environment) -> (Finding, Vec<(String, Option<f64>)>) {
    let hz = counter_hz(env);
    let ghz: Vec<(String, Option<f64>)> = env
        .samples
        .iter()
        .map(|s| {
            let tpc = s
                .counter_ticks_per_cycle
                .filter(|v| v.is_finite() && *v > 0.0);
            (s.at.clone(), hz.zip(tpc).map(|(h, t)| h / t / 1e9))
        })
        .collect();
    // The change is of cycles per counter tick, which needs no frequency.
    let rates: Vec<(&str, f64)> = env
        .samples
        .iter()
        .filter_map(|s| {
            let t = s
                .counter_ticks_per_cycle
                .filter(|v| v.is_finite() && *v > 0.0)?;
            Some((s.at.as_str(), 1.0 / t))
        })
        .collect();
    let t = CORE_CLOCK;
    if rates.len() < 2 {
        let why = if env.samples.len() < 2 {
            "fewer than two environment samples".to_string()
        } else {
            env.notes
                .iter()
                .find(|n| n.starts_with("no core clock"))
                .cloned()
                .unwrap_or_else(|| "no sample timed the core clock".to_string())
        };
        return (unknown("core_clock", "%", t, why), ghz);
    }
    let first = rates[0].1;
    let (at, change) = rates[1..]
        .iter()
        .map(|(at, r)| (*at, (r / first - 1.0) * 100.0))
        .max_by(|x, y| x.1.abs().total_cmp(&y.1.abs()))
        .unwrap_or(("", 0.0));
    let (last_at, last) = rates[rates.len() - 1];
    let last_change = (last / first - 1.0) * 100.0;
    let dir = |c: f64| if c < 0.0 { "dropped" } else { "rose" };
    let mut text = format!(
        "core clock {} {} from {} to {}",
        dir(last_change),
        pct(last_change.abs()),
        rates[0].0,
        last_at
    );
    if at != last_at {
        text.push_str(&format!(" ({} {} at {at})", dir(change), pct(change.abs())));
    }
    if let (Some(a), Some(b)) = (ghz.first().and_then(|g| g.1), ghz.last().and_then(|g| g.1)) {
        text.push_str(&format!(": {a:.2} → {b:.2} GHz"));
    }
    let finding = Finding {
        signal: "core_clock",
        level: level(change.abs(), t),
        figure: Some(change.abs()),
        unit: "%",
        text,
        evidence: "short chains of dependent adds (one a cycle) timed by the cycle counter at each sample; the figure is the largest change from the first".to_string(),
        worst: None,
        thresholds: t,
        advice: (change.abs() >= t.disturbed).then_some(if host_sets_clock(env) {
            "the core clock moved during the run, and in this VM the host sets it (no cpufreq in the guest): nothing here can hold it. Read times in ns as uncertain by that much, prefer figures in cycles, and compare by interleaving (tickbook run) rather than run after run"
        } else {
            "the core clock moved during the run: set the governor to performance and turn boost off where you can (see the configuration), warm the machine up first, and keep other load off the machine"
        }),
        reason: None,
        rule: None,
    };
    (finding, ghz)
}

/// The findings of one file's environment.
pub fn assess(env: &Environment) -> Fitness {
    let mut findings: Vec<Finding> = SIGNALS.iter().map(|s| signal_finding(s, env)).collect();
    let (clock, core_clock_ghz) = core_clock(env);
    findings.insert(2, clock);
    let verdict = verdict_of(&findings);
    let span_s = match (env.samples.first(), env.samples.last()) {
        (Some(a), Some(b)) => ns(a, b) / 1e9,
        _ => 0.0,
    };
    Fitness {
        verdict,
        findings,
        span_s,
        measuring_cpu: env.samples.last().and_then(|s| s.cpu),
        core_clock_ghz,
        configuration: env
            .checks
            .iter()
            .filter(|c| c.quiet == Some(false) || c.not_readable.is_some())
            .cloned()
            .collect(),
        notes: env.notes.clone(),
        affects: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{CpuTimes, ProcessUsage, ThreadSched};

    /// Two CPUs; CPU 0 measures. Per second of wall time (100 ticks):
    /// `steal` ticks of steal and `other_busy` busy ticks on CPU 1, `wait`
    /// ms of run-queue wait, `switches` preemptions, `irq` interrupts.
    fn env(
        seconds: u64,
        steal: u64,
        other_busy: u64,
        wait_ms: u64,
        switches: u64,
        irq: u64,
        tpc: &[f64],
    ) -> Environment {
        let samples = tpc
            .iter()
            .enumerate()
            .map(|(i, &t)| {
                let i = i as u64;
                let s = i * seconds;
                let cpu0 = CpuTimes {
                    cpu: 0,
                    user: s * (100 - steal),
                    steal: s * steal,
                    interrupts: Some(s * irq),
                    ..CpuTimes::default()
                };
                let cpu1 = CpuTimes {
                    cpu: 1,
                    user: s * other_busy,
                    idle: s * (100 - other_busy),
                    interrupts: Some(s * 10),
                    ..CpuTimes::default()
                };
                EnvSample {
                    at: format!("s{i}"),
                    monotonic_ns: s * 1_000_000_000,
                    counter: Some(s * 2_600_000_000),
                    counter_ticks_per_cycle: Some(t),
                    cpu: Some(0),
                    cpus: vec![cpu0, cpu1],
                    process: Some(ProcessUsage {
                        user_us: s * 1_000_000,
                        involuntary_switches: s * switches,
                        ..ProcessUsage::default()
                    }),
                    thread: Some(ThreadSched {
                        run_ns: s * 1_000_000_000,
                        wait_ns: s * wait_ms * 1_000_000,
                        timeslices: s,
                    }),
                }
            })
            .collect();
        Environment {
            user_hz: Some(100),
            samples,
            ..Environment::default()
        }
    }

    fn find<'a>(f: &'a Fitness, signal: &str) -> &'a Finding {
        f.findings
            .iter()
            .find(|x| x.signal == signal)
            .expect(signal)
    }

    #[test]
    fn a_quiet_run_is_fine() {
        let f = assess(&env(5, 0, 2, 1, 1, 300, &[0.7027, 0.7030, 0.7025]));
        assert_eq!(f.verdict, Level::Fine, "{f:#?}");
        assert!(f
            .findings
            .iter()
            .all(|x| x.worst.is_none() && x.advice.is_none()));
        assert!((find(&f, "cpu_taken").figure.unwrap() - 0.1).abs() < 1e-9);
        assert!((find(&f, "interrupts").figure.unwrap() - 300.0).abs() < 1e-9);
        assert!((find(&f, "other_cpus").figure.unwrap() - 2.0).abs() < 1e-9);
        assert!((f.span_s - 10.0).abs() < 1e-12);
        // 2.6 GHz counter, 0.7027 ticks a cycle: 3.70 GHz.
        let g = f.core_clock_ghz[0].1.unwrap();
        assert!((g - 2.6 / 0.7027).abs() < 1e-9, "{g}");
    }

    #[test]
    fn each_disturbance_is_named_with_its_size() {
        // Another task on the measuring CPU: half the wall time waiting.
        let f = assess(&env(5, 0, 0, 500, 250, 300, &[0.7, 0.7, 0.7]));
        let c = find(&f, "cpu_taken");
        assert_eq!(c.level, Level::Unfit);
        assert!((c.figure.unwrap() - 50.0).abs() < 1e-9);
        assert!(c.advice.is_some_and(|a| a.contains("taskset")));
        assert!(c.text.contains("50 %"), "{}", c.text);
        assert_eq!(find(&f, "involuntary_switches").level, Level::Unfit);
        assert_eq!(f.verdict, Level::Unfit);

        let f = assess(&env(5, 12, 95, 0, 0, 300, &[0.7, 0.7, 0.7]));
        let s = find(&f, "steal");
        assert!((s.figure.unwrap() - 12.0).abs() < 1e-9 && s.level == Level::Unfit);
        let o = find(&f, "other_cpus");
        assert!((o.figure.unwrap() - 95.0).abs() < 1e-9 && o.level == Level::Disturbed);

        // The core clock falling 8 %: ticks per cycle up by 1/0.92.
        let f = assess(&env(5, 0, 0, 0, 0, 300, &[0.7, 0.72, 0.7 / 0.92]));
        let k = find(&f, "core_clock");
        assert!((k.figure.unwrap() - 8.0).abs() < 1e-9, "{k:?}");
        assert_eq!(k.level, Level::Disturbed);
        assert!(k.text.starts_with("core clock dropped 8.0 %"), "{}", k.text);
    }

    #[test]
    fn the_worst_interval_is_named() {
        let mut e = env(5, 0, 0, 0, 0, 300, &[0.7, 0.7, 0.7]);
        // 2 s of waiting in the second interval only.
        e.samples[2].thread.as_mut().unwrap().wait_ns += 2_000_000_000;
        let c = find(&assess(&e), "cpu_taken").clone();
        assert!((c.figure.unwrap() - 20.0).abs() < 1e-9);
        let w = c.worst.expect("two intervals");
        assert_eq!(w.interval, "s1 → s2");
        assert!((w.figure - 40.0).abs() < 1e-9);
    }

    #[test]
    fn what_cannot_be_read_is_unknown_with_its_reason() {
        let mut e = env(5, 0, 0, 0, 0, 300, &[0.7, 0.7]);
        for s in &mut e.samples {
            s.thread = None;
            s.counter_ticks_per_cycle = None;
            s.cpus.truncate(1);
        }
        e.notes
            .push("no core clock: the cycle counter cannot be read".into());
        let f = assess(&e);
        let c = find(&f, "cpu_taken");
        assert_eq!(c.level, Level::Unknown);
        assert!(c.reason.as_deref().unwrap().contains("schedstat"));
        assert!(find(&f, "core_clock")
            .reason
            .as_deref()
            .unwrap()
            .contains("cycle counter"));
        assert_eq!(find(&f, "other_cpus").level, Level::Unknown);
        assert_eq!(f.verdict, Level::Fine);
        let none = assess(&Environment::default());
        assert_eq!(none.verdict, Level::Unknown);
        assert!(none.findings.iter().all(|f| f.level == Level::Unknown));
    }
}
