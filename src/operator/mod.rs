//! What an operator does to the pipeline — requeue dead letters, release
//! or reject a held snapshot, request an operation day — written once, for
//! every way an operator reaches it: the command line (`flightstate dead
//! requeue`, `release`, `reject`, `request`) and the web page call these
//! functions, never SQL or a protocol of their own. So both take the same
//! locks, make the same checks in the same order, and answer the same.
//!
//! Every action, refused ones included, is recorded in `OPERATOR_ACTION`
//! (who, when, through which, what became of it) **in the same state
//! transaction as the action itself**: an action that rolled back left no
//! record, and none committed without one. Steps outside the state
//! database (the requeue's mailbox step) come after that commit; the
//! record says what the state transaction did (docs/operations.md, "The
//! operator's record").
//!
//! Owns no SQL and no output: it talks to the state database through the
//! store traits, to the mailbox through [`Mailbox`](crate::mailbox::Mailbox),
//! and returns results that say what happened (`Display` for people,
//! `ok()` for the exit code or the page's colour).

mod held;
mod request;
mod requeue;

use chrono::{NaiveDate, NaiveDateTime};

use crate::mailbox::MailboxError;
use crate::store::{ACTION_BY_CHARS, ActionOps, ActionRecord, NewAction, Store, StoreError};

pub use held::{Decided, Decision, decide_held};
pub use request::request_day;
pub use requeue::{MAX_LETTERS, MailboxStep, RequeueResult, Requeued, requeue, requeue_matching};

/// Where an action was taken, recorded as [`Via::code`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// A `flightstate` command.
    CommandLine,
    /// The web page.
    Page,
}

impl Via {
    /// The code recorded in `OPERATOR_ACTION.VIA`.
    pub fn code(self) -> &'static str {
        match self {
            Via::CommandLine => "CLI",
            Via::Page => "PAGE",
        }
    }
}

/// Who takes an action, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Actor {
    /// The operator's name: trimmed, at most 128 characters (the width of
    /// `TAKEN_BY` and of `PROC_STATE.REQUEUED_BY`); [`Actor::new`] makes it so.
    pub name: String,
    /// Where the action is taken.
    pub via: Via,
}

impl Actor {
    /// An actor named `name` (trimmed, cut to 128 characters).
    ///
    /// # Errors
    ///
    /// [`OperatorError::NoName`] when `name` is blank.
    pub fn new(name: &str, via: Via) -> Result<Actor, OperatorError> {
        let name: String = name.trim().chars().take(ACTION_BY_CHARS).collect();
        if name.is_empty() {
            return Err(OperatorError::NoName);
        }
        Ok(Actor { name, via })
    }

    /// The name as recorded, whatever a caller put in the public field.
    fn recorded_name(&self) -> String {
        self.name.trim().chars().take(ACTION_BY_CHARS).collect()
    }
}

/// Why an operator's action could not be taken (or not be recorded).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OperatorError {
    /// The state database failed; the action's transaction rolled back,
    /// nothing was done or recorded. Try again.
    #[error("the state database failed; nothing was done")]
    Store(#[from] StoreError),
    /// The mailbox could not be read before the action; nothing was done.
    /// Try again once the mailbox answers.
    #[error("cannot read the mailbox; nothing was done")]
    Mailbox(#[from] MailboxError),
    /// No operator name: none given, `$USER` unset, and the process's user
    /// id has no account name. Give one (`--by NAME`).
    #[error(
        "no operator name: give `--by NAME` ($USER is unset and this process's user id has no \
         account name)"
    )]
    NoName,
}

/// What an action is, recorded in `OPERATOR_ACTION.ACTION`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ActionKind {
    Requeue,
    Release,
    Reject,
    RequestDay,
}

impl ActionKind {
    fn code(self) -> &'static str {
        match self {
            ActionKind::Requeue => "REQUEUE",
            ActionKind::Release => "RELEASE",
            ActionKind::Reject => "REJECT",
            ActionKind::RequestDay => "REQUEST_DAY",
        }
    }
}

/// One action's record, written by the action's own transaction.
struct Record<'a> {
    actor: &'a Actor,
    taken_at: NaiveDateTime,
    action: ActionKind,
    message_id: Option<i64>,
    operation_day: Option<NaiveDate>,
    result: &'a str,
    detail: &'a str,
}

impl Record<'_> {
    fn write<T: ActionOps>(&self, tx: &mut T) -> Result<(), StoreError> {
        let name = self.actor.recorded_name();
        tx.insert_operator_action(&NewAction {
            taken_at: self.taken_at,
            taken_by: &name,
            via: self.actor.via.code(),
            action: self.action.code(),
            message_id: self.message_id,
            operation_day: self.operation_day,
            flid: None,
            result: self.result,
            detail: self.detail,
        })
    }
}

/// The latest recorded actions, newest first, at most `limit`.
///
/// # Errors
///
/// A [`StoreError`] of the read.
pub fn recent_actions<S: Store>(store: &S, limit: i64) -> Result<Vec<ActionRecord>, StoreError> {
    store.transaction(|tx| tx.select_operator_actions(limit))
}

/// The operator named by `by`, else `$USER`, else the account the process
/// runs as (as `psql` does): systemd units, cron and some `sudo` shells
/// leave `$USER` unset. Trimmed and cut to 128 characters.
///
/// # Errors
///
/// [`OperatorError::NoName`] when none of the three gives a name.
pub fn operator_name(by: Option<String>) -> Result<String, OperatorError> {
    let name = [by, std::env::var("USER").ok()]
        .into_iter()
        .flatten()
        .map(|n| n.trim().to_owned())
        .find(|n| !n.is_empty())
        .or_else(account_name)
        .ok_or(OperatorError::NoName)?;
    Ok(name.chars().take(ACTION_BY_CHARS).collect())
}

/// The name of the account this process runs as (its effective user id),
/// from the system's user database.
fn account_name() -> Option<String> {
    let mut buffer = vec![0_u8; 16 * 1024];
    // SAFETY: `passwd` is plain data that getpwuid_r fills; `buffer` outlives
    // the `pw_name` pointer read below, and its length is passed.
    unsafe {
        let mut entry: libc::passwd = std::mem::zeroed();
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        let status = libc::getpwuid_r(
            libc::geteuid(),
            &raw mut entry,
            buffer.as_mut_ptr().cast(),
            buffer.len(),
            &raw mut found,
        );
        if status != 0 || found.is_null() || entry.pw_name.is_null() {
            return None;
        }
        let name = std::ffi::CStr::from_ptr(entry.pw_name).to_string_lossy();
        let name = name.trim();
        (!name.is_empty()).then(|| name.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_actor_is_trimmed_cut_and_never_blank() {
        let actor = Actor::new("  alice \n", Via::Page).expect("a name");
        assert_eq!((actor.name.as_str(), actor.via.code()), ("alice", "PAGE"));
        let long = "é".repeat(200);
        assert_eq!(
            Actor::new(&long, Via::CommandLine)
                .expect("a name")
                .name
                .chars()
                .count(),
            128
        );
        assert!(matches!(
            Actor::new(" \t", Via::CommandLine),
            Err(OperatorError::NoName)
        ));
    }

    #[test]
    fn a_given_name_comes_before_the_environment() {
        assert_eq!(
            operator_name(Some("  bob ".to_owned())).expect("a name"),
            "bob"
        );
    }
}
