//! The fence and the write-back intent of the pump's transactions: every
//! transaction that leaves a message with a final `PROC_STATE` is fenced by
//! the pump's epoch and records the message's write-back intent before it
//! commits (DESIGN §6.1), by one function, [`seal`], whether the transaction
//! is one message's ([`MessageStore`]), a group's or a redelivery's; a row
//! delivered again is written back again.

use std::sync::Arc;

use chrono::NaiveDateTime;

use super::{Pump, utc_now};
use crate::journal::{Recorded, record_intent};
use crate::mailbox::{MailboxSettings, write_back_intent};
use crate::pipeline::check_fence;
use crate::store::{DeadOps, JournalOps, ProcStatus, StateTx, Store, StoreError};

/// A message a transaction leaves with a final status, to be written back.
#[derive(Clone, Copy, Debug)]
pub(super) struct Final {
    /// The message (its mailbox row).
    pub(super) id: i64,
    /// Its `PROC_STATE` status.
    pub(super) status: ProcStatus,
    /// Whether it was final before this delivery of its row (see
    /// [`journal_write_back`]).
    pub(super) redelivered: bool,
}

/// Seals a transaction of the pump before its commit: refuses it when the
/// lease moved past `fence` (taking `PIPELINE_LOCK`, which the transaction
/// may hold already), then records the write-back intent of each of
/// `finals`. The one way for a single message, a group and a redelivery.
///
/// # Errors
///
/// A [`StoreError`] of kind [`Fenced`](crate::FailureKind::Fenced) when the lease moved
/// on, or the one a statement failed with; the caller rolls back.
pub(super) fn seal<T: StateTx + JournalOps + DeadOps + ?Sized>(
    tx: &mut T,
    fence: Option<i64>,
    mailbox: &MailboxSettings,
    finals: &[Final],
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    if fence.is_some() {
        let lease = tx.lock_pipeline()?;
        check_fence(fence, &lease)?;
    }
    for message in finals {
        journal_write_back(tx, mailbox, *message, now)?;
    }
    seal_point()
}

impl<S: Store + Clone> Pump<S> {
    /// Records the write-back of a row delivered again after its message was
    /// final, sealed like every transaction of a message.
    pub(super) fn journal_redelivery(
        &self,
        message_id: i64,
        status: ProcStatus,
        epoch: i64,
    ) -> Result<(), StoreError> {
        let mailbox = self.mailbox.settings().clone();
        let now = utc_now();
        let redelivery = Final {
            id: message_id,
            status,
            redelivered: true,
        };
        self.store
            .transaction(|tx| seal(tx, Some(epoch), &mailbox, &[redelivery], now))
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

    /// Seals a transaction that left the message with a `PROC_STATE`; one
    /// that did not (a read, a failed attempt rolled back) needs neither the
    /// fence nor an intent.
    fn seal<T: StateTx + JournalOps + DeadOps>(&self, tx: &mut T) -> Result<(), StoreError> {
        let Some(record) = tx.proc_state(self.message_id)? else {
            return Ok(());
        };
        let message = Final {
            id: self.message_id,
            status: record.status,
            redelivered: false,
        };
        seal(tx, self.fence, &self.mailbox, &[message], self.now)
    }
}

/// Records, in the transaction that gave `message` its final status, the
/// intent of its mailbox write-back (DESIGN §6.1).
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
fn journal_write_back<T: JournalOps + DeadOps + ?Sized>(
    tx: &mut T,
    mailbox: &MailboxSettings,
    message: Final,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    let Final {
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

#[cfg(feature = "failpoints")]
fn seal_point() -> Result<(), StoreError> {
    crate::failpoint::hit("pump.before_commit")
        .map_err(|e| StoreError::new(crate::FailureKind::Other, "failpoint pump.before_commit", e))
}

#[cfg(not(feature = "failpoints"))]
fn seal_point() -> Result<(), StoreError> {
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
