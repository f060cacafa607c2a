//! Reads for people and other programs: the page of FLIDs that whole
//! flight states are read by (in `full_read`, one read-only snapshot, a
//! page at a time), and the facts about the pipeline itself (lease,
//! processing outcomes, outbox, snapshot days) that the status page, the
//! metrics and `flightstate status` show.
//!
//! Nothing here writes: a read transaction starts with
//! [`ReadOps::set_read_only_snapshot`], which the database enforces.

use chrono::{NaiveDate, NaiveDateTime};
use serde::Serialize;

use super::StoreError;
use super::records::{PipelineLease, ProcStatus};

/// The read-only operations of a transaction. Method names are the names of
/// the SQL files that run them.
pub trait ReadOps {
    /// Makes the transaction one read-only snapshot (PostgreSQL
    /// `REPEATABLE READ, READ ONLY`; Oracle `READ ONLY`). Must come first.
    fn set_read_only_snapshot(&mut self) -> Result<(), StoreError>;

    /// Lets this transaction wait `limit` (`None`: without limit) for its
    /// client between two statements before the server ends it, instead of
    /// the session's limit (the pump lease, `docs/pump.md`, "A frozen
    /// holder"). Only for a transaction that waits for another system on
    /// purpose and holds nothing a takeover needs. Oracle has no such
    /// limit per transaction: a no-op there.
    fn set_idle_limit(&mut self, limit: Option<std::time::Duration>) -> Result<(), StoreError>;

    /// At most `limit` stored FLIDs above `after`, ascending; of operation
    /// day `day` only when it is given.
    fn flid_page(
        &mut self,
        day: Option<NaiveDate>,
        after: i64,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError>;

    /// The pump lease, read without taking `PIPELINE_LOCK`.
    fn pipeline_lease(&mut self) -> Result<PipelineLease, StoreError>;

    /// How many messages `PROC_STATE` holds per status, error kind and
    /// message kind.
    fn proc_counts(&mut self) -> Result<Vec<ProcCount>, StoreError>;

    /// The latest `limit` messages of `status`, newest first.
    fn latest_by_status(
        &mut self,
        status: ProcStatus,
        limit: i64,
    ) -> Result<Vec<ProcEntry>, StoreError>;

    /// What the dispatcher has still to send.
    fn outbox_backlog(&mut self) -> Result<OutboxBacklog, StoreError>;

    /// The latest `limit` operation days with a snapshot, newest first.
    fn snapshot_days(&mut self, limit: i64) -> Result<Vec<SnapshotDay>, StoreError>;

    /// Which operation days the current state holds.
    fn select_held_days(&mut self) -> Result<HeldDays, StoreError>;

    /// How far what the pipeline applied has reached the topics (the
    /// heartbeat's watermark).
    fn select_watermark(&mut self) -> Result<Watermark, StoreError>;
}

/// How far what the pipeline applied has reached the topics: the last
/// message the state database holds as final, and the lowest message whose
/// outbox rows are still to send. Read in the same snapshot as the outbox's
/// backlog, so the two agree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Watermark {
    /// The highest message id `PROC_STATE` holds as SUCCEEDED or DEAD.
    pub last_message_id: Option<i64>,
    /// When that message got its status (UTC).
    pub last_applied_at: Option<NaiveDateTime>,
    /// The lowest message id of a pending row of either outbox.
    pub lowest_pending_message_id: Option<i64>,
}

/// The lower of two outboxes' lowest pending message ids.
pub(crate) fn lowest(state: Option<i64>, change: Option<i64>) -> Option<i64> {
    state.into_iter().chain(change).min()
}

impl Watermark {
    /// The message up to which every change is on the topics: the last
    /// final message when nothing is pending, else the message just below
    /// the lowest pending row's (a row leaves the outbox only once the
    /// broker confirmed it).
    pub fn published_through(&self) -> Option<i64> {
        match (self.last_message_id, self.lowest_pending_message_id) {
            (last, None) => last,
            (Some(last), Some(pending)) => Some(last.min(pending - 1)),
            (None, Some(pending)) => Some(pending - 1),
        }
    }
}

/// Which operation days the current state holds (`GET /all/flights`, the
/// status): with `cleanup.history_days` a window that moves with the days,
/// without it every day since the first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HeldDays {
    /// The first operation day a flight has; `None` when none has one.
    pub first_day: Option<NaiveDate>,
    /// The last one.
    pub last_day: Option<NaiveDate>,
    /// Flights without an operation day yet (created by a flight event or
    /// an ad-hoc flight).
    pub without_day: i64,
}

impl std::fmt::Display for HeldDays {
    /// `2026-11-05..2026-12-06`, or `none`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.first_day, self.last_day) {
            (Some(first), Some(last)) => write!(f, "{first}..{last}"),
            _ => f.write_str("none"),
        }
    }
}

/// One group of [`ReadOps::proc_counts`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProcCount {
    /// The status.
    pub status: ProcStatus,
    /// Why it failed, by kind (`UNSUPPORTED`, `INFRA`, …).
    pub error_kind: Option<String>,
    /// META TYPE, when the message could be read that far.
    pub msg_type: Option<String>,
    /// META STYP, likewise.
    pub msg_subtype: Option<String>,
    /// How many messages.
    pub messages: i64,
}

/// One message of [`ReadOps::latest_by_status`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProcEntry {
    /// The message id (`CMINMSGS_ID`).
    pub message_id: i64,
    /// Why it failed, by kind.
    pub error_kind: Option<String>,
    /// Why it failed, for people.
    pub error_text: Option<String>,
    /// META TYPE.
    pub msg_type: Option<String>,
    /// META STYP.
    pub msg_subtype: Option<String>,
    /// Attempts so far.
    pub attempts: i32,
    /// When the outcome was recorded (UTC).
    pub updated_at: NaiveDateTime,
}

/// The outbox rows still to send.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OutboxBacklog {
    /// `KAFKA_SCHD` rows (state topic).
    pub state_events: i64,
    /// When the oldest of them was registered (UTC).
    pub state_oldest: Option<NaiveDateTime>,
    /// `KAFKA_MSG` rows (change topic).
    pub change_notices: i64,
    /// When the oldest of them was registered (UTC).
    pub change_oldest: Option<NaiveDateTime>,
}

/// One operation day of [`ReadOps::snapshot_days`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SnapshotDay {
    /// The operation day.
    pub operation_day: NaiveDate,
    /// Its snapshot version (`SCHD_GEN.VERSION`).
    pub version: i64,
    /// The message of its latest snapshot.
    pub last_message_id: i64,
    /// When that snapshot was applied (UTC).
    pub updated_at: NaiveDateTime,
    /// Flights its current snapshot list names.
    pub listed: i64,
    /// Flights stored with this operation day now.
    pub flights: i64,
}
