//! Statistics, each in its own module. Conventions (quantile types, variance,
//! fences) follow `../shared/REFERENCE_VECTORS.md` so numbers match R, numpy
//! and scipy.

pub mod bernoulli;
pub mod bootstrap;
pub mod cluster;
pub mod compare;
pub mod dist;
pub mod dtw;
pub mod ecdf;
pub mod executions;
pub mod modes;
pub mod moments;
pub mod quantile;
pub mod regression;
pub mod spearman;
pub mod summary;
pub mod tick;

pub use ecdf::Ecdf;
pub use moments::Welford;
pub use quantile::{quantile, quantile_sorted, QuantileType};
pub use summary::{Fences, Summary};
