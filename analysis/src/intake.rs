//! Which files of a folder are read, and as what: the one policy of the
//! command line (`collector/src/load.rs`, which walks the disk) and the page
//! (`web/src/app/intake.js`, which walks a dropped or picked folder and asks
//! the analysis worker for [`plan`]; the rules reach it with the worker's
//! `ready` message).
//!
//! A folder's walk skips [`SKIP_DIRS`] and keeps the files whose names end
//! as results ([`RESULT_ENDINGS`]) or as text that may hold results
//! ([`TEXT_ENDINGS`]), at most [`MAX_FOLDER_FILES`]. Of those, [`plan`]
//! makes the inputs: a folder holding Criterion.rs results (a `sample.json`
//! anywhere in it) is one input, its JSON files bundled; otherwise each
//! result file is an input, except `perf stat` output (told by the head of
//! its bytes, whatever its name): two or more such files in one directory
//! are one input, runs of the same events; text that is not perf's is not
//! read. How a bundle reads is `import::criterion::read_dir`'s and the
//! reader's business.

use crate::import::perf_stat;
use serde::{Deserialize, Serialize};

/// Files a folder may hold before the walk stops.
pub const MAX_FOLDER_FILES: usize = 100_000;
/// Criterion's previous run, change estimates and HTML reports: never read.
pub const SKIP_DIRS: [&str; 3] = ["base", "change", "report"];
/// Names a folder's results go by: JSON, JSON lines, and either
/// gzip-compressed (pyperf writes `.json.gz`; the format is then told by
/// the content, as always).
pub const RESULT_ENDINGS: [&str; 6] = [
    ".json",
    ".ndjson",
    ".jsonl",
    ".json.gz",
    ".ndjson.gz",
    ".jsonl.gz",
];
/// Text that may hold results (`perf stat -x,` writes CSV, `-o FILE` any
/// name): looked at when a folder is walked, read only when it is perf's.
pub const TEXT_ENDINGS: [&str; 2] = [".csv", ".txt"];
/// How much of a file's head tells `perf stat` output from the rest.
pub const HEAD_BYTES: usize = 4096;

/// The rules a folder's walk follows, for the page.
#[derive(Debug, Clone, Serialize)]
pub struct Rules {
    pub result_endings: &'static [&'static str],
    pub text_endings: &'static [&'static str],
    pub skip_dirs: &'static [&'static str],
    pub max_folder_files: usize,
    pub head_bytes: usize,
}

pub fn rules() -> Rules {
    Rules {
        result_endings: &RESULT_ENDINGS,
        text_endings: &TEXT_ENDINGS,
        skip_dirs: &SKIP_DIRS,
        max_folder_files: MAX_FOLDER_FILES,
        head_bytes: HEAD_BYTES,
    }
}

fn ends_with_any(name: &str, endings: &[&str]) -> bool {
    let name = name.to_ascii_lowercase();
    endings.iter().any(|e| name.ends_with(e))
}

/// Whether a file of this name is a result file.
pub fn is_result_file(name: &str) -> bool {
    ends_with_any(name, &RESULT_ENDINGS)
}

/// Whether a file of this name is text that may hold results.
pub fn is_text_file(name: &str) -> bool {
    ends_with_any(name, &TEXT_ENDINGS)
}

/// Whether a folder's walk keeps a file of this name.
pub fn is_candidate(name: &str) -> bool {
    is_result_file(name) || is_text_file(name)
}

/// Whether a folder's walk skips a directory of this name.
pub fn skips_dir(name: &str) -> bool {
    SKIP_DIRS.contains(&name)
}

/// Whether a file (a path in the folder, `/`-separated) sits in a skipped
/// directory.
pub fn in_skipped_dir(path: &str) -> bool {
    let mut dirs: Vec<&str> = path.split('/').collect();
    dirs.pop();
    dirs.into_iter().any(skips_dir)
}

/// One file the walk kept: its path in the folder (`/`-separated) and the
/// head of its bytes (at least the first [`HEAD_BYTES`]; `None` when it
/// could not be read).
#[derive(Debug, Clone, Deserialize)]
pub struct Entry {
    pub path: String,
    pub head: Option<String>,
}

/// One input of a folder; paths are the folder's, in path order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Item {
    /// A file read alone.
    File { path: String },
    /// The folder as one Criterion.rs tree: its JSON files, bundled.
    Criterion { paths: Vec<String> },
    /// A directory's `perf stat` runs (`dir`: empty for the folder's top),
    /// bundled.
    Runs { dir: String, paths: Vec<String> },
}

fn is_sample(path: &str) -> bool {
    path.rsplit('/').next() == Some("sample.json")
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Whether a file's head is `perf stat` output (`-x,` or `-j`).
fn is_perf(e: &Entry) -> bool {
    !e.path.to_ascii_lowercase().ends_with(".gz")
        && e.head.as_ref().is_some_and(|h| {
            let h = h.as_bytes();
            perf_stat::recognises(&h[..h.len().min(HEAD_BYTES)])
        })
}

/// The inputs of a folder from the files its walk kept.
pub fn plan(entries: &[Entry]) -> Vec<Item> {
    let mut entries: Vec<&Entry> = entries.iter().collect();
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    if entries
        .iter()
        .any(|e| is_result_file(&e.path) && is_sample(&e.path))
    {
        // The bundle holds text: compressed files and text results are no
        // part of a Criterion tree.
        let paths = entries
            .iter()
            .filter(|e| is_result_file(&e.path) && !e.path.to_ascii_lowercase().ends_with(".gz"))
            .map(|e| e.path.clone())
            .collect();
        return vec![Item::Criterion { paths }];
    }
    let perf: Vec<bool> = entries.iter().map(|e| is_perf(e)).collect();
    let runs_in = |dir: &str| -> Vec<String> {
        entries
            .iter()
            .zip(&perf)
            .filter(|(e, p)| **p && dir_of(&e.path) == dir)
            .map(|(e, _)| e.path.clone())
            .collect()
    };
    let mut items = Vec::new();
    let mut done: Vec<&str> = Vec::new();
    for (e, &p) in entries.iter().zip(&perf) {
        let dir = dir_of(&e.path);
        if p {
            let runs = runs_in(dir);
            if runs.len() >= 2 {
                if !done.contains(&dir) {
                    done.push(dir);
                    items.push(Item::Runs {
                        dir: dir.to_string(),
                        paths: runs,
                    });
                }
                continue;
            }
        }
        if p || is_result_file(&e.path) {
            items.push(Item::File {
                path: e.path.clone(),
            });
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, head: &str) -> Entry {
        Entry {
            path: path.into(),
            head: Some(head.into()),
        }
    }

    const PERF: &str = "0.92,msec,task-clock,916768,100.00,0.057,CPUs utilized\n";

    #[test]
    fn perf_runs_of_a_directory_are_one_input_and_other_text_is_not_read() {
        let items = plan(&[
            entry("b/run2.csv", PERF),
            entry("a.json", "{}"),
            entry("b/run1.csv", PERF),
            entry("c/one.csv", PERF),
            entry("notes.txt", "hello"),
            entry("x.json.gz", PERF),
        ]);
        assert_eq!(
            items,
            [
                Item::File {
                    path: "a.json".into()
                },
                Item::Runs {
                    dir: "b".into(),
                    paths: vec!["b/run1.csv".into(), "b/run2.csv".into()]
                },
                Item::File {
                    path: "c/one.csv".into()
                },
                Item::File {
                    path: "x.json.gz".into()
                },
            ]
        );
    }

    #[test]
    fn a_criterion_tree_is_one_bundle_of_its_json() {
        let items = plan(&[
            entry("g/b/new/sample.json", "{}"),
            entry("g/b/new/estimates.json", "{}"),
            entry("pyperf.json.gz", ""),
            entry("perf.csv", PERF),
        ]);
        assert_eq!(
            items,
            [Item::Criterion {
                paths: vec![
                    "g/b/new/estimates.json".into(),
                    "g/b/new/sample.json".into()
                ]
            }]
        );
        assert!(in_skipped_dir("g/b/base/sample.json"));
        assert!(!in_skipped_dir("base.json"));
        assert!(is_candidate("R.JSONL.GZ") && is_candidate("x.txt") && !is_candidate("x.data"));
    }
}
