//! Six-number summary (min, Q1, median, mean, Q3, max) and Tukey fences.

use super::moments::Welford;
use super::quantile::{quantile_sorted, QuantileType};
use serde::Serialize;

/// Six-number summary plus spread, of finite data.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub n: usize,
    pub min: f64,
    pub q1: f64,
    pub median: f64,
    pub mean: f64,
    pub q3: f64,
    pub max: f64,
    /// Sample standard deviation (n − 1); `None` below two values.
    pub sd: Option<f64>,
    /// sd / mean; `None` when undefined.
    pub cv: Option<f64>,
    pub quantile_type: QuantileType,
}

impl Summary {
    /// `None` for empty data. `sorted` must be sorted ascending and finite.
    pub fn of_sorted(sorted: &[f64], t: QuantileType) -> Option<Summary> {
        let w = Welford::from_slice(sorted);
        Some(Summary {
            n: sorted.len(),
            min: *sorted.first()?,
            q1: quantile_sorted(sorted, 0.25, t)?,
            median: quantile_sorted(sorted, 0.5, t)?,
            mean: w.mean()?,
            q3: quantile_sorted(sorted, 0.75, t)?,
            max: *sorted.last()?,
            sd: w.sd(),
            cv: w.cv(),
            quantile_type: t,
        })
    }

    pub fn iqr(&self) -> f64 {
        self.q3 - self.q1
    }
}

/// Tukey's fences: mild at k·IQR (k = 1.5 by default), extreme at 2k·IQR
/// (3·IQR) beyond the quartiles; a value is an outlier when strictly
/// outside. Whiskers end at the most extreme values inside the mild fences.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fences {
    /// The multiple of the IQR of the mild fences.
    pub k: f64,
    pub lower: f64,
    pub upper: f64,
    pub lower_extreme: f64,
    pub upper_extreme: f64,
    pub whisker_low: f64,
    pub whisker_high: f64,
}

/// Tukey's own multiple.
pub const TUKEY_K: f64 = 1.5;

impl Fences {
    pub fn of(summary: &Summary, sorted: &[f64]) -> Fences {
        Fences::with_k(summary, sorted, TUKEY_K)
    }

    /// Fences at k·IQR (mild) and 2k·IQR (extreme).
    pub fn with_k(summary: &Summary, sorted: &[f64], k: f64) -> Fences {
        let iqr = summary.iqr();
        let lower = summary.q1 - k * iqr;
        let upper = summary.q3 + k * iqr;
        let inside = |x: &&f64| **x >= lower && **x <= upper;
        Fences {
            k,
            lower,
            upper,
            lower_extreme: summary.q1 - 2.0 * k * iqr,
            upper_extreme: summary.q3 + 2.0 * k * iqr,
            // The quartiles lie inside the fences, so both exist for non-empty data.
            whisker_low: sorted.iter().find(inside).copied().unwrap_or(summary.q1),
            whisker_high: sorted
                .iter()
                .rev()
                .find(inside)
                .copied()
                .unwrap_or(summary.q3),
        }
    }

    pub fn is_outlier(&self, x: f64) -> bool {
        x < self.lower || x > self.upper
    }

    pub fn is_extreme(&self, x: f64) -> bool {
        x < self.lower_extreme || x > self.upper_extreme
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(xs: &[f64]) -> Vec<f64> {
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        v
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() <= 1e-12 * b.abs(), "{a} vs {b}");
    }

    const DATA: [f64; 10] = [4.0, 3.1, 4.8, 3.5, 6.6, 4.2, 3.9, 5.3, 3.4, 4.4];

    #[test]
    fn reference_summary_and_fences() {
        let s = sorted(&DATA);
        let sm = Summary::of_sorted(&s, QuantileType::TYPE7).unwrap();
        close(sm.q1, 3.6);
        close(sm.median, 4.1);
        close(sm.q3, 4.7);
        assert!((sm.mean - 4.32).abs() <= 4.32 * f64::EPSILON);
        assert_eq!((sm.min, sm.max, sm.n), (3.1, 6.6, 10));
        let f = Fences::of(&sm, &s);
        close(f.lower, 1.95);
        close(f.upper, 6.35);
        let out: Vec<f64> = s.iter().copied().filter(|&x| f.is_outlier(x)).collect();
        assert_eq!(out, vec![6.6]);
        assert!(!f.is_extreme(6.6));
        assert_eq!((f.whisker_low, f.whisker_high), (3.1, 5.3));
    }

    #[test]
    fn type6_has_no_outliers() {
        let s = sorted(&DATA);
        let sm = Summary::of_sorted(&s, QuantileType::new(6).unwrap()).unwrap();
        close(sm.q1, 3.475);
        close(sm.q3, 4.925);
        let f = Fences::of(&sm, &s);
        assert!(s.iter().all(|&x| !f.is_outlier(x)));
    }

    #[test]
    fn fences_are_strict() {
        // Q1 = 1, Q3 = 2 (type 7), IQR 1: 3.5 sits on the upper fence, not outside.
        let s = sorted(&[1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3.5]);
        let sm = Summary::of_sorted(&s, QuantileType::TYPE7).unwrap();
        let f = Fences::of(&sm, &s);
        assert_eq!(f.upper, 3.5);
        assert!(!f.is_outlier(3.5));
        assert_eq!(f.whisker_high, 3.5);
    }

    #[test]
    fn empty_is_none() {
        assert!(Summary::of_sorted(&[], QuantileType::TYPE7).is_none());
    }
}
