//! The pump's guard against a state database that lost its last commits
//! (DESIGN §12; docs/operations.md, "After a failover"): an asynchronous
//! standby promoted, a restore. The mailbox rows of those messages were
//! written back after their commits, so the pump would never read them
//! again, and a pump that applied anything newer would hide them for good
//! (the tail is told by the last final message the database holds).
//!
//! So before each batch the pump asks the database for its last final
//! message and the mailbox for rows written back above it with
//! flightstate's statuses, up to the last row of the batch in hand (the
//! whole range above it when nothing is pending): a message is applied
//! only when no lost row lies below it. It also compares that last message
//! with the highest one this pump saw reach a final status: lower means the
//! database went back, even when none of the lost messages was written back
//! yet. Either way the pump names the tail, lets its lease go and stops;
//! its caller catches the tail up (`crate::lost_tail`) and starts it again.
//!
//! The pump is the only process that commits while it holds the lease, so
//! the two reads need no second look: every row written back at the
//! mailbox's read was committed before the database's read.

use super::{InboundMessage, Pump, Step};
use crate::failure::Causes;
use crate::store::{Store, TailOps};

/// Messages the state database lost although their mailbox rows say they
/// were processed (or although this pump saw them final): the ids in
/// `(after, last]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LostTail {
    /// The last message the state database holds as final.
    pub after: i64,
    /// Mailbox rows above it written back with flightstate's statuses.
    pub written_back: i64,
    /// The first of them (`after + 1` when none was written back).
    pub first: i64,
    /// The last message lost: the last row written back, or the highest
    /// message this pump saw final, whichever is higher.
    pub last: i64,
}

impl LostTail {
    /// What operators read: "the state database is behind the mailbox by N
    /// messages (ids a–b)".
    pub fn describe(&self) -> String {
        if self.written_back > 0 {
            format!(
                "the state database is behind the mailbox by {} messages (ids {}–{})",
                self.written_back, self.first, self.last
            )
        } else {
            format!(
                "the state database lost its commits of the messages after id {} up to id {}, \
                 none of them written back yet",
                self.after, self.last
            )
        }
    }
}

impl<S: Store + Clone> Pump<S> {
    /// Looks for a lost tail before the batch `heads` is applied; `Some`
    /// ends the step (the lease let go, the tail kept for
    /// [`Pump::lost_tail`]).
    pub(super) fn guard_tail(&mut self, heads: &[InboundMessage]) -> Option<Step> {
        let found = match self.find_tail(heads) {
            Ok(Some(found)) => found,
            Ok(None) => {
                self.lost = None;
                return None;
            }
            Err(e) => {
                // The batch meets the same fault and blocks the head.
                tracing::warn!(error = %e, "cannot look for a lost tail");
                return None;
            }
        };
        tracing::error!(
            lost_tail.after = found.after,
            lost_tail.written_back = found.written_back,
            lost_tail.first = found.first,
            lost_tail.last = found.last,
            "{}; the pump stops and lets its lease go until the tail is caught up",
            found.describe()
        );
        self.lost = Some(found);
        self.release();
        Some(Step::LeaseLost)
    }

    fn find_tail(&self, heads: &[InboundMessage]) -> Result<Option<LostTail>, String> {
        let last_final = self
            .store
            .transaction(|tx| tx.select_last_final_message())
            .map_err(|e| Causes(&e).to_string())?;
        // Nothing final yet: a new database, whatever the mailbox's history.
        let Some(after) = last_final else {
            return Ok(None);
        };
        let through = heads.last().map_or(i64::MAX, |m| m.id);
        let written = self
            .mailbox
            .written_back(after, through)
            .map_err(|e| Causes(&e).to_string())?;
        let seen = self.highest_final.filter(|&seen| seen > after);
        Ok(match (written, seen) {
            (None, None) => None,
            (written, seen) => Some(LostTail {
                after,
                written_back: written.map_or(0, |w| w.count),
                first: written.map_or(after + 1, |w| w.first),
                last: written.map(|w| w.last).max(seen).unwrap_or(after),
            }),
        })
    }

    /// The lost tail this pump stopped at, if it did.
    pub fn lost_tail(&self) -> Option<LostTail> {
        self.lost
    }
}
