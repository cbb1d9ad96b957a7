//! One array task: which campaign task it is (from Slurm's environment and
//! the manifest), the CPUs it pins itself to, then `tickbook collect` in
//! this process with the file's `campaign` section filled in.

use super::manifest::{self, Manifest};
use clap::Parser;
use std::path::Path;
use std::process::ExitCode;
use tickbook_analysis::format::{Campaign, CpuPinning, SlurmJob};

/// The node's index in the manifest, set by `sbatch --export`.
pub const NODE_VAR: &str = "TICKBOOK_CAMPAIGN_NODE";

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok()?.trim().parse().ok()
}

fn env_str(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|s| !s.is_empty())
}

#[derive(Parser)]
struct Collect {
    #[command(flatten)]
    args: tickbook_measure::CollectArgs,
}

pub fn run(dir: &Path) -> ExitCode {
    match prepare(dir) {
        Ok(args) => tickbook_measure::run(args),
        Err(e) => {
            eprintln!("tickbook campaign task: {e}");
            ExitCode::FAILURE
        }
    }
}

fn prepare(dir: &Path) -> Result<tickbook_measure::CollectArgs, String> {
    let m = Manifest::read(dir)?;
    let execution = env_u64("SLURM_ARRAY_TASK_ID")
        .ok_or("not inside a Slurm array task (SLURM_ARRAY_TASK_ID is not set)")?;
    let node_index = env_u64(NODE_VAR)
        .ok_or_else(|| format!("{NODE_VAR} is not set: submit with tickbook campaign submit"))?;
    let task = node_index
        .checked_mul(u64::from(m.executions))
        .and_then(|t| t.checked_add(execution))
        .filter(|_| execution < u64::from(m.executions))
        .and_then(|t| u32::try_from(t).ok())
        .filter(|&t| t < m.tasks())
        .ok_or_else(|| {
            format!("node {node_index}, execution {execution} is not a task of this campaign")
        })?;
    let (planned, execution) = m
        .place(task)
        .ok_or_else(|| format!("task {task} has no node in the manifest"))?;
    let node = env_str("SLURMD_NODENAME").unwrap_or_else(|| planned.to_string());
    let out = dir.join(
        m.result_file(task)
            .ok_or_else(|| format!("task {task} has no file name"))?,
    );
    // A requeued task finds its earlier attempt: keep it beside the others.
    if out.exists() {
        let job = env_u64("SLURM_JOB_ID").unwrap_or(0);
        let stem = out
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let to = dir
            .join(manifest::ATTEMPTS)
            .join(format!("{stem}.before-job{job}.json"));
        let _ = std::fs::create_dir_all(dir.join(manifest::ATTEMPTS));
        std::fs::rename(&out, &to)
            .map_err(|e| format!("cannot move the earlier {}: {e}", out.display()))?;
    }
    let cpus_on_node = env_u64("SLURM_CPUS_ON_NODE").and_then(|v| u32::try_from(v).ok());
    let job_id = env_u64("SLURM_JOB_ID");
    let cpus = pin(job_id, &node, cpus_on_node);
    let mut argv: Vec<String> = vec!["collect".into()];
    argv.extend(m.suites.iter().cloned());
    if m.quick {
        argv.push("--quick".into());
    }
    argv.push("--out".into());
    argv.push(out.to_string_lossy().into_owned());
    let mut args = Collect::try_parse_from(&argv)
        .map_err(|e| format!("the manifest's collection is not valid: {e}"))?
        .args;
    if node != planned {
        eprintln!(
            "tickbook campaign task: task {task} was planned for {planned} and runs on {node}"
        );
    }
    args.campaign = Some(Campaign {
        name: m.name.clone(),
        task,
        node,
        execution,
        executions: m.executions,
        slurm: Some(SlurmJob {
            job_id,
            array_job_id: env_u64("SLURM_ARRAY_JOB_ID"),
            array_task_id: Some(execution),
            cluster: env_str("SLURM_CLUSTER_NAME"),
            partition: env_str("SLURM_JOB_PARTITION"),
            account: env_str("SLURM_JOB_ACCOUNT"),
            cpus_on_node,
        }),
        cpus: Some(cpus),
    });
    Ok(args)
}

/// Pins the process to the CPUs Slurm allocated. When Slurm's task plugin
/// has already bound the task (its mask is no wider than the allocation),
/// that mask is kept; otherwise the task binds itself to the allocation's
/// `CPU_IDs` from `scontrol show job -d`.
fn pin(job_id: Option<u64>, node: &str, cpus_on_node: Option<u32>) -> CpuPinning {
    let list = |v: &[usize]| manifest::ranges(&v.iter().map(|&c| c as u32).collect::<Vec<_>>());
    let allowed = match tickbook_measure::allowed_cpus() {
        Ok(a) => a,
        Err(e) => {
            return CpuPinning {
                how: "none".into(),
                note: Some(format!("sched_getaffinity: {e}")),
                ..CpuPinning::default()
            }
        }
    };
    let allocated = job_id.and_then(|id| allocated_cpus(id, node));
    let mut p = CpuPinning {
        allowed: Some(list(&allowed)),
        allocated: allocated.as_ref().map(|a| list(a)),
        ..CpuPinning::default()
    };
    if let Some(n) = cpus_on_node {
        if allowed.len() <= n as usize {
            p.how = "slurm".into();
            p.pinned = p.allowed.clone();
            return p;
        }
    }
    match allocated {
        Some(a) if !a.is_empty() && a.iter().all(|c| allowed.contains(c)) => {
            match tickbook_measure::pin_to(&a) {
                Ok(()) => {
                    p.how = "allocated".into();
                    p.pinned = Some(list(&a));
                }
                Err(e) => {
                    p.how = "none".into();
                    p.note = Some(format!("sched_setaffinity: {e}"));
                }
            }
        }
        Some(_) => {
            p.how = "none".into();
            p.note = Some("the allocated CPUs are not all in the task's affinity mask".into());
        }
        None => {
            p.how = "none".into();
            p.note = Some("scontrol show job -d gave no CPU_IDs for this node".into());
        }
    }
    p
}

/// `CPU_IDs` of this node's line in `scontrol show job -d ID`.
fn allocated_cpus(job_id: u64, node: &str) -> Option<Vec<usize>> {
    let out = super::slurm(
        "scontrol",
        &["show".into(), "job".into(), "-d".into(), job_id.to_string()],
    )
    .ok()?;
    parse_cpu_ids(&out, node)
}

fn parse_cpu_ids(scontrol: &str, node: &str) -> Option<Vec<usize>> {
    let lines: Vec<&str> = scontrol
        .lines()
        .filter(|l| l.contains("CPU_IDs="))
        .collect();
    let line = lines
        .iter()
        .find(|l| {
            l.split_whitespace()
                .any(|w| w.strip_prefix("Nodes=") == Some(node))
        })
        .or(if lines.len() == 1 {
            lines.first()
        } else {
            None
        })?;
    let ids = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("CPU_IDs="))?;
    let v = manifest::parse_ranges(ids)?;
    Some(v.into_iter().map(|c| c as usize).collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn cpu_ids_of_this_node() {
        let out = "JobId=7 ArrayJobId=5 ArrayTaskId=2\n   NodeList=n[1-2]\n     Nodes=n1 CPU_IDs=0-1,4 Mem=0 GRES=\n     Nodes=n2 CPU_IDs=3 Mem=0 GRES=\n";
        assert_eq!(super::parse_cpu_ids(out, "n1"), Some(vec![0, 1, 4]));
        assert_eq!(super::parse_cpu_ids(out, "n2"), Some(vec![3]));
        assert_eq!(super::parse_cpu_ids(out, "n3"), None);
        assert_eq!(super::parse_cpu_ids("no ids", "n1"), None);
    }
}
