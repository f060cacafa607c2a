//! One attempt at one message, as its caller builds it: the pump (a row of
//! the mailbox, under its lease), `flightstate apply` and `release` (a
//! message of their own), or `flightstate replay` (a snapshot again, under
//! an operator's policy).
//!
//! Every transaction that gives the message a status reads the same way:
//! it begins with [`Attempt::lock`] (`PIPELINE_LOCK`, and the fence of a
//! pump's attempt) and ends with [`Attempt::seal`] (the write-back intent
//! of a final status, DESIGN §6.1), with the rule's own steps between. No
//! step is added behind the rule's back.

use chrono::{NaiveDate, NaiveDateTime};
use serde::Serialize;

use crate::FailureKind;
use crate::mailbox::{FinalRow, InboundMessage, MailboxSettings, record_write_back};
use crate::store::{DeadOps, JournalOps, Outcome, PipelineLease, ProcStatus, StateTx, StoreError};

/// One attempt at one message.
#[derive(Clone, Copy, Debug)]
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
    pub(super) origin: Origin<'a>,
}

/// Where the message comes from, which decides what its transactions
/// check and record besides the rule's own steps.
#[derive(Clone, Copy, Debug)]
pub(super) enum Origin<'a> {
    /// A row of the mailbox, applied by the pump that holds the lease.
    Mailbox(Leased<'a>),
    /// A message a tool applies once (`flightstate apply`, `release`): no
    /// fence, nothing written back, an unsupported message stays FAILED.
    OneOff,
    /// An operator's replay of a snapshot already applied (`pipeline::snapshot::replay`).
    Replay(&'a ReplayPolicy),
}

/// What a pump's transactions commit under: the lease epoch it holds and
/// the mailbox its final statuses are written back to.
#[derive(Clone, Copy, Debug)]
pub struct Leased<'a> {
    /// The lease epoch this pump acquired: a transaction commits only while
    /// the lease is still at it.
    pub epoch: i64,
    /// Where final statuses are written back.
    pub mailbox: &'a MailboxSettings,
    /// The attempt at which an unsupported message is DEAD rather than
    /// FAILED(UNSUPPORTED), decided in the attempt itself so that
    /// `PROC_STATE.ATTEMPTS` and the reason agree (`pump.unsupported_threshold`).
    pub unsupported_threshold: i32,
}

impl<'a> Attempt<'a> {
    /// An attempt of the pump at a row of the mailbox.
    pub fn from_mailbox(
        message: &'a InboundMessage,
        now: NaiveDateTime,
        leased: Leased<'a>,
    ) -> Attempt<'a> {
        Attempt {
            message_id: message.id,
            body: &message.body,
            now,
            received_at: message.received_at,
            origin: Origin::Mailbox(leased),
        }
    }

    /// An attempt of a tool outside the pump at message `message_id`.
    pub fn one_off(message_id: i64, body: &'a [u8], now: NaiveDateTime) -> Attempt<'a> {
        Attempt {
            message_id,
            body,
            now,
            received_at: None,
            origin: Origin::OneOff,
        }
    }

    /// An operator's replay of message `message_id` under `policy`.
    pub(super) fn replay(
        message_id: i64,
        body: &'a [u8],
        now: NaiveDateTime,
        policy: &'a ReplayPolicy,
    ) -> Attempt<'a> {
        Attempt {
            message_id,
            body,
            now,
            received_at: None,
            origin: Origin::Replay(policy),
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
        match self.origin {
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
        let lease = tx.lock_pipeline()?;
        if let Origin::Mailbox(leased) = self.origin {
            leased.check(&lease)?;
        }
        Ok(lease)
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
        match self.origin {
            Origin::Mailbox(leased) => leased.seal(
                tx,
                &[FinalRow {
                    id: self.message_id,
                    status,
                    redelivered,
                }],
                self.now,
            ),
            Origin::OneOff | Origin::Replay(_) => Ok(()),
        }
    }
}

impl Leased<'_> {
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

    /// Records the write-back intent of each of `rows` before the commit:
    /// one message's, a group's.
    ///
    /// # Errors
    ///
    /// The [`StoreError`] a statement failed with; the caller rolls back.
    pub(super) fn seal<T: JournalOps + DeadOps + ?Sized>(
        &self,
        tx: &mut T,
        rows: &[FinalRow],
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        for row in rows {
            record_write_back(tx, self.mailbox, *row, now)?;
        }
        #[cfg(feature = "failpoints")]
        crate::failpoint::hit("pump.before_commit")
            .map_err(|e| StoreError::new(FailureKind::Other, "failpoint pump.before_commit", e))?;
        Ok(())
    }
}

/// The parts of a message the transaction records.
#[derive(Clone, Copy)]
pub(super) struct MessageRef<'a> {
    pub(super) id: i64,
    pub(super) identity_key: &'a str,
    pub(super) msg_type: &'a str,
    pub(super) subtype: &'a str,
    /// `META/SNDR`: matched against the requests a snapshot may answer.
    pub(super) sender: &'a str,
    /// `META/SEQN`, as sent: counted as evidence, never used for order.
    pub(super) seqn: &'a str,
    /// `META/DTTM` (station local): counted as evidence of the upstream's
    /// order, never used for it.
    pub(super) dttm: NaiveDateTime,
    pub(super) now: NaiveDateTime,
    /// When the mailbox received it (`Attempt::received_at`).
    pub(super) received_at: Option<NaiveDateTime>,
}

impl MessageRef<'_> {
    pub(super) fn succeeded(&self) -> Outcome<'_> {
        Outcome {
            message_id: self.id,
            identity_key: self.identity_key,
            status: ProcStatus::Succeeded,
            error_kind: None,
            error_text: None,
            msg_type: Some(self.msg_type),
            msg_subtype: Some(self.subtype),
            next_attempt_at: None,
            now: self.now,
            received_at: self.received_at,
        }
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
