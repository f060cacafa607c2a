//! The replay's transaction: the snapshot's own transaction
//! (`pipeline::snapshot`), run through a store that checks the operator's
//! policy under `PIPELINE_LOCK` before it and, after it, reads what it did,
//! records the replay in `PROC_STATE` and (dry run) rolls everything back.
//!
//! Both checks and reads run in the very transaction that applies the
//! snapshot, so what a dry run reports is what the replay would commit,
//! and a refused replay changes nothing.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use chrono::NaiveDateTime;

use super::replay_plan::{ReplayPlan, ReplayPolicy, VersionPolicy};
use crate::FailureKind;
use crate::store::{
    FlightDigest, ProcStatus, ReplayOps, ReplayRecord, SnapshotLedger, StateTx, Store, StoreError,
};

/// How the replay's transaction ended, as the replay reads it back once the
/// snapshot's rules have returned.
pub(super) enum Ended {
    /// The policy (or the message's record) refused the replay: rolled back.
    Refused(String),
    /// Applied (committed, unless a dry run rolled it back).
    Planned(ReplayPlan),
}

/// What the replay's transaction checks and reads.
pub(super) struct Replaying {
    pub(super) message_id: i64,
    pub(super) identity_key: String,
    pub(super) message: String,
    pub(super) list: Vec<i64>,
    pub(super) policy: ReplayPolicy,
    pub(super) now: NaiveDateTime,
}

/// A store whose every transaction is the replay's (see the module).
pub(super) struct ReplayStore<S> {
    inner: S,
    replaying: Replaying,
    ended: Mutex<Option<Ended>>,
}

/// The day's state before the snapshot is applied again.
struct Before {
    ledger: Option<SnapshotLedger>,
    flids: Vec<i64>,
    digests: HashMap<i64, FlightDigest>,
}

impl<S: Store> ReplayStore<S> {
    pub(super) fn new(inner: S, replaying: Replaying) -> Self {
        ReplayStore {
            inner,
            replaying,
            ended: Mutex::new(None),
        }
    }

    /// How the last transaction ended, if it got that far.
    pub(super) fn ended(&self) -> Option<Ended> {
        self.ended
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    fn end(&self, ended: Ended) {
        *self.ended.lock().unwrap_or_else(PoisonError::into_inner) = Some(ended);
    }

    /// Refuses the replay: recorded for [`ended`](Self::ended), returned as
    /// the error that rolls the transaction back.
    fn refuse(&self, reason: String) -> StoreError {
        let error = StoreError::new(FailureKind::BadInput, "replay", reason.clone());
        self.end(Ended::Refused(reason));
        error
    }

    /// Under `PIPELINE_LOCK`: the message's record and the version policy,
    /// then the day's flights as they stand.
    fn before<T: StateTx>(&self, tx: &mut T) -> Result<Before, StoreError> {
        let r = &self.replaying;
        let day = r.policy.day;
        tx.lock_pipeline()?;
        match tx.proc_state(r.message_id)? {
            None => {
                return Err(self.refuse(format!(
                    "message {} was never applied (no PROC_STATE record): the pump applies it, no replay is needed",
                    r.message_id
                )));
            }
            Some(seen) if seen.identity_key != r.identity_key => {
                return Err(self.refuse(format!(
                    "message {}'s mailbox row holds another body than the one applied; it is not replayed",
                    r.message_id
                )));
            }
            Some(seen) if seen.status != ProcStatus::Succeeded => {
                return Err(self.refuse(format!(
                    "message {} is {}, not SUCCEEDED: only an applied snapshot is replayed (a DEAD one is requeued: `flightstate dead requeue {}`)",
                    r.message_id,
                    seen.status.code(),
                    r.message_id
                )));
            }
            Some(_) => {}
        }
        let ledger = tx.snapshot_ledger(day)?;
        if let Some(newer) = ledger.as_ref().filter(|l| l.last_message_id > r.message_id)
            && r.policy.version == VersionPolicy::Latest
        {
            return Err(self.refuse(format!(
                "day {day} has a newer snapshot than message {}: message {} (version {}); replaying would overwrite it: give `--version force` to replay it anyway",
                r.message_id, newer.last_message_id, newer.version
            )));
        }
        let mut flids = tx.snapshot_list(day)?;
        flids.extend_from_slice(&r.list);
        flids.sort_unstable();
        flids.dedup();
        let digests = tx.flight_digests(&flids)?;
        Ok(Before {
            ledger,
            flids,
            digests,
        })
    }

    /// After the snapshot's rules: what they did, and the replay recorded.
    fn after<T: StateTx + ReplayOps>(&self, tx: &mut T, before: Before) -> Result<(), StoreError> {
        let r = &self.replaying;
        let after = tx.flight_digests(&before.flids)?;
        let ledger = tx.snapshot_ledger(r.policy.day)?;
        let mut plan = ReplayPlan {
            message_id: r.message_id,
            message: r.message.clone(),
            operation_day: Some(r.policy.day),
            version_before: before.ledger.as_ref().map(|l| l.version),
            latest_before: before.ledger.as_ref().map(|l| l.last_message_id),
            version_after: ledger.map(|l| l.version),
            dry_run: r.policy.dry_run,
            ..ReplayPlan::default()
        };
        for flid in &r.list {
            match (before.digests.get(flid), after.get(flid)) {
                (None, Some(_)) => plan.created.push(*flid),
                (Some(old), Some(new)) if changed(old, new) => plan.updated.push(*flid),
                (Some(_), Some(_)) => plan.unchanged.push(*flid),
                (_, None) => {}
            }
        }
        plan.deleted = (before.flids.iter())
            .filter(|f| before.digests.contains_key(f) && !after.contains_key(f))
            .copied()
            .collect();
        for list in [&mut plan.created, &mut plan.updated, &mut plan.unchanged] {
            list.sort_unstable();
        }
        let policy = r.policy.describe();
        let recorded = tx.record_replay(&ReplayRecord {
            message_id: r.message_id,
            by: &r.policy.by,
            policy: &policy,
            now: r.now,
        })?;
        if !recorded {
            return Err(StoreError::new(
                FailureKind::Other,
                "record_replay",
                format!(
                    "message {} is not SUCCEEDED after its replay; nothing is committed",
                    r.message_id
                ),
            ));
        }
        let dry_run = plan.dry_run;
        self.end(Ended::Planned(plan));
        if dry_run {
            return Err(StoreError::new(
                FailureKind::Other,
                "replay",
                "a dry run: rolled back",
            ));
        }
        Ok(())
    }
}

/// Whether a flight's stored state or day moved.
fn changed(old: &FlightDigest, new: &FlightDigest) -> bool {
    old.state_version != new.state_version || old.operation_day != new.operation_day
}

impl<S: Store> Store for ReplayStore<S> {
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
            // A lost version race runs the transaction again: its earlier
            // ending is not this one's.
            self.ended();
            let before = self.before(tx)?;
            let value = work(tx)?;
            self.after(tx, before)?;
            Ok(value)
        })
    }
}
