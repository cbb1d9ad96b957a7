//! Comparing results with uncertainty (Hocko & Kalibera): two results differ
//! only when their confidence intervals do not overlap **and** they differ by
//! more than a threshold the user chooses; strategies are ranked with ties.

use serde::Serialize;

/// An estimate with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Est {
    pub estimate: f64,
    pub lo: f64,
    pub hi: f64,
}

/// Relative difference (larger − smaller) / smaller; infinite when the
/// smaller is 0 and they differ.
pub fn relative_difference(a: f64, b: f64) -> f64 {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    if hi == lo {
        0.0
    } else if lo > 0.0 {
        (hi - lo) / lo
    } else {
        f64::INFINITY
    }
}

/// Whether `a` and `b` differ: disjoint intervals and a relative difference
/// above `threshold` (0.03 = 3 %).
pub fn differ(a: &Est, b: &Est, threshold: f64) -> bool {
    let overlap = a.lo <= b.hi && b.lo <= a.hi;
    !overlap && relative_difference(a.estimate, b.estimate) > threshold
}

/// Rank of each item where lower is better: 1 + the number of items that
/// are lower and differ from it. Ties share a rank; several can be first.
pub fn ranks(items: &[Est], threshold: f64) -> Vec<usize> {
    items
        .iter()
        .map(|a| {
            1 + items
                .iter()
                .filter(|b| b.estimate < a.estimate && differ(a, b, threshold))
                .count()
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A difference shown by the rule, the ratio's CI excluding 1, and a
    /// relative difference above the threshold.
    Different,
    /// A difference shown by the rule and the ratio's CI, but no larger
    /// than the threshold.
    WithinThreshold,
    /// No difference shown: the rule finds none and the ratio's CI holds 1.
    Same,
    /// The rule and the ratio's CI disagree (one shows a difference, the
    /// other does not).
    Unclear,
    /// The item is in one file only.
    Missing,
    /// Both files hold the item but one side has no estimate to decide on.
    NoEstimate,
}

/// The verdict from whether the rule shows a difference (`None`: it cannot
/// tell), the ratio's CI and the relative difference: never `same` while
/// the ratio's CI excludes 1, never `different` while it holds 1.
pub fn decide(
    shown: Option<bool>,
    ratio: Option<&super::bootstrap::BootstrapCi>,
    relative_difference: Option<f64>,
    threshold: f64,
) -> Verdict {
    let Some(shown) = shown else {
        return Verdict::NoEstimate;
    };
    let excludes_one = ratio.map(|r| r.lo > 1.0 || r.hi < 1.0);
    match (shown, excludes_one) {
        (true, Some(false)) | (false, Some(true)) => Verdict::Unclear,
        (false, _) => Verdict::Same,
        (true, _) if relative_difference.is_some_and(|d| d > threshold) => Verdict::Different,
        (true, _) => Verdict::WithinThreshold,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(estimate: f64, half: f64) -> Est {
        Est {
            estimate,
            lo: estimate - half,
            hi: estimate + half,
        }
    }

    #[test]
    fn overlap_or_small_difference_is_no_difference() {
        assert!(!differ(&e(100.0, 5.0), &e(108.0, 5.0), 0.0)); // intervals overlap
        assert!(differ(&e(100.0, 1.0), &e(108.0, 1.0), 0.03));
        assert!(!differ(&e(100.0, 1.0), &e(108.0, 1.0), 0.10)); // 8 % < 10 %
        assert_eq!(relative_difference(2.0, 1.0), 1.0);
        assert_eq!(relative_difference(0.0, 0.0), 0.0);
    }

    #[test]
    fn ranks_allow_ties() {
        let items = [e(100.0, 1.0), e(100.5, 1.0), e(120.0, 1.0)];
        assert_eq!(ranks(&items, 0.01), vec![1, 1, 3]);
        assert_eq!(ranks(&items, 0.5), vec![1, 1, 1]);
    }
}
