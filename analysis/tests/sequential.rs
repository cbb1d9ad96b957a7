//! `--precision`'s stopping rule keeps its error rate under optional
//! stopping where the fixed-sample interval looked at after every round
//! does not (the full table: examples/sequential_coverage.rs).

#[path = "support/sequential_sim.rs"]
mod sim;

use sim::{rate, simulate, Noise};

#[test]
fn the_sequence_keeps_alpha_where_repeated_fixed_intervals_do_not() {
    let trials = 300;
    for noise in [Noise::Normal, Noise::Bursts] {
        let o = simulate(noise, 0.01, 200, trials, 7);
        // Binomial(300, 0.05) exceeds 8 % with probability < 1 %.
        let rule = rate(o.rule_different, trials);
        let ever = rate(o.rule_ever, trials);
        let naive = rate(o.naive_different, trials);
        assert!(rule <= 0.08 && ever <= 0.08, "{noise:?}: {o:?}");
        // Looking after each of up to 190 rounds: about a quarter of null
        // runs show a difference at some round.
        assert!(naive >= 0.15, "{noise:?}: {o:?}");
    }
}
