//! Perf event counters of each run: task-clock (a software event, there
//! even where the machine has no hardware counters, a check on user +
//! system time), instructions and cycles.
//!
//! The counters are opened on the runner's own thread just before the
//! child is spawned, with `inherit` and `enable_on_exec`: the child gets a
//! copy of each when it is cloned, disabled, and the kernel enables it at
//! its `exec`, so the counts are the command's from its first instruction,
//! with everything it starts (the shell's children) added as they exit. The
//! runner's own event is never enabled (this thread does not exec). This is
//! what `perf stat` gets by holding its child in a pipe until the counters
//! are open on its pid; that needs the child to stop before `exec`, and
//! std's `spawn` returns only once the child has exec'd.

use std::collections::BTreeMap;
use std::io;

use perf_event::events::{Hardware, Software};
use perf_event::{Builder, Counter};

use crate::trace::sampler::{errno_hint, errno_name};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    TaskClock,
    Instructions,
    Cycles,
}

const EVENTS: [Event; 3] = [Event::TaskClock, Event::Instructions, Event::Cycles];

impl Event {
    /// The name in the file (`unavailable`'s keys; the runs' fields less
    /// their unit).
    pub fn name(self) -> &'static str {
        match self {
            Event::TaskClock => "task_clock",
            Event::Instructions => "instructions",
            Event::Cycles => "cycles",
        }
    }

    fn perf_name(self) -> &'static str {
        match self {
            Event::TaskClock => "PERF_COUNT_SW_TASK_CLOCK",
            Event::Instructions => "PERF_COUNT_HW_INSTRUCTIONS",
            Event::Cycles => "PERF_COUNT_HW_CPU_CYCLES",
        }
    }

    fn open(self, kernel: bool) -> io::Result<Counter> {
        let mut b = match self {
            Event::TaskClock => Builder::new(Software::TASK_CLOCK),
            Event::Instructions => Builder::new(Hardware::INSTRUCTIONS),
            Event::Cycles => Builder::new(Hardware::CPU_CYCLES),
        };
        b.observe_self()
            .any_cpu()
            .inherit(true)
            .enable_on_exec(true)
            .enabled(false)
            .exclude_kernel(!kernel)
            .exclude_hv(true);
        b.build()
    }
}

/// The events that open here, decided once before the runs.
#[derive(Debug, Clone)]
pub struct Plan {
    events: Vec<Event>,
    /// Whether kernel-mode work is counted (not where perf_event_paranoid
    /// allows user mode only).
    pub kernel: bool,
    /// Each event that did not open, with why.
    pub unavailable: BTreeMap<String, String>,
}

impl Plan {
    /// Open each event once as a run would and keep those that open;
    /// kernel mode is dropped for all when it is what is refused.
    pub fn probe() -> Plan {
        let denied = |e: &io::Error| matches!(e.raw_os_error(), Some(libc::EACCES | libc::EPERM));
        let kernel = !EVENTS
            .iter()
            .any(|ev| ev.open(true).is_err_and(|e| denied(&e)) && ev.open(false).is_ok());
        let mut events = Vec::new();
        let mut unavailable = BTreeMap::new();
        for ev in EVENTS {
            match ev.open(kernel) {
                Ok(_) => events.push(ev),
                Err(e) => {
                    unavailable.insert(
                        ev.name().to_string(),
                        format!(
                            "perf_event_open({}): {}{}",
                            ev.perf_name(),
                            errno_name(&e),
                            errno_hint(&e)
                        ),
                    );
                }
            }
        }
        Plan {
            events,
            kernel,
            unavailable,
        }
    }

    /// The counters for the next child, opened on this thread; an event
    /// that fails to open now is missing from this run only.
    pub fn arm(&self) -> Armed {
        Armed(
            self.events
                .iter()
                .filter_map(|&ev| ev.open(self.kernel).ok().map(|c| (ev, c)))
                .collect(),
        )
    }
}

/// Counters open for one child.
pub struct Armed(Vec<(Event, Counter)>);

/// One run's counts (task-clock in ns), scaled by enabled over running
/// time where the kernel multiplexed a counter, as `perf stat` does.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counts {
    pub task_clock_ns: Option<f64>,
    pub instructions: Option<f64>,
    pub cycles: Option<f64>,
}

impl Armed {
    /// Read after the child was reaped (its counts, and its children's,
    /// have then been added to this thread's events).
    pub fn read(self) -> Counts {
        let mut out = Counts::default();
        for (ev, mut c) in self.0 {
            let Ok(v) = c.read_count_and_time() else {
                continue;
            };
            let value = if v.time_running > 0 && v.time_running < v.time_enabled {
                v.count as f64 * v.time_enabled as f64 / v.time_running as f64
            } else {
                v.count as f64
            };
            match ev {
                Event::TaskClock => out.task_clock_ns = Some(value),
                Event::Instructions => out.instructions = Some(value),
                Event::Cycles => out.cycles = Some(value),
            }
        }
        out
    }
}
