//! The write-back of a caught-up message: its mailbox row was written back
//! before the state database lost the commit, so the journaled call is
//! settled by reading the row back, not made again (the guarded UPDATE
//! would refuse it as a CONFLICT). A row still pending (its write-back was
//! lost too, or never made) is written back as usual.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::journal::{CallResult, Effect, ReadBack, WRITE_BACK_KIND};
use crate::mailbox::{Mailbox, WriteBack};
use crate::store::StoredCall;

/// The mailbox write-back of the catch-up: read first, written only when
/// the row is still pending.
pub struct SettledWriteBack<'m> {
    write_back: WriteBack<'m>,
    found: AtomicUsize,
}

impl<'m> SettledWriteBack<'m> {
    /// The catch-up's write-back on `mailbox`.
    pub fn new(mailbox: &'m Mailbox) -> SettledWriteBack<'m> {
        SettledWriteBack {
            write_back: WriteBack::new(mailbox),
            found: AtomicUsize::new(0),
        }
    }

    /// How many calls were settled by reading their row back (found
    /// written back with the call's status).
    pub fn found_written_back(&self) -> usize {
        self.found.load(Ordering::SeqCst)
    }
}

impl Effect for SettledWriteBack<'_> {
    fn call_kind(&self) -> &'static str {
        WRITE_BACK_KIND
    }

    fn call(&self, calls: &[&StoredCall]) -> Vec<CallResult> {
        let mut results = vec![CallResult::NotSent; calls.len()];
        let mut to_make = Vec::new();
        for (i, call) in calls.iter().enumerate() {
            results[i] = match self.write_back.read_back(call) {
                Ok(ReadBack::Done { remote_ref }) => {
                    self.found.fetch_add(1, Ordering::SeqCst);
                    CallResult::Accepted { remote_ref }
                }
                Ok(ReadBack::Conflict) => {
                    tracing::warn!(
                        effect.call_id = call.call_id,
                        effect.target = %call.target,
                        "the caught-up message's row was written back with another status; it stands"
                    );
                    CallResult::Conflict
                }
                Ok(ReadBack::Rejected) => CallResult::Rejected,
                Ok(ReadBack::NotApplied) => {
                    to_make.push(i);
                    continue;
                }
                // Nothing was sent: the call may be granted again.
                Err(e) => {
                    tracing::warn!(
                        effect.call_id = call.call_id,
                        error = %crate::failure::Causes(&*e),
                        "cannot read a caught-up row back; its write-back is tried again"
                    );
                    CallResult::NotSent
                }
            };
        }
        if !to_make.is_empty() {
            let pending: Vec<&StoredCall> = to_make.iter().map(|&i| calls[i]).collect();
            for (i, result) in to_make.into_iter().zip(self.write_back.call(&pending)) {
                results[i] = result;
            }
        }
        results
    }

    fn read_back(
        &self,
        call: &StoredCall,
    ) -> Result<ReadBack, Box<dyn std::error::Error + Send + Sync>> {
        self.write_back.read_back(call)
    }
}
