//! A clock's tick from the steps between consecutive reads.
//!
//! A thread that is preempted while it scans a coarse clock sees several
//! ticks as one step (8, 12, 20 ms for a 4 ms clock), and on a busy machine
//! those can outnumber single ticks. So the tick is the most frequent step
//! among the *single-tick* steps — those within 1.5× of the smallest
//! positive step — which stays right as long as some single ticks were seen.

/// The modal single-tick step; `None` without a positive step.
pub fn single_tick(steps: &[i64]) -> Option<i64> {
    let smallest = steps.iter().copied().filter(|&s| s > 0).min()?;
    let limit = smallest.saturating_add(smallest / 2);
    let mut single: Vec<i64> = steps
        .iter()
        .copied()
        .filter(|&s| s > 0 && s <= limit)
        .collect();
    single.sort_unstable();
    let mut best = (0usize, smallest);
    let mut i = 0;
    while i < single.len() {
        let j = single[i..].partition_point(|&x| x == single[i]) + i;
        // Strictly more: among equally frequent steps the smaller wins.
        if j - i > best.0 {
            best = (j - i, single[i]);
        }
        i = j;
    }
    Some(best.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preemption_does_not_move_the_tick() {
        // More 20 ms steps than 4 ms ones, and a 1 ns-short tick.
        let mut steps = vec![20_000_000; 30];
        steps.extend([4_000_000; 10]);
        steps.extend([3_999_999, 8_000_000, -5]);
        assert_eq!(single_tick(&steps), Some(4_000_000));
        assert_eq!(single_tick(&[-1, 0]), None);
        assert_eq!(single_tick(&[7, 7, 9, 9, 12]), Some(7));
    }
}
