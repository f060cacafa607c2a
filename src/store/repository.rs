//! The repository: the one transaction API through which the pipeline reads
//! and writes the state database. Each dialect implements it; the pipeline is
//! generic over [`Store`] and never sees SQL.

use std::collections::HashMap;

use chrono::{NaiveDate, NaiveDateTime};
use serde::Serialize;

use super::StoreError;
use super::journal::JournalOps;
use super::lease::LeaseOps;
use super::outbox::OutboxOps;
use super::read::ReadOps;
use super::version_floor::VersionFloorOps;
use crate::state::{FlightState, StateDocument, StoredFlight};

/// A state database: hands out transactions.
pub trait Store: Send + Sync + 'static {
    /// A transaction in progress.
    type Tx<'c>: StateTx + LeaseOps + JournalOps + OutboxOps + VersionFloorOps + ReadOps
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

/// A detail table of a flight (DESIGN §3): what a partial write replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DetailTable {
    /// `FLIGHT_GATE` (GTDT).
    Gate,
    /// `FLIGHT_COUNTER` (CKDT).
    Counter,
    /// `FLIGHT_CAROUSEL` (CLDT).
    Carousel,
    /// `FLIGHT_STAND` (PSDT + PSHT/TIPT).
    Stand,
    /// `FLIGHT_CHUTE` (CHDT).
    Chute,
    /// `FLIGHT_DELAY` (DELY).
    Delay,
    /// `FLIGHT_BRIDGE` (ABTM).
    Bridge,
    /// `FLIGHT_CHOCK` (CHOT).
    Chock,
    /// `FLIGHT_ROUTE_POINT` (ROUT and ERUT together).
    RoutePoint,
}

impl DetailTable {
    /// Every detail table.
    pub const ALL: [DetailTable; 9] = [
        DetailTable::Gate,
        DetailTable::Counter,
        DetailTable::Carousel,
        DetailTable::Stand,
        DetailTable::Chute,
        DetailTable::Delay,
        DetailTable::Bridge,
        DetailTable::Chock,
        DetailTable::RoutePoint,
    ];

    /// The tables whose rows differ between two states of one flight:
    /// exactly what a write of `new` over `old` must replace.
    pub fn changed(old: &FlightState, new: &FlightState) -> Vec<DetailTable> {
        let differs = |table: &DetailTable| match table {
            DetailTable::Gate => old.gates != new.gates,
            DetailTable::Counter => old.counters != new.counters,
            DetailTable::Carousel => old.carousels != new.carousels,
            DetailTable::Stand => old.stands != new.stands,
            DetailTable::Chute => old.chutes != new.chutes,
            DetailTable::Delay => old.delays != new.delays,
            DetailTable::Bridge => old.bridges != new.bridges,
            DetailTable::Chock => old.chocks != new.chocks,
            DetailTable::RoutePoint => {
                old.route != new.route || old.entire_route != new.entire_route
            }
        };
        DetailTable::ALL.into_iter().filter(differs).collect()
    }
}

/// One flight to write with the detail tables to replace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlightChange {
    /// The flight's new state and bookkeeping (the main row is always
    /// written: it carries the version).
    pub flight: StoredFlight,
    /// The detail tables to replace; the others keep their rows.
    pub tables: Vec<DetailTable>,
}

/// What a snapshot needs to know of a stored flight to tell whether it
/// changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlightDigest {
    /// `STATE_DIGEST`: the digest of the state as last written; `None` when
    /// unknown (the flight is then treated as changed).
    pub digest: Option<String>,
    /// The stored operation day.
    pub operation_day: Option<NaiveDate>,
    /// The stored state version.
    pub state_version: i64,
}

/// The pump lease as read under `PIPELINE_LOCK`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineLease {
    /// Who holds the lease, if anyone.
    pub holder: Option<String>,
    /// Bumped on every takeover; a pump may commit only with the epoch it
    /// acquired.
    pub epoch: i64,
    /// When the lease runs out unless renewed (UTC).
    pub expires_at: Option<NaiveDateTime>,
}

/// A day's snapshot ledger (`SCHD_GEN`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnapshotLedger {
    /// Bumped by one per applied snapshot of the day.
    pub version: i64,
    /// The message of the latest applied snapshot.
    pub last_message_id: i64,
}

/// What a state event announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// The flight's state changed (or it was created).
    State,
    /// The flight was deleted.
    Tombstone,
}

impl EventKind {
    /// The `EVENT_KIND` value.
    pub fn code(self) -> &'static str {
        match self {
            EventKind::State => "STATE",
            EventKind::Tombstone => "TOMBSTONE",
        }
    }
}

/// One `KAFKA_SCHD` row to register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateEvent {
    /// The message that caused it.
    pub message_id: i64,
    /// The flight.
    pub flid: i64,
    /// The version the event announces (a tombstone carries the version
    /// after the flight's last one, so that it sorts after it).
    pub state_version: i64,
    /// State or tombstone.
    pub kind: EventKind,
}

/// One `KAFKA_MSG` row to register.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChangeNotice {
    /// The message that caused it.
    pub message_id: i64,
    /// The flight, if the notice is about one.
    pub flid: Option<i64>,
    /// `CREATED`, `UPDATED`, `DELETED`, `SNAPSHOT`, …
    pub change_kind: &'static str,
    /// What changed, as JSON.
    pub payload: String,
}

/// The processing status of a message (`PROC_STATE.STATUS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum ProcStatus {
    /// Applied (or recognised as already applied).
    Succeeded,
    /// Failed; will be tried again.
    Failed,
    /// Will never be applied; released from the head of the queue.
    Dead,
}

impl ProcStatus {
    /// The `STATUS` value.
    pub fn code(self) -> &'static str {
        match self {
            ProcStatus::Succeeded => "SUCCEEDED",
            ProcStatus::Failed => "FAILED",
            ProcStatus::Dead => "DEAD",
        }
    }

    /// Reads a `STATUS` value.
    pub fn from_code(code: &str) -> Option<ProcStatus> {
        match code {
            "SUCCEEDED" => Some(ProcStatus::Succeeded),
            "FAILED" => Some(ProcStatus::Failed),
            "DEAD" => Some(ProcStatus::Dead),
            _ => None,
        }
    }
}

/// What `PROC_STATE` holds about a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcRecord {
    /// Digest of the message id and body.
    pub identity_key: String,
    /// The latest outcome.
    pub status: ProcStatus,
    /// Why it failed, by kind.
    pub error_kind: Option<String>,
    /// Why it failed, for people.
    pub error_text: Option<String>,
    /// Attempts so far.
    pub attempts: i32,
}

/// The outcome of one attempt at a message, to record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome<'a> {
    /// The message.
    pub message_id: i64,
    /// Digest of the message id and body.
    pub identity_key: &'a str,
    /// The result.
    pub status: ProcStatus,
    /// Why it failed, by kind.
    pub error_kind: Option<&'a str>,
    /// Why it failed, for people.
    pub error_text: Option<&'a str>,
    /// META TYPE, if the message could be read that far.
    pub msg_type: Option<&'a str>,
    /// META STYP, likewise.
    pub msg_subtype: Option<&'a str>,
    /// When to try again (FAILED only).
    pub next_attempt_at: Option<NaiveDateTime>,
    /// Now (UTC).
    pub now: NaiveDateTime,
}
