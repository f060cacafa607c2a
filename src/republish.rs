//! `flightstate republish`: queues the current state of chosen flights in
//! the state outbox (`KAFKA_SCHD`) again, on a consumer's request, while the
//! pipeline runs (`docs/kafka.md`, "Sending flights again on request").
//!
//! What it queues, and why so:
//!
//! - **each stored flight at its current `STATE_VERSION`**: no version is
//!   raised, because nothing changed. A consumer that holds the flight drops
//!   the record as equal to what it has; one that lost it gets it. The
//!   dispatcher sends the flight's stored state document, as for any state
//!   row, so the record is the one the topic already carries for it;
//! - **a FLID named with `--flid` that is no longer stored but has a version
//!   floor** (`FLIGHT_VERSION_FLOOR`, the tombstone version of a deleted
//!   flight): its tombstone at that version;
//! - **a FLID neither stored nor floored**: nothing; it is reported as
//!   unknown.
//!
//! No change notice is written: a republish changes no flight, and a notice
//! says what a message changed.
//!
//! It does not take the pump lease: the pump goes on. Every batch (of at most
//! `batch` flights) is one transaction that takes `PIPELINE_LOCK` as the
//! pipeline's transactions do, after choosing its page of FLIDs and before
//! reading their versions, so it is serialised with the pump's commits and
//! every row it queues names the version its flight is at when it commits.
//! While `flightstate resync` holds the pump lease it refuses (checked first,
//! and again under the lock of every batch): the resync queues every flight
//! again itself, and settles unsent whatever was pending when it began. A
//! dry run takes no lock, reads in read-only transactions, and counts.
//!
//! Talks to the database through the store traits only; owns no SQL.

use std::collections::HashSet;

use chrono::{NaiveDate, NaiveDateTime};
use serde::Serialize;

use crate::FailureKind;
use crate::resync::held_by_resync;
use crate::station::utc_now;
use crate::store::{
    EventKind, PipelineLease, ReadOps, RepublishOps, StateEvent, StateTx, Store, StoreError,
};

/// Flights per batch transaction unless the operator says otherwise:
/// `PIPELINE_LOCK` is held for one batch at most, a few milliseconds.
pub const DEFAULT_BATCH: i64 = 500;

/// Which flights to send again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// The stored flights of an operation day.
    Day(NaiveDate),
    /// The stored flights of an airline (`ALCD`, as AODB sends it).
    Airline(String),
    /// These FLIDs: stored ones get their state, deleted ones their
    /// tombstone, others are reported unknown.
    Flids(Vec<i64>),
}

/// What a republish queued, or with `dry_run` would queue.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RepublishReport {
    /// Nothing was changed.
    pub dry_run: bool,
    /// State events queued: stored flights, at their current versions.
    pub states: usize,
    /// Tombstones queued: FLIDs named that are deleted, at their floors.
    pub tombstones: usize,
    /// FLIDs named that are neither stored nor deleted, ascending.
    pub unknown: Vec<i64>,
}

/// Why a republish stopped. The batches committed before stay queued.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RepublishError {
    /// The state database failed. Run the republish again: a flight queued
    /// twice is sent once or twice, at the same version either way.
    #[error("state database")]
    Store(#[from] StoreError),
    /// `flightstate resync` holds the pump lease. Wait for it to end: it
    /// queues every stored flight's state again itself.
    #[error(
        "`flightstate resync` holds the pump lease (`{holder}`, until {} UTC); it queues \
         every flight's state again itself and settles unsent what was pending before it, so \
         republish queues nothing while it runs; run republish again after it if a consumer \
         still misses a flight",
        .until.format("%Y-%m-%d %H:%M:%S")
    )]
    DuringResync {
        /// Who holds it.
        holder: String,
        /// When it runs out unless renewed (UTC).
        until: NaiveDateTime,
    },
}

impl RepublishError {
    /// What went wrong, for a caller deciding whether to try again.
    pub fn kind(&self) -> FailureKind {
        match self {
            RepublishError::Store(e) => e.kind(),
            RepublishError::DuringResync { .. } => FailureKind::Conflict,
        }
    }
}

/// Queues the current state of the flights `selection` names, `batch`
/// flights per transaction, or with `dry_run` counts what it would queue and
/// changes nothing. `progress` is told how many flights each committed (or
/// counted) batch handled.
///
/// # Errors
///
/// A [`RepublishError`]; the batches committed before it stay queued.
pub fn republish<S: Store>(
    store: &S,
    selection: &Selection,
    batch: i64,
    dry_run: bool,
    progress: &mut dyn FnMut(usize),
) -> Result<RepublishReport, RepublishError> {
    let lease = store.transaction(|tx| tx.pipeline_lease())?;
    refuse_during_resync(&lease, utc_now())?;
    let batch = batch.max(1);
    let mut report = RepublishReport {
        dry_run,
        ..RepublishReport::default()
    };
    let pages = Pages::of(selection);
    // FLIDs are never negative: every one is above this.
    let mut after = -1;
    loop {
        let counts = store.transaction(|tx| {
            begin(tx, dry_run)?;
            let page = pages.after(tx, after, batch)?;
            let Some(last) = page.last().copied() else {
                return Ok(None);
            };
            let counts = queue(tx, &page, matches!(pages, Pages::Named(_)), dry_run)?;
            Ok::<_, RepublishError>(Some((last, counts)))
        })?;
        let Some((last, counts)) = counts else {
            break;
        };
        after = last;
        add(&mut report, counts, progress);
    }
    report.unknown.sort_unstable();
    tracing::info!(
        dry_run,
        states = report.states,
        tombstones = report.tombstones,
        unknown = report.unknown.len(),
        "republish done; the dispatcher sends what it queued"
    );
    Ok(report)
}

/// The FLIDs a selection names, a page at a time, ascending (keyset
/// pagination by FLID: nothing is held between two pages).
enum Pages<'s> {
    /// The FLIDs named, distinct and ascending.
    Named(Vec<i64>),
    /// The stored flights of an operation day.
    Day(NaiveDate),
    /// The stored flights of an airline.
    Airline(&'s str),
}

impl<'s> Pages<'s> {
    fn of(selection: &'s Selection) -> Pages<'s> {
        match selection {
            Selection::Day(day) => Pages::Day(*day),
            Selection::Airline(alcd) => Pages::Airline(alcd),
            Selection::Flids(flids) => {
                let mut flids = flids.clone();
                flids.sort_unstable();
                flids.dedup();
                Pages::Named(flids)
            }
        }
    }

    /// At most `limit` FLIDs above `after`.
    fn after(
        &self,
        tx: &mut (impl ReadOps + RepublishOps),
        after: i64,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError> {
        match self {
            Pages::Named(flids) => Ok(flids
                .iter()
                .copied()
                .filter(|flid| *flid > after)
                .take(usize::try_from(limit).unwrap_or(1))
                .collect()),
            Pages::Day(day) => tx.flid_page(Some(*day), after, limit),
            Pages::Airline(alcd) => tx.select_flids_of_airline_after(alcd, after, limit),
        }
    }
}

/// A dry run's batch reads in a read-only transaction, so that the database
/// itself holds it to changing nothing; a real one changes nothing before
/// [`queue`] takes the lock.
fn begin(tx: &mut impl ReadOps, dry_run: bool) -> Result<(), RepublishError> {
    if dry_run {
        tx.set_read_only_snapshot()?;
    }
    Ok(())
}

/// What one batch queued (or would queue).
#[derive(Debug, Default)]
struct Batch {
    states: usize,
    tombstones: usize,
    unknown: Vec<i64>,
}

fn add(report: &mut RepublishReport, batch: Batch, progress: &mut dyn FnMut(usize)) {
    progress(batch.states + batch.tombstones + batch.unknown.len());
    report.states += batch.states;
    report.tombstones += batch.tombstones;
    report.unknown.extend(batch.unknown);
}

/// One batch in its transaction: takes `PIPELINE_LOCK` (not in a dry run),
/// reads the current version of each of `flids` and queues its state; with
/// `named` (FLIDs the operator named), a FLID not stored gets its tombstone
/// at its version floor, or is unknown.
fn queue<T: StateTx + RepublishOps>(
    tx: &mut T,
    flids: &[i64],
    named: bool,
    dry_run: bool,
) -> Result<Batch, RepublishError> {
    if !dry_run {
        let lease = tx.lock_pipeline()?;
        refuse_during_resync(&lease, utc_now())?;
    }
    let held = tx.select_current_versions(flids)?;
    let mut events: Vec<StateEvent> = held
        .iter()
        .map(|f| StateEvent {
            // The message of its last change: the state it announces.
            message_id: f.last_message_id,
            flid: f.flid,
            state_version: f.state_version,
            kind: EventKind::State,
        })
        .collect();
    let mut batch = Batch {
        states: events.len(),
        ..Batch::default()
    };
    if named {
        let stored: HashSet<i64> = held.iter().map(|f| f.flid).collect();
        let missing: Vec<i64> = flids
            .iter()
            .copied()
            .filter(|flid| !stored.contains(flid))
            .collect();
        let floors = tx.select_version_floors(&missing)?;
        for flid in missing {
            match floors.get(&flid) {
                Some(&floor) => events.push(StateEvent {
                    // The floor does not keep the deleting message: no
                    // message registers this row.
                    message_id: 0,
                    flid,
                    state_version: floor,
                    kind: EventKind::Tombstone,
                }),
                None => batch.unknown.push(flid),
            }
        }
        batch.tombstones = events.len() - batch.states;
    }
    if !dry_run {
        tx.append_state_events(&events, utc_now())?;
    }
    tracing::debug!(
        flights = flids.len(),
        states = batch.states,
        tombstones = batch.tombstones,
        unknown = batch.unknown.len(),
        dry_run,
        "republish batch"
    );
    Ok(batch)
}

/// Refuses while a resync holds the pump lease at `now`.
fn refuse_during_resync(lease: &PipelineLease, now: NaiveDateTime) -> Result<(), RepublishError> {
    if held_by_resync(lease.holder.as_deref(), lease.expires_at, now) {
        return Err(RepublishError::DuringResync {
            holder: lease.holder.clone().unwrap_or_default(),
            until: lease.expires_at.unwrap_or(now),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resync::RESYNC_HOLDER_PREFIX;

    fn lease(holder: &str, seconds_left: i64) -> (PipelineLease, NaiveDateTime) {
        let now = NaiveDate::from_ymd_opt(2026, 9, 9)
            .and_then(|d| d.and_hms_opt(12, 0, 0))
            .expect("valid");
        let lease = PipelineLease {
            holder: Some(holder.to_owned()),
            epoch: 3,
            expires_at: Some(now + chrono::Duration::seconds(seconds_left)),
        };
        (lease, now)
    }

    #[test]
    fn only_a_live_resync_lease_refuses() {
        let (pump, now) = lease("host:1:pump", 10);
        assert!(refuse_during_resync(&pump, now).is_ok());
        let holder = format!("{RESYNC_HOLDER_PREFIX}host:2");
        let (expired, now) = lease(&holder, -1);
        assert!(refuse_during_resync(&expired, now).is_ok());
        let (live, now) = lease(&holder, 10);
        let refused = refuse_during_resync(&live, now).expect_err("refused");
        assert_eq!(refused.kind(), FailureKind::Conflict);
        assert!(refused.to_string().contains(&holder), "{refused}");
    }
}
