//! Writing the result file: whole or not at all.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tickbook_analysis::format::RunFile;

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
