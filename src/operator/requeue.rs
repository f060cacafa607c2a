//! Requeueing dead letters, once their cause is fixed: a two-database
//! protocol, the same from the command line and the page.
//!
//! 1. The mailbox rows are read first: only a row written back may be set
//!    pending again. A DEAD write-back still to be made would land after
//!    the requeue and leave the row DEAD whatever the pump does, so a
//!    pending row is refused (PENDING), and a removed one too (GONE).
//! 2. One state transaction requeues the DEAD messages among the rest on
//!    their own `PROC_STATE` rows (count, who, when: DEAD becomes FAILED
//!    with `REQUEUED`) and records every message asked for, refused ones
//!    included, in `OPERATOR_ACTION`.
//! 3. After the commit, each requeued message's mailbox row is set pending
//!    again, so that the pump applies it through the normal path and
//!    writes its new outcome back by a call of its own
//!    (`backfill:{id}:requeue:{n}`). The state transaction comes first: a
//!    row pending again while its message is still DEAD would only be
//!    written back DEAD once more. If this step fails, the record still
//!    says REQUEUED (the state transaction did requeue it); running the
//!    requeue again finds the message requeued already, records
//!    ALREADY_REQUEUED and sets the row pending.

use std::fmt;

use crate::mailbox::Mailbox;
use crate::store::{DeadFilter, DeadOps, ProcStatus, REQUEUED, Store};

use super::{ActionKind, Actor, OperatorError, Record};

/// At most this many dead letters are requeued by a filter at once (and
/// listed by `dead list`): a longer list is narrowed by the filter.
pub const MAX_LETTERS: i64 = 10_000;

/// What became of one message asked to be requeued.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requeued {
    /// The message (`CMINMSGS_ID`).
    pub message_id: i64,
    /// What became of it.
    pub result: RequeueResult,
}

/// What became of one message asked to be requeued.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequeueResult {
    /// Requeued now: its requeue `count`, by `by`; then the mailbox step.
    Requeued {
        /// Its requeue count, this one included.
        count: i32,
        /// Who requeued it.
        by: String,
        /// What the mailbox step did after the commit.
        mailbox: MailboxStep,
    },
    /// Requeued already, not applied again yet (an earlier requeue whose
    /// mailbox step failed, say); the mailbox step is made again.
    AlreadyRequeued {
        /// What the mailbox step did after the commit.
        mailbox: MailboxStep,
    },
    /// Refused: its mailbox row is pending (its write-back is not made
    /// yet, or it is requeued already).
    Pending,
    /// Refused: its mailbox row is gone.
    Gone,
    /// Refused: it is not DEAD.
    NotDead {
        /// What it is.
        status: ProcStatus,
    },
    /// Refused: `PROC_STATE` does not know it.
    Unknown,
}

/// What the mailbox step after the commit did to a requeued message's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MailboxStep {
    /// The row is pending again: the pump applies the message.
    PendingAgain,
    /// The row was set pending or removed by someone else meanwhile.
    ChangedMeanwhile,
    /// The mailbox failed (the error, for people): requeue again.
    Failed(String),
}

impl RequeueResult {
    /// The code recorded in `OPERATOR_ACTION.RESULT`.
    pub fn code(&self) -> &'static str {
        match self {
            RequeueResult::Requeued { .. } => "REQUEUED",
            RequeueResult::AlreadyRequeued { .. } => "ALREADY_REQUEUED",
            RequeueResult::Pending => "PENDING",
            RequeueResult::Gone => "GONE",
            RequeueResult::NotDead { .. } => "NOT_DEAD",
            RequeueResult::Unknown => "UNKNOWN",
        }
    }

    /// Whether the message is on its way: requeued and its mailbox row
    /// pending again.
    pub fn ok(&self) -> bool {
        matches!(
            self,
            RequeueResult::Requeued {
                mailbox: MailboxStep::PendingAgain,
                ..
            } | RequeueResult::AlreadyRequeued {
                mailbox: MailboxStep::PendingAgain
            }
        )
    }

    /// What the state transaction did, as recorded: without the mailbox
    /// step, which comes after.
    fn recorded(&self) -> String {
        match self {
            RequeueResult::Requeued { count, by, .. } => {
                format!("requeued (requeue {count}, by {by})")
            }
            RequeueResult::AlreadyRequeued { .. } => "already requeued".to_owned(),
            refused => refused.to_string(),
        }
    }

    fn mailbox(&self) -> Option<&MailboxStep> {
        match self {
            RequeueResult::Requeued { mailbox, .. }
            | RequeueResult::AlreadyRequeued { mailbox } => Some(mailbox),
            _ => None,
        }
    }
}

impl fmt::Display for MailboxStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MailboxStep::PendingAgain => f.write_str("its mailbox row is pending again"),
            MailboxStep::ChangedMeanwhile => {
                f.write_str("its mailbox row was set pending or removed meanwhile")
            }
            MailboxStep::Failed(error) => {
                write!(f, "its mailbox row could not be set pending ({error})")
            }
        }
    }
}

impl fmt::Display for RequeueResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequeueResult::Requeued { mailbox, .. }
            | RequeueResult::AlreadyRequeued { mailbox } => {
                write!(f, "{}; {mailbox}", self.recorded())
            }
            RequeueResult::Pending => f.write_str(
                "not requeued: its mailbox row is pending (its write-back is not made yet, or it \
                 is requeued already); try again once it is written back",
            ),
            RequeueResult::Gone => f.write_str("not requeued: its mailbox row is gone"),
            RequeueResult::NotDead { status } => {
                write!(f, "not requeued: it is {}, not DEAD", status.code())
            }
            RequeueResult::Unknown => f.write_str("not requeued: no such message in PROC_STATE"),
        }
    }
}

impl Requeued {
    /// Like [`RequeueResult::ok`].
    pub fn ok(&self) -> bool {
        self.result.ok()
    }
}

/// `ID: what became of it`, with what to do next when the mailbox step
/// did not finish.
impl fmt::Display for Requeued {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = self.message_id;
        write!(f, "{id}: {}", self.result)?;
        match self.result.mailbox() {
            Some(MailboxStep::ChangedMeanwhile) => write!(f, ": see `dead show {id}`"),
            Some(MailboxStep::Failed(_)) => write!(f, ": run `dead requeue {id}` again"),
            _ => Ok(()),
        }
    }
}

/// Requeues the messages `ids` (the protocol of this module's doc), as
/// `actor`. Returns what became of each, the refused by the mailbox first,
/// then the others in the order given.
///
/// # Errors
///
/// [`OperatorError::Mailbox`] when the mailbox rows cannot be read, and
/// [`OperatorError::Store`] when the state transaction fails: nothing was
/// requeued or recorded then. A failed mailbox step after the commit is no
/// error: its message says [`MailboxStep::Failed`].
pub fn requeue<S: Store>(
    store: &S,
    mailbox: &Mailbox,
    ids: &[i64],
    actor: &Actor,
) -> Result<Vec<Requeued>, OperatorError> {
    let by = actor.recorded_name();
    let now = crate::station::utc_now();
    let mut refused = Vec::new();
    let mut asked = Vec::with_capacity(ids.len());
    for &id in ids {
        match mailbox.stored_message(id)? {
            Some(row) if row.processed_at.is_some() => asked.push(id),
            Some(_) => refused.push((id, RequeueResult::Pending)),
            None => refused.push((id, RequeueResult::Gone)),
        }
    }
    let decided = store.transaction(|tx| {
        let requeued = tx.requeue_dead_letters(&asked, &by, now)?;
        let mut decided = Vec::with_capacity(asked.len());
        for &id in &asked {
            let record = tx.select_message_record(id)?;
            let fresh = requeued.iter().find(|(r, _)| *r == id).map(|(_, n)| *n);
            let waiting = record.as_ref().is_some_and(|r| {
                r.status == ProcStatus::Failed && r.error_kind.as_deref() == Some(REQUEUED)
            });
            // The mailbox step is not made yet: the record says what this
            // transaction did.
            let pending = MailboxStep::PendingAgain;
            let result = match (record, fresh) {
                (Some(_), Some(count)) if waiting => RequeueResult::Requeued {
                    count,
                    by: by.clone(),
                    mailbox: pending,
                },
                (Some(_), None) if waiting => RequeueResult::AlreadyRequeued { mailbox: pending },
                (Some(r), _) => RequeueResult::NotDead { status: r.status },
                (None, _) => RequeueResult::Unknown,
            };
            decided.push((id, result));
        }
        for (id, result) in refused.iter().chain(&decided) {
            Record {
                actor,
                taken_at: now,
                action: ActionKind::Requeue,
                message_id: Some(*id),
                operation_day: None,
                result: result.code(),
                detail: &result.recorded(),
            }
            .write(tx)?;
        }
        Ok::<_, OperatorError>(decided)
    })?;
    let mut out: Vec<Requeued> = refused
        .into_iter()
        .map(|(message_id, result)| Requeued { message_id, result })
        .collect();
    for (id, mut result) in decided {
        if let RequeueResult::Requeued { count, .. } = &result {
            tracing::info!(
                msg.id = id,
                requeue = count,
                requeued_by = %by,
                via = actor.via.code(),
                "dead letter requeued"
            );
        }
        if let RequeueResult::Requeued { mailbox: step, .. }
        | RequeueResult::AlreadyRequeued { mailbox: step } = &mut result
        {
            *step = match mailbox.requeue_message(id) {
                Ok(true) => MailboxStep::PendingAgain,
                Ok(false) => MailboxStep::ChangedMeanwhile,
                Err(e) => MailboxStep::Failed(crate::failure::Causes(&e).to_string()),
            };
        }
        out.push(Requeued {
            message_id: id,
            result,
        });
    }
    Ok(out)
}

/// Requeues every DEAD message that `filter` selects (at most
/// [`MAX_LETTERS`], lowest id first), as [`requeue`] does.
///
/// # Errors
///
/// As [`requeue`]; a failed read of the dead letters is
/// [`OperatorError::Store`].
pub fn requeue_matching<S: Store>(
    store: &S,
    mailbox: &Mailbox,
    filter: DeadFilter<'_>,
    actor: &Actor,
) -> Result<Vec<Requeued>, OperatorError> {
    let letters = store.transaction(|tx| tx.select_dead_letters(filter, MAX_LETTERS))?;
    let ids: Vec<i64> = letters.into_iter().map(|r| r.message_id).collect();
    requeue(store, mailbox, &ids, actor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_requeue_whose_row_is_pending_again_is_ok() {
        let requeued = |mailbox| RequeueResult::Requeued {
            count: 2,
            by: "alice".to_owned(),
            mailbox,
        };
        assert!(requeued(MailboxStep::PendingAgain).ok());
        assert!(
            RequeueResult::AlreadyRequeued {
                mailbox: MailboxStep::PendingAgain
            }
            .ok()
        );
        for not in [
            requeued(MailboxStep::ChangedMeanwhile),
            requeued(MailboxStep::Failed("down".to_owned())),
            RequeueResult::Pending,
            RequeueResult::Gone,
            RequeueResult::NotDead {
                status: ProcStatus::Succeeded,
            },
            RequeueResult::Unknown,
        ] {
            assert!(!not.ok(), "{not}");
        }
        let failed = Requeued {
            message_id: 7,
            result: requeued(MailboxStep::Failed("down".to_owned())),
        };
        assert_eq!(
            failed.to_string(),
            "7: requeued (requeue 2, by alice); its mailbox row could not be set pending (down): \
             run `dead requeue 7` again"
        );
        assert_eq!(failed.result.recorded(), "requeued (requeue 2, by alice)");
        assert_eq!(failed.result.code(), "REQUEUED");
    }
}
