//! `tickbook`: collect measurements of this machine, analyze result files,
//! serve the notebook.
//!
//! This crate is the front ends (the command line, `analyze`, `report`,
//! `serve`, the terminal renderer); every measurement, with its asm, its
//! `unsafe` and its child processes, is in `tickbook_measure`. Forbidding
//! unsafe code here makes the compiler check that boundary.

#![forbid(unsafe_code)]

mod analyze;
mod campaign;
mod doctor;
mod history;
mod load;
mod report;
mod serve;
mod terminal;

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use tickbook_measure as collect;

#[derive(Parser)]
#[command(
    name = "tickbook",
    version,
    about = "Trustworthy timing of short events: collect, analyze, share"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure this machine and write a result file (JSON, format v1).
    Collect(collect::CollectArgs),
    /// Analyze result files: a terminal table, or JSON with the page's numbers.
    Analyze(analyze::AnalyzeArgs),
    /// Which commit changed what: one result per commit, in order, and each
    /// benchmark's steps, drifts and disturbed commits; a CI gate with
    /// --fail-if-regressed.
    History(history::HistoryArgs),
    /// Time your own commands: each run its own process, in rounds of every
    /// command in a seeded random order; writes a result file.
    Run(collect::RunArgs),
    /// Serve the notebook page and a folder of results on 127.0.0.1.
    Serve(serve::ServeArgs),
    /// Write one self-contained report (.html) of result files: the page with
    /// the files inside; it opens offline and recomputes what it shows.
    Report(report::ReportArgs),
    /// Is this machine fit to measure on now: the configuration checks and a
    /// few seconds of the signals a collection records, with advice.
    Doctor(doctor::DoctorArgs),
    /// Collections on many machines as a Slurm job array: plan, submit,
    /// status, resubmit.
    Campaign(campaign::CampaignArgs),
    /// Internal: one execution of an alloc-suite configuration (the collector
    /// runs itself as a child process).
    #[command(name = "__alloc-child", hide = true)]
    AllocChild(collect::AllocChildArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Collect(args) => collect::run(args),
        Command::Analyze(args) => on_pool(|| analyze::run(args)),
        Command::History(args) => on_pool(|| history::run(args)),
        Command::Run(args) => run_commands(args),
        Command::Serve(args) => serve::run(args),
        Command::Report(args) => on_pool(|| report::run(args)),
        Command::Campaign(args) => campaign::run(args),
        Command::Doctor(args) => doctor::run(args),
        Command::AllocChild(args) => collect::alloc_child(args),
    }
}

/// `tickbook run`, then its summary on stderr from the file it wrote.
fn run_commands(args: collect::RunArgs) -> ExitCode {
    let outcome = collect::run_commands(args);
    if let Some(path) = &outcome.out {
        if let Ok(bytes) = std::fs::read(path) {
            let name = path.display().to_string();
            let options = tickbook_analysis::report::Options::default();
            let report =
                on_pool(|| tickbook_analysis::report::analyze_bytes(&name, &bytes, &options));
            eprint!("{}", terminal::render_run_summary(&report));
        }
    }
    outcome.code
}

/// Run `f` on a rayon pool of one thread per core: the analysis spreads
/// files, series and configurations over it. Results do not depend on the
/// thread count.
fn on_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match rayon::ThreadPoolBuilder::new().build() {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}
