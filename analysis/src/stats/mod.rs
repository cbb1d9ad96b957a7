//! Statistics, each in its own module. Conventions follow R, numpy and
//! scipy so numbers match theirs: quantiles of Hyndman–Fan type 7 by
//! default, sample variance with n − 1, Tukey's fences at 1.5·IQR; reference
//! vectors computed with those libraries are tests.

pub mod bernoulli;
pub mod binned;
pub mod bootstrap;
pub mod changepoint;
pub mod cluster;
pub mod compare;
pub mod differential;
pub mod dist;
pub mod dtw;
pub mod ecdf;
pub mod executions;
#[allow(unsafe_code)]
pub mod lanes;
pub mod levels;
pub mod mann_whitney;
pub mod modes;
pub mod moments;
pub mod paired;
pub mod pcg;
pub mod quantile;
pub mod regression;
pub mod sequential;
pub mod spearman;
pub mod summary;
pub mod tick;

pub use ecdf::Ecdf;
pub use moments::Welford;
pub use quantile::{quantile, quantile_sorted, QuantileType};
pub use summary::{Fences, Summary};

#[cfg(test)]
pub(crate) mod testing {
    use rand::RngExt;

    /// Standard normal by Box–Muller (tests only: the crate has no
    /// distribution sampler, and a test needs no more).
    pub fn normal(r: &mut impl rand::Rng) -> f64 {
        let u: f64 = r.random::<f64>().max(f64::MIN_POSITIVE);
        let v: f64 = r.random();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}
