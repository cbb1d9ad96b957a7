//! Export a machine's calibration fit and apply it to another file's
//! portable timings ("calibrate this run with that machine's fit").
//!
//! Both sides work on views of the ops report as JSON (`OpsView`), not on
//! `OpsReport` itself: the page holds the report as a JavaScript object and
//! passes it back to Rust as is, so the terminal (which round-trips its
//! `OpsReport` through serde, [`OpsView::of`]) and the page take one path and
//! give the same numbers.
//!
//! Uncertainty of a calibrated value, for portable time x₀ with interval
//! [x_lo, x_hi] (the op's bootstrap CI) and the fit ŷ = α + β·x:
//! - the line's own uncertainty is the OLS *prediction* interval at x₀,
//!   t·s·√(1 + 1/n + (x₀ − x̄)²/Sxx), written with the exported standard
//!   errors as t·√(s² + se(α)² + x₀·(x₀ − 2x̄)·se(β)²) (the same thing, since
//!   se(α)² = s²/n + x̄²·se(β)² and se(β)² = s²/Sxx). The prediction interval,
//!   not the mean-response band, because a single operation scatters about
//!   the line by its residual on the machine that made the fit too;
//! - the op's portable interval is mapped through the line (β·(x₀ − x_lo),
//!   β·(x_hi − x₀));
//! - the two half-widths are added in quadrature on each side (treated as
//!   independent, which they are: different files, different runs).
//!
//! The fit relates two clocks on the machine that made it; applied to a file
//! from another machine it assumes the portable clock behaves the same way
//! there. Each result says whether the portable clocks' names match and
//! flags values outside the fitted x range (extrapolated).

use crate::stats::regression::Fit;
use serde::{Deserialize, Serialize};

/// Marks a JSON file as an exported fit, so a wrong file is refused early.
pub const FIT_FORMAT: &str = "tickbook-calibration-fit";
pub const FIT_FORMAT_VERSION: u32 = 1;

/// y = α + β·x with x the portable ns per op and y the counter's ns per op,
/// as fitted on one file's operations of one form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationFit {
    pub format: String,
    pub format_version: u32,
    /// The result file the fit was made from.
    pub source_file: String,
    #[serde(default)]
    pub source_host: Option<String>,
    #[serde(default)]
    pub source_cpu: Option<String>,
    /// `latency` or `throughput`: the operations it was fitted on.
    pub form: String,
    pub portable_clock: String,
    #[serde(default)]
    pub counter_clock: Option<String>,
    /// α, ns.
    pub intercept: f64,
    /// β, counter ns per portable ns.
    pub slope: f64,
    pub intercept_ci: (f64, f64),
    pub slope_ci: (f64, f64),
    pub confidence: f64,
    pub r: f64,
    pub n: usize,
    /// Standard errors of α and β.
    pub intercept_se: f64,
    pub slope_se: f64,
    /// Residual standard deviation s = √(Σ residual² / (n − 2)), ns.
    pub residual_sd: f64,
    /// t(1 − α/2, n − 2) at `confidence`.
    pub t: f64,
    /// Mean, min and max of the fitted portable ns per op (x̄ and the range
    /// beyond which a calibrated value is an extrapolation).
    pub mean_portable_ns: f64,
    pub min_portable_ns: f64,
    pub max_portable_ns: f64,
}

/// The ops report's fields that export and apply read (unknown fields are
/// ignored, so the full report deserializes into it).
#[derive(Debug, Clone, Deserialize)]
pub struct OpsView {
    pub portable_clock: String,
    #[serde(default)]
    pub counter_clock: Option<String>,
    pub ops: Vec<OpView>,
    #[serde(default)]
    pub forms: Vec<FormView>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct OpView {
    pub name: String,
    pub form: String,
    pub available: bool,
    #[serde(default)]
    pub portable_ns: Option<CiView>,
    #[serde(default)]
    pub counter_ns: Option<CiView>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
pub struct CiView {
    pub estimate: f64,
    pub lo: f64,
    pub hi: f64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct FormView {
    pub form: String,
    #[serde(default)]
    pub calibration: Option<CalibrationView>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct CalibrationView {
    pub fit: Fit,
    pub points: Vec<PointView>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PointView {
    pub portable_ns: f64,
}

/// The file report's fields an export reads (the page passes its whole
/// report object; unknown fields are ignored).
#[derive(Debug, Clone, Deserialize)]
pub struct ReportView {
    pub file: String,
    #[serde(default)]
    pub info: Option<InfoView>,
    #[serde(default)]
    pub ops: Option<OpsView>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct InfoView {
    #[serde(default)]
    pub host: Option<String>,
    #[serde(default)]
    pub cpu: Option<String>,
}

impl OpsView {
    /// The view of a report made here (the terminal's path; see the module
    /// comment for why through JSON).
    pub fn of(report: &super::OpsReport) -> Result<OpsView, String> {
        serde_json::to_value(report)
            .and_then(serde_json::from_value)
            .map_err(|e| format!("cannot read the ops report: {e}"))
    }
}

/// One operation of the calibrated file.
#[derive(Debug, Clone, Serialize)]
pub struct CalibratedOp {
    pub name: String,
    pub form: String,
    /// The file's own portable ns per op (x₀).
    pub portable_ns: f64,
    /// α + β·x₀: what the fit's counter would read, in ns per op.
    pub calibrated_ns: f64,
    /// Interval of `calibrated_ns` (see the module comment).
    pub interval_ns: (f64, f64),
    /// x₀ outside the portable range the fit was made on.
    pub extrapolated: bool,
    /// The file's own counter ns per op, where it has one, to compare.
    pub measured_counter_ns: Option<f64>,
}

/// A fit applied to one file's ops.
#[derive(Debug, Clone, Serialize)]
pub struct CalibratedOps {
    pub fit: CalibrationFit,
    pub portable_clock: String,
    /// The fit's portable clock has the same name as this file's.
    pub same_portable_clock: bool,
    /// Things to know before trusting the numbers.
    pub warnings: Vec<String>,
    /// Every available operation with a portable estimate, all forms, in the
    /// report's order.
    pub ops: Vec<CalibratedOp>,
}

fn finite(name: &str, v: f64) -> Result<(), String> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(format!("{name} is not a finite number"))
    }
}

impl CalibrationFit {
    /// The fit of `form` from a file's ops report; `Err` says why there is
    /// none (no such form, no counter, too few operations).
    pub fn export(
        source_file: &str,
        source_host: Option<&str>,
        source_cpu: Option<&str>,
        ops: &OpsView,
        form: &str,
    ) -> Result<CalibrationFit, String> {
        let f = ops.forms.iter().find(|f| f.form == form).ok_or_else(|| {
            let known: Vec<&str> = ops.forms.iter().map(|f| f.form.as_str()).collect();
            format!(
                "{source_file} has no {form} operations (forms: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )
        })?;
        let cal = f.calibration.as_ref().ok_or_else(|| {
            format!("{source_file}: no calibration fit for the {form} operations (no cycle counter, or fewer than three operations)")
        })?;
        let fit = &cal.fit;
        let xs: Vec<f64> = cal.points.iter().map(|p| p.portable_ns).collect();
        if fit.n < 3 || xs.len() != fit.n || fit.residuals.len() != fit.n {
            return Err(format!(
                "{source_file}: the {form} fit is inconsistent (n = {}, {} points, {} residuals)",
                fit.n,
                xs.len(),
                fit.residuals.len()
            ));
        }
        let ss: f64 = fit.residuals.iter().map(|r| r * r).sum();
        let out = CalibrationFit {
            format: FIT_FORMAT.into(),
            format_version: FIT_FORMAT_VERSION,
            source_file: source_file.to_string(),
            source_host: source_host.map(str::to_string),
            source_cpu: source_cpu.map(str::to_string),
            form: form.to_string(),
            portable_clock: ops.portable_clock.clone(),
            counter_clock: ops.counter_clock.clone(),
            intercept: fit.intercept,
            slope: fit.slope,
            intercept_ci: fit.intercept_ci,
            slope_ci: fit.slope_ci,
            confidence: fit.confidence,
            r: fit.r,
            n: fit.n,
            intercept_se: fit.intercept_se,
            slope_se: fit.slope_se,
            residual_sd: (ss / (fit.n - 2) as f64).sqrt(),
            t: fit.t,
            mean_portable_ns: xs.iter().sum::<f64>() / xs.len() as f64,
            min_portable_ns: xs.iter().copied().fold(f64::INFINITY, f64::min),
            max_portable_ns: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        };
        out.validate()?;
        Ok(out)
    }

    /// [`CalibrationFit::export`] from a whole file report (the page's path).
    pub fn export_report(report: &ReportView, form: &str) -> Result<CalibrationFit, String> {
        let ops = report
            .ops
            .as_ref()
            .ok_or_else(|| format!("{}: no ops suite, so no calibration fit", report.file))?;
        let info = report.info.clone().unwrap_or_default();
        Self::export(
            &report.file,
            info.host.as_deref(),
            info.cpu.as_deref(),
            ops,
            form,
        )
    }

    /// Read an exported fit; refuses other files and impossible numbers.
    pub fn from_json(file: &str, bytes: &[u8]) -> Result<CalibrationFit, String> {
        let fit: CalibrationFit = serde_json::from_slice(bytes)
            .map_err(|e| format!("{file}: not a tickbook calibration fit: {e}"))?;
        fit.validate().map_err(|e| format!("{file}: {e}"))?;
        Ok(fit)
    }

    fn validate(&self) -> Result<(), String> {
        if self.format != FIT_FORMAT {
            return Err(format!(
                "format is {:?}, expected {FIT_FORMAT:?}",
                self.format
            ));
        }
        if self.format_version != FIT_FORMAT_VERSION {
            return Err(format!(
                "format_version {} is not supported (this build reads {FIT_FORMAT_VERSION})",
                self.format_version
            ));
        }
        for (name, v) in [
            ("intercept", self.intercept),
            ("slope", self.slope),
            ("intercept_se", self.intercept_se),
            ("slope_se", self.slope_se),
            ("residual_sd", self.residual_sd),
            ("t", self.t),
            ("mean_portable_ns", self.mean_portable_ns),
            ("min_portable_ns", self.min_portable_ns),
            ("max_portable_ns", self.max_portable_ns),
        ] {
            finite(name, v)?;
        }
        if self.n < 3 {
            return Err(format!("a fit needs n ≥ 3 operations, got {}", self.n));
        }
        if self.intercept_se < 0.0 || self.slope_se < 0.0 || self.residual_sd < 0.0 || self.t < 0.0
        {
            return Err("standard errors, residual sd and t must not be negative".into());
        }
        Ok(())
    }

    /// Half-width of the line's prediction interval at `x` (module comment).
    fn line_half_width(&self, x: f64) -> f64 {
        let var = self.residual_sd.powi(2)
            + self.intercept_se.powi(2)
            + x * (x - 2.0 * self.mean_portable_ns) * self.slope_se.powi(2);
        // Rounding can take a variance that is mathematically ≥ s² a hair
        // below zero only when all terms vanish; never take a negative root.
        self.t * var.max(0.0).sqrt()
    }
}

/// Apply `fit` to every available operation of `ops` with a portable time.
pub fn apply_calibration(ops: &OpsView, fit: &CalibrationFit) -> Result<CalibratedOps, String> {
    fit.validate()?;
    let same_portable_clock = ops.portable_clock == fit.portable_clock;
    let mut warnings = Vec::new();
    if !same_portable_clock {
        warnings.push(format!(
            "the fit was made with the portable clock {:?}, this file used {:?}",
            fit.portable_clock, ops.portable_clock
        ));
    }
    let rows: Vec<CalibratedOp> = ops
        .ops
        .iter()
        .filter(|op| op.available)
        .filter_map(|op| {
            let p = op.portable_ns?;
            if !(p.estimate.is_finite() && p.lo.is_finite() && p.hi.is_finite()) {
                return None;
            }
            let y = fit.intercept + fit.slope * p.estimate;
            let line = fit.line_half_width(p.estimate);
            let below = fit.slope.abs() * (p.estimate - p.lo).max(0.0);
            let above = fit.slope.abs() * (p.hi - p.estimate).max(0.0);
            // A negative slope would swap which side of x maps to which side
            // of y; keep the interval the right way round.
            let (down, up) = if fit.slope >= 0.0 {
                (below, above)
            } else {
                (above, below)
            };
            Some(CalibratedOp {
                name: op.name.clone(),
                form: op.form.clone(),
                portable_ns: p.estimate,
                calibrated_ns: y,
                interval_ns: (y - line.hypot(down), y + line.hypot(up)),
                extrapolated: p.estimate < fit.min_portable_ns || p.estimate > fit.max_portable_ns,
                measured_counter_ns: op.counter_ns.map(|c| c.estimate),
            })
        })
        .collect();
    let extrapolated = rows.iter().filter(|r| r.extrapolated).count();
    if extrapolated > 0 {
        warnings.push(format!(
            "{extrapolated} operation(s) lie outside the portable range the fit was made on ({:.3} to {:.3} ns): extrapolated",
            fit.min_portable_ns, fit.max_portable_ns
        ));
    }
    Ok(CalibratedOps {
        fit: fit.clone(),
        portable_clock: ops.portable_clock.clone(),
        same_portable_clock,
        warnings,
        ops: rows,
    })
}

#[cfg(test)]
mod tests {
    use super::super::{ops_report, CoreClock, OpMeasurement, OpsData};
    use super::*;
    use crate::options::Options;

    fn op(name: &str, ns: f64, ticks: f64) -> OpMeasurement {
        let reps = 31;
        let jitter = |i: usize| 1.0 + (i % 7) as f64 * 2e-3;
        OpMeasurement {
            name: name.into(),
            group: "integer".into(),
            form: "latency".into(),
            implementation: "asm".into(),
            instruction: None,
            available: true,
            unavailable_reason: None,
            portable_n_ns: (0..reps).map(|_| 50.0 + 100.0 * ns).collect(),
            portable_2n_ns: (0..reps).map(|i| 50.0 + 200.0 * ns * jitter(i)).collect(),
            counter_n_ticks: (0..reps).map(|_| 20.0 + 100.0 * ticks).collect(),
            counter_2n_ticks: (0..reps)
                .map(|i| 20.0 + 200.0 * ticks * jitter(i + 3))
                .collect(),
        }
    }

    /// Counter at 1 GHz (1 tick = 1 ns); counter ns = 0.3 + 1.2·portable,
    /// with a per-op wobble so the residuals are not all zero.
    fn data(scale: f64) -> OpsData {
        let costs = [0.25, 0.5, 0.75, 1.0, 2.0, 3.0, 4.0, 6.0, 10.0, 14.0];
        OpsData {
            portable_clock: "std::time::Instant".into(),
            counter_clock: Some("tsc_lfence_rdtsc".into()),
            counter_hz: Some(1e9),
            copies: 100,
            repetitions: 31,
            core_clock: Some(CoreClock {
                adds: 1000,
                ticks: vec![400.0; 31],
                ticks_2n: Vec::new(),
            }),
            ops: costs
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    let wobble = if i % 2 == 0 { 0.02 } else { -0.02 };
                    op(&format!("op{i}"), c * scale, 0.3 + 1.2 * c * scale + wobble)
                })
                .collect(),
            probes: Vec::new(),
        }
    }

    fn view(scale: f64) -> OpsView {
        OpsView::of(&ops_report(&data(scale), &Options::default())).unwrap()
    }

    #[test]
    fn export_carries_the_report_fit() {
        let v = view(1.0);
        let fit = CalibrationFit::export("a.json", Some("h"), None, &v, "latency").unwrap();
        let cal = v.forms[0].calibration.as_ref().unwrap();
        assert_eq!(fit.slope, cal.fit.slope);
        assert_eq!(fit.intercept, cal.fit.intercept);
        assert_eq!(fit.n, 10);
        assert!((fit.slope - 1.2).abs() < 0.02, "{fit:?}");
        // s from the residuals reproduces the exported standard errors:
        // se(β)² = s²/Sxx.
        let xs: Vec<f64> = cal.points.iter().map(|p| p.portable_ns).collect();
        let sxx: f64 = xs.iter().map(|x| (x - fit.mean_portable_ns).powi(2)).sum();
        assert!((fit.slope_se - fit.residual_sd / sxx.sqrt()).abs() < 1e-12);
        assert_eq!(
            fit.min_portable_ns,
            xs.iter().copied().fold(f64::MAX, f64::min)
        );
        // Round trip through the file format.
        let json = serde_json::to_vec(&fit).unwrap();
        // (serde_json may round the last bit of a float on the way back.)
        let back = CalibrationFit::from_json("f.json", &json).unwrap();
        assert_eq!(back.n, fit.n);
        assert_eq!(back.source_file, fit.source_file);
        assert!((back.slope - fit.slope).abs() < 1e-12);
        assert!((back.max_portable_ns - fit.max_portable_ns).abs() < 1e-12);
    }

    #[test]
    fn export_refuses_a_missing_form() {
        let e = CalibrationFit::export("a.json", None, None, &view(1.0), "throughput").unwrap_err();
        assert!(e.contains("no throughput operations"), "{e}");
    }

    #[test]
    fn prediction_interval_matches_the_textbook_formula() {
        let v = view(1.0);
        let fit = CalibrationFit::export("a.json", None, None, &v, "latency").unwrap();
        let cal = v.forms[0].calibration.as_ref().unwrap();
        let xs: Vec<f64> = cal.points.iter().map(|p| p.portable_ns).collect();
        let n = xs.len() as f64;
        let sxx: f64 = xs.iter().map(|x| (x - fit.mean_portable_ns).powi(2)).sum();
        for x0 in [0.0, 1.0, 5.0, 30.0] {
            let textbook = fit.t
                * fit.residual_sd
                * (1.0 + 1.0 / n + (x0 - fit.mean_portable_ns).powi(2) / sxx).sqrt();
            let ours = fit.line_half_width(x0);
            assert!(
                (ours - textbook).abs() < 1e-9 * textbook.max(1.0),
                "{x0}: {ours} {textbook}"
            );
        }
    }

    #[test]
    fn applying_a_fit_to_another_file() {
        let fit = CalibrationFit::export("a.json", None, None, &view(1.0), "latency").unwrap();
        // The other file's ops run 1.5× slower, so some lie beyond the range.
        let other = view(1.5);
        let c = apply_calibration(&other, &fit).unwrap();
        assert!(c.same_portable_clock);
        assert_eq!(c.ops.len(), 10);
        for r in &c.ops {
            assert!((r.calibrated_ns - (fit.intercept + fit.slope * r.portable_ns)).abs() < 1e-12);
            assert!(r.interval_ns.0 < r.calibrated_ns && r.calibrated_ns < r.interval_ns.1);
            // The interval is at least the line's prediction interval.
            let line = fit.line_half_width(r.portable_ns);
            assert!(r.calibrated_ns - r.interval_ns.0 >= line - 1e-12);
            // The same relation generated both files, so the calibrated value
            // lands near the other file's own counter reading.
            let measured = r.measured_counter_ns.unwrap();
            assert!(
                (r.calibrated_ns - measured).abs() < 0.1 + 0.02 * measured,
                "{r:?}"
            );
        }
        assert!(c.ops.iter().any(|r| r.extrapolated));
        assert!(c.warnings.iter().any(|w| w.contains("extrapolated")));
    }

    #[test]
    fn a_different_portable_clock_is_said() {
        let fit = CalibrationFit::export("a.json", None, None, &view(1.0), "latency").unwrap();
        let mut other = view(1.0);
        other.portable_clock = "performance.now".into();
        let c = apply_calibration(&other, &fit).unwrap();
        assert!(!c.same_portable_clock);
        assert!(c.warnings[0].contains("portable clock"));
    }

    #[test]
    fn bad_fit_files_are_refused() {
        assert!(CalibrationFit::from_json("x", b"{}").is_err());
        assert!(CalibrationFit::from_json("x", b"\xff").is_err());
        let mut fit = CalibrationFit::export("a.json", None, None, &view(1.0), "latency").unwrap();
        fit.format = "something-else".into();
        let e = CalibrationFit::from_json("x", &serde_json::to_vec(&fit).unwrap()).unwrap_err();
        assert!(e.contains("expected"), "{e}");
        fit.format = FIT_FORMAT.into();
        fit.n = 2;
        assert!(CalibrationFit::from_json("x", &serde_json::to_vec(&fit).unwrap()).is_err());
    }
}
