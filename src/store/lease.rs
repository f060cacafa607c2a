//! The pump's own operations on the state database: the lease in
//! `PIPELINE_LOCK` (acquire, renew, release, each in a short transaction of
//! its own) and the retry time of a blocked head in `PROC_STATE`.
//!
//! The fencing check itself is not here: every state transaction reads the
//! lease under the row lock with [`StateTx::lock_pipeline`](super::StateTx::lock_pipeline)
//! and compares the epoch.

use chrono::NaiveDateTime;

use super::StoreError;

/// Lease operations. Method names are the names of the SQL files that run
/// them.
pub trait LeaseOps {
    /// Takes the lease for `holder` until `expires_at` when it is free or has
    /// run out at `now`, bumping the fencing epoch (every acquisition is a
    /// takeover). Returns the new epoch, or `None` when another pump holds a
    /// live lease.
    fn acquire_lease(
        &mut self,
        holder: &str,
        now: NaiveDateTime,
        expires_at: NaiveDateTime,
    ) -> Result<Option<i64>, StoreError>;

    /// Extends the lease of `holder` at `epoch` to `expires_at`. Returns
    /// `false` when the lease is no longer this holder's at this epoch, or ran
    /// out before `now`: the pump has lost it.
    fn renew_lease(
        &mut self,
        holder: &str,
        epoch: i64,
        now: NaiveDateTime,
        expires_at: NaiveDateTime,
    ) -> Result<bool, StoreError>;

    /// Lets the lease run out at `now`, if it is still `holder`'s at `epoch`,
    /// so that another pump may take over at once. Returns whether it was.
    fn release_lease(
        &mut self,
        holder: &str,
        epoch: i64,
        now: NaiveDateTime,
    ) -> Result<bool, StoreError>;

    /// Records when a FAILED message at the head will be tried again.
    fn schedule_retry(
        &mut self,
        message_id: i64,
        next_attempt_at: NaiveDateTime,
        now: NaiveDateTime,
    ) -> Result<(), StoreError>;
}
