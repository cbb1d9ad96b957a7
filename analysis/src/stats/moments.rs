//! Streaming mean and variance (Welford), mergeable (Chan et al.).
//!
//! Written here rather than taken from `statrs` because we need the streaming,
//! mergeable accumulator (chunks of large files, executions pooled later) and
//! it is a dozen lines; never the Σx² − (Σx)²/n form, which cancels
//! catastrophically.

use serde::Serialize;

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Welford {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Welford {
    pub fn new() -> Self {
        Self::default()
    }

    /// The two-pass algorithm (mean, then the sum of squared deviations):
    /// as stable as pushing one by one, without a division per value, so it
    /// vectorises (bootstraps call this millions of times).
    pub fn from_slice(xs: &[f64]) -> Self {
        if xs.is_empty() {
            return Self::new();
        }
        let n = xs.len();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let m2 = xs.iter().map(|x| (x - mean) * (x - mean)).sum();
        Welford {
            n: n as u64,
            mean,
            m2,
        }
    }

    /// From sums over n values of their deviations from a shift c:
    /// s1 = Σ(x − c), s2 = Σ(x − c)². With c near the mean (an
    /// execution's mean, for its resamples) s2 − s1²/n does not cancel.
    pub fn from_shifted_sums(n: u64, c: f64, s1: f64, s2: f64) -> Self {
        if n == 0 {
            return Self::new();
        }
        let nf = n as f64;
        Welford {
            n,
            mean: c + s1 / nf,
            m2: (s2 - s1 * s1 / nf).max(0.0),
        }
    }

    pub fn push(&mut self, x: f64) {
        self.n += 1;
        let delta = x - self.mean;
        self.mean += delta / self.n as f64;
        self.m2 += delta * (x - self.mean);
    }

    /// Combine two accumulators (Chan, Golub & LeVeque's pairwise update).
    pub fn merge(&mut self, other: &Welford) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *other;
            return;
        }
        let n = self.n + other.n;
        let delta = other.mean - self.mean;
        let nf = n as f64;
        self.mean += delta * other.n as f64 / nf;
        self.m2 += other.m2 + delta * delta * (self.n as f64) * (other.n as f64) / nf;
        self.n = n;
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    /// `None` when empty.
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then_some(self.mean)
    }

    /// Sample variance (n − 1); `None` below two values.
    pub fn variance(&self) -> Option<f64> {
        (self.n > 1).then(|| self.m2 / (self.n - 1) as f64)
    }

    /// Population variance (n); `None` when empty.
    pub fn population_variance(&self) -> Option<f64> {
        (self.n > 0).then(|| self.m2 / self.n as f64)
    }

    pub fn sd(&self) -> Option<f64> {
        self.variance().map(f64::sqrt)
    }

    /// Coefficient of variation, sd / mean; `None` when undefined (mean 0).
    pub fn cv(&self) -> Option<f64> {
        match (self.sd(), self.mean()) {
            (Some(sd), Some(m)) if m != 0.0 => Some(sd / m),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_offset_variance_is_exact() {
        // Σx² − (Σx)²/n gives a wrong (even negative) answer here; truth is 30.
        let w = Welford::from_slice(&[1e9 + 4.0, 1e9 + 7.0, 1e9 + 13.0, 1e9 + 16.0]);
        assert_eq!(w.variance(), Some(30.0));
        assert_eq!(w.mean(), Some(1e9 + 10.0));
    }

    #[test]
    fn reference_sd_and_cv() {
        let xs = [4.0, 3.1, 4.8, 3.5, 6.6, 4.2, 3.9, 5.3, 3.4, 4.4];
        let w = Welford::from_slice(&xs);
        let sd = w.sd().unwrap();
        assert!((sd - 1.03794669098819).abs() / sd < 1e-12, "{sd}");
        let cv = w.cv().unwrap();
        assert!((cv - 0.24026543772874773).abs() / cv < 1e-12, "{cv}");
        assert!((w.mean().unwrap() - 4.32).abs() <= 4.32 * f64::EPSILON);
    }

    #[test]
    fn merge_equals_single_pass() {
        let xs: Vec<f64> = (0..1000)
            .map(|i| ((i * 7919) % 1013) as f64 * 0.37)
            .collect();
        let whole = Welford::from_slice(&xs);
        let mut a = Welford::from_slice(&xs[..333]);
        a.merge(&Welford::from_slice(&xs[333..]));
        assert_eq!(a.count(), whole.count());
        assert!((a.mean().unwrap() - whole.mean().unwrap()).abs() < 1e-9);
        assert!((a.variance().unwrap() / whole.variance().unwrap() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn shifted_sums_give_the_two_pass_moments() {
        let xs = [1e9 + 4.0, 1e9 + 7.0, 1e9 + 13.0, 1e9 + 16.0, 1e9 + 5.5];
        let c = 1e9 + 9.0;
        let s1: f64 = xs.iter().map(|x| x - c).sum();
        let s2: f64 = xs.iter().map(|x| (x - c) * (x - c)).sum();
        let w = Welford::from_shifted_sums(5, c, s1, s2);
        let want = Welford::from_slice(&xs);
        assert_eq!(w.count(), 5);
        assert!((w.mean().unwrap() - want.mean().unwrap()).abs() < 1e-6);
        assert!((w.variance().unwrap() / want.variance().unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(Welford::from_shifted_sums(0, 1.0, 0.0, 0.0), Welford::new());
    }

    #[test]
    fn empty_and_single() {
        assert_eq!(Welford::new().mean(), None);
        let one = Welford::from_slice(&[5.0]);
        assert_eq!(one.mean(), Some(5.0));
        assert_eq!(one.variance(), None);
        assert_eq!(one.population_variance(), Some(0.0));
        assert_eq!(Welford::from_slice(&[0.0, 0.0]).cv(), None);
    }
}
