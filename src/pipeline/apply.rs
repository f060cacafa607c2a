//! Applying one message: recognise it (identity key), parse it, hand it to
//! the rule for its kind, and record the outcome in `PROC_STATE`. The pump
//! and `flightstate apply` both come through here, each with its
//! [`Attempt`], so a message has one meaning however it arrives.

use chrono::NaiveDateTime;

use super::PipelineError;
use super::attempt::Attempt;
use super::flights::{apply_event, apply_schedule};
use super::outcome::{Applied, RecordedBefore};
use super::rules::Rules;
use super::snapshot::{Streamed, WholeSnapshot, apply_snapshot, apply_streamed};
use crate::protocol::{self, Body, Meta, ScheduleSubtype};
use crate::request;
use crate::store::{BYPASSED, ProcStatus, StateTx, Store, StoreError};

/// Applies message `message_id` whose bytes are `body` once, outside the
/// pump (`flightstate apply`, `release`, the tests): [`apply_attempt`] with
/// a one-off [`Attempt`].
///
/// # Errors
///
/// As [`apply_attempt`].
pub fn apply_message<S: Store>(
    store: &S,
    rules: &Rules,
    message_id: i64,
    body: &[u8],
    now: NaiveDateTime,
) -> Result<Applied, PipelineError> {
    apply_attempt(store, rules, &Attempt::one_off(message_id, body, now))
}

/// Applies the message of `attempt` and records the outcome.
///
/// Bad input is recorded DEAD and unsupported input FAILED(UNSUPPORTED);
/// both are reported in `Ok`, since the caller's work (moving on) is the
/// same. A message already SUCCEEDED or DEAD under the same identity is not
/// applied again: a pump's attempt only writes its row back again.
///
/// # Errors
///
/// A [`PipelineError`] for a fault that may pass (database down, lost CAS
/// beyond the retries): it is recorded as FAILED(INFRA) when the database
/// allows, and the caller retries later. A fenced pump
/// ([`FailureKind::Fenced`](crate::FailureKind::Fenced)) records nothing:
/// it must stop.
pub fn apply_attempt<S: Store>(
    store: &S,
    rules: &Rules,
    attempt: &Attempt<'_>,
) -> Result<Applied, PipelineError> {
    match look_before(store, attempt)? {
        RecordedBefore::ChangedBody(reason) => return attempt.dead(store, reason),
        RecordedBefore::ChangedAfterFinal(reason) => return Ok(Applied::ChangedBody { reason }),
        RecordedBefore::Final(status) => return Ok(Applied::AlreadyProcessed { status }),
        RecordedBefore::Held(reason) => return Ok(Applied::Held { reason }),
        RecordedBefore::Rejected(reason) => return attempt.rejected(store, &reason),
        RecordedBefore::Released => attempt.release(),
        RecordedBefore::ToApply => {}
    }
    crate::failpoint!("apply.before_parse");
    let parsed = if attempt.body.len() >= rules.stream_from_bytes {
        match apply_streamed(store, rules, attempt) {
            Streamed::Snapshot(outcome) => {
                return attempt.outcome(store, outcome.map(Applied::Snapshot));
            }
            Streamed::Other(parsed) => parsed,
        }
    } else {
        protocol::parse_slice(attempt.body, &rules.parse)
    };
    let message = match parsed {
        Ok(message) => message,
        Err(e) => return attempt.dead(store, format!("rejected: {e}")),
    };
    let meta = attempt.read(message.meta);
    crate::failpoint!("apply.after_parse");
    let result = apply_parsed(store, rules, attempt, meta, &message.body);
    attempt.outcome(store, result)
}

/// The message's `PROC_STATE` before the attempt. A message final already
/// was delivered again: its transaction is sealed as a redelivery, which
/// writes its row back again (with this delivery's status: DEAD for a body
/// that changed under its id).
fn look_before<S: Store>(store: &S, attempt: &Attempt<'_>) -> Result<RecordedBefore, StoreError> {
    store.transaction(|tx| {
        let seen = RecordedBefore::of(
            attempt.message_id,
            attempt.identity_key(),
            tx.proc_state(attempt.message_id)?,
        );
        let redelivered = match &seen {
            RecordedBefore::Final(status) => Some(*status),
            RecordedBefore::ChangedAfterFinal(_) => Some(ProcStatus::Dead),
            _ => None,
        };
        if let Some(status) = redelivered {
            attempt.lock(tx)?;
            attempt.seal(tx, status, true)?;
        }
        Ok(seen)
    })
}

/// Records DEAD (`BYPASSED`) the head of `attempt` that the pump gives up
/// on under the bypass rule (`pump.bypass_after_secs`), without applying
/// it: a dead letter like any other, that `flightstate dead requeue`
/// applies again.
///
/// # Errors
///
/// A [`PipelineError`] when the record cannot be written; nothing changed.
pub fn bypass_message<S: Store>(
    store: &S,
    attempt: &Attempt<'_>,
    reason: &str,
) -> Result<Applied, PipelineError> {
    attempt.dead_as_recorded(store, BYPASSED, reason)
}

/// Applies a message read whole, whose META is `meta`, by the rule for its
/// kind.
fn apply_parsed<S: Store>(
    store: &S,
    rules: &Rules,
    attempt: &Attempt<'_>,
    meta: &Meta,
    body: &Body,
) -> Result<Applied, PipelineError> {
    match body {
        Body::Schedule(schedule) if schedule.subtype.is_snapshot() => {
            let day = request_day(store, meta, schedule)?;
            let whole = WholeSnapshot::of(schedule, rules, day)?;
            apply_snapshot(store, rules, attempt, &whole).map(Applied::Snapshot)
        }
        Body::Schedule(schedule)
            if matches!(
                schedule.subtype,
                ScheduleSubtype::Adft | ScheduleSubtype::Del
            ) =>
        {
            apply_schedule(store, rules, attempt, schedule).map(Applied::Flights)
        }
        Body::FlightOperation(operation) => {
            apply_event(store, rules, attempt, operation).map(Applied::Flights)
        }
        _ => Err(PipelineError::Unsupported {
            msg_type: meta.msg_type.clone(),
            subtype: meta.styp.clone(),
        }),
    }
}

/// The day of the request a RESP that names no day answers (DESIGN §4), so
/// that its flights' scheduled times need not agree on one.
fn request_day<S: Store>(
    store: &S,
    meta: &Meta,
    schedule: &protocol::Schedule,
) -> Result<Option<chrono::NaiveDate>, PipelineError> {
    if schedule.operation_day.is_some() || !request::takes_request_day(&meta.msg_type, &meta.styp) {
        return Ok(None);
    }
    Ok(store.transaction(|tx| request::request_day(tx, &meta.sndr))?)
}
