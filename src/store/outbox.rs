//! The Kafka dispatcher's operations on the state database: claiming the
//! pending rows of the two outboxes (`KAFKA_SCHD`, `KAFKA_MSG`), and
//! recording each row's outcome — sent, or kept pending with its error and
//! the time of its next try (back-off computed in SQL).
//!
//! Claims lock rows `FOR UPDATE SKIP LOCKED` until the transaction ends: the
//! dispatcher claims, produces, waits for the delivery reports and records
//! the outcomes in one transaction (STYLE §4.4), so a crash anywhere before
//! the commit leaves every row pending, to be sent again.

use chrono::NaiveDateTime;

use super::{EventKind, StoreError};

/// A claimed `KAFKA_SCHD` row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimedStateEvent {
    /// The row's id.
    pub event_id: i64,
    /// The flight.
    pub flid: i64,
    /// The version the row announces (a tombstone's is the flight's last
    /// version + 1).
    pub state_version: i64,
    /// State or tombstone.
    pub kind: EventKind,
    /// When the row was registered (UTC): for a tombstone, when the flight
    /// was deleted.
    pub created_at: NaiveDateTime,
    /// Tries so far.
    pub attempts: i32,
}

/// A claimed `KAFKA_MSG` row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimedNotice {
    /// The row's id (the consumer's dedupe key).
    pub event_id: i64,
    /// The flight, if the notice is about one.
    pub flid: Option<i64>,
    /// `CREATED`, `UPDATED`, `DELETED`, `SNAPSHOT`, …
    pub change_kind: String,
    /// The notice as JSON text, as the pipeline registered it.
    pub payload: String,
    /// The message that caused the change.
    pub message_id: i64,
    /// When the notice was registered (UTC).
    pub created_at: NaiveDateTime,
    /// Tries so far.
    pub attempts: i32,
}

/// A claimed row whose delivery failed or is uncertain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedRow {
    /// The row's id.
    pub event_id: i64,
    /// Why, for `LAST_ERROR` (cut to 2000 characters by the statement).
    pub error: String,
}

/// The back-off of a row that failed: `initial · 2^attempts`, at most `max`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    /// Wait after the first failure, in seconds.
    pub initial_secs: f64,
    /// Longest wait, in seconds.
    pub max_secs: f64,
}

/// The share of the outbox one dispatcher lane claims: the rows of the
/// flights whose FLID modulo `count` is `number` (a notice without a flight
/// counts as FLID 0). Every row of a flight falls in the same lane, so a
/// flight's messages leave through one producer, in order, whatever the
/// number of lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lane {
    /// This lane, `0..count`.
    pub number: i64,
    /// How many lanes share the outbox (at least 1).
    pub count: i64,
}

impl Lane {
    /// The whole outbox.
    pub const ALL: Lane = Lane {
        number: 0,
        count: 1,
    };
}

/// Rows still to send, per outbox.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PendingCounts {
    /// Pending `KAFKA_SCHD` rows.
    pub state_events: i64,
    /// Pending `KAFKA_MSG` rows.
    pub change_notices: i64,
}

/// Outbox operations. Method names are the names of the SQL files that run
/// them.
pub trait OutboxOps {
    /// Makes the transaction read one snapshot from its next statement on,
    /// so that the claimed rows and the flights' state read after them are
    /// consistent. Must come first in the transaction.
    ///
    /// # Errors
    ///
    /// A [`StoreError`]; later statements of such a transaction may fail
    /// with kind `Conflict` when another dispatcher sent a row first (retry).
    fn set_repeatable_read(&mut self) -> Result<(), StoreError>;

    /// Claims up to `limit` due pending state events of `lane`, oldest
    /// first, plus every other pending row of their flights; skips flights
    /// with a row waiting for its retry time. Ordered by FLID, then event id.
    fn claim_state_events(
        &mut self,
        now: NaiveDateTime,
        limit: i64,
        lane: Lane,
    ) -> Result<Vec<ClaimedStateEvent>, StoreError>;

    /// Claims up to `limit` due pending change notices of `lane`, oldest
    /// first; skips flights with a notice waiting for its retry time.
    fn claim_change_notices(
        &mut self,
        now: NaiveDateTime,
        limit: i64,
        lane: Lane,
    ) -> Result<Vec<ClaimedNotice>, StoreError>;

    /// Removes claimed state events that are done (delivered, or made
    /// redundant): the outbox holds pending rows only.
    fn delete_sent_state_events(&mut self, event_ids: &[i64]) -> Result<(), StoreError>;

    /// Removes claimed change notices that are done (delivered).
    fn delete_sent_change_notices(&mut self, event_ids: &[i64]) -> Result<(), StoreError>;

    /// Keeps claimed state events pending with their error and back-off.
    fn retry_state_events(
        &mut self,
        failed: &[FailedRow],
        now: NaiveDateTime,
        backoff: Backoff,
    ) -> Result<(), StoreError>;

    /// Keeps claimed change notices pending with their error and back-off.
    fn retry_change_notices(
        &mut self,
        failed: &[FailedRow],
        now: NaiveDateTime,
        backoff: Backoff,
    ) -> Result<(), StoreError>;

    /// How many rows of each outbox are still to send.
    fn count_pending_events(&mut self) -> Result<PendingCounts, StoreError>;
}
