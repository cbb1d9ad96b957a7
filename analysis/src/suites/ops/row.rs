//! One operation's row of the cost table: its costs by each clock. The
//! report builds it (`report.rs`) and the published figures are matched on
//! it (`published.rs`); it sits apart so that neither imports the other.

use crate::stats::bootstrap::BootstrapCi;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct OpRow {
    pub name: String,
    pub group: String,
    pub form: String,
    pub implementation: String,
    pub instruction: Option<String>,
    pub available: bool,
    pub unavailable_reason: Option<String>,
    /// ns per operation by the portable clock: median over repetitions of
    /// (t(2n) − t(n)) / n, with a bootstrap CI.
    pub portable_ns: Option<BootstrapCi>,
    /// Counter ticks per operation, likewise.
    pub counter_ticks: Option<BootstrapCi>,
    /// `counter_ticks` in ns (× 10⁹ / counter Hz).
    pub counter_ns: Option<BootstrapCi>,
    /// `counter_ticks` in core cycles (÷ ticks per cycle).
    pub core_cycles: Option<BootstrapCi>,
}
