//! A campaign folder's manifest (`campaign.json`): what to run where, with
//! which Slurm options, and every submission made so far. Tasks are numbered
//! node by node: task = node index × executions + execution; each node's
//! array is indexed by execution, so a task keeps its number (and file)
//! across resubmissions.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const MANIFEST: &str = "campaign.json";
/// The manifest's `kind`.
pub const KIND: &str = "tickbook-campaign";
pub const SCRIPT: &str = "campaign.sbatch";
pub const RESULTS: &str = "results";
pub const LOGS: &str = "logs";
pub const ATTEMPTS: &str = "attempts";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    /// Always `tickbook-campaign`.
    pub kind: String,
    pub name: String,
    pub created_at: String,
    pub suites: Vec<String>,
    pub quick: bool,
    pub nodes: Vec<String>,
    pub executions: u32,
    pub slurm: SlurmOptions,
    /// The binary every task runs: it must be on a filesystem the nodes see.
    pub tickbook: String,
    #[serde(default)]
    pub submissions: Vec<Submission>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SlurmOptions {
    #[serde(default)]
    pub partition: Option<String>,
    #[serde(default)]
    pub account: Option<String>,
    /// Slurm's time limit syntax, per task (`MM`, `HH:MM:SS`, `D-HH`, …).
    #[serde(default)]
    pub time: Option<String>,
    #[serde(default)]
    pub constraint: Option<String>,
    #[serde(default)]
    pub exclusive: bool,
    pub cpus_per_task: u32,
}

/// One `sbatch`: a job array of some tasks of one node.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Submission {
    pub job_id: u64,
    pub node: String,
    pub tasks: Vec<u32>,
    pub submitted_at: String,
}

impl Manifest {
    pub fn tasks(&self) -> u32 {
        self.nodes.len() as u32 * self.executions
    }

    /// The planned node and execution of `task`.
    pub fn place(&self, task: u32) -> Option<(&str, u32)> {
        if self.executions == 0 {
            return None;
        }
        let node = self.nodes.get((task / self.executions) as usize)?;
        Some((node, task % self.executions))
    }

    /// The task's result file, relative to the campaign folder.
    pub fn result_file(&self, task: u32) -> Option<PathBuf> {
        let (node, execution) = self.place(task)?;
        Some(Path::new(RESULTS).join(format!("t{task:04}-{}-e{execution}.json", safe(node))))
    }

    /// The array job the task was last submitted in.
    pub fn last_job(&self, task: u32) -> Option<u64> {
        self.submissions
            .iter()
            .rev()
            .find(|s| s.tasks.contains(&task))
            .map(|s| s.job_id)
    }

    pub fn read(dir: &Path) -> Result<Manifest, String> {
        let path = dir.join(MANIFEST);
        let bytes = std::fs::read(&path).map_err(|e| {
            format!(
                "{} is not a campaign folder: cannot read {}: {e}",
                dir.display(),
                path.display()
            )
        })?;
        let m: Manifest = serde_json::from_slice(&bytes)
            .map_err(|e| format!("{}: not a campaign manifest: {e}", path.display()))?;
        if m.kind != KIND {
            return Err(format!(
                "{}: not a campaign manifest (kind {:?})",
                path.display(),
                m.kind
            ));
        }
        Ok(m)
    }

    /// Written whole or not at all, like result files.
    pub fn write(&self, dir: &Path) -> Result<(), String> {
        let path = dir.join(MANIFEST);
        let tmp = dir.join(format!(".{MANIFEST}.tmp"));
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        std::fs::write(&tmp, text + "\n")
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}

/// A node name as part of a file name.
fn safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `0-2,5,7-8` from ascending numbers (Slurm's array and CPU list syntax).
pub fn ranges(values: &[u32]) -> String {
    let mut v = values.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            v[i].to_string()
        } else {
            format!("{}-{}", v[i], v[j])
        });
        i = j + 1;
    }
    out.join(",")
}

/// The numbers of a list like `0-3,8` (Slurm's `CPU_IDs`, sysfs CPU lists).
pub fn parse_ranges(s: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for part in s.trim().split(',') {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
            None => {
                let a: u32 = part.trim().parse().ok()?;
                (a, a)
            }
        };
        if b < a || b - a > 65_536 {
            return None;
        }
        out.extend(a..=b);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_round_trip() {
        assert_eq!(ranges(&[5, 0, 1, 2, 7, 8]), "0-2,5,7-8");
        assert_eq!(ranges(&[3]), "3");
        assert_eq!(parse_ranges("0-2,5,7-8"), Some(vec![0, 1, 2, 5, 7, 8]));
        assert_eq!(parse_ranges("x"), None);
        assert_eq!(parse_ranges("3-1"), None);
    }

    #[test]
    fn tasks_are_numbered_node_by_node() {
        let m = Manifest {
            kind: KIND.into(),
            name: "c".into(),
            created_at: String::new(),
            suites: vec![],
            quick: true,
            nodes: vec!["a".into(), "b/c".into()],
            executions: 3,
            slurm: SlurmOptions::default(),
            tickbook: String::new(),
            submissions: vec![],
        };
        assert_eq!(m.tasks(), 6);
        assert_eq!(m.place(4), Some(("b/c", 1)));
        assert_eq!(m.place(6), None);
        assert_eq!(
            m.result_file(4),
            Some(PathBuf::from("results/t0004-b_c-e1.json"))
        );
    }
}
