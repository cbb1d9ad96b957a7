//! The full simulation grid of the three-level intervals (scripts/bench-levels):
//! coverage of 95 % intervals of every level and factor, and how often a
//! level with no effect is declared present, over the designs campaigns
//! have; with `--compare`, the candidate methods side by side.
//!
//! usage: levels_coverage [--runs N] [--compare] [--resamples B]

#[path = "../tests/support/levels_sim.rs"]
mod sim;

use sim::{
    library, nested_bootstrap, parametric_bootstrap, satterthwaite, simulate, Design, Rates,
};

type Method = Box<sim::Method>;

fn pct(x: Option<f64>) -> String {
    x.map_or("—".into(), |v| format!("{:.1}", 100.0 * v))
}

fn row(d: &Design, method: &str, r: &Rates, null: &[usize]) {
    let cov: Vec<String> = (0..5).map(|i| pct(r.coverage(i))).collect();
    let excl: Vec<String> = (1..5)
        .map(|i| {
            if null.contains(&i) {
                pct(r.exclusion(i))
            } else {
                "".into()
            }
        })
        .collect();
    println!(
        "{:<18} {:<9} {:<22} {:>4} | {:>6} {:>6} {:>6} {:>6} {:>6} | {:>6} {:>6} {:>6} {:>6}",
        d.name,
        format!("{}/{}/{}", d.sd[2], d.sd[1], d.sd[0]),
        method,
        r.runs,
        cov[0],
        cov[1],
        cov[2],
        cov[3],
        cov[4],
        excl[0],
        excl[1],
        excl[2],
        excl[3]
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str, default: usize| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let runs = value("--runs", 400);
    let resamples = value("--resamples", 200);
    let compare = args.iter().any(|a| a == "--compare");
    let confidence = 0.95;
    let effects = [1.0, 2.0, 3.0];
    let mut designs: Vec<(Design, bool)> = Vec::new();
    for m in [3, 6, 20, 40, 100] {
        designs.push((Design::balanced(m, 5, 40, effects), true));
    }
    for m in [3, 6, 20, 40] {
        designs.push((Design::balanced(m, 20, 40, effects), true));
    }
    for m in [3, 6, 20, 40, 100] {
        designs.push((Design::unbalanced(m, effects), true));
    }
    for (m, e, n) in [(100, 2, 40), (3, 50, 10), (6, 2, 5), (40, 50, 5)] {
        designs.push((Design::balanced(m, e, n, effects), false));
    }
    // Nulls: nothing above the measurements, no machine effect, no
    // execution effect.
    let mut nulls: Vec<(Design, Vec<usize>)> = Vec::new();
    for m in [3, 6, 20, 40, 100] {
        nulls.push((
            Design::balanced(m, 5, 40, [1.0, 0.0, 0.0]),
            vec![1, 2, 3, 4],
        ));
    }
    for m in [6, 20, 40] {
        nulls.push((Design::balanced(m, 5, 40, [1.0, 2.0, 0.0]), vec![2, 4]));
        nulls.push((Design::balanced(m, 5, 40, [1.0, 0.0, 3.0]), vec![1, 3]));
        nulls.push((Design::unbalanced(m, [1.0, 0.0, 0.0]), vec![1, 2, 3, 4]));
        nulls.push((Design::unbalanced(m, [1.0, 2.0, 0.0]), vec![2, 4]));
    }
    let methods = |all: bool| -> Vec<(String, Method)> {
        let mut v: Vec<(String, Method)> = vec![(
            "MLS + F (tickbook)".into(),
            Box::new(|d, c, _| library(d, c)),
        )];
        if all {
            v.push(("Satterthwaite (T²)".into(), Box::new(satterthwaite)));
            v.push((
                format!("nested bootstrap {resamples}"),
                Box::new(nested_bootstrap(resamples)),
            ));
            v.push((
                format!("parametric boot. {resamples}"),
                Box::new(parametric_bootstrap(resamples)),
            ));
        }
        v
    };
    println!("Coverage of 95 % intervals (%) and, under a null, how often the level is declared present (lower end above 0 or 1, %).");
    println!("SDs machine/execution/measurement; {runs} datasets per design (the bootstraps: {} datasets, {resamples} resamples).", runs.min(200));
    println!(
        "{:<18} {:<9} {:<22} {:>4} | {:>6} {:>6} {:>6} {:>6} {:>6} | {:>6} {:>6} {:>6} {:>6}",
        "design",
        "SDs",
        "method",
        "runs",
        "T1²",
        "T2²",
        "T3²",
        "F exec",
        "F mach",
        "!T2²",
        "!T3²",
        "!Fexec",
        "!Fmach"
    );
    for (seed, (d, main)) in designs.iter().enumerate() {
        for (name, m) in methods(compare && *main) {
            let n = if name.starts_with("MLS") || name.starts_with("Satt") {
                runs
            } else {
                runs.min(200)
            };
            row(
                d,
                &name,
                &simulate(d, n, 1000 + seed as u64, confidence, &*m),
                &[],
            );
        }
    }
    println!();
    for (seed, (d, null)) in nulls.iter().enumerate() {
        for (name, m) in methods(compare && d.name.ends_with("×5×40")) {
            let n = if name.starts_with("MLS") || name.starts_with("Satt") {
                runs
            } else {
                runs.min(200)
            };
            row(
                d,
                &name,
                &simulate(d, n, 5000 + seed as u64, confidence, &*m),
                null,
            );
        }
    }
}
