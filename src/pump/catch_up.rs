//! The pump applying the rows of a lost tail again (`crate::lost_tail`
//! reads them from the mailbox and settles their write-backs): the same
//! batches, groups and failure policy as its own head, under its lease,
//! without reading the head and without making any write-back.

use std::sync::atomic::AtomicBool;

use super::{Batch, InboundMessage, Pump, PumpError, Step};
use crate::store::Store;

/// How far one [`Pump::catch_up`] got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatchUpStep {
    /// Rows that reached a final status.
    pub done: usize,
    /// The first row not done yet, when it stopped before the last.
    pub resume_at: Option<i64>,
    /// Why it stopped before the last row, if it did: a blocked message
    /// (retried at `until`, as the pump would), a held snapshot, or the
    /// lease lost.
    pub stopped: Option<Step>,
}

impl<S: Store + Clone> Pump<S> {
    /// Applies `rows` (in id order) as the pump applies its head, until one
    /// blocks, the lease is lost or `stop` is set. Takes the lease first if
    /// this pump does not hold it.
    ///
    /// # Errors
    ///
    /// Only an injected failure (tests).
    pub fn catch_up(
        &mut self,
        rows: &[InboundMessage],
        stop: &AtomicBool,
    ) -> Result<CatchUpStep, PumpError> {
        if let Some(step) = self.hold_lease() {
            return Ok(CatchUpStep {
                done: 0,
                resume_at: rows.first().map(|m| m.id),
                stopped: Some(step),
            });
        }
        let mut batch = Batch::of(rows, &self.awaiting);
        self.work_through(&mut batch, stop)?;
        // Rows the journal holds an open write-back for were applied: they
        // are left out of the batch.
        Ok(CatchUpStep {
            done: batch.done,
            resume_at: batch.todo.get(batch.next).map(|m| m.id),
            stopped: batch.outcome,
        })
    }
}
