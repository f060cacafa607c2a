//! The one classification of failures that callers act on.
//!
//! Every layer's error enum can tell its [`FailureKind`]; the pump decides
//! retry, dead-lettering and blocking from the kind alone, never from the
//! text of a message.

/// What went wrong, as far as a caller must know to decide what to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[non_exhaustive]
pub enum FailureKind {
    /// The input itself is wrong (malformed XML, a bad value, a RECS
    /// mismatch, over capacity). Retrying cannot help.
    BadInput,
    /// A message type or subtype that flightstate does not handle.
    Unsupported,
    /// A unique key already holds a row.
    Duplicate,
    /// A row refers to a parent that does not exist.
    MissingParent,
    /// A concurrent writer won (serialization failure, deadlock, CAS miss).
    Conflict,
    /// The connection to a server was lost or could not be made.
    ConnectionLost,
    /// A statement or call ran past its time limit.
    Timeout,
    /// Anything else; treated as an infrastructure fault.
    Other,
}

impl FailureKind {
    /// Whether trying the same work again may succeed.
    pub fn retryable(self) -> bool {
        matches!(
            self,
            FailureKind::Conflict
                | FailureKind::ConnectionLost
                | FailureKind::Timeout
                | FailureKind::Other
        )
    }
}
