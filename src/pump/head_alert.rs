//! The head-of-queue alert (docs/open-questions.md, "Head-of-queue
//! limits"): a head blocked by an infrastructure failure — FAILED(INFRA) or
//! a CAS conflict beyond the retries, or the mailbox down — for longer than
//! `pump.head_blocked_alert_secs` is said once at ERROR; when the head
//! moves again the pump says the alert is cleared.
//!
//! The pump bypasses such a head only under the optional bypass rule, off
//! by default (`super::bypass`): the next message may depend on it, and an
//! infrastructure failure is the site's to fix, not the message's. The
//! status and
//! the metrics read the same fact from `PROC_STATE` (`api::status`), so
//! every process shows it, not only the pump's.

use std::time::{Duration, Instant};

use super::bypass::BypassClock;
use crate::FailureKind;

/// Since when the head has been blocked by the infrastructure, and whether
/// that was said.
#[derive(Debug, Default)]
pub(super) struct HeadAlert {
    blocked: Option<Blocked>,
    bypass: BypassClock,
}

#[derive(Debug)]
struct Blocked {
    since: Instant,
    /// The message at the head, when the mailbox could be read.
    message_id: Option<i64>,
    raised: bool,
}

impl HeadAlert {
    /// The head failed on the infrastructure (`message_id`: the message,
    /// when the mailbox could be read): the wait starts with the first such
    /// failure since the head last moved.
    pub(super) fn failed(&mut self, message_id: Option<i64>, limit: Duration) {
        let blocked = self.blocked.get_or_insert_with(|| Blocked {
            since: Instant::now(),
            message_id,
            raised: false,
        });
        if message_id.is_some() {
            blocked.message_id = message_id;
        } else {
            // The lease or the mailbox could not be read: a server is down,
            // which says nothing of the message.
            self.bypass.reset();
        }
        self.check(limit);
    }

    /// Raises the alert, once, when the head has waited `limit`.
    pub(super) fn check(&mut self, limit: Duration) {
        let Some(blocked) = &mut self.blocked else {
            return;
        };
        let waited = blocked.since.elapsed();
        if blocked.raised || waited < limit {
            return;
        }
        blocked.raised = true;
        tracing::error!(
            msg.id = blocked.message_id,
            blocked_secs = waited.as_secs(),
            limit_secs = limit.as_secs(),
            "the head of the queue is blocked by an infrastructure failure beyond pump.head_blocked_alert_secs; \
             nothing behind it is applied until the database or mailbox fault is fixed"
        );
    }

    /// The head moved (a message reached a final status, or nothing is
    /// pending), or what blocks it is no longer the infrastructure: the
    /// wait ends, and a raised alert is cleared.
    pub(super) fn clear(&mut self) {
        self.bypass.reset();
        let Some(blocked) = self.blocked.take() else {
            return;
        };
        if blocked.raised {
            tracing::info!(
                msg.id = blocked.message_id,
                blocked_secs = blocked.since.elapsed().as_secs(),
                "the head of the queue moves again; the head-blocked alert is cleared"
            );
        }
    }

    /// An attempt at the head `message_id` failed with `kind`: how long its
    /// own attempts have failed, when that makes it due for the bypass rule
    /// (`limit`, `None` when the rule is off).
    pub(super) fn bypass_due(
        &mut self,
        message_id: i64,
        kind: FailureKind,
        limit: Option<Duration>,
    ) -> Option<Duration> {
        self.bypass.failed(message_id, kind, limit)
    }

    /// Whether the alert is raised now.
    #[cfg(test)]
    fn raised(&self) -> bool {
        self.blocked.as_ref().is_some_and(|b| b.raised)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raised_once_after_the_limit_and_cleared_when_the_head_moves() {
        let mut alert = HeadAlert::default();
        alert.failed(Some(7), Duration::from_secs(3600));
        assert!(!alert.raised(), "not before the limit");
        alert.failed(Some(7), Duration::ZERO);
        assert!(alert.raised());
        alert.clear();
        assert!(!alert.raised());
        alert.check(Duration::ZERO);
        assert!(!alert.raised(), "a head that moved is not blocked");
    }
}
