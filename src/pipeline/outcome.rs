//! What an attempt leaves of a message: its outcome ([`Applied`]) with the
//! rule's report, as its `PROC_STATE` record tells it before the attempt
//! ([`RecordedBefore`]) and as the attempt records it (`Attempt::record`
//! and the outcomes recorded in a transaction of their own).

use chrono::NaiveDate;
use serde::Serialize;

use super::PipelineError;
use super::attempt::Attempt;
use super::evidence::seqn::{self, Sent};
use crate::FailureKind;
use crate::failure::Causes;
use crate::state::DaySource;
use crate::store::{
    DeadOps, MASS_DELETE, Outcome, ProcRecord, ProcStatus, REJECTED, RELEASED, StateTx, Store,
    StoreError,
};

/// Serialises a notice payload.
///
/// # Errors
///
/// A value that cannot be written as JSON fails the message (DEAD, with the
/// reason): a notice is what the change topic's readers get, and a payload
/// put in its place would reach them as if it were the notice. The same
/// values fail the same way every time, so retrying would not help.
pub(super) fn json(value: &impl Serialize) -> Result<String, PipelineError> {
    serde_json::to_string(value).map_err(|e| {
        PipelineError::BadInput(format!("a change notice cannot be written as JSON: {e}"))
    })
}

/// What applying a snapshot did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnapshotReport {
    /// The operation day.
    pub operation_day: NaiveDate,
    /// Where the day came from.
    pub day_source: DaySource,
    /// The day's snapshot version after the message (unchanged by a replay).
    pub version: i64,
    /// Whether the message was the day's latest snapshot again (nothing
    /// changed).
    pub replay: bool,
    /// Flights in the snapshot.
    pub flights: usize,
    /// Flights created.
    pub created: usize,
    /// Flights whose state or day changed.
    pub updated: usize,
    /// Flights already in exactly that state.
    pub unchanged: usize,
    /// Flights deleted from the day (with tombstones).
    pub deleted: Vec<i64>,
    /// Flights the snapshot lists but left on the later day they belong to
    /// (`station.day_moves = forward_only`), state unchanged, in input
    /// order. Absent from the notice when there are none, so that the
    /// notices of snapshots that moved nothing keep their shape.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kept_on_later_day: Vec<i64>,
    /// In how many parts the flights were written while the message was
    /// still being read (`pipeline::snapshot::streamed`); 0 when it was read whole.
    /// How the day was applied, not what was applied: not in the notice.
    #[serde(skip)]
    pub streamed_parts: usize,
}
/// What applying a flight event, an ad-hoc flight or an SCHD DEL did, by
/// FLID in the order the message named them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct EventReport {
    /// `TYPE/STYP` of the message.
    pub event: String,
    /// Flights created (operation day not known yet).
    pub created: Vec<i64>,
    /// Flights whose state changed.
    pub updated: Vec<i64>,
    /// Flights deleted (with tombstones).
    pub deleted: Vec<i64>,
    /// Flights named whose state the message left as it was.
    pub unchanged: Vec<i64>,
}

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
    /// is a new call (see `journal::write_back_intent`).
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

/// What a message's `PROC_STATE` says about applying it now.
pub(super) enum RecordedBefore {
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

impl RecordedBefore {
    /// Tells from message `message_id`'s record, if any.
    pub(super) fn of(
        message_id: i64,
        identity: &str,
        record: Option<ProcRecord>,
    ) -> RecordedBefore {
        match record {
            Some(seen)
                if seen.identity_key != identity
                    && !matches!(seen.status, ProcStatus::Failed | ProcStatus::Held) =>
            {
                RecordedBefore::ChangedAfterFinal(format!(
                    "message {message_id} came again with another body after it was {}; the new body is not applied and the recorded outcome stands",
                    seen.status.code()
                ))
            }
            Some(seen) if seen.identity_key != identity => RecordedBefore::ChangedBody(format!(
                "message {message_id} was already seen with another body; the mailbox row changed under the same id"
            )),
            Some(seen) if seen.status == ProcStatus::Held => {
                let reason = seen.error_text.unwrap_or_default();
                match seen.error_kind.as_deref() {
                    Some(RELEASED) => RecordedBefore::Released,
                    Some(REJECTED) => RecordedBefore::Rejected(format!(
                        "rejected by an operator (flightstate reject) after it was held: {reason}"
                    )),
                    _ => RecordedBefore::Held(reason),
                }
            }
            Some(seen) if seen.status != ProcStatus::Failed => RecordedBefore::Final(seen.status),
            _ => RecordedBefore::ToApply,
        }
    }
}

/// How an attempt records what became of its message: in the rule's own
/// transaction ([`Attempt::record`]), or in a transaction of its own for an
/// outcome the rule did not reach.
impl Attempt<'_> {
    /// Records the outcome inside the caller's transaction, with the
    /// message's kind and its SEQN evidence once its META was read.
    pub(super) fn record<T: StateTx + ?Sized>(
        &self,
        tx: &mut T,
        status: ProcStatus,
        error_kind: &str,
        error_text: &str,
    ) -> Result<(), StoreError> {
        let meta = self.meta();
        let kind = (
            meta.map(|m| m.msg_type.as_str()),
            meta.map(|m| m.styp.as_str()),
        );
        self.record_as(tx, status, kind, error_kind, error_text)?;
        match Sent::of(self) {
            Some(sent) => seqn::count(tx, &[sent], self.now),
            None => Ok(()),
        }
    }

    /// Records the outcome of the message of kind `(msg_type, subtype)`.
    fn record_as<T: StateTx + ?Sized>(
        &self,
        tx: &mut T,
        status: ProcStatus,
        (msg_type, msg_subtype): (Option<&str>, Option<&str>),
        error_kind: &str,
        error_text: &str,
    ) -> Result<(), StoreError> {
        // PROC_STATE.ERROR_TEXT is VARCHAR(2000).
        let error_text: String = error_text.chars().take(2000).collect();
        tx.record_outcome(&Outcome {
            message_id: self.message_id,
            identity_key: self.identity_key(),
            status,
            error_kind: Some(error_kind),
            error_text: Some(&error_text),
            msg_type,
            msg_subtype,
            next_attempt_at: None,
            now: self.now,
            received_at: self.received_at,
        })
    }

    /// Records the outcome in a transaction of its own, sealed like every
    /// transaction of the attempt.
    fn save<S: Store>(
        &self,
        store: &S,
        status: ProcStatus,
        error_kind: &str,
        error_text: &str,
    ) -> Result<(), StoreError> {
        self.transaction(store, |tx| {
            self.record(tx, status, error_kind, error_text)?;
            Ok(((), status))
        })
    }

    /// Records an attempt at a message of a type flightstate does not apply:
    /// FAILED(UNSUPPORTED), or DEAD once this attempt reaches the attempt's
    /// threshold.
    fn unsupported<S: Store>(
        &self,
        store: &S,
        msg_type: String,
        subtype: String,
    ) -> Result<Applied, PipelineError> {
        let reason = format!("unsupported message {msg_type}/{subtype}");
        let threshold = self.unsupported_threshold();
        let applied = self.transaction(store, |tx| {
            let tries = tx.proc_state(self.message_id)?.map_or(0, |r| r.attempts) + 1;
            if threshold.is_some_and(|t| tries >= t) {
                let reason = format!("{reason}; DEAD after {tries} attempts");
                self.record(tx, ProcStatus::Dead, "UNSUPPORTED", &reason)?;
                Ok::<_, StoreError>((Applied::Dead { reason }, ProcStatus::Dead))
            } else {
                self.record(tx, ProcStatus::Failed, "UNSUPPORTED", &reason)?;
                let (msg_type, subtype) = (msg_type.clone(), subtype.clone());
                let applied = Applied::Unsupported { msg_type, subtype };
                Ok((applied, ProcStatus::Failed))
            }
        })?;
        Ok(applied)
    }

    /// Records what `result` says of the message: bad input DEAD,
    /// unsupported input FAILED(UNSUPPORTED) (DEAD at the threshold), values
    /// the database refused DEAD, any other failure FAILED (and returned).
    pub(super) fn outcome<S: Store>(
        &self,
        store: &S,
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
                self.unsupported(store, msg_type, subtype)
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
                let (status, kind) = if self.released() {
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
    pub(super) fn rejected<S: Store>(
        &self,
        store: &S,
        reason: &str,
    ) -> Result<Applied, PipelineError> {
        self.dead_as_recorded(store, REJECTED, reason)
    }

    /// Records the message DEAD with `error_kind`, keeping the message
    /// kind its earlier attempts recorded (it is not read again).
    pub(super) fn dead_as_recorded<S: Store>(
        &self,
        store: &S,
        error_kind: &str,
        reason: &str,
    ) -> Result<Applied, PipelineError> {
        let known = store.transaction(|tx| tx.select_message_record(self.message_id))?;
        let kind = known.as_ref().map_or((None, None), |known| {
            (known.msg_type.as_deref(), known.msg_subtype.as_deref())
        });
        self.transaction(store, |tx| {
            self.record_as(tx, ProcStatus::Dead, kind, error_kind, reason)?;
            Ok::<_, StoreError>(((), ProcStatus::Dead))
        })?;
        Ok(Applied::Dead {
            reason: reason.to_owned(),
        })
    }

    /// Records the message DEAD as bad input.
    pub(super) fn dead<S: Store>(
        &self,
        store: &S,
        reason: String,
    ) -> Result<Applied, PipelineError> {
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
            RecordedBefore::of(7, "k", held(MASS_DELETE, "k")),
            RecordedBefore::Held(reason) if reason.contains("180 of the 200")
        ));
        assert!(matches!(
            RecordedBefore::of(7, "k", held(RELEASED, "k")),
            RecordedBefore::Released
        ));
        assert!(matches!(
            RecordedBefore::of(7, "k", held(REJECTED, "k")),
            RecordedBefore::Rejected(reason)
                if reason.starts_with("rejected by an operator") && reason.contains("180 of the 200")
        ));
        // Another body under the held id is dead, as for a FAILED one.
        assert!(matches!(
            RecordedBefore::of(7, "other", held(MASS_DELETE, "k")),
            RecordedBefore::ChangedBody(_)
        ));
    }

    /// No notice the rules write can fail to serialise (they are JSON
    /// objects with string keys, and reports of plain values), so no real
    /// input reaches this path: a map with non-string keys stands in for a
    /// payload that serde_json refuses.
    #[test]
    fn a_payload_that_does_not_serialise_is_an_error_not_a_payload() {
        let unserialisable = std::collections::BTreeMap::from([((1, 2), "pair key")]);
        let e = json(&unserialisable).expect_err("serde_json refuses non-string keys");
        assert_eq!(e.kind(), crate::FailureKind::BadInput);
        assert!(
            e.to_string()
                .starts_with("a change notice cannot be written as JSON: "),
            "{e}"
        );
        assert_eq!(
            json(&serde_json::json!({"a": 1})).ok().as_deref(),
            Some(r#"{"a":1}"#)
        );
    }
}
