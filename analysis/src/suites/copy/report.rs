//! The Copy cell (after Tišnovský's ArrayCopyTest3): time per copy for every variant ×
//! alignment × implementation × length, and the cases that are slower than
//! the same copy between distinct arrays at offset (0, 0) — flagged by the
//! comparison rule (disjoint CIs and a difference above the threshold), not
//! by a hand-written cut-off.

use super::CopyData;
use crate::format::NamedSize;
use crate::options::Options;
use crate::stats::bootstrap::{median_ci, BootstrapCi};
use crate::stats::compare::{differ, Est};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct CopyReport {
    pub clock: String,
    pub repetitions: u32,
    pub cache_bytes: Vec<NamedSize>,
    pub implementations: Vec<String>,
    /// Nominal lengths (see `CopyCell::nominal_length`).
    pub lengths: Vec<u64>,
    pub alignments: Vec<u64>,
    /// The relative difference a flagged case must exceed.
    pub threshold: f64,
    pub cells: Vec<CopyCell>,
    /// Flagged cells (slower than their baseline), slowest ratio first.
    pub flagged: Vec<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CopyCell {
    pub implementation: String,
    pub length: u64,
    /// The nominal length this case belongs to: lengths are rounded down
    /// to the alignment from nominal + 63, so each nominal length appears
    /// as up to 64 bytes more; this groups them for the heat maps.
    pub nominal_length: u64,
    pub variant: u8,
    pub alignment: u64,
    pub same_array: bool,
    pub src_offset: u64,
    pub dst_offset: u64,
    pub available: bool,
    pub unavailable_reason: Option<String>,
    /// Median ns per copy with its bootstrap CI.
    pub ns_per_copy: Option<BootstrapCi>,
    /// Median ns per byte copied.
    pub ns_per_byte: Option<f64>,
    /// Bytes per ns (GB/s) at the median.
    pub gb_per_s: Option<f64>,
    /// This cell's median over its baseline's (variant 1, same
    /// implementation, length and alignment).
    pub ratio_to_baseline: Option<f64>,
    /// Slower than the baseline by the comparison rule.
    pub flagged: bool,
}

pub fn copy_report(d: &CopyData, o: &Options) -> CopyReport {
    let mut cells: Vec<CopyCell> = d
        .cases
        .iter()
        .map(|c| {
            let ci = if c.available {
                median_ci(&c.samples_ns, &o.bootstrap)
            } else {
                None
            };
            let len = c.length.max(1) as f64;
            CopyCell {
                implementation: c.implementation.clone(),
                length: c.length,
                nominal_length: c.length - c.length % 64,
                variant: c.variant,
                alignment: c.alignment,
                same_array: c.same_array,
                src_offset: c.src_offset,
                dst_offset: c.dst_offset,
                available: c.available,
                unavailable_reason: c.unavailable_reason.clone(),
                ns_per_byte: ci.as_ref().map(|ci| ci.estimate / len),
                gb_per_s: ci
                    .as_ref()
                    .filter(|ci| ci.estimate > 0.0)
                    .map(|ci| len / ci.estimate),
                ns_per_copy: ci,
                ratio_to_baseline: None,
                flagged: false,
            }
        })
        .collect();

    let est = |c: &CopyCell| {
        c.ns_per_copy.as_ref().map(|ci| Est {
            estimate: ci.estimate,
            lo: ci.lo,
            hi: ci.hi,
        })
    };
    for i in 0..cells.len() {
        let base = cells.iter().position(|b| {
            b.variant == 1
                && b.implementation == cells[i].implementation
                && b.length == cells[i].length
                && b.alignment == cells[i].alignment
        });
        if let (Some(b), Some(me)) = (base.and_then(|b| est(&cells[b])), est(&cells[i])) {
            if b.estimate > 0.0 {
                cells[i].ratio_to_baseline = Some(me.estimate / b.estimate);
            }
            cells[i].flagged = me.estimate > b.estimate && differ(&me, &b, o.threshold);
        }
    }
    let mut flagged: Vec<usize> = (0..cells.len()).filter(|&i| cells[i].flagged).collect();
    flagged.sort_by(|&a, &b| {
        let r = |i: usize| cells[i].ratio_to_baseline.unwrap_or(0.0);
        r(b).total_cmp(&r(a))
    });

    let mut implementations: Vec<String> = Vec::new();
    let mut lengths: Vec<u64> = Vec::new();
    let mut alignments: Vec<u64> = Vec::new();
    for c in &cells {
        if !implementations.contains(&c.implementation) {
            implementations.push(c.implementation.clone());
        }
        if !lengths.contains(&c.nominal_length) {
            lengths.push(c.nominal_length);
        }
        if !alignments.contains(&c.alignment) {
            alignments.push(c.alignment);
        }
    }
    lengths.sort_unstable();
    alignments.sort_unstable();
    CopyReport {
        clock: d.clock.clone(),
        repetitions: d.repetitions,
        cache_bytes: d.cache_bytes.clone(),
        implementations,
        lengths,
        alignments,
        threshold: o.threshold,
        cells,
        flagged,
    }
}

#[cfg(test)]
mod tests {
    use super::super::CopyCase;
    use super::*;

    fn case(variant: u8, samples: Vec<f64>) -> CopyCase {
        CopyCase {
            implementation: "rep_movsb".into(),
            variant,
            same_array: variant > 4,
            src_offset: 0,
            dst_offset: 0,
            alignment: 1,
            length: 1000,
            available: true,
            unavailable_reason: None,
            samples_ns: samples,
            copies_per_sample: None,
        }
    }

    #[test]
    fn slow_variant_is_flagged_by_the_rule() {
        let d = CopyData {
            clock: "tsc".into(),
            copies_per_sample: 1,
            repetitions: 5,
            cache_bytes: vec![],
            cases: vec![
                case(1, vec![100.0, 101.0, 99.0, 100.5, 100.2]),
                case(2, vec![101.0, 100.0, 100.6, 99.5, 100.1]),
                case(8, vec![300.0, 310.0, 305.0, 299.0, 302.0]),
            ],
        };
        let r = copy_report(&d, &Options::default());
        assert_eq!(r.flagged, vec![2]);
        assert!(!r.cells[1].flagged);
        assert!((r.cells[2].ratio_to_baseline.unwrap() - 302.0 / 100.2).abs() < 1e-12);
        assert!((r.cells[0].ns_per_byte.unwrap() - 0.1002).abs() < 1e-12);
    }
}
