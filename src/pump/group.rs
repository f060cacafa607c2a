//! The pump's group commit: consecutive flight-level messages at the head
//! are applied in one state transaction (`pipeline::apply_group`), each
//! with its own outcome and its own journaled write-back, committed
//! together. The order, the fencing and the crash points are those of a
//! single message; a group that fails is handed back to be applied one
//! message at a time.

use super::{Processed, Pump, Step, journal_write_back, seal_point, utc_now};
use crate::failure::Causes;
use crate::mailbox::InboundMessage;
use crate::pipeline::{Applied, Grouped, PipelineError, Settings, apply_group, prepare_grouped};
use crate::store::Store;

impl<S: Store + Clone> Pump<S> {
    /// The flight-level messages at the front of `todo` that can be applied
    /// together, at most `group_commit` of them; empty when the first one
    /// must go alone.
    pub(super) fn gather(&self, todo: &[&InboundMessage]) -> Vec<Grouped> {
        if self.settings.group_commit < 2 {
            return Vec::new();
        }
        todo.iter()
            .take(self.settings.group_commit)
            .map_while(|m| prepare_grouped(&self.pipeline, m.id, &m.body))
            .collect()
    }

    /// Applies `group` in one transaction: `Some` with what happened, or
    /// `None` when the group failed as a whole and was rolled back (its
    /// messages are then applied one by one, which pins the failure).
    pub(super) fn process_group(
        &mut self,
        group: &[Grouped],
    ) -> Result<Option<Processed>, super::PumpError> {
        let Some(epoch) = self.epoch() else {
            return Ok(Some(Processed::Stop(Step::LeaseLost)));
        };
        let span = tracing::info_span!(
            "group",
            msg.first = group.first().map(Grouped::id),
            msg.count = group.len()
        );
        let _enter = span.enter();
        let now = utc_now();
        let settings = Settings {
            fence: Some(epoch),
            ..self.pipeline.clone()
        };
        let mailbox = self.mailbox.settings().clone();
        // Every message of the group is parsed by now.
        crate::failpoint!("apply.after_parse");
        let started = std::time::Instant::now();
        let result = self.store.transaction(|tx| {
            let applied = apply_group(tx, &settings, group, now)?;
            for (grouped, applied) in group.iter().zip(&applied) {
                journal_write_back(
                    tx,
                    &mailbox,
                    grouped.id(),
                    applied.status(),
                    applied.redelivered(),
                    now,
                )?;
            }
            seal_point()?;
            Ok::<_, PipelineError>(applied)
        });
        match result {
            Ok(applied) => {
                super::APPLY_LATENCY.observe(started.elapsed(), group.len());
                for (grouped, applied) in group.iter().zip(&applied) {
                    match applied {
                        Applied::Dead { reason } => tracing::warn!(
                            msg.id = grouped.id(),
                            %reason,
                            "message is DEAD; released from the head"
                        ),
                        Applied::AlreadyProcessed { status } => tracing::info!(
                            msg.id = grouped.id(),
                            status = status.code(),
                            "already processed; only its write-back is redone"
                        ),
                        Applied::ChangedBody { reason } => tracing::warn!(
                            msg.id = grouped.id(),
                            %reason,
                            "a processed message came again with another body; written back DEAD"
                        ),
                        _ => tracing::debug!(msg.id = grouped.id(), "applied"),
                    }
                }
                crate::failpoint!("pump.after_commit");
                Ok(Some(Processed::Final(group.len())))
            }
            Err(PipelineError::Fenced { held, current }) => {
                Ok(Some(self.fenced_out(held, current)))
            }
            Err(e) => {
                tracing::info!(
                    error = %Causes(&e),
                    "the group was rolled back; its messages are applied one by one"
                );
                Ok(None)
            }
        }
    }
}
