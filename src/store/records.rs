//! The values a state transaction reads and writes: leases, ledgers,
//! events, notices and processing outcomes. The transaction traits, the
//! outbox and the reads all speak of them, so they live apart from every
//! trait that does.

use chrono::{NaiveDate, NaiveDateTime};
use serde::Serialize;

use crate::state::StoredFlight;

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
}

/// One flight to write: its state with its digest, and the detail tables to
/// replace. The digest travels with the state it was made from, so that a
/// write can never pair a flight with another's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlightWrite {
    /// The flight's new state and bookkeeping (the main row is always
    /// written: it carries the version).
    pub flight: StoredFlight,
    /// `STATE_DIGEST`: the [`digest`](crate::state::FlightState::digest) of
    /// `flight.state`.
    pub digest: String,
    /// The detail tables to replace; the others keep their rows. A flight
    /// with no row yet gets every table's rows.
    pub tables: DetailTables,
}

impl FlightWrite {
    /// The write of `flight`'s whole state (every detail table), with its
    /// `digest`.
    pub fn whole(flight: StoredFlight, digest: String) -> FlightWrite {
        FlightWrite {
            flight,
            digest,
            tables: DetailTables::All,
        }
    }
}

/// Which detail tables a write replaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DetailTables {
    /// Every one (a snapshot writes whole flights).
    All,
    /// Only these (a flight event replaces what it changed).
    Only(Vec<DetailTable>),
}

impl DetailTables {
    /// Whether `table` is replaced.
    pub fn contains(&self, table: DetailTable) -> bool {
        match self {
            DetailTables::All => true,
            DetailTables::Only(tables) => tables.contains(&table),
        }
    }
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

impl PipelineLease {
    /// Whether a pump holds the lease at `now` (UTC): someone took it and
    /// it has not run out.
    pub fn held_at(&self, now: NaiveDateTime) -> bool {
        self.holder.is_some() && self.expires_at.is_some_and(|expires| expires > now)
    }
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
    /// A snapshot the mass-delete guard stopped: not applied, not written
    /// back; the head of the queue waits until an operator releases it
    /// (applied as it is) or rejects it (DEAD).
    Held,
}

impl ProcStatus {
    /// The `STATUS` value.
    pub fn code(self) -> &'static str {
        match self {
            ProcStatus::Succeeded => "SUCCEEDED",
            ProcStatus::Failed => "FAILED",
            ProcStatus::Dead => "DEAD",
            ProcStatus::Held => "HELD",
        }
    }

    /// Reads a `STATUS` value.
    pub fn from_code(code: &str) -> Option<ProcStatus> {
        match code {
            "SUCCEEDED" => Some(ProcStatus::Succeeded),
            "FAILED" => Some(ProcStatus::Failed),
            "DEAD" => Some(ProcStatus::Dead),
            "HELD" => Some(ProcStatus::Held),
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
    /// When the mailbox received the message, on flightstate's clock
    /// (UTC): recorded by the first attempt that knows it, kept after.
    /// `None` for a tool's attempt.
    pub received_at: Option<NaiveDateTime>,
}
