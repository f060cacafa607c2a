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
//! It never parses or applies anything itself and never talks SQL.

mod group;
mod latency;

pub use latency::{APPLY_LATENCY, ApplyLatency, LatencyReading};

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;

use crate::FailureKind;
use crate::failure::Causes;
use crate::journal::{Executor, JournalError, PassReport, Recorded, WorkerLease, record_intent};
use crate::mailbox::{InboundMessage, Mailbox, MailboxSettings, WriteBack, write_back_intent};
use crate::pipeline::{Applied, PipelineError, Settings, apply_message};
use crate::store::{LeaseOps, ProcStatus, StateTx, Store, StoreError};

/// How the pump behaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PumpSettings {
    /// Who this pump is in `PIPELINE_LOCK.LEASE_HOLDER` (host, process, a
    /// random suffix).
    pub holder: String,
    /// How long a lease lasts unless renewed; it is renewed after a third of
    /// that.
    pub lease_ttl: Duration,
    /// FAILED(UNSUPPORTED) attempts after which the message is DEAD.
    pub unsupported_threshold: i32,
    /// How long an unsupported head waits before its next attempt.
    pub unsupported_retry: Duration,
    /// First backoff of a blocked head (INFRA).
    pub backoff_initial: Duration,
    /// Longest backoff.
    pub backoff_max: Duration,
    /// How long an idle (or lease-less) pump sleeps between looks.
    pub idle_poll: Duration,
    /// Mailbox rows read per look at the head.
    pub head_batch: usize,
    /// Journaled calls made per pass of the effect worker.
    pub effect_batch: i64,
    /// Most consecutive flight-level messages applied in one state
    /// transaction (group commit); 1 commits each on its own.
    pub group_commit: usize,
    /// Whether the pump makes the write-backs itself after each batch
    /// (`flightstate pump`), or leaves them to an effect worker thread
    /// (`flightstate run`).
    pub inline_effects: bool,
}

impl Default for PumpSettings {
    fn default() -> Self {
        PumpSettings {
            holder: default_holder(),
            lease_ttl: Duration::from_secs(15),
            unsupported_threshold: 3,
            unsupported_retry: Duration::ZERO,
            backoff_initial: Duration::from_millis(200),
            backoff_max: Duration::from_secs(30),
            idle_poll: Duration::from_millis(500),
            head_batch: 500,
            effect_batch: 500,
            group_commit: 50,
            inline_effects: true,
        }
    }
}

/// `host:pid:random`, unique enough that two pumps never share a name.
pub fn default_holder() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_owned());
    format!("{host}:{}:{:04x}", std::process::id(), fastrand::u16(..))
}

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

    fn publish(&self) {
        let view = self.lease.as_ref().map(|l| WorkerLease {
            holder: self.settings.holder.clone(),
            epoch: l.epoch,
        });
        if let Ok(mut shared) = self.shared.lock() {
            *shared = view;
        }
    }

    fn renew_after(&self) -> Instant {
        Instant::now() + self.settings.lease_ttl / 3
    }

    fn lease_expiry(&self, now: NaiveDateTime) -> NaiveDateTime {
        now + chrono::Duration::from_std(self.settings.lease_ttl)
            .unwrap_or_else(|_| chrono::Duration::seconds(15))
    }

    /// Holds the lease after this call, or says why not: `Ok(None)` when
    /// another pump holds it, `Ok(Some(false))` when it was just lost.
    fn ensure_lease(&mut self) -> Result<Option<bool>, StoreError> {
        let holder = self.settings.holder.clone();
        match &self.lease {
            Some(held) if Instant::now() < held.renew_at => Ok(Some(true)),
            Some(held) => {
                let epoch = held.epoch;
                let now = utc_now();
                let expires = self.lease_expiry(now);
                let renewed = self
                    .store
                    .transaction(|tx| tx.renew_lease(&holder, epoch, now, expires))?;
                if renewed {
                    let renew_at = self.renew_after();
                    if let Some(held) = self.lease.as_mut() {
                        held.renew_at = renew_at;
                    }
                    Ok(Some(true))
                } else {
                    self.lose_lease();
                    Ok(Some(false))
                }
            }
            None => {
                let now = utc_now();
                let expires = self.lease_expiry(now);
                let acquired = self
                    .store
                    .transaction(|tx| tx.acquire_lease(&holder, now, expires))?;
                match acquired {
                    Some(epoch) => {
                        self.waiting = false;
                        tracing::info!(lease.holder = %holder, lease.epoch = epoch, "took the pump lease");
                        self.lease = Some(HeldLease {
                            epoch,
                            renew_at: self.renew_after(),
                        });
                        // What this pump knew under an older lease is stale.
                        self.awaiting.clear();
                        self.publish();
                        Ok(Some(true))
                    }
                    None => {
                        self.say_why_waiting();
                        Ok(None)
                    }
                }
            }
        }
    }

    /// Says once, when this pump starts waiting, which lease it waits for
    /// and until when: after a crash restart the old lease runs out only
    /// at its expiry, and a silent wait looks like a hang.
    fn say_why_waiting(&mut self) {
        if self.waiting {
            return;
        }
        self.waiting = true;
        match self.store.transaction(|tx| tx.lock_pipeline()) {
            Ok(lease) => tracing::info!(
                lease.holder = lease.holder.as_deref().unwrap_or("nobody"),
                lease.epoch = lease.epoch,
                lease.expires_at = %lease.expires_at.map_or_else(|| "-".to_owned(), |t| format!("{t} UTC")),
                "another pump holds the lease; waiting until it is released or runs out"
            ),
            Err(e) => tracing::info!(
                error = %Causes(&e),
                "another pump holds the lease; waiting until it is released or runs out"
            ),
        }
    }

    fn lose_lease(&mut self) {
        if let Some(held) = self.lease.take() {
            tracing::warn!(
                lease.epoch = held.epoch,
                "lost the pump lease; stopped pumping"
            );
        }
        self.awaiting.clear();
        self.blocked = None;
        self.publish();
    }

    /// Whether the lease is still ours (renewing it if due); loses it
    /// otherwise. A database failure counts as "still ours": fencing
    /// protects every commit anyway.
    fn still_leased(&mut self) -> bool {
        if let Some(held) = self.lease.as_mut() {
            // Force a renewal now: something suggested the lease moved.
            held.renew_at = Instant::now();
        }
        !matches!(self.ensure_lease(), Ok(Some(false)) | Ok(None))
    }

    /// Lets the lease go (graceful stop), so another pump can take over at
    /// once.
    pub fn release(&mut self) {
        if let Some(held) = self.lease.take() {
            let holder = self.settings.holder.clone();
            let now = utc_now();
            match self
                .store
                .transaction(|tx| tx.release_lease(&holder, held.epoch, now))
            {
                Ok(released) => {
                    tracing::info!(
                        lease.epoch = held.epoch,
                        released,
                        "released the pump lease"
                    )
                }
                Err(e) => {
                    tracing::warn!(error = %Causes(&e), "cannot release the pump lease; it will run out")
                }
            }
        }
        self.publish();
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

    /// Write-back passes until nothing is left or something fails. Returns
    /// whether the journal is idle.
    fn run_effects(&mut self) -> Result<bool, PumpError> {
        let Some(held) = &self.lease else {
            return Ok(true);
        };
        let lease = WorkerLease {
            holder: self.settings.holder.clone(),
            epoch: held.epoch,
        };
        let write_back = WriteBack::new(&self.mailbox);
        let executor = Executor::new(vec![&write_back], self.settings.effect_batch);
        for _ in 0..1000 {
            match executor.run_once(&self.store, &lease, utc_now) {
                Ok(report) if report.idle() => return Ok(true),
                Ok(PassReport { retry, .. }) if retry > 0 => return Ok(false),
                Ok(_) => {}
                Err(JournalError::LeaseLost { .. }) => {
                    self.lose_lease();
                    return Ok(false);
                }
                #[cfg(feature = "failpoints")]
                Err(JournalError::Injected(e)) => return Err(e.into()),
                Err(e) => {
                    tracing::warn!(error = %Causes(&e), "write-back pass failed; retrying later");
                    return Ok(false);
                }
            }
        }
        Ok(false)
    }

    fn message_store(&self, message_id: i64, epoch: i64, now: NaiveDateTime) -> MessageStore<S> {
        MessageStore {
            inner: self.store.clone(),
            mailbox: Arc::new(self.mailbox.settings().clone()),
            message_id,
            fence: Some(epoch),
            now,
        }
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

    /// Records the write-back of a row delivered again after its message was
    /// final (see [`journal_write_back`]), fenced like every transaction of a
    /// message.
    fn journal_redelivery(
        &self,
        message_id: i64,
        status: ProcStatus,
        epoch: i64,
    ) -> Result<(), StoreError> {
        let mailbox = self.mailbox.settings().clone();
        let now = utc_now();
        self.store.transaction(|tx| {
            let lease = tx.lock_pipeline()?;
            if lease.epoch != epoch {
                return Err(fenced(Some(epoch), lease.epoch));
            }
            journal_write_back(tx, &mailbox, message_id, status, true, now)?;
            seal_point()
        })
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

fn fenced(held: Option<i64>, current: i64) -> StoreError {
    StoreError::new(
        FailureKind::Conflict,
        "check the pump lease",
        format!("the pump lease moved to epoch {current} (this pump holds {held:?})"),
    )
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

/// The effect worker of `flightstate run`: makes journaled calls while the
/// pump holds the lease, until `stop` is set.
pub fn run_effect_worker<S: Store>(
    store: &S,
    mailbox: &Mailbox,
    lease: &SharedLease,
    settings: &PumpSettings,
    stop: &AtomicBool,
) {
    let span = tracing::info_span!("worker", worker.name = "effects");
    let _enter = span.enter();
    let write_back = WriteBack::new(mailbox);
    let executor = Executor::new(vec![&write_back], settings.effect_batch);
    let mut failures = 0;
    let mut failing = false;
    while !stop.load(Ordering::SeqCst) {
        let current = lease.lock().ok().and_then(|l| l.clone());
        let Some(current) = current else {
            sleep_unless_stopped(settings.idle_poll, stop);
            continue;
        };
        let outcome = executor.run_once(store, &current, utc_now);
        if failing && outcome.is_ok() {
            tracing::info!("write-back passes succeed again");
            failing = false;
        }
        let pause = match outcome {
            Ok(report) if report.idle() => {
                failures = 0;
                settings.idle_poll.min(Duration::from_millis(100))
            }
            Ok(report) if report.retry > 0 => {
                failures += 1;
                backoff(settings.backoff_initial, settings.backoff_max, failures)
            }
            Ok(_) => {
                failures = 0;
                Duration::ZERO
            }
            Err(JournalError::LeaseLost { .. }) => settings.idle_poll,
            Err(e) => {
                failures += 1;
                // The first failure of an outage at `warn`, the rest at
                // `debug`; the passes back off meanwhile.
                if failing {
                    tracing::debug!(error = %Causes(&e), "write-back pass failed again; retrying later");
                } else {
                    tracing::warn!(error = %Causes(&e), "write-back pass failed; retrying later");
                    failing = true;
                }
                backoff(settings.backoff_initial, settings.backoff_max, failures)
            }
        };
        sleep_unless_stopped(pause, stop);
    }
}

/// The state database as one message's transactions see it: every
/// transaction that leaves the message with a final `PROC_STATE` is fenced
/// by the pump's epoch under `PIPELINE_LOCK` and records the message's
/// write-back intent before it commits (DESIGN §6.1), whichever rule of the
/// pipeline ran it.
///
/// A second look at an already committed message reads its final
/// `PROC_STATE` in the pipeline's first transaction, so the same hook
/// re-records (idempotently) the intent that the write-back is redone from.
pub struct MessageStore<S> {
    inner: S,
    mailbox: Arc<MailboxSettings>,
    message_id: i64,
    fence: Option<i64>,
    now: NaiveDateTime,
}

impl<S: Store> MessageStore<S> {
    /// `inner` seen by message `message_id`, fenced at `fence` (none for
    /// tools outside the pump).
    pub fn new(
        inner: S,
        mailbox: Arc<MailboxSettings>,
        message_id: i64,
        fence: Option<i64>,
        now: NaiveDateTime,
    ) -> MessageStore<S> {
        MessageStore {
            inner,
            mailbox,
            message_id,
            fence,
            now,
        }
    }

    fn seal<T>(&self, tx: &mut T) -> Result<(), StoreError>
    where
        T: StateTx + crate::store::JournalOps,
    {
        let Some(record) = tx.proc_state(self.message_id)? else {
            return Ok(());
        };
        if let Some(fence) = self.fence {
            let lease = tx.lock_pipeline()?;
            if lease.epoch != fence {
                return Err(fenced(Some(fence), lease.epoch));
            }
        }
        journal_write_back(
            tx,
            &self.mailbox,
            self.message_id,
            record.status,
            false,
            self.now,
        )?;
        seal_point()
    }
}

/// Records, in the transaction that gave message `message_id` its final
/// `status`, the intent of its mailbox write-back (DESIGN §6.1).
///
/// A `redelivered` row (its message was final before this delivery) is
/// written back again by a new call named after the redelivery, unless a
/// write-back of it is still on its way: a settled call is never made
/// twice, and a row left pending would hold the head for ever (DESIGN §4
/// "Redelivery"). Redeliveries are rare, so they are found by looking up
/// `backfill:{id}`, `backfill:{id}:resent:1`, … until one is missing.
fn journal_write_back<T: crate::store::JournalOps + ?Sized>(
    tx: &mut T,
    mailbox: &MailboxSettings,
    message_id: i64,
    status: ProcStatus,
    redelivered: bool,
    now: NaiveDateTime,
) -> Result<(), StoreError> {
    let mut delivery = 0;
    let intent = loop {
        let Some(intent) = write_back_intent(mailbox, message_id, status, delivery) else {
            return Ok(());
        };
        if !redelivered {
            break intent;
        }
        match tx.select_effect_call(&intent.idempotency_key())? {
            None => break intent,
            Some(call) if !call.status.settled() => return Ok(()),
            Some(_) => delivery += 1,
        }
    };
    match record_intent(tx, &intent, now)? {
        Recorded::DigestMismatch(call_id) => {
            // The message changed outcome under the same id: the journaled
            // write-back stands, since its digest can never change.
            tracing::warn!(
                effect.call_id = call_id,
                status = status.code(),
                "a write-back with another status is already journaled; it stands"
            );
        }
        Recorded::New(call_id) if delivery > 0 => {
            tracing::info!(
                effect.call_id = call_id,
                delivery,
                status = status.code(),
                "the mailbox row came again after its write-back; it is written back again"
            );
        }
        _ => {}
    }
    Ok(())
}

#[cfg(feature = "failpoints")]
fn seal_point() -> Result<(), StoreError> {
    crate::failpoint::hit("pump.before_commit")
        .map_err(|e| StoreError::new(FailureKind::Other, "failpoint pump.before_commit", e))
}

#[cfg(not(feature = "failpoints"))]
fn seal_point() -> Result<(), StoreError> {
    Ok(())
}

impl<S: Store> Store for MessageStore<S> {
    type Tx<'c>
        = S::Tx<'c>
    where
        Self: 'c;

    fn transaction<T, E, F>(&self, work: F) -> Result<T, E>
    where
        E: From<StoreError>,
        F: FnOnce(&mut Self::Tx<'_>) -> Result<T, E>,
    {
        self.inner.transaction(|tx| {
            let value = work(tx)?;
            self.seal(tx)?;
            Ok(value)
        })
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
