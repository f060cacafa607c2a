//! An operator's answer to a snapshot the mass-delete guard holds
//! (`flightstate release | reject ID`, and the page).
//!
//! One state transaction records the decision with who and when on the
//! message's `PROC_STATE` row, and the action in `OPERATOR_ACTION`. The
//! pump, which waits at the held head re-reading that row, acts on it at
//! its next look: a released snapshot is applied as it is (the guard does
//! not stop it again), a rejected one is recorded DEAD and written back,
//! and the queue moves on. Neither answer touches the mailbox or the
//! flights itself.

use std::fmt;

use crate::store::{DeadOps, ProcStatus, REJECTED, RELEASED, Store};

use super::{ActionKind, Actor, OperatorError, Record};

/// What the operator answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Apply the snapshot as it is.
    Release,
    /// Never apply it: DEAD.
    Reject,
}

impl Decision {
    /// The decision as `PROC_STATE` records it (`HOLD_DECISION`).
    pub fn code(self) -> &'static str {
        match self {
            Decision::Release => RELEASED,
            Decision::Reject => REJECTED,
        }
    }

    fn action(self) -> ActionKind {
        match self {
            Decision::Release => ActionKind::Release,
            Decision::Reject => ActionKind::Reject,
        }
    }

    fn effect(self) -> &'static str {
        match self {
            Decision::Release => "the pump applies it as it is at its next look at the head",
            Decision::Reject => {
                "the pump records it DEAD at its next look at the head, and the queue moves on"
            }
        }
    }
}

/// What became of an answer to a held snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decided {
    /// Recorded: the pump acts on it at its next look.
    Decided {
        /// The message.
        message_id: i64,
        /// The answer.
        decision: Decision,
        /// Who answered.
        by: String,
    },
    /// Refused: an operator answered already (the answer, as its error
    /// kind says); the pump acts on that one.
    AlreadyDecided {
        /// The message.
        message_id: i64,
        /// The answer given before (`RELEASED`, `REJECTED`).
        earlier: Option<String>,
    },
    /// Refused: the message is not held.
    NotHeld {
        /// The message.
        message_id: i64,
        /// What it is.
        status: ProcStatus,
        /// Its error kind.
        error_kind: Option<String>,
    },
    /// Refused: `PROC_STATE` does not know the message.
    Unknown {
        /// The message.
        message_id: i64,
    },
}

impl Decided {
    /// Whether the answer was recorded now.
    pub fn ok(&self) -> bool {
        matches!(self, Decided::Decided { .. })
    }

    /// The code recorded in `OPERATOR_ACTION.RESULT`: the decision made
    /// (`RELEASED`, `REJECTED`), or why not.
    pub fn code(&self) -> &'static str {
        match self {
            Decided::Decided { decision, .. } => decision.code(),
            Decided::AlreadyDecided { .. } => "ALREADY_DECIDED",
            Decided::NotHeld { .. } => "NOT_HELD",
            Decided::Unknown { .. } => "UNKNOWN",
        }
    }
}

/// `ID: what became of the answer`.
impl fmt::Display for Decided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decided::Decided {
                message_id,
                decision,
                by,
            } => write!(
                f,
                "{message_id}: {} by {by}; {}",
                decision.code(),
                decision.effect()
            ),
            Decided::AlreadyDecided {
                message_id,
                earlier,
            } => write!(
                f,
                "{message_id}: not changed: an operator already decided it ({}); the pump acts on \
                 it at its next look",
                earlier.as_deref().unwrap_or("-")
            ),
            Decided::NotHeld {
                message_id,
                status,
                error_kind,
            } => write!(
                f,
                "{message_id}: not changed: it is {} ({}), not held",
                status.code(),
                error_kind.as_deref().unwrap_or("-")
            ),
            Decided::Unknown { message_id } => write!(
                f,
                "{message_id}: not changed: no such message in PROC_STATE"
            ),
        }
    }
}

/// Answers the held snapshot `id` with `decision`, as `actor`: the
/// decision and its record in one state transaction (this module's doc).
/// An answer refused (not held, answered already, unknown) is recorded
/// too, and returned, not an error.
///
/// # Errors
///
/// [`OperatorError::Store`] when the state transaction fails: nothing was
/// decided or recorded.
pub fn decide_held<S: Store>(
    store: &S,
    id: i64,
    decision: Decision,
    actor: &Actor,
) -> Result<Decided, OperatorError> {
    let by = actor.recorded_name();
    let now = crate::station::utc_now();
    let decided = store.transaction(|tx| {
        let changed = tx.decide_held_message(id, decision.code(), &by, now)?;
        let decided = match tx.select_message_record(id)? {
            _ if changed => Decided::Decided {
                message_id: id,
                decision,
                by: by.clone(),
            },
            Some(r) if r.status == ProcStatus::Held => Decided::AlreadyDecided {
                message_id: id,
                earlier: r.error_kind,
            },
            Some(r) => Decided::NotHeld {
                message_id: id,
                status: r.status,
                error_kind: r.error_kind,
            },
            None => Decided::Unknown { message_id: id },
        };
        Record {
            actor,
            taken_at: now,
            action: decision.action(),
            message_id: Some(id),
            operation_day: None,
            result: decided.code(),
            detail: &decided.to_string(),
        }
        .write(tx)?;
        Ok::<_, OperatorError>(decided)
    })?;
    if decided.ok() {
        tracing::info!(
            msg.id = id,
            decision = decision.code(),
            decided_by = %by,
            via = actor.via.code(),
            "held snapshot decided"
        );
    }
    Ok(decided)
}
