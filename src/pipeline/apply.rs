//! Applying one message: recognise it (identity key), parse it, hand it to
//! the rule for its kind, and record the outcome in `PROC_STATE`. The pump
//! and `flightstate apply` both come through here, so a message has one
//! meaning however it arrives.

use chrono::NaiveDateTime;
use serde::Serialize;

use super::PipelineError;
use super::adft::{apply_adft, apply_delete};
use super::event::apply_event;
use super::identity::identity_key;
use super::message_ref::MessageRef;
use super::report::{EventReport, SnapshotReport};
use super::seqn_evidence::{self, Sent};
use super::settings::Settings;
use super::snapshot::{Received, WholeSource, apply_snapshot};
use super::snapshot_check::Whole;
use super::streamed::{Streamed, apply_streamed};
use crate::FailureKind;
use crate::failure::Causes;
use crate::protocol::{self, Body, ScheduleSubtype};
use crate::request;
use crate::store::{
    BYPASSED, DeadOps, MASS_DELETE, Outcome, ProcRecord, ProcStatus, REJECTED, RELEASED, StateTx,
    Store, StoreError,
};

/// What became of a message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Applied {
    /// A snapshot was applied (or recognised as a replay).
    Snapshot(SnapshotReport),
    /// A flight event (FLOP), ad-hoc flights (SCHD ADFT) or a deletion list
    /// (SCHD DEL) was applied; possibly changing nothing.
    Flights(EventReport),
    /// The message had already been processed to this final status; nothing
    /// was done again.
    AlreadyProcessed {
        /// Its recorded status.
        status: ProcStatus,
    },
    /// The mailbox row came again with another body under an id that had
    /// already reached a final status. Not applied, and the outcome recorded
    /// for the original body stands; this delivery's outcome is DEAD.
    ChangedBody {
        /// Why.
        reason: String,
    },
    /// The message can never be applied; recorded DEAD.
    Dead {
        /// Why.
        reason: String,
    },
    /// A snapshot the mass-delete guard holds (recorded HELD): nothing of
    /// it is applied, and the head of the queue waits for an operator's
    /// decision.
    Held {
        /// Why.
        reason: String,
    },
    /// A message flightstate does not apply; recorded FAILED(UNSUPPORTED).
    Unsupported {
        /// META TYPE.
        msg_type: String,
        /// META STYP.
        subtype: String,
    },
}

impl Applied {
    /// Whether the message had already reached a final status before this
    /// delivery of its row: the row was delivered again, and its write-back
    /// is a new call (see `mailbox::write_back_intent`).
    pub fn redelivered(&self) -> bool {
        matches!(
            self,
            Applied::AlreadyProcessed { .. } | Applied::ChangedBody { .. }
        )
    }

    /// The status of this delivery: recorded for the message, or, for a
    /// changed body, written back for the row alone.
    pub fn status(&self) -> ProcStatus {
        match self {
            Applied::Snapshot(_) | Applied::Flights(_) => ProcStatus::Succeeded,
            Applied::AlreadyProcessed { status } => *status,
            Applied::Dead { .. } | Applied::ChangedBody { .. } => ProcStatus::Dead,
            Applied::Unsupported { .. } => ProcStatus::Failed,
            Applied::Held { .. } => ProcStatus::Held,
        }
    }
}

/// Applies message `message_id` whose bytes are `body`, and records the
/// outcome.
///
/// Bad input is recorded DEAD and unsupported input FAILED(UNSUPPORTED);
/// both are reported in `Ok`, since the caller's work (moving on) is the
/// same. A message already SUCCEEDED or DEAD under the same identity is not
/// applied again.
///
/// # Errors
///
/// A [`PipelineError`] for a fault that may pass (database down, lost CAS
/// beyond the retries): it is recorded as FAILED(INFRA) when the database
/// allows, and the caller retries later. A fenced pump
/// ([`FailureKind::Fenced`]) records nothing: it must stop.
pub fn apply_message<S: Store>(
    store: &S,
    settings: &Settings,
    message_id: i64,
    body: &[u8],
    now: NaiveDateTime,
) -> Result<Applied, PipelineError> {
    let identity = identity_key(message_id, body);
    let mut record = Recorder::new(message_id, &identity, now);
    match Seen::of(
        message_id,
        &identity,
        store.transaction(|tx| tx.proc_state(message_id))?,
    ) {
        Seen::ChangedBody(reason) => return record.dead(store, reason),
        Seen::ChangedAfterFinal(reason) => return Ok(Applied::ChangedBody { reason }),
        Seen::Final(status) => return Ok(Applied::AlreadyProcessed { status }),
        Seen::Held(reason) => return Ok(Applied::Held { reason }),
        Seen::Rejected(reason) => return record.rejected(store, &reason),
        Seen::Released => record.released = true,
        Seen::ToApply => {}
    }
    crate::failpoint!("apply.before_parse");
    let received = Received {
        id: message_id,
        identity_key: &identity,
        now,
        released: record.released,
    };
    let parsed = if body.len() >= settings.stream_from_bytes {
        match apply_streamed(store, settings, received, body) {
            Streamed::Snapshot { kind, outcome } => {
                if let Some(meta) = kind {
                    record.msg_type = Some(meta.msg_type);
                    record.subtype = Some(meta.subtype);
                    record.sent = Some(meta.sent);
                }
                return record.outcome(store, settings, outcome.map(Applied::Snapshot));
            }
            Streamed::Other(parsed) => parsed,
        }
    } else {
        protocol::parse_slice(body, &settings.parse)
    };
    let message = match parsed {
        Ok(message) => message,
        Err(e) => return record.dead(store, format!("rejected: {e}")),
    };
    record.msg_type = Some(message.meta.msg_type.clone());
    record.subtype = Some(message.meta.styp.clone());
    record.sent = Some((message.meta.sndr.clone(), message.meta.seqn.clone()));
    crate::failpoint!("apply.after_parse");
    let result = apply_parsed(store, settings, received, &message);
    record.outcome(store, settings, result)
}

/// Records DEAD (`BYPASSED`) a head the pump gives up on under the bypass
/// rule (`pump.bypass_after_secs`), without applying it: a dead letter
/// like any other, that `flightstate dead requeue` applies again.
///
/// # Errors
///
/// A [`PipelineError`] when the record cannot be written; nothing changed.
pub fn bypass_message<S: Store>(
    store: &S,
    message_id: i64,
    body: &[u8],
    now: NaiveDateTime,
    reason: &str,
) -> Result<Applied, PipelineError> {
    let identity = identity_key(message_id, body);
    let mut record = Recorder::new(message_id, &identity, now);
    record.dead_as_recorded(store, BYPASSED, reason)
}

/// Applies a message read whole by the rule for its kind.
fn apply_parsed<S: Store>(
    store: &S,
    settings: &Settings,
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
    };
    match &message.body {
        Body::Schedule(schedule) if schedule.subtype.is_snapshot() => {
            let source = WholeSource {
                whole: Whole::of(
                    schedule,
                    settings,
                    request_day(store, message_ref, schedule)?,
                )?,
                msg_type: message_ref.msg_type,
                subtype: message_ref.subtype,
                sender: message_ref.sender,
                seqn: message_ref.seqn,
                dttm: message_ref.dttm,
            };
            apply_snapshot(store, settings, received, &source).map(Applied::Snapshot)
        }
        Body::Schedule(schedule) if schedule.subtype == ScheduleSubtype::Adft => {
            apply_adft(store, settings, message_ref, schedule).map(Applied::Flights)
        }
        Body::Schedule(schedule) if schedule.subtype == ScheduleSubtype::Del => {
            apply_delete(store, settings, message_ref, schedule).map(Applied::Flights)
        }
        Body::FlightOperation(operation) => {
            apply_event(store, settings, message_ref, operation).map(Applied::Flights)
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

/// What a message's `PROC_STATE` says about applying it now.
pub(super) enum Seen {
    /// Not seen, or seen and FAILED: apply it.
    ToApply,
    /// Already final under this identity: not applied again.
    Final(ProcStatus),
    /// Seen with another body under the same id while it was still FAILED:
    /// DEAD, with this reason.
    ChangedBody(String),
    /// Seen with another body under the same id after it reached a final
    /// status: not applied, its record untouched; this delivery is DEAD.
    ChangedAfterFinal(String),
    /// HELD by the mass-delete guard, waiting for an operator: not applied,
    /// for the reason it was held.
    Held(String),
    /// HELD, and an operator released it: apply it as it is.
    Released,
    /// HELD, and an operator rejected it: DEAD, for this reason.
    Rejected(String),
}

impl Seen {
    /// Tells from message `message_id`'s record, if any.
    pub(super) fn of(message_id: i64, identity: &str, record: Option<ProcRecord>) -> Seen {
        match record {
            Some(seen)
                if seen.identity_key != identity
                    && !matches!(seen.status, ProcStatus::Failed | ProcStatus::Held) =>
            {
                Seen::ChangedAfterFinal(format!(
                    "message {message_id} came again with another body after it was {}; the new body is not applied and the recorded outcome stands",
                    seen.status.code()
                ))
            }
            Some(seen) if seen.identity_key != identity => Seen::ChangedBody(format!(
                "message {message_id} was already seen with another body; the mailbox row changed under the same id"
            )),
            Some(seen) if seen.status == ProcStatus::Held => {
                let reason = seen.error_text.unwrap_or_default();
                match seen.error_kind.as_deref() {
                    Some(RELEASED) => Seen::Released,
                    Some(REJECTED) => Seen::Rejected(format!(
                        "rejected by an operator (flightstate reject) after it was held: {reason}"
                    )),
                    _ => Seen::Held(reason),
                }
            }
            Some(seen) if seen.status != ProcStatus::Failed => Seen::Final(seen.status),
            _ => Seen::ToApply,
        }
    }
}

/// Records outcomes of one message.
pub(super) struct Recorder<'a> {
    pub(super) message_id: i64,
    pub(super) identity: &'a str,
    pub(super) msg_type: Option<String>,
    pub(super) subtype: Option<String>,
    /// META SNDR and SEQN, once the message could be read that far: its
    /// outcome counts its SEQN (`seqn_evidence`).
    pub(super) sent: Option<(String, String)>,
    pub(super) now: NaiveDateTime,
    /// An operator released the message from a hold: a failure that may
    /// pass leaves it HELD and released, so that the next attempt is still
    /// applied as it is.
    pub(super) released: bool,
}

impl<'a> Recorder<'a> {
    /// The recorder of message `message_id`, its kind not known yet.
    fn new(message_id: i64, identity: &'a str, now: NaiveDateTime) -> Self {
        Recorder {
            message_id,
            identity,
            msg_type: None,
            subtype: None,
            sent: None,
            now,
            released: false,
        }
    }

    /// Records the outcome inside the caller's transaction.
    pub(super) fn record<T: StateTx + ?Sized>(
        &self,
        tx: &mut T,
        status: ProcStatus,
        error_kind: &str,
        error_text: &str,
    ) -> Result<(), StoreError> {
        // PROC_STATE.ERROR_TEXT is VARCHAR(2000).
        let error_text: String = error_text.chars().take(2000).collect();
        tx.record_outcome(&Outcome {
            message_id: self.message_id,
            identity_key: self.identity,
            status,
            error_kind: Some(error_kind),
            error_text: Some(&error_text),
            msg_type: self.msg_type.as_deref(),
            msg_subtype: self.subtype.as_deref(),
            next_attempt_at: None,
            now: self.now,
        })?;
        match &self.sent {
            Some((sender, seqn)) => seqn_evidence::count(
                tx,
                &[Sent {
                    message_id: self.message_id,
                    sender,
                    seqn,
                }],
                self.now,
            ),
            None => Ok(()),
        }
    }

    /// Records the outcome in a transaction of its own.
    fn save<S: Store>(
        &self,
        store: &S,
        status: ProcStatus,
        error_kind: &str,
        error_text: &str,
    ) -> Result<(), StoreError> {
        store.transaction(|tx| self.record(tx, status, error_kind, error_text))
    }

    /// Records an attempt at a message of a type flightstate does not apply:
    /// FAILED(UNSUPPORTED), or DEAD once this attempt reaches `threshold`.
    fn unsupported<S: Store>(
        &self,
        store: &S,
        threshold: Option<i32>,
        msg_type: String,
        subtype: String,
    ) -> Result<Applied, PipelineError> {
        let reason = format!("unsupported message {msg_type}/{subtype}");
        let applied = store.transaction(|tx| {
            let attempt = tx.proc_state(self.message_id)?.map_or(0, |r| r.attempts) + 1;
            if threshold.is_some_and(|t| attempt >= t) {
                let reason = format!("{reason}; DEAD after {attempt} attempts");
                self.record(tx, ProcStatus::Dead, "UNSUPPORTED", &reason)?;
                return Ok::<_, StoreError>(Applied::Dead { reason });
            }
            self.record(tx, ProcStatus::Failed, "UNSUPPORTED", &reason)?;
            Ok(Applied::Unsupported {
                msg_type: msg_type.clone(),
                subtype: subtype.clone(),
            })
        })?;
        Ok(applied)
    }

    /// Records what `result` says of the message: bad input DEAD,
    /// unsupported input FAILED(UNSUPPORTED) (DEAD at the threshold), values
    /// the database refused DEAD, any other failure FAILED (and returned).
    fn outcome<S: Store>(
        &self,
        store: &S,
        settings: &Settings,
        result: Result<Applied, PipelineError>,
    ) -> Result<Applied, PipelineError> {
        match result {
            Ok(applied) => Ok(applied),
            Err(PipelineError::BadInput(reason)) => self.dead(store, reason),
            Err(PipelineError::Held(held)) => {
                let reason = held.to_string();
                self.save(store, ProcStatus::Held, MASS_DELETE, &reason)?;
                Ok(Applied::Held { reason })
            }
            Err(PipelineError::Unsupported { msg_type, subtype }) => {
                self.unsupported(store, settings.unsupported_threshold, msg_type, subtype)
            }
            // The lease moved on: the message is the new holder's, left as it is.
            Err(e) if e.kind() == FailureKind::Fenced => Err(e),
            // The database refused this message's own values: the same values
            // fail the same way every time, so retrying would block the head for
            // ever. The database's words are in the reason.
            Err(e) if !e.kind().retryable() => {
                let reason = Causes(&e).to_string();
                self.save(store, ProcStatus::Dead, e.error_kind(), &reason)?;
                Ok(Applied::Dead { reason })
            }
            Err(e) => {
                let (status, kind) = if self.released {
                    (ProcStatus::Held, RELEASED)
                } else {
                    (ProcStatus::Failed, e.error_kind())
                };
                // Recording is best effort: the database may be what failed.
                if let Err(again) = self.save(store, status, kind, &Causes(&e).to_string()) {
                    tracing::warn!(msg.id = self.message_id, error = %Causes(&again), "cannot record the failure");
                }
                Err(e)
            }
        }
    }

    /// Records DEAD a held message an operator rejected, keeping the
    /// message kind it was recorded with (it is not read again).
    fn rejected<S: Store>(&mut self, store: &S, reason: &str) -> Result<Applied, PipelineError> {
        self.dead_as_recorded(store, REJECTED, reason)
    }

    /// Records the message DEAD with `error_kind`, keeping the message
    /// kind its earlier attempts recorded (it is not read again).
    fn dead_as_recorded<S: Store>(
        &mut self,
        store: &S,
        error_kind: &str,
        reason: &str,
    ) -> Result<Applied, PipelineError> {
        let known = store.transaction(|tx| tx.select_message_record(self.message_id))?;
        if let Some(known) = known {
            (self.msg_type, self.subtype) = (known.msg_type, known.msg_subtype);
        }
        self.save(store, ProcStatus::Dead, error_kind, reason)?;
        Ok(Applied::Dead {
            reason: reason.to_owned(),
        })
    }

    fn dead<S: Store>(&self, store: &S, reason: String) -> Result<Applied, PipelineError> {
        self.save(store, ProcStatus::Dead, "BAD_INPUT", &reason)?;
        Ok(Applied::Dead { reason })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(error_kind: &str, identity: &str) -> Option<ProcRecord> {
        Some(ProcRecord {
            identity_key: identity.to_owned(),
            status: ProcStatus::Held,
            error_kind: Some(error_kind.to_owned()),
            error_text: Some("would delete 180 of the 200 flights".to_owned()),
            attempts: 1,
        })
    }

    #[test]
    fn a_held_message_waits_until_an_operator_answers() {
        assert!(matches!(
            Seen::of(7, "k", held(MASS_DELETE, "k")),
            Seen::Held(reason) if reason.contains("180 of the 200")
        ));
        assert!(matches!(
            Seen::of(7, "k", held(RELEASED, "k")),
            Seen::Released
        ));
        assert!(matches!(
            Seen::of(7, "k", held(REJECTED, "k")),
            Seen::Rejected(reason)
                if reason.starts_with("rejected by an operator") && reason.contains("180 of the 200")
        ));
        // Another body under the held id is dead, as for a FAILED one.
        assert!(matches!(
            Seen::of(7, "other", held(MASS_DELETE, "k")),
            Seen::ChangedBody(_)
        ));
    }
}
