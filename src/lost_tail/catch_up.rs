//! The catch-up of a lost tail: re-applied from the mailbox under the pump
//! lease, write-backs settled, topics put back in step.
//!
//! The order, each step under the one lease (held as a resync holder, so
//! that every dispatcher waits, and never free until the end):
//!
//! 1. the lease is taken by a pump of the catch-up's own;
//! 2. the tail is looked for again under it (nothing else commits now);
//! 3. the outboxes are numbered above the event ids the topics hold: the
//!    lost commits had used ids the database hands out again, and the
//!    change notices the catch-up registers must not reuse them;
//! 4. the tail's rows (written back by flightstate, or still pending) are
//!    applied again in id order, a page at a time, as the pump applies its
//!    head; after each page their write-backs are settled by reading the
//!    rows back (`settle`);
//! 5. the resync takes the lease over and puts the topics back in step:
//!    versions raised above what consumers hold, states republished,
//!    tombstones where needed; it lets the lease go at its end.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;
use serde::Serialize;

use super::detect::{DetectError, detect};
use super::settle::SettledWriteBack;
use crate::FailureKind;
use crate::journal::{Executor, JournalError, WorkerLease};
use crate::kafka::KafkaClient;
use crate::mailbox::{InboundMessage, Mailbox, MailboxError};
use crate::pipeline::Rules;
use crate::pump::{LostTail, Pump, PumpError, PumpSettings, Step, sleep_unless_stopped};
use crate::resync::{
    ResyncError, ResyncReport, ResyncSettings, read_highest_event_id, resync_held,
};
use crate::station::utc_now;
use crate::store::{ReadOps, ResyncOps, StateTx, Store, StoreError, TailOps};

/// How a catch-up runs.
#[derive(Clone, Debug)]
pub struct CatchUpSettings {
    /// The site's pump settings (`[pump]`); the catch-up's pump holds the
    /// lease under the resync's holder name instead of the site's.
    pub pump: PumpSettings,
    /// The site's processing rules, as the pump applies them.
    pub rules: Rules,
    /// The resync that follows, and the holder of the lease throughout.
    pub resync: ResyncSettings,
}

/// What a catch-up did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CatchUpReport {
    /// The tail caught up; `None` when there was none (nothing was done).
    pub tail: Option<LostTail>,
    /// Mailbox rows read again.
    pub rows: usize,
    /// Of them, messages that reached a final status again.
    pub applied: usize,
    /// Write-backs settled by reading their row back (made before the
    /// loss).
    pub write_backs_found: usize,
    /// How long the re-applying took (steps 2 to 4), in milliseconds.
    pub apply_millis: u64,
    /// The resync that put the topics back in step.
    pub resync: Option<ResyncReport>,
}

/// Why a catch-up stopped. What it committed stays; running it again goes
/// on from the database's last final message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatchUpError {
    /// Another process holds the pump lease.
    #[error(
        "the pump lease is held by `{holder}` until {until} UTC; the pump that holds it catches \
         the tail up itself, or stop it and run the catch-up again"
    )]
    PipelineBusy {
        /// Who holds it.
        holder: String,
        /// When it runs out unless renewed (UTC).
        until: NaiveDateTime,
    },
    /// The lease moved to another process during the catch-up.
    #[error("the catch-up lost the pump lease to another process; run it again")]
    LeaseLost,
    /// The tail could not be looked for.
    #[error(transparent)]
    Detect(#[from] DetectError),
    /// The tail's rows could not be read.
    #[error("cannot read the lost tail's rows")]
    Mailbox(#[from] MailboxError),
    /// The state database failed.
    #[error("state database")]
    Store(#[from] StoreError),
    /// A pass of the write-back settling failed.
    #[error("settling the caught-up write-backs")]
    Journal(#[from] JournalError),
    /// The pump stopped (an injected failure, tests).
    #[error("the catch-up's pump stopped")]
    Pump(#[from] PumpError),
    /// The topics could not be put back in step; the tail itself is caught
    /// up. `flightstate resync` finishes it.
    #[error(
        "the tail is caught up, but putting the topics back in step failed; run `flightstate resync`"
    )]
    Resync(#[from] ResyncError),
    /// A stop was asked for.
    #[error("stopped before the tail was caught up")]
    Stopped,
}

impl CatchUpError {
    /// What went wrong, for a caller deciding whether to try again.
    pub fn kind(&self) -> FailureKind {
        match self {
            CatchUpError::PipelineBusy { .. } => FailureKind::Conflict,
            CatchUpError::LeaseLost => FailureKind::Fenced,
            CatchUpError::Store(e) => e.kind(),
            CatchUpError::Mailbox(e) => e.kind(),
            CatchUpError::Resync(e) => e.kind(),
            _ => FailureKind::Other,
        }
    }
}

/// Catches up the lost tail of `store` from `mailbox` and puts the topics
/// `client` reaches back in step. `hint` is the tail a pump stopped at: it
/// may reach further than the mailbox shows (commits the pump saw whose
/// write-backs were not made yet). Nothing to do when there is no tail.
///
/// # Errors
///
/// A [`CatchUpError`]; the lease is let go.
pub fn catch_up<S: Store + Clone>(
    store: &S,
    mailbox: &Arc<Mailbox>,
    client: &KafkaClient,
    settings: &CatchUpSettings,
    hint: Option<LostTail>,
    stop: &AtomicBool,
) -> Result<CatchUpReport, CatchUpError> {
    let mut pump = Pump::new(
        store.clone(),
        Arc::clone(mailbox),
        settings.rules.clone(),
        PumpSettings {
            holder: settings.resync.holder.clone(),
            inline_effects: false,
            ..settings.pump.clone()
        },
    );
    pump.catch_up(&[], stop)?;
    let Some(epoch) = pump.epoch() else {
        let lease = store.transaction(|tx| tx.pipeline_lease())?;
        return Err(CatchUpError::PipelineBusy {
            holder: lease.holder.unwrap_or_default(),
            until: lease.expires_at.unwrap_or_else(utc_now),
        });
    };
    let mut report = CatchUpReport::default();
    let applied = under_lease(
        store,
        mailbox,
        client,
        settings,
        hint,
        stop,
        &mut pump,
        &mut report,
    );
    let tail = match applied {
        Ok(Some(tail)) => tail,
        Ok(None) => {
            pump.release();
            return Ok(report);
        }
        Err(e) => {
            pump.release();
            return Err(e);
        }
    };
    tracing::info!(
        rows = report.rows,
        applied = report.applied,
        write_backs_found = report.write_backs_found,
        millis = report.apply_millis,
        "{} no more: the tail is applied again; putting the topics back in step",
        tail.describe()
    );
    // The resync takes the lease over at the same epoch and lets it go.
    report.resync = Some(resync_held(store, client, &settings.resync, epoch)?);
    Ok(report)
}

/// Steps 2 to 4 under the lease; the tail, or `None` when there is none.
#[allow(clippy::too_many_arguments)]
fn under_lease<S: Store + Clone>(
    store: &S,
    mailbox: &Arc<Mailbox>,
    client: &KafkaClient,
    settings: &CatchUpSettings,
    hint: Option<LostTail>,
    stop: &AtomicBool,
    pump: &mut Pump<S>,
    report: &mut CatchUpReport,
) -> Result<Option<LostTail>, CatchUpError> {
    let started = Instant::now();
    let found = detect(store, mailbox)?;
    let tail = match (found, hint) {
        (Some(found), Some(hint)) if hint.after == found.after => Some(LostTail {
            last: found.last.max(hint.last),
            ..found
        }),
        (Some(found), _) => Some(found),
        // What the pump saw, when the database still lacks it.
        (None, Some(hint)) => {
            let last_final = store.transaction(|tx| tx.select_last_final_message())?;
            last_final
                .filter(|&last| last < hint.last)
                .map(|after| LostTail { after, ..hint })
        }
        (None, None) => None,
    };
    report.tail = tail;
    let Some(tail) = tail else {
        return Ok(None);
    };
    tracing::warn!(
        lost_tail.after = tail.after,
        lost_tail.last = tail.last,
        "{}; catching it up from the mailbox",
        tail.describe()
    );
    number_above_topics(store, client, settings, pump)?;
    let holder = settings.resync.holder.as_str();
    let mut cursor = tail.after;
    loop {
        let rows = mailbox.catch_up_rows(cursor, tail.last, settings.pump.head_batch.max(1))?;
        let Some(last) = rows.last().map(|r| r.message.id) else {
            break;
        };
        report.rows += rows.len();
        let messages: Vec<InboundMessage> = rows.into_iter().map(|r| r.message).collect();
        report.applied += apply_page(pump, &messages, stop)?;
        let epoch = pump.epoch().ok_or(CatchUpError::LeaseLost)?;
        report.write_backs_found += settle(store, mailbox, holder, epoch, &settings.pump)?;
        cursor = last;
    }
    report.apply_millis = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(Some(tail))
}

/// Step 3: the outboxes' next ids above the topics' highest.
fn number_above_topics<S: Store + Clone>(
    store: &S,
    client: &KafkaClient,
    settings: &CatchUpSettings,
    pump: &mut Pump<S>,
) -> Result<(), CatchUpError> {
    let resync = &settings.resync;
    let mut keep = || {
        if pump.keep_lease() {
            Ok(())
        } else {
            Err(ResyncError::LeaseLost)
        }
    };
    let state = read_highest_event_id(client, &resync.state_topic, resync.topic_stall, &mut keep)?;
    let change =
        read_highest_event_id(client, &resync.change_topic, resync.topic_stall, &mut keep)?;
    let epoch = pump.epoch().ok_or(CatchUpError::LeaseLost)?;
    store.transaction(|tx| {
        fence(tx, &resync.holder, epoch)?;
        tx.raise_event_ids(state.unwrap_or_default(), change.unwrap_or_default())?;
        Ok::<_, CatchUpError>(())
    })
}

/// Takes `PIPELINE_LOCK` and checks the lease is still the catch-up's.
fn fence(tx: &mut impl StateTx, holder: &str, epoch: i64) -> Result<(), CatchUpError> {
    let lease = tx.lock_pipeline()?;
    if lease.holder.as_deref() == Some(holder) && lease.epoch == epoch {
        Ok(())
    } else {
        Err(CatchUpError::LeaseLost)
    }
}

/// Applies one page of the tail with the pump, waiting out a blocked
/// message as the pump would; how many reached a final status.
fn apply_page<S: Store + Clone>(
    pump: &mut Pump<S>,
    messages: &[InboundMessage],
    stop: &AtomicBool,
) -> Result<usize, CatchUpError> {
    let mut applied = 0;
    let mut from = 0;
    while from < messages.len() {
        if stop.load(Ordering::SeqCst) {
            return Err(CatchUpError::Stopped);
        }
        let step = pump.catch_up(&messages[from..], stop)?;
        applied += step.done;
        let Some(resume_at) = step.resume_at else {
            break;
        };
        from = messages
            .iter()
            .position(|m| m.id == resume_at)
            .unwrap_or(messages.len());
        match step.stopped {
            Some(Step::Blocked { until, .. }) => {
                sleep_unless_stopped(until.saturating_duration_since(Instant::now()), stop);
            }
            Some(Step::Standby | Step::LeaseLost) => return Err(CatchUpError::LeaseLost),
            _ => {}
        }
    }
    Ok(applied)
}

/// Settles the open write-backs under the catch-up's lease: each row found
/// written back with the call's status is the call's receipt; a pending one
/// is written back. Returns how many were found made.
fn settle<S: Store>(
    store: &S,
    mailbox: &Mailbox,
    holder: &str,
    epoch: i64,
    pump: &PumpSettings,
) -> Result<usize, CatchUpError> {
    let effect = SettledWriteBack::new(mailbox);
    let executor = Executor::new(vec![&effect], pump.effect_batch);
    let lease = WorkerLease {
        holder: holder.to_owned(),
        epoch,
    };
    // Each pass settles a batch; calls that must be tried again (a row
    // that could not be read) are left to the effect worker.
    for _ in 0..10_000 {
        let pass = executor.run_once(store, &lease, utc_now)?;
        if pass.sent == 0 && pass.settled == 0 || pass.retry > 0 {
            break;
        }
    }
    Ok(effect.found_written_back())
}

/// How long a caller waits before it tries a failed catch-up again.
pub fn retry_after(settings: &PumpSettings) -> Duration {
    settings.lease_ttl / 3
}
