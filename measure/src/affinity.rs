//! Thread CPU affinity: pin the measuring thread (so a scan is not split
//! across CPUs by the scheduler), and move it on purpose for the cross-CPU
//! check.

use std::io;

/// Up to 1024 CPUs, the layout of glibc's `cpu_set_t`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct CpuSet([u64; 16]);

impl CpuSet {
    pub fn empty() -> Self {
        CpuSet([0; 16])
    }
    pub fn single(cpu: usize) -> Self {
        let mut s = Self::empty();
        if cpu < 1024 {
            s.0[cpu / 64] |= 1 << (cpu % 64);
        }
        s
    }
    /// This set with `cpu` added (CPUs past 1023 are ignored).
    pub fn with(mut self, cpu: usize) -> Self {
        if cpu < 1024 {
            self.0[cpu / 64] |= 1 << (cpu % 64);
        }
        self
    }
    pub fn cpus(&self) -> Vec<usize> {
        (0..1024)
            .filter(|c| self.0[c / 64] >> (c % 64) & 1 == 1)
            .collect()
    }
}

/// The calling thread's allowed CPUs.
pub fn get() -> io::Result<CpuSet> {
    let mut s = CpuSet::empty();
    // SAFETY: the buffer is 128 writable bytes and we pass that size; the
    // kernel writes at most that many.
    let rc = unsafe {
        libc::sched_getaffinity(
            0,
            std::mem::size_of::<CpuSet>(),
            (&mut s as *mut CpuSet).cast::<libc::cpu_set_t>(),
        )
    };
    if rc == 0 {
        Ok(s)
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Restrict the calling thread to `set`. The kernel moves the thread before
/// returning when its current CPU is not in the set.
pub fn set(set: &CpuSet) -> io::Result<()> {
    // SAFETY: the buffer is 128 readable bytes and we pass that size.
    let rc = unsafe {
        libc::sched_setaffinity(
            0,
            std::mem::size_of::<CpuSet>(),
            (set as *const CpuSet).cast::<libc::cpu_set_t>(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The CPU the calling thread runs on now (it may change right after).
pub fn current_cpu() -> Option<usize> {
    // SAFETY: no preconditions.
    let c = unsafe { libc::sched_getcpu() };
    (c >= 0).then_some(c as usize)
}

/// Restores the original affinity when dropped (also on panic).
pub struct Restore(Option<CpuSet>);

impl Restore {
    pub fn new(original: Option<CpuSet>) -> Self {
        Restore(original)
    }
}

impl Drop for Restore {
    fn drop(&mut self) {
        if let Some(s) = &self.0 {
            let _ = set(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpuset_bits() {
        assert_eq!(CpuSet::single(0).cpus(), vec![0]);
        assert_eq!(CpuSet::single(65).cpus(), vec![65]);
        assert!(CpuSet::single(5000).cpus().is_empty());
        let s = get().unwrap();
        assert!(!s.cpus().is_empty());
    }
}
