//! Every parameter a user can turn, with the checks that refuse values no
//! analysis can use. The page sends them as JSON (`defaultOptions`,
//! `checkOptions` in analysis-wasm); the command line sets them from flags.

use crate::limits::Limits;
use crate::stats::bootstrap::BootstrapOptions;
use crate::stats::cluster::Linkage;
use crate::stats::dtw::StepPattern;
use crate::stats::executions::ImpactOptions;
use crate::stats::QuantileType;
use serde::{Deserialize, Deserializer, Serialize};

/// Analysis parameters a user can turn.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    pub quantile_type: QuantileType,
    /// Points kept per ECDF curve for charts.
    pub ecdf_points: usize,
    /// Confidence level of intervals (Bernoulli, regression).
    pub confidence: f64,
    /// Resamples, confidence and seed of every bootstrap.
    pub bootstrap: BootstrapOptions,
    /// Linkage of the hierarchical clustering of operation costs.
    pub linkage: Linkage,
    /// Impact factor: permutations of its null; group pairs per estimate
    /// and group size of the paper's statistic.
    pub impact: ImpactOptions,
    /// Relative difference two results must exceed (besides disjoint CIs)
    /// to count as different, e.g. 0.03 = 3 %.
    pub threshold: f64,
    /// Tukey's outlier rule: outliers beyond k·IQR from the quartiles,
    /// extreme ones beyond 2k·IQR (k = 1.5 is Tukey's).
    pub outlier_k: f64,
    /// Bootstrap resamples of the paper's impact factor statistic (each
    /// re-estimates it from `impact.pairs` group pairs, so it costs more
    /// than other bootstraps; the impact factor itself takes `bootstrap`'s).
    pub impact_resamples: usize,
    /// Dynamic time warping of traces (outer perturbation).
    pub dtw: DtwOptions,
    /// The clock whose per-operation times the Operations cell's summary,
    /// outliers, clustering and modes are of: `portable` (the paper's) or
    /// `counter` (see `suites/ops/report.rs`). An unknown value is refused when the
    /// options are read (`ReferenceClock`'s `Deserialize`).
    pub reference_clock: ReferenceClock,
    /// How big a file may be (`limits.rs`). Not an analysis parameter and
    /// not part of the options' JSON: the page always reads within the
    /// defaults; the command line may raise them.
    #[serde(skip)]
    pub limits: Limits,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            quantile_type: QuantileType::TYPE7,
            ecdf_points: 256,
            confidence: 0.95,
            bootstrap: BootstrapOptions {
                // Per-operation CIs run hundreds of bootstraps; 2000
                // resamples keep a full ops file under a second.
                resamples: 2000,
                ..BootstrapOptions::default()
            },
            linkage: Linkage::Average,
            impact: ImpactOptions::default(),
            impact_resamples: 500,
            threshold: 0.03,
            outlier_k: crate::stats::summary::TUKEY_K,
            dtw: DtwOptions::default(),
            reference_clock: ReferenceClock::Portable,
            limits: Limits::default(),
        }
    }
}

/// Largest seed a JavaScript number holds exactly (2^53 − 1).
pub const MAX_SAFE_SEED: u64 = (1 << 53) - 1;

impl Options {
    /// Reject values no analysis can use, with the reason.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(format!(
                "confidence must be in (0, 1), got {}",
                self.confidence
            ));
        }
        let b = &self.bootstrap;
        if !(b.confidence > 0.0 && b.confidence < 1.0) {
            return Err(format!(
                "bootstrap confidence must be in (0, 1), got {}",
                b.confidence
            ));
        }
        if b.seed > MAX_SAFE_SEED {
            return Err(format!(
                "the bootstrap seed must be at most 2^53 − 1 (JavaScript numbers carry no more), got {}",
                b.seed
            ));
        }
        if !(self.outlier_k > 0.0 && self.outlier_k.is_finite()) {
            return Err(format!(
                "the outlier rule's multiple k must be > 0, got {}",
                self.outlier_k
            ));
        }
        if !(self.threshold >= 0.0 && self.threshold.is_finite()) {
            return Err(format!(
                "the comparison threshold must be ≥ 0, got {}",
                self.threshold
            ));
        }
        if self.impact_resamples == 0 || self.impact_resamples > 100_000 {
            return Err(format!(
                "impact factor resamples must be 1 to 100000, got {}",
                self.impact_resamples
            ));
        }
        if self.impact.group_size < 2 || self.impact.pairs == 0 {
            return Err("impact factor needs a group size ≥ 2 and at least one pair".into());
        }
        // With fewer than 20 permutations no p-value falls below 0.05.
        if self.impact.permutations < 20 || self.impact.permutations > 100_000 {
            return Err(format!(
                "impact factor permutations must be 20 to 100000, got {}",
                self.impact.permutations
            ));
        }
        // Upper bounds too: a hand-edited link must not set the worker going
        // for hours (each of impact_resamples estimates draws pairs × 2·size).
        if self.impact.pairs > 100_000 || self.impact.group_size > 10_000 {
            return Err(format!(
                "impact factor pairs must be at most 100000 and group size at most 10000, got {} and {}",
                self.impact.pairs, self.impact.group_size
            ));
        }
        self.dtw.validate()?;
        if b.resamples == 0 || b.resamples > 1_000_000 {
            return Err(format!(
                "bootstrap resamples must be 1 to 1000000, got {}",
                b.resamples
            ));
        }
        Ok(())
    }
}

/// How runs are aligned for the outer perturbation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DtwOptions {
    /// dtw-python step pattern: `symmetric1` or `symmetric2` (default).
    pub step_pattern: StepPattern,
    /// Sakoe–Chiba band |i − j| ≤ band in records; `null` = no band.
    pub band: Option<usize>,
}

impl Default for DtwOptions {
    fn default() -> Self {
        DtwOptions {
            step_pattern: StepPattern::Symmetric2,
            band: None,
        }
    }
}

impl DtwOptions {
    pub fn validate(&self) -> Result<(), String> {
        match self.band {
            Some(b) if b > 10_000_000 => Err(format!(
                "the DTW band must be at most 10000000 records, got {b}"
            )),
            _ => Ok(()),
        }
    }
}

/// The clock whose per-operation times the forms' summary, outliers,
/// clustering and modes are of (`Options.reference_clock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReferenceClock {
    /// The portable clock's ns per op (`portable_ns`): the paper's method.
    #[default]
    Portable,
    /// The cycle counter's ns per op (`counter_ns`).
    Counter,
}

impl std::str::FromStr for ReferenceClock {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "portable" => Ok(ReferenceClock::Portable),
            "counter" => Ok(ReferenceClock::Counter),
            other => Err(format!(
                "unknown reference clock {other:?}: expected \"portable\" or \"counter\""
            )),
        }
    }
}

// By hand rather than derived so an unknown value names the option (serde's
// message would only say "unknown variant"), in the terminal and the page.
impl<'de> Deserialize<'de> for ReferenceClock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
