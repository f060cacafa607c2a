//! Replays (`flightstate replay`): the operator's action recorded on the
//! message's own `PROC_STATE` row (count, who, when, under which policy),
//! in the transaction that applies the snapshot again.

use chrono::NaiveDateTime;

use super::StoreError;

/// One operator's replay of a message, to record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayRecord<'a> {
    /// The message replayed.
    pub message_id: i64,
    /// Who replayed it.
    pub by: &'a str,
    /// The policy as the operator gave it (`day=… version=…`).
    pub policy: &'a str,
    /// When (UTC).
    pub now: NaiveDateTime,
}

/// Replay operations. Method names are the names of the SQL files that run
/// them.
pub trait ReplayOps {
    /// Counts a replay of `replay.message_id` and records who, when and
    /// under which policy; `false` when the message is not SUCCEEDED (then
    /// nothing is recorded).
    fn record_replay(&mut self, replay: &ReplayRecord<'_>) -> Result<bool, StoreError>;
}
