//! The Kafka dispatcher's operations on the state database: claiming the
//! pending rows of the two outboxes (`KAFKA_SCHD`, `KAFKA_MSG`), and
//! recording each row's outcome — sent, or kept pending with its error and
//! the time of its next try (back-off computed in SQL).
//!
//! Claims lock rows `FOR UPDATE SKIP LOCKED` until the transaction ends: the
//! dispatcher claims, produces, waits for the delivery reports and records
//! the outcomes in one transaction (STYLE §4.4), so a crash anywhere before
//! the commit leaves every row pending, to be sent again.

use std::collections::HashMap;

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
    /// The message whose transaction registered the row.
    pub message_id: i64,
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

/// The claimed state events of the flights whose every pending row the claim
/// locked; `rows` are `(row, the pending rows of its flight)` as the claim
/// returns them (by FLID, then event id).
///
/// Why: a flight some of whose pending rows another dispatcher holds is in
/// that dispatcher's pass. Sending its newer rows now could put a higher
/// `STATE_VERSION` on the topic before the other pass's lower one, and on a
/// compacted topic the last message wins, not the highest. The dropped
/// flight's rows stay pending, locked by this transaction until it ends, and
/// go out in a later pass once the other one is done.
#[cfg(any(feature = "postgres", feature = "oracle"))]
pub(crate) fn whole_flights(rows: Vec<(ClaimedStateEvent, i64)>) -> Vec<ClaimedStateEvent> {
    let mut claimed: std::collections::HashMap<i64, i64> = std::collections::HashMap::new();
    for (row, _) in &rows {
        *claimed.entry(row.flid).or_default() += 1;
    }
    let mut held_elsewhere = Vec::new();
    let kept: Vec<ClaimedStateEvent> = rows
        .into_iter()
        .filter_map(|(row, flight_pending)| {
            if claimed.get(&row.flid).copied().unwrap_or_default() < flight_pending {
                if held_elsewhere.last() != Some(&row.flid) {
                    held_elsewhere.push(row.flid);
                }
                None
            } else {
                Some(row)
            }
        })
        .collect();
    if !held_elsewhere.is_empty() {
        tracing::debug!(
            flids = ?held_elsewhere,
            "flights with rows in another dispatcher's pass left for later"
        );
    }
    kept
}

/// The claimed change notices that may go out now: a flight's notice only
/// when every earlier pending notice of the flight is claimed and kept too.
/// `rows` are `(notice, the pending notices of its flight before it)` by
/// event id. Why: as for [`whole_flights`], an earlier notice in another
/// dispatcher's pass must not be overtaken.
#[cfg(any(feature = "postgres", feature = "oracle"))]
pub(crate) fn notices_in_order(rows: Vec<(ClaimedNotice, i64)>) -> Vec<ClaimedNotice> {
    let mut kept_before: std::collections::HashMap<i64, i64> = std::collections::HashMap::new();
    let mut held_elsewhere = Vec::new();
    let kept: Vec<ClaimedNotice> = rows
        .into_iter()
        .filter_map(|(row, earlier_pending)| {
            let Some(flid) = row.flid else {
                return Some(row);
            };
            let kept = kept_before.entry(flid).or_default();
            if *kept < earlier_pending {
                if !held_elsewhere.contains(&flid) {
                    held_elsewhere.push(flid);
                }
                None
            } else {
                *kept += 1;
                Some(row)
            }
        })
        .collect();
    if !held_elsewhere.is_empty() {
        tracing::debug!(
            flids = ?held_elsewhere,
            "notices of flights with earlier ones in another dispatcher's pass left for later"
        );
    }
    kept
}

/// A message's receipt, as the dispatcher reads it for the freshness of
/// what it published (`select_received_times`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Receipt {
    /// When the mailbox received the message, on flightstate's clock
    /// (`PROC_STATE.RECEIVED_AT`, UTC).
    pub received_at: NaiveDateTime,
    /// When its outcome was recorded (`PROC_STATE.UPDATED_AT`, UTC): the
    /// `CREATED_AT` of the outbox rows its own transaction registered.
    pub recorded_at: NaiveDateTime,
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

    /// When the mailbox received each of `message_ids` (distinct), and
    /// when its outcome was recorded: the messages whose rows a pass
    /// settles as sent, for the freshness of what was published. A message
    /// without a receipt time, without a record, or last recorded by an
    /// operator's replay is missing from the map.
    fn select_received_times(
        &mut self,
        message_ids: &[i64],
    ) -> Result<HashMap<i64, Receipt>, StoreError>;
}
