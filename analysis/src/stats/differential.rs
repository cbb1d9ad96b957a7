//! The differential cost of a repeated operation: time n copies and 2n
//! copies, and `(t(2n) − t(n)) / n` is one copy's cost with the fixed costs
//! (counter reads, loop entry) cancelled. The ops, bottleneck and core-clock
//! figures and the comparison items all take their per-copy samples here.

/// One per-copy cost per paired repetition: `(t_2n[i] − t_n[i]) / copies`.
/// Pairs beyond the shorter slice are dropped; readers reject unpaired
/// samples and `copies == 0` before a report is built.
pub fn per_copy(t_n: &[f64], t_2n: &[f64], copies: u64) -> Vec<f64> {
    let n = copies as f64;
    t_n.iter().zip(t_2n).map(|(a, b)| (b - a) / n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_cost_cancels() {
        // t(k) = 40 + 2.5·k: the 40 of fixed cost must vanish.
        let copies = 100;
        let t = |k: u64| 40.0 + 2.5 * k as f64;
        let got = per_copy(&[t(copies); 3], &[t(2 * copies); 3], copies);
        assert_eq!(got, vec![2.5; 3]);
    }

    #[test]
    fn pairs_by_position() {
        assert_eq!(per_copy(&[1.0, 2.0], &[5.0, 4.0], 2), vec![2.0, 1.0]);
        assert!(per_copy(&[], &[], 4).is_empty());
    }
}
