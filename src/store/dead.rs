//! Dead letters (`flightstate dead`): the operations that list the DEAD
//! messages, show one, and requeue them.
//!
//! A requeue is an operator's action recorded on the message's own
//! `PROC_STATE` row (count, who, when). It turns DEAD into FAILED with
//! [`REQUEUED`], which the pipeline's identity-key check treats like any
//! failed attempt: the message is applied again at its next delivery, and
//! its write-back is a new journaled call named after the requeue count.

use chrono::{NaiveDate, NaiveDateTime};
use serde::Serialize;

use super::{ProcStatus, StoreError};

/// The `ERROR_KIND` of a message an operator requeued and the pump has not
/// applied again yet.
pub const REQUEUED: &str = "REQUEUED";

/// The `ERROR_KIND` of a snapshot held by the mass-delete guard, waiting
/// for an operator's decision.
pub const MASS_DELETE: &str = "MASS_DELETE";

/// The decision (`HOLD_DECISION`, and the `ERROR_KIND` until the pump acts
/// on it) of `flightstate release`: the held snapshot is applied as it is.
pub const RELEASED: &str = "RELEASED";

/// The decision of `flightstate reject`: the held snapshot is DEAD.
pub const REJECTED: &str = "REJECTED";

/// The `ERROR_KIND` of a head the pump recorded DEAD under the bypass rule
/// (`pump.bypass_after_secs`): its own attempts kept failing.
pub const BYPASSED: &str = "BYPASSED";

/// Everything `PROC_STATE` records about one message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MessageRecord {
    /// The message id (`CMINMSGS_ID`).
    pub message_id: i64,
    /// Its latest outcome.
    pub status: ProcStatus,
    /// Why it failed, by kind (`BAD_INPUT`, `DATA_REJECTED`, `UNSUPPORTED`, …).
    pub error_kind: Option<String>,
    /// Why it failed, for people.
    pub error_text: Option<String>,
    /// META TYPE, when the message could be read that far.
    pub msg_type: Option<String>,
    /// META STYP, likewise.
    pub msg_subtype: Option<String>,
    /// Attempts since it was first seen, or since its last requeue.
    pub attempts: i32,
    /// When it was first tried (UTC).
    pub first_seen_at: NaiveDateTime,
    /// When its outcome was last recorded (UTC).
    pub updated_at: NaiveDateTime,
    /// How many times an operator requeued it.
    pub requeue_count: i32,
    /// Who requeued it last.
    pub requeued_by: Option<String>,
    /// When it was requeued last (UTC).
    pub requeued_at: Option<NaiveDateTime>,
}

/// Which dead letters to list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeadFilter<'a> {
    /// Only this `ERROR_KIND`.
    pub error_kind: Option<&'a str>,
    /// Only those whose outcome was recorded at or after this time (UTC).
    pub since: Option<NaiveDateTime>,
    /// Only those whose `ERROR_TEXT` holds this text (case as written: the
    /// database's words are matched as they are).
    pub error_text: Option<&'a str>,
    /// Only those whose outcome was recorded on this UTC day.
    pub day: Option<NaiveDate>,
}

impl DeadFilter<'_> {
    /// The start of [`day`](DeadFilter::day) and of the day after (UTC),
    /// as the statement compares them: computed here, so that both
    /// dialects bind the same two times and no day arithmetic is written
    /// twice in SQL.
    pub fn day_bounds(&self) -> (Option<NaiveDateTime>, Option<NaiveDateTime>) {
        match self.day {
            Some(day) => (
                Some(day.and_time(chrono::NaiveTime::MIN)),
                day.succ_opt()
                    .map(|next| next.and_time(chrono::NaiveTime::MIN)),
            ),
            None => (None, None),
        }
    }
}

/// Dead-letter operations. Method names are the names of the SQL files
/// that run them.
pub trait DeadOps {
    /// The DEAD messages that `filter` selects, lowest id first, at most
    /// `limit`.
    fn select_dead_letters(
        &mut self,
        filter: DeadFilter<'_>,
        limit: i64,
    ) -> Result<Vec<MessageRecord>, StoreError>;

    /// What is recorded about message `message_id`, whatever its status.
    fn select_message_record(
        &mut self,
        message_id: i64,
    ) -> Result<Option<MessageRecord>, StoreError>;

    /// Requeues the DEAD messages among `message_ids` (FAILED, [`REQUEUED`],
    /// attempts from 0), recording `by` and `now`; messages in any other
    /// status are left alone. Returns each requeued message with its new
    /// requeue count.
    fn requeue_dead_letters(
        &mut self,
        message_ids: &[i64],
        by: &str,
        now: NaiveDateTime,
    ) -> Result<Vec<(i64, i32)>, StoreError>;

    /// Records an operator's decision on a HELD snapshot that waits for one
    /// ([`MASS_DELETE`]): `decision` ([`RELEASED`] or [`REJECTED`]) becomes
    /// its error kind, which the pump acts on at its next look, and its
    /// `HOLD_DECISION`, with `by` and `now`, which stay. `false` when the
    /// message is not waiting for a decision (the caller reads why).
    fn decide_held_message(
        &mut self,
        message_id: i64,
        decision: &str,
        by: &str,
        now: NaiveDateTime,
    ) -> Result<bool, StoreError>;
}
