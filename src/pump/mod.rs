//! The single active main pump (DESIGN §4): drains the mailbox in id order,
//! applies each message through [`apply_attempt`](crate::pipeline::apply_attempt)
//! as an [`Attempt`](crate::pipeline::Attempt) under its lease, follows the
//! failure policy, holds the lease in `PIPELINE_LOCK`, and hands
//! each final outcome to the effect journal as a mailbox write-back.
//!
//! It never parses or applies anything itself and never talks SQL. Its
//! parts:
//!
//! - the step (this file): the lease, a read of the head, each message or
//!   group in turn, the bookkeeping of what reached a final status, and the
//!   idle wait for the next arrival;
//! - `lease`: **the lease**, acquired and renewed in short transactions;
//!   acquiring bumps the fencing epoch. A pump that loses the lease stops
//!   and waits to take it again;
//! - `policy`: **the failure policy**: DEAD releases the head at once,
//!   FAILED(UNSUPPORTED) is retried up to a threshold, FAILED(INFRA) blocks
//!   the head with backoff, and a fenced pump stops at once, never retrying;
//!   a held snapshot at the head is its case too, and `bypass` (the
//!   optional bypass rule) and `head_alert` (the head-blocked alert) its
//!   clocks;
//! - `group`: group commit; `effects`: **the write-backs**, made inline or
//!   by the effect worker.
//!
//! The fence and the write-back intent are the first and last steps of
//! every transaction of an attempt (`pipeline::Attempt`): the epoch is
//! checked under the row lock and the intent recorded before the commit,
//! so "applied but never written back" cannot be forgotten and a stale pump
//! can never commit.

mod bypass;
mod catch_up;
mod effects;
mod group;
mod head_alert;
mod lease;
mod policy;
mod settings;
mod tail_guard;

pub use catch_up::CatchUpStep;
pub use effects::run_effect_worker;
use group::GroupOutcome;
use head_alert::HeadAlert;
use lease::Tenure;
use policy::BlockedHead;
pub use settings::PumpSettings;
pub use tail_guard::LostTail;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::doorbell::Doorbell;
use crate::failure::Causes;
use crate::journal::{PassReport, WorkerLease};
use crate::mailbox::{InboundMessage, Mailbox};
use crate::pipeline::Rules;
use crate::store::Store;

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

/// The least a stand-by pump waits between two tries to take the lease.
const STANDBY_LOOK: Duration = Duration::from_secs(1);

/// The main pump over state database `S` and a mailbox.
pub struct Pump<S: Store + Clone> {
    store: S,
    mailbox: Arc<Mailbox>,
    pipeline: Rules,
    settings: PumpSettings,
    lease: Option<HeldLease>,
    shared: SharedLease,
    /// Messages this pump saw reach a final status whose mailbox row was
    /// still pending at the last look: the write-back is on its way, so
    /// they are not looked at again (a restart forgets them, and the
    /// identity key makes the second look a no-op).
    awaiting: BTreeSet<i64>,
    blocked: Option<BlockedHead>,
    /// The held head this pump raised its alert for (said once).
    held_alerted: Option<i64>,
    /// Since when the head has been blocked by the infrastructure.
    head_alert: HeadAlert,
    /// Whether this pump is waiting for another's lease (said once).
    waiting: bool,
    /// Looks at the mailbox that failed in a row: the back-off of an
    /// outage, kept across lease changes.
    mailbox_failures: u32,
    /// Rung after every commit and when the lease is taken or lost, for the
    /// dispatcher and the effect worker of the same process.
    doorbell: Doorbell,
    /// When a message last reached a final status: the idle wait looks for
    /// arrivals only while the mailbox is not quiet.
    last_arrival: Instant,
    /// The highest message this pump saw reach a final status: a state
    /// database whose last final message is lower lost commits
    /// (`tail_guard`).
    highest_final: Option<i64>,
    /// The lost tail this pump stopped at.
    lost: Option<LostTail>,
}

impl<S: Store + Clone> Pump<S> {
    /// A pump that applies with `pipeline` settings (its `fence` is set by
    /// the pump).
    pub fn new(
        store: S,
        mailbox: Arc<Mailbox>,
        pipeline: Rules,
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
            held_alerted: None,
            head_alert: HeadAlert::default(),
            waiting: false,
            mailbox_failures: 0,
            doorbell: Doorbell::new(),
            last_arrival: Instant::now(),
            highest_final: None,
            lost: None,
        }
    }

    /// The pump ringing `doorbell` after each commit (`run` hands the same
    /// doorbell to its dispatcher).
    pub fn with_doorbell(self, doorbell: Doorbell) -> Pump<S> {
        Pump { doorbell, ..self }
    }

    /// The lease as an effect worker thread should see it.
    pub fn shared_lease(&self) -> SharedLease {
        Arc::clone(&self.shared)
    }

    /// The epoch of the lease this pump holds, if any.
    pub fn epoch(&self) -> Option<i64> {
        self.lease.as_ref().map(|l| l.epoch)
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
        if let Some(step) = self.hold_lease() {
            return Ok(step);
        }
        let heads = match self.read_head() {
            Ok(heads) => heads,
            Err(step) => return Ok(step),
        };
        if let Some(step) = self.guard_tail(&heads) {
            return Ok(step);
        }
        self.prune_awaiting(&heads);
        let mut batch = Batch::of(&heads, &self.awaiting);
        self.work_through(&mut batch, stop)?;
        let effects_idle = if self.settings.inline_effects && self.lease.is_some() {
            self.run_effects()?
        } else {
            true
        };
        Ok(self.step_of(&heads, batch, effects_idle))
    }

    /// Takes or renews the lease: `None` when this pump holds it, else the
    /// step that says why it cannot go on.
    fn hold_lease(&mut self) -> Option<Step> {
        match self.ensure_lease() {
            Ok(Tenure::Held) => None,
            Ok(Tenure::Lost) => Some(Step::LeaseLost),
            Ok(Tenure::Standby) => Some(Step::Standby),
            Err(e) => {
                tracing::warn!(error = %Causes(&e), "cannot take or renew the pump lease");
                // The state database is unreachable: a pump that holds the
                // lease holds the head too (a stand-by one holds nothing).
                if self.lease.is_some() {
                    self.head_alert
                        .failed(None, self.settings.head_blocked_alert);
                }
                Some(Step::Blocked {
                    message_id: None,
                    until: Instant::now() + self.settings.idle_poll,
                })
            }
        }
    }

    /// Reads the pending rows at the head, or says for how long a mailbox
    /// that failed to answer is left alone: the looks that fail in a row
    /// wait longer and longer, whatever happens to the lease meanwhile.
    fn read_head(&mut self) -> Result<Vec<InboundMessage>, Step> {
        match self.mailbox.read_head(self.settings.head_batch) {
            Ok(heads) => {
                if self.mailbox_failures > 0 {
                    tracing::info!(
                        failed_looks = self.mailbox_failures,
                        "the mailbox answers again"
                    );
                    self.mailbox_failures = 0;
                }
                Ok(heads)
            }
            Err(e) => {
                self.mailbox_failures += 1;
                self.head_alert
                    .failed(None, self.settings.head_blocked_alert);
                // Said once per outage.
                if self.mailbox_failures == 1 {
                    tracing::warn!(error = %Causes(&e), kind = ?e.kind(), "cannot read the mailbox; retrying with back-off");
                } else {
                    tracing::debug!(error = %Causes(&e), failed_looks = self.mailbox_failures, "cannot read the mailbox");
                }
                let until = Instant::now()
                    + crate::failure::backoff(
                        self.settings.backoff_initial,
                        self.settings.backoff_max,
                        self.mailbox_failures,
                    );
                Err(Step::Blocked {
                    message_id: None,
                    until,
                })
            }
        }
    }

    /// Applies `batch` in id order until a message ends it (blocked, held,
    /// the lease lost) or `stop` is set, renewing the lease between
    /// messages: the pump's own head and a lost tail's rows alike.
    fn work_through(&mut self, batch: &mut Batch<'_>, stop: &AtomicBool) -> Result<(), PumpError> {
        while batch.outcome.is_none() && !stop.load(Ordering::SeqCst) {
            let Some(&message) = batch.todo.get(batch.next) else {
                break;
            };
            self.apply_next(batch, message)?;
            if batch.outcome.is_none() {
                batch.outcome = self.renew_between_messages();
            }
        }
        Ok(())
    }

    /// Applies the next message of `batch` (with the flight-level messages
    /// behind it that can join it in one group), unless it is the blocked
    /// head still waiting for its retry.
    fn apply_next(
        &mut self,
        batch: &mut Batch<'_>,
        message: &InboundMessage,
    ) -> Result<(), PumpError> {
        if let Some(b) = &self.blocked
            && b.message_id == message.id
            && Instant::now() < b.until
        {
            self.head_alert.check(self.settings.head_blocked_alert);
            batch.outcome = Some(Step::Blocked {
                message_id: Some(message.id),
                until: b.until,
            });
            return Ok(());
        }
        let group = if batch.next < batch.alone_until {
            Vec::new()
        } else {
            self.gather(&batch.todo[batch.next..])
        };
        let processed = match group.len() {
            0 => self.process(message)?,
            n => match self.process_group(&group)? {
                GroupOutcome::Done(processed) => processed,
                GroupOutcome::OneByOne => {
                    // Its messages go one by one, so the failure is pinned
                    // to one message.
                    batch.alone_until = batch.next + n;
                    self.process(message)?
                }
            },
        };
        match processed {
            Processed::Final(n) => {
                self.doorbell.ring();
                self.last_arrival = Instant::now();
                self.head_alert.clear();
                let settled = &batch.todo[batch.next..batch.next + n];
                self.settled(settled);
                batch.done += n;
                batch.next += n;
            }
            Processed::Stop(step) => batch.outcome = Some(step),
        }
        Ok(())
    }

    /// Bookkeeping for `messages`, which reached a final status: their rows
    /// await the write-back, and a block or an alert of theirs is over.
    fn settled(&mut self, messages: &[&InboundMessage]) {
        for message in messages {
            self.awaiting.insert(message.id);
            self.highest_final = self.highest_final.max(Some(message.id));
            if self
                .blocked
                .as_ref()
                .is_some_and(|b| b.message_id == message.id)
            {
                self.blocked = None;
            }
            // Held again later (a rejected snapshot requeued), it is alerted
            // again.
            if self.held_alerted == Some(message.id) {
                self.held_alerted = None;
            }
        }
    }

    /// Renews the lease between messages when due, so that a long batch
    /// keeps it: `Some` ends the batch when the lease is lost.
    fn renew_between_messages(&mut self) -> Option<Step> {
        match self.ensure_lease() {
            Ok(Tenure::Held) => None,
            // Fencing still guards every commit; the next message will meet
            // the same fault and block the head if it lasts.
            Err(e) => {
                tracing::warn!(error = %Causes(&e), "cannot renew the pump lease");
                None
            }
            Ok(Tenure::Lost | Tenure::Standby) => Some(Step::LeaseLost),
        }
    }

    /// What the step did, once `batch` ended and the write-backs were made
    /// (`effects_idle`: none is left open).
    fn step_of(&mut self, heads: &[InboundMessage], batch: Batch<'_>, effects_idle: bool) -> Step {
        if let Some(step) = batch.outcome {
            return if batch.done > 0 && matches!(step, Step::Blocked { .. }) {
                // Progress was made; the caller sleeps on the next step.
                Step::Progress {
                    messages: batch.done,
                }
            } else {
                step
            };
        }
        if batch.done > 0 {
            return Step::Progress {
                messages: batch.done,
            };
        }
        let unprocessed = heads.iter().any(|m| !self.awaiting.contains(&m.id));
        // A full read says nothing of the rows behind it: rows awaiting their
        // write-back can fill the whole head while new rows wait.
        let more_behind = heads.len() >= self.settings.head_batch;
        if !unprocessed && !more_behind {
            self.head_alert.clear();
        }
        if !unprocessed && !more_behind && effects_idle {
            Step::Idle
        } else {
            Step::Blocked {
                message_id: None,
                until: Instant::now() + self.settings.idle_poll.min(Duration::from_millis(50)),
            }
        }
    }

    /// Sleeps `idle_poll` between two reads of the head, looking every
    /// `arrival_poll` at the mailbox's last id and ending the sleep when it
    /// grew: a new row is read within `arrival_poll`, while the head (a read
    /// through the pending rows) is read at most every `idle_poll`. Once
    /// nothing has arrived for `arrival_quiet`, the looks stop and the head
    /// alone is read every `idle_poll`: a quiet mailbox is asked no more
    /// often than before the looks existed, and the first row after the
    /// quiet is read within `idle_poll`. A row
    /// that arrived between the last read of the head and the first look is
    /// read at the end of the sleep, as one put back to pending with its old
    /// id is. A look that fails ends the sleep: the read of the head meets
    /// the fault and backs off. The sleep also ends when the lease is due
    /// for renewal, however long `idle_poll` is.
    fn wait_for_arrival(&self, stop: &AtomicBool) {
        let mut deadline = Instant::now() + self.settings.idle_poll;
        if let Some(lease) = &self.lease {
            deadline = deadline.min(lease.renew_at);
        }
        let quiet = self.last_arrival.elapsed() >= self.settings.arrival_quiet;
        let Some(every) = self.settings.arrival_poll.filter(|_| !quiet) else {
            sleep_unless_stopped(deadline.saturating_duration_since(Instant::now()), stop);
            return;
        };
        let Ok(last) = self.mailbox.last_message_id() else {
            return;
        };
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || stop.load(Ordering::SeqCst) {
                return;
            }
            sleep_unless_stopped(every.min(left), stop);
            match self.mailbox.last_message_id() {
                Ok(now) if now == last => {}
                _ => return,
            }
        }
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

    /// Runs until `stop` is set, or (with `until_idle`) until there is
    /// nothing left to do; then releases the lease.
    ///
    /// # Errors
    ///
    /// Only an injected failure (tests).
    /// It also stops at a lost tail ([`RunSummary::lost_tail`]): the
    /// caller catches it up and runs the pump again.
    pub fn run(&mut self, stop: &AtomicBool, until_idle: bool) -> Result<RunSummary, PumpError> {
        let mut summary = RunSummary::default();
        self.lost = None;
        while !stop.load(Ordering::SeqCst) {
            let step = self.step_unless(stop)?;
            if self.lost.is_some() {
                break;
            }
            match step {
                Step::Progress { messages } => summary.messages += messages,
                Step::Idle if until_idle => break,
                Step::Idle => self.wait_for_arrival(stop),
                // Waiting for another's lease to run out: a look at the lease
                // is a transaction on the state database, not a cheap look
                // at the mailbox.
                Step::Standby | Step::LeaseLost => {
                    sleep_unless_stopped(self.settings.idle_poll.max(STANDBY_LOOK), stop)
                }
                Step::Blocked { until, .. } => {
                    sleep_unless_stopped(until.saturating_duration_since(Instant::now()), stop)
                }
            }
        }
        summary.lost_tail = self.lost;
        self.release();
        Ok(summary)
    }
}

/// What [`Pump::run`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunSummary {
    /// Messages that reached a final status.
    pub messages: usize,
    /// The lost tail the pump stopped at, if it did.
    pub lost_tail: Option<LostTail>,
}

/// One step's batch: the rows read at the head that do not await their
/// write-back, in id order, and how far the step got through them.
struct Batch<'h> {
    todo: Vec<&'h InboundMessage>,
    /// The next row to apply.
    next: usize,
    /// After a group failed, the rows before this one are applied one by
    /// one.
    alone_until: usize,
    /// Rows that reached a final status.
    done: usize,
    /// Why the batch ended early, if it did.
    outcome: Option<Step>,
}

impl<'h> Batch<'h> {
    fn of(heads: &'h [InboundMessage], awaiting: &BTreeSet<i64>) -> Batch<'h> {
        Batch {
            todo: heads.iter().filter(|m| !awaiting.contains(&m.id)).collect(),
            next: 0,
            alone_until: 0,
            done: 0,
            outcome: None,
        }
    }
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
