//! The `copy` suite's `data`: the types its section of a run file reads to.

use crate::format::NamedSize;
use serde::{Deserialize, Serialize};

/// `data` of the `copy` suite: the array-copy benchmark ArrayCopyTest3
/// — 8 variants × alignments × implementations × lengths.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CopyData {
    /// The clock that timed the samples (`tsc_lfence_rdtsc`, `std::time::Instant`).
    pub clock: String,
    /// Copies per timed sample; each sample is the time of one copy in ns
    /// (the timed total divided by this).
    pub copies_per_sample: u32,
    pub repetitions: u32,
    /// Cache sizes (bytes) the lengths were chosen around, e.g. `L1d`, `L2`, `L3`.
    #[serde(default)]
    pub cache_bytes: Vec<NamedSize>,
    pub cases: Vec<CopyCase>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CopyCase {
    /// `std_copy_nonoverlapping`, `std_copy` (memmove), `rep_movsb`,
    /// `sse2_loop16`, `avx2_loop32`, `byte_loop`.
    pub implementation: String,
    /// 1–8, as in ArrayCopyTest3: 1–4 distinct arrays, 5–8 the same
    /// array, with offsets (0,0), (off,0), (0,off), (off,off).
    pub variant: u8,
    pub same_array: bool,
    pub src_offset: u64,
    pub dst_offset: u64,
    /// The alignment the offset and length were rounded to (`i − i % align`).
    pub alignment: u64,
    /// Bytes copied.
    pub length: u64,
    pub available: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable_reason: Option<String>,
    /// ns per copy, every sample.
    #[serde(default)]
    pub samples_ns: Vec<f64>,
    /// Copies per timed sample in this case when it differs from
    /// `CopyData.copies_per_sample` (long copies are timed one per sample).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copies_per_sample: Option<u32>,
}
