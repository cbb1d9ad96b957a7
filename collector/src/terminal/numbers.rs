//! Numbers as the terminal shows them: durations scaled to a unit with
//! significant digits, shares, factors, intervals, byte sizes and wall
//! times. Formatting only; every value comes from the analysis.

/// A duration in ns, scaled to ns/µs/ms/s with four significant digits
/// (the unit chosen after rounding: 999.96 ns is 1.000 µs).
pub(crate) fn fmt_ns(ns: f64) -> String {
    let (scale, unit) = time_unit(ns);
    format!("{} {unit}", sig(ns / scale, 4))
}

/// The unit `fmt_ns` shows `ns` in, and its size in ns.
pub(crate) fn time_unit(ns: f64) -> (f64, &'static str) {
    let a = sig(ns, 4).parse::<f64>().unwrap_or(ns).abs();
    if a >= 1e9 {
        (1e9, "s")
    } else if a >= 1e6 {
        (1e6, "ms")
    } else if a >= 1e3 {
        (1e3, "µs")
    } else {
        (1.0, "ns")
    }
}

/// A CI of durations, its ends in the estimate's unit: `296.9 µs [295.1, 298.0]`.
pub(crate) fn ns_ci(ci: Option<&tickbook_analysis::stats::bootstrap::BootstrapCi>) -> String {
    match ci {
        Some(c) => {
            let (scale, unit) = time_unit(c.estimate);
            format!(
                "{} {unit} [{}, {}]",
                sig(c.estimate / scale, 4),
                sig(c.lo / scale, 4),
                sig(c.hi / scale, 4)
            )
        }
        None => "—".into(),
    }
}

pub(crate) fn opt_ns(v: Option<f64>) -> String {
    v.map(fmt_ns).unwrap_or_else(|| "—".into())
}

/// A whole number as an integer (`90`, `9380`): counts are exact, and
/// `90.000` would claim digits they do not have. `None` for fractions and
/// numbers past 2^53, where a double no longer holds every integer.
pub(crate) fn whole(v: f64) -> Option<String> {
    (v.is_finite() && v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0)
        .then(|| format!("{v:.0}"))
}

/// [`whole`], else `digits` significant digits.
pub(crate) fn whole_or_sig(v: f64, digits: usize) -> String {
    whole(v).unwrap_or_else(|| sig(v, digits))
}

/// `digits` significant digits, without exponent for everyday magnitudes.
pub(crate) fn sig(v: f64, digits: usize) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let digits = digits.max(1);
    // The magnitude after rounding, so that 9.9996 to four digits is 10.00.
    let e = format!("{:.*e}", digits - 1, v);
    let mag: i32 = e
        .rsplit('e')
        .next()
        .and_then(|x| x.parse().ok())
        .unwrap_or(0);
    if !(-4..=9).contains(&mag) {
        return e;
    }
    let decimals = (digits as i32 - 1 - mag).max(0) as usize;
    format!("{v:.decimals$}")
}

/// A confidence level or a planned share: 95%, 99.9%.
pub(crate) fn level(x: f64) -> String {
    let p = x * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{p:.0}%")
    } else {
        format!("{}%", sig(p, 3))
    }
}

/// A mark after a value: ` *` when `on`, else two spaces, so that marked
/// and unmarked values stay aligned in a right-aligned column.
pub(crate) fn mark(on: bool) -> &'static str {
    if on {
        " *"
    } else {
        "  "
    }
}

/// A share as a percentage with three significant digits: 8.87%.
pub(crate) fn pct(ratio: f64) -> String {
    format!("{}%", sig(100.0 * ratio, 3))
}

/// A signed share: +12.3%, -4.56%, 0%.
pub(crate) fn signed_pct(ratio: f64) -> String {
    if ratio > 0.0 {
        format!("+{}", pct(ratio))
    } else {
        pct(ratio)
    }
}

/// A factor with three significant digits: 1.70×; `∞×` for an interval end
/// the data cannot bound (the analysis gives it as the largest double).
pub(crate) fn factor(x: f64) -> String {
    if x >= UNBOUNDED {
        return "∞×".into();
    }
    format!("{}×", sig(x, 3))
}

/// From here up a number stands for "no bound": JSON has no infinity, so
/// the analysis writes the largest double.
pub(crate) const UNBOUNDED: f64 = 1e300;

/// `estimate [lo, hi]` of a bootstrap CI, each formatted with `f`.
pub(crate) fn ci_with(
    ci: Option<&tickbook_analysis::stats::bootstrap::BootstrapCi>,
    f: impl Fn(f64) -> String,
) -> String {
    match ci {
        Some(c) => format!("{} [{}, {}]", f(c.estimate), f(c.lo), f(c.hi)),
        None => "—".into(),
    }
}

/// Bytes as B, KiB or MiB (three significant digits above 1 KiB).
pub(crate) fn fmt_bytes(n: u64) -> String {
    if n >= 1 << 20 {
        format!("{} MiB", sig(n as f64 / 1048576.0, 3))
    } else if n >= 1 << 10 {
        format!("{} KiB", sig(n as f64 / 1024.0, 3))
    } else {
        format!("{n} B")
    }
}

/// A wall time: ns to s below a minute, then min, h, days, years (the
/// page's `fmtWall`).
pub(crate) fn wall(ns: f64) -> String {
    let s = ns / 1e9;
    if s < 60.0 {
        let (scale, unit) = time_unit(ns);
        format!("{} {unit}", sig(ns / scale, 3))
    } else if s < 3600.0 {
        format!("{} min", sig(s / 60.0, 3))
    } else if s < 86400.0 * 2.0 {
        format!("{} h", sig(s / 3600.0, 3))
    } else if s < 86400.0 * 365.0 * 2.0 {
        format!("{} days", sig(s / 86400.0, 3))
    } else {
        format!("{} years", sig(s / (86400.0 * 365.25), 3))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_digits_and_units() {
        assert_eq!(sig(12.3456, 4), "12.35");
        assert_eq!(sig(0.0012345, 3), "0.00123");
        assert_eq!(sig(1234.6, 4), "1235");
        assert_eq!(fmt_ns(4_000_000.0), "4.000 ms");
        assert_eq!(fmt_ns(18.25), "18.25 ns");
        assert_eq!(fmt_ns(1500.0), "1.500 µs");
        // Rounding up to the next power of ten keeps the digit count and
        // moves to the next unit.
        assert_eq!(sig(9.9996, 4), "10.00");
        assert_eq!(sig(-0.099996, 3), "-0.100");
        assert_eq!(fmt_ns(999.96), "1.000 µs");
        assert_eq!(sig(1.23456e-7, 3), "1.23e-7");
    }
}
