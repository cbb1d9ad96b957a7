//! The git revision of the working directory a run is collected in: what
//! orders a folder of per-commit runs into a history. Asked of `git`
//! itself (its plumbing commands), so worktrees, packed refs and detached
//! heads read as git sees them; no git, or no repository, is no revision.

use std::process::{Command, Stdio};
use tickbook_analysis::format::Revision;

/// The revision of the current directory's checkout, if it is one.
pub(crate) fn current() -> Option<Revision> {
    let commit = git(&["rev-parse", "--verify", "--quiet", "HEAD"])?;
    let branch = git(&["symbolic-ref", "--quiet", "--short", "HEAD"]);
    // Tracked files only: an untracked results file is not a change of the program.
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty());
    let date = git(&["show", "-s", "--format=%cI", "HEAD"]);
    Some(Revision {
        commit: Some(commit),
        branch,
        dirty: dirty.or(Some(false)),
        date,
    })
}

/// `git ARGS`' trimmed output; none when git is missing or fails.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_checkout_has_a_revision_git_agrees_with() {
        // The tests run in the repository's checkout (or a copy without
        // .git, where there is none to find).
        let Some(r) = current() else {
            assert!(git(&["rev-parse", "HEAD"]).is_none());
            return;
        };
        let commit = r.commit.expect("a commit");
        assert_eq!(commit.len(), 40, "{commit}");
        assert!(commit.chars().all(|c| c.is_ascii_hexdigit()), "{commit}");
        let date = r.date.expect("a commit date");
        assert!(date.len() >= 20 && date.as_bytes()[4] == b'-', "{date}");
        assert!(r.dirty.is_some());
    }
}
