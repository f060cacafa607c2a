//! Applying one message: recognise it (identity key), parse it, hand it to
//! the rule for its kind, and record the outcome in `PROC_STATE`. The pump
//! and `flightstate apply` both come through here, each with its
//! [`Attempt`], so a message has one meaning however it arrives.

use chrono::NaiveDateTime;

use super::PipelineError;
use super::attempt::Attempt;
use super::attempt::MessageRef;
use super::flights::{apply_event, apply_schedule};
use super::identity::identity_key;
use super::outcome::{Applied, RecordedBefore, Recorder};
use super::rules::Rules;
use super::snapshot::WholeSnapshot;
use super::snapshot::{Received, Streamed, WholeSource, apply_snapshot, apply_streamed};
use crate::protocol::{self, Body, ScheduleSubtype};
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
    let Attempt {
        message_id,
        body,
        now,
        ..
    } = *attempt;
    let identity = identity_key(message_id, body);
    let mut record = Recorder::new(attempt, &identity);
    match look_before(store, attempt, &identity)? {
        RecordedBefore::ChangedBody(reason) => return record.dead(store, attempt, reason),
        RecordedBefore::ChangedAfterFinal(reason) => return Ok(Applied::ChangedBody { reason }),
        RecordedBefore::Final(status) => return Ok(Applied::AlreadyProcessed { status }),
        RecordedBefore::Held(reason) => return Ok(Applied::Held { reason }),
        RecordedBefore::Rejected(reason) => return record.rejected(store, attempt, &reason),
        RecordedBefore::Released => record.released = true,
        RecordedBefore::ToApply => {}
    }
    crate::failpoint!("apply.before_parse");
    let received = Received {
        id: message_id,
        identity_key: &identity,
        now,
        released: record.released,
    };
    let parsed = if body.len() >= rules.stream_from_bytes {
        match apply_streamed(store, rules, attempt, received) {
            Streamed::Snapshot { kind, outcome } => {
                if let Some(meta) = kind {
                    record.msg_type = Some(meta.msg_type);
                    record.subtype = Some(meta.subtype);
                    record.sent = Some(meta.sent);
                }
                return record.outcome(store, attempt, outcome.map(Applied::Snapshot));
            }
            Streamed::Other(parsed) => parsed,
        }
    } else {
        protocol::parse_slice(body, &rules.parse)
    };
    let message = match parsed {
        Ok(message) => message,
        Err(e) => return record.dead(store, attempt, format!("rejected: {e}")),
    };
    record.msg_type = Some(message.meta.msg_type.clone());
    record.subtype = Some(message.meta.styp.clone());
    record.sent = Some((message.meta.sndr.clone(), message.meta.seqn.clone()));
    crate::failpoint!("apply.after_parse");
    let result = apply_parsed(store, rules, attempt, received, &message);
    record.outcome(store, attempt, result)
}

/// The message's `PROC_STATE` before the attempt. A message final already
/// was delivered again: its transaction is sealed as a redelivery, which
/// writes its row back again (with this delivery's status: DEAD for a body
/// that changed under its id).
fn look_before<S: Store>(
    store: &S,
    attempt: &Attempt<'_>,
    identity: &str,
) -> Result<RecordedBefore, StoreError> {
    store.transaction(|tx| {
        let seen = RecordedBefore::of(
            attempt.message_id,
            identity,
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
    let identity = identity_key(attempt.message_id, attempt.body);
    let mut record = Recorder::new(attempt, &identity);
    record.dead_as_recorded(store, attempt, BYPASSED, reason)
}
/// Applies a message read whole by the rule for its kind.
fn apply_parsed<S: Store>(
    store: &S,
    rules: &Rules,
    attempt: &Attempt<'_>,
    received: Received<'_>,
    message: &protocol::Message,
) -> Result<Applied, PipelineError> {
    let message_ref = &MessageRef {
        id: received.id,
        identity_key: received.identity_key,
        msg_type: &message.meta.msg_type,
        subtype: &message.meta.styp,
        sender: &message.meta.sndr,
        seqn: &message.meta.seqn,
        dttm: message.meta.dttm,
        now: received.now,
        received_at: attempt.received_at,
    };
    match &message.body {
        Body::Schedule(schedule) if schedule.subtype.is_snapshot() => {
            let source = WholeSource {
                whole: WholeSnapshot::of(
                    schedule,
                    rules,
                    request_day(store, message_ref, schedule)?,
                )?,
                msg_type: message_ref.msg_type,
                subtype: message_ref.subtype,
                sender: message_ref.sender,
                seqn: message_ref.seqn,
                dttm: message_ref.dttm,
            };
            apply_snapshot(store, rules, attempt, received, &source).map(Applied::Snapshot)
        }
        Body::Schedule(schedule)
            if matches!(
                schedule.subtype,
                ScheduleSubtype::Adft | ScheduleSubtype::Del
            ) =>
        {
            apply_schedule(store, rules, attempt, message_ref, schedule).map(Applied::Flights)
        }
        Body::FlightOperation(operation) => {
            apply_event(store, rules, attempt, message_ref, operation).map(Applied::Flights)
        }
        _ => Err(PipelineError::Unsupported {
            msg_type: message.meta.msg_type.clone(),
            subtype: message.meta.styp.clone(),
        }),
    }
}

/// The day of the request a RESP that names no day answers (DESIGN §4), so
/// that its flights' scheduled times need not agree on one.
fn request_day<S: Store>(
    store: &S,
    message: &MessageRef<'_>,
    schedule: &protocol::Schedule,
) -> Result<Option<chrono::NaiveDate>, PipelineError> {
    if schedule.operation_day.is_some()
        || !request::takes_request_day(message.msg_type, message.subtype)
    {
        return Ok(None);
    }
    Ok(store.transaction(|tx| request::request_day(tx, message.sender))?)
}
