//! The lifecycle clean-up (`flightstate cleanup`, and the optional periodic
//! job of `flightstate run`): removes what the pipeline no longer needs, in
//! this order —
//!
//! 1. flights that never got an operation day and have not changed for the
//!    flights' retention, that no snapshot list names and no live request
//!    may still answer for, each with a tombstone through the outbox, as a
//!    deletion by a message has;
//! 2. with `cleanup.history_days`, the flights of operation days older than
//!    the station's today minus that many days, each with a tombstone: a
//!    flight belongs to one day, and a later snapshot deletes only flights
//!    of its own day, so this never changes what a snapshot of a kept day
//!    deletes (`docs/open-questions.md`, "Past operation days");
//! 3. snapshot ledgers (`SCHD_GEN`, `SCHD_GEN_FLID`) of days older than the
//!    ledgers' retention (or retired by the history rule) that no stored
//!    flight belongs to any more — the only ledgers whose removal can never
//!    change what a later snapshot of the day deletes
//!    (`docs/snapshot-ledger.md`);
//! 4. settled journaled calls (`EFFECT_CALL`) older than their retention;
//! 5. processing records (`PROC_STATE`) of SUCCEEDED messages older than
//!    their retention whose calls are gone: a message delivered again after
//!    that is applied again;
//! 6. the operator's record (`OPERATOR_ACTION`) older than its retention
//!    (`cleanup.action_days`, long: it answers "who did what" months later).
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

use crate::journal::WRITE_BACK_TARGET_PREFIX;
use crate::store::{ActionOps, CleanupOps, StateTx, Store, StoreError};

pub use job::run_every;
pub use settings::CleanupSettings;

/// What a clean-up removes, part by part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// Flights without an operation day (each with a tombstone).
    Flights,
    /// Flights of operation days the history rule retires (each with a
    /// tombstone).
    History,
    /// Snapshot ledgers and lists of old days without flights.
    Days,
    /// Settled journaled calls.
    EffectCalls,
    /// Processing records of SUCCEEDED messages.
    ProcStates,
    /// The operator's record.
    Actions,
}

/// What a clean-up removed, or with `dry_run` would remove.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CleanupReport {
    /// Nothing was changed: the report says what a clean-up would remove.
    pub dry_run: bool,
    /// The flights without an operation day removed, ascending.
    pub flights: Vec<i64>,
    /// The operation days the history rule retires (`cleanup.history_days`),
    /// ascending: their flights, ledgers and lists are removed.
    pub retired_days: Vec<NaiveDate>,
    /// The flights of those days removed, ascending.
    pub retired_flights: Vec<i64>,
    /// The operation days whose ledger and list were removed, ascending.
    pub days: Vec<NaiveDate>,
    /// How many settled calls were purged.
    pub effect_calls: usize,
    /// How many processing records were purged.
    pub proc_states: usize,
    /// How many recorded operator actions were removed.
    pub actions: usize,
}

impl CleanupReport {
    /// How many rows of every part together.
    pub fn total(&self) -> usize {
        self.flights.len()
            + self.retired_flights.len()
            + self.days.len()
            + self.effect_calls
            + self.proc_states
            + self.actions
    }
}

/// The cutoffs of one clean-up, from its `now`.
#[derive(Clone, Copy, Debug)]
struct Cutoffs {
    flights: NaiveDateTime,
    days: NaiveDate,
    effect_calls: NaiveDateTime,
    proc_states: NaiveDateTime,
    actions: NaiveDateTime,
}

impl Cutoffs {
    fn at(settings: &CleanupSettings, now: NaiveDateTime) -> Cutoffs {
        let before = |days: u32| now - chrono::TimeDelta::days(i64::from(days));
        // A retired day's ledger goes with its flights, whatever the
        // ledgers' own retention.
        let ledgers = before(settings.ledger_days).date();
        let retired = settings.history.map(|h| h.first_kept_day(now));
        Cutoffs {
            flights: before(settings.flight_days),
            days: retired.map_or(ledgers, |first_kept| first_kept.max(ledgers)),
            effect_calls: before(settings.effect_call_days),
            proc_states: before(settings.proc_state_days),
            actions: before(settings.action_days),
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
    let mut report = CleanupReport {
        dry_run,
        ..CleanupReport::default()
    };
    let mut walk = Walk {
        dry_run,
        batch: i64::from(settings.batch.max(1)),
        progress,
    };
    let boundary =
        i32::try_from(settings.day_boundary.num_seconds_from_midnight() / 60).unwrap_or_default();
    let go_on = walk.run(store, Part::Flights, i64::MIN, |tx, after, batch| {
        let stale = tx.select_stale_flights(cutoffs.flights, boundary, after, batch)?;
        let last = stale.last().map(|s| s.flid);
        let removed = if dry_run {
            stale.iter().map(|s| s.flid).collect()
        } else {
            flights::remove_stale(tx, &stale, now)?
        };
        let rows = removed.len();
        report.flights.extend(removed);
        Ok((last, rows))
    })? && retire_history(store, settings, now, &mut walk, &mut report)?
        && walk.run(store, Part::Days, None, |tx, after, batch| {
            let days = tx.select_stale_snapshot_days(cutoffs.days, after, batch)?;
            let last = days.last().copied();
            let removed = if dry_run {
                days
            } else {
                remove_ledgers(tx, days, cutoffs.days)?
            };
            let rows = removed.len();
            report.days.extend(removed);
            Ok((last.map(Some), rows))
        })?
        && walk.run(store, Part::EffectCalls, i64::MIN, |tx, after, batch| {
            let calls = tx.select_settled_effect_calls(cutoffs.effect_calls, after, batch)?;
            let purged = if dry_run {
                calls.len()
            } else {
                tx.delete_effect_calls(&calls)?
            };
            report.effect_calls += purged;
            Ok((calls.last().copied(), purged))
        })?;
    let go_on = go_on
        && walk.run(store, Part::ProcStates, i64::MIN, |tx, after, batch| {
            let records = tx.select_stale_proc_states(
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
            report.proc_states += purged;
            Ok((records.last().copied(), purged))
        })?;
    if go_on {
        walk.run(store, Part::Actions, i64::MIN, |tx, after, batch| {
            let old = tx.select_old_operator_actions(cutoffs.actions, after, batch)?;
            let removed = if dry_run {
                old.len()
            } else {
                tx.delete_operator_actions(&old, cutoffs.actions)?
            };
            report.actions += removed;
            Ok((old.last().copied(), removed))
        })?;
    }
    Ok(report)
}

/// The history part (`cleanup.history_days`): the days it retires, then
/// their flights, each with a tombstone. Their ledgers and lists go with
/// the old ledgers' part, whose cutoff the history rule moves up to its
/// first day kept. Returns whether the clean-up goes on.
fn retire_history<S: Store>(
    store: &S,
    settings: &CleanupSettings,
    now: NaiveDateTime,
    walk: &mut Walk<'_>,
    report: &mut CleanupReport,
) -> Result<bool, StoreError> {
    let Some(history) = settings.history else {
        return Ok(true);
    };
    let first_kept = history.first_kept_day(now);
    report.retired_days = store.transaction(|tx| tx.select_retired_days(first_kept))?;
    let dry_run = walk.dry_run;
    walk.run(store, Part::History, i64::MIN, |tx, after, batch| {
        let past = tx.select_retired_flights(first_kept, after, batch)?;
        let last = past.last().map(|f| f.flid);
        let removed = if dry_run {
            past.iter().map(|f| f.flid).collect()
        } else {
            flights::retire(tx, &past, history, now)?
        };
        let rows = removed.len();
        report.retired_flights.extend(removed);
        Ok((last, rows))
    })
}

/// Removes the ledgers of `days` that still have no flight, and their
/// lists; returns the days removed.
fn remove_ledgers<T: StateTx + CleanupOps>(
    tx: &mut T,
    days: Vec<NaiveDate>,
    cutoff: NaiveDate,
) -> Result<Vec<NaiveDate>, StoreError> {
    let mut removed = Vec::with_capacity(days.len());
    for day in days {
        if tx.delete_snapshot_ledger(day, cutoff)? {
            tx.replace_snapshot_list(day, &[])?;
            removed.push(day);
        }
    }
    Ok(removed)
}

/// How a clean-up walks a part: batch after batch, each one short state
/// transaction, until a batch finds nothing or `progress` says stop.
struct Walk<'p> {
    dry_run: bool,
    batch: i64,
    progress: &'p mut dyn FnMut(Part, usize) -> bool,
}

impl Walk<'_> {
    /// Runs `batch` from cursor `start`: each call gets the cursor and the
    /// batch size, and returns the next cursor (`None`: nothing was found)
    /// and the rows it counted. Returns whether the clean-up goes on.
    fn run<S: Store, C: Copy>(
        &mut self,
        store: &S,
        part: Part,
        start: C,
        mut batch: impl FnMut(&mut S::Tx<'_>, C, i64) -> Result<(Option<C>, usize), StoreError>,
    ) -> Result<bool, StoreError> {
        let mut cursor = start;
        loop {
            let (next, rows) = store.transaction(|tx| {
                begin(tx, self.dry_run)?;
                batch(tx, cursor, self.batch)
            })?;
            let Some(next) = next else {
                return Ok(true);
            };
            cursor = next;
            if !(self.progress)(part, rows) {
                return Ok(false);
            }
        }
    }
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
