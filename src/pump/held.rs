//! A held head (the mass-delete guard, `pipeline::snapshot`): the
//! snapshot at the head is recorded HELD and not written back, and the
//! head waits — every look re-reads its `PROC_STATE`, which changes nothing
//! until an operator releases it (the next look applies it as it is) or
//! rejects it (the next look records it DEAD and the queue moves on).
//!
//! The alert: one ERROR per held message from this pump, the HELD count in
//! the metrics and the held messages on the status page (both read from
//! `PROC_STATE`, so every process shows them).

use super::{Processed, Pump};
use crate::store::Store;

impl<S: Store + Clone> Pump<S> {
    /// The head `message_id` is held for `reason`: it waits, looked at
    /// again after the idle poll.
    pub(super) fn held_head(&mut self, message_id: i64, reason: &str) -> Processed {
        // What blocks the head now is an operator's answer, not the
        // infrastructure: the head-blocked alert does not count the wait.
        self.head_alert.clear();
        if self.held_alerted != Some(message_id) {
            self.held_alerted = Some(message_id);
            tracing::error!(
                msg.id = message_id,
                %reason,
                "snapshot HELD by the mass-delete guard; the queue waits until an operator runs `flightstate release {message_id}` or `flightstate reject {message_id}`"
            );
        }
        Processed::Stop(self.block(message_id, 0, self.settings.idle_poll))
    }
}
