//! An operator's replay of a snapshot already applied (`flightstate
//! replay`, seed §5.3). The ledger recognises only the day's latest snapshot
//! as a replay; an older one would otherwise overwrite newer state, so a
//! replay happens only at an operator's word, with an explicit operation day
//! and version policy ([`ReplayPolicy`]).
//!
//! The replay is the snapshot's own transaction (`pipeline::snapshot`, the
//! same steps as the pump's, under the same `PIPELINE_LOCK`), wrapped by
//! `pipeline::replay_tx`: the policy is checked under the lock, what the
//! transaction did is read back in it, the replay is recorded on the
//! message's `PROC_STATE` row, and a dry run rolls it all back.

use chrono::NaiveDateTime;

use super::PipelineError;
use super::identity::identity_key;
use super::replay_plan::{ReplayPlan, ReplayPolicy};
use super::replay_tx::{Ended, ReplayStore, Replaying};
use super::settings::Settings;
use super::snapshot::{Received, WholeSource, apply_snapshot};
use super::snapshot_check::Whole;
use crate::protocol::{self, Body};
use crate::request;
use crate::state::DayMoves;
use crate::state::DaySource;
use crate::store::Store;

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
pub fn replay_snapshot<S: Store + Clone>(
    store: &S,
    settings: &Settings,
    message_id: i64,
    body: &[u8],
    policy: &ReplayPolicy,
    now: NaiveDateTime,
) -> Result<ReplayPlan, ReplayError> {
    let refused = |reason: String| ReplayError::Refused(format!("message {message_id}: {reason}"));
    let message = protocol::parse_slice(body, &settings.parse)
        .map_err(|e| refused(format!("cannot be read: {e}")))?;
    let (msg_type, subtype) = (&message.meta.msg_type, &message.meta.styp);
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
    let mut whole = Whole::of(schedule, settings, request_day)
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
    let identity = identity_key(message_id, body);
    let replay_store = ReplayStore::new(
        store.clone(),
        Replaying {
            message_id,
            identity_key: identity.clone(),
            message: format!("{msg_type}/{subtype}"),
            list: whole.list.clone(),
            policy: policy.clone(),
            now,
        },
    );
    let source = WholeSource {
        whole,
        msg_type,
        subtype,
        sender: &message.meta.sndr,
        seqn: &message.meta.seqn,
        dttm: message.meta.dttm,
    };
    let received = Received {
        id: message_id,
        identity_key: &identity,
        now,
        // The operator asked for this snapshot with an explicit policy and
        // its dry run shows what it deletes: the mass-delete guard, which
        // waits for such an answer, does not hold it again.
        released: true,
    };
    let applied = apply_snapshot(
        &replay_store,
        &replay_settings(settings, policy),
        received,
        &source,
    );
    match (applied, replay_store.ended()) {
        (Ok(_), Some(Ended::Planned(plan))) => Ok(plan),
        (Err(_), Some(Ended::Planned(plan))) if plan.dry_run => Ok(plan),
        (Err(_), Some(Ended::Refused(reason))) => Err(refused(reason)),
        (Err(e), _) => Err(e.into()),
        // The replay's transaction records its plan whenever it commits.
        (Ok(_), _) => unreachable!("a replay committed without its plan"),
    }
}

/// The settings of a replay: the snapshot is applied although the ledger
/// knows it, and answers no request. With `--move-flights` the site's rule
/// for operation-day moves (`station.day_moves`) is set aside: flights of
/// the snapshot that now belong to another day move to the replay's day.
fn replay_settings(settings: &Settings, policy: &ReplayPolicy) -> Settings {
    let day_moves = if policy.move_flights {
        DayMoves::Any
    } else {
        settings.day_moves
    };
    Settings {
        operator_replay: true,
        day_moves,
        ..settings.clone()
    }
}
