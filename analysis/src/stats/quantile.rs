//! Sample quantiles of all nine Hyndman & Fan (1996) types, as R's
//! `quantile(type = k)`; type 7 (numpy's `linear`) is the default.
//!
//! Written here because no maintained crate offers all nine types with R's
//! exact conventions (statrs implements type 8 only).

use serde::{Deserialize, Serialize};
use std::fmt;

/// A Hyndman–Fan sample quantile definition, 1 to 9.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct QuantileType(u8);

impl QuantileType {
    pub const TYPE7: QuantileType = QuantileType(7);

    pub fn new(t: u8) -> Result<Self, String> {
        if (1..=9).contains(&t) {
            Ok(QuantileType(t))
        } else {
            Err(format!(
                "quantile type must be 1 to 9 (Hyndman–Fan), got {t}"
            ))
        }
    }

    pub fn number(self) -> u8 {
        self.0
    }

    /// The name numpy gives the same definition.
    pub fn numpy_name(self) -> &'static str {
        match self.0 {
            1 => "inverted_cdf",
            2 => "averaged_inverted_cdf",
            3 => "closest_observation",
            4 => "interpolated_inverted_cdf",
            5 => "hazen",
            6 => "weibull",
            7 => "linear",
            8 => "median_unbiased",
            _ => "normal_unbiased",
        }
    }
}

impl Default for QuantileType {
    fn default() -> Self {
        Self::TYPE7
    }
}

impl TryFrom<u8> for QuantileType {
    type Error = String;
    fn try_from(t: u8) -> Result<Self, String> {
        Self::new(t)
    }
}

impl From<QuantileType> for u8 {
    fn from(t: QuantileType) -> u8 {
        t.0
    }
}

impl fmt::Display for QuantileType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "type {} ({})", self.0, self.numpy_name())
    }
}

/// R's fuzz: guards `floor` against n·p landing a rounding error below an integer.
const FUZZ: f64 = 4.0 * f64::EPSILON;

/// Quantile `p` (0 ≤ p ≤ 1) of already sorted, finite data. `None` when empty
/// or `p` is outside [0, 1].
pub fn quantile_sorted(sorted: &[f64], p: f64, t: QuantileType) -> Option<f64> {
    let n = sorted.len();
    if n == 0 || !(0.0..=1.0).contains(&p) {
        return None;
    }
    let nf = n as f64;
    // x_j for 1-based j, clamped to x_1 … x_n as R pads the sample.
    let x = |j: f64| -> f64 {
        let k = j.clamp(1.0, nf) as usize;
        sorted[k - 1]
    };
    let (j, h) = if t.0 <= 3 {
        let nppm = if t.0 == 3 { nf * p - 0.5 } else { nf * p };
        let j = (nppm + FUZZ).floor();
        let h = match t.0 {
            1 => f64::from(u8::from(nppm > j)),
            2 => (f64::from(u8::from(nppm > j)) + 1.0) / 2.0,
            _ => f64::from(u8::from(nppm != j || j.rem_euclid(2.0) == 1.0)),
        };
        (j, h)
    } else {
        let (a, b) = match t.0 {
            4 => (0.0, 1.0),
            5 => (0.5, 0.5),
            6 => (0.0, 0.0),
            7 => (1.0, 1.0),
            8 => (1.0 / 3.0, 1.0 / 3.0),
            _ => (3.0 / 8.0, 3.0 / 8.0),
        };
        let nppm = a + p * (nf + 1.0 - a - b);
        let j = (nppm + FUZZ).floor();
        let mut h = nppm - j;
        if h.abs() < FUZZ {
            h = 0.0;
        }
        (j, h)
    };
    let lo = x(j);
    let hi = x(j + 1.0);
    Some(if h == 0.0 || lo == hi {
        lo
    } else if h == 1.0 {
        hi
    } else {
        (1.0 - h) * lo + h * hi
    })
}

/// Quantile of unsorted finite data (sorts a copy).
pub fn quantile(data: &[f64], p: f64, t: QuantileType) -> Option<f64> {
    let mut v = data.to_vec();
    v.sort_by(f64::total_cmp);
    quantile_sorted(&v, p, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DATA: [f64; 10] = [4.0, 3.1, 4.8, 3.5, 6.6, 4.2, 3.9, 5.3, 3.4, 4.4];

    fn q(p: f64, t: u8) -> f64 {
        quantile(&DATA, p, QuantileType::new(t).unwrap()).unwrap()
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() <= 1e-12 * b.abs().max(1e-300), "{a} vs {b}");
    }

    #[test]
    fn reference_type7_and_type6() {
        close(q(0.25, 7), 3.6);
        close(q(0.5, 7), 4.1);
        close(q(0.75, 7), 4.7);
        close(q(0.25, 6), 3.475);
        close(q(0.75, 6), 4.925);
        assert_eq!(q(0.0, 7), 3.1);
        assert_eq!(q(1.0, 7), 6.6);
    }

    /// Values from numpy 2.4 `np.quantile(x, [.1, .25, .5, .9], method=m)`
    /// for the reference sample, one row per Hyndman–Fan type (the numpy
    /// method named by `numpy_name`; R's `quantile(type = k)` agrees).
    #[test]
    fn all_nine_types_match_r() {
        let expect: [[f64; 4]; 9] = [
            [3.1, 3.5, 4.0, 5.3],
            [3.25, 3.5, 4.1, 5.949999999999999],
            [3.1, 3.4, 4.0, 5.3],
            [3.1, 3.45, 4.0, 5.3],
            [3.25, 3.5, 4.1, 5.949999999999999],
            [3.13, 3.475, 4.1, 6.47],
            [3.37, 3.6, 4.1, 5.43],
            [3.21, 3.4916666666666667, 4.1, 6.123333333333332],
            [3.22, 3.49375, 4.1, 6.079999999999999],
        ];
        for (t, row) in expect.iter().enumerate() {
            for (p, want) in [0.1, 0.25, 0.5, 0.9].iter().zip(row) {
                let got = q(*p, t as u8 + 1);
                assert!(
                    (got - want).abs() <= 1e-12 * want,
                    "type {} p {p}: got {got}, want {want}",
                    t + 1
                );
            }
        }
    }

    #[test]
    fn edge_cases() {
        assert_eq!(quantile(&[], 0.5, QuantileType::TYPE7), None);
        assert_eq!(quantile(&[1.0], 1.5, QuantileType::TYPE7), None);
        for t in 1..=9 {
            assert_eq!(
                quantile(&[2.5], 0.3, QuantileType::new(t).unwrap()),
                Some(2.5)
            );
        }
        assert!(QuantileType::new(0).is_err() && QuantileType::new(10).is_err());
    }

    #[test]
    fn monotone_in_p_for_every_type() {
        let data: Vec<f64> = (0..37)
            .map(|i| ((i * 31) % 17) as f64 + 0.5 * i as f64)
            .collect();
        for t in 1..=9 {
            let t = QuantileType::new(t).unwrap();
            let mut prev = f64::NEG_INFINITY;
            for k in 0..=100 {
                let v = quantile(&data, k as f64 / 100.0, t).unwrap();
                assert!(v >= prev, "{t} not monotone at {k}");
                prev = v;
            }
        }
    }
}
