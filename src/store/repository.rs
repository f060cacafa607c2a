//! The repository: the one transaction API through which the pipeline reads
//! and writes the state database. Each dialect implements it; the pipeline is
//! generic over [`Store`] and never sees SQL.

use std::collections::HashMap;

use chrono::{NaiveDate, NaiveDateTime};

use super::StoreError;
use super::journal::JournalOps;
use super::lease::LeaseOps;
use super::outbox::OutboxOps;
use super::read::ReadOps;
use super::records::{
    ChangeNotice, FlightChange, FlightDigest, Outcome, PipelineLease, ProcRecord, SnapshotLedger,
    StateEvent,
};
use super::request::RequestOps;
use super::version_floor::VersionFloorOps;
use crate::state::{StateDocument, StoredFlight};

/// A state database: hands out transactions.
pub trait Store: Send + Sync + 'static {
    /// A transaction in progress.
    type Tx<'c>: StateTx
        + LeaseOps
        + JournalOps
        + OutboxOps
        + VersionFloorOps
        + ReadOps
        + RequestOps
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
}

/// The operations of a state transaction. Method names are the names of the
/// SQL files that run them.
pub trait StateTx {
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

    /// The digest, day and version of the stored flights among `flids`:
    /// enough to recognise unchanged flights without reading them whole.
    ///
    /// The default reads the flights whole and digests them; a dialect
    /// overrides it with a narrow read of the stored `STATE_DIGEST`.
    fn flight_digests(&mut self, flids: &[i64]) -> Result<HashMap<i64, FlightDigest>, StoreError> {
        Ok(self
            .load_flights(flids)?
            .into_iter()
            .map(|(flid, flight)| {
                let digest = FlightDigest {
                    digest: Some(flight.state.digest()),
                    operation_day: flight.operation_day,
                    state_version: flight.state_version,
                };
                (flid, digest)
            })
            .collect())
    }

    /// The state documents of the stored flights among `flights` (absent
    /// FLIDs are simply missing): what the dispatcher publishes.
    ///
    /// The default reads the flights whole and builds their documents; a
    /// dialect that stores `STATE_DOCUMENT` with the main row overrides it
    /// with a read of that one column.
    fn load_state_documents(
        &mut self,
        flids: &[i64],
    ) -> Result<HashMap<i64, StateDocument>, StoreError> {
        Ok(self
            .load_flights(flids)?
            .into_iter()
            .map(|(flid, flight)| (flid, StateDocument::of(&flight)))
            .collect())
    }

    /// Writes the full state of each flight: main row and every collection
    /// (group delete-insert), set-based over all of them.
    fn write_flights(&mut self, flights: &[StoredFlight]) -> Result<(), StoreError>;

    /// [`write_flights`](StateTx::write_flights) for a caller that already
    /// has each flight's state digest: `digests[i]` is
    /// `flights[i].state.digest()`, so that a dialect storing `STATE_DIGEST`
    /// need not compute it again. The default ignores them.
    fn write_flights_digested(
        &mut self,
        flights: &[StoredFlight],
        digests: &[String],
    ) -> Result<(), StoreError> {
        let _ = digests;
        self.write_flights(flights)
    }

    /// [`write_flights_digested`](StateTx::write_flights_digested) for
    /// flights that have no row yet: the caller read them absent in this
    /// transaction, under `PIPELINE_LOCK`. A dialect may insert them without
    /// the upsert's matching (a day's first snapshot is all new flights);
    /// a flight that does exist is then an error, never overwritten. The
    /// default writes them like any others.
    fn insert_flights_digested(
        &mut self,
        flights: &[StoredFlight],
        digests: &[String],
    ) -> Result<(), StoreError> {
        self.write_flights_digested(flights, digests)
    }

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

    /// Writes flights that a flight event or an ad-hoc flight changed: the
    /// main row of each, and of each only the detail tables its change
    /// names (group delete-insert, one statement pair per table over every
    /// flight that names it). Tables a change does not name are not touched.
    fn write_flight_changes(&mut self, changes: &[FlightChange]) -> Result<(), StoreError>;

    /// Deletes the flights `flids` (FLOP FDEL, SCHD DEL) with every detail
    /// row, whatever their operation day. Returns each deleted FLID with its
    /// last state version; FLIDs not stored are skipped.
    fn delete_flights(&mut self, flids: &[i64]) -> Result<Vec<(i64, i64)>, StoreError>;
}
