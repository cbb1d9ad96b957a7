//! Page placement of the workload's arrays: transparent huge pages by
//! `madvise`, and page colouring / bin hopping built in user space — map a
//! pool of pages, read their frames from `/proc/self/pagemap`, and `mremap`
//! pages of the wanted colour over the arrays' pages.

use std::io;

use serde::{Deserialize, Serialize};

use super::mem::{madvise, page_size, Frame, Mapping, Pagemap};

/// The whole pages inside `[ptr, ptr + len)`: (first page address, count).
/// Partial pages at the ends may hold allocator headers or neighbours, so
/// they are never touched.
pub fn interior_pages(ptr: *mut u8, len: usize) -> (usize, usize) {
    let page = page_size();
    let start = (ptr as usize).next_multiple_of(page);
    let end = (ptr as usize + len) / page * page;
    if end > start {
        (start, (end - start) / page)
    } else {
        (start, 0)
    }
}

/// What a colouring placement achieved, read back from pagemap afterwards.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct Achieved {
    /// Pages per colour actually obtained.
    pub histogram: Vec<u64>,
    /// Pages whose colour differs from the wanted one.
    pub misses: u64,
    /// Pages placed (whole pages inside the arrays).
    pub pages: u64,
    /// Pages for which the pool had no page of the wanted colour left (they
    /// got another colour; counted in `misses` too if pagemap confirms it).
    pub pool_shortfalls: u64,
    pub pool_pages: u64,
}

/// `madvise(MADV_HUGEPAGE)` on the 2 MiB-alignable interior of each array;
/// must run before the arrays are first written.
pub fn thp_advise(arrays: &[(*mut u8, usize)]) -> io::Result<()> {
    let page = page_size();
    for &(p, len) in arrays {
        let (start, count) = interior_pages(p, len);
        if count > 0 {
            madvise(start as *mut u8, count * page, libc::MADV_HUGEPAGE)?;
        }
    }
    Ok(())
}

/// Colour of a frame or a virtual page number.
pub fn colour_of(page_number: u64, colours: u32) -> u32 {
    (page_number % u64::from(colours)) as u32
}

/// Replace every whole page inside the arrays by a pool page whose frame has
/// the wanted colour. `bin_hopping == false`: page colouring, the wanted
/// colour is the virtual colour of the target page. `true`: bin hopping, the
/// k-th page (in allocation order over all arrays) wants colour k mod
/// colours. The arrays' contents are lost (they are filled afterwards).
///
/// # Safety
/// Every `(ptr, len)` must be memory the caller owns (a live allocation)
/// that nobody reads or writes while this runs; only whole pages inside it
/// are replaced, which keeps it mapped, private, anonymous and read-write.
pub unsafe fn colour(
    arrays: &[(*mut u8, usize)],
    colours: u32,
    bin_hopping: bool,
) -> Result<Achieved, String> {
    let page = page_size();
    if colours < 2 {
        return Err(format!("{colours} colour(s): nothing to place"));
    }
    let mut targets: Vec<(usize, u32)> = Vec::new();
    for &(p, len) in arrays {
        let (start, count) = interior_pages(p, len);
        for i in 0..count {
            let addr = start + i * page;
            let k = targets.len() as u64;
            let wanted = if bin_hopping {
                colour_of(k, colours)
            } else {
                colour_of((addr / page) as u64, colours)
            };
            targets.push((addr, wanted));
        }
    }
    let pagemap = Pagemap::open().map_err(|e| format!("cannot open /proc/self/pagemap: {e}"))?;
    // The pool: three pages per target plus 64 per colour, so that every
    // colour has enough pages although the kernel hands out frames unevenly.
    let pool_pages = targets.len() * 3 + 64 * colours as usize;
    let pool = Mapping::new(pool_pages * page).map_err(|e| format!("pool mmap: {e}"))?;
    // 4 KiB frames only: a huge page would give 512 pages of one run of
    // colours and split on the first mremap.
    pool.advise(libc::MADV_NOHUGEPAGE)
        .map_err(|e| format!("madvise(MADV_NOHUGEPAGE) on the pool: {e}"))?;
    pool.touch(0x5A);
    let frames = pagemap
        .frames(pool.ptr() as usize, pool_pages)
        .map_err(|e| format!("reading the pool's frames: {e}"))?;
    let mut by_colour: Vec<Vec<usize>> = vec![Vec::new(); colours as usize];
    for (i, f) in frames.iter().enumerate() {
        match f {
            Frame::Pfn(pfn) => by_colour[colour_of(*pfn, colours) as usize].push(i),
            Frame::Hidden => {
                return Err(
                    "/proc/self/pagemap hides frame numbers (not root): cannot colour pages"
                        .to_string(),
                )
            }
            Frame::NotPresent => {}
        }
    }
    let mut shortfalls = 0u64;
    for &(addr, wanted) in &targets {
        let idx = match by_colour[wanted as usize].pop() {
            Some(i) => i,
            None => {
                // No page of that colour left: take one from the fullest
                // colour so that the shortfall shows up as a miss.
                shortfalls += 1;
                let fullest = (0..by_colour.len())
                    .max_by_key(|&c| by_colour[c].len())
                    .unwrap_or(0);
                by_colour[fullest]
                    .pop()
                    .ok_or_else(|| "the page pool ran out".to_string())?
            }
        };
        let from = pool.ptr().add(idx * page);
        // SAFETY: `from` is a whole page of our pool mapping, still mapped
        // (each pool page is moved at most once); `addr` is a whole page
        // inside memory the caller owns and does not touch concurrently.
        // MREMAP_FIXED unmaps the old page at `addr` and moves the pool page
        // (its frame and contents) there; the pool keeps a hole, which its
        // munmap on drop accepts.
        let r = libc::mremap(
            from.cast(),
            page,
            page,
            libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED,
            addr as *mut libc::c_void,
        );
        if r == libc::MAP_FAILED {
            return Err(format!(
                "mremap of a pool page to {addr:#x}: {}",
                io::Error::last_os_error()
            ));
        }
        if r as usize != addr {
            return Err(format!("mremap moved the page to {r:p}, not {addr:#x}"));
        }
    }
    drop(pool);
    // Read back what the arrays' pages really are now.
    let mut achieved = Achieved {
        histogram: vec![0; colours as usize],
        pages: targets.len() as u64,
        pool_shortfalls: shortfalls,
        pool_pages: pool_pages as u64,
        ..Achieved::default()
    };
    for &(addr, wanted) in &targets {
        let f = pagemap
            .frames(addr, 1)
            .map_err(|e| format!("reading placed frames: {e}"))?[0];
        match f {
            Frame::Pfn(pfn) => {
                let c = colour_of(pfn, colours);
                achieved.histogram[c as usize] += 1;
                if c != wanted {
                    achieved.misses += 1;
                }
            }
            _ => achieved.misses += 1,
        }
    }
    Ok(achieved)
}

/// Colours of the whole pages inside the arrays as they are now (no wanted
/// colour): the kernel's own placement, for the strategies that do not place.
pub fn colour_histogram(arrays: &[(*mut u8, usize)], colours: u32) -> Result<Vec<u64>, String> {
    let pagemap = Pagemap::open().map_err(|e| format!("cannot open /proc/self/pagemap: {e}"))?;
    let mut h = vec![0u64; colours as usize];
    for &(p, len) in arrays {
        let (start, count) = interior_pages(p, len);
        for f in pagemap
            .frames(start, count)
            .map_err(|e| format!("reading frames: {e}"))?
        {
            if let Frame::Pfn(pfn) = f {
                h[colour_of(pfn, colours) as usize] += 1;
            }
        }
    }
    Ok(h)
}

/// Bytes of the arrays' whole pages that sit in transparent huge pages:
/// exact from `/proc/kpageflags` (KPF_THP, bit 22; root only), else the
/// `AnonHugePages` of the mappings holding the arrays from `/proc/self/smaps`
/// (which may count neighbours in the same mapping). Returns (bytes, source).
pub fn huge_bytes(arrays: &[(*mut u8, usize)]) -> Result<(u64, &'static str), String> {
    use std::os::unix::fs::FileExt;
    const KPF_THP: u64 = 1 << 22;
    let page = page_size();
    let exact = (|| -> Result<u64, String> {
        let flags = std::fs::File::open("/proc/kpageflags").map_err(|e| e.to_string())?;
        let pagemap = Pagemap::open().map_err(|e| e.to_string())?;
        let mut bytes = 0u64;
        for &(p, len) in arrays {
            let (start, count) = interior_pages(p, len);
            for f in pagemap.frames(start, count).map_err(|e| e.to_string())? {
                match f {
                    Frame::Pfn(pfn) => {
                        let mut b = [0u8; 8];
                        flags
                            .read_exact_at(&mut b, pfn * 8)
                            .map_err(|e| e.to_string())?;
                        if u64::from_le_bytes(b) & KPF_THP != 0 {
                            bytes += page as u64;
                        }
                    }
                    Frame::Hidden => return Err("frames hidden".to_string()),
                    Frame::NotPresent => {}
                }
            }
        }
        Ok(bytes)
    })();
    match exact {
        Ok(b) => Ok((b, "kpageflags")),
        Err(_) => huge_page_bytes(arrays).map(|b| (b, "smaps")),
    }
}

/// Bytes of transparent huge pages (`AnonHugePages` in `/proc/self/smaps`)
/// in the mappings that hold the arrays.
pub fn huge_page_bytes(arrays: &[(*mut u8, usize)]) -> Result<u64, String> {
    let text = std::fs::read_to_string("/proc/self/smaps")
        .map_err(|e| format!("cannot read /proc/self/smaps: {e}"))?;
    let overlaps = |lo: usize, hi: usize| {
        arrays
            .iter()
            .any(|&(p, len)| (p as usize) < hi && lo < p as usize + len)
    };
    let mut total = 0u64;
    let mut current = false;
    for line in text.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if let Some((lo, hi)) = first.split_once('-') {
            if let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
            {
                current = overlaps(lo, hi);
                continue;
            }
        }
        if current {
            if let Some(rest) = line.strip_prefix("AnonHugePages:") {
                let kb: u64 = rest
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse()
                    .map_err(|e| format!("smaps AnonHugePages {rest:?}: {e}"))?;
                total += kb * 1024;
            }
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interior_pages_skip_partial_ends() {
        let p = page_size();
        assert_eq!(interior_pages(p as *mut u8, 3 * p), (p, 3));
        assert_eq!(interior_pages((p + 16) as *mut u8, 3 * p), (2 * p, 2));
        assert_eq!(interior_pages((p + 16) as *mut u8, 100), (2 * p, 0));
    }

    #[test]
    fn colouring_places_pages_where_frames_are_visible() {
        if super::super::mem::frames_visible().is_err() {
            eprintln!("frames hidden: colouring not tested here");
            return;
        }
        let m = Mapping::new(64 * page_size() + 100).unwrap();
        let arrays = [(m.ptr(), m.len())];
        for bin in [false, true] {
            // SAFETY: the mapping is ours and nothing else uses it.
            let a = unsafe { colour(&arrays, 8, bin) }.unwrap();
            assert_eq!(a.pages, m.len() as u64 / page_size() as u64);
            assert_eq!(a.histogram.iter().sum::<u64>(), a.pages);
            assert!(a.misses * 10 <= a.pages, "{a:?}");
            // Still ordinary writable memory.
            m.touch(3);
        }
    }
}
