//! `tickbook`: collect measurements of this machine, analyze result files,
//! serve the notebook.

mod analyze;
mod analyze_timing;
mod collect;
mod report;
mod serve;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

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
    /// Serve the notebook page and a folder of results on 127.0.0.1.
    Serve(serve::ServeArgs),
    /// Write one self-contained report (.html) of result files: the page with
    /// the files inside; it opens offline and recomputes what it shows.
    Report(report::ReportArgs),
    /// Internal: one execution of an alloc-suite configuration (the collector
    /// runs itself as a child process).
    #[command(name = "__alloc-child", hide = true)]
    AllocChild(collect::AllocChildArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Collect(args) => collect::run(args),
        Command::Analyze(args) => analyze::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Report(args) => report::run(args),
        Command::AllocChild(args) => collect::alloc_child(args),
    }
}
