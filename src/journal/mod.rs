//! The durable effect-call journal (DESIGN §6): every call that leaves the
//! state database after commit — the mailbox write-back, and the request
//! messages written to `COUTMSGS` — is recorded in `EFFECT_CALL` so that no
//! "was it sent?" fact is ever lost.
//!
//! The life of a call:
//!
//! 1. **Intent.** The business transaction itself records the call with
//!    [`record_intent`]: kind, target, payload, a stable sub-key; the
//!    idempotency key is the SHA-256 of (scope, step, sub-key) and the
//!    digest of target + payload never changes for that key.
//! 2. **Grant.** [`Executor::run_once`] checks the lease under
//!    `PIPELINE_LOCK` and commits `DISPATCHED` with a fresh one-time send
//!    token in a short transaction; outside it the deadline is checked once
//!    more, then the call is made.
//! 3. **Receipt.** Only the technical outcome is stored, guarded by the send
//!    token. If storing it fails, `DISPATCHED` stays: the journal never
//!    claims a call was not made.
//! 4. **Restart.** A `DISPATCHED` or `UNKNOWN` call is never sent again: it
//!    is resolved by reading the target back ([`Effect::read_back`]). Only a
//!    call that is certainly `NOT_SENT` is granted again, in a later attempt,
//!    with the same key and digest.
//!
//! This module owns the protocol, not the calls: each target implements
//! [`Effect`] (the mailbox write-back and the request write both live in
//! [`crate::mailbox`]). It never decides business outcomes. The one intent
//! it names itself is the mailbox write-back's (`write_back`): which
//! status is written back for a final outcome, and under which key, is the
//! same knowledge for the pipeline that records it, the clean-up that
//! purges it and the operator's `flightstate dead`.

mod write_back;

pub use write_back::{
    FinalRow, WRITE_BACK_KIND, WRITE_BACK_TARGET_PREFIX, WriteBackStatuses, record_write_back,
    write_back_intent, write_back_target, written_back_row,
};

use chrono::NaiveDateTime;

use crate::failure::Causes;
use crate::store::{
    CallStatus, Grant, JournalOps, NewCall, ReadOps, StateTx, Store, StoreError, StoredCall,
};

/// The longest the journal's own transactions (grant, receipt) may wait
/// for their client between two statements: they compute nothing in
/// between, so only a frozen or starved process waits that long.
pub const BOOKKEEPING_IDLE_LIMIT: std::time::Duration = std::time::Duration::from_secs(1);

/// A call to record: what, where, with what, named by a stable sub-key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intent {
    /// Which part of flightstate owns the call (e.g. `mailbox`).
    pub scope: String,
    /// Which step of that part makes it (e.g. `write-back`).
    pub step: String,
    /// The stable name of the logical action (`backfill:{mailbox id}`), never
    /// a list position or a time.
    pub sub_key: String,
    /// What the call does (`BACKFILL`): the [`Effect`] that makes it.
    pub call_kind: String,
    /// Where it goes.
    pub target: String,
    /// What it needs; never secrets.
    pub payload: String,
    /// Latest time the call may still be made (UTC), if any.
    pub deadline_at: Option<NaiveDateTime>,
}

fn sha256_hex(parts: &[&str]) -> String {
    // A separator no part contains, so ("a", "bc") ≠ ("ab", "c").
    const SEPARATOR: &[u8] = &[0];
    crate::digest::sha256_hex(
        parts
            .iter()
            .enumerate()
            .flat_map(|(i, part)| [if i > 0 { SEPARATOR } else { &[] }, part.as_bytes()]),
    )
}

impl Intent {
    /// The idempotency key: SHA-256 of (scope, step, sub-key), lower-case hex.
    pub fn idempotency_key(&self) -> String {
        sha256_hex(&[&self.scope, &self.step, &self.sub_key])
    }

    /// The digest of target and payload, lower-case hex.
    pub fn payload_digest(&self) -> String {
        sha256_hex(&[&self.target, &self.payload])
    }
}

/// What [`record_intent`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// The intent is new.
    New(i64),
    /// The same call (same key, same digest) was already journaled.
    Existing(i64),
    /// The key was journaled with another target or payload; the journaled
    /// call stands and this one is not recorded.
    DigestMismatch(i64),
}

/// Records `intent` in the caller's transaction (DESIGN §6.1).
///
/// # Errors
///
/// A [`StoreError`] when a statement fails.
pub fn record_intent<T: JournalOps + ?Sized>(
    tx: &mut T,
    intent: &Intent,
    now: NaiveDateTime,
) -> Result<Recorded, StoreError> {
    let key = intent.idempotency_key();
    let digest = intent.payload_digest();
    let call = NewCall {
        idempotency_key: &key,
        scope: &intent.scope,
        step: &intent.step,
        sub_key: &intent.sub_key,
        call_kind: &intent.call_kind,
        target: &intent.target,
        payload: &intent.payload,
        payload_digest: &digest,
        deadline_at: intent.deadline_at,
    };
    if let Some(id) = tx.insert_effect_intent(&call, now)? {
        return Ok(Recorded::New(id));
    }
    match tx.select_effect_call(&key)? {
        Some(stored) if stored.payload_digest == digest => Ok(Recorded::Existing(stored.call_id)),
        Some(stored) => Ok(Recorded::DigestMismatch(stored.call_id)),
        // Inserted by nobody and yet a conflict: the row was deleted between
        // the two statements (retention); report it as new work lost.
        None => Err(StoreError::new(
            crate::FailureKind::Conflict,
            "select_effect_call",
            "the journaled call vanished between insert and read",
        )),
    }
}

/// What one call did, as its client saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallResult {
    /// The target took it; `remote_ref` names what it made.
    Accepted {
        /// E.g. the mailbox row id.
        remote_ref: Option<String>,
    },
    /// The target refused it (e.g. no such row).
    Rejected,
    /// The target was not in the expected state (e.g. already written back).
    Conflict,
    /// Certainly not made (no connection, rolled back before commit).
    NotSent,
    /// May or may not have taken effect.
    Unknown,
}

impl CallResult {
    fn status(&self) -> CallStatus {
        match self {
            CallResult::Accepted { .. } => CallStatus::Accepted,
            CallResult::Rejected => CallStatus::Rejected,
            CallResult::Conflict => CallStatus::Conflict,
            CallResult::NotSent => CallStatus::NotSent,
            CallResult::Unknown => CallStatus::Unknown,
        }
    }

    fn remote_ref(&self) -> Option<&str> {
        match self {
            CallResult::Accepted { remote_ref } => remote_ref.as_deref(),
            _ => None,
        }
    }
}

/// What reading the target back shows about a call whose outcome is open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadBack {
    /// The call's effect is there.
    Done {
        /// E.g. the mailbox row id.
        remote_ref: Option<String>,
    },
    /// The target holds another outcome.
    Conflict,
    /// The target is gone.
    Rejected,
    /// The effect is not there and can certainly never appear any more, so
    /// the call may be granted again in a later attempt. An effect returns
    /// this only when a late duplicate is harmless or impossible.
    NotApplied,
}

/// A target of journaled calls.
pub trait Effect: Send + Sync {
    /// The `CALL_KIND` this effect makes.
    fn call_kind(&self) -> &'static str;

    /// Makes `calls` (all of this kind, all granted), returning one result
    /// per call in the same order. Never panics on a remote failure: a
    /// failure is a [`CallResult`].
    fn call(&self, calls: &[&StoredCall]) -> Vec<CallResult>;

    /// Reads the target back to resolve a call whose outcome is open.
    ///
    /// # Errors
    ///
    /// When the target cannot be read; the call stays open.
    fn read_back(
        &self,
        call: &StoredCall,
    ) -> Result<ReadBack, Box<dyn std::error::Error + Send + Sync>>;
}

/// Why a journal pass stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JournalError {
    /// The state database failed; the pass is retried later.
    #[error("effect journal")]
    Store(#[from] StoreError),
    /// The worker's lease is gone (another pump took over, or it ran out):
    /// nothing is granted until it is held again.
    #[error("the pump lease is not held at epoch {epoch}; not granting calls")]
    LeaseLost {
        /// The epoch the worker thought it held.
        epoch: i64,
    },
    /// A failure injected by a test (feature `failpoints`).
    #[cfg(feature = "failpoints")]
    #[error(transparent)]
    Injected(#[from] crate::failpoint::Injected),
}

/// The lease a worker works under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerLease {
    /// The pump instance holding it.
    pub holder: String,
    /// Its epoch.
    pub epoch: i64,
}

/// What one pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassReport {
    /// Open calls found.
    pub open: usize,
    /// Calls granted and made.
    pub sent: usize,
    /// Receipts stored, by status.
    pub settled: usize,
    /// Calls left to do again (not sent, unknown, unresolvable for now).
    pub retry: usize,
    /// Open calls of a kind no effect here makes.
    pub foreign: usize,
}

impl PassReport {
    /// Whether the pass found nothing to do.
    pub fn idle(&self) -> bool {
        self.open == 0
    }
}

/// Runs journaled calls with the effects it knows.
pub struct Executor<'e> {
    effects: Vec<&'e dyn Effect>,
    batch: i64,
}

impl<'e> Executor<'e> {
    /// An executor that makes calls with `effects`, at most `batch` calls per
    /// pass.
    pub fn new(effects: Vec<&'e dyn Effect>, batch: i64) -> Executor<'e> {
        Executor {
            effects,
            batch: batch.max(1),
        }
    }

    fn effect(&self, kind: &str) -> Option<&'e dyn Effect> {
        self.effects.iter().copied().find(|e| e.call_kind() == kind)
    }

    /// One pass: resolves open outcomes by reading targets back, grants the
    /// grantable calls under `lease`, makes them, stores the receipts.
    ///
    /// # Errors
    ///
    /// [`JournalError::LeaseLost`] when `lease` is not current (nothing was
    /// granted), [`JournalError::Store`] when the state database fails (a
    /// granted call stays `DISPATCHED` and is resolved later).
    pub fn run_once<S: Store>(
        &self,
        store: &S,
        lease: &WorkerLease,
        now: impl Fn() -> NaiveDateTime,
    ) -> Result<PassReport, JournalError> {
        let open = store.transaction(|tx| tx.select_open_effect_calls(self.batch, now()))?;
        let mut report = PassReport {
            open: open.len(),
            ..PassReport::default()
        };
        let mut to_grant: Vec<&StoredCall> = Vec::new();
        for call in &open {
            let Some(effect) = self.effect(&call.call_kind) else {
                report.foreign += 1;
                continue;
            };
            if call.status.unresolved() {
                self.resolve(store, effect, call, &now, &mut report)?;
            } else if call.status.grantable() {
                to_grant.push(call);
            }
        }
        if to_grant.is_empty() {
            return Ok(report);
        }
        let grants = self.grant(store, lease, &to_grant, &now)?;
        crate::failpoint!("journal.after_dispatch");
        let mut results: Vec<(i64, String, CallResult)> = Vec::with_capacity(grants.len());
        for effect in &self.effects {
            let mine: Vec<(&StoredCall, &Grant)> = grants
                .iter()
                .filter_map(|g| {
                    to_grant
                        .iter()
                        .find(|c| c.call_id == g.call_id)
                        .map(|c| (*c, g))
                })
                .filter(|(c, _)| c.call_kind == effect.call_kind())
                .collect();
            if mine.is_empty() {
                continue;
            }
            // The deadline is checked once more outside the transaction: a
            // call past it is not made.
            let at = now();
            let (late, timely): (Vec<_>, Vec<_>) = mine
                .into_iter()
                .partition(|(c, _)| c.deadline_at.is_some_and(|d| d <= at));
            for (c, g) in late {
                results.push((c.call_id, g.send_token.clone(), CallResult::NotSent));
            }
            let calls: Vec<&StoredCall> = timely.iter().map(|(c, _)| *c).collect();
            let outcomes = effect.call(&calls);
            report.sent += calls.len();
            for (i, (c, g)) in timely.iter().enumerate() {
                // An effect that answers fewer results than calls leaves the
                // rest unknown: they were handed over.
                let result = outcomes.get(i).cloned().unwrap_or(CallResult::Unknown);
                results.push((c.call_id, g.send_token.clone(), result));
            }
        }
        crate::failpoint!("journal.after_call");
        self.store_receipts(store, lease, &results, &now, &mut report)?;
        Ok(report)
    }

    /// Reads the target back and stores what it shows.
    fn resolve<S: Store>(
        &self,
        store: &S,
        effect: &dyn Effect,
        call: &StoredCall,
        now: &impl Fn() -> NaiveDateTime,
        report: &mut PassReport,
    ) -> Result<(), JournalError> {
        let Some(token) = call.send_token.as_deref() else {
            report.retry += 1;
            return Ok(());
        };
        let (status, remote_ref) = match effect.read_back(call) {
            Ok(ReadBack::Done { remote_ref }) => (CallStatus::Accepted, remote_ref),
            Ok(ReadBack::Conflict) => (CallStatus::Conflict, None),
            Ok(ReadBack::Rejected) => (CallStatus::Rejected, None),
            Ok(ReadBack::NotApplied) => (CallStatus::NotSent, None),
            Err(e) => {
                tracing::warn!(
                    effect.call_id = call.call_id,
                    error = %Causes(&*e),
                    "cannot read the target back; the call stays open"
                );
                report.retry += 1;
                return Ok(());
            }
        };
        let stored = store.transaction(|tx| {
            tx.record_effect_receipt(call.call_id, token, status, remote_ref.as_deref(), now())
        })?;
        tracing::info!(
            effect.call_id = call.call_id,
            effect.status = status.code(),
            stored,
            "resolved an open call by reading its target back"
        );
        if status.settled() {
            report.settled += 1;
        } else {
            report.retry += 1;
        }
        Ok(())
    }

    /// The grant transaction: lease check under the lock, then `DISPATCHED`.
    /// Like the receipt's, it computes nothing between its statements, so
    /// the server ends it after [`BOOKKEEPING_IDLE_LIMIT`] idle: a frozen
    /// process whose worker was waiting for `PIPELINE_LOCK` when the pump's
    /// frozen transaction was ended must not hold the lock for another
    /// lease (`docs/pump.md`, "A frozen holder").
    fn grant<S: Store>(
        &self,
        store: &S,
        lease: &WorkerLease,
        calls: &[&StoredCall],
        now: &impl Fn() -> NaiveDateTime,
    ) -> Result<Vec<Grant>, JournalError> {
        store.transaction(|tx| {
            tx.set_idle_limit(Some(BOOKKEEPING_IDLE_LIMIT))?;
            let at = now();
            let current = tx.lock_pipeline()?;
            let held = current.epoch == lease.epoch
                && current.holder.as_deref() == Some(lease.holder.as_str())
                && current.expires_at.is_some_and(|e| e > at);
            if !held {
                return Err(JournalError::LeaseLost { epoch: lease.epoch });
            }
            let seen: Vec<(i64, i32)> = calls.iter().map(|c| (c.call_id, c.attempt)).collect();
            Ok(tx.grant_effect_calls(&seen, lease.epoch, at)?)
        })
    }

    /// The receipt transaction. A receipt is stored even when the lease has
    /// moved on (as evidence); it then advances nothing.
    fn store_receipts<S: Store>(
        &self,
        store: &S,
        lease: &WorkerLease,
        results: &[(i64, String, CallResult)],
        now: &impl Fn() -> NaiveDateTime,
        report: &mut PassReport,
    ) -> Result<(), JournalError> {
        let current = store.transaction(|tx| {
            tx.set_idle_limit(Some(BOOKKEEPING_IDLE_LIMIT))?;
            let at = now();
            for (call_id, token, result) in results {
                tx.record_effect_receipt(
                    *call_id,
                    token,
                    result.status(),
                    result.remote_ref(),
                    at,
                )?;
            }
            let current = tx.lock_pipeline()?;
            Ok::<_, StoreError>(current.epoch == lease.epoch)
        })?;
        if !current {
            tracing::warn!(
                lease.epoch = lease.epoch,
                "receipts stored after the lease moved on: kept as evidence only"
            );
        }
        for (_, _, result) in results {
            if result.status().settled() {
                report.settled += 1;
            } else {
                report.retry += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn intent(sub_key: &str, payload: &str) -> Intent {
        Intent {
            scope: "mailbox".into(),
            step: "write-back".into(),
            sub_key: sub_key.into(),
            call_kind: "BACKFILL".into(),
            target: "cminmsgs:7".into(),
            payload: payload.into(),
            deadline_at: None,
        }
    }

    #[test]
    fn key_depends_on_the_action_and_digest_on_the_payload() {
        let a = intent("backfill:7", "PROCESSED");
        let b = intent("backfill:7", "DEAD");
        assert_eq!(a.idempotency_key(), b.idempotency_key());
        assert_ne!(a.payload_digest(), b.payload_digest());
        assert_ne!(
            a.idempotency_key(),
            intent("backfill:8", "PROCESSED").idempotency_key()
        );
        let key = a.idempotency_key();
        assert_eq!(key.len(), 64);
        assert!(
            key.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        );
    }

    #[test]
    fn parts_are_separated() {
        assert_ne!(sha256_hex(&["a", "bc"]), sha256_hex(&["ab", "c"]));
    }
}
