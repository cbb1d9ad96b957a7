//! What `tickbook run` will run: the commands with their names and
//! parameter values (hyperfine's `--parameter-scan` and `--parameter-list`
//! substitute `{VAR}` in commands and names), and each round's order drawn
//! from the seed.

use std::collections::BTreeMap;
use tickbook_analysis::stats::bootstrap::{index, rng};
use tickbook_analysis::suites::commands::CommandSpec;

/// A parameter and its values, in order.
pub struct Parameter {
    pub name: String,
    pub values: Vec<String>,
}

/// `--parameter-scan VAR MIN MAX [--parameter-step-size D]`: MIN, MIN + D,
/// … up to MAX (hyperfine's inclusive range; integers print as integers).
pub fn scan(name: &str, min: f64, max: f64, step: f64) -> Result<Parameter, String> {
    if !(min.is_finite() && max.is_finite() && step.is_finite()) || step <= 0.0 {
        return Err(
            "--parameter-scan needs finite bounds and a positive --parameter-step-size".into(),
        );
    }
    if max < min {
        return Err(format!(
            "--parameter-scan {name}: MAX {max} is below MIN {min}"
        ));
    }
    let count = ((max - min) / step + 1e-9).floor() as u64 + 1;
    if count > 100_000 {
        return Err(format!(
            "--parameter-scan {name}: {count} values is too many"
        ));
    }
    let values = (0..count)
        .map(|k| {
            let v = min + k as f64 * step;
            if v.fract() == 0.0 && v.abs() < 1e15 {
                format!("{v:.0}")
            } else {
                format!("{}", (v * 1e9).round() / 1e9)
            }
        })
        .collect();
    Ok(Parameter {
        name: name.to_string(),
        values,
    })
}

/// The commands to time: each command for each parameter value (the
/// command's values together, as hyperfine orders them), named by `--name`
/// in order or else by the command itself.
pub fn commands(
    commands: &[String],
    names: &[String],
    parameter: Option<&Parameter>,
) -> Result<Vec<CommandSpec>, String> {
    if !names.is_empty() && names.len() != commands.len() {
        return Err(format!(
            "{} --name for {} commands: give one name per command, or none",
            names.len(),
            commands.len()
        ));
    }
    let mut out = Vec::new();
    for (i, command) in commands.iter().enumerate() {
        let name = names.get(i).unwrap_or(command);
        match parameter {
            None => out.push(CommandSpec {
                name: name.clone(),
                command: command.clone(),
                parameters: BTreeMap::new(),
            }),
            Some(p) => {
                let key = format!("{{{}}}", p.name);
                for v in &p.values {
                    out.push(CommandSpec {
                        name: name.replace(&key, v),
                        command: command.replace(&key, v),
                        parameters: BTreeMap::from([(p.name.clone(), v.clone())]),
                    });
                }
            }
        }
    }
    // Names identify commands in files and comparisons.
    for (i, c) in out.iter().enumerate() {
        if out[..i].iter().any(|d| d.name == c.name) {
            return Err(format!(
                "two commands are named {:?}: give each its own --name",
                c.name
            ));
        }
    }
    Ok(out)
}

/// Draws each round's order: a Fisher–Yates shuffle of the commands from
/// the crate's seeded generator (Xoshiro256++), so a seed gives the same
/// orders on every machine.
pub struct Orders {
    rng: rand_xoshiro::Xoshiro256PlusPlus,
}

impl Orders {
    pub fn new(seed: u64) -> Orders {
        Orders { rng: rng(seed) }
    }

    pub fn next(&mut self, n: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = index(&mut self.rng, i + 1);
            order.swap(i, j);
        }
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_and_names() {
        let p = scan("n", 1.0, 3.0, 1.0).unwrap();
        assert_eq!(p.values, ["1", "2", "3"]);
        assert_eq!(scan("x", 0.0, 1.0, 0.25).unwrap().values.len(), 5);
        assert!(scan("x", 2.0, 1.0, 1.0).is_err());
        let c = commands(&["sleep {n}".into()], &["s{n}".into()], Some(&p)).unwrap();
        assert_eq!(c[1].command, "sleep 2");
        assert_eq!(c[1].name, "s2");
        assert!(commands(&["a".into(), "a".into()], &[], None).is_err());
    }

    #[test]
    fn orders_are_permutations_and_reproducible() {
        let (mut a, mut b) = (Orders::new(7), Orders::new(7));
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let o = a.next(3);
            assert_eq!(o, b.next(3));
            let mut s = o.clone();
            s.sort();
            assert_eq!(s, [0, 1, 2]);
            seen.insert(o);
        }
        assert_eq!(seen.len(), 6, "every order of three is drawn");
    }
}
