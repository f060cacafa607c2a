//! The pump's lease in `PIPELINE_LOCK`: taken and renewed in short
//! transactions, published to the effect worker, given up on a graceful
//! stop. Taking it over bumps the fencing epoch (DESIGN §4).

use std::collections::BTreeSet;
use std::time::Instant;

use chrono::NaiveDateTime;

use super::{HeldLease, Pump};
use crate::failure::Causes;
use crate::journal::{WorkerLease, written_back_row};
use crate::station::utc_now;
use crate::store::{JournalOps, LeaseOps, StateTx, Store, StoreError};

/// At most this many open calls are read when the lease is taken: far more
/// than the rows one pump commits ahead of its effect worker.
const OPEN_CALLS_READ: i64 = 10_000;

/// Whether this pump holds the lease, as [`Pump::ensure_lease`] found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tenure {
    /// Held (taken, renewed, or not yet due for renewal).
    Held,
    /// Held until now: the renewal was refused, the lease moved on.
    Lost,
    /// Another pump holds a live lease.
    Standby,
}

impl<S: Store + Clone> Pump<S> {
    /// Renews the lease when due, for a caller that holds it through a long
    /// step of its own (the catch-up reading the topics): whether this pump
    /// still holds it.
    pub fn keep_lease(&mut self) -> bool {
        self.lease.is_some() && self.renew_between_messages().is_none()
    }

    pub(super) fn publish(&self) {
        let view = self.lease.as_ref().map(|l| WorkerLease {
            holder: self.settings.holder.clone(),
            epoch: l.epoch,
        });
        if let Ok(mut shared) = self.shared.lock() {
            *shared = view;
        }
        // The effect worker waits for the lease on the doorbell.
        self.doorbell.ring();
    }

    pub(super) fn renew_after(&self) -> Instant {
        Instant::now() + self.settings.lease_ttl / 3
    }

    pub(super) fn lease_expiry(&self, now: NaiveDateTime) -> NaiveDateTime {
        now + chrono::Duration::from_std(self.settings.lease_ttl)
            .unwrap_or_else(|_| chrono::Duration::seconds(15))
    }

    /// Takes the lease, or renews it when due; says whether this pump holds
    /// it now.
    pub(super) fn ensure_lease(&mut self) -> Result<Tenure, StoreError> {
        let holder = self.settings.holder.clone();
        match &self.lease {
            Some(held) if Instant::now() < held.renew_at => Ok(Tenure::Held),
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
                    Ok(Tenure::Held)
                } else {
                    self.lose_lease("its renewal was refused");
                    Ok(Tenure::Lost)
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
                        // What this pump knew under an older lease is
                        // stale; the journal's open write-backs are not.
                        self.awaiting = self.open_write_backs();
                        self.publish();
                        Ok(Tenure::Held)
                    }
                    None => {
                        self.say_why_waiting();
                        Ok(Tenure::Standby)
                    }
                }
            }
        }
    }

    /// The mailbox rows whose write-back the journal holds open, read as
    /// the lease is taken: a previous holder (or this process before a
    /// restart) committed their messages, and this process's effect worker
    /// writes them back. A row among them that the head still shows is
    /// awaiting its write-back, not delivered again; read before the first
    /// look at the head, so that a row pending there and missing here was
    /// re-sent after its write-back settled. Taken as a redelivery instead,
    /// it would be journaled for a second write-back that the mailbox
    /// refuses. When the journal cannot be read, none (every such row is
    /// then looked at, and its second write-back refused: harmless).
    fn open_write_backs(&self) -> BTreeSet<i64> {
        let now = utc_now();
        match self
            .store
            .transaction(|tx| tx.select_open_effect_calls(OPEN_CALLS_READ, now))
        {
            Ok(calls) => calls.iter().filter_map(written_back_row).collect(),
            Err(e) => {
                tracing::warn!(
                    error = %Causes(&e),
                    "cannot read the open write-backs; rows awaiting theirs may be written back twice (the second is refused)"
                );
                BTreeSet::new()
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

    /// Forgets the lease and what this pump knew under it, saying once why:
    /// the pump stops pumping and tries to take the lease again.
    pub(super) fn lose_lease(&mut self, why: &str) {
        if let Some(held) = self.lease.take() {
            tracing::warn!(
                lease.epoch = held.epoch,
                why,
                "lost the pump lease; stopped pumping until it can be taken again"
            );
        }
        self.awaiting.clear();
        self.blocked = None;
        self.publish();
    }

    /// Whether the lease is still ours (renewing it if due); loses it
    /// otherwise. A database failure counts as "still ours": fencing
    /// protects every commit anyway.
    pub(super) fn still_leased(&mut self) -> bool {
        if let Some(held) = self.lease.as_mut() {
            // Force a renewal now: something suggested the lease moved.
            held.renew_at = Instant::now();
        }
        matches!(self.ensure_lease(), Ok(Tenure::Held) | Err(_))
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
}
