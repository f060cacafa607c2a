//! The one classification of failures that callers act on, and how long
//! a retry waits.
//!
//! Every layer's error enum can tell its [`FailureKind`]; the pump decides
//! retry, dead-lettering and blocking from the kind alone, never from the
//! text of a message. A failure retried waits by [`backoff`].

use std::time::Duration;

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
    /// The database refused the values being written (a data exception or an
    /// integrity violation: SQLSTATE classes 22 and 23, their ORA- twins).
    /// The same values fail the same way every time, so the message that
    /// carries them is dead, never retried.
    DataRejected,
    /// A concurrent writer won (serialization failure, deadlock, CAS miss).
    Conflict,
    /// Another pump took the lease over: this pump's epoch is no longer the
    /// current one, so none of its transactions may commit. Not retried by
    /// this pump; the message is the new holder's, and the pump stops and
    /// waits for the lease.
    Fenced,
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

/// An error with its whole `source()` chain on one line (`a: b: c`).
///
/// Error types derived with `thiserror` print only their own line, even
/// with `{:#}`; the database's or the broker's own words are in the
/// sources, and an operator reading a log line or a `PROC_STATE` reason
/// needs them.
pub struct Causes<'a>(pub &'a (dyn std::error::Error + 'static));

impl std::fmt::Display for Causes<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut shown = self.0.to_string();
        f.write_str(&shown)?;
        let mut source = self.0.source();
        while let Some(cause) = source {
            let text = cause.to_string();
            // A wrapper that repeats its source's text (`#[error(transparent)]`,
            // a `{0}` message, a driver quoting its cause) adds nothing.
            if !shown.contains(&text) {
                write!(f, ": {text}")?;
                shown.push_str(&text);
            }
            source = cause.source();
        }
        Ok(())
    }
}

/// Capped exponential back-off with jitter: the `failures`-th retry waits
/// between half and all of `initial · 2^(failures-1)`, at most `max`. The
/// pump's blocked head, its mailbox outage and the dispatcher's rows all
/// wait by it.
pub fn backoff(initial: Duration, max: Duration, failures: u32) -> Duration {
    let exponent = failures.saturating_sub(1).min(30);
    let full = initial.saturating_mul(1u32 << exponent).min(max);
    // Jitter spreads the retries of processes that failed together.
    full.mul_f64(0.5 + fastrand::f64() * 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let initial = Duration::from_millis(100);
        let max = Duration::from_secs(2);
        for failures in 1..40 {
            let d = backoff(initial, max, failures);
            let full = initial
                .saturating_mul(1u32 << failures.saturating_sub(1).min(30))
                .min(max);
            assert!(d <= full, "{failures}: {d:?} > {full:?}");
            assert!(d >= full / 2, "{failures}: {d:?} < half of {full:?}");
        }
        assert!(backoff(initial, max, 30) <= max);
    }

    #[derive(Debug, thiserror::Error)]
    #[error("state database: upsert_flights failed")]
    struct Outer(#[source] Inner);

    #[derive(Debug, thiserror::Error)]
    #[error("invalid byte sequence for encoding \"UTF8\": 0x00")]
    struct Inner;

    #[derive(Debug, thiserror::Error)]
    #[error(transparent)]
    struct Transparent(#[from] Outer);

    #[test]
    fn a_fenced_pump_is_not_retried() {
        assert!(!FailureKind::Fenced.retryable());
        assert!(FailureKind::Conflict.retryable());
    }

    #[test]
    fn causes_show_every_source_once() {
        let e = Transparent(Outer(Inner));
        assert_eq!(
            Causes(&e).to_string(),
            "state database: upsert_flights failed: invalid byte sequence for encoding \"UTF8\": 0x00"
        );
    }
}
