//! The write-backs and request writes: made by the pump itself after each
//! batch (`flightstate pump`), or by an effect worker thread while the pump
//! holds the lease (`flightstate run`). Either way through the journal's
//! [`Executor`]; overdue requests are timed out between passes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::{PassReport, Pump, PumpError, PumpSettings, SharedLease, sleep_unless_stopped};
use crate::doorbell::Doorbell;
use crate::failure::{Causes, backoff};
use crate::journal::{Executor, JournalError, WorkerLease};
use crate::mailbox::{Mailbox, Outbound, WriteBack};
use crate::station::utc_now;
use crate::store::Store;

impl<S: Store + Clone> Pump<S> {
    /// Write-back passes until nothing is left or something fails. Returns
    /// whether the journal is idle.
    pub(super) fn run_effects(&mut self) -> Result<bool, PumpError> {
        let Some(held) = &self.lease else {
            return Ok(true);
        };
        let lease = WorkerLease {
            holder: self.settings.holder.clone(),
            epoch: held.epoch,
        };
        let write_back = WriteBack::new(&self.mailbox);
        let outbound = Outbound::new(&self.mailbox);
        let executor = Executor::new(vec![&write_back, &outbound], self.settings.effect_batch);
        crate::request::sweep_overdue(&self.store, utc_now());
        for _ in 0..1000 {
            match executor.run_once(&self.store, &lease, utc_now) {
                Ok(report) if report.idle() => return Ok(true),
                Ok(PassReport { retry, .. }) if retry > 0 => return Ok(false),
                Ok(_) => {}
                Err(JournalError::LeaseLost { .. }) => {
                    self.lose_lease("a write-back pass found it moved on");
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
}

/// How long an idle effect worker waits for the pump's ring before it
/// looks at the journal anyway: the pump rings when it commits, which is
/// when its write-backs are journaled; the look catches calls journaled by
/// another process (`flightstate request`) and overdue requests.
const IDLE_LOOK: Duration = Duration::from_secs(1);

/// The effect worker of `flightstate run`: makes journaled calls while the
/// pump holds the lease, until `stop` is set. Idle, it wakes at `doorbell`'s
/// ring (the pump's commits) or after [`IDLE_LOOK`].
pub fn run_effect_worker<S: Store>(
    store: &S,
    mailbox: &Mailbox,
    lease: &SharedLease,
    settings: &PumpSettings,
    doorbell: &Doorbell,
    stop: &AtomicBool,
) {
    let span = tracing::info_span!("worker", worker.name = "effects");
    let _enter = span.enter();
    let write_back = WriteBack::new(mailbox);
    let outbound = Outbound::new(mailbox);
    let executor = Executor::new(vec![&write_back, &outbound], settings.effect_batch);
    let mut failures = 0;
    let mut failing = false;
    while !stop.load(Ordering::SeqCst) {
        let seen = doorbell.rings();
        let current = lease.lock().ok().and_then(|l| l.clone());
        let Some(current) = current else {
            // The pump rings when it takes the lease.
            doorbell.wait(seen, settings.idle_poll, &[stop]);
            continue;
        };
        crate::request::sweep_overdue(store, utc_now());
        let outcome = executor.run_once(store, &current, utc_now);
        if failing && outcome.is_ok() {
            tracing::info!("write-back passes succeed again");
            failing = false;
        }
        let pause = match outcome {
            Ok(report) if report.idle() => {
                failures = 0;
                doorbell.wait(seen, IDLE_LOOK, &[stop]);
                Duration::ZERO
            }
            Ok(report) if report.retry > 0 => {
                failures += 1;
                backoff(settings.backoff_initial, settings.backoff_max, failures)
            }
            Ok(_) => {
                failures = 0;
                Duration::ZERO
            }
            Err(JournalError::LeaseLost { .. }) => {
                doorbell.wait(seen, settings.idle_poll, &[stop]);
                Duration::ZERO
            }
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
