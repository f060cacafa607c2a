//! One attempt at one message, as its caller builds it: the pump (a row of
//! the mailbox, under its lease), `flightstate apply` and `release` (a
//! message of their own), or `flightstate replay` (a snapshot again, under
//! an operator's policy).
//!
//! The attempt is the one carrier of its message through the pipeline: its
//! id, bytes, receive time and identity key, whether an operator released
//! it, and, once read, its META. The rules read the message from it, and
//! every outcome is recorded through it (`outcome`), so no step copies a
//! message's facts into a struct of its own.
//!
//! Every transaction that gives the message a status reads the same way:
//! it begins with [`Attempt::lock`] (`PIPELINE_LOCK`, and the fence of a
//! pump's attempt) and ends with [`Attempt::seal`] (the write-back intent
//! of a final status, DESIGN §6.1), with the rule's own steps between. No
//! step is added behind the rule's back. [`sealed_transaction`] opens such
//! a transaction, for one message or a group of them.

use std::cell::{Cell, OnceCell};
use std::sync::Arc;

use chrono::{NaiveDate, NaiveDateTime};
use serde::Serialize;

use super::error::MetaUnread;
use super::identity::identity_key;
use crate::FailureKind;
use crate::journal::{FinalRow, WriteBackStatuses, record_write_back};
use crate::mailbox::InboundMessage;
use crate::protocol::Meta;
use crate::store::{
    DeadOps, JournalOps, Outcome, PipelineLease, ProcStatus, StateTx, Store, StoreError,
};

/// One attempt at one message.
#[derive(Clone, Debug)]
pub struct Attempt<'a> {
    /// The message's id (its mailbox row).
    pub message_id: i64,
    /// Its bytes.
    pub body: &'a [u8],
    /// When the attempt began: every row it writes carries this time.
    pub now: NaiveDateTime,
    /// When the mailbox received the message, on flightstate's clock
    /// (`InboundMessage::received_at`): recorded in `PROC_STATE.RECEIVED_AT`
    /// for the freshness of what is published. `None` for a tool's
    /// attempt or a replay, which read no mailbox row.
    pub received_at: Option<NaiveDateTime>,
    /// The digest of id and bytes that recognises the message
    /// ([`identity_key`]), computed when first asked: the pump builds an
    /// attempt at a row before it knows whether the row joins a group, and
    /// a day's snapshot is not digested for that.
    identity_key: OnceCell<String>,
    /// An operator released the message after the mass-delete guard held
    /// it: it is applied as it is, and a failure that may pass leaves it
    /// HELD and released, so that the next attempt is applied as it is too.
    /// Learnt from the message's record as the attempt goes.
    released: Cell<bool>,
    /// The message's META, once it was read: set when it is parsed, or,
    /// for a snapshot read by parts, when its reading ends inside the
    /// snapshot's transaction. What the outcome records of the message's
    /// kind, and what its evidence and a request's answer are counted by.
    meta: OnceCell<Meta>,
    pub(super) origin: Origin<'a>,
}

/// Where the message comes from, which decides what its transactions
/// check and record besides the rule's own steps.
#[derive(Clone, Debug)]
pub(super) enum Origin<'a> {
    /// A row of the mailbox, applied by the pump that holds the lease.
    Mailbox(Leased),
    /// A message a tool applies once (`flightstate apply`, `release`): no
    /// fence, nothing written back, an unsupported message stays FAILED.
    OneOff,
    /// An operator's replay of a snapshot already applied (`pipeline::snapshot::replay`).
    Replay(&'a ReplayPolicy),
}

/// What a pump's transactions commit under: the lease epoch it holds and
/// what its final statuses are written back with.
#[derive(Clone, Debug)]
pub struct Leased {
    /// The lease epoch this pump acquired: a transaction commits only while
    /// the lease is still at it.
    pub epoch: i64,
    /// The mailbox statuses final outcomes are written back with (the
    /// pump's, shared by its attempts).
    pub statuses: Arc<WriteBackStatuses>,
    /// The attempt at which an unsupported message is DEAD rather than
    /// FAILED(UNSUPPORTED), decided in the attempt itself so that
    /// `PROC_STATE.ATTEMPTS` and the reason agree (`pump.unsupported_threshold`).
    pub unsupported_threshold: i32,
}

impl<'a> Attempt<'a> {
    fn new(
        message_id: i64,
        body: &'a [u8],
        now: NaiveDateTime,
        received_at: Option<NaiveDateTime>,
        origin: Origin<'a>,
    ) -> Attempt<'a> {
        Attempt {
            message_id,
            body,
            now,
            received_at,
            identity_key: OnceCell::new(),
            released: Cell::new(false),
            meta: OnceCell::new(),
            origin,
        }
    }

    /// An attempt of the pump at a row of the mailbox.
    pub fn from_mailbox(
        message: &'a InboundMessage,
        now: NaiveDateTime,
        leased: Leased,
    ) -> Attempt<'a> {
        let origin = Origin::Mailbox(leased);
        Attempt::new(message.id, &message.body, now, message.received_at, origin)
    }

    /// An attempt of a tool outside the pump at message `message_id`.
    pub fn one_off(message_id: i64, body: &'a [u8], now: NaiveDateTime) -> Attempt<'a> {
        Attempt::new(message_id, body, now, None, Origin::OneOff)
    }

    /// An operator's replay of message `message_id` under `policy`.
    pub(super) fn replay(
        message_id: i64,
        body: &'a [u8],
        now: NaiveDateTime,
        policy: &'a ReplayPolicy,
    ) -> Attempt<'a> {
        let attempt = Attempt::new(message_id, body, now, None, Origin::Replay(policy));
        // The operator asked for this snapshot with an explicit policy and
        // its dry run shows what it deletes: the mass-delete guard, which
        // waits for such an answer, does not hold it again.
        attempt.release();
        attempt
    }

    /// The message's identity key.
    pub(super) fn identity_key(&self) -> &str {
        self.identity_key
            .get_or_init(|| identity_key(self.message_id, self.body))
    }

    /// An operator released the held message: it is applied as it is.
    pub(super) fn release(&self) {
        self.released.set(true);
    }

    /// Whether an operator released the message from a hold.
    pub(super) fn released(&self) -> bool {
        self.released.get()
    }

    /// Keeps `meta`, the message's META as read, and returns it; a message
    /// read again (a snapshot's transaction run again) keeps the first.
    pub(super) fn read(&self, meta: Meta) -> &Meta {
        self.meta.get_or_init(|| meta)
    }

    /// The message's META, once it was read.
    pub(super) fn meta(&self) -> Option<&Meta> {
        self.meta.get()
    }

    /// The message's META for a rule that runs only on a message read.
    ///
    /// # Errors
    ///
    /// [`MetaUnread`] when the message was not read: a rule was handed a
    /// message before its reading, a broken invariant of the pipeline that
    /// fails the attempt rather than the pump.
    pub(super) fn read_meta(&self) -> Result<&Meta, MetaUnread> {
        self.meta.get().ok_or(MetaUnread {
            message_id: self.message_id,
        })
    }

    /// Its outcome SUCCEEDED, as a rule records it.
    pub(super) fn succeeded(&self) -> Outcome<'_> {
        let meta = self.meta();
        Outcome {
            message_id: self.message_id,
            identity_key: self.identity_key(),
            status: ProcStatus::Succeeded,
            error_kind: None,
            error_text: None,
            msg_type: meta.map(|m| m.msg_type.as_str()),
            msg_subtype: meta.map(|m| m.styp.as_str()),
            next_attempt_at: None,
            now: self.now,
            received_at: self.received_at,
        }
    }

    /// Whether an operator replays the message: it is applied although the
    /// ledger knows it, and neither counts as the upstream's evidence nor
    /// answers a request.
    pub(super) fn is_operator_replay(&self) -> bool {
        matches!(self.origin, Origin::Replay(_))
    }

    /// The attempt at which an unsupported message is DEAD; `None` (a
    /// one-off) never gives up.
    pub(super) fn unsupported_threshold(&self) -> Option<i32> {
        match &self.origin {
            Origin::Mailbox(leased) => Some(leased.unsupported_threshold),
            Origin::OneOff | Origin::Replay(_) => None,
        }
    }

    /// The first step of every transaction that gives the message a
    /// status: takes `PIPELINE_LOCK` (held until the commit, so the lease
    /// cannot move meanwhile) and refuses a pump's attempt whose lease
    /// moved on.
    ///
    /// # Errors
    ///
    /// A [`StoreError`] of kind [`FailureKind::Fenced`]: the transaction
    /// must roll back and the pump stop; retrying cannot help.
    pub(super) fn lock<T: StateTx + ?Sized>(
        &self,
        tx: &mut T,
    ) -> Result<PipelineLease, StoreError> {
        lock(tx, &[self])
    }

    /// The last step of every transaction that gives the message a status:
    /// a pump's attempt records the write-back intent of a final status
    /// (`redelivered`: the message was final before this delivery of its
    /// row, which is written back again).
    ///
    /// # Errors
    ///
    /// The [`StoreError`] a statement failed with; the caller rolls back.
    pub(super) fn seal<T: JournalOps + DeadOps + ?Sized>(
        &self,
        tx: &mut T,
        status: ProcStatus,
        redelivered: bool,
    ) -> Result<(), StoreError> {
        seal(tx, &[(self, status, redelivered)])
    }

    /// Runs `steps` in a transaction of its own that gives the message the
    /// status `steps` returns: [`sealed_transaction`] for one message.
    ///
    /// # Errors
    ///
    /// The error of `steps`, or of the lock or the seal; nothing commits.
    pub(super) fn transaction<S: Store, R, E: From<StoreError>>(
        &self,
        store: &S,
        steps: impl FnOnce(&mut S::Tx<'_>) -> Result<(R, ProcStatus), E>,
    ) -> Result<R, E> {
        sealed_transaction(store, &[self], |tx| {
            let (result, status) = steps(tx)?;
            Ok((result, vec![(status, false)]))
        })
    }
}

/// Opens the transaction that gives `attempts`' messages their statuses —
/// one message, or a group of the pump's committed together — and runs it:
/// the lock first ([`Attempt::lock`]), then `steps`, which return each
/// message's status and whether it was final before this delivery, then
/// the seal of every message ([`Attempt::seal`]).
///
/// # Errors
///
/// The error of `steps`, or of the lock or the seal; nothing commits.
pub(super) fn sealed_transaction<S: Store, R, E: From<StoreError>>(
    store: &S,
    attempts: &[&Attempt<'_>],
    steps: impl FnOnce(&mut S::Tx<'_>) -> Result<(R, Vec<(ProcStatus, bool)>), E>,
) -> Result<R, E> {
    store.transaction(|tx| {
        lock(tx, attempts)?;
        let (result, statuses) = steps(tx)?;
        let rows: Vec<_> = (attempts.iter().zip(statuses))
            .map(|(attempt, (status, redelivered))| (*attempt, status, redelivered))
            .collect();
        seal(tx, &rows)?;
        Ok(result)
    })
}

/// Takes `PIPELINE_LOCK` and checks the fence of every pump's attempt.
fn lock<T: StateTx + ?Sized>(
    tx: &mut T,
    attempts: &[&Attempt<'_>],
) -> Result<PipelineLease, StoreError> {
    let lease = tx.lock_pipeline()?;
    for attempt in attempts {
        if let Origin::Mailbox(leased) = &attempt.origin {
            leased.check(&lease)?;
        }
    }
    Ok(lease)
}

/// Records the write-back intent of each pump's attempt of `rows` with its
/// final status, before the commit; attempts of a tool or an operator's
/// replay write nothing back.
fn seal<T: JournalOps + DeadOps + ?Sized>(
    tx: &mut T,
    rows: &[(&Attempt<'_>, ProcStatus, bool)],
) -> Result<(), StoreError> {
    for &(attempt, status, redelivered) in rows {
        if let Origin::Mailbox(leased) = &attempt.origin {
            let row = FinalRow {
                id: attempt.message_id,
                status,
                redelivered,
            };
            record_write_back(tx, &leased.statuses, row, attempt.now)?;
        }
    }
    #[cfg(feature = "failpoints")]
    if rows
        .iter()
        .any(|(attempt, ..)| matches!(attempt.origin, Origin::Mailbox(_)))
    {
        crate::failpoint::hit("pump.before_commit")
            .map_err(|e| StoreError::new(FailureKind::Other, "failpoint pump.before_commit", e))?;
    }
    Ok(())
}

impl Leased {
    /// Refuses to go on when `lease` (read under `PIPELINE_LOCK`) has moved
    /// past this pump's epoch.
    ///
    /// # Errors
    ///
    /// A [`StoreError`] of kind [`FailureKind::Fenced`].
    pub fn check(&self, lease: &PipelineLease) -> Result<(), StoreError> {
        if lease.epoch == self.epoch {
            return Ok(());
        }
        Err(StoreError::new(
            FailureKind::Fenced,
            "check the pump lease",
            format!(
                "the pump lease moved to epoch {} (this pump holds {}); not committing",
                lease.epoch, self.epoch
            ),
        ))
    }
}

/// What a replay does when the day has a newer snapshot than the message:
/// the day's ledger names a later message (higher mailbox id) as its
/// latest snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VersionPolicy {
    /// Refuse: the message is applied only when no newer snapshot of the
    /// day was applied after it (it is the day's latest, or the day has
    /// none).
    Latest,
    /// Apply it over the newer snapshot: the day's version is bumped past
    /// it and the day's flights become the message's.
    Force,
}

impl VersionPolicy {
    /// The policy as the operator writes it (`--version`).
    pub fn code(self) -> &'static str {
        match self {
            VersionPolicy::Latest => "latest",
            VersionPolicy::Force => "force",
        }
    }
}

/// An operator's explicit policy for replaying a snapshot (seed §5.3: a
/// historical snapshot is replayed only with an explicit version and
/// operation-day policy, else it could overwrite newer state).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayPolicy {
    /// The operation day the snapshot is applied as.
    pub day: NaiveDate,
    /// Apply it as [`day`](Self::day) although the message is of another
    /// day (its flights then belong to `day`).
    pub other_day: bool,
    /// What to do when the day has a newer snapshot.
    pub version: VersionPolicy,
    /// Move flights that now belong to another operation day to
    /// [`day`](Self::day), whatever the site's rule for day moves.
    pub move_flights: bool,
    /// Run the replay's transaction and roll it back: report what it would
    /// create, update and delete, change nothing.
    pub dry_run: bool,
    /// Who replays (recorded).
    pub by: String,
}

impl ReplayPolicy {
    /// The policy as recorded in `PROC_STATE.REPLAY_POLICY`
    /// (`day=2026-09-09 version=force other-day move-flights`).
    pub fn describe(&self) -> String {
        let mut text = format!("day={} version={}", self.day, self.version.code());
        if self.other_day {
            text.push_str(" other-day");
        }
        if self.move_flights {
            text.push_str(" move-flights");
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::PipelineError;

    #[test]
    fn a_rule_on_a_message_not_read_fails_the_attempt_not_the_pump() {
        let now = NaiveDate::from_ymd_opt(2026, 9, 9)
            .and_then(|d| d.and_hms_opt(12, 0, 0))
            .expect("time");
        let attempt = Attempt::one_off(7, b"<MSG/>", now);
        let unread = attempt.read_meta().expect_err("META not read yet");
        assert_eq!(unread.message_id, 7);
        let failure = PipelineError::from(unread);
        assert_eq!(failure.kind(), FailureKind::Other);
        assert_eq!(failure.error_kind(), "INFRA");
    }
}
