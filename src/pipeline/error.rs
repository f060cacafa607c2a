//! Why applying a message failed, and what that means for the message.

use crate::FailureKind;
use crate::store::{MASS_DELETE, StoreError};

/// A failure while applying a message. Its [`kind`](PipelineError::kind)
/// decides the outcome: bad input is DEAD at once, unsupported input is
/// FAILED(UNSUPPORTED), a fenced pump ([`FailureKind::Fenced`], a
/// [`Store`](PipelineError::Store) error from
/// [`Attempt::lock`](super::Attempt)) leaves the message untouched and
/// stops, everything else is an infrastructure fault that is retried.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PipelineError {
    /// The message cannot be applied as it is (bad XML, RECS mismatch, a
    /// value that does not fit, an undeterminable operation day, …).
    #[error("{0}")]
    BadInput(String),
    /// A message type or subtype flightstate does not apply.
    #[error("unsupported message {msg_type}/{subtype}")]
    Unsupported {
        /// META TYPE.
        msg_type: String,
        /// META STYP.
        subtype: String,
    },
    /// A snapshot that would delete too much of its day: held for an
    /// operator (`flightstate release` / `flightstate reject`), nothing of
    /// it applied.
    #[error(transparent)]
    Held(#[from] crate::state::MassDelete),
    /// The state database failed, or refused a pump whose lease was taken
    /// over (kind [`FailureKind::Fenced`]).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A rule ran on a message not read yet: the pipeline's own fault.
    #[error(transparent)]
    Unread(#[from] MetaUnread),
    /// A failure injected by a test (feature `failpoints`).
    #[cfg(feature = "failpoints")]
    #[error(transparent)]
    Injected(#[from] crate::failpoint::Injected),
}

impl PipelineError {
    /// The failure's kind.
    pub fn kind(&self) -> FailureKind {
        match self {
            // Applying it again as it is would only be held again.
            PipelineError::BadInput(_) | PipelineError::Held(_) => FailureKind::BadInput,
            PipelineError::Unsupported { .. } => FailureKind::Unsupported,
            PipelineError::Store(e) => e.kind(),
            PipelineError::Unread(_) => FailureKind::Other,
            #[cfg(feature = "failpoints")]
            PipelineError::Injected(e) => match e.action {
                crate::failpoint::Action::Conflict => FailureKind::Conflict,
                _ => FailureKind::Other,
            },
        }
    }

    /// The `PROC_STATE.ERROR_KIND` recorded for it.
    pub fn error_kind(&self) -> &'static str {
        if let PipelineError::Held(_) = self {
            return MASS_DELETE;
        }
        match self.kind() {
            FailureKind::BadInput => "BAD_INPUT",
            FailureKind::Unsupported => "UNSUPPORTED",
            FailureKind::Conflict => "CONFLICT",
            FailureKind::DataRejected | FailureKind::Duplicate | FailureKind::MissingParent => {
                "DATA_REJECTED"
            }
            _ => "INFRA",
        }
    }
}

/// A rule was handed a message whose META was not read yet: a broken
/// invariant of the pipeline, not of the message. The attempt fails as an
/// infrastructure fault (retried, and the blocked head alerts), as the
/// pump's own bug should, rather than panicking.
#[derive(Debug, thiserror::Error)]
#[error("message {message_id} reached a rule before its META was read")]
pub struct MetaUnread {
    /// The message's id.
    pub message_id: i64,
}
