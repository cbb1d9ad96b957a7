//! `tickbook run --precision` under the null: A/A runs under four noise
//! shapes, checked after every round. For each: how often the run's
//! interval at the stop calls the two different (its coverage of the true
//! ratio 1 is one minus that), how often it excluded 1 at any round before,
//! and the fixed-sample interval looked at after every round for contrast.
//!
//! usage: sequential_coverage [--trials N] [--target PCT] [--max-rounds N]

#[path = "../tests/support/sequential_sim.rs"]
mod sim;

use sim::{rate, simulate, Noise};

fn arg(args: &[String], name: &str, default: f64) -> f64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let trials = arg(&args, "--trials", 2000.0) as usize;
    let target = arg(&args, "--target", 1.0) / 100.0;
    let max_rounds = arg(&args, "--max-rounds", 1000.0) as usize;
    println!(
        "A/A, {trials} trials, stop at ±{:.2} % or {max_rounds} rounds, 95 % intervals",
        target * 100.0
    );
    println!(
        "{:<24} | {:>9} {:>9} {:>10} {:>7} | {:>11} {:>11} {:>7}",
        "noise",
        "different",
        "coverage",
        "ever excl.",
        "rounds",
        "naive look",
        "naive width",
        "rounds"
    );
    for noise in Noise::ALL {
        let o = simulate(noise, target, max_rounds, trials, 0x5e9);
        println!(
            "{:<24} | {:>8.1}% {:>8.1}% {:>9.1}% {:>7.0} | {:>10.1}% {:>10.1}% {:>7.0}",
            noise.name(),
            100.0 * rate(o.rule_different, trials),
            100.0 * (1.0 - rate(o.rule_different, trials)),
            100.0 * rate(o.rule_ever, trials),
            o.rule_rounds as f64 / trials as f64,
            100.0 * rate(o.naive_different, trials),
            100.0 * rate(o.naive_width_different, trials),
            o.naive_rounds as f64 / trials as f64,
        );
    }
}
