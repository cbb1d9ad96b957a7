//! The `commands` suite: the user's own commands timed by `tickbook run`,
//! each run its own process, in rounds of every command in a seeded random
//! order. Not made by `tickbook collect`.

mod data;
pub mod report;

pub use data::*;
pub use report::*;

use super::{Context, Item, Measurements, Suite};
use crate::error::{Checker, ReadError};

pub struct Commands;

impl Suite for Commands {
    const NAME: &'static str = "commands";
    const TITLE: &'static str = "Commands";
    const ORDER: u8 = 9;
    const COST: u8 = 9;
    // An interrupted or failed `tickbook run` keeps its finished rounds.
    const SHOWS_UNFINISHED: bool = true;
    const COMPARED: Option<&'static str> =
        Some("mean wall time of runs, each its own process (bootstrap of the mean)");
    type Data = CommandsData;
    type Report = CommandsReport;

    fn check(data: &CommandsData, cx: &Checker, at: &str) -> Result<(), ReadError> {
        if data.commands.is_empty() {
            return Err(cx.err(
                Some(format!("{at}.commands")),
                "expected at least one command",
            ));
        }
        let n = data.commands.len();
        for (i, round) in data.rounds.iter().enumerate() {
            if let Some(k) = round.iter().position(|&c| c >= n) {
                return Err(cx.err(
                    Some(format!("{at}.rounds[{i}][{k}]")),
                    format!("expected an index of one of the {n} commands"),
                ));
            }
        }
        for (i, r) in data.runs.iter().enumerate() {
            let here = format!("{at}.runs[{i}]");
            if r.command >= n {
                return Err(cx.err(
                    Some(format!("{here}.command")),
                    format!("expected an index of one of the {n} commands"),
                ));
            }
            let counts = [
                (r.task_clock_ns, "task_clock_ns"),
                (r.instructions, "instructions"),
                (r.cycles, "cycles"),
            ];
            for (v, key) in [
                (r.wall_ns, "wall_ns"),
                (r.user_ns, "user_ns"),
                (r.sys_ns, "sys_ns"),
                (r.start_ns, "start_ns"),
            ]
            .into_iter()
            .chain(counts.into_iter().filter_map(|(v, k)| Some((v?, k))))
            {
                cx.check_samples(&[v], &format!("{here}.{key}"))
                    .map_err(|_| {
                        cx.err(
                            Some(format!("{here}.{key}")),
                            format!("{key} is {v}: expected a finite number ≥ 0"),
                        )
                    })?;
            }
        }
        Ok(())
    }

    fn report(data: &CommandsData, cx: &mut Context) -> CommandsReport {
        let (report, warnings) = commands_report(data, cx.options);
        if cx.unfinished {
            cx.warnings.push(format!(
                "the run did not finish: {} finished rounds are shown",
                data.rounds.len()
            ));
        }
        cx.warnings.extend(warnings);
        report
    }

    fn items(data: &CommandsData) -> Vec<Item> {
        data.commands
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                let runs: Vec<Vec<f64>> = data
                    .runs
                    .iter()
                    .filter(|r| r.command == i)
                    .map(|r| vec![r.wall_ns])
                    .collect();
                (!runs.is_empty()).then(|| Item {
                    key: c.name.clone(),
                    unit: "ns".to_string(),
                    data: Measurements::Grouped(runs),
                    warm_up: false,
                })
            })
            .collect()
    }
}
