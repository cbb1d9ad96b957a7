//! One run of a command as its own process: spawned in a process group of
//! its own (so a timeout or Ctrl-C ends everything it started), waited for
//! without reaping (`waitid` with `WNOWAIT`) while a watchdog may still kill
//! its group, then reaped by `wait4` for its CPU times, maximum RSS and
//! context switches.

use super::counters::{Counts, Plan};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How a command is started: through a shell (`SHELL -c CMD`) or, with
/// `-N`, split into words and run directly.
#[derive(Debug, Clone)]
pub enum Launch {
    Shell(String),
    Direct,
}

/// What one run gave.
#[derive(Debug, Clone, Copy)]
pub struct Outcome {
    pub wall: Duration,
    pub user: Duration,
    pub sys: Duration,
    pub max_rss_kib: u64,
    /// Involuntary context switches (`ru_nivcsw`): times the run was
    /// preempted, i.e. made to wait for a CPU while it could have run.
    pub nivcsw: u64,
    /// Voluntary ones (`ru_nvcsw`): the run waited of its own accord (I/O,
    /// sleep, its children).
    pub nvcsw: u64,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    /// Killed by the watchdog after `--timeout`.
    pub timed_out: bool,
    /// Killed because the run was asked to stop (SIGINT/SIGTERM).
    pub stopped: bool,
    /// Its perf event counts, from its exec (none without a plan).
    pub counts: Counts,
}

impl Outcome {
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0)
    }

    /// "exited with status 3", "was killed by signal 9 (SIGKILL)".
    pub fn status_text(&self) -> String {
        match (self.exit_code, self.signal) {
            (Some(c), _) => format!("exited with status {c}"),
            (None, Some(s)) => format!("was killed by signal {s}"),
            (None, None) => "ended in an unknown way".to_string(),
        }
    }
}

/// The process for `command`, or why it cannot be made (`-N` with a command
/// that does not split into words).
pub fn command_for(command: &str, launch: &Launch) -> Result<Command, String> {
    let mut c = match launch {
        Launch::Shell(shell) => {
            let mut c = Command::new(shell);
            c.arg("-c").arg(command);
            c
        }
        Launch::Direct => {
            let words = shlex::split(command).ok_or_else(|| {
                format!("cannot split `{command}` into words (unbalanced quotes?)")
            })?;
            let (program, args) = words
                .split_first()
                .ok_or_else(|| "an empty command cannot run without a shell".to_string())?;
            let mut c = Command::new(program);
            c.args(args);
            c
        }
    };
    c.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    Ok(c)
}

/// Run `command` once and time it. `stop` is polled while it runs: when it
/// says so, the run's process group is killed.
pub fn run_once(
    command: &str,
    launch: &Launch,
    timeout: Option<Duration>,
    stop: fn() -> bool,
) -> Result<Outcome, String> {
    run_counted(command, launch, timeout, stop, None)
}

/// `run_once` with the perf events of `counters` counted for the child.
pub fn run_counted(
    command: &str,
    launch: &Launch,
    timeout: Option<Duration>,
    stop: fn() -> bool,
    counters: Option<&Plan>,
) -> Result<Outcome, String> {
    let mut cmd = command_for(command, launch)?;
    // Opened before the clock starts: their cost is not the command's.
    let armed = counters.map(Plan::arm);
    let start = Instant::now();
    let child = cmd.spawn().map_err(|e| match launch {
        Launch::Shell(shell) => format!("cannot start the shell {shell}: {e}"),
        Launch::Direct => format!("cannot start `{command}`: {e}"),
    })?;
    let pid = child.id() as libc::pid_t;
    // The watchdog: kills the group at the deadline or on a stop request,
    // until told the child has ended.
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        let deadline = timeout.map(|t| start + t);
        loop {
            let now = Instant::now();
            let wait = match deadline {
                Some(d) if d <= now => return kill_group(pid, Some(true)),
                Some(d) => (d - now).min(Duration::from_millis(50)),
                None => Duration::from_millis(50),
            };
            match done_rx.recv_timeout(wait) {
                Err(mpsc::RecvTimeoutError::Timeout) if stop() => {
                    return kill_group(pid, Some(false));
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                _ => return None,
            }
        }
    });
    let waited = wait_unreaped(pid);
    let wall = start.elapsed();
    let _ = done_tx.send(());
    let killed = watchdog.join().unwrap_or(None);
    waited?;
    let (status, usage) = reap(pid)?;
    drop(child);
    let counts = armed.map(|a| a.read()).unwrap_or_default();
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    Ok(Outcome {
        wall,
        user: tv(usage.ru_utime),
        sys: tv(usage.ru_stime),
        max_rss_kib: usage.ru_maxrss.max(0) as u64,
        nivcsw: usage.ru_nivcsw.max(0) as u64,
        nvcsw: usage.ru_nvcsw.max(0) as u64,
        exit_code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        timed_out: killed == Some(true),
        stopped: killed == Some(false),
        counts,
    })
}

/// SIGKILL to the group led by `pid`; returns `why` for the watchdog's
/// answer (true: timeout, false: stop).
fn kill_group(pid: libc::pid_t, why: Option<bool>) -> Option<bool> {
    // SAFETY: kill(2) with a negative pid signals that process group; the
    // child is not reaped yet, so the group id is still ours.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
    why
}

/// Wait until `pid` has ended, leaving it a zombie (so its pid and group
/// stay valid while the watchdog may still signal them).
fn wait_unreaped(pid: libc::pid_t) -> Result<(), String> {
    loop {
        // SAFETY: waitid on our own child with a zeroed siginfo to fill.
        let rc = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(format!("waitid: {e}"));
        }
    }
}

/// Reap `pid`: its wait status and resource usage.
fn reap(pid: libc::pid_t) -> Result<(libc::c_int, libc::rusage), String> {
    loop {
        let mut status: libc::c_int = 0;
        // SAFETY: wait4 on our own ended child, writing to locals.
        let (rc, usage) = unsafe {
            let mut usage: libc::rusage = std::mem::zeroed();
            let rc = libc::wait4(pid, &mut status, 0, &mut usage);
            (rc, usage)
        };
        if rc == pid {
            return Ok((status, usage));
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(format!("wait4: {e}"));
        }
    }
}
