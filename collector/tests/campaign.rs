//! `tickbook campaign` with the real binary: without Slurm it says so in one
//! line; `--dry-run` prints the sbatch script with every Slurm option; and,
//! as root, a real two-node Slurm cluster on this machine
//! (`scripts/slurm-cluster`) runs a campaign end to end — files from two
//! distinct nodes, a cancelled task named by `status` and resubmitted alone.
//! Without root or Slurm the cluster test is skipped with a message, unless
//! `TICKBOOK_REQUIRE_SLURM=1` (set by `scripts/test` as root) makes that a failure.

mod common;

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use tickbook_analysis::format::RunFile;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tickbook"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("collector/ has a parent")
        .to_path_buf()
}

fn tmp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tickbook-campaign-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn without_slurm_one_line_and_failure() {
    let dir = tmp_dir("noslurm");
    for args in [
        vec!["status", dir.to_str().unwrap()],
        vec!["resubmit", dir.to_str().unwrap()],
        vec!["submit", dir.to_str().unwrap(), "clocks", "--nodes", "a"],
        vec!["plan", dir.to_str().unwrap(), "clocks", "--node-count", "2"],
    ] {
        let out = bin()
            .arg("campaign")
            .args(&args)
            .env("PATH", "/nonexistent")
            .output()
            .unwrap();
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded without Slurm");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("Slurm is not installed"), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dry_run_prints_the_script_and_writes_nothing() {
    let dir = tmp_dir("dry").join("fleet");
    let out = bin()
        .args(["campaign", "submit"])
        .arg(&dir)
        .args([
            "clocks",
            "ops",
            "--quick",
            "--nodes",
            "a1,b2",
            "--executions",
            "4",
        ])
        .args([
            "--partition",
            "bench",
            "--account",
            "perf",
            "--time",
            "00:20:00",
        ])
        .args([
            "--constraint",
            "skylake",
            "--exclusive",
            "--cpus-per-task",
            "2",
        ])
        .args(["--tickbook", "/shared/bin/tickbook", "--dry-run"])
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    let s = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for line in [
        "#SBATCH --job-name=tickbook-fleet",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --partition=bench",
        "#SBATCH --account=perf",
        "#SBATCH --time=00:20:00",
        "#SBATCH --constraint=skylake",
        "#SBATCH --exclusive",
        &format!(
            "exec '/shared/bin/tickbook' campaign task '{}'",
            dir.display()
        ),
        "--nodelist=a1 --export=ALL,TICKBOOK_CAMPAIGN_NODE=0 --array=0-3%1",
        "--nodelist=b2 --export=ALL,TICKBOOK_CAMPAIGN_NODE=1 --array=0-3%1",
    ] {
        assert!(s.contains(line), "no {line:?} in\n{s}");
    }
    assert!(!dir.exists(), "--dry-run wrote {}", dir.display());

    // A value that would end its #SBATCH line and start another is refused.
    let out = bin()
        .args(["campaign", "plan"])
        .arg(&dir)
        .args([
            "clocks",
            "--nodes",
            "a1",
            "--partition",
            "p\n#SBATCH --mem=1",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--partition"),
        "{}",
        text(&out.stderr)
    );
    assert!(!dir.exists());
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// The cluster, stopped on drop (also when an assertion fails).
struct Cluster(PathBuf);

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(repo().join("scripts/slurm-cluster"))
            .arg("down")
            .arg(&self.0)
            .status();
    }
}

fn slurm_env<'a>(cmd: &'a mut Command, conf: &Path) -> &'a mut Command {
    cmd.env("SLURM_CONF", conf)
}

fn campaign(conf: &Path, args: &[&str]) -> Output {
    let out = slurm_env(bin().arg("campaign").args(args), conf)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "campaign {args:?}: {}",
        text(&out.stderr)
    );
    out
}

fn wait_for_empty_queue(conf: &Path) {
    let t = Instant::now();
    loop {
        let q = slurm_env(Command::new("squeue").args(["-h", "-r"]), conf)
            .output()
            .unwrap();
        if text(&q.stdout).trim().is_empty() {
            return;
        }
        assert!(
            t.elapsed() < Duration::from_secs(180),
            "the campaign did not finish in 180 s; squeue:\n{}",
            text(&q.stdout)
        );
        std::thread::sleep(Duration::from_millis(300));
    }
}

fn status(conf: &Path, dir: &str) -> Vec<Value> {
    let out = campaign(conf, &["status", dir, "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["tasks"].as_array().unwrap().clone()
}

#[test]
fn a_campaign_on_a_real_two_node_cluster() {
    let required = std::env::var("TICKBOOK_REQUIRE_SLURM").as_deref() == Ok("1");
    if !is_root() {
        assert!(!required, "TICKBOOK_REQUIRE_SLURM=1 but not root");
        eprintln!("SKIPPED a_campaign_on_a_real_two_node_cluster: needs root (network namespaces)");
        return;
    }
    let root = tmp_dir("cluster");
    let up = Command::new(repo().join("scripts/slurm-cluster"))
        .arg("up")
        .arg(root.join("cluster"))
        .output()
        .unwrap();
    let cluster = Cluster(root.join("cluster"));
    if !up.status.success() {
        let why = text(&up.stderr);
        assert!(!required, "the Slurm cluster did not start:\n{why}");
        eprintln!("SKIPPED a_campaign_on_a_real_two_node_cluster: the Slurm cluster did not start:\n{why}");
        return;
    }
    let conf = PathBuf::from(text(&up.stdout).trim());
    let dir = root.join("camp");
    let d = dir.to_str().unwrap();

    let sub = campaign(
        &conf,
        &[
            "submit",
            d,
            "clocks",
            "ops",
            "--quick",
            // The first two nodes sinfo lists: n1 and n2.
            "--node-count",
            "2",
            "--executions",
            "3",
            "--time",
            "5",
        ],
    );
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dir.join("campaign.json")).unwrap()).unwrap();
    let first_array = manifest["submissions"][0]["job_id"].as_u64().unwrap();
    // n1's third execution waits behind the first two (one at a time per
    // node): cancelled before it starts.
    let cancel = slurm_env(
        Command::new("scancel").arg(format!("{first_array}_2")),
        &conf,
    )
    .status()
    .unwrap();
    assert!(cancel.success(), "scancel; {}", text(&sub.stderr));
    wait_for_empty_queue(&conf);

    let tasks = status(&conf, d);
    assert_eq!(tasks.len(), 6);
    for t in &tasks {
        let want = if t["task"] == 2 { "missing" } else { "done" };
        assert_eq!(t["state"], want, "{t}");
    }
    assert!(
        tasks[2]["why"].as_str().unwrap().contains("cancelled"),
        "{}",
        tasks[2]
    );

    let re = campaign(&conf, &["resubmit", d]);
    let said = text(&re.stderr);
    assert!(said.contains("resubmitting 1 task(s): 2"), "{said}");
    assert_eq!(said.matches("submitted job array").count(), 1, "{said}");
    wait_for_empty_queue(&conf);
    let tasks = status(&conf, d);
    assert!(tasks.iter().all(|t| t["state"] == "done"), "{tasks:?}");

    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 6, "{files:?}");
    let mut placed = BTreeSet::new();
    let mut array_jobs = BTreeSet::new();
    for f in &files {
        let run: RunFile = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
        assert_eq!(run.status, "complete", "{}", f.display());
        let names: Vec<&str> = run.suites.iter().map(|s| s.suite.as_str()).collect();
        assert_eq!(names, ["clocks", "ops"], "{}", f.display());
        let c = run.campaign.expect("a campaign section");
        assert_eq!(c.name, "camp");
        assert_eq!(c.executions, 3);
        assert_eq!(c.task, c.execution + 3 * u32::from(c.node == "n2"));
        let s = c.slurm.expect("the Slurm job");
        assert_eq!(s.array_task_id, Some(c.execution));
        assert!(s.job_id.is_some());
        array_jobs.insert(s.array_job_id.expect("the array job id"));
        let cpus = c.cpus.expect("the CPUs");
        assert_ne!(cpus.how, "none", "{cpus:?}");
        assert!(cpus.pinned.is_some(), "{cpus:?}");
        placed.insert((c.node, c.execution));
    }
    let want: BTreeSet<(String, u32)> = ["n1", "n2"]
        .iter()
        .flat_map(|n| (0..3).map(move |e| (n.to_string(), e)))
        .collect();
    assert_eq!(placed, want, "each node's three executions, one file each");
    // Two first submissions (one per node) and the resubmission.
    assert_eq!(array_jobs.len(), 3, "{array_jobs:?}");
    campaign_analysed(&dir);

    cancelled_mid_run(&conf, &root.join("cut"));
    drop(cluster);
    let _ = std::fs::remove_dir_all(&root);
}

/// The six files as one campaign (`analyze --campaign` of the campaign
/// folder, which reads its `results/`): two machines named by their nodes
/// (one hostname here), three executions of every item on each, the
/// three-level split, and the terminal agreeing with `--json`. The folder's
/// manifest and results are kept in target/tickbook-test/campaign for the
/// page's test (tests/e2e/campaign.test.mjs), which runs after this one in
/// scripts/test and opens the folder as a user would.
fn campaign_analysed(dir: &Path) {
    let (text_out, json) = common::analyze_both(&["--campaign", dir.to_str().unwrap()], 0);
    assert_eq!(json["machines"], serde_json::json!(["n1", "n2"]), "{json}");
    let suites = json["suites"].as_array().unwrap();
    let names: Vec<&str> = suites
        .iter()
        .map(|s| s["suite"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["clocks", "ops"]);
    for s in suites {
        for item in s["items"].as_array().unwrap() {
            for m in item["machines"].as_array().unwrap() {
                assert_eq!(m["executions"], 3, "{item}");
            }
            let levels = item["components"]["levels"].as_array().unwrap();
            let units: Vec<&str> = levels.iter().map(|l| l["unit"].as_str().unwrap()).collect();
            assert_eq!(units, ["measurement", "execution", "machine"]);
            assert_eq!(levels[1]["units"], 6);
            assert_eq!(levels[2]["units"], 2);
        }
    }
    assert!(
        text_out.contains("Campaign (6 files from 2 machines)"),
        "{text_out}"
    );
    let keep = repo().join("target/tickbook-test/campaign");
    let _ = std::fs::remove_dir_all(&keep);
    std::fs::create_dir_all(keep.join("results")).unwrap();
    std::fs::copy(dir.join("campaign.json"), keep.join("campaign.json")).unwrap();
    for e in std::fs::read_dir(dir.join("results")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, keep.join("results").join(p.file_name().unwrap())).unwrap();
    }
    // An earlier attempt of a resubmitted task, where `resubmit` moves it:
    // the page must not count it as a seventh execution.
    std::fs::create_dir_all(keep.join("attempts")).unwrap();
    std::fs::copy(
        dir.join("results/t0000-n1-e0.json"),
        keep.join("attempts/t0000-n1-e0.json"),
    )
    .unwrap();
}

/// A task cancelled while it measures: its alloc child is made to hang (the
/// collector's fault-injection hook, passed on by sbatch's default
/// `--export=ALL`) after clocks finished, and `scancel` stops it there.
fn cancelled_mid_run(conf: &Path, dir: &Path) {
    let d = dir.to_str().unwrap();
    let out = slurm_env(bin().arg("campaign"), conf)
        .args(["submit", d, "clocks", "alloc", "--quick", "--nodes", "n2"])
        .env("TICKBOOK_ALLOC_CONFIG_LIMIT", "1")
        .env("TICKBOOK_ALLOC_FAIL", "0:hang")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let file = dir.join("results/t0000-n2-e0.json");
    let t = Instant::now();
    // Wait until clocks is in the file and the alloc suite has started.
    loop {
        let run: Option<RunFile> = std::fs::read(&file)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        if run.is_some_and(|r| r.suites.iter().any(|s| s.suite == "clocks")) {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "clocks never finished"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    let m: Value =
        serde_json::from_slice(&std::fs::read(dir.join("campaign.json")).unwrap()).unwrap();
    let job = m["submissions"][0]["job_id"].as_u64().unwrap();
    let cancel = slurm_env(Command::new("scancel").arg(job.to_string()), conf)
        .status()
        .unwrap();
    assert!(cancel.success());
    wait_for_empty_queue(conf);

    let tasks = status(conf, d);
    assert_eq!(tasks.len(), 1);
    let why = tasks[0]["why"].as_str().unwrap();
    assert_eq!(tasks[0]["state"], "failed", "{}", tasks[0]);
    assert!(why.contains("CANCELLED"), "{why}");
    assert!(why.contains("keeps clocks"), "{why}");

    // The partial file is readable, by the types and by the analysis.
    let run: RunFile = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(run.status, "interrupted");
    assert_eq!(run.suites[0].status, "complete");
    let analyzed = bin()
        .args(["analyze", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    let reports: Value = serde_json::from_slice(&analyzed.stdout).unwrap();
    let report = &reports[0];
    assert_eq!(report["ok"], true, "{}", report["error"]);
    assert!(!report["clocks"].is_null(), "no clocks cell");
    assert_eq!(report["info"]["status"], "interrupted");
}
