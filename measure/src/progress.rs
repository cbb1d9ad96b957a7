//! Progress on stderr (indicatif). Nothing here runs on its own thread: bars
//! are redrawn only when the measuring code updates them between timed
//! regions, so drawing never lands inside a measurement.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

pub struct Progress {
    multi: MultiProgress,
}

impl Progress {
    pub fn new() -> Self {
        Progress {
            // indicatif draws nothing when stderr is not a terminal.
            multi: MultiProgress::with_draw_target(ProgressDrawTarget::stderr()),
        }
    }

    /// Progress that draws nothing: a measurement made inside another
    /// command's (`tickbook doctor`'s), whose output is its own.
    pub fn hidden() -> Self {
        Progress {
            multi: MultiProgress::with_draw_target(ProgressDrawTarget::hidden()),
        }
    }

    /// A bar of `len` units for one step (e.g. one clock).
    pub fn bar(&self, prefix: &str, len: u64) -> ProgressBar {
        let style = ProgressStyle::with_template(
            "{prefix:>26.bold} [{bar:30.cyan/blue}] {pos:>6}/{len:<6} {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        let pb = self.multi.add(ProgressBar::new(len));
        pb.set_style(style);
        pb.set_prefix(prefix.to_string());
        pb
    }

    /// A step without a known length.
    pub fn spinner(&self, prefix: &str, msg: &str) -> ProgressBar {
        let style = ProgressStyle::with_template("{prefix:>26.bold} {spinner} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        let pb = self.multi.add(ProgressBar::new_spinner());
        pb.set_style(style);
        pb.set_prefix(prefix.to_string());
        pb.set_message(msg.to_string());
        pb.tick();
        pb
    }

    pub fn clear(&self) {
        let _ = self.multi.clear();
    }
}
