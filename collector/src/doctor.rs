//! `tickbook doctor`: is this machine fit to measure on now. The same
//! configuration checks and signals a collection records in its
//! `environment` (measured by `tickbook_measure::environment_check` over a
//! few seconds on one CPU: a quick ops table, then a busy loop), judged by
//! the analysis crate's fitness with the ops table's shared-core check,
//! printed with advice; `--json` prints the environment, the fitness and
//! the check (`issue`) instead. The exit status says the verdict.

use std::io::Write as _;
use std::process::ExitCode;

use tickbook_analysis::fitness;
use tickbook_analysis::suites::ops::issue::{self, IssueCheck};

use crate::terminal;

#[derive(clap::Args, Debug)]
pub struct DoctorArgs {
    /// Seconds to sample for (a busy loop on the CPU it starts on).
    #[arg(long, value_name = "S", default_value_t = 3.0, value_parser = parse_seconds)]
    pub seconds: f64,
    /// Print `{environment, fitness}` as JSON.
    #[arg(long)]
    pub json: bool,
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.2..=600.0).contains(&v) => Ok(v),
        Ok(v) => Err(format!("between 0.2 and 600 seconds, got {v}")),
        Err(e) => Err(format!("{e}")),
    }
}

pub fn run(args: DoctorArgs) -> ExitCode {
    let check = tickbook_measure::environment_check(args.seconds, false);
    let env = check.environment;
    let mut f = fitness::assess(&env);
    // The shared-core check from the quick ops table timed on the same CPU.
    let shared = match &check.ops {
        Ok(d) => issue::check(d, Some(&check.host)),
        Err(_) => None,
    };
    f.add(match (&shared, &check.ops) {
        (Some(i), _) => i.finding(),
        (None, Err(e)) => IssueCheck::not_made(format!("the ops table could not be timed: {e}")),
        (None, Ok(_)) => IssueCheck::not_made(
            "no cycle counter to convert the operations' times into core cycles".into(),
        ),
    });
    let text = if args.json {
        let doc = serde_json::json!({ "environment": env, "fitness": f, "issue": shared });
        match serde_json::to_string_pretty(&doc) {
            Ok(t) => t + "\n",
            Err(e) => {
                eprintln!("tickbook doctor: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        terminal::render_doctor(&env, &f)
    };
    let mut stdout = std::io::stdout();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
    exit_status(f.verdict)
}

/// The verdict as the exit status, for `tickbook doctor && tickbook
/// collect …`: 0 fine (or nothing could be measured), 3 disturbed, 4 unfit
/// (1 and clap's 2 stay errors).
fn exit_status(v: fitness::Level) -> ExitCode {
    match v {
        fitness::Level::Fine | fitness::Level::Unknown => ExitCode::SUCCESS,
        fitness::Level::Disturbed => ExitCode::from(3),
        fitness::Level::Unfit => ExitCode::from(4),
    }
}
