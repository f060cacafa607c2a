//! What an operator asks of a replay (its policy) and what the replay did
//! or would do (its plan): shared by the replay's entry point and by the
//! transaction that checks the policy and reads the plan, so that neither
//! depends on the other.

use chrono::NaiveDate;
use serde::Serialize;

/// What a replay does when the day has a newer snapshot than the message:
/// the day's ledger names a later message (higher mailbox id) as its
/// latest snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VersionPolicy {
    /// Refuse: the message is applied only when no newer snapshot of the
    /// day was applied after it (it is the day's latest, or the day has
    /// none).
    Latest,
    /// Apply it over the newer snapshot: the day's version is bumped past
    /// it and the day's flights become the message's.
    Force,
}

impl VersionPolicy {
    /// The policy as the operator writes it (`--version`).
    pub fn code(self) -> &'static str {
        match self {
            VersionPolicy::Latest => "latest",
            VersionPolicy::Force => "force",
        }
    }
}

/// An operator's explicit policy for replaying a snapshot (seed §5.3: a
/// historical snapshot is replayed only with an explicit version and
/// operation-day policy, else it could overwrite newer state).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayPolicy {
    /// The operation day the snapshot is applied as.
    pub day: NaiveDate,
    /// Apply it as [`day`](Self::day) although the message is of another
    /// day (its flights then belong to `day`).
    pub other_day: bool,
    /// What to do when the day has a newer snapshot.
    pub version: VersionPolicy,
    /// Move flights that now belong to another operation day to
    /// [`day`](Self::day), whatever the site's rule for day moves.
    pub move_flights: bool,
    /// Run the replay's transaction and roll it back: report what it would
    /// create, update and delete, change nothing.
    pub dry_run: bool,
    /// Who replays (recorded).
    pub by: String,
}

impl ReplayPolicy {
    /// The policy as recorded in `PROC_STATE.REPLAY_POLICY`
    /// (`day=2026-09-09 version=force other-day move-flights`).
    pub fn describe(&self) -> String {
        let mut text = format!("day={} version={}", self.day, self.version.code());
        if self.other_day {
            text.push_str(" other-day");
        }
        if self.move_flights {
            text.push_str(" move-flights");
        }
        text
    }
}

/// What a replay did, or (dry run) would do: read in the replay's own
/// transaction, before and after the snapshot was applied, so a dry run
/// reports exactly what the real replay would commit.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReplayPlan {
    /// The message replayed.
    pub message_id: i64,
    /// `TYPE/STYP` of the message.
    pub message: String,
    /// The operation day it was applied as.
    pub operation_day: Option<NaiveDate>,
    /// The day's snapshot version before the replay (`None`: the day had no
    /// snapshot).
    pub version_before: Option<i64>,
    /// The day's latest snapshot before the replay.
    pub latest_before: Option<i64>,
    /// The day's snapshot version after the replay.
    pub version_after: Option<i64>,
    /// Flights created.
    pub created: Vec<i64>,
    /// Flights whose state or day changed.
    pub updated: Vec<i64>,
    /// Flights of the snapshot already in exactly its state.
    pub unchanged: Vec<i64>,
    /// Flights deleted from the day (with tombstones).
    pub deleted: Vec<i64>,
    /// Whether it was rolled back (a dry run).
    pub dry_run: bool,
}
