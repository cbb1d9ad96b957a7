//! SIGINT / SIGTERM: remember the signal, let the run stop at its next check
//! and save what it has.

use std::sync::atomic::{AtomicI32, Ordering};

/// The signal that asked us to stop, 0 while none has.
static STOP: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    STOP.store(sig, Ordering::SeqCst);
}

/// Install the handlers. `SA_RESETHAND` restores the default action after the
/// first signal, so a second Ctrl-C kills a run that does not stop soon enough.
pub fn install() -> Result<(), String> {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction is a valid "no flags, empty mask" value;
        // the handler only stores to an atomic; pointers are to locals.
        let rc = unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            sa.sa_flags = libc::SA_RESETHAND | libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut())
        };
        if rc != 0 {
            return Err(format!(
                "sigaction({}) failed: {}",
                name(sig),
                std::io::Error::last_os_error()
            ));
        }
    }
    Ok(())
}

/// The signal number if a stop was requested.
#[inline]
pub fn stop_requested() -> Option<i32> {
    match STOP.load(Ordering::Relaxed) {
        0 => None,
        s => Some(s),
    }
}

pub fn name(sig: i32) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}
