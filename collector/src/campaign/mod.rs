//! `tickbook campaign`: collections on many machines as Slurm job arrays.
//! A campaign folder on a filesystem the nodes share holds the manifest
//! (`manifest.rs`), the `sbatch` script, one result file per task, the
//! tasks' logs and the earlier attempts of resubmitted tasks. Each node's
//! executions are one array, submitted with `--nodelist` and run one at a
//! time (`%1`), so that executions never share a machine with each other.
//! `status.rs` reads the queue, accounting and files; `task.rs` is what an
//! array task runs.

pub(crate) mod manifest;
mod status;
mod task;

use clap::{Args, Subcommand};
use manifest::{Manifest, SlurmOptions, Submission};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use tickbook_analysis::suites::SuiteId;

#[derive(Args, Debug)]
pub struct CampaignArgs {
    #[command(subcommand)]
    command: CampaignCommand,
}

#[derive(Subcommand, Debug)]
enum CampaignCommand {
    /// Write the manifest and the sbatch script into DIR without submitting.
    Plan(PlanArgs),
    /// Plan (unless DIR holds an unsubmitted plan) and submit: one job array per node.
    Submit(PlanArgs),
    /// What ran, what is pending or running, what failed and why.
    Status(status::StatusArgs),
    /// Submit again only the tasks that failed or are missing.
    Resubmit(DirArg),
    /// Internal: one array task (the sbatch script runs it).
    #[command(hide = true)]
    Task(DirArg),
}

#[derive(Args, Debug)]
pub struct DirArg {
    /// The campaign folder.
    pub dir: PathBuf,
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    /// The campaign folder, on a filesystem every node sees.
    dir: PathBuf,
    /// Suites each task collects (default: all).
    #[arg(value_name = "SUITE", value_parser = clap::builder::PossibleValuesParser::new(SuiteId::ALL.iter().map(|id| id.name())))]
    suites: Vec<String>,
    /// Collect with `--quick`.
    #[arg(long)]
    quick: bool,
    /// The nodes, comma-separated (Slurm's host list syntax is not expanded).
    #[arg(long, value_delimiter = ',', conflicts_with = "node_count")]
    nodes: Vec<String>,
    /// Or this many nodes, the first ones `sinfo` lists as up in the partition.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    node_count: Option<u32>,
    /// Executions (separate processes, one after another) per node; at
    /// most 1000, Slurm's default largest array index.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    executions: u32,
    /// Slurm partition.
    #[arg(long)]
    partition: Option<String>,
    /// Slurm account.
    #[arg(long)]
    account: Option<String>,
    /// Time limit per task, in Slurm's syntax (e.g. `10`, `01:30:00`); at
    /// the limit Slurm sends SIGTERM and the task saves what finished.
    #[arg(long)]
    time: Option<String>,
    /// Slurm node features the nodes must have (`--constraint`).
    #[arg(long)]
    constraint: Option<String>,
    /// Whole nodes: no other job shares the node while a task measures.
    #[arg(long)]
    exclusive: bool,
    /// CPUs per task; the task pins itself to them.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    cpus_per_task: u32,
    /// Campaign name [default: the folder's name].
    #[arg(long)]
    name: Option<String>,
    /// The tickbook binary the tasks run; it must be on a filesystem the
    /// nodes see [default: this binary].
    #[arg(long)]
    tickbook: Option<PathBuf>,
    /// Print the sbatch script and the submissions; write and submit nothing.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(args: CampaignArgs) -> ExitCode {
    let result = match args.command {
        CampaignCommand::Plan(a) => plan_cmd(a, false),
        CampaignCommand::Submit(a) => plan_cmd(a, true),
        CampaignCommand::Status(a) => status::run(a),
        CampaignCommand::Resubmit(a) => resubmit(&a.dir),
        CampaignCommand::Task(a) => return task::run(&a.dir),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tickbook campaign: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Slurm's client commands are on PATH, or the one-line reason they are not.
pub fn require_slurm() -> Result<(), String> {
    if find_on_path("sbatch").is_some() {
        Ok(())
    } else {
        Err("Slurm is not installed on this machine (no sbatch on PATH); run tickbook campaign on a Slurm cluster's login node".into())
    }
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// Runs a Slurm command; its stdout, or its stderr's words as the error.
pub fn slurm(program: &str, args: &[String]) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        let err = err.trim();
        Err(format!(
            "{program} {} failed: {}",
            args.join(" "),
            if err.is_empty() {
                out.status.to_string()
            } else {
                err.to_string()
            }
        ))
    }
}

fn absolute(p: &Path) -> Result<PathBuf, String> {
    std::path::absolute(p).map_err(|e| format!("{}: {e}", p.display()))
}

fn plan_cmd(a: PlanArgs, submit: bool) -> Result<ExitCode, String> {
    // Planning with named nodes needs no Slurm (a plan can be prepared
    // anywhere); everything that asks or tells Slurm does.
    if submit && !a.dry_run || a.node_count.is_some() {
        require_slurm()?;
    }
    let dir = absolute(&a.dir)?;
    let existing = Manifest::read(&dir).ok();
    let plan_given = !a.suites.is_empty() || !a.nodes.is_empty() || a.node_count.is_some();
    let manifest = match existing {
        Some(m) if !m.submissions.is_empty() => {
            return Err(format!(
                "{} holds a submitted campaign already; see tickbook campaign status, or resubmit",
                dir.display()
            ))
        }
        Some(m) if submit && !plan_given => m,
        _ => plan(&a, &dir)?,
    };
    let script = sbatch_script(&manifest, &dir);
    if a.dry_run {
        print!("{script}");
        for (node, tasks) in per_node(&manifest, &(0..manifest.tasks()).collect::<Vec<_>>()) {
            println!(
                "# sbatch {}",
                sbatch_args(&manifest, &dir, &node, &tasks).join(" ")
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    for sub in [manifest::RESULTS, manifest::LOGS, manifest::ATTEMPTS] {
        std::fs::create_dir_all(dir.join(sub))
            .map_err(|e| format!("cannot create {}: {e}", dir.join(sub).display()))?;
    }
    manifest.write(&dir)?;
    let script_path = dir.join(manifest::SCRIPT);
    std::fs::write(&script_path, &script)
        .map_err(|e| format!("cannot write {}: {e}", script_path.display()))?;
    if !submit {
        eprintln!(
            "planned {} tasks ({} nodes × {} executions) in {}; submit with: tickbook campaign submit {}",
            manifest.tasks(),
            manifest.nodes.len(),
            manifest.executions,
            dir.display(),
            dir.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let all: Vec<u32> = (0..manifest.tasks()).collect();
    submit_tasks(manifest, &dir, &all)?;
    Ok(ExitCode::SUCCESS)
}

fn plan(a: &PlanArgs, dir: &Path) -> Result<Manifest, String> {
    let suites: Vec<String> = if a.suites.is_empty() {
        SuiteId::ALL
            .iter()
            .map(|id| id.name().to_string())
            .collect()
    } else {
        let mut v: Vec<String> = Vec::new();
        for s in &a.suites {
            if !v.contains(s) {
                v.push(s.clone());
            }
        }
        v
    };
    let nodes: Vec<String> = match a.node_count {
        Some(n) => pick_nodes(n, a.partition.as_deref())?,
        None => {
            let mut v: Vec<String> = Vec::new();
            for n in a.nodes.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
                if v.iter().any(|x| x == n) {
                    return Err(format!("node {n} is named twice in --nodes"));
                }
                v.push(n.to_string());
            }
            v
        }
    };
    if nodes.is_empty() {
        return Err("name the nodes (--nodes a,b) or how many (--node-count N)".into());
    }
    if let Some(bad) = nodes.iter().find(|n| !is_plain(n)) {
        return Err(format!(
            "node name {bad:?} has characters Slurm node names do not (or a host list: name each node)"
        ));
    }
    // Each becomes one `#SBATCH` line: a space or a line break would end it
    // and start another option.
    for (what, v) in [
        ("--partition", &a.partition),
        ("--account", &a.account),
        ("--time", &a.time),
        ("--constraint", &a.constraint),
        ("--name", &a.name),
    ] {
        if let Some(v) = v {
            if v.is_empty() || v.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err(format!(
                    "{what} {v:?}: empty, or has spaces or control characters"
                ));
            }
        }
    }
    let tasks = nodes.len() as u64 * u64::from(a.executions);
    if tasks > 1_000_000 {
        return Err(format!(
            "{tasks} tasks is more than one campaign holds (1,000,000)"
        ));
    }
    let tickbook = match &a.tickbook {
        Some(p) => absolute(p)?,
        None => std::env::current_exe().map_err(|e| {
            format!("cannot tell where this tickbook binary is: {e}; pass --tickbook")
        })?,
    };
    let name = match &a.name {
        Some(n) => n.clone(),
        None => dir
            .file_name()
            .map(|n| {
                n.to_string_lossy()
                    .chars()
                    .map(|c| {
                        if c.is_whitespace() || c.is_control() {
                            '_'
                        } else {
                            c
                        }
                    })
                    .collect()
            })
            .unwrap_or_else(|| "campaign".into()),
    };
    Ok(Manifest {
        kind: manifest::KIND.into(),
        name,
        created_at: tickbook_measure::now_rfc3339(),
        suites,
        quick: a.quick,
        nodes,
        executions: a.executions,
        slurm: SlurmOptions {
            partition: a.partition.clone(),
            account: a.account.clone(),
            time: a.time.clone(),
            constraint: a.constraint.clone(),
            exclusive: a.exclusive,
            cpus_per_task: a.cpus_per_task,
        },
        tickbook: tickbook.to_string_lossy().into_owned(),
        submissions: Vec::new(),
    })
}

fn is_plain(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The first `n` nodes `sinfo` lists as usable in the partition.
fn pick_nodes(n: u32, partition: Option<&str>) -> Result<Vec<String>, String> {
    let mut args: Vec<String> = vec!["-h".into(), "-N".into(), "-o".into(), "%N %T".into()];
    if let Some(p) = partition {
        args.push(format!("--partition={p}"));
    }
    let out = slurm("sinfo", &args)?;
    let mut nodes: Vec<String> = Vec::new();
    for line in out.lines() {
        let mut it = line.split_whitespace();
        let (Some(name), Some(state)) = (it.next(), it.next()) else {
            continue;
        };
        let usable = ["idle", "mixed", "allocated", "completing"]
            .iter()
            .any(|s| state.trim_end_matches(['*', '~', '#', '!', '%', '$', '@', '^', '-']) == *s);
        if usable && !nodes.iter().any(|x| x == name) {
            nodes.push(name.to_string());
        }
    }
    if (nodes.len() as u32) < n {
        return Err(format!(
            "--node-count {n}: sinfo lists {} usable node(s){}",
            nodes.len(),
            partition
                .map(|p| format!(" in partition {p}"))
                .unwrap_or_default()
        ));
    }
    nodes.truncate(n as usize);
    Ok(nodes)
}

/// Single-quoted for the shell.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The script every array task runs. Node and array indices are given at
/// submission (`sbatch_args`), so one script serves every node and every
/// resubmission.
pub fn sbatch_script(m: &Manifest, dir: &Path) -> String {
    let mut s = String::from("#!/bin/sh\n");
    s.push_str(&format!(
        "# tickbook campaign {:?}: {} on {} node(s) × {} execution(s)\n",
        m.name,
        m.suites.join(" ") + if m.quick { " --quick" } else { "" },
        m.nodes.len(),
        m.executions
    ));
    let mut opt = |k: &str, v: &str| s.push_str(&format!("#SBATCH --{k}={v}\n"));
    opt("job-name", &format!("tickbook-{}", m.name));
    opt("ntasks", "1");
    opt("cpus-per-task", &m.slurm.cpus_per_task.to_string());
    if let Some(p) = &m.slurm.partition {
        opt("partition", p);
    }
    if let Some(a) = &m.slurm.account {
        opt("account", a);
    }
    if let Some(t) = &m.slurm.time {
        opt("time", t);
    }
    if let Some(c) = &m.slurm.constraint {
        opt("constraint", c);
    }
    opt(
        "output",
        &dir.join(manifest::LOGS).join("%A_%a.out").to_string_lossy(),
    );
    if m.slurm.exclusive {
        s.push_str("#SBATCH --exclusive\n");
    }
    s.push_str(
        "# Submitted per node: sbatch --nodelist=NODE --export=ALL,TICKBOOK_CAMPAIGN_NODE=INDEX\n# --array=EXECUTIONS%1 (see campaign.json).\n",
    );
    s.push_str(&format!(
        "exec {} campaign task {}\n",
        sh_quote(&m.tickbook),
        sh_quote(&dir.to_string_lossy())
    ));
    s
}

/// The array index is the execution (Slurm caps indices at MaxArraySize,
/// 1001 by default, so they must not grow with the node count); the node's
/// index in the manifest comes in the environment.
fn sbatch_args(m: &Manifest, dir: &Path, node: &str, tasks: &[u32]) -> Vec<String> {
    let index = m.nodes.iter().position(|n| n == node).unwrap_or(0);
    let executions: Vec<u32> = tasks
        .iter()
        .filter_map(|&t| m.place(t))
        .map(|(_, e)| e)
        .collect();
    vec![
        "--parsable".into(),
        format!("--nodelist={node}"),
        format!("--export=ALL,{}={index}", task::NODE_VAR),
        // One execution at a time per node: executions must not disturb each other.
        format!("--array={}%1", manifest::ranges(&executions)),
        dir.join(manifest::SCRIPT).to_string_lossy().into_owned(),
    ]
}

/// The tasks grouped by their planned node, in node order.
fn per_node(m: &Manifest, tasks: &[u32]) -> Vec<(String, Vec<u32>)> {
    let mut out: Vec<(String, Vec<u32>)> = Vec::new();
    for &t in tasks {
        let Some((node, _)) = m.place(t) else {
            continue;
        };
        match out.iter_mut().find(|(n, _)| n == node) {
            Some((_, v)) => v.push(t),
            None => out.push((node.to_string(), vec![t])),
        }
    }
    out
}

fn submit_tasks(mut m: Manifest, dir: &Path, tasks: &[u32]) -> Result<(), String> {
    for (node, tasks) in per_node(&m, tasks) {
        let out = slurm("sbatch", &sbatch_args(&m, dir, &node, &tasks))?;
        let first = out.trim().split(';').next().unwrap_or("");
        let job_id: u64 = first
            .parse()
            .map_err(|_| format!("sbatch printed {:?}, not a job id", out.trim()))?;
        eprintln!(
            "submitted job array {job_id}: tasks {} on {node}",
            manifest::ranges(&tasks)
        );
        m.submissions.push(Submission {
            job_id,
            node,
            tasks,
            submitted_at: tickbook_measure::now_rfc3339(),
        });
        // After each sbatch: a later failure must not lose the jobs already queued.
        m.write(dir)?;
    }
    Ok(())
}

fn resubmit(dir: &Path) -> Result<ExitCode, String> {
    require_slurm()?;
    let dir = absolute(dir)?;
    let m = Manifest::read(&dir)?;
    let st = status::gather(&m, &dir)?;
    let redo: Vec<u32> = st
        .iter()
        .filter(|t| matches!(t.state, status::State::Failed | status::State::Missing))
        .map(|t| t.task)
        .collect();
    if redo.is_empty() {
        eprintln!(
            "nothing to resubmit: every one of the {} tasks is done, pending or running",
            m.tasks()
        );
        return Ok(ExitCode::SUCCESS);
    }
    // Earlier attempts are kept, out of the way of the new ones.
    for &t in &redo {
        let Some(rel) = m.result_file(t) else {
            continue;
        };
        let from = dir.join(&rel);
        if from.exists() {
            let stem = rel
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let job = m
                .last_job(t)
                .map(|j| j.to_string())
                .unwrap_or_else(|| "unsubmitted".into());
            let to = dir
                .join(manifest::ATTEMPTS)
                .join(format!("{stem}.job{job}.json"));
            std::fs::rename(&from, &to)
                .map_err(|e| format!("cannot move {} to {}: {e}", from.display(), to.display()))?;
        }
    }
    eprintln!(
        "resubmitting {} task(s): {}",
        redo.len(),
        manifest::ranges(&redo)
    );
    submit_tasks(m, &dir, &redo)?;
    Ok(ExitCode::SUCCESS)
}
