//! The lifecycle clean-up (`flightstate cleanup`, and the optional periodic
//! job of `flightstate run`): removes what the pipeline no longer needs, in
//! this order —
//!
//! 1. flights that never got an operation day and have not changed for the
//!    flights' retention, that no snapshot list names and no live request
//!    may still answer for, each with a tombstone through the outbox, as a
//!    deletion by a message has;
//! 2. snapshot ledgers (`SCHD_GEN`, `SCHD_GEN_FLID`) of days older than the
//!    ledgers' retention that no stored flight belongs to any more — the
//!    only ledgers whose removal can never change what a later snapshot of
//!    the day deletes (`docs/snapshot-ledger.md`);
//! 3. settled journaled calls (`EFFECT_CALL`) older than their retention;
//! 4. processing records (`PROC_STATE`) of SUCCEEDED messages older than
//!    their retention whose calls are gone: a message delivered again after
//!    that is applied again.
//!
//! Every batch is one short state transaction under `PIPELINE_LOCK`, so the
//! pump waits at most one batch. A dry run reads the same batches without
//! the lock and changes nothing.
//!
//! Talks to the database only through the store traits; owns no SQL.

mod flights;
mod job;
mod settings;

use chrono::{NaiveDate, NaiveDateTime, Timelike};
use serde::Serialize;

use crate::mailbox::WRITE_BACK_TARGET_PREFIX;
use crate::store::{CleanupOps, StateTx, Store, StoreError};

pub use job::run_every;
pub use settings::CleanupSettings;

/// What a clean-up removes, part by part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// Flights without an operation day (each with a tombstone).
    Flights,
    /// Snapshot ledgers and lists of old days without flights.
    Days,
    /// Settled journaled calls.
    EffectCalls,
    /// Processing records of SUCCEEDED messages.
    ProcStates,
}

/// What a clean-up removed, or with `dry_run` would remove.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CleanupReport {
    /// Nothing was changed: the report says what a clean-up would remove.
    pub dry_run: bool,
    /// The flights removed, ascending.
    pub flights: Vec<i64>,
    /// The operation days whose ledger and list were removed, ascending.
    pub days: Vec<NaiveDate>,
    /// How many settled calls were purged.
    pub effect_calls: usize,
    /// How many processing records were purged.
    pub proc_states: usize,
}

impl CleanupReport {
    /// How many rows of every part together.
    pub fn total(&self) -> usize {
        self.flights.len() + self.days.len() + self.effect_calls + self.proc_states
    }
}

/// The cutoffs of one clean-up, from its `now`.
#[derive(Clone, Copy, Debug)]
struct Cutoffs {
    flights: NaiveDateTime,
    days: NaiveDate,
    effect_calls: NaiveDateTime,
    proc_states: NaiveDateTime,
}

impl Cutoffs {
    fn at(settings: &CleanupSettings, now: NaiveDateTime) -> Cutoffs {
        let before = |days: u32| now - chrono::TimeDelta::days(i64::from(days));
        Cutoffs {
            flights: before(settings.flight_days),
            days: before(settings.ledger_days).date(),
            effect_calls: before(settings.effect_call_days),
            proc_states: before(settings.proc_state_days),
        }
    }
}

/// Runs one clean-up at `now` (UTC), batch by batch, calling `progress`
/// after each batch with its part and size; when `progress` returns
/// `false` the clean-up stops there (a stopping `run` must not wait for a
/// long backlog), and the report says what was done. With `dry_run`
/// nothing is changed and the report says what would be removed.
///
/// # Errors
///
/// The first [`StoreError`]; the batches before it stay committed (each
/// left the database consistent), and a later clean-up goes on from there.
pub fn clean_up<S: Store>(
    store: &S,
    settings: &CleanupSettings,
    now: NaiveDateTime,
    dry_run: bool,
    progress: &mut dyn FnMut(Part, usize) -> bool,
) -> Result<CleanupReport, StoreError> {
    let cutoffs = Cutoffs::at(settings, now);
    let batch = i64::from(settings.batch.max(1));
    let boundary =
        i32::try_from(settings.day_boundary.num_seconds_from_midnight() / 60).unwrap_or_default();
    let mut report = CleanupReport {
        dry_run,
        ..CleanupReport::default()
    };

    let mut after = i64::MIN;
    loop {
        let (last, removed) = store.transaction(|tx| {
            let stale = begin(tx, dry_run)?.select_stale_flights(
                cutoffs.flights,
                boundary,
                after,
                batch,
            )?;
            let last = stale.last().map(|s| s.flid);
            let removed = if dry_run {
                stale.iter().map(|s| s.flid).collect()
            } else {
                flights::remove(tx, &stale, now)?
            };
            Ok::<_, StoreError>((last, removed))
        })?;
        let Some(last) = last else { break };
        after = last;
        let rows = removed.len();
        report.flights.extend(removed);
        if !progress(Part::Flights, rows) {
            return Ok(report);
        }
    }

    let mut after_day = None;
    loop {
        let (last, removed) = store.transaction(|tx| {
            let days =
                begin(tx, dry_run)?.select_stale_snapshot_days(cutoffs.days, after_day, batch)?;
            let last = days.last().copied();
            if dry_run {
                return Ok((last, days));
            }
            let mut removed = Vec::with_capacity(days.len());
            for day in days {
                if tx.delete_snapshot_ledger(day, cutoffs.days)? {
                    tx.replace_snapshot_list(day, &[])?;
                    removed.push(day);
                }
            }
            Ok::<_, StoreError>((last, removed))
        })?;
        let Some(last) = last else { break };
        after_day = Some(last);
        let rows = removed.len();
        report.days.extend(removed);
        if !progress(Part::Days, rows) {
            return Ok(report);
        }
    }

    let mut after = i64::MIN;
    loop {
        let (last, purged) = store.transaction(|tx| {
            let calls = begin(tx, dry_run)?.select_settled_effect_calls(
                cutoffs.effect_calls,
                after,
                batch,
            )?;
            let purged = if dry_run {
                calls.len()
            } else {
                tx.delete_effect_calls(&calls)?
            };
            Ok::<_, StoreError>((calls.last().copied(), purged))
        })?;
        let Some(last) = last else { break };
        after = last;
        report.effect_calls += purged;
        if !progress(Part::EffectCalls, purged) {
            return Ok(report);
        }
    }

    let mut after = i64::MIN;
    loop {
        let (last, purged) = store.transaction(|tx| {
            let records = begin(tx, dry_run)?.select_stale_proc_states(
                cutoffs.proc_states,
                (WRITE_BACK_TARGET_PREFIX, cutoffs.effect_calls),
                after,
                batch,
            )?;
            let purged = if dry_run {
                records.len()
            } else {
                tx.delete_proc_states(&records)?
            };
            Ok::<_, StoreError>((records.last().copied(), purged))
        })?;
        let Some(last) = last else { break };
        after = last;
        report.proc_states += purged;
        if !progress(Part::ProcStates, purged) {
            return Ok(report);
        }
    }
    Ok(report)
}

/// Starts a batch: a clean-up that changes something takes `PIPELINE_LOCK`
/// first, so it is ordered with every state transaction; a dry run reads
/// without it and never makes the pump wait.
fn begin<T: StateTx>(tx: &mut T, dry_run: bool) -> Result<&mut T, StoreError> {
    if !dry_run {
        tx.lock_pipeline()?;
    }
    Ok(tx)
}
