//! The single active main pump (DESIGN §4): drains the mailbox in id order,
//! applies each message through [`apply_message`], follows the failure
//! policy, holds the lease in `PIPELINE_LOCK`, and hands each final outcome
//! to the effect journal as a mailbox write-back.
//!
//! What it owns:
//!
//! - **The lease.** Acquired and renewed in short transactions; acquiring
//!   bumps the fencing epoch; every transaction of a message is fenced by
//!   that epoch under the row lock (the pipeline's own check, and
//!   [`MessageStore`]'s check before commit). A pump that loses the lease
//!   stops and waits to take it again.
//! - **The failure policy.** DEAD releases the head at once;
//!   FAILED(UNSUPPORTED) is retried and turns DEAD at
//!   `unsupported_threshold` attempts; any other failure (FAILED(INFRA):
//!   database, mailbox, a CAS conflict beyond the pipeline's own retries)
//!   blocks the head and is retried with capped exponential backoff and
//!   jitter.
//! - **The write-back intent.** [`MessageStore`] inserts it inside every
//!   transaction that leaves a final `PROC_STATE` (SUCCEEDED or DEAD) before
//!   it commits, so "applied but never written back" cannot be forgotten.
//!
//! It never parses or applies anything itself and never talks SQL. One
//! file per job: `lease.rs`, `message_store.rs` (the fence and the
//! write-back intent, redeliveries), `effects.rs` (the write-backs and the
//! effect worker), `group.rs` (group commit), `latency.rs`, `settings.rs`;
//! this file holds the step loop and the failure policy.

mod effects;
mod group;
mod latency;
mod lease;
mod message_store;
mod settings;

pub use effects::run_effect_worker;
pub use latency::{APPLY_LATENCY, ApplyLatency, LatencyReading};
pub use message_store::MessageStore;
use message_store::{journal_write_back, seal_point};
pub use settings::{PumpSettings, default_holder};

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;

use crate::failure::Causes;
use crate::journal::{PassReport, WorkerLease};
use crate::mailbox::{InboundMessage, Mailbox};
use crate::pipeline::{Applied, PipelineError, Settings, apply_message};
use crate::store::{LeaseOps, Store};

/// The current time as the state database stores bookkeeping times (UTC).
pub fn utc_now() -> NaiveDateTime {
    chrono::Utc::now().naive_utc()
}

/// Capped exponential backoff with jitter: the `failures`-th retry waits
/// between half and all of `initial · 2^(failures-1)`, at most `max`.
pub fn backoff(initial: Duration, max: Duration, failures: u32) -> Duration {
    let exponent = failures.saturating_sub(1).min(30);
    let full = initial.saturating_mul(1u32 << exponent).min(max);
    // Jitter spreads the retries of pumps that failed together.
    full.mul_f64(0.5 + fastrand::f64() * 0.5)
}

/// The lease as the effect worker sees it: set while the pump holds it.
pub type SharedLease = Arc<Mutex<Option<WorkerLease>>>;

/// What one [`Pump::step`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Messages reached a final status (applied, already applied, or dead).
    Progress {
        /// How many.
        messages: usize,
    },
    /// Nothing to do: no pending message (and, with inline effects, no open
    /// write-back).
    Idle,
    /// The head is blocked until `until` (INFRA backoff, an unsupported
    /// message below its threshold, or the mailbox is down).
    Blocked {
        /// The blocked message, if the mailbox could be read.
        message_id: Option<i64>,
        /// When to look again.
        until: Instant,
    },
    /// Another pump holds a live lease: this one waits.
    Standby,
    /// The lease was lost (taken over or ran out): this pump stopped and
    /// will try to take it again.
    LeaseLost,
}

/// Why the pump cannot go on at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PumpError {
    /// A failure injected by a test (feature `failpoints`).
    #[cfg(feature = "failpoints")]
    #[error(transparent)]
    Injected(#[from] crate::failpoint::Injected),
}

struct HeldLease {
    epoch: i64,
    renew_at: Instant,
}

struct BlockedHead {
    message_id: i64,
    failures: u32,
    until: Instant,
}

/// The main pump over state database `S` and a mailbox.
pub struct Pump<S: Store + Clone> {
    store: S,
    mailbox: Arc<Mailbox>,
    pipeline: Settings,
    settings: PumpSettings,
    lease: Option<HeldLease>,
    shared: SharedLease,
    /// Messages this pump saw reach a final status whose mailbox row was
    /// still pending at the last look: the write-back is on its way, so
    /// they are not looked at again (a restart forgets them, and the
    /// identity key makes the second look a no-op).
    awaiting: BTreeSet<i64>,
    blocked: Option<BlockedHead>,
    /// Whether this pump is waiting for another's lease (said once).
    waiting: bool,
    /// Looks at the mailbox that failed in a row: the back-off of an
    /// outage, kept across lease changes.
    mailbox_failures: u32,
}

impl<S: Store + Clone> Pump<S> {
    /// A pump that applies with `pipeline` settings (its `fence` is set by
    /// the pump).
    pub fn new(
        store: S,
        mailbox: Arc<Mailbox>,
        pipeline: Settings,
        settings: PumpSettings,
    ) -> Pump<S> {
        Pump {
            store,
            mailbox,
            pipeline,
            settings,
            lease: None,
            shared: Arc::new(Mutex::new(None)),
            awaiting: BTreeSet::new(),
            blocked: None,
            waiting: false,
            mailbox_failures: 0,
        }
    }

    /// The lease as an effect worker thread should see it.
    pub fn shared_lease(&self) -> SharedLease {
        Arc::clone(&self.shared)
    }

    /// The epoch of the lease this pump holds, if any.
    pub fn epoch(&self) -> Option<i64> {
        self.lease.as_ref().map(|l| l.epoch)
    }

    fn blocked_for(&mut self, message_id: i64, delay: Duration) -> Step {
        let failures = match &self.blocked {
            Some(b) if b.message_id == message_id => b.failures,
            _ => 0,
        };
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

    fn infra_failure(&mut self, message_id: i64) -> Step {
        let failures = match &self.blocked {
            Some(b) if b.message_id == message_id => b.failures + 1,
            _ => 1,
        };
        let delay = backoff(
            self.settings.backoff_initial,
            self.settings.backoff_max,
            failures,
        );
        let until = Instant::now() + delay;
        self.blocked = Some(BlockedHead {
            message_id,
            failures,
            until,
        });
        let now = utc_now();
        let next = now + chrono::Duration::from_std(delay).unwrap_or_default();
        // Best effort: the database may be what failed.
        if let Err(e) = self
            .store
            .transaction(|tx| tx.schedule_retry(message_id, next, now))
        {
            tracing::debug!(error = %Causes(&e), "cannot record the retry time");
        }
        Step::Blocked {
            message_id: Some(message_id),
            until,
        }
    }

    /// One look at the head: takes or renews the lease, reads the pending
    /// rows, applies them in id order until one blocks, then (with inline
    /// effects) writes back what reached a final status.
    ///
    /// # Errors
    ///
    /// Only an injected failure (tests); every real failure is a [`Step`].
    pub fn step(&mut self) -> Result<Step, PumpError> {
        static NEVER: AtomicBool = AtomicBool::new(false);
        self.step_unless(&NEVER)
    }

    /// [`Pump::step`] that stops after the message (or group) in hand once
    /// `stop` is set: a graceful stop does not apply the rest of the batch
    /// it read; what was done is still written back.
    ///
    /// # Errors
    ///
    /// Only an injected failure (tests).
    pub fn step_unless(&mut self, stop: &AtomicBool) -> Result<Step, PumpError> {
        match self.ensure_lease() {
            Ok(Some(true)) => {}
            Ok(Some(false)) => return Ok(Step::LeaseLost),
            Ok(None) => return Ok(Step::Standby),
            Err(e) => {
                tracing::warn!(error = %Causes(&e), "cannot take or renew the pump lease");
                return Ok(Step::Blocked {
                    message_id: None,
                    until: Instant::now() + self.settings.idle_poll,
                });
            }
        }
        let heads = match self.mailbox.read_head(self.settings.head_batch) {
            Ok(heads) => {
                if self.mailbox_failures > 0 {
                    tracing::info!(
                        failed_looks = self.mailbox_failures,
                        "the mailbox answers again"
                    );
                    self.mailbox_failures = 0;
                }
                heads
            }
            Err(e) => {
                // Said once per outage; the looks that follow wait longer
                // and longer, whatever happens to the lease meanwhile.
                self.mailbox_failures += 1;
                if self.mailbox_failures == 1 {
                    tracing::warn!(error = %Causes(&e), kind = ?e.kind(), "cannot read the mailbox; retrying with back-off");
                } else {
                    tracing::debug!(error = %Causes(&e), failed_looks = self.mailbox_failures, "cannot read the mailbox");
                }
                let until = Instant::now()
                    + backoff(
                        self.settings.backoff_initial,
                        self.settings.backoff_max,
                        self.mailbox_failures,
                    );
                return Ok(Step::Blocked {
                    message_id: None,
                    until,
                });
            }
        };
        self.prune_awaiting(&heads);
        let mut done = 0;
        let mut outcome = None;
        let todo: Vec<&InboundMessage> = heads
            .iter()
            .filter(|m| !self.awaiting.contains(&m.id))
            .collect();
        let mut next = 0;
        // After a group failed, its messages go one by one, so the failure
        // is pinned to one message.
        let mut alone_until = 0;
        while let Some(&message) = todo.get(next) {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            if let Some(b) = &self.blocked
                && b.message_id == message.id
                && Instant::now() < b.until
            {
                outcome = Some(Step::Blocked {
                    message_id: Some(message.id),
                    until: b.until,
                });
                break;
            }
            let group = if next < alone_until {
                Vec::new()
            } else {
                self.gather(&todo[next..])
            };
            let processed = match group.len() {
                0 => self.process(message)?,
                n => match self.process_group(&group)? {
                    Some(processed) => processed,
                    None => {
                        alone_until = next + n;
                        self.process(message)?
                    }
                },
            };
            match processed {
                Processed::Final(n) => {
                    for message in &todo[next..next + n] {
                        done += 1;
                        self.awaiting.insert(message.id);
                        if self
                            .blocked
                            .as_ref()
                            .is_some_and(|b| b.message_id == message.id)
                        {
                            self.blocked = None;
                        }
                    }
                    next += n;
                }
                Processed::Stop(step) => {
                    outcome = Some(step);
                    break;
                }
            }
            // Renew between messages when due, so a long batch keeps the
            // lease; a loss stops the batch.
            match self.ensure_lease() {
                Ok(Some(true)) => {}
                // Fencing still guards every commit; the next message will
                // meet the same fault and block the head if it lasts.
                Err(e) => tracing::warn!(error = %Causes(&e), "cannot renew the pump lease"),
                Ok(_) => {
                    outcome = Some(Step::LeaseLost);
                    break;
                }
            }
        }
        let effects_idle = if self.settings.inline_effects && self.lease.is_some() {
            self.run_effects()?
        } else {
            true
        };
        if let Some(step) = outcome {
            return Ok(if done > 0 && matches!(step, Step::Blocked { .. }) {
                // Progress was made; the caller sleeps on the next step.
                Step::Progress { messages: done }
            } else {
                step
            });
        }
        if done > 0 {
            return Ok(Step::Progress { messages: done });
        }
        let unprocessed = heads.iter().any(|m| !self.awaiting.contains(&m.id));
        // A full read says nothing of the rows behind it: rows awaiting their
        // write-back can fill the whole head while new rows wait.
        let more_behind = heads.len() >= self.settings.head_batch;
        Ok(if !unprocessed && !more_behind && effects_idle {
            Step::Idle
        } else {
            Step::Blocked {
                message_id: None,
                until: Instant::now() + self.settings.idle_poll.min(Duration::from_millis(50)),
            }
        })
    }

    /// Forgets awaited rows the last read no longer returns (written back),
    /// keeping those beyond the read's last id (not looked at).
    fn prune_awaiting(&mut self, heads: &[InboundMessage]) {
        let full = heads.len() >= self.settings.head_batch;
        let last = heads.last().map(|m| m.id);
        let seen: BTreeSet<i64> = heads.iter().map(|m| m.id).collect();
        self.awaiting
            .retain(|id| seen.contains(id) || (full && last.is_some_and(|l| *id > l)));
    }

    fn message_store(&self, message_id: i64, epoch: i64, now: NaiveDateTime) -> MessageStore<S> {
        MessageStore::new(
            self.store.clone(),
            Arc::new(self.mailbox.settings().clone()),
            message_id,
            Some(epoch),
            now,
        )
    }

    /// Applies one message under the failure policy.
    fn process(&mut self, message: &InboundMessage) -> Result<Processed, PumpError> {
        let Some(epoch) = self.epoch() else {
            return Ok(Processed::Stop(Step::LeaseLost));
        };
        let span = tracing::info_span!(
            "message",
            msg.id = message.id,
            msg.status = tracing::field::Empty
        );
        let _enter = span.enter();
        let now = utc_now();
        let store = self.message_store(message.id, epoch, now);
        let settings = Settings {
            fence: Some(epoch),
            unsupported_threshold: Some(self.settings.unsupported_threshold),
            ..self.pipeline.clone()
        };
        let started = Instant::now();
        let applied = apply_message(&store, &settings, message.id, &message.body, now);
        APPLY_LATENCY.observe(started.elapsed(), 1);
        match applied {
            Ok(Applied::Unsupported { msg_type, subtype }) => {
                span.record("msg.status", "FAILED");
                Ok(self.unsupported(message, &msg_type, &subtype))
            }
            Ok(applied) => {
                span.record("msg.status", applied.status().code());
                match &applied {
                    Applied::Dead { reason } => {
                        tracing::warn!(%reason, "message is DEAD; released from the head")
                    }
                    Applied::AlreadyProcessed { status } => {
                        tracing::info!(
                            status = status.code(),
                            "already processed; only its write-back is redone"
                        )
                    }
                    Applied::ChangedBody { reason } => tracing::warn!(
                        %reason,
                        "a processed message came again with another body; written back DEAD"
                    ),
                    _ => tracing::debug!("applied"),
                }
                if applied.redelivered()
                    && let Err(e) = self.journal_redelivery(message.id, applied.status(), epoch)
                {
                    if !self.still_leased() {
                        return Ok(Processed::Stop(Step::LeaseLost));
                    }
                    tracing::warn!(error = %Causes(&e), "cannot record the write-back of a row delivered again; retrying");
                    return Ok(Processed::Stop(self.infra_failure(message.id)));
                }
                crate::failpoint!("pump.after_commit");
                Ok(Processed::Final(1))
            }
            Err(PipelineError::Fenced { held, current }) => Ok(self.fenced_out(held, current)),
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
                Ok(Processed::Stop(self.infra_failure(message.id)))
            }
        }
    }

    /// A state transaction was refused by the fence: the lease moved on, so
    /// this pump stops until it takes the lease again.
    fn fenced_out(&mut self, held: i64, current: i64) -> Processed {
        tracing::warn!(
            held,
            current,
            "the lease moved on; this pump's transaction was refused"
        );
        self.lose_lease();
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
        let delay = self.settings.unsupported_retry;
        Processed::Stop(self.blocked_for(message.id, delay))
    }

    /// Runs until `stop` is set, or (with `until_idle`) until there is
    /// nothing left to do; then releases the lease.
    ///
    /// # Errors
    ///
    /// Only an injected failure (tests).
    pub fn run(&mut self, stop: &AtomicBool, until_idle: bool) -> Result<RunSummary, PumpError> {
        let mut summary = RunSummary::default();
        while !stop.load(Ordering::SeqCst) {
            match self.step_unless(stop)? {
                Step::Progress { messages } => summary.messages += messages,
                Step::Idle if until_idle => break,
                Step::Idle | Step::Standby | Step::LeaseLost => {
                    sleep_unless_stopped(self.settings.idle_poll, stop)
                }
                Step::Blocked { until, .. } => {
                    sleep_unless_stopped(until.saturating_duration_since(Instant::now()), stop)
                }
            }
        }
        self.release();
        Ok(summary)
    }
}

/// What [`Pump::run`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunSummary {
    /// Messages that reached a final status.
    pub messages: usize,
}

enum Processed {
    /// This many messages, from the one processed on, reached a final
    /// status.
    Final(usize),
    Stop(Step),
}

/// Sleeps `duration` in short slices, returning early when `stop` is set.
pub fn sleep_unless_stopped(duration: Duration, stop: &AtomicBool) {
    let end = Instant::now() + duration;
    while !stop.load(Ordering::SeqCst) {
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let initial = Duration::from_millis(100);
        let max = Duration::from_secs(2);
        for failures in 1..40 {
            let d = backoff(initial, max, failures);
            let full = initial
                .saturating_mul(1u32 << failures.saturating_sub(1).min(30))
                .min(max);
            assert!(d <= full, "{failures}: {d:?} > {full:?}");
            assert!(d >= full / 2, "{failures}: {d:?} < half of {full:?}");
        }
        assert!(backoff(initial, max, 30) <= max);
    }

    #[test]
    fn holder_names_host_and_process() {
        let holder = default_holder();
        assert!(
            holder.contains(&format!(":{}:", std::process::id())),
            "{holder}"
        );
    }
}
