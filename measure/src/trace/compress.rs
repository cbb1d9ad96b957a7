//! `compress`: LZ77 with hash chains (zlib's match finder, without the
//! entropy coder) over a generated input whose segments alternate between
//! text, structured records, long runs and random bytes, so that the trace
//! has phases.
//!
//! Hand-written rather than a library (miniz_oxide, flate2): the
//! instrumentation levels must put counters inside the compressor's own hot
//! loops (chain walk, match extension), which a library does not expose.

use super::counters::{CounterDef, Probe, Rng};
use super::Workload;

/// Sliding window (as deflate).
const WINDOW: usize = 1 << 15;
const HASH_BITS: u32 = 15;
const MIN_MATCH: usize = 4;
const MAX_MATCH: usize = 258;
/// Chain candidates examined per position (zlib level 6 uses 128 with lazy
/// matching; 48 greedy keeps a similar cost).
const MAX_CHAIN: u32 = 48;
/// Input consumed per work unit; progress is published per block.
pub const BLOCK: usize = 32 << 10;

const C_LITERALS: usize = 0;
const C_MATCHES: usize = 1;
const C_CHAIN: usize = 2;
const C_INSERTS: usize = 3;
const C_BYTES: usize = 4;
const C_POSITIONS: usize = 5;

const COUNTERS: &[CounterDef] = &[
    CounterDef {
        name: "literals",
        level: 1,
        description: "literal bytes emitted (emit_literals)",
    },
    CounterDef {
        name: "matches",
        level: 1,
        description: "matches emitted (emit_match)",
    },
    CounterDef {
        name: "chain_steps",
        level: 2,
        description: "hash-chain candidates examined (find_match)",
    },
    CounterDef {
        name: "hash_inserts",
        level: 2,
        description: "positions inserted into the hash chains (insert)",
    },
    CounterDef {
        name: "bytes_compared",
        level: 2,
        description: "bytes compared while extending a match (match_len)",
    },
    CounterDef {
        name: "positions",
        level: 3,
        description: "positions searched for a match (compress_block loop), atomic",
    },
];

pub struct Compress {
    input: Vec<u8>,
    /// Segment kinds and lengths of the input, for the description.
    segments: Vec<(&'static str, usize)>,
}

impl Compress {
    pub fn new(bytes: usize) -> Self {
        let (input, segments) = generate(bytes, 0xC0FF_EE00);
        Compress { input, segments }
    }
}

/// Segments of 0.5–2.5 MiB, cycling text → records → runs → text → random.
fn generate(bytes: usize, seed: u64) -> (Vec<u8>, Vec<(&'static str, usize)>) {
    let mut rng = Rng(seed);
    let mut out = Vec::with_capacity(bytes);
    let mut segments = Vec::new();
    // A vocabulary of 2000 pseudo-words, drawn with a Zipf-like skew.
    let vocab: Vec<Vec<u8>> = (0..2000)
        .map(|_| {
            let len = 2 + rng.below(8) as usize;
            (0..len).map(|_| b'a' + rng.below(26) as u8).collect()
        })
        .collect();
    let kinds = ["text", "records", "runs", "text", "random"];
    let mut k = 0;
    let mut record = 0u64;
    while out.len() < bytes {
        let kind = kinds[k % kinds.len()];
        k += 1;
        let len = ((512 << 10) + rng.below(2 << 20) as usize).min(bytes - out.len());
        let end = out.len() + len;
        while out.len() < end {
            match kind {
                "text" => {
                    // u² skews towards the frequent words.
                    let u = rng.unit();
                    let w = &vocab[(u * u * vocab.len() as f64) as usize];
                    out.extend_from_slice(w);
                    out.push(if rng.below(12) == 0 { b'\n' } else { b' ' });
                }
                "records" => {
                    record += 1;
                    let line = format!(
                        "{record},{},{:.3},{}\n",
                        ["GET", "PUT", "POST"][rng.below(3) as usize],
                        rng.unit() * 1000.0,
                        rng.below(500)
                    );
                    out.extend_from_slice(line.as_bytes());
                }
                "runs" => {
                    let b = b"ACGT"[rng.below(4) as usize];
                    let n = 1 + rng.below(40) as usize;
                    out.extend(std::iter::repeat(b).take(n));
                }
                _ => out.push(rng.next_u64() as u8),
            }
        }
        out.truncate(end);
        segments.push((kind, len));
    }
    (out, segments)
}

#[inline(always)]
fn hash4(p: &[u8], i: usize) -> usize {
    let v = u32::from_le_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
    (v.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
}

/// Chains over positions of the whole stream (so they survive block
/// boundaries without clearing): `head` and `prev` hold position + 1, 0 =
/// empty; candidates further back than the window are ignored.
struct Chains {
    head: Vec<u32>,
    prev: Vec<u32>,
}

impl Chains {
    fn new() -> Self {
        Chains {
            head: vec![0; 1 << HASH_BITS],
            prev: vec![0; WINDOW],
        }
    }

    #[inline(always)]
    fn insert<const L: u32>(&mut self, p: &[u8], i: usize, probe: &Probe) -> u32 {
        probe.count::<L>(2, C_INSERTS);
        let h = hash4(p, i);
        let cand = self.head[h];
        self.prev[i % WINDOW] = cand;
        self.head[h] = i as u32 + 1;
        cand
    }
}

#[inline(always)]
fn match_len<const L: u32>(p: &[u8], a: usize, b: usize, max: usize, probe: &Probe) -> usize {
    let mut n = 0;
    while n < max {
        probe.count::<L>(2, C_BYTES);
        if p[a + n] != p[b + n] {
            break;
        }
        n += 1;
    }
    n
}

/// Longest match for position `i` along the chain starting at `cand`.
#[inline(never)]
fn find_match<const L: u32>(
    ch: &Chains,
    p: &[u8],
    i: usize,
    end: usize,
    mut cand: u32,
    probe: &Probe,
) -> (usize, usize) {
    let max = (end - i).min(MAX_MATCH);
    let (mut best_len, mut best_dist) = (0, 0);
    let mut steps = MAX_CHAIN;
    while cand != 0 && steps > 0 {
        let c = cand as usize - 1;
        if i - c > WINDOW || c >= i {
            break;
        }
        probe.count::<L>(2, C_CHAIN);
        // A candidate can only be better if it matches at best_len.
        if p[c + best_len.min(max - 1)] == p[i + best_len.min(max - 1)] {
            let len = match_len::<L>(p, c, i, max, probe);
            if len > best_len {
                best_len = len;
                best_dist = i - c;
                if len == max {
                    break;
                }
            }
        }
        cand = ch.prev[c % WINDOW];
        steps -= 1;
    }
    (best_len, best_dist)
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[inline(never)]
fn emit_literals<const L: u32>(out: &mut Vec<u8>, lit: &[u8], probe: &Probe) {
    if lit.is_empty() {
        return;
    }
    put_varint(out, (lit.len() as u64) << 1);
    for &b in lit {
        probe.count::<L>(1, C_LITERALS);
        out.push(b);
    }
}

#[inline(always)]
fn emit_match<const L: u32>(out: &mut Vec<u8>, len: usize, dist: usize, probe: &Probe) {
    probe.count::<L>(1, C_MATCHES);
    put_varint(out, (((len - MIN_MATCH) as u64) << 1) | 1);
    put_varint(out, dist as u64);
}

/// Compress `p[start..end]` (earlier bytes of `p` serve as the window) into
/// `out`: varint tokens, `len << 1` + literal bytes, or `(len − 4) << 1 | 1`
/// + distance.
fn compress_block<const L: u32>(
    ch: &mut Chains,
    p: &[u8],
    start: usize,
    end: usize,
    out: &mut Vec<u8>,
    probe: &Probe,
    kib_before: u64,
) {
    let mut i = start;
    let mut lit = start;
    // Progress per KiB inside the block: a block of long runs can take
    // milliseconds at the higher levels, longer than a sampling interval.
    let mut publish_at = start + 1024;
    while i + MIN_MATCH <= end {
        if i >= publish_at {
            probe.set_progress(kib_before + ((i - start) >> 10) as u64);
            publish_at = i + 1024 - (i - start) % 1024;
        }
        probe.count::<L>(3, C_POSITIONS);
        let cand = ch.insert::<L>(p, i, probe);
        let (len, dist) = find_match::<L>(ch, p, i, end, cand, probe);
        if len >= MIN_MATCH {
            emit_literals::<L>(out, &p[lit..i], probe);
            emit_match::<L>(out, len, dist, probe);
            for j in i + 1..(i + len).min(end + 1 - MIN_MATCH) {
                ch.insert::<L>(p, j, probe);
            }
            i += len;
            lit = i;
        } else {
            i += 1;
        }
    }
    emit_literals::<L>(out, &p[lit..end], probe);
}

/// Inverse of [`compress_block`] (tests and the suite's self-check).
pub fn decompress(window: &[u8], tokens: &[u8]) -> Option<Vec<u8>> {
    let mut out = window.to_vec();
    let base = out.len();
    let mut t = 0;
    let varint = |t: &mut usize| -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *tokens.get(*t)?;
            *t += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Some(v);
            }
        }
        None
    };
    while t < tokens.len() {
        let h = varint(&mut t)?;
        if h & 1 == 0 {
            let n = (h >> 1) as usize;
            out.extend_from_slice(tokens.get(t..t + n)?);
            t += n;
        } else {
            let len = (h >> 1) as usize + MIN_MATCH;
            let dist = varint(&mut t)? as usize;
            if dist == 0 || dist > out.len() {
                return None;
            }
            for _ in 0..len {
                out.push(out[out.len() - dist]);
            }
        }
    }
    Some(out.split_off(base))
}

impl Compress {
    fn run_l<const L: u32>(&self, work: u64, probe: &Probe) -> u64 {
        let p = &self.input;
        let blocks_per_pass = (p.len() / BLOCK) as u64;
        let mut ch = Chains::new();
        let mut out = Vec::with_capacity(2 * BLOCK);
        let mut check = 0u64;
        for unit in 0..work {
            if probe.stopped() {
                break;
            }
            let b = (unit % blocks_per_pass) as usize;
            if b == 0 && unit > 0 {
                // A new pass over the input: positions restart at 0.
                ch = Chains::new();
            }
            out.clear();
            compress_block::<L>(
                &mut ch,
                p,
                b * BLOCK,
                (b + 1) * BLOCK,
                &mut out,
                probe,
                unit * (BLOCK as u64 >> 10),
            );
            check = check
                .rotate_left(5)
                .wrapping_add(out.len() as u64)
                .wrapping_add(u64::from(out.last().copied().unwrap_or(0)));
            probe.set_progress((unit + 1) * (BLOCK as u64 >> 10));
        }
        check
    }

    /// Compress and decompress the first block of every segment kind.
    pub fn self_check(&self) -> Result<(), String> {
        let probe = Probe::default();
        let mut ch = Chains::new();
        let n = (self.input.len() / BLOCK).min(64);
        for b in 0..n {
            let mut out = Vec::new();
            let (s, e) = (b * BLOCK, (b + 1) * BLOCK);
            compress_block::<3>(&mut ch, &self.input, s, e, &mut out, &probe, 0);
            if decompress(&self.input[..s], &out).as_deref() != Some(&self.input[s..e]) {
                return Err(format!(
                    "compress: block {b} does not decompress to its input"
                ));
            }
        }
        Ok(())
    }
}

impl Workload for Compress {
    fn name(&self) -> &'static str {
        "compress"
    }
    fn description(&self) -> String {
        let mut kinds: Vec<String> = Vec::new();
        for (k, n) in &self.segments {
            kinds.push(format!("{k} {:.1} MiB", *n as f64 / (1 << 20) as f64));
        }
        format!(
            "LZ77 with hash chains (32 KiB window, {MAX_CHAIN} candidates, greedy) over {:.0} MiB of generated input in {} KiB blocks, cycling; segments: {}",
            self.input.len() as f64 / (1 << 20) as f64,
            BLOCK >> 10,
            kinds.join(", ")
        )
    }
    fn progress_unit(&self) -> &'static str {
        "KiB"
    }
    fn work_unit(&self) -> &'static str {
        "32 KiB blocks"
    }
    fn counters(&self) -> &'static [CounterDef] {
        COUNTERS
    }
    fn level_description(&self, level: u32) -> &'static str {
        match level {
            0 => "uninstrumented",
            1 => "tokens: literal bytes and matches emitted",
            2 => "+ hash-chain candidates examined, positions inserted, bytes compared while extending matches",
            _ => "+ positions searched, counted with an atomic read-modify-write",
        }
    }
    fn interval_ms(&self, quick: bool) -> f64 {
        // Segments take tens to hundreds of ms: 20 ms resolves them.
        if quick {
            10.0
        } else {
            20.0
        }
    }
    fn run(&self, level: u32, work: u64, probe: &Probe) -> u64 {
        match level {
            0 => self.run_l::<0>(work, probe),
            1 => self.run_l::<1>(work, probe),
            2 => self.run_l::<2>(work, probe),
            _ => self.run_l::<3>(work, probe),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_kind_of_segment() {
        let c = Compress::new(4 << 20);
        c.self_check().unwrap();
        // Text and runs compress; the input is not trivially compressible.
        let probe = Probe::default();
        let mut ch = Chains::new();
        let mut out = Vec::new();
        compress_block::<0>(&mut ch, &c.input, 0, BLOCK, &mut out, &probe, 0);
        assert!(out.len() < BLOCK * 3 / 4, "text block: {}", out.len());
        assert_eq!(probe.total(), 0);
    }

    #[test]
    fn counters_count_what_they_say() {
        let p: Vec<u8> = b"abcdabcdabcdXYZ".to_vec();
        let probe = Probe::default();
        let mut ch = Chains::new();
        let mut out = Vec::new();
        compress_block::<3>(&mut ch, &p, 0, p.len(), &mut out, &probe, 0);
        assert_eq!(decompress(&[], &out).unwrap(), p);
        // "abcd" literal, one match of 8, "XYZ" literal.
        assert_eq!(probe.counter(C_LITERALS), 7);
        assert_eq!(probe.counter(C_MATCHES), 1);
        assert!(probe.counter(C_BYTES) >= 8);
        assert!(probe.counter(C_INSERTS) > 0);
    }
}
