//! The writing steps of a snapshot's transaction (the seed's steps 4 to 9),
//! each one call of `snapshot_transaction`: the flights part by part, the
//! set-difference delete and its guard, the list, the version, the outbox
//! and the outcome.
//!
//! **Day moves** (`station.day_moves`, seed ACM2-31#9): under
//! `forward_only`, a snapshot of an older day leaves the flights that now
//! belong to a later day where they are, state and day, and says so — each
//! gets a notice with the reason, and the snapshot's outcome counts them.
//! The day's list still records every flight the message carried, and the
//! set-difference delete never reaches them (it is guarded by the day).
//!
//! **The mass-delete guard** (`[snapshot]`) is decided after the
//! set-difference delete ran inside the transaction, when the count of what
//! it deletes is known for both read paths (a streamed message writes its
//! parts before it knows its list). A snapshot that deletes too much fails
//! the transaction with [`PipelineError::Held`]: everything it wrote rolls
//! back, and the message is recorded HELD for an operator.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use chrono::{NaiveDate, NaiveDateTime};

use super::check::{NewState, NewStates};
use crate::pipeline::PipelineError;
use crate::pipeline::attempt::Attempt;
use crate::pipeline::outcome::{SnapshotReport, json};
use crate::state::{
    DayMoves, DeleteGuard, FlightState, SnapshotPlan, StoredFlight, changed_parts, plan_snapshot,
};
use crate::store::{
    ChangeNotice, EventKind, FlightDigest, FlightRows, FlightWrite, SnapshotLedger, StateEvent,
    StateTx, first_version,
};

/// What the writes of a snapshot's flights did so far, for the events and
/// the report.
#[derive(Default)]
pub(super) struct WriteOutcome {
    events: Vec<StateEvent>,
    notices: Vec<ChangeNotice>,
    /// Flights left on a later day (see the module), in input order.
    pub(super) kept_on_later_day: Vec<i64>,
    /// Their notices, registered after the other flights' (whatever the
    /// parts, the same snapshot registers the same notices in the same
    /// order).
    kept_notices: Vec<ChangeNotice>,
    pub(super) created: usize,
    pub(super) updated: usize,
    pub(super) unchanged: usize,
}

/// Step 4: writes `flights` (all of a day's, or a part of them) with the
/// day. New and changed flights get a new state version, an event and a
/// notice; flights already in exactly that state are not written, nor
/// those that `day_moves` keeps on a later day.
pub(super) fn write_part<T: StateTx>(
    tx: &mut T,
    (day, day_moves): (NaiveDate, DayMoves),
    (message_id, now): (i64, NaiveDateTime),
    flights: Cow<'_, NewStates>,
    written: &mut WriteOutcome,
) -> Result<(), PipelineError> {
    let flids: Vec<i64> = flights.0.iter().map(|s| s.state.flid).collect();
    // Unchanged flights are told from the stored digests (one narrow read);
    // only the others are read whole, for their versions and what changed.
    let stored = tx.flight_digests(&flids)?;
    let KeptOnLaterDay {
        flids: kept,
        notices,
    } = keep_later_days(day_moves, day, message_id, &flids, &stored)?;
    written.kept_notices.extend(notices);
    written.kept_on_later_day.extend(&kept);
    let kept: HashSet<i64> = kept.into_iter().collect();
    // Which flights to plan: neither kept on a later day nor unchanged.
    let mut candidate = Vec::with_capacity(flids.len());
    for NewState { state, digest } in &flights.0 {
        let same = stored.get(&state.flid).is_some_and(|s| {
            s.digest.as_deref() == Some(digest.as_str()) && s.operation_day == Some(day)
        });
        let is_kept = kept.contains(&state.flid);
        if same && !is_kept {
            written.unchanged += 1;
        }
        candidate.push(!same && !is_kept);
    }
    let candidates = NewStates::take(flights, &candidate);
    let (new, changed) = plan_writes(tx, day, (message_id, now), candidates, written)?;
    tx.write_flights(&new, FlightRows::New)?;
    tx.write_flights(&changed, FlightRows::MayExist)?;
    Ok(())
}

/// The writes of the `candidates` of a part (neither unchanged nor kept on
/// a later day): each one's version (above its tombstone if it had one),
/// event and notice, and the flights to insert (no row yet) apart from
/// those to upsert.
fn plan_writes<T: StateTx>(
    tx: &mut T,
    day: NaiveDate,
    (message_id, now): (i64, NaiveDateTime),
    candidates: Vec<NewState>,
    written: &mut WriteOutcome,
) -> Result<(Vec<FlightWrite>, Vec<FlightWrite>), PipelineError> {
    let (candidates, mut candidate_digests): (Vec<FlightState>, HashMap<i64, String>) = candidates
        .into_iter()
        .map(|NewState { state, digest }| {
            let flid = state.flid;
            (state, (flid, digest))
        })
        .unzip();
    let candidate_flids: Vec<i64> = candidates.iter().map(|s| s.flid).collect();
    let current = tx.load_flights(&candidate_flids)?;
    // A flight deleted before and created again continues above its
    // tombstone (its version floor).
    let absent: Vec<i64> = candidate_flids
        .iter()
        .copied()
        .filter(|flid| !current.contains_key(flid))
        .collect();
    let floors = tx.select_version_floors(&absent)?;
    let SnapshotPlan { writes, unchanged } = plan_snapshot(day, candidates, &current, |flid| {
        first_version(floors.get(&flid).copied())
    });
    written.unchanged += unchanged;

    // New flights (no row: neither digest nor state was found) are
    // inserted, the others upserted.
    let mut new = Vec::new();
    let mut changed = Vec::with_capacity(writes.len());
    for write in writes {
        let flid = write.state.flid;
        let rows = if write.created {
            written.created += 1;
            &mut new
        } else {
            written.updated += 1;
            &mut changed
        };
        written.events.push(StateEvent {
            message_id,
            flid,
            state_version: write.state_version,
            kind: EventKind::State,
        });
        written.notices.push(flight_notice(
            message_id,
            current.get(&flid),
            &write.state,
            day,
            write.state_version,
        )?);
        let digest = candidate_digests
            .remove(&flid)
            .unwrap_or_else(|| write.state.digest());
        let flight = StoredFlight {
            state: write.state,
            operation_day: Some(day),
            state_version: write.state_version,
            last_message_id: message_id,
            updated_at: now,
        };
        rows.push(FlightWrite::whole(flight, digest));
    }
    Ok((new, changed))
}

/// Steps 5 and 6: deletes the old list's flights that the new list (`list`)
/// lacks (`O − N`) and that still belong to the day, each with a tombstone
/// (a version floor, an event and a notice). Returns their FLIDs, ascending.
pub(super) fn delete_absent<T: StateTx>(
    tx: &mut T,
    day: NaiveDate,
    list: &[i64],
    (message_id, now): (i64, NaiveDateTime),
    written: &mut WriteOutcome,
) -> Result<Vec<i64>, PipelineError> {
    let mut deleted = tx.delete_flights_of_day(day, list)?;
    // DELETE … RETURNING gives no order; the tombstones, the notices and the
    // report list them by FLID, so that the same snapshot always says the same.
    deleted.sort_unstable();
    let tombstones: Vec<(i64, i64)> = deleted.iter().map(|&(f, v)| (f, v + 1)).collect();
    tx.upsert_version_floors(&tombstones, now)?;
    for &(flid, tombstone) in &tombstones {
        written.events.push(StateEvent {
            message_id,
            flid,
            state_version: tombstone,
            kind: EventKind::Tombstone,
        });
        written.notices.push(ChangeNotice {
            message_id,
            flid: Some(flid),
            change_kind: "DELETED",
            payload: json(&serde_json::json!({
                "operation_day": day,
                "state_version": tombstone,
                "reason": "absent from the day's snapshot",
            }))?,
        });
    }
    Ok(deleted.into_iter().map(|(flid, _)| flid).collect())
}

/// Step 7: replaces the day's list with `list`, when it changed.
pub(super) fn replace_list<T: StateTx>(
    tx: &mut T,
    day: NaiveDate,
    list: &[i64],
) -> Result<(), PipelineError> {
    if tx.snapshot_list(day)? != list {
        tx.replace_snapshot_list(day, list)?;
    }
    Ok(())
}

/// Step 8: moves the day's version on from what the ledger said when the
/// transaction began (the CAS) and records the message as the day's latest.
/// Returns the new version.
///
/// # Errors
///
/// A conflict when another snapshot of the day moved it first.
pub(super) fn bump_version<T: StateTx>(
    tx: &mut T,
    day: NaiveDate,
    ledger: Option<&SnapshotLedger>,
    attempt: &Attempt<'_>,
) -> Result<i64, PipelineError> {
    let version = ledger.map(|l| l.version);
    Ok(tx.bump_snapshot_version(day, version, attempt.message_id, attempt.now)?)
}

/// Step 9: registers the events and notices (the snapshot's summary last)
/// and records the message SUCCEEDED.
pub(super) fn register<T: StateTx>(
    tx: &mut T,
    attempt: &Attempt<'_>,
    written: WriteOutcome,
    report: &SnapshotReport,
) -> Result<(), PipelineError> {
    let WriteOutcome {
        events,
        mut notices,
        kept_notices,
        ..
    } = written;
    notices.extend(kept_notices);
    notices.push(ChangeNotice {
        message_id: attempt.message_id,
        flid: None,
        change_kind: "SNAPSHOT",
        payload: json(report)?,
    });
    tx.append_state_events(&events, attempt.now)?;
    tx.append_change_notices(&notices, attempt.now)?;
    tx.record_outcome(&attempt.succeeded())?;
    Ok(())
}

/// The notice of one written flight: created, or which parts changed.
fn flight_notice(
    message_id: i64,
    old: Option<&StoredFlight>,
    new: &FlightState,
    day: NaiveDate,
    version: i64,
) -> Result<ChangeNotice, PipelineError> {
    Ok(match old {
        None => ChangeNotice {
            message_id,
            flid: Some(new.flid),
            change_kind: "CREATED",
            payload: json(&serde_json::json!({ "operation_day": day, "state_version": version }))?,
        },
        Some(old) => {
            let mut changed = changed_parts(&old.state, new);
            if old.operation_day != Some(day) {
                changed.push("OPERATION_DAY");
            }
            ChangeNotice {
                message_id,
                flid: Some(new.flid),
                change_kind: "UPDATED",
                payload: json(&serde_json::json!({
                    "operation_day": day,
                    "state_version": version,
                    "changed": changed,
                }))?,
            }
        }
    })
}

/// The `KAFKA_MSG.CHANGE_KIND` of a flight a snapshot left on its later
/// day.
const KEPT_ON_LATER_DAY: &str = "KEPT_ON_LATER_DAY";

/// The flights a snapshot leaves on their later day, with their notices.
#[derive(Default)]
struct KeptOnLaterDay {
    /// Their FLIDs, in input order.
    flids: Vec<i64>,
    /// One notice each.
    notices: Vec<ChangeNotice>,
}

/// The flights among `flids` (stored as `stored` says) that a snapshot of
/// `day` must not write under `rule`.
fn keep_later_days(
    rule: DayMoves,
    day: NaiveDate,
    message_id: i64,
    flids: &[i64],
    stored: &HashMap<i64, FlightDigest>,
) -> Result<KeptOnLaterDay, PipelineError> {
    let mut kept = KeptOnLaterDay::default();
    for &flid in flids {
        let Some(later) = stored.get(&flid).and_then(|s| s.operation_day) else {
            continue;
        };
        if rule.allows(day, Some(later)) {
            continue;
        }
        kept.flids.push(flid);
        kept.notices.push(ChangeNotice {
            message_id,
            flid: Some(flid),
            change_kind: KEPT_ON_LATER_DAY,
            payload: json(&serde_json::json!({
                "operation_day": later,
                "snapshot_day": day,
                "reason": format!(
                    "the flight belongs to the later operation day {later}; a snapshot of {day} neither moves it back nor overwrites it (station.day_moves = {})",
                    rule.code()
                ),
            }))?,
        });
    }
    Ok(kept)
}

/// Refuses the snapshot of `day` when deleting `deleting` flights is more
/// than `guard` allows of the day's list as it stood (the list is replaced
/// after this step). A snapshot an operator `released` is applied as it is.
pub(super) fn guard_mass_delete<T: StateTx>(
    tx: &mut T,
    guard: DeleteGuard,
    released: bool,
    day: NaiveDate,
    deleting: usize,
) -> Result<(), PipelineError> {
    if released || deleting == 0 {
        return Ok(());
    }
    let listed = tx.snapshot_list(day)?.len();
    guard.check(deleting, listed)?;
    Ok(())
}
