//! `tickbook campaign status`: each task's state from the queue (`squeue`),
//! accounting (`sacct`, when the cluster keeps it), the task's log (Slurm
//! writes why it cancelled a job there) and its result file.

use super::manifest::{self, Manifest};
use clap::Args;
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;
use tickbook_analysis::format::RunFile;

#[derive(Args, Debug)]
pub struct StatusArgs {
    /// The campaign folder.
    dir: std::path::PathBuf,
    /// One JSON document instead of the table.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Its file is complete and every suite finished.
    Done,
    /// Never submitted (a plan), or queued.
    Pending,
    Running,
    /// Ended without a complete file.
    Failed,
    /// Neither in the queue nor a file: never ran, or cancelled before it started.
    Missing,
}

#[derive(Debug, Serialize)]
pub struct TaskStatus {
    pub task: u32,
    pub node: String,
    pub execution: u32,
    pub state: State,
    /// Why, for every state but done.
    pub why: String,
    pub job: Option<String>,
    pub file: String,
}

pub fn run(a: StatusArgs) -> Result<ExitCode, String> {
    super::require_slurm()?;
    let dir = std::path::absolute(&a.dir).map_err(|e| format!("{}: {e}", a.dir.display()))?;
    let m = Manifest::read(&dir)?;
    let tasks = gather(&m, &dir)?;
    let count = |s: State| tasks.iter().filter(|t| t.state == s).count();
    let summary = format!(
        "{} tasks: {} done, {} pending, {} running, {} failed, {} missing",
        tasks.len(),
        count(State::Done),
        count(State::Pending),
        count(State::Running),
        count(State::Failed),
        count(State::Missing)
    );
    if a.json {
        let doc = serde_json::json!({ "campaign": m.name, "summary": summary, "tasks": tasks });
        println!("{doc:#}");
    } else {
        println!(
            "{:>5}  {:<12} {:>4}  {:<8} {:<12} why",
            "task", "node", "exec", "state", "job"
        );
        for t in &tasks {
            let state = serde_json::to_value(t.state)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            println!(
                "{:>5}  {:<12} {:>4}  {:<8} {:<12} {}",
                t.task,
                t.node,
                t.execution,
                state,
                t.job.as_deref().unwrap_or("-"),
                t.why
            );
        }
        println!("{summary}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Every task's state, in task order.
pub fn gather(m: &Manifest, dir: &Path) -> Result<Vec<TaskStatus>, String> {
    let jobs: Vec<u64> = m.submissions.iter().map(|s| s.job_id).collect();
    let queue = if jobs.is_empty() {
        HashMap::new()
    } else {
        squeue(&jobs)?
    };
    let accounting = if jobs.is_empty() {
        HashMap::new()
    } else {
        sacct(&jobs)
    };
    let mut out = Vec::new();
    for task in 0..m.tasks() {
        let Some((node, execution)) = m.place(task) else {
            continue;
        };
        let rel = m.result_file(task).unwrap_or_default();
        let job = m.last_job(task);
        // Array indices are executions (see `sbatch_args`).
        let key = job.map(|j| (j, execution));
        let (state, why) = classify(
            job,
            key.and_then(|k| queue.get(&k)),
            key.and_then(|k| accounting.get(&k)),
            key.and_then(|(j, t)| {
                cancel_line(&dir.join(manifest::LOGS).join(format!("{j}_{t}.out")))
            }),
            &dir.join(&rel),
        );
        out.push(TaskStatus {
            task,
            node: node.to_string(),
            execution,
            state,
            why,
            job: job.map(|j| format!("{j}_{execution}")),
            file: rel.to_string_lossy().into_owned(),
        });
    }
    Ok(out)
}

fn classify(
    job: Option<u64>,
    queued: Option<&(String, String)>,
    accounted: Option<&String>,
    log_line: Option<String>,
    file: &Path,
) -> (State, String) {
    if job.is_none() {
        return (State::Pending, "planned, not submitted".into());
    }
    if let Some((state, reason)) = queued {
        return match state.as_str() {
            "RUNNING" | "COMPLETING" | "CONFIGURING" => (
                State::Running,
                format!("{} on {reason}", state.to_lowercase()),
            ),
            _ => (
                State::Pending,
                format!("{} ({reason})", state.to_lowercase()),
            ),
        };
    }
    let file_state = read_file_state(file);
    if let Ok(FileState::Done) = file_state {
        return (State::Done, String::new());
    }
    // The scheduler's word first, then what the file shows.
    let mut why: Vec<String> = Vec::new();
    if let Some(s) = accounted {
        why.push(format!("Slurm: {s}"));
    } else if let Some(l) = log_line {
        why.push(l);
    }
    match file_state {
        Ok(FileState::Done) => (State::Done, String::new()),
        Ok(FileState::Partial(s)) => {
            why.push(s);
            (State::Failed, why.join("; "))
        }
        Err(FileProblem::Absent) => {
            if why.is_empty() {
                why.push(
                    "not in the queue and no result file: cancelled before it started, or lost"
                        .into(),
                );
            } else {
                why.push("no result file".into());
            }
            (State::Missing, why.join("; "))
        }
        Err(FileProblem::Unreadable(e)) => {
            why.push(format!("result file unreadable: {e}"));
            (State::Failed, why.join("; "))
        }
    }
}

enum FileState {
    Done,
    /// Readable, not complete: what it holds.
    Partial(String),
}

enum FileProblem {
    Absent,
    Unreadable(String),
}

fn read_file_state(file: &Path) -> Result<FileState, FileProblem> {
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(FileProblem::Absent),
        Err(e) => return Err(FileProblem::Unreadable(e.to_string())),
    };
    let run: RunFile =
        serde_json::from_slice(&bytes).map_err(|e| FileProblem::Unreadable(e.to_string()))?;
    let finished: Vec<&str> = run
        .suites
        .iter()
        .filter(|s| s.status == "complete")
        .map(|s| s.suite.as_str())
        .collect();
    let failed: Vec<String> = run
        .suites
        .iter()
        .filter(|s| s.status != "complete")
        .map(|s| {
            format!(
                "{} failed: {}",
                s.suite,
                s.error.as_deref().unwrap_or("no reason given")
            )
        })
        .collect();
    if run.status == "complete" && failed.is_empty() {
        return Ok(FileState::Done);
    }
    let kept = if finished.is_empty() {
        "no suite finished".to_string()
    } else {
        format!("partial file keeps {}", finished.join(", "))
    };
    let what = match run.status.as_str() {
        "interrupted" => "the run was interrupted by a signal".to_string(),
        "in_progress" => "the run ended without finishing its file (killed?)".to_string(),
        _ => failed.join("; "),
    };
    Ok(FileState::Partial(format!("{what}; {kept}")))
}

/// Slurm's own line on why it ended the job (`*** JOB … CANCELLED AT … ***`).
fn cancel_line(log: &Path) -> Option<String> {
    let text = std::fs::read_to_string(log).ok()?;
    text.lines()
        .rev()
        .find(|l| l.contains("***") && (l.contains("CANCELLED") || l.contains("TIME LIMIT")))
        .map(|l| {
            // Drop slurmstepd's prefix (`slurmstepd-n1: error: `).
            let l = l.trim();
            l.find("***").map_or(l, |i| &l[i..]).to_string()
        })
}

/// `(array job, task) → (state, reason or node)` for the campaign's queued tasks.
type Queue = HashMap<(u64, u32), (String, String)>;

fn squeue(jobs: &[u64]) -> Result<Queue, String> {
    let out = super::slurm(
        "squeue",
        &[
            "-h".into(),
            "-r".into(),
            "--me".into(),
            "-o".into(),
            "%i|%T|%R".into(),
        ],
    )?;
    let mut map = HashMap::new();
    for line in out.lines() {
        let mut it = line.split('|');
        let (Some(id), Some(state), Some(reason)) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        if let Some(key) = array_task(id).filter(|(j, _)| jobs.contains(j)) {
            // %R is the pending reason in parentheses, or the node list.
            let reason = reason.trim().trim_start_matches('(').trim_end_matches(')');
            map.insert(key, (state.trim().to_string(), reason.to_string()));
        }
    }
    Ok(map)
}

/// Accounting's final state of each task, when the cluster keeps accounting
/// (on one without it sacct fails, and the log and file must do).
fn sacct(jobs: &[u64]) -> HashMap<(u64, u32), String> {
    let ids: Vec<String> = jobs.iter().map(u64::to_string).collect();
    let Ok(out) = super::slurm(
        "sacct",
        &[
            "-n".into(),
            "-P".into(),
            "-X".into(),
            "-o".into(),
            "JobID,State,ExitCode".into(),
            "-j".into(),
            ids.join(","),
        ],
    ) else {
        return HashMap::new();
    };
    let mut map = HashMap::new();
    for line in out.lines() {
        let mut it = line.split('|');
        let (Some(id), Some(state), Some(code)) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        if let Some(key) = array_task(id) {
            let state = state.trim();
            if state != "COMPLETED" && state != "PENDING" && state != "RUNNING" {
                map.insert(key, format!("{state}, exit code {}", code.trim()));
            }
        }
    }
    map
}

/// `12_3` → (12, 3); pending ranges (`12_[3-5]`) are not one task.
fn array_task(id: &str) -> Option<(u64, u32)> {
    let (j, t) = id.trim().split_once('_')?;
    Some((j.parse().ok()?, t.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn run_json(status: &str, suites: &str) -> String {
        format!(
            r#"{{"format":"tickbook","format_version":"1.1","kind":"run","tool":{{"name":"tickbook","version":"0"}},
            "started_at":"2026-01-01T00:00:00Z","status":"{status}","command_line":[],
            "host":{{"hostname":"h","os":"linux","arch":"x86_64"}},"suites":[{suites}]}}"#
        )
    }

    const CLOCKS: &str = r#"{"suite":"clocks","status":"complete","started_at":"2026-01-01T00:00:00Z","ended_at":"2026-01-01T00:00:01Z"}"#;

    #[test]
    fn a_task_is_classified_from_queue_log_and_file() {
        let dir = std::env::temp_dir().join(format!("tickbook-status-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let done = write(&dir, "done.json", &run_json("complete", CLOCKS));
        let cut = write(&dir, "cut.json", &run_json("interrupted", CLOCKS));
        let torn = write(&dir, "torn.json", "{\"format\":");
        let absent = dir.join("absent.json");

        assert_eq!(classify(None, None, None, None, &absent).0, State::Pending);
        let q = ("RUNNING".to_string(), "n1".to_string());
        assert_eq!(
            classify(Some(1), Some(&q), None, None, &cut).0,
            State::Running
        );
        assert_eq!(classify(Some(1), None, None, None, &done).0, State::Done);

        let cancelled = "JOB 9 ON n1 CANCELLED AT 2026-01-01T00:00:01 ***".to_string();
        let (s, why) = classify(Some(1), None, None, Some(cancelled), &cut);
        assert_eq!(s, State::Failed);
        assert!(
            why.contains("CANCELLED") && why.contains("keeps clocks"),
            "{why}"
        );

        let (s, why) = classify(Some(1), None, None, None, &absent);
        assert_eq!(s, State::Missing);
        assert!(why.contains("cancelled before it started"), "{why}");

        let acct = "TIMEOUT, exit code 0:15".to_string();
        let (s, why) = classify(Some(1), None, Some(&acct), None, &torn);
        assert_eq!(s, State::Failed);
        assert!(
            why.starts_with("Slurm: TIMEOUT") && why.contains("unreadable"),
            "{why}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn array_task_ids() {
        assert_eq!(array_task("12_3"), Some((12, 3)));
        assert_eq!(array_task("12_[3-5%1]"), None);
        assert_eq!(array_task("12"), None);
    }
}
