//! The pump lease, held by the resync for the whole of its run: taken as a
//! pump takes it (a takeover bumps the fencing epoch), renewed while the
//! topic is read and between batches, checked under `PIPELINE_LOCK` by every
//! batch, and let go at the end.
//!
//! Why the pump's lease: while the resync holds it, no pump applies a
//! message (a running one is fenced at its next transaction, a standby
//! cannot take over), the dispatcher of every `flightstate run` waits (it
//! dispatches only while its own pump holds the lease), and so does every
//! `flightstate dispatch` (its gate, [`NotDuringResync`](super::NotDuringResync),
//! is closed while a resync holds it). A flight's version can then neither
//! move nor reach the topic between the resync's read of the topic and its
//! last batch.

use std::time::{Duration, Instant};

use chrono::NaiveDateTime;

use super::ResyncError;
use crate::station::utc_now;
use crate::store::{LeaseOps, ReadOps, StateTx, Store};

/// What a lease holder's name starts with when the holder is a resync: the
/// dispatcher's gate recognises it by this.
pub const RESYNC_HOLDER_PREFIX: &str = "resync:";

/// The lease as this resync holds it.
pub(super) struct Tenure<'s, S: Store> {
    store: &'s S,
    holder: String,
    epoch: i64,
    ttl: Duration,
    renew_at: Instant,
}

impl<'s, S: Store> Tenure<'s, S> {
    /// Takes the lease for `holder` for `ttl`.
    ///
    /// # Errors
    ///
    /// [`ResyncError::PipelineBusy`] while another holder's lease is live.
    pub(super) fn acquire(
        store: &'s S,
        holder: &str,
        ttl: Duration,
    ) -> Result<Tenure<'s, S>, ResyncError> {
        let now = utc_now();
        let acquired = store.transaction(|tx| tx.acquire_lease(holder, now, expiry(now, ttl)))?;
        let Some(epoch) = acquired else {
            let lease = store.transaction(|tx| tx.pipeline_lease())?;
            return Err(ResyncError::PipelineBusy {
                holder: lease.holder.unwrap_or_default(),
                until: lease.expires_at.unwrap_or(now),
            });
        };
        tracing::info!(holder, epoch, "resync took the pump lease");
        Ok(Tenure {
            store,
            holder: holder.to_owned(),
            epoch,
            ttl,
            renew_at: Instant::now() + ttl / 3,
        })
    }

    /// The lease `holder` already holds at `epoch`, renewed at the first
    /// [`keep`](Self::keep); every batch's fence still checks it.
    pub(super) fn adopt(store: &'s S, holder: &str, epoch: i64, ttl: Duration) -> Tenure<'s, S> {
        Tenure {
            store,
            holder: holder.to_owned(),
            epoch,
            ttl,
            renew_at: Instant::now(),
        }
    }

    /// Renews the lease when a third of it has passed.
    ///
    /// # Errors
    ///
    /// [`ResyncError::LeaseLost`] when the renewal is refused.
    pub(super) fn keep(&mut self) -> Result<(), ResyncError> {
        if Instant::now() < self.renew_at {
            return Ok(());
        }
        let now = utc_now();
        let expires = expiry(now, self.ttl);
        let (holder, epoch) = (&self.holder, self.epoch);
        let renewed = self
            .store
            .transaction(|tx| tx.renew_lease(holder, epoch, now, expires))?;
        if !renewed {
            return Err(ResyncError::LeaseLost);
        }
        self.renew_at = Instant::now() + self.ttl / 3;
        Ok(())
    }

    /// Takes `PIPELINE_LOCK` in `tx` and checks that the lease is still
    /// this resync's: the first step of every batch, as a pump's fence.
    ///
    /// # Errors
    ///
    /// [`ResyncError::LeaseLost`] when another process took the lease over.
    pub(super) fn fence(&self, tx: &mut impl StateTx) -> Result<(), ResyncError> {
        let lease = tx.lock_pipeline()?;
        if lease.holder.as_deref() == Some(self.holder.as_str()) && lease.epoch == self.epoch {
            Ok(())
        } else {
            Err(ResyncError::LeaseLost)
        }
    }

    /// Lets the lease run out now, so that a pump may take it at once.
    /// A failure is logged: the lease then runs out by itself.
    pub(super) fn release(self) {
        let now = utc_now();
        let (holder, epoch) = (&self.holder, self.epoch);
        match self
            .store
            .transaction(|tx| tx.release_lease(holder, epoch, now))
        {
            Ok(_) => tracing::info!(holder, "resync let the pump lease go"),
            Err(e) => tracing::warn!(
                holder,
                error = %crate::failure::Causes(&e),
                "resync could not let the pump lease go; it runs out by itself"
            ),
        }
    }
}

fn expiry(now: NaiveDateTime, ttl: Duration) -> NaiveDateTime {
    now + chrono::Duration::from_std(ttl).unwrap_or_else(|_| chrono::Duration::seconds(15))
}

/// Whether `holder` is a resync's and its lease is live at `now`: what
/// keeps a dispatcher alone waiting ([`NotDuringResync`](super::NotDuringResync))
/// and `flightstate republish` from queueing.
pub fn held_by_resync(
    holder: Option<&str>,
    expires_at: Option<NaiveDateTime>,
    now: NaiveDateTime,
) -> bool {
    holder.is_some_and(|h| h.starts_with(RESYNC_HOLDER_PREFIX))
        && expires_at.is_some_and(|expires| expires > now)
}
