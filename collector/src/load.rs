//! The one way the command line reads its FILE arguments (`analyze`,
//! `analyze --compare`, `report`), as the page's pickers read what is
//! dropped on them (web/src/app/intake.js): a file is one input; a folder that
//! holds Criterion.rs results (a `sample.json` anywhere in it) is one input,
//! its JSON files bundled as the page bundles them
//! (`import::folder_bundle`); any other folder is each JSON file in it
//! (`.json`, `.ndjson`, `.jsonl`, each also gzip-compressed as `.gz`),
//! except `perf stat` output (`-x,` CSV, `-j`, also `.csv` and `.txt`):
//! two or more such files in one directory are one input, runs of the same
//! events.
//! A campaign folder (`campaign.json` of kind `tickbook-campaign` at its
//! top, as `tickbook campaign` writes it) is its `results/` folder: the
//! manifest is no result, and `attempts/` holds the files of tasks run again,
//! which would count as extra executions.
//! A file bigger than the limit (`tickbook_analysis::limits`) is refused by
//! its size, before it is read.

use crate::campaign::manifest;
use std::io::Read;
use std::path::{Path, PathBuf};
use tickbook_analysis::intake::{self, Item, SKIP_DIRS};
use tickbook_analysis::limits::Limits;

/// One thing to analyse: its name and its bytes, or why they could not be
/// read (a line for stderr, without the name).
pub(crate) struct Input {
    pub name: String,
    pub bytes: Result<Vec<u8>, String>,
}

/// The limits for this run: the defaults, raised or lowered by the
/// `TICKBOOK_MAX_*` environment variables (`limits::VARS`).
pub(crate) fn limits() -> Result<Limits, String> {
    Limits::from_vars(|name| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned()))
}

/// A file's bytes, unless it is bigger than the limit: its size is looked
/// at first, so a huge file is never read. Also reads `--calibrate-with`'s fit.
pub(crate) fn read_file(path: &Path, name: &str, limits: &Limits) -> Result<Vec<u8>, String> {
    let size = std::fs::metadata(path)
        .map_err(|e| format!("cannot read the file: {e}"))?
        .len();
    limits.check_size(name, size).map_err(|e| e.message)?;
    std::fs::read(path).map_err(|e| format!("cannot read the file: {e}"))
}

/// The inputs `paths` name, in order; a folder of result files gives one
/// input per file, in path order.
pub(crate) fn load_inputs(paths: &[PathBuf], limits: &Limits) -> Vec<Input> {
    let mut out = Vec::new();
    for path in paths {
        let name = path.display().to_string();
        if !path.is_dir() {
            let bytes = read_file(path, &name, limits);
            out.push(Input { name, bytes });
            continue;
        }
        let campaign_results;
        let path = match campaign_results_of(path) {
            Some(results) => {
                campaign_results = results;
                &campaign_results
            }
            None => path,
        };
        match json_files(path) {
            Err(e) => out.push(Input {
                name,
                bytes: Err(format!("cannot read the folder: {e}")),
            }),
            Ok(files) => {
                let inputs = folder_inputs(path, files, limits);
                if inputs.is_empty() {
                    out.push(Input {
                        name,
                        bytes: Err("the folder holds no result files".into()),
                    });
                }
                out.extend(inputs);
            }
        }
    }
    out
}

/// A campaign folder's `results/`: `Some` when `dir` holds a
/// `campaign.json` that says it is a `tickbook-campaign` manifest (read
/// within a small bound: a manifest is a few kilobytes per submission).
fn campaign_results_of(dir: &Path) -> Option<PathBuf> {
    const MANIFEST_MAX_BYTES: u64 = 16 << 20;
    let file = dir.join(manifest::MANIFEST);
    if std::fs::metadata(&file).ok()?.len() > MANIFEST_MAX_BYTES {
        return None;
    }
    let value: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).ok()?).ok()?;
    let results = dir.join(manifest::RESULTS);
    (value.get("kind")?.as_str()? == manifest::KIND && results.is_dir()).then_some(results)
}

/// The inputs of a folder's result files (paths relative to `root`), as
/// `intake::plan` makes them from the head of each: a file alone, a
/// Criterion.rs tree bundled (named by the folder), or a directory's
/// `perf stat` runs bundled (named by the directory).
fn folder_inputs(root: &Path, files: Vec<String>, limits: &Limits) -> Vec<Input> {
    let entries: Vec<intake::Entry> = files
        .into_iter()
        .map(|rel| intake::Entry {
            head: head(&root.join(&rel)).ok(),
            path: rel,
        })
        .collect();
    let mut out = Vec::new();
    for item in intake::plan(&entries) {
        match item {
            Item::File { path } => {
                let file = root.join(&path);
                let name = file.display().to_string();
                let bytes = read_file(&file, &name, limits);
                out.push(Input { name, bytes });
            }
            Item::Criterion { paths } => {
                let name = root.display().to_string();
                let files: Vec<(String, String)> =
                    paths.into_iter().map(|p| (p.clone(), p)).collect();
                out.push(Input {
                    bytes: bundle(root, &name, &files, limits),
                    name,
                });
            }
            Item::Runs { dir, paths } => out.push(runs(root, &dir, &paths, limits)),
        }
    }
    out
}

/// The first `intake::HEAD_BYTES` of a file, as text.
fn head(path: &Path) -> std::io::Result<String> {
    let mut head = Vec::with_capacity(intake::HEAD_BYTES);
    std::fs::File::open(path)?
        .take(intake::HEAD_BYTES as u64)
        .read_to_end(&mut head)?;
    Ok(String::from_utf8_lossy(&head).into_owned())
}

/// A directory's `perf stat` runs as one input (the analysis reads them as
/// one execution per file), named by the directory; a file that cannot be
/// read is left out.
fn runs(root: &Path, dir: &str, paths: &[String], limits: &Limits) -> Input {
    let folder = if dir.is_empty() {
        root.to_path_buf()
    } else {
        root.join(dir)
    };
    let name = folder.display().to_string();
    let entries: Vec<(String, Vec<u8>)> = paths
        .iter()
        .filter_map(|rel| {
            let file = root.join(rel);
            let bytes = read_file(&file, &file.display().to_string(), limits).ok()?;
            let short = rel
                .strip_prefix(dir)
                .map_or(rel.as_str(), |r| r.trim_start_matches('/'));
            Some((short.to_string(), bytes))
        })
        .collect();
    let size: usize = entries.iter().map(|(_, b)| b.len()).sum();
    let bytes = limits
        .check_size(&name, size as u64)
        .map_err(|e| e.message)
        .map(|()| tickbook_analysis::import::folder_bundle(&entries));
    Input { name, bytes }
}

/// The files (path in the folder, path in the bundle) of a Criterion folder
/// as one input: its files' sizes together checked against the limit, then
/// bundled as the page bundles a dropped folder.
fn bundle(
    root: &Path,
    name: &str,
    files: &[(String, String)],
    limits: &Limits,
) -> Result<Vec<u8>, String> {
    let size = files
        .iter()
        .map(|(rel, _)| std::fs::metadata(root.join(rel)).map(|m| m.len()))
        .sum::<std::io::Result<u64>>()
        .map_err(|e| format!("cannot read the folder: {e}"))?;
    limits.check_size(name, size).map_err(|e| e.message)?;
    files
        .iter()
        .map(|(rel, as_rel)| Ok((as_rel.clone(), std::fs::read(root.join(rel))?)))
        .collect::<std::io::Result<Vec<_>>>()
        .map(|entries| tickbook_analysis::import::folder_bundle(&entries))
        .map_err(|e| format!("cannot read the folder: {e}"))
}

/// `--compare` given one Criterion.rs folder that holds a saved baseline
/// beside the latest run (each benchmark's `NAME/` beside `new/`, as
/// `cargo bench -- --save-baseline NAME` then `-- --baseline NAME` leave
/// them): each baseline, then the latest, as inputs `DIR (NAME)` and
/// `DIR (new)`. Criterion also saves every run as `base/`, a copy of `new/`
/// after a plain `cargo bench`, so `base/` is a baseline only when there is
/// no other. `None` for anything else.
pub(crate) fn criterion_baselines(paths: &[PathBuf], limits: &Limits) -> Option<Vec<Input>> {
    let [path] = paths else { return None };
    if !path.is_dir() {
        return None;
    }
    let all: Vec<String> = json_files_skipping(path, &["change", "report"])
        .ok()?
        .into_iter()
        .filter(|f| !f.to_ascii_lowercase().ends_with(".gz") && !intake::is_text_file(f))
        .collect();
    // The run a file belongs to: the folder it is in.
    let run_of = |f: &str| -> Option<String> {
        let mut parts = f.rsplit('/');
        parts.next()?;
        parts.next().map(str::to_string)
    };
    let mut runs: Vec<String> = all
        .iter()
        .filter(|f| f.ends_with("/sample.json"))
        .filter_map(|f| run_of(f))
        .collect();
    runs.sort();
    runs.dedup();
    if !runs.iter().any(|r| r == "new") {
        return None;
    }
    let mut baselines: Vec<&String> = runs
        .iter()
        .filter(|r| *r != "new" && *r != "base")
        .collect();
    if baselines.is_empty() {
        baselines = runs.iter().filter(|r| *r == "base").collect();
    }
    if baselines.is_empty() {
        return None;
    }
    let name = path.display().to_string();
    let input = |run: &str| {
        // The run read as the importer reads a latest run.
        let files: Vec<(String, String)> = all
            .iter()
            .filter(|f| run_of(f).as_deref() == Some(run))
            .map(|f| {
                let (dir, file) = f.rsplit_once('/').unwrap_or(("", f));
                let dir = dir.rsplit_once('/').map_or("", |(d, _)| d);
                let as_new = if dir.is_empty() {
                    format!("new/{file}")
                } else {
                    format!("{dir}/new/{file}")
                };
                (f.clone(), as_new)
            })
            .collect();
        Input {
            name: format!("{name} ({run})"),
            bytes: bundle(path, &name, &files, limits),
        }
    };
    let mut out: Vec<Input> = baselines.iter().map(|b| input(b)).collect();
    out.push(input("new"));
    Some(out)
}

/// The files a folder's walk keeps (`intake::is_candidate`) under `root` as paths
/// relative to it with `/` separators, sorted. Symbolic links are not
/// followed (no cycles); `intake::SKIP_DIRS` are skipped.
fn json_files(root: &Path) -> std::io::Result<Vec<String>> {
    json_files_skipping(root, &SKIP_DIRS)
}

/// [`json_files`], skipping the folders named `skip`.
fn json_files_skipping(root: &Path, skip: &[&str]) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let path = entry.path();
            let name = entry.file_name();
            if kind.is_dir() {
                if !skip.iter().any(|d| name == *d) {
                    stack.push(path);
                }
            } else if kind.is_file() && intake::is_candidate(&name.to_string_lossy()) {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                out.push(
                    rel.components()
                        .map(|c| c.as_os_str().to_string_lossy())
                        .collect::<Vec<_>>()
                        .join("/"),
                );
                if out.len() > intake::MAX_FOLDER_FILES {
                    return Err(std::io::Error::other(format!(
                        "more than {} result files",
                        intake::MAX_FOLDER_FILES
                    )));
                }
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures")
            .join(rel)
    }

    #[test]
    fn a_criterion_folder_is_one_bundle_and_other_folders_are_their_files() {
        let inputs = load_inputs(
            &[fixture("import/criterion/target-criterion")],
            &Limits::default(),
        );
        assert_eq!(inputs.len(), 1);
        let bytes = inputs[0].bytes.as_ref().expect("readable");
        assert!(bytes.starts_with(br#"{"entries""#) || bytes.starts_with(br#"{"tickbook_folder""#));

        let inputs = load_inputs(&[fixture("import/hyperfine")], &Limits::default());
        let names: Vec<&str> = inputs
            .iter()
            .map(|i| i.name.rsplit('/').next().unwrap_or(""))
            .collect();
        assert_eq!(
            names,
            ["exit-codes.json", "memory.json", "param.json", "sleep.json"]
        );

        let missing = load_inputs(&[fixture("no-such-file.json")], &Limits::default());
        assert!(missing[0]
            .bytes
            .as_ref()
            .is_err_and(|e| e.starts_with("cannot read the file")));
    }

    /// `perf stat` files are one run each: several in one directory are one
    /// input, one execution per file (before, the CSV files were not read
    /// and each JSON file was an input of its own).
    #[test]
    fn perf_stat_files_of_a_directory_are_one_input_of_runs() {
        let inputs = load_inputs(&[fixture("import/perf")], &Limits::default());
        let names: Vec<&str> = inputs
            .iter()
            .map(|i| i.name.split("import/").nth(1).unwrap_or(""))
            .collect();
        // perf-stat.csv, -r3.csv and .json at the top; the two folders of
        // three runs; perf's printed reports (.txt) are not results.
        assert_eq!(names, ["perf", "perf/runs-csv", "perf/runs-json"]);
        for i in &inputs[1..] {
            let r = tickbook_analysis::report::analyze_bytes(
                &i.name,
                i.bytes.as_ref().expect("readable"),
                &tickbook_analysis::report::Options::default(),
            );
            assert!(r.ok, "{}: {:?}", i.name, r.error);
            let s = r.samples.expect("samples");
            assert_eq!(s.series.len(), 4, "{}", i.name);
            assert!(s.series.iter().all(|x| x.executions == 3), "{}", i.name);
        }
        // A folder of text that is not perf's holds no results.
        let dir = std::env::temp_dir().join(format!("tickbook-load-txt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("notes.txt"), "hello\n").expect("write");
        let inputs = load_inputs(std::slice::from_ref(&dir), &Limits::default());
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(inputs.len(), 1);
        assert!(inputs[0]
            .bytes
            .as_ref()
            .is_err_and(|e| e.contains("no result files")));
    }

    /// pyperf writes `.json.gz`: a folder of such files is its files, each
    /// read by its content (the analysis inflates it).
    #[test]
    fn a_folder_of_pyperf_files_compressed_or_not_is_its_files() {
        let inputs = load_inputs(&[fixture("import/pyperf/gz")], &Limits::default());
        let names: Vec<&str> = inputs
            .iter()
            .map(|i| i.name.rsplit('/').next().unwrap_or(""))
            .collect();
        assert_eq!(names, ["suite.json", "timeit.json.gz"]);
        for i in &inputs {
            let bytes = i.bytes.as_ref().expect("readable");
            let r = tickbook_analysis::report::analyze_bytes(
                &i.name,
                bytes,
                &tickbook_analysis::report::Options::default(),
            );
            assert!(r.ok, "{}: {:?}", i.name, r.error);
            assert!(r
                .info
                .and_then(|x| x.source)
                .is_some_and(|s| s.starts_with("pyperf 2.10.0")));
        }
    }

    /// A campaign folder is its results: not the manifest, not the logs,
    /// not the earlier attempts of resubmitted tasks. A folder whose
    /// `campaign.json` is something else is read as any folder.
    #[test]
    fn a_campaign_folder_is_its_results() {
        let root =
            std::env::temp_dir().join(format!("tickbook-load-campaign-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for sub in ["results", "attempts", "logs"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        let run = std::fs::read(fixture("run-clocks.json")).unwrap();
        for f in [
            "results/t0000-n1-e0.json",
            "results/t0001-n1-e1.json",
            "attempts/t0001-n1-e1.1.json",
        ] {
            std::fs::write(root.join(f), &run).unwrap();
        }
        std::fs::write(root.join("logs/t0000.json"), "{}").unwrap();
        let names = |root: &Path| -> Vec<String> {
            load_inputs(&[root.to_path_buf()], &Limits::default())
                .into_iter()
                .map(|i| {
                    i.name
                        .strip_prefix(&format!("{}/", root.display()))
                        .unwrap_or(&i.name)
                        .to_string()
                })
                .collect()
        };
        std::fs::write(root.join("campaign.json"), r#"{"kind": "something else"}"#).unwrap();
        assert_eq!(
            names(&root),
            [
                "attempts/t0001-n1-e1.1.json",
                "campaign.json",
                "logs/t0000.json",
                "results/t0000-n1-e0.json",
                "results/t0001-n1-e1.json"
            ]
        );
        std::fs::write(
            root.join("campaign.json"),
            r#"{"kind": "tickbook-campaign", "name": "c"}"#,
        )
        .unwrap();
        assert_eq!(
            names(&root),
            ["results/t0000-n1-e0.json", "results/t0001-n1-e1.json"]
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
