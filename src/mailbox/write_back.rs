//! The mailbox write-back as a journaled effect (DESIGN §6): the intent a
//! message's final transaction records, and the call that marks its row
//! processed with the status of its outcome.

use chrono::NaiveDateTime;

use super::{Mailbox, MailboxSettings};
use crate::journal::{CallResult, Effect, Intent, ReadBack, Recorded, record_intent};
use crate::store::{DeadOps, JournalOps, ProcStatus, StoreError, StoredCall};

/// The `CALL_KIND` of a write-back.
pub const WRITE_BACK_KIND: &str = "BACKFILL";
const WRITE_BACK_SCOPE: &str = "mailbox";
const WRITE_BACK_STEP: &str = "write-back";
/// The start of a write-back's `TARGET`; the message id follows.
pub const WRITE_BACK_TARGET_PREFIX: &str = "cminmsgs:";

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
    settings: &MailboxSettings,
    message_id: i64,
    status: ProcStatus,
    requeue: i32,
    delivery: u32,
) -> Option<Intent> {
    let value = match status {
        ProcStatus::Succeeded => &settings.succeeded_status,
        ProcStatus::Dead => &settings.dead_status,
        ProcStatus::Failed | ProcStatus::Held => return None,
    };
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
        payload: value.clone(),
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

/// Records, in the transaction that gave `message` its final status, the
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
    mailbox: &MailboxSettings,
    message: FinalRow,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    let FinalRow {
        id: message_id,
        status,
        redelivered,
    } = message;
    let requeue = if redelivered {
        requeue_count(tx, message_id)?
    } else {
        0
    };
    let mut recorded = journal_at(tx, mailbox, message_id, status, (requeue, redelivered), now)?;
    if !redelivered
        && matches!(
            recorded,
            Some((Recorded::Existing(_) | Recorded::DigestMismatch(_), _))
        )
    {
        let requeue = requeue_count(tx, message_id)?;
        if requeue > 0 {
            recorded = journal_at(tx, mailbox, message_id, status, (requeue, false), now)?;
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
    mailbox: &MailboxSettings,
    message_id: i64,
    status: ProcStatus,
    (requeue, redelivered): (i32, bool),
    now: NaiveDateTime,
) -> Result<Option<(Recorded, u32)>, StoreError> {
    let mut delivery = 0;
    let intent = loop {
        let Some(intent) = write_back_intent(mailbox, message_id, status, requeue, delivery) else {
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

fn target_id(call: &StoredCall) -> Option<i64> {
    call.target
        .strip_prefix(WRITE_BACK_TARGET_PREFIX)?
        .parse()
        .ok()
}

/// The mailbox row `call` writes back, if it is a write-back.
pub fn written_back_row(call: &StoredCall) -> Option<i64> {
    (call.call_kind == WRITE_BACK_KIND)
        .then(|| target_id(call))
        .flatten()
}

/// The mailbox write-back as a journaled [`Effect`].
pub struct WriteBack<'m> {
    mailbox: &'m Mailbox,
}

impl<'m> WriteBack<'m> {
    /// The write-back effect on `mailbox`.
    pub fn new(mailbox: &'m Mailbox) -> WriteBack<'m> {
        WriteBack { mailbox }
    }
}

impl Effect for WriteBack<'_> {
    fn call_kind(&self) -> &'static str {
        WRITE_BACK_KIND
    }

    fn call(&self, calls: &[&StoredCall]) -> Vec<CallResult> {
        let mut results = vec![CallResult::Rejected; calls.len()];
        let mut items = Vec::with_capacity(calls.len());
        let mut positions = Vec::with_capacity(calls.len());
        for (i, call) in calls.iter().enumerate() {
            // A target that is not ours is refused without a call.
            if let Some(id) = target_id(call) {
                items.push((id, call.payload.as_str()));
                positions.push(i);
            }
        }
        if items.is_empty() {
            return results;
        }
        for (i, result) in positions.into_iter().zip(self.mailbox.write_back(&items)) {
            results[i] = result;
        }
        results
    }

    /// The guarded UPDATE makes a late duplicate harmless, so a row still
    /// pending is `NotApplied` and may be written back in a later attempt.
    fn read_back(
        &self,
        call: &StoredCall,
    ) -> Result<ReadBack, Box<dyn std::error::Error + Send + Sync>> {
        let Some(id) = target_id(call) else {
            return Ok(ReadBack::Rejected);
        };
        Ok(match self.mailbox.message_state(id)? {
            None => ReadBack::Rejected,
            Some(row) if !row.processed => ReadBack::NotApplied,
            Some(row) if row.status.as_deref() == Some(call.payload.as_str()) => ReadBack::Done {
                remote_ref: Some(id.to_string()),
            },
            Some(_) => ReadBack::Conflict,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn final_statuses_get_an_intent() {
        let settings = MailboxSettings {
            url: "mysql://x".into(),
            pending_status: "VALID".into(),
            succeeded_status: "PROCESSED".into(),
            dead_status: "DEAD".into(),
            pool_size: 1,
            connect_timeout: Duration::from_secs(1),
            io_timeout: Duration::from_secs(1),
            idle_in_transaction: None,
        };
        let intent = write_back_intent(&settings, 42, ProcStatus::Dead, 0, 0).expect("final");
        assert_eq!(intent.sub_key, "backfill:42");
        assert_eq!(intent.payload, "DEAD");
        let again = write_back_intent(&settings, 42, ProcStatus::Succeeded, 0, 2).expect("final");
        assert_eq!(again.sub_key, "backfill:42:resent:2");
        assert_eq!(again.payload, "PROCESSED");
        let requeued = write_back_intent(&settings, 42, ProcStatus::Succeeded, 1, 0);
        assert_eq!(requeued.expect("final").sub_key, "backfill:42:requeue:1");
        let both = write_back_intent(&settings, 42, ProcStatus::Dead, 3, 2).expect("final");
        assert_eq!(both.sub_key, "backfill:42:requeue:3:resent:2");
        assert!(write_back_intent(&settings, 42, ProcStatus::Failed, 0, 0).is_none());
    }
}
