//! The pump's group commit: consecutive flight-level messages at the head
//! are applied in one state transaction, which the pipeline opens as it
//! opens a message's (`pipeline::apply_group`), each with its own outcome
//! and its own journaled write-back, committed together. The order, the fence, the write-back intents (sealed for the
//! whole group by `pipeline::apply_group`) and the crash points are those
//! of a single message; a group that fails is handed back to be applied one
//! message at a time, and a fenced group stops the pump like a fenced
//! message.

use super::policy::say_applied;
use super::{Processed, Pump, Step};
use crate::FailureKind;
use crate::failure::Causes;
use crate::mailbox::InboundMessage;
use crate::pipeline::{Attempt, Grouped, apply_group, prepare_grouped};
use crate::station::utc_now;
use crate::store::Store;

/// What became of a group.
pub(super) enum GroupOutcome {
    /// Committed, or this pump must stop.
    Done(Processed),
    /// Rolled back as a whole (a database fault, an ADFT record that cannot
    /// merge): its messages are applied one by one, which pins the failure
    /// to one message.
    OneByOne,
}

impl<S: Store + Clone> Pump<S> {
    /// The flight-level messages at the front of `todo` that can be applied
    /// together, at most `group_commit` of them, each with its attempt
    /// under this pump's lease; empty when the first one must go alone (or
    /// the lease is gone, which the message alone finds).
    pub(super) fn gather<'m>(&self, todo: &[&'m InboundMessage]) -> Vec<Grouped<'m>> {
        if self.settings.group_commit < 2 {
            return Vec::new();
        }
        let Some(epoch) = self.epoch() else {
            return Vec::new();
        };
        let now = utc_now();
        todo.iter()
            .take(self.settings.group_commit)
            .map_while(|m| {
                let attempt = Attempt::from_mailbox(m, now, self.leased(epoch));
                prepare_grouped(&self.pipeline, attempt)
            })
            .collect()
    }

    /// Applies `group` in one transaction.
    pub(super) fn process_group(
        &mut self,
        group: &[Grouped<'_>],
    ) -> Result<GroupOutcome, super::PumpError> {
        if self.epoch().is_none() {
            return Ok(GroupOutcome::Done(Processed::Stop(Step::LeaseLost)));
        }
        let span = tracing::info_span!(
            "group",
            msg.first = group.first().map(Grouped::id),
            msg.count = group.len()
        );
        let _enter = span.enter();
        // Every message of the group is parsed by now.
        crate::failpoint!("group.after_parse");
        let started = std::time::Instant::now();
        let result = apply_group(&self.store, &self.pipeline, group);
        match result {
            Ok(applied) => {
                crate::histogram::APPLY_LATENCY.observe(started.elapsed(), group.len());
                for (grouped, applied) in group.iter().zip(&applied) {
                    say_applied(grouped.id(), applied);
                }
                crate::failpoint!("group.after_commit");
                Ok(GroupOutcome::Done(Processed::Final(group.len())))
            }
            Err(e) if e.kind() == FailureKind::Fenced => {
                Ok(GroupOutcome::Done(self.fenced_out(&e)))
            }
            Err(e) => {
                tracing::info!(
                    error = %Causes(&e),
                    "the group was rolled back; its messages are applied one by one"
                );
                Ok(GroupOutcome::OneByOne)
            }
        }
    }
}
