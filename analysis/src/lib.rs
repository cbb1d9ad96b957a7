//! tickbook's analysis core.
//!
//! Pure Rust, no I/O beyond what callers hand in, no wasm dependencies: the same
//! code runs natively in `tickbook analyze` and, through `analysis-wasm`, in the
//! page's Web Worker, so the terminal and the page show the same numbers.
//!
//! * [`error`] — `ReadError` and the `Checker` every reader checks values
//!   with; it uses nothing else of the crate.
//! * [`format`] — the result-file envelope (format v1), written by the collector.
//! * [`fitness`] — whether the machine was fit to measure on: findings from
//!   a run's environment samples.
//! * [`intake`] — which files of a folder are read, and as what, for the
//!   command line and the page alike.
//! * [`limits`] — how big one input may be (bytes, numbers, other values,
//!   series), shared by the command line and the page.
//! * [`read`] — parsing and validation of untrusted bytes into documents,
//!   with errors that name the JSON path and what was expected.
//! * [`suites`] — one folder per suite: its data types, checks and report.
//! * [`options`] — the analysis parameters a user can turn.
//! * [`stats`] — the statistics (Welford, Hyndman–Fan quantiles, summaries, ECDF).
//! * [`report`] — what a file analyses to: the model both front ends render.
//!
//! `unsafe` is denied but in `stats::lanes` (vector loads and stores, and
//! reads at indices its draws keep in bounds).

#![deny(unsafe_code)]

pub mod error;
pub mod fitness;
pub mod format;
pub mod import;
pub mod intake;
pub mod limits;
pub mod options;
pub mod read;
pub mod report;
pub mod stats;
pub mod suites;
pub mod units;
