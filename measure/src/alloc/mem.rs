//! Anonymous mappings and `/proc/self/pagemap`: the raw material of the page
//! placement strategies (and the page-aligned buffers of the copy suite).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

/// The base page size (`sysconf(_SC_PAGESIZE)`), 4096 when it cannot be read.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

/// A private anonymous read-write mapping, unmapped on drop. Its pages may be
/// replaced (by `mremap`) but never unmapped by anyone else while it lives, so
/// `[ptr, ptr + len)` stays valid memory for its whole life.
pub struct Mapping {
    ptr: *mut u8,
    len: usize,
}

impl Mapping {
    /// Map `len` bytes (rounded up to whole pages).
    pub fn new(len: usize) -> io::Result<Mapping> {
        let page = page_size();
        let len = len
            .max(1)
            .checked_next_multiple_of(page)
            .ok_or_else(|| io::Error::other("mapping size overflows"))?;
        // SAFETY: a fresh anonymous mapping at an address of the kernel's
        // choosing aliases nothing; the result is checked below.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Mapping {
            ptr: p.cast::<u8>(),
            len,
        })
    }

    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Write every page so that each has a real frame (not the shared zero
    /// page) before anything is timed or its frame is read.
    pub fn touch(&self, value: u8) {
        let page = page_size();
        let mut off = 0;
        while off < self.len {
            // SAFETY: off < len, inside the live mapping; volatile so the
            // store is not dropped as dead.
            unsafe { self.ptr.add(off).write_volatile(value) };
            off += page;
        }
    }

    /// `madvise` over the whole mapping.
    pub fn advise(&self, advice: libc::c_int) -> io::Result<()> {
        madvise(self.ptr, self.len, advice)
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: ptr/len are exactly what mmap returned; nothing borrows the
        // memory once the owner is dropped. Pages moved out by mremap leave
        // holes, which munmap accepts.
        unsafe {
            libc::munmap(self.ptr.cast(), self.len);
        }
    }
}

/// `madvise` on a page-aligned range the caller owns.
pub fn madvise(ptr: *mut u8, len: usize, advice: libc::c_int) -> io::Result<()> {
    // SAFETY: advice about a range of our own address space; MADV_HUGEPAGE /
    // MADV_NOHUGEPAGE do not change the contents. The kernel checks the range.
    let rc = unsafe { libc::madvise(ptr.cast(), len, advice) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Reads page frame numbers of this process's pages.
pub struct Pagemap {
    file: File,
    page: usize,
}

/// What pagemap says about one virtual page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// Present in RAM at this PFN.
    Pfn(u64),
    /// Present, but the kernel hides the PFN (reads as 0 without
    /// CAP_SYS_ADMIN since Linux 4.2).
    Hidden,
    /// Not present (never touched, or swapped out).
    NotPresent,
}

impl Pagemap {
    pub fn open() -> io::Result<Pagemap> {
        Ok(Pagemap {
            file: File::open("/proc/self/pagemap")?,
            page: page_size(),
        })
    }

    /// Frames of `count` consecutive pages starting at the page of `addr`.
    pub fn frames(&self, addr: usize, count: usize) -> io::Result<Vec<Frame>> {
        let mut buf = vec![0u8; count * 8];
        let offset = (addr / self.page) as u64 * 8;
        self.file.read_exact_at(&mut buf, offset)?;
        Ok(buf
            .chunks_exact(8)
            .map(|c| {
                let mut b = [0u8; 8];
                b.copy_from_slice(c);
                decode(u64::from_le_bytes(b))
            })
            .collect())
    }
}

/// A pagemap entry: bit 63 present, bits 0–54 the PFN.
pub fn decode(entry: u64) -> Frame {
    if entry >> 63 & 1 == 0 {
        return Frame::NotPresent;
    }
    match entry & ((1u64 << 55) - 1) {
        0 => Frame::Hidden,
        pfn => Frame::Pfn(pfn),
    }
}

/// Can this process read frame numbers? Touches a page of its own and reads
/// its entry. `Err` says why not, in words for `Suite.fallbacks`.
pub fn frames_visible() -> Result<(), String> {
    let m = Mapping::new(page_size()).map_err(|e| format!("mmap failed: {e}"))?;
    m.touch(1);
    let pm = Pagemap::open().map_err(|e| format!("cannot open /proc/self/pagemap: {e}"))?;
    match pm
        .frames(m.ptr() as usize, 1)
        .map_err(|e| format!("cannot read /proc/self/pagemap: {e}"))?[0]
    {
        Frame::Pfn(_) => Ok(()),
        Frame::Hidden => Err(
            "/proc/self/pagemap hides frame numbers (they read as 0; reading them needs CAP_SYS_ADMIN)"
                .to_string(),
        ),
        Frame::NotPresent => {
            Err("/proc/self/pagemap shows a just-written page as not present".to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_entries() {
        assert_eq!(decode(0), Frame::NotPresent);
        assert_eq!(decode(1 << 63), Frame::Hidden);
        assert_eq!(decode((1 << 63) | 0x1234), Frame::Pfn(0x1234));
        // Soft-dirty / exclusive / file bits above the PFN are not part of it.
        assert_eq!(decode((1 << 63) | (1 << 55) | (1 << 56) | 7), Frame::Pfn(7));
    }

    #[test]
    fn mapping_touch_and_frames() {
        let m = Mapping::new(3 * page_size()).unwrap();
        m.touch(9);
        let pm = Pagemap::open().unwrap();
        let f = pm.frames(m.ptr() as usize, 3).unwrap();
        assert_eq!(f.len(), 3);
        assert!(f.iter().all(|f| *f != Frame::NotPresent), "{f:?}");
    }
}
