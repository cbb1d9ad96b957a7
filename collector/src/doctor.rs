//! `tickbook doctor`: is this machine fit to measure on now. The same
//! configuration checks and signals a collection records in its
//! `environment` (measured by `tickbook_measure::environment_check` over a
//! few seconds of a busy loop on one CPU), judged by the analysis crate's
//! fitness, printed with advice; `--json` prints the environment and the
//! fitness instead. The exit status says the verdict.

use std::io::Write as _;
use std::process::ExitCode;

use tickbook_analysis::fitness;

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
    let env = tickbook_measure::environment_check(args.seconds, false);
    let f = fitness::assess(&env);
    let text = if args.json {
        match serde_json::to_string_pretty(&serde_json::json!({ "environment": env, "fitness": f }))
        {
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
