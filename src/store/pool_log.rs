//! What the r2d2 pools — the state database's and the mailbox's — say about
//! themselves: the failures to open or revive a connection, which r2d2
//! reports to an error handler on its own threads, not to the caller that
//! waits for a connection (without one a dead server or link would stay
//! silent until the caller's own wait runs out); and how many connections
//! a pool holds, for `/metrics`.

use std::error::Error as StdError;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The first quiet time after a logged failure.
const FIRST_GAP: Duration = Duration::from_secs(1);
/// The longest quiet time between two logged failures while they go on.
const MAX_GAP: Duration = Duration::from_secs(60);

/// How many connections a pool holds, as r2d2 counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PoolCount {
    /// Connections open (idle or in use).
    pub open: u32,
    /// Open connections waiting in the pool.
    pub idle: u32,
    /// The most the pool opens (its `pool_size`).
    pub max: u32,
}

impl PoolCount {
    /// The count of `pool` now.
    pub fn of<M: r2d2::ManageConnection>(pool: &r2d2::Pool<M>) -> PoolCount {
        let state = pool.state();
        PoolCount {
            open: state.connections,
            idle: state.idle_connections,
            max: pool.max_size(),
        }
    }

    /// Open connections checked out.
    pub fn in_use(&self) -> u32 {
        self.open.saturating_sub(self.idle)
    }
}

/// An r2d2 error handler that logs each failure as a warning with its whole
/// cause chain, backing off while failures go on (1 s, 2 s, … up to 60 s
/// between two lines, the number left out said on the next) and starting
/// again at once after a quiet minute.
#[derive(Debug)]
pub(crate) struct PoolErrorLog {
    what: &'static str,
    state: Mutex<Quiet>,
}

#[derive(Debug)]
struct Quiet {
    next_at: Option<Instant>,
    gap: Duration,
    left_out: u64,
}

impl PoolErrorLog {
    /// A handler whose lines name `what` ("state database").
    pub(crate) fn new(what: &'static str) -> PoolErrorLog {
        PoolErrorLog {
            what,
            state: Mutex::new(Quiet {
                next_at: None,
                gap: FIRST_GAP,
                left_out: 0,
            }),
        }
    }

    /// Whether a failure at `now` is logged, and how many were left out
    /// before it.
    fn admit(&self, now: Instant) -> Option<u64> {
        let mut quiet = self.state.lock().ok()?;
        match quiet.next_at {
            Some(next_at) if now < next_at => {
                quiet.left_out += 1;
                None
            }
            Some(next_at) if now.duration_since(next_at) < MAX_GAP => {
                let left_out = std::mem::take(&mut quiet.left_out);
                quiet.next_at = Some(now + quiet.gap);
                quiet.gap = (quiet.gap * 2).min(MAX_GAP);
                Some(left_out)
            }
            _ => {
                let left_out = std::mem::take(&mut quiet.left_out);
                quiet.next_at = Some(now + FIRST_GAP);
                quiet.gap = FIRST_GAP * 2;
                Some(left_out)
            }
        }
    }
}

impl<E: StdError> r2d2::HandleError<E> for PoolErrorLog {
    fn handle_error(&self, error: E) {
        if let Some(left_out) = self.admit(Instant::now()) {
            tracing::warn!(
                error = %chain(&error),
                left_out,
                "{}: a pooled connection failed or could not be opened; retrying",
                self.what
            );
        }
    }
}

/// `error` and each of its causes, `: `-separated; a cause whose text its
/// parent already printed is not repeated.
pub(crate) fn chain(error: &dyn StdError) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let line = cause.to_string();
        if !text.contains(&line) {
            let _ = write!(text, ": {line}");
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_logged_with_growing_gaps() {
        let log = PoolErrorLog::new("test");
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        assert_eq!(log.admit(at(0)), Some(0));
        assert_eq!(log.admit(at(500)), None);
        assert_eq!(log.admit(at(1_000)), Some(1), "after the first second");
        assert_eq!(log.admit(at(2_500)), None, "then two seconds apart");
        assert_eq!(log.admit(at(3_000)), Some(1));
        assert_eq!(log.admit(at(6_000)), None, "then four");
        assert_eq!(log.admit(at(7_000)), Some(1));
        // A quiet minute past the next slot starts over.
        assert_eq!(log.admit(at(7_000 + 8_000 + 61_000)), Some(0));
        assert_eq!(log.admit(at(7_000 + 8_000 + 61_500)), None);
    }

    #[test]
    fn chain_prints_each_cause_once() {
        #[derive(Debug)]
        struct Outer(std::io::Error);
        impl std::fmt::Display for Outer {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("open the pool")
            }
        }
        impl StdError for Outer {
            fn source(&self) -> Option<&(dyn StdError + 'static)> {
                Some(&self.0)
            }
        }
        let e = Outer(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            "connection timed out",
        ));
        assert_eq!(chain(&e), "open the pool: connection timed out");
    }
}
