//! Units of measurement: which are times (and how many ns they are), so that
//! front ends can scale them (ns, µs, ms, s) and comparisons convert them.

/// Nanoseconds in one `unit`, for time units; `None` for anything else
/// (cycles, ops/s, bytes, …), which is shown as given.
pub fn ns_per_unit(unit: &str) -> Option<f64> {
    match unit.trim() {
        "ps" => Some(1e-3),
        "ns" => Some(1.0),
        "us" | "µs" | "μs" => Some(1e3),
        "ms" => Some(1e6),
        "s" | "sec" | "seconds" => Some(1e9),
        _ => None,
    }
}

/// What a unit measures, which decides the words a comparison uses: less
/// time is "faster", less memory "smaller", less of anything else "less".
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Quantity {
    /// Durations, and clock counts (cycles, ticks) that stand for them.
    Time,
    /// Bytes.
    Memory,
    /// Anything else (counts, rates, …).
    Other,
}

/// Bytes in one `unit`, for memory units; `None` for anything else.
pub fn bytes_per_unit(unit: &str) -> Option<f64> {
    match unit.trim() {
        "B" | "byte" | "bytes" => Some(1.0),
        "KB" | "kB" => Some(1e3),
        "KiB" => Some(1024.0),
        "MB" => Some(1e6),
        "MiB" => Some(1048576.0),
        "GB" => Some(1e9),
        "GiB" => Some(1073741824.0),
        _ => None,
    }
}

/// What `unit` measures.
pub fn quantity(unit: &str) -> Quantity {
    if ns_per_unit(unit).is_some() || matches!(unit.trim(), "cycles" | "cycle" | "ticks" | "tick") {
        Quantity::Time
    } else if bytes_per_unit(unit).is_some() {
        Quantity::Memory
    } else {
        Quantity::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_units() {
        assert_eq!(ns_per_unit("µs"), Some(1e3));
        assert_eq!(ns_per_unit("us"), Some(1e3));
        assert_eq!(ns_per_unit(" s "), Some(1e9));
        assert_eq!(ns_per_unit("cycles"), None);
        assert_eq!(quantity("cycles"), Quantity::Time);
        assert_eq!(quantity("ms"), Quantity::Time);
        assert_eq!(quantity("bytes"), Quantity::Memory);
        assert_eq!(bytes_per_unit("KiB"), Some(1024.0));
        assert_eq!(quantity("ops/s"), Quantity::Other);
    }
}
