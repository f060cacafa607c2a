//! The mailbox write-back as a journaled effect (DESIGN §6): the call that
//! marks a message's row processed with the status of its outcome. Its
//! intent — which status is written back, under which key — is the
//! journal's (`journal::write_back`), recorded by the message's final
//! transaction.

use super::Mailbox;
use crate::journal::{CallResult, Effect, ReadBack, WRITE_BACK_KIND, write_back_target};
use crate::store::StoredCall;

/// The mailbox write-back as a journaled [`Effect`].
pub struct WriteBack<'m> {
    mailbox: &'m Mailbox,
}

impl<'m> WriteBack<'m> {
    /// The write-back effect on `mailbox`.
    pub fn new(mailbox: &'m Mailbox) -> WriteBack<'m> {
        WriteBack { mailbox }
    }
}

impl Effect for WriteBack<'_> {
    fn call_kind(&self) -> &'static str {
        WRITE_BACK_KIND
    }

    fn call(&self, calls: &[&StoredCall]) -> Vec<CallResult> {
        let mut results = vec![CallResult::Rejected; calls.len()];
        let mut items = Vec::with_capacity(calls.len());
        let mut positions = Vec::with_capacity(calls.len());
        for (i, call) in calls.iter().enumerate() {
            // A target that is not ours is refused without a call.
            if let Some(id) = write_back_target(call) {
                items.push((id, call.payload.as_str()));
                positions.push(i);
            }
        }
        if items.is_empty() {
            return results;
        }
        for (i, result) in positions.into_iter().zip(self.mailbox.write_back(&items)) {
            results[i] = result;
        }
        results
    }

    /// The guarded UPDATE makes a late duplicate harmless, so a row still
    /// pending is `NotApplied` and may be written back in a later attempt.
    fn read_back(
        &self,
        call: &StoredCall,
    ) -> Result<ReadBack, Box<dyn std::error::Error + Send + Sync>> {
        let Some(id) = write_back_target(call) else {
            return Ok(ReadBack::Rejected);
        };
        Ok(match self.mailbox.message_state(id)? {
            None => ReadBack::Rejected,
            Some(row) if !row.processed => ReadBack::NotApplied,
            Some(row) if row.status.as_deref() == Some(call.payload.as_str()) => ReadBack::Done {
                remote_ref: Some(id.to_string()),
            },
            Some(_) => ReadBack::Conflict,
        })
    }
}
