//! A file that holds both the tool's own statistics and the samples they
//! were computed from (cargo-criterion's messages, Criterion.rs's
//! `estimates.json` beside `sample.json`, pytest-benchmark's `stats` beside
//! `stats.data`, JMH's `score` beside `rawData`, hyperfine's `mean` beside
//! `times`) must have the two agree: each tool computes its mean from the
//! very samples it writes, in double precision, and writes both at full
//! precision. When they disagree beyond [`RELATIVE`] the file was edited or
//! put together from two runs; the series is named in a warning with both
//! figures, and tickbook shows the samples' (it analyses the samples).
//! docs/importers.md gives the tolerance per format.

use crate::error::Checker;
use crate::format::Series;

/// How far apart a tool's mean and its samples' may be, relative: far above
/// the rounding of a sum of a few thousand doubles taken in another order
/// (about 1e-13), far below any edit or mix-up worth telling.
pub(crate) const RELATIVE: f64 = 1e-6;

/// The mean of every measurement of the series.
fn samples_mean(s: &Series) -> Option<f64> {
    let (sum, n) = s
        .executions
        .iter()
        .flatten()
        .fold((0.0, 0usize), |(a, n), x| (a + x, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// Six significant digits, for messages.
fn shown(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return x.to_string();
    }
    let digits = 5 - x.abs().log10().floor() as i32;
    let p = 10f64.powi(digits);
    let r = (x * p).round() / p;
    if digits > 0 {
        format!("{r:.*}", digits as usize)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        format!("{r:.0}")
    }
}

/// A warning when the tool's mean of `s` (`tool`, written at `at`) and the
/// mean of its samples differ by more than [`RELATIVE`], else `None`.
pub(crate) fn check_mean(cx: &Checker, at: &str, s: &Series, tool: f64) -> Option<String> {
    let ours = samples_mean(s)?;
    if !tool.is_finite() || (tool - ours).abs() <= RELATIVE * tool.abs().max(ours.abs()) {
        return None;
    }
    Some(cx.warning(
        at,
        format!(
            "\"{}\": the file's own mean is {} {u} but the mean of its samples is {} {u} \
             (they differ by more than the {RELATIVE:e} relative the tool's rounding allows: \
             the file was edited or mixes two runs); tickbook shows the samples' figures",
            s.name,
            shown(tool),
            shown(ours),
            u = s.unit,
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn series(xs: Vec<Vec<f64>>) -> Series {
        Series {
            name: "fib".into(),
            unit: "ns".into(),
            executions: xs,
            metadata: Value::Null,
            group: None,
        }
    }

    #[test]
    fn agreeing_figures_pass_and_others_are_named_with_both() {
        let cx = Checker::of_format("f", "cargo-criterion JSON stream");
        let s = series(vec![vec![10.0, 11.0], vec![12.0]]);
        assert_eq!(check_mean(&cx, "line 3.mean", &s, 11.0), None);
        assert_eq!(
            check_mean(&cx, "line 3.mean", &s, 11.0 * (1.0 + 1e-9)),
            None
        );
        let w = check_mean(&cx, "line 3.mean.estimate", &s, 54773.21).unwrap();
        assert!(w.starts_with("at line 3.mean.estimate: "), "{w}");
        assert!(
            w.contains(
                "\"fib\": the file's own mean is 54773.2 ns but the mean of its samples is 11 ns"
            ),
            "{w}"
        );
        assert!(w.contains("tickbook shows the samples' figures"), "{w}");
        assert_eq!(shown(0.000123456789), "0.000123457");
        assert_eq!(shown(1234567.0), "1234570");
    }
}
