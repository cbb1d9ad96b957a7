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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_units() {
        assert_eq!(ns_per_unit("µs"), Some(1e3));
        assert_eq!(ns_per_unit("us"), Some(1e3));
        assert_eq!(ns_per_unit(" s "), Some(1e9));
        assert_eq!(ns_per_unit("cycles"), None);
    }
}
