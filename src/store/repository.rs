//! The repository: the one transaction API through which the pipeline reads
//! and writes the state database. Each dialect implements it; the pipeline is
//! generic over [`Store`] and never sees SQL.

use std::collections::HashMap;

use chrono::{NaiveDate, NaiveDateTime};

use super::StoreError;
use super::action::ActionOps;
use super::browse::BrowseOps;
use super::cleanup::CleanupOps;
use super::dead::DeadOps;
use super::evidence::EvidenceOps;
use super::journal::JournalOps;
use super::lease::LeaseOps;
use super::outbox::OutboxOps;
use super::pool_log::PoolCount;
use super::read::ReadOps;
use super::records::{
    ChangeNotice, FlightDigest, FlightWrite, Outcome, PipelineLease, ProcRecord, SnapshotLedger,
    StateEvent,
};
use super::replay::ReplayOps;
use super::republish::RepublishOps;
use super::request::RequestOps;
use super::resync::ResyncOps;
use super::tail::TailOps;
use crate::state::{StateDocument, StoredFlight};

/// A state database: hands out transactions.
pub trait Store: Send + Sync + 'static {
    /// A transaction in progress.
    type Tx<'c>: StateTx
        + LeaseOps
        + JournalOps
        + OutboxOps
        + ReadOps
        + RequestOps
        + DeadOps
        + CleanupOps
        + ReplayOps
        + ResyncOps
        + RepublishOps
        + BrowseOps
        + TailOps
        + ActionOps
    where
        Self: 'c;

    /// Runs `work` in one transaction: commits when it returns `Ok`, rolls
    /// everything back when it returns `Err` (or panics).
    ///
    /// # Errors
    ///
    /// The error of `work`, or a [`StoreError`] (converted into `E`) when no
    /// connection can be had or the commit fails.
    fn transaction<T, E, F>(&self, work: F) -> Result<T, E>
    where
        E: From<StoreError>,
        F: FnOnce(&mut Self::Tx<'_>) -> Result<T, E>;

    /// How many connections its pool holds, for `/metrics`; `None` for a
    /// store that has no pool of its own (a wrapper around another).
    fn pool_count(&self) -> Option<PoolCount> {
        None
    }
}

/// The operations of a state transaction. Method names are the names of the
/// SQL files that run them.
///
/// Each dialect implements every operation: there is no fallback that one
/// dialect would override and another inherit, so a contract written here
/// holds in both. The two provided methods, [`proc_state`](StateTx::proc_state)
/// and [`record_outcome`](StateTx::record_outcome), are the one-message
/// shorthands of [`proc_states`](StateTx::proc_states) and
/// [`record_outcomes`](StateTx::record_outcomes), not fallbacks.
///
/// Every state transaction can count evidence ([`EvidenceOps`]): it is
/// written with the message it counts, whatever rule applies it.
pub trait StateTx: EvidenceOps {
    /// Takes `PIPELINE_LOCK` until the end of the transaction and reads the
    /// lease, so that state transactions are serialised and a pump can check
    /// its fencing epoch under the lock.
    fn lock_pipeline(&mut self) -> Result<PipelineLease, StoreError>;

    /// The snapshot ledger of `day`, if a snapshot of that day was applied.
    fn snapshot_ledger(&mut self, day: NaiveDate) -> Result<Option<SnapshotLedger>, StoreError>;

    /// The flight list of `day`'s current snapshot, ascending.
    fn snapshot_list(&mut self, day: NaiveDate) -> Result<Vec<i64>, StoreError>;

    /// Replaces `day`'s snapshot list by `flids`.
    fn replace_snapshot_list(&mut self, day: NaiveDate, flids: &[i64]) -> Result<(), StoreError>;

    /// Records that message `message_id` is `day`'s latest snapshot: opens
    /// the ledger at version 1 (`expected` = `None`) or bumps it from
    /// `expected`. Returns the new version.
    ///
    /// # Errors
    ///
    /// A [`StoreError`] of kind `Conflict` when the ledger is not at
    /// `expected` any more (another snapshot of the day committed).
    fn bump_snapshot_version(
        &mut self,
        day: NaiveDate,
        expected: Option<i64>,
        message_id: i64,
        now: NaiveDateTime,
    ) -> Result<i64, StoreError>;

    /// The stored flights among `flids` (absent FLIDs are simply missing).
    fn load_flights(&mut self, flids: &[i64]) -> Result<HashMap<i64, StoredFlight>, StoreError>;

    /// The digest, day and version of the stored flights among `flids`
    /// (absent FLIDs are simply missing), from the stored `STATE_DIGEST`:
    /// enough to recognise unchanged flights without reading them whole.
    fn flight_digests(&mut self, flids: &[i64]) -> Result<HashMap<i64, FlightDigest>, StoreError>;

    /// The stored state documents (`STATE_DOCUMENT`) of the flights among
    /// `flids` (absent FLIDs are simply missing): what the dispatcher
    /// publishes. A row written before documents were stored has none; its
    /// document is built from the tables.
    fn load_state_documents(
        &mut self,
        flids: &[i64],
    ) -> Result<HashMap<i64, StateDocument>, StoreError>;

    /// Writes flights, set-based over all of them: the main row of each
    /// (with its digest as `STATE_DIGEST`, and its state document), and of
    /// each the detail tables its write names (group delete-insert, one
    /// statement pair per table over every flight that names it; tables a
    /// write does not name keep their rows). `rows` says whether the flights
    /// may already have rows: new flights get every table's rows and need no
    /// delete.
    ///
    /// # Errors
    ///
    /// With [`FlightRows::New`], a [`StoreError`] of kind `Duplicate` when
    /// one of the flights does have a row: it is never overwritten.
    fn write_flights(
        &mut self,
        flights: &[FlightWrite],
        rows: FlightRows,
    ) -> Result<(), StoreError>;

    /// The set-difference delete of a snapshot of `day` whose new list is
    /// `new_list`: deletes the flights of the old list that the new one
    /// lacks and whose operation day is still `day`, with their collections.
    /// Returns each deleted FLID with its last state version.
    fn delete_flights_of_day(
        &mut self,
        day: NaiveDate,
        new_list: &[i64],
    ) -> Result<Vec<(i64, i64)>, StoreError>;

    /// Registers state events in the outbox (of one message or of a group
    /// the pump commits together).
    fn append_state_events(
        &mut self,
        events: &[StateEvent],
        now: NaiveDateTime,
    ) -> Result<(), StoreError>;

    /// Registers change notifications in the outbox.
    fn append_change_notices(
        &mut self,
        notices: &[ChangeNotice],
        now: NaiveDateTime,
    ) -> Result<(), StoreError>;

    /// What is recorded about each of `message_ids` that has a record.
    fn proc_states(&mut self, message_ids: &[i64]) -> Result<HashMap<i64, ProcRecord>, StoreError>;

    /// What is recorded about message `message_id`.
    fn proc_state(&mut self, message_id: i64) -> Result<Option<ProcRecord>, StoreError> {
        Ok(self.proc_states(&[message_id])?.remove(&message_id))
    }

    /// Records the outcome of an attempt at each of many messages
    /// (distinct ids).
    fn record_outcomes(&mut self, outcomes: &[Outcome<'_>]) -> Result<(), StoreError>;

    /// Records the outcome of an attempt at a message.
    fn record_outcome(&mut self, outcome: &Outcome<'_>) -> Result<(), StoreError> {
        self.record_outcomes(std::slice::from_ref(outcome))
    }

    /// Deletes the flights `flids` (FLOP FDEL, SCHD DEL) with every detail
    /// row, whatever their operation day. Returns each deleted FLID with its
    /// last state version; FLIDs not stored are skipped.
    fn delete_flights(&mut self, flids: &[i64]) -> Result<Vec<(i64, i64)>, StoreError>;

    /// Records `(FLID, tombstone version)` of flights deleted at `now`
    /// (`FLIGHT_VERSION_FLOOR`, see [`first_version`](super::first_version));
    /// an existing floor only ever rises.
    fn upsert_version_floors(
        &mut self,
        floors: &[(i64, i64)],
        now: NaiveDateTime,
    ) -> Result<(), StoreError>;

    /// The floors of `flids`: the tombstone version of each flight deleted
    /// before (FLIDs never deleted are absent).
    fn select_version_floors(&mut self, flids: &[i64]) -> Result<HashMap<i64, i64>, StoreError>;
}

/// Whether the flights of a full write may already have rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlightRows {
    /// The caller read the flights absent in this transaction, under
    /// `PIPELINE_LOCK` (a day's first snapshot is all new flights): they are
    /// inserted, without an upsert's matching, and a flight that does have a
    /// row is an error, never overwritten.
    New,
    /// The flights may have rows: each is upserted and its detail rows
    /// replaced.
    MayExist,
}
