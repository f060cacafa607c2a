//! The per-message view of the state database: every transaction that
//! leaves a message with a final `PROC_STATE` is fenced by the pump's epoch
//! and records the message's write-back intent before it commits (DESIGN
//! §6.1), and a row delivered again is written back again.

use std::sync::Arc;

use chrono::NaiveDateTime;

use super::{Pump, utc_now};
use crate::FailureKind;
use crate::journal::{Recorded, record_intent};
use crate::mailbox::{MailboxSettings, write_back_intent};
use crate::store::{DeadOps, JournalOps, ProcStatus, StateTx, Store, StoreError};

pub(super) fn fenced(held: Option<i64>, current: i64) -> StoreError {
    StoreError::new(
        FailureKind::Conflict,
        "check the pump lease",
        format!("the pump lease moved to epoch {current} (this pump holds {held:?})"),
    )
}

impl<S: Store + Clone> Pump<S> {
    /// Records the write-back of a row delivered again after its message was
    /// final (see [`journal_write_back`]), fenced like every transaction of a
    /// message.
    pub(super) fn journal_redelivery(
        &self,
        message_id: i64,
        status: ProcStatus,
        epoch: i64,
    ) -> Result<(), StoreError> {
        let mailbox = self.mailbox.settings().clone();
        let now = utc_now();
        self.store.transaction(|tx| {
            let lease = tx.lock_pipeline()?;
            if lease.epoch != epoch {
                return Err(fenced(Some(epoch), lease.epoch));
            }
            journal_write_back(tx, &mailbox, message_id, status, true, now)?;
            seal_point()
        })
    }
}

/// The state database as one message's transactions see it: every
/// transaction that leaves the message with a final `PROC_STATE` is fenced
/// by the pump's epoch under `PIPELINE_LOCK` and records the message's
/// write-back intent before it commits (DESIGN §6.1), whichever rule of the
/// pipeline ran it.
///
/// A second look at an already committed message reads its final
/// `PROC_STATE` in the pipeline's first transaction, so the same hook
/// re-records (idempotently) the intent that the write-back is redone from.
pub struct MessageStore<S> {
    inner: S,
    mailbox: Arc<MailboxSettings>,
    message_id: i64,
    fence: Option<i64>,
    now: NaiveDateTime,
}

impl<S: Store> MessageStore<S> {
    /// `inner` seen by message `message_id`, fenced at `fence` (none for
    /// tools outside the pump).
    pub fn new(
        inner: S,
        mailbox: Arc<MailboxSettings>,
        message_id: i64,
        fence: Option<i64>,
        now: NaiveDateTime,
    ) -> MessageStore<S> {
        MessageStore {
            inner,
            mailbox,
            message_id,
            fence,
            now,
        }
    }

    fn seal<T>(&self, tx: &mut T) -> Result<(), StoreError>
    where
        T: StateTx + JournalOps + DeadOps,
    {
        let Some(record) = tx.proc_state(self.message_id)? else {
            return Ok(());
        };
        if let Some(fence) = self.fence {
            let lease = tx.lock_pipeline()?;
            if lease.epoch != fence {
                return Err(fenced(Some(fence), lease.epoch));
            }
        }
        journal_write_back(
            tx,
            &self.mailbox,
            self.message_id,
            record.status,
            false,
            self.now,
        )?;
        seal_point()
    }
}

/// Records, in the transaction that gave message `message_id` its final
/// `status`, the intent of its mailbox write-back (DESIGN §6.1).
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
pub(super) fn journal_write_back<T: JournalOps + DeadOps + ?Sized>(
    tx: &mut T,
    mailbox: &MailboxSettings,
    message_id: i64,
    status: ProcStatus,
    redelivered: bool,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
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

#[cfg(feature = "failpoints")]
pub(super) fn seal_point() -> Result<(), StoreError> {
    crate::failpoint::hit("pump.before_commit")
        .map_err(|e| StoreError::new(FailureKind::Other, "failpoint pump.before_commit", e))
}

#[cfg(not(feature = "failpoints"))]
pub(super) fn seal_point() -> Result<(), StoreError> {
    Ok(())
}

impl<S: Store> Store for MessageStore<S> {
    type Tx<'c>
        = S::Tx<'c>
    where
        Self: 'c;

    fn transaction<T, E, F>(&self, work: F) -> Result<T, E>
    where
        E: From<StoreError>,
        F: FnOnce(&mut Self::Tx<'_>) -> Result<T, E>,
    {
        self.inner.transaction(|tx| {
            let value = work(tx)?;
            self.seal(tx)?;
            Ok(value)
        })
    }
}
