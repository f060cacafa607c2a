//! The failure policy (DESIGN §4): what the pump does with the head after
//! applying it. DEAD releases the head at once; FAILED(UNSUPPORTED) is
//! retried and turns DEAD at `unsupported_threshold` attempts; a fenced
//! pump (its lease taken over) stops at once, leaving the message to the
//! new holder; any other failure (FAILED(INFRA): database, mailbox, a CAS
//! conflict beyond the pipeline's own retries) blocks the head and is
//! retried with capped exponential backoff and jitter.

use std::time::{Duration, Instant};

use super::{Processed, Pump, PumpError, Step};
use crate::FailureKind;
use crate::failure::{Causes, backoff};
use crate::histogram::APPLY_LATENCY;
use crate::mailbox::InboundMessage;
use crate::pipeline::{Applied, Attempt, Leased, PipelineError, apply_attempt, bypass_message};
use crate::station::utc_now;
use crate::store::{LeaseOps, Store};

/// The head message that waits for its next attempt.
pub(super) struct BlockedHead {
    pub(super) message_id: i64,
    failures: u32,
    pub(super) until: Instant,
}

impl<S: Store + Clone> Pump<S> {
    /// What this pump's transactions commit under at lease `epoch`.
    pub(super) fn leased(&self, epoch: i64) -> Leased {
        Leased {
            epoch,
            statuses: self.mailbox.write_back_statuses(),
            unsupported_threshold: self.settings.unsupported_threshold,
        }
    }

    /// Applies one message under the failure policy.
    pub(super) fn process(&mut self, message: &InboundMessage) -> Result<Processed, PumpError> {
        let Some(epoch) = self.epoch() else {
            return Ok(Processed::Stop(Step::LeaseLost));
        };
        let span = tracing::info_span!(
            "message",
            msg.id = message.id,
            msg.status = tracing::field::Empty
        );
        let _enter = span.enter();
        let attempt = Attempt::from_mailbox(message, utc_now(), self.leased(epoch));
        let started = Instant::now();
        let applied = apply_attempt(&self.store, &self.pipeline, &attempt);
        APPLY_LATENCY.observe(started.elapsed(), 1);
        match applied {
            Ok(Applied::Unsupported { msg_type, subtype }) => {
                span.record("msg.status", "FAILED");
                Ok(self.unsupported(message, &msg_type, &subtype))
            }
            Ok(Applied::Held { reason }) => {
                span.record("msg.status", "HELD");
                Ok(self.held_head(message.id, &reason))
            }
            Ok(applied) => {
                span.record("msg.status", applied.status().code());
                say_applied(message.id, &applied);
                crate::failpoint!("pump.after_commit");
                Ok(Processed::Final(1))
            }
            Err(e) if e.kind() == FailureKind::Fenced => Ok(self.fenced_out(&e)),
            Err(e) => {
                span.record("msg.status", "FAILED");
                // Said before the lease is checked: that check may itself
                // wait for the database that just failed.
                tracing::warn!(
                    error = %Causes(&e),
                    kind = ?e.kind(),
                    "FAILED({}); the head is blocked and retried with backoff",
                    e.error_kind()
                );
                if !self.still_leased() {
                    return Ok(Processed::Stop(Step::LeaseLost));
                }
                if let Some(failed_for) =
                    self.head_alert
                        .bypass_due(message.id, e.kind(), self.settings.bypass_after)
                {
                    return Ok(self.bypass(message, epoch, failed_for, &e));
                }
                Ok(Processed::Stop(self.infra_failure(message.id)))
            }
        }
    }

    /// The bypass rule (`pump.bypass_after_secs`): the head's own attempts
    /// failed for `failed_for`, so it is recorded DEAD (`BYPASSED`), written
    /// back like any dead letter, and the queue moves on. When even that
    /// record fails, the head stays blocked as before.
    fn bypass(
        &mut self,
        message: &InboundMessage,
        epoch: i64,
        failed_for: Duration,
        error: &PipelineError,
    ) -> Processed {
        let reason = format!(
            "bypassed under pump.bypass_after_secs: its own attempts failed for {} s while the \
             servers answered, and the queue behind it moves on; the last error: {}",
            failed_for.as_secs(),
            Causes(error)
        );
        let attempt = Attempt::from_mailbox(message, utc_now(), self.leased(epoch));
        match bypass_message(&self.store, &attempt, &reason) {
            Ok(_) => {
                tracing::error!(
                    msg.id = message.id,
                    %reason,
                    "the head is BYPASSED: recorded DEAD; `flightstate dead requeue` applies it again once its cause is fixed"
                );
                Processed::Final(1)
            }
            Err(e) if e.kind() == FailureKind::Fenced => self.fenced_out(&e),
            Err(e) => {
                tracing::warn!(msg.id = message.id, error = %Causes(&e), "cannot record the bypass; the head stays blocked");
                Processed::Stop(self.infra_failure(message.id))
            }
        }
    }

    /// A transaction was refused by the fence: another pump took the lease
    /// over, so this one stops at once, never retrying (the message is the
    /// new holder's), and waits to take the lease again.
    pub(super) fn fenced_out(&mut self, refusal: &(dyn std::error::Error + 'static)) -> Processed {
        self.lose_lease(&format!(
            "another pump took it over and refused this one's transaction: {}",
            Causes(refusal)
        ));
        Processed::Stop(Step::LeaseLost)
    }

    /// FAILED(UNSUPPORTED) below the threshold: the head waits for the next
    /// attempt (the pipeline makes it DEAD in the attempt that reaches the
    /// threshold).
    fn unsupported(
        &mut self,
        message: &InboundMessage,
        msg_type: &str,
        subtype: &str,
    ) -> Processed {
        tracing::info!(
            threshold = self.settings.unsupported_threshold,
            "unsupported {msg_type}/{subtype}; retried until the threshold"
        );
        let failures = self.failures_of(message.id);
        self.head_alert.clear();
        Processed::Stop(self.block(message.id, failures, self.settings.unsupported_retry))
    }

    /// The INFRA failures in a row of `message_id` if it is the blocked
    /// head.
    fn failures_of(&self, message_id: i64) -> u32 {
        match &self.blocked {
            Some(b) if b.message_id == message_id => b.failures,
            _ => 0,
        }
    }

    pub(super) fn block(&mut self, message_id: i64, failures: u32, delay: Duration) -> Step {
        let until = Instant::now() + delay;
        self.blocked = Some(BlockedHead {
            message_id,
            failures,
            until,
        });
        Step::Blocked {
            message_id: Some(message_id),
            until,
        }
    }

    /// FAILED(INFRA): the head is blocked for the next backoff, and its
    /// retry time recorded.
    fn infra_failure(&mut self, message_id: i64) -> Step {
        let failures = self.failures_of(message_id) + 1;
        self.head_alert
            .failed(Some(message_id), self.settings.head_blocked_alert);
        let delay = backoff(
            self.settings.backoff_initial,
            self.settings.backoff_max,
            failures,
        );
        let step = self.block(message_id, failures, delay);
        let now = utc_now();
        let next = now + chrono::Duration::from_std(delay).unwrap_or_default();
        // Best effort: the database may be what failed.
        if let Err(e) = self
            .store
            .transaction(|tx| tx.schedule_retry(message_id, next, now))
        {
            tracing::debug!(error = %Causes(&e), "cannot record the retry time");
        }
        step
    }
}

/// Says what became of message `message_id` when it reached a final
/// status, alone or in a group.
pub(super) fn say_applied(message_id: i64, applied: &Applied) {
    match applied {
        Applied::Dead { reason } => tracing::warn!(
            msg.id = message_id,
            %reason,
            "message is DEAD; released from the head"
        ),
        Applied::AlreadyProcessed { status } => tracing::info!(
            msg.id = message_id,
            status = status.code(),
            "already processed; only its write-back is redone"
        ),
        Applied::ChangedBody { reason } => tracing::warn!(
            msg.id = message_id,
            %reason,
            "a processed message came again with another body; written back DEAD"
        ),
        _ => tracing::debug!(msg.id = message_id, "applied"),
    }
}

/// A held head (the mass-delete guard, `pipeline::snapshot`): the
/// snapshot at the head is recorded HELD and not written back, and the
/// head waits — every look re-reads its `PROC_STATE`, which changes nothing
/// until an operator releases it (the next look applies it as it is) or
/// rejects it (the next look records it DEAD and the queue moves on). The
/// alert: one ERROR per held message from this pump, the HELD count in the
/// metrics and the held messages on the status page (both read from
/// `PROC_STATE`, so every process shows them).
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
