//! An operator's replay of a snapshot already applied (`flightstate
//! replay`, seed §5.3). The ledger recognises only the day's latest snapshot
//! as a replay; an older one would otherwise overwrite newer state, so a
//! replay happens only at an operator's word, with an explicit operation day
//! and version policy ([`ReplayPolicy`]).
//!
//! The replay's transaction is the snapshot's own (the same steps as the
//! pump's, under the same `PIPELINE_LOCK`), between a first step that checks
//! the policy under the lock and reads the day as it stands, and a last one
//! that reads what the snapshot did ([`ReplayPlan`]) and records the replay
//! on the message's `PROC_STATE` row. A dry run rolls it all back, so what
//! it reports is what the replay would commit; a refused replay changes
//! nothing.

use std::collections::HashMap;

use chrono::{NaiveDate, NaiveDateTime};
use serde::Serialize;

use super::check::WholeSnapshot;
use super::{Stop, run_snapshot, snapshot_transaction};
use crate::FailureKind;
use crate::pipeline::attempt::{Attempt, Origin, ReplayPolicy, VersionPolicy};
use crate::pipeline::{PipelineError, Rules};
use crate::protocol::{self, Body};
use crate::request;
use crate::state::{DayMoves, DaySource};
use crate::store::{
    FlightDigest, ProcStatus, ReplayOps, ReplayRecord, SnapshotLedger, StateTx, Store, StoreError,
};

/// Why a replay did not happen.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The replay is refused as asked (no snapshot, another day, a newer
    /// snapshot under `--version latest`, a message not applied); nothing
    /// changed. The reason says what the operator can give instead.
    #[error("{0}")]
    Refused(String),
    /// The snapshot's transaction failed (database down, a lost version race
    /// beyond the retries, values the database refused); nothing changed
    /// and the replay can be run again.
    #[error(transparent)]
    Failed(#[from] PipelineError),
}

/// Replays message `message_id`, whose bytes are `body` (its mailbox row),
/// under `policy`: applies the snapshot again as `policy.day`, records the
/// replay, and returns what it did (a dry run: what it would do, having
/// changed nothing).
///
/// # Errors
///
/// [`ReplayError::Refused`] when the message or the policy does not allow
/// it; [`ReplayError::Failed`] when the transaction fails. Either way
/// nothing changed.
pub fn replay_snapshot<S: Store>(
    store: &S,
    rules: &Rules,
    message_id: i64,
    body: &[u8],
    policy: &ReplayPolicy,
    now: NaiveDateTime,
) -> Result<ReplayPlan, ReplayError> {
    let refused = |reason: String| ReplayError::Refused(format!("message {message_id}: {reason}"));
    let message = protocol::parse_slice(body, &rules.parse)
        .map_err(|e| refused(format!("cannot be read: {e}")))?;
    let attempt = Attempt::replay(message_id, body, now, policy);
    let meta = attempt.read(message.meta);
    let (msg_type, subtype) = (&meta.msg_type, &meta.styp);
    let schedule = match &message.body {
        Body::Schedule(schedule) if schedule.subtype.is_snapshot() => schedule,
        _ => {
            return Err(refused(format!(
                "is {msg_type}/{subtype}: only snapshots (SCHD DNLD, SCHD RESP) are replayed"
            )));
        }
    };
    // A RESP naming no day took the day of the request it answered, which
    // is gone by now: the operator's day stands for it.
    let request_day = (schedule.operation_day.is_none()
        && request::takes_request_day(msg_type, subtype))
    .then_some(policy.day);
    let mut whole = WholeSnapshot::of(schedule, rules, request_day)
        .map_err(|e| refused(format!("is no valid snapshot: {e}")))?;
    if whole.day != policy.day && !policy.other_day {
        return Err(refused(format!(
            "is a snapshot of {}, not of {}: give `--day {}`, or `--other-day` to apply it as {} (its flights then belong to {})",
            whole.day, policy.day, whole.day, policy.day, policy.day
        )));
    }
    whole.day = policy.day;
    // The day is the operator's, explicitly: the snapshot's transaction
    // must not take a live request's day for it.
    whole.day_source = DaySource::Explicit;
    let list = whole.list.clone();
    let replayed = run_snapshot(store, message_id, &whole, |tx, day, parts| {
        let before = before(tx, &attempt, policy, &list)?;
        snapshot_transaction(tx, rules, &attempt, day, parts)?;
        after(tx, &attempt, policy, (&list, before))
    });
    match replayed {
        Ok(plan) => Ok(plan),
        Err(Stop::Replay(ReplayEnd::DryRun(plan))) => Ok(*plan),
        Err(Stop::Replay(ReplayEnd::Refused(reason))) => Err(refused(reason)),
        Err(stop) => Err(ReplayError::Failed(stop.into_error())),
    }
}

/// The site's rule for operation-day moves (`station.day_moves`) as an
/// attempt applies it: with `--move-flights` a replay sets it aside, so that
/// flights of the snapshot that now belong to another day move to the
/// replay's day.
pub(super) fn day_moves(attempt: &Attempt<'_>, site: DayMoves) -> DayMoves {
    match attempt.origin {
        Origin::Replay(policy) if policy.move_flights => DayMoves::Any,
        _ => site,
    }
}

/// How a replay's transaction ended without committing.
pub(super) enum ReplayEnd {
    /// The policy (or the message's record) refused the replay.
    Refused(String),
    /// A dry run: what the replay would do.
    DryRun(Box<ReplayPlan>),
}

impl std::fmt::Display for ReplayEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayEnd::Refused(reason) => f.write_str(reason),
            ReplayEnd::DryRun(_) => f.write_str("a dry run: rolled back"),
        }
    }
}

/// The day's state before the snapshot is applied again.
struct DayBeforeReplay {
    ledger: Option<SnapshotLedger>,
    flids: Vec<i64>,
    digests: HashMap<i64, FlightDigest>,
}

/// Refuses the replay: the stop that rolls its transaction back.
fn refuse(reason: String) -> Stop {
    Stop::Replay(ReplayEnd::Refused(reason))
}

/// Under `PIPELINE_LOCK`: the message's record and the version policy,
/// then the day's flights as they stand with those of the snapshot's
/// `list`.
fn before<T: StateTx + ?Sized>(
    tx: &mut T,
    attempt: &Attempt<'_>,
    policy: &ReplayPolicy,
    list: &[i64],
) -> Result<DayBeforeReplay, Stop> {
    let day = policy.day;
    let message_id = attempt.message_id;
    attempt.lock(tx)?;
    match tx.proc_state(message_id)? {
        None => {
            return Err(refuse(format!(
                "message {} was never applied (no PROC_STATE record): the pump applies it, no replay is needed",
                message_id
            )));
        }
        Some(seen) if seen.identity_key != attempt.identity_key() => {
            return Err(refuse(format!(
                "message {}'s mailbox row holds another body than the one applied; it is not replayed",
                message_id
            )));
        }
        Some(seen) if seen.status != ProcStatus::Succeeded => {
            return Err(refuse(format!(
                "message {} is {}, not SUCCEEDED: only an applied snapshot is replayed (a DEAD one is requeued: `flightstate dead requeue {}`)",
                message_id,
                seen.status.code(),
                message_id
            )));
        }
        Some(_) => {}
    }
    let ledger = tx.snapshot_ledger(day)?;
    if let Some(newer) = ledger.as_ref().filter(|l| l.last_message_id > message_id)
        && policy.version == VersionPolicy::Latest
    {
        return Err(refuse(format!(
            "day {day} has a newer snapshot than message {}: message {} (version {}); replaying would overwrite it: give `--version force` to replay it anyway",
            message_id, newer.last_message_id, newer.version
        )));
    }
    let mut flids = tx.snapshot_list(day)?;
    flids.extend_from_slice(list);
    flids.sort_unstable();
    flids.dedup();
    let digests = tx.flight_digests(&flids)?;
    Ok(DayBeforeReplay {
        ledger,
        flids,
        digests,
    })
}

/// After the snapshot's rules: what they did, and the replay recorded.
fn after<T: StateTx + ReplayOps + ?Sized>(
    tx: &mut T,
    attempt: &Attempt<'_>,
    policy: &ReplayPolicy,
    (list, before): (&[i64], DayBeforeReplay),
) -> Result<ReplayPlan, Stop> {
    let message_id = attempt.message_id;
    let meta = attempt.read_meta()?;
    let after = tx.flight_digests(&before.flids)?;
    let ledger = tx.snapshot_ledger(policy.day)?;
    let mut plan = ReplayPlan {
        message_id,
        message: format!("{}/{}", meta.msg_type, meta.styp),
        operation_day: Some(policy.day),
        version_before: before.ledger.as_ref().map(|l| l.version),
        latest_before: before.ledger.as_ref().map(|l| l.last_message_id),
        version_after: ledger.map(|l| l.version),
        dry_run: policy.dry_run,
        ..ReplayPlan::default()
    };
    for flid in list {
        match (before.digests.get(flid), after.get(flid)) {
            (None, Some(_)) => plan.created.push(*flid),
            (Some(old), Some(new)) if changed(old, new) => plan.updated.push(*flid),
            (Some(_), Some(_)) => plan.unchanged.push(*flid),
            (_, None) => {}
        }
    }
    plan.deleted = (before.flids.iter())
        .filter(|f| before.digests.contains_key(f) && !after.contains_key(f))
        .copied()
        .collect();
    for list in [&mut plan.created, &mut plan.updated, &mut plan.unchanged] {
        list.sort_unstable();
    }
    let described = policy.describe();
    let recorded = tx.record_replay(&ReplayRecord {
        message_id,
        by: &policy.by,
        policy: &described,
        now: attempt.now,
    })?;
    if !recorded {
        return Err(Stop::from(StoreError::new(
            FailureKind::Other,
            "record_replay",
            format!(
                "message {} is not SUCCEEDED after its replay; nothing is committed",
                message_id
            ),
        )));
    }
    if plan.dry_run {
        return Err(Stop::Replay(ReplayEnd::DryRun(Box::new(plan))));
    }
    Ok(plan)
}

/// Whether a flight's stored state or day moved.
fn changed(old: &FlightDigest, new: &FlightDigest) -> bool {
    old.state_version != new.state_version || old.operation_day != new.operation_day
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
