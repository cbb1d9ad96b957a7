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

/// Where quantile `p` of `n` values lies: the 1-based order statistics it
/// reads (x_j and x_{j+1}, clamped to x_1 … x_n as R pads the sample) and the
/// weight h of the upper one. `None` when `n` is 0 or `p` is outside [0, 1].
fn position(n: usize, p: f64, t: QuantileType) -> Option<(usize, usize, f64)> {
    if n == 0 || !(0.0..=1.0).contains(&p) {
        return None;
    }
    let nf = n as f64;
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
    let k = |j: f64| j.clamp(1.0, nf) as usize;
    Some((k(j), k(j + 1.0), h))
}

/// The quantile from its two order statistics and the weight of the upper.
fn combine(lo: f64, hi: f64, h: f64) -> f64 {
    if h == 0.0 || lo == hi {
        lo
    } else if h == 1.0 {
        hi
    } else {
        (1.0 - h) * lo + h * hi
    }
}

/// Quantile `p` (0 ≤ p ≤ 1) of already sorted, finite data. `None` when empty
/// or `p` is outside [0, 1].
pub fn quantile_sorted(sorted: &[f64], p: f64, t: QuantileType) -> Option<f64> {
    let (lo, hi, h) = position(sorted.len(), p, t)?;
    Some(combine(sorted[lo - 1], sorted[hi - 1], h))
}

/// Quantile of unsorted data: the value `quantile_sorted` gives on the data
/// sorted by `f64::total_cmp`, to the bit, by selection (O(n), where a sort
/// is O(n log n)) on a copy. The two order statistics read are each the
/// unique bit pattern at their rank in that total order (NaNs included, as
/// a sort by `total_cmp` places them), so selecting them gives what sorting
/// gave.
pub fn quantile(data: &[f64], p: f64, t: QuantileType) -> Option<f64> {
    quantile_in_place(&mut data.to_vec(), p, t)
}

/// [`quantile`] without the copy: `data` is reordered (a bootstrap's
/// replicates, read for two quantiles and dropped).
pub fn quantile_in_place(data: &mut [f64], p: f64, t: QuantileType) -> Option<f64> {
    let (lo, hi, h) = position(data.len(), p, t)?;
    let (_, x_lo, upper) = data.select_nth_unstable_by(lo - 1, f64::total_cmp);
    let x_lo = *x_lo;
    // hi is lo or lo + 1; the (lo + 1)-th smallest is the least above.
    let x_hi = if hi == lo {
        x_lo
    } else {
        upper.iter().copied().min_by(f64::total_cmp).unwrap_or(x_lo)
    };
    Some(combine(x_lo, x_hi, h))
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

    /// numpy 2.4.6 `np.quantile(x, P, method=m)` for x_i = ((7919·i + 13) mod m)·0.5,
    /// i < n: coarse grids, so ties are common. Rows (n, m), then one row per
    /// Hyndman–Fan type of the values at P.
    const P: [f64; 10] = [0.0, 0.01, 0.1, 0.25, 0.333, 0.5, 0.75, 0.9, 0.99, 1.0];
    /// (n, m) and the values of the nine types at `P`.
    type Case = ((usize, usize), [[f64; 10]; 9]);
    #[rustfmt::skip]
    const NUMPY: &[Case] = &[
        ((1, 5), [[1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5],
            [1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5],
            [1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5],
            [1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5],
            [1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5],
            [1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5],
            [1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5],
            [1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5],
            [1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5]]),
        ((2, 5), [[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.5, 1.5, 1.5, 1.5],
            [1.0, 1.0, 1.0, 1.0, 1.0, 1.25, 1.5, 1.5, 1.5, 1.5],
            [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.5, 1.5, 1.5, 1.5],
            [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.25, 1.4, 1.49, 1.5],
            [1.0, 1.0, 1.0, 1.0, 1.083, 1.25, 1.5, 1.5, 1.5, 1.5],
            [1.0, 1.0, 1.0, 1.0, 1.0, 1.25, 1.5, 1.5, 1.5, 1.5],
            [1.0, 1.005, 1.05, 1.125, 1.1665, 1.25, 1.375, 1.45, 1.495, 1.5],
            [1.0, 1.0, 1.0, 1.0, 1.0551666666666666, 1.25, 1.5, 1.5, 1.5, 1.5],
            [1.0, 1.0, 1.0, 1.0, 1.062125, 1.25, 1.5, 1.5, 1.5, 1.5]]),
        ((3, 2), [[0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.5, 0.5, 0.5],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.5, 0.5, 0.5],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.5, 0.5, 0.5],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.5, 0.5, 0.5, 0.5],
            [0.0, 0.0, 0.0, 0.125, 0.24950000000000006, 0.5, 0.5, 0.5, 0.5, 0.5],
            [0.0, 0.0, 0.0, 0.0, 0.16600000000000004, 0.5, 0.5, 0.5, 0.5, 0.5],
            [0.0, 0.01, 0.1, 0.25, 0.333, 0.5, 0.5, 0.5, 0.5, 0.5],
            [0.0, 0.0, 0.0, 0.08333333333333337, 0.22166666666666668, 0.5, 0.5, 0.5, 0.5, 0.5],
            [0.0, 0.0, 0.0, 0.09375, 0.22862500000000008, 0.5, 0.5, 0.5, 0.5, 0.5]]),
        ((5, 3), [[0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 1.0, 1.0, 1.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 1.0, 1.0, 1.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 1.0, 1.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.5, 0.75, 0.9750000000000001, 1.0],
            [0.0, 0.0, 0.0, 0.0, 0.08250000000000002, 0.5, 0.625, 1.0, 1.0, 1.0],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.75, 1.0, 1.0, 1.0],
            [0.0, 0.0, 0.0, 0.0, 0.16600000000000004, 0.5, 0.5, 0.8, 0.98, 1.0],
            [0.0, 0.0, 0.0, 0.0, 0.05466666666666664, 0.5, 0.6666666666666665, 1.0, 1.0, 1.0],
            [0.0, 0.0, 0.0, 0.0, 0.06162500000000004, 0.5, 0.65625, 1.0, 1.0, 1.0]]),
        ((10, 7), [[0.0, 0.0, 0.0, 0.5, 1.0, 1.5, 2.5, 3.0, 3.0, 3.0],
            [0.0, 0.0, 0.25, 0.5, 1.0, 1.5, 2.5, 3.0, 3.0, 3.0],
            [0.0, 0.0, 0.0, 0.5, 0.5, 1.5, 2.5, 3.0, 3.0, 3.0],
            [0.0, 0.0, 0.0, 0.5, 0.665, 1.5, 2.25, 3.0, 3.0, 3.0],
            [0.0, 0.0, 0.25, 0.5, 0.915, 1.5, 2.5, 3.0, 3.0, 3.0],
            [0.0, 0.0, 0.050000000000000044, 0.5, 0.8315000000000001, 1.5, 2.625, 3.0, 3.0, 3.0],
            [0.0, 0.045, 0.45, 0.625, 0.9985000000000002, 1.5, 2.375, 3.0, 3.0, 3.0],
            [0.0, 0.0, 0.18333333333333335, 0.5, 0.8871666666666667, 1.5, 2.541666666666667, 3.0, 3.0, 3.0],
            [0.0, 0.0, 0.19999999999999996, 0.5, 0.8941250000000001, 1.5, 2.53125, 3.0, 3.0, 3.0]]),
        ((37, 11), [[0.0, 0.0, 0.0, 1.0, 1.5, 2.5, 4.0, 5.0, 5.0, 5.0],
            [0.0, 0.0, 0.0, 1.0, 1.5, 2.5, 4.0, 5.0, 5.0, 5.0],
            [0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 4.0, 4.5, 5.0, 5.0],
            [0.0, 0.0, 0.0, 1.0, 1.1605000000000008, 2.25, 3.875, 4.650000000000002, 5.0, 5.0],
            [0.0, 0.0, 0.10000000000000009, 1.0, 1.4105000000000008, 2.5, 4.0, 4.900000000000002, 5.0, 5.0],
            [0.0, 0.0, 0.0, 1.0, 1.3270000000000008, 2.5, 4.0, 5.0, 5.0, 5.0],
            [0.0, 0.0, 0.30000000000000004, 1.0, 1.4940000000000007, 2.5, 4.0, 4.699999999999999, 5.0, 5.0],
            [0.0, 0.0, 0.033333333333333215, 1.0, 1.3826666666666672, 2.5, 4.0, 4.966666666666669, 5.0, 5.0],
            [0.0, 0.0, 0.050000000000000266, 1.0, 1.3896250000000006, 2.5, 4.0, 4.950000000000003, 5.0, 5.0]]),
        ((200, 101), [[0.0, 0.0, 4.5, 12.0, 16.5, 25.0, 37.5, 45.0, 49.5, 50.0],
            [0.0, 0.25, 4.75, 12.25, 16.5, 25.0, 37.75, 45.25, 49.75, 50.0],
            [0.0, 0.0, 4.5, 12.0, 16.5, 25.0, 37.5, 45.0, 49.5, 50.0],
            [0.0, 0.0, 4.5, 12.0, 16.5, 25.0, 37.5, 45.0, 49.5, 50.0],
            [0.0, 0.25, 4.75, 12.25, 16.550000000000004, 25.0, 37.75, 45.25, 49.75, 50.0],
            [0.0, 0.004999999999999893, 4.550000000000001, 12.125, 16.5, 25.0, 37.875, 45.45, 49.995000000000005, 50.0],
            [0.0, 0.495, 4.950000000000001, 12.375, 16.633500000000005, 25.0, 37.625, 45.05, 49.504999999999995, 50.0],
            [0.0, 0.16833333333333345, 4.683333333333334, 12.208333333333332, 16.52216666666667, 25.0, 37.79166666666667, 45.31666666666666, 49.83166666666666, 50.0],
            [0.0, 0.18874999999999997, 4.699999999999999, 12.21875, 16.529125000000008, 25.0, 37.78125, 45.3, 49.81125, 50.0]]),
        ((1001, 13), [[0.0, 0.0, 0.5, 1.5, 2.0, 3.0, 4.5, 5.5, 6.0, 6.0],
            [0.0, 0.0, 0.5, 1.5, 2.0, 3.0, 4.5, 5.5, 6.0, 6.0],
            [0.0, 0.0, 0.5, 1.5, 2.0, 3.0, 4.5, 5.5, 6.0, 6.0],
            [0.0, 0.0, 0.5, 1.5, 2.0, 3.0, 4.5, 5.5, 6.0, 6.0],
            [0.0, 0.0, 0.5, 1.5, 2.0, 3.0, 4.5, 5.5, 6.0, 6.0],
            [0.0, 0.0, 0.5, 1.5, 2.0, 3.0, 4.5, 5.5, 6.0, 6.0],
            [0.0, 0.0, 0.5, 1.5, 2.0, 3.0, 4.5, 5.5, 6.0, 6.0],
            [0.0, 0.0, 0.5, 1.5, 2.0, 3.0, 4.5, 5.5, 6.0, 6.0],
            [0.0, 0.0, 0.5, 1.5, 2.0, 3.0, 4.5, 5.5, 6.0, 6.0]]),
    ];

    fn generated(n: usize, m: usize) -> Vec<f64> {
        (0..n).map(|i| ((7919 * i + 13) % m) as f64 * 0.5).collect()
    }

    #[test]
    fn every_type_matches_numpy_on_generated_data_with_ties() {
        for ((n, m), rows) in NUMPY {
            let x = generated(*n, *m);
            for (t, row) in rows.iter().enumerate() {
                let t = QuantileType::new(t as u8 + 1).unwrap();
                for (p, want) in P.iter().zip(row) {
                    let got = quantile(&x, *p, t).unwrap();
                    assert!(
                        (got - want).abs() <= 1e-12 * want.abs(),
                        "n {n} m {m} {t} p {p}: got {got}, want {want}"
                    );
                }
            }
        }
    }

    /// Selection gives what sorting by `total_cmp` gave, to the bit, NaNs
    /// (either sign), signed zeros and ties included.
    #[test]
    fn selection_equals_the_sorted_quantile_to_the_bit() {
        let specials = [f64::NAN, -f64::NAN, 0.0, -0.0, 1.0, 1.0, -2.5];
        for n in 1..60 {
            for with_specials in [false, true] {
                let mut x = generated(n, 7 + n % 5);
                if with_specials {
                    for (k, v) in specials.iter().enumerate() {
                        let i = (k * 13 + n) % n;
                        x[i] = *v;
                    }
                }
                let mut sorted = x.clone();
                sorted.sort_by(f64::total_cmp);
                for t in 1..=9 {
                    let t = QuantileType::new(t).unwrap();
                    for k in 0..=40 {
                        let p = k as f64 / 40.0;
                        let want = quantile_sorted(&sorted, p, t).unwrap();
                        let got = quantile(&x, p, t).unwrap();
                        assert_eq!(
                            got.to_bits(),
                            want.to_bits(),
                            "n {n} {t} p {p}: {got} vs {want}"
                        );
                    }
                }
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
