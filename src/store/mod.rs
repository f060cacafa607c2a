//! The state database: the repository the pipeline writes flight state through, and its
//! dialects.
//!
//! Owns everything that touches the state database (PostgreSQL and Oracle 11g); owns
//! nothing of the protocol or the business rules. Callers see one error type, [`StoreError`],
//! and decide what to do from its [`FailureKind`] alone, never from the driver's text.

use std::error::Error as StdError;

use crate::FailureKind;

mod action;
mod browse;
mod cleanup;
mod dead;
mod detail;
mod evidence;
mod flight_rows;
mod full_read;
mod journal;
mod lease;
mod nonempty;
#[cfg(feature = "oracle")]
pub mod oracle;
mod outbox;
#[cfg(feature = "postgres")]
pub mod pg;
mod pool_log;
mod preflight;
mod read;
mod records;
mod replay;
mod repository;
mod republish;
mod request;
mod resync;
mod tail;
mod timeouts;
mod version_floor;

pub use action::{ACTION_BY_CHARS, ACTION_DETAIL_CHARS, ActionOps, ActionRecord, NewAction};
pub use browse::{BrowseOps, FlightMatch, ProcMinute};
pub use cleanup::{CleanupOps, RetiredFlight, StaleFlight};
pub use dead::{
    BYPASSED, DeadFilter, DeadOps, MASS_DELETE, MessageRecord, REJECTED, RELEASED, REQUEUED,
};
pub use evidence::{CONFLICT, DayOrder, EvidenceOps, FailedHead, INFRA, SenderSeqn};
pub use full_read::{Selection, read_flights, read_states};
pub use journal::{CallStatus, Grant, JournalOps, NewCall, StoredCall};
pub use lease::LeaseOps;
pub use outbox::{
    Backoff, ClaimedNotice, ClaimedStateEvent, FailedRow, Lane, OutboxOps, PendingCounts, Receipt,
};
pub use pool_log::PoolCount;
pub(crate) use pool_log::PoolErrorLog;
pub use preflight::{DatabaseFacts, SchemaLevel, SchemaMismatch};
pub(crate) use read::lowest;
pub use read::{HeldDays, OutboxBacklog, ProcCount, ProcEntry, ReadOps, SnapshotDay, Watermark};
pub use records::{
    ChangeNotice, DetailTable, DetailTables, EventKind, FlightDigest, FlightWrite, Outcome,
    PipelineLease, ProcRecord, ProcStatus, SnapshotLedger, StateEvent,
};
pub use replay::{ReplayOps, ReplayRecord};
pub use repository::{FlightRows, StateTx, Store};
pub use republish::RepublishOps;
pub use request::{NewRequest, RequestEntry, RequestOps, RequestStatus};
pub use resync::{FlightVersion, RaisedVersion, ResyncOps};
pub use tail::TailOps;
pub use timeouts::Timeouts;
pub use version_floor::first_version;

/// A state-database operation failed.
///
/// Happens whenever a statement, a connection or a migration fails. What to do depends only
/// on [`StoreError::kind`]: retry when [`FailureKind::retryable`] says so, otherwise treat
/// the work as failed; the source chain (print it with `{:#}`) is for the operator.
#[derive(Debug)]
pub struct StoreError {
    kind: FailureKind,
    op: &'static str,
    source: Box<dyn StdError + Send + Sync + 'static>,
}

impl std::fmt::Display for StoreError {
    /// `{}` is this error's own line; `{:#}` adds every cause, `: `-separated, as anyhow
    /// prints a chain: a log line written with `{:#}` then says why (a timeout, a refused
    /// connection), not only what failed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if f.alternate() {
            return write!(f, "{}", crate::failure::Causes(self));
        }
        write!(f, "state database: {} failed", self.op)
    }
}

impl StdError for StoreError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        Some(&*self.source)
    }
}

impl StoreError {
    /// Wraps a driver error; `op` names what was being done (a statement file's name or a
    /// short verb phrase), because the driver's own text rarely says.
    pub(crate) fn new(
        kind: FailureKind,
        op: &'static str,
        source: impl Into<Box<dyn StdError + Send + Sync + 'static>>,
    ) -> Self {
        StoreError {
            kind,
            op,
            source: source.into(),
        }
    }

    /// What went wrong, as far as the caller must know to decide between retry, dead letter
    /// and giving up.
    pub fn kind(&self) -> FailureKind {
        self.kind
    }

    /// Which operation failed (for logs and metrics labels).
    pub fn op(&self) -> &'static str {
        self.op
    }
}

#[cfg(test)]
mod tests {
    use super::detail::{self, Detail, with_detail_table};
    use super::*;

    /// The statements a detail table declares, looked up among `all`.
    struct Lookup(&'static [(&'static str, &'static str)]);
    impl Lookup {
        fn visit<D: Detail>(&self) -> Vec<Result<&'static str, StoreError>> {
            [D::SELECT, D::DELETE, D::INSERT]
                .map(|name| detail::statement(self.0, name))
                .into()
        }
    }

    #[test]
    fn every_statement_the_detail_tables_declare_has_its_file_in_each_dialect() {
        let mut dialects = Vec::new();
        #[cfg(feature = "postgres")]
        dialects.push(pg::statements());
        #[cfg(feature = "oracle")]
        dialects.push(oracle::statements());
        for all in dialects {
            for table in DetailTable::ALL {
                for found in with_detail_table!(table, Lookup(all)) {
                    assert!(found.is_ok(), "{table:?}: {found:?}");
                }
            }
            assert!(detail::statement(all, "select_no_such_table").is_err());
        }
    }
}
