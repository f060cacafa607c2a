//! The evidence part of the status: order evidence per operation day
//! (rule M), SEQN evidence per sender, and the head blocked by an
//! infrastructure failure (docs/open-questions.md). Read with the other
//! state facts; shown by the status text, the page and the metrics.

use std::fmt::Write as _;

use chrono::NaiveDateTime;
use serde::Serialize;

use crate::store::{DayOrder, FailedHead, SenderSeqn};

/// Senders the status lists (a site has a handful).
pub(super) const SENDERS_LISTED: i64 = 50;

/// The head of the queue blocked by an infrastructure failure.
#[derive(Clone, Debug, Serialize)]
pub struct HeadBlocked {
    /// What `PROC_STATE` records of the message.
    #[serde(flatten)]
    pub message: FailedHead,
    /// How long the head has waited for it, in seconds.
    pub blocked_secs: i64,
    /// After how long the wait is an alert (`pump.head_blocked_alert_secs`).
    pub alert_after_secs: u64,
    /// Whether it is an alert now.
    pub alert: bool,
}

impl HeadBlocked {
    /// The blocked head at `now`, alerting after `alert_after_secs`.
    pub(super) fn of(
        message: FailedHead,
        now: NaiveDateTime,
        alert_after_secs: u64,
    ) -> HeadBlocked {
        let blocked_secs = (now - message.first_seen_at).num_seconds().max(0);
        HeadBlocked {
            message,
            blocked_secs,
            alert_after_secs,
            alert: u64::try_from(blocked_secs).is_ok_and(|s| s >= alert_after_secs),
        }
    }
}

fn id(value: Option<i64>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

/// The evidence as lines of the status text.
pub(super) fn write_text(
    out: &mut String,
    blocked: Option<&HeadBlocked>,
    order: &[DayOrder],
    senders: &[SenderSeqn],
) {
    match blocked {
        Some(b) => {
            let _ = writeln!(
                out,
                "head: {} message {} blocked {} s by {} ({} attempts; alert after {} s): {}",
                if b.alert { "ALERT," } else { "waiting," },
                b.message.message_id,
                b.blocked_secs,
                b.message.error_kind,
                b.message.attempts,
                b.alert_after_secs,
                b.message.error_text.as_deref().unwrap_or("-")
            );
        }
        None => {
            let _ = writeln!(out, "head: not blocked by the infrastructure");
        }
    }
    let _ = writeln!(out, "upstream order (rule M):");
    for day in order {
        let _ = writeln!(
            out,
            "  {}  {} late events (latest {} after snapshot {}), {} stale snapshots (latest {} over event {})",
            day.operation_day,
            day.late_events,
            id(day.last_late_event_id),
            id(day.late_event_after_id),
            day.stale_snapshots,
            id(day.last_stale_snapshot_id),
            id(day.stale_snapshot_over_id)
        );
    }
    let _ = writeln!(out, "inbound SEQN:");
    for s in senders {
        let _ = writeln!(
            out,
            "  {}  {} messages, last SEQN {} (message {}), {} repeats, {} gaps ({} missing), {} resets, {} unreadable{}",
            s.sender,
            s.messages,
            s.last_seqn,
            s.last_message_id,
            s.repeats,
            s.gaps,
            s.missing,
            s.resets,
            s.unreadable,
            s.latest_anomaly()
                .map_or_else(String::new, |(kind, at)| format!(
                    "; latest {kind} at message {at}"
                ))
        );
    }
}
