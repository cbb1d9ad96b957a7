//! Writing the result file: whole or not at all.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tickbook_analysis::format::{Host, RunFile, Tool, FORMAT_TAG, FORMAT_VERSION, KIND_RUN};

/// A run file as it starts: this tickbook, the command line, the host, in
/// progress, no suite yet (`collect` and `run` fill the rest).
pub(crate) fn new_run(host: Host, started: SystemTime) -> RunFile {
    RunFile {
        format: FORMAT_TAG.to_string(),
        format_version: FORMAT_VERSION.to_string(),
        kind: KIND_RUN.to_string(),
        tool: Tool {
            name: "tickbook".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        },
        started_at: crate::timefmt::rfc3339(started),
        ended_at: None,
        status: "in_progress".to_string(),
        command_line: std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        host,
        campaign: None,
        environment: None,
        revision: crate::revision::current(),
        suites: Vec::new(),
    }
}

/// `results/<hostname>-<UTC time>.json`, with the host name made file-safe.
pub fn default_path(hostname: &str, started: SystemTime) -> PathBuf {
    let host: String = hostname
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let host = if host.is_empty() || host.starts_with('.') {
        format!("host{host}")
    } else {
        host
    };
    PathBuf::from("results").join(format!("{host}-{}.json", super::timefmt::compact(started)))
}

/// Held while one `tickbook collect` owns its output file: two collections
/// writing the same `--out` would each rename its own file over the other's
/// after every suite, and one would lose its data. The lock is `flock` on a
/// hidden `.<name>.lock` beside the file, removed when the run ends.
pub struct OutLock {
    file: File,
    path: PathBuf,
}

impl OutLock {
    /// Takes the lock for `out`, or says who holds it. Never waits.
    pub fn acquire(out: &Path) -> Result<OutLock, String> {
        use std::os::unix::fs::MetadataExt;
        use std::os::unix::io::AsRawFd;
        let dir = match out.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = out
            .file_name()
            .ok_or_else(|| format!("{} has no file name", out.display()))?;
        fs::create_dir_all(&dir).map_err(|e| {
            format!(
                "cannot write {}: cannot create {}: {e}",
                out.display(),
                dir.display()
            )
        })?;
        let path = dir.join(format!(".{}.lock", name.to_string_lossy()));
        // A holder removes the lock file as it ends; a file opened just
        // before that is no longer the one at `path`, so check and retry.
        for _ in 0..100 {
            let file = fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| {
                    format!(
                        "cannot write {}: {e} (creating its lock {})",
                        out.display(),
                        path.display()
                    )
                })?;
            // SAFETY: flock on a descriptor this function owns.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
                let holder = fs::read_to_string(&path).unwrap_or_default();
                let holder = holder.trim();
                return Err(format!(
                    "another tickbook collect is writing {}{}; wait for it or choose another --out",
                    out.display(),
                    if holder.is_empty() {
                        String::new()
                    } else {
                        format!(" (process {holder})")
                    }
                ));
            }
            let same = match (file.metadata(), fs::metadata(&path)) {
                (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
                _ => false,
            };
            if same {
                let mut file = file;
                let _ = file.set_len(0);
                let _ = write!(file, "{}", std::process::id());
                return Ok(OutLock { file, path });
            }
        }
        Err(format!("cannot take the lock {}", path.display()))
    }
}

impl Drop for OutLock {
    fn drop(&mut self) {
        // Removed while still held, so no other run can hold a lock on it.
        let _ = fs::remove_file(&self.path);
        let _ = &self.file;
    }
}

pub fn write_run(path: &Path, run: &RunFile) -> io::Result<()> {
    // Compact JSON: the sample arrays would be one number per line otherwise.
    let bytes = serde_json::to_vec(run).map_err(io::Error::other)?;
    write_atomic(path, &bytes)
}

/// Write to a temporary file in the same directory, fsync it, rename it over
/// `path` and fsync the directory: readers see the old file or the new one,
/// never a torn one, even after a crash or power loss.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir)?;
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other(format!("{} has no file name", path.display())))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)?;
        // The rename is durable only once the directory is synced; some
        // filesystems refuse to open a directory for sync, which is harmless.
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn default_path_is_file_safe() {
        let t = UNIX_EPOCH + Duration::from_secs(1_795_262_581);
        assert_eq!(
            default_path("box-1.lan", t),
            PathBuf::from("results/box-1.lan-20261121T120301Z.json")
        );
        assert_eq!(
            default_path("a/b c", t),
            PathBuf::from("results/a_b_c-20261121T120301Z.json")
        );
        assert_eq!(
            default_path("", t),
            PathBuf::from("results/host-20261121T120301Z.json")
        );
    }

    #[test]
    fn one_writer_per_output_file() {
        let dir = std::env::temp_dir().join(format!("tickbook-lock-{}", std::process::id()));
        let out = dir.join("run.json");
        let first = OutLock::acquire(&out).unwrap();
        let refused = OutLock::acquire(&out).err().unwrap();
        assert!(
            refused.contains("another tickbook collect is writing"),
            "{refused}"
        );
        assert!(
            refused.contains(&std::process::id().to_string()),
            "{refused}"
        );
        // Another file in the same folder is not locked.
        let other = OutLock::acquire(&dir.join("other.json")).unwrap();
        drop(first);
        assert!(!dir.join(".run.json.lock").exists(), "the lock is removed");
        let again = OutLock::acquire(&out).unwrap();
        drop((again, other));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = std::env::temp_dir().join(format!("tickbook-out-{}", std::process::id()));
        let p = dir.join("sub").join("x.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(p.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        let _ = fs::remove_dir_all(&dir);
    }
}
