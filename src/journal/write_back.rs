//! The mailbox write-back's intent (DESIGN §6.1): which status of a message
//! is final and what is written back for it, how its call is named, and its
//! recording in the transaction that gave the message that status. The call
//! itself is the mailbox's (`mailbox::WriteBack`); the clean-up and
//! `flightstate dead` read the same names from here.

use chrono::NaiveDateTime;

use super::{Intent, Recorded, record_intent};
use crate::store::{DeadOps, JournalOps, ProcStatus, StoreError, StoredCall};

/// The `CALL_KIND` of a write-back.
pub const WRITE_BACK_KIND: &str = "BACKFILL";
const WRITE_BACK_SCOPE: &str = "mailbox";
const WRITE_BACK_STEP: &str = "write-back";
/// The start of a write-back's `TARGET`; the message id follows.
pub const WRITE_BACK_TARGET_PREFIX: &str = "cminmsgs:";

/// The `CMINMSGS_STATUS` values the site writes back for a final status:
/// all a transaction needs of the mailbox to seal a message (the mailbox's
/// own settings stay with the mailbox).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteBackStatuses {
    /// Written back for a message applied (SUCCEEDED).
    pub succeeded: String,
    /// Written back for a dead letter (DEAD).
    pub dead: String,
}

impl WriteBackStatuses {
    /// The value written back for `status`; `None` for a status that is
    /// not final (FAILED, HELD): such a row is not written back.
    pub fn of(&self, status: ProcStatus) -> Option<&str> {
        match status {
            ProcStatus::Succeeded => Some(&self.succeeded),
            ProcStatus::Dead => Some(&self.dead),
            ProcStatus::Failed | ProcStatus::Held => None,
        }
    }
}

/// The write-back intent of message `message_id` whose final status is
/// `status`, or `None` for a status that is not final (FAILED).
///
/// `delivery` counts how often the row was delivered pending: 0 for its
/// first write-back (`backfill:{id}`); a row set back to pending after it
/// was written back (AODB or an operator re-sent it, a mailbox backup was
/// restored) is written back again by a new call named after that
/// redelivery (`backfill:{id}:resent:{n}`), since the first call is
/// finished and is never made twice. `requeue` is the message's
/// `PROC_STATE.REQUEUE_COUNT`: the outcome after an operator's n-th requeue
/// is written back by calls of its own (`backfill:{id}:requeue:{n}`, then
/// `…:requeue:{n}:resent:{k}`).
pub fn write_back_intent(
    statuses: &WriteBackStatuses,
    message_id: i64,
    status: ProcStatus,
    requeue: i32,
    delivery: u32,
) -> Option<Intent> {
    let value = statuses.of(status)?;
    Some(Intent {
        scope: WRITE_BACK_SCOPE.to_owned(),
        step: WRITE_BACK_STEP.to_owned(),
        sub_key: match (requeue, delivery) {
            (0, 0) => format!("backfill:{message_id}"),
            (0, n) => format!("backfill:{message_id}:resent:{n}"),
            (r, 0) => format!("backfill:{message_id}:requeue:{r}"),
            (r, n) => format!("backfill:{message_id}:requeue:{r}:resent:{n}"),
        },
        call_kind: WRITE_BACK_KIND.to_owned(),
        target: format!("{WRITE_BACK_TARGET_PREFIX}{message_id}"),
        payload: value.to_owned(),
        deadline_at: None,
    })
}

/// A mailbox row a transaction leaves with a final status, to be written
/// back.
#[derive(Clone, Copy, Debug)]
pub struct FinalRow {
    /// The message (its mailbox row).
    pub id: i64,
    /// Its `PROC_STATE` status.
    pub status: ProcStatus,
    /// Whether it was final before this delivery of its row (see
    /// [`record_write_back`]).
    pub redelivered: bool,
}

/// Records, in the transaction that gave `row` its final status, the
/// intent of its mailbox write-back (DESIGN §6.1): the last step of every
/// transaction of the pump that leaves a message final
/// (`pipeline::Attempt::seal`).
///
/// # Errors
///
/// A [`StoreError`] when a statement fails; the caller rolls back.
///
/// A `redelivered` row (its message was final before this delivery) is
/// written back again by a new call named after the redelivery, unless a
/// write-back of it is still on its way: a settled call is never made
/// twice, and a row left pending would hold the head for ever (DESIGN §4
/// "Redelivery"). Redeliveries are rare, so they are found by looking up
/// `backfill:{id}`, `backfill:{id}:resent:1`, … until one is missing.
///
/// A message an operator requeued (`flightstate dead requeue`) is written
/// back by calls named after its requeue count. The count is read only when
/// the first write-back's key is journaled already (a second look, a
/// redelivery, a requeue), so a message's usual first write-back costs no
/// extra statement.
pub fn record_write_back<T: JournalOps + DeadOps + ?Sized>(
    tx: &mut T,
    statuses: &WriteBackStatuses,
    row: FinalRow,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    let FinalRow {
        id: message_id,
        status,
        redelivered,
    } = row;
    let requeue = if redelivered {
        requeue_count(tx, message_id)?
    } else {
        0
    };
    let mut recorded = journal_at(
        tx,
        statuses,
        message_id,
        status,
        (requeue, redelivered),
        now,
    )?;
    if !redelivered
        && matches!(
            recorded,
            Some((Recorded::Existing(_) | Recorded::DigestMismatch(_), _))
        )
    {
        let requeue = requeue_count(tx, message_id)?;
        if requeue > 0 {
            recorded = journal_at(tx, statuses, message_id, status, (requeue, false), now)?;
        }
    }
    match recorded {
        Some((Recorded::DigestMismatch(call_id), _)) => {
            // The message changed outcome under the same id: the journaled
            // write-back stands, since its digest can never change.
            tracing::warn!(
                effect.call_id = call_id,
                status = status.code(),
                "a write-back with another status is already journaled; it stands"
            );
        }
        Some((Recorded::New(call_id), delivery)) if delivery > 0 => {
            tracing::info!(
                effect.call_id = call_id,
                delivery,
                status = status.code(),
                "the mailbox row came again after its write-back; it is written back again"
            );
        }
        _ => {}
    }
    Ok(())
}

fn requeue_count<T: DeadOps + ?Sized>(tx: &mut T, message_id: i64) -> Result<i32, StoreError> {
    Ok(tx
        .select_message_record(message_id)?
        .map_or(0, |r| r.requeue_count))
}

/// Records the write-back of the `requeue`-th requeue of the message (0: the
/// message as first delivered); with `redelivered`, the first of its
/// deliveries that has no journaled call yet. `None` when nothing is to be
/// recorded (a status that is not final, or a write-back still on its way).
fn journal_at<T: JournalOps + ?Sized>(
    tx: &mut T,
    statuses: &WriteBackStatuses,
    message_id: i64,
    status: ProcStatus,
    (requeue, redelivered): (i32, bool),
    now: NaiveDateTime,
) -> Result<Option<(Recorded, u32)>, StoreError> {
    let mut delivery = 0;
    let intent = loop {
        let Some(intent) = write_back_intent(statuses, message_id, status, requeue, delivery)
        else {
            return Ok(None);
        };
        if !redelivered {
            break intent;
        }
        match tx.select_effect_call(&intent.idempotency_key())? {
            None => break intent,
            Some(call) if !call.status.settled() => return Ok(None),
            Some(_) => delivery += 1,
        }
    };
    Ok(Some((record_intent(tx, &intent, now)?, delivery)))
}

/// The mailbox row a write-back call targets, whatever its kind says;
/// `None` for a target that is no mailbox row.
pub fn write_back_target(call: &StoredCall) -> Option<i64> {
    call.target
        .strip_prefix(WRITE_BACK_TARGET_PREFIX)?
        .parse()
        .ok()
}

/// The mailbox row `call` writes back, if it is a write-back.
pub fn written_back_row(call: &StoredCall) -> Option<i64> {
    (call.call_kind == WRITE_BACK_KIND)
        .then(|| write_back_target(call))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_statuses_get_an_intent() {
        let statuses = WriteBackStatuses {
            succeeded: "PROCESSED".into(),
            dead: "DEAD".into(),
        };
        let intent = write_back_intent(&statuses, 42, ProcStatus::Dead, 0, 0).expect("final");
        assert_eq!(intent.sub_key, "backfill:42");
        assert_eq!(intent.payload, "DEAD");
        let again = write_back_intent(&statuses, 42, ProcStatus::Succeeded, 0, 2).expect("final");
        assert_eq!(again.sub_key, "backfill:42:resent:2");
        assert_eq!(again.payload, "PROCESSED");
        let requeued = write_back_intent(&statuses, 42, ProcStatus::Succeeded, 1, 0);
        assert_eq!(requeued.expect("final").sub_key, "backfill:42:requeue:1");
        let both = write_back_intent(&statuses, 42, ProcStatus::Dead, 3, 2).expect("final");
        assert_eq!(both.sub_key, "backfill:42:requeue:3:resent:2");
        assert!(write_back_intent(&statuses, 42, ProcStatus::Failed, 0, 0).is_none());
        assert!(write_back_intent(&statuses, 42, ProcStatus::Held, 0, 0).is_none());
    }
}
