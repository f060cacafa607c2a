//! Evidence about the upstream (`ORDER_EVIDENCE`, `SEQN_EVIDENCE`) and the
//! head of the queue: what the state records so that a site can see
//! whether the assumptions its rules rest on hold. The counting rules are
//! the pipeline's (`pipeline::evidence`);
//! this module only reads and writes their rows.

use chrono::{NaiveDate, NaiveDateTime};
use serde::Serialize;

use super::StoreError;

/// The `ERROR_KIND` of a message that failed on the infrastructure (a
/// database or the mailbox down, a timeout, an internal fault).
pub const INFRA: &str = "INFRA";

/// The `ERROR_KIND` of a snapshot that kept losing its version race.
pub const CONFLICT: &str = "CONFLICT";

/// One operation day's order evidence (`ORDER_EVIDENCE`): the arrivals
/// that contradict the senders' clocks (META DTTM, station local).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DayOrder {
    /// The operation day.
    pub operation_day: NaiveDate,
    /// DTTM of the day's latest applied snapshot.
    pub snapshot_dttm: Option<NaiveDateTime>,
    /// That snapshot's message id.
    pub snapshot_message_id: Option<i64>,
    /// The newest DTTM among flight events of the day applied since that
    /// snapshot.
    pub newest_event_dttm: Option<NaiveDateTime>,
    /// That event's message id.
    pub newest_event_id: Option<i64>,
    /// Events applied after the day's snapshot with an older DTTM.
    pub late_events: i64,
    /// The latest such event.
    pub last_late_event_id: Option<i64>,
    /// The snapshot it came after.
    pub late_event_after_id: Option<i64>,
    /// Snapshots applied after events of the day with a newer DTTM.
    pub stale_snapshots: i64,
    /// The latest such snapshot.
    pub last_stale_snapshot_id: Option<i64>,
    /// The newest event it overwrote.
    pub stale_snapshot_over_id: Option<i64>,
}

impl DayOrder {
    /// A day with nothing counted yet.
    pub fn new(operation_day: NaiveDate) -> DayOrder {
        DayOrder {
            operation_day,
            snapshot_dttm: None,
            snapshot_message_id: None,
            newest_event_dttm: None,
            newest_event_id: None,
            late_events: 0,
            last_late_event_id: None,
            late_event_after_id: None,
            stale_snapshots: 0,
            last_stale_snapshot_id: None,
            stale_snapshot_over_id: None,
        }
    }
}

/// One inbound sender's SEQN evidence (`SEQN_EVIDENCE`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SenderSeqn {
    /// META SNDR.
    pub sender: String,
    /// The SEQN of its latest message counted, as sent.
    pub last_seqn: String,
    /// That message's id.
    pub last_message_id: i64,
    /// Messages counted.
    pub messages: i64,
    /// SEQN equal to the one before.
    pub repeats: i64,
    /// SEQN ahead of the next expected one.
    pub gaps: i64,
    /// Numbers the gaps skipped, together.
    pub missing: i64,
    /// SEQN back below the one before (not the wrap).
    pub resets: i64,
    /// SEQN that is not a number.
    pub unreadable: i64,
    /// The latest anomaly: `REPEAT`, `GAP`, `RESET` or `UNREADABLE`.
    pub last_anomaly: Option<String>,
    /// Its message id.
    pub last_anomaly_id: Option<i64>,
}

impl SenderSeqn {
    /// The latest anomaly's kind and message, when there was one.
    pub fn latest_anomaly(&self) -> Option<(&str, i64)> {
        Some((self.last_anomaly.as_deref()?, self.last_anomaly_id?))
    }
}

/// The message that blocks the head of the queue on an infrastructure
/// failure, as `PROC_STATE` records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FailedHead {
    /// Its id.
    pub message_id: i64,
    /// `INFRA` or `CONFLICT`.
    pub error_kind: String,
    /// The latest failure, for people.
    pub error_text: Option<String>,
    /// Attempts so far.
    pub attempts: i32,
    /// When it was first tried (UTC): the head has waited since.
    pub first_seen_at: NaiveDateTime,
    /// When its latest failure was recorded (UTC).
    pub updated_at: NaiveDateTime,
}

/// Evidence operations, in the state transaction of the message counted.
/// Method names are the names of the SQL files that run them.
pub trait EvidenceOps {
    /// The order evidence of `day`, if any was counted.
    fn select_order_evidence(&mut self, day: NaiveDate) -> Result<Option<DayOrder>, StoreError>;

    /// Writes `day`'s order evidence.
    fn upsert_order_evidence(
        &mut self,
        evidence: &DayOrder,
        now: NaiveDateTime,
    ) -> Result<(), StoreError>;

    /// The SEQN evidence of `sender`, if one of its messages was counted.
    fn select_seqn_evidence(&mut self, sender: &str) -> Result<Option<SenderSeqn>, StoreError>;

    /// Writes a sender's SEQN evidence.
    fn upsert_seqn_evidence(
        &mut self,
        evidence: &SenderSeqn,
        now: NaiveDateTime,
    ) -> Result<(), StoreError>;

    /// The order evidence of the latest `limit` days, newest first.
    fn select_latest_order_evidence(&mut self, limit: i64) -> Result<Vec<DayOrder>, StoreError>;

    /// The SEQN evidence of at most `limit` senders, by sender.
    fn select_seqn_senders(&mut self, limit: i64) -> Result<Vec<SenderSeqn>, StoreError>;

    /// The lowest message FAILED on the infrastructure (`INFRA`,
    /// `CONFLICT`), if any: the one the head waits for.
    fn select_blocked_head(&mut self) -> Result<Option<FailedHead>, StoreError>;
}
