//! The bypass rule (`pump.bypass_after_secs`, off by default; see
//! docs/open-questions.md, "Head-of-queue limits"): a head whose *own*
//! attempts keep failing — a statement timeout, an internal error, a
//! snapshot that loses its version race again and again — while the
//! database and the mailbox answer, is recorded DEAD (`BYPASSED`) once it
//! has failed that way for the limit, so the queue behind it moves on.
//!
//! A connection lost to a server says nothing of the message: it restarts
//! the clock, so an outage (and the first attempt after it, on a connection
//! that broke meanwhile) never bypasses a message that would apply. A few
//! failed attempts are needed as well as the time, so one slow attempt that
//! outlasts the limit is not enough either.

use std::time::{Duration, Instant};

use crate::FailureKind;

/// Failed attempts of the same head, besides the time, before it is bypassed.
const MIN_ATTEMPTS: u32 = 3;

/// Since when the head's own attempts have been failing.
#[derive(Debug, Default)]
pub(super) struct BypassClock {
    failing: Option<Failing>,
}

#[derive(Debug)]
struct Failing {
    message_id: i64,
    since: Instant,
    attempts: u32,
}

impl BypassClock {
    /// Attempt at `message_id` failed with `kind`: whether the head is now
    /// to be bypassed under `limit` (`None`: the rule is off).
    pub(super) fn failed(
        &mut self,
        message_id: i64,
        kind: FailureKind,
        limit: Option<Duration>,
    ) -> Option<Duration> {
        let limit = limit?;
        if kind == FailureKind::ConnectionLost {
            self.failing = None;
            return None;
        }
        let failing = match &mut self.failing {
            Some(f) if f.message_id == message_id => f,
            other => other.insert(Failing {
                message_id,
                since: Instant::now(),
                attempts: 0,
            }),
        };
        failing.attempts += 1;
        let failed_for = failing.since.elapsed();
        (failing.attempts >= MIN_ATTEMPTS && failed_for >= limit).then_some(failed_for)
    }

    /// The head moved, or a server could not be reached: the clock stops.
    pub(super) fn reset(&mut self) {
        self.failing = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_by_default_and_only_for_the_heads_own_failures() {
        let mut clock = BypassClock::default();
        for _ in 0..10 {
            assert_eq!(clock.failed(7, FailureKind::Other, None), None);
        }
        let limit = Some(Duration::ZERO);
        assert_eq!(clock.failed(7, FailureKind::Other, limit), None);
        assert_eq!(clock.failed(7, FailureKind::Timeout, limit), None);
        assert!(clock.failed(7, FailureKind::Conflict, limit).is_some());
        // A lost connection restarts the count.
        assert_eq!(clock.failed(7, FailureKind::ConnectionLost, limit), None);
        assert_eq!(clock.failed(7, FailureKind::Other, limit), None);
        assert_eq!(clock.failed(7, FailureKind::Other, limit), None);
        // So does another head.
        assert_eq!(clock.failed(8, FailureKind::Other, limit), None);
        clock.reset();
        assert_eq!(clock.failed(8, FailureKind::Other, limit), None);
    }

    #[test]
    fn not_before_the_limit() {
        let mut clock = BypassClock::default();
        let limit = Some(Duration::from_secs(3600));
        for _ in 0..10 {
            assert_eq!(clock.failed(7, FailureKind::Other, limit), None);
        }
    }
}
