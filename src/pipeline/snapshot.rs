//! Applying a snapshot (SCHD DNLD / RESP) of one operation day: DESIGN §4,
//! in one transaction that either applies the whole day or nothing.
//!
//! The steps, in order: take `PIPELINE_LOCK` (and check the pump's epoch);
//! a replay of the day's latest snapshot changes nothing; write every new or
//! changed flight of the list with the day; delete the old list's flights
//! that the new list lacks and that still belong to the day; replace the
//! list; CAS-bump the day's version; register the events and the outcome;
//! commit. What can be checked without the database (RECS, the day, every
//! value) is checked before the transaction starts.

use chrono::{NaiveDate, NaiveDateTime};
use serde::Serialize;

use super::PipelineError;
use super::apply::{Settings, check_fence};
use crate::protocol::{Field, Schedule};
use crate::state::{
    self, DuplicateFlid, FlightState, SnapshotPlan, StoredFlight, changed_parts, plan_snapshot,
    snapshot_day, state_from_record,
};
use crate::store::{
    ChangeNotice, EventKind, Outcome, ProcStatus, StateEvent, StateTx, Store, VersionFloorOps,
    first_version,
};

/// The most flights one snapshot may carry (RECS is at most 4 digits).
pub const MAX_SNAPSHOT_FLIGHTS: u32 = 9_999;

/// What applying a snapshot did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnapshotReport {
    /// The operation day.
    pub operation_day: NaiveDate,
    /// Where the day came from.
    pub day_source: state::DaySource,
    /// The day's snapshot version after the message (unchanged by a replay).
    pub version: i64,
    /// Whether the message was the day's latest snapshot again (nothing
    /// changed).
    pub replay: bool,
    /// Flights in the snapshot.
    pub flights: usize,
    /// Flights created.
    pub created: usize,
    /// Flights whose state or day changed.
    pub updated: usize,
    /// Flights already in exactly that state.
    pub unchanged: usize,
    /// Flights deleted from the day (with tombstones).
    pub deleted: Vec<i64>,
}

/// A snapshot checked and converted, ready for its transaction.
struct Prepared {
    day: NaiveDate,
    day_source: state::DaySource,
    states: Vec<FlightState>,
    /// `STATE_DIGEST` of each state, in the same order.
    digests: Vec<String>,
    /// The new list (`N`), ascending.
    list: Vec<i64>,
}

/// Checks RECS, decides the day and builds every flight's state.
fn prepare(schedule: &Schedule, settings: &Settings) -> Result<Prepared, PipelineError> {
    let count = schedule.flights.len();
    match &schedule.recs {
        Field::Value(recs) if *recs > MAX_SNAPSHOT_FLIGHTS => {
            return Err(PipelineError::BadInput(format!(
                "RECS = {recs} is over capacity: a snapshot carries at most {MAX_SNAPSHOT_FLIGHTS} flights"
            )));
        }
        Field::Value(recs) if *recs as usize != count => {
            return Err(PipelineError::BadInput(format!(
                "RECS = {recs} but the snapshot carries {count} FLTR records"
            )));
        }
        Field::Value(_) => {}
        Field::Absent | Field::Empty => {
            return Err(PipelineError::BadInput(
                "RECS is missing: a snapshot must say how many flights it carries".to_owned(),
            ));
        }
    }
    let (day, day_source) = snapshot_day(
        schedule.operation_day,
        None,
        schedule
            .flights
            .iter()
            .filter_map(|f| f.sodt.value().copied()),
        settings.day_boundary,
    )
    .map_err(|e| PipelineError::BadInput(e.to_string()))?;
    // A full day's states and digests are a good part of applying it (and
    // most of recognising it unchanged): built on the machine's cores.
    let built = crate::cores::map_in_parallel(&schedule.flights, |record| {
        state_from_record(record).map(|state| {
            let digest = state.digest();
            (state, digest)
        })
    });
    let (states, digests): (Vec<FlightState>, Vec<String>) = built
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| PipelineError::BadInput(e.to_string()))?
        .into_iter()
        .unzip();
    let mut list: Vec<i64> = states.iter().map(|s| s.flid).collect();
    list.sort_unstable();
    if let Some(pair) = list.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(PipelineError::BadInput(
            DuplicateFlid { flid: pair[0] }.to_string(),
        ));
    }
    Ok(Prepared {
        day,
        day_source,
        states,
        digests,
        list,
    })
}

/// Applies a snapshot, retrying the transaction when a concurrent snapshot
/// of the same day won the CAS.
pub(super) fn apply_snapshot<S: Store>(
    store: &S,
    settings: &Settings,
    message: &MessageRef<'_>,
    schedule: &Schedule,
) -> Result<SnapshotReport, PipelineError> {
    let prepared = prepare(schedule, settings)?;
    let mut attempt = 0;
    loop {
        let result = store.transaction(|tx| snapshot_transaction(tx, settings, message, &prepared));
        match result {
            Err(e)
                if e.kind() == crate::FailureKind::Conflict
                    && attempt < settings.conflict_retries =>
            {
                attempt += 1;
                tracing::warn!(
                    msg.id = message.id,
                    attempt,
                    error = %format!("{e:#}"),
                    "snapshot lost the version race; re-reading and retrying"
                );
            }
            other => {
                let flights = prepared.states.len();
                crate::cores::free(prepared, flights);
                return other;
            }
        }
    }
}

/// The parts of a message the transaction records.
#[derive(Clone, Copy)]
pub(super) struct MessageRef<'a> {
    pub(super) id: i64,
    pub(super) identity_key: &'a str,
    pub(super) msg_type: &'a str,
    pub(super) subtype: &'a str,
    pub(super) now: NaiveDateTime,
}

impl MessageRef<'_> {
    pub(super) fn succeeded(&self) -> Outcome<'_> {
        Outcome {
            message_id: self.id,
            identity_key: self.identity_key,
            status: ProcStatus::Succeeded,
            error_kind: None,
            error_text: None,
            msg_type: Some(self.msg_type),
            msg_subtype: Some(self.subtype),
            next_attempt_at: None,
            now: self.now,
        }
    }
}

fn snapshot_transaction<T: StateTx + VersionFloorOps>(
    tx: &mut T,
    settings: &Settings,
    message: &MessageRef<'_>,
    prepared: &Prepared,
) -> Result<SnapshotReport, PipelineError> {
    let day = prepared.day;
    let lease = tx.lock_pipeline()?;
    check_fence(settings, &lease)?;

    let ledger = tx.snapshot_ledger(day)?;
    if let Some(ledger) = ledger.filter(|l| l.last_message_id == message.id) {
        tx.record_outcome(&message.succeeded())?;
        return Ok(SnapshotReport {
            operation_day: day,
            day_source: prepared.day_source,
            version: ledger.version,
            replay: true,
            flights: prepared.states.len(),
            created: 0,
            updated: 0,
            unchanged: prepared.states.len(),
            deleted: Vec::new(),
        });
    }

    // Unchanged flights are told from the stored digests (one narrow read);
    // only the others are read whole, for their versions and what changed.
    let stored = tx.flight_digests(&prepared.list)?;
    let mut already_current = 0;
    let candidates: Vec<&FlightState> = prepared
        .states
        .iter()
        .zip(&prepared.digests)
        .filter(|(state, digest)| {
            let same = stored.get(&state.flid).is_some_and(|s| {
                s.digest.as_deref() == Some(digest.as_str()) && s.operation_day == Some(day)
            });
            already_current += usize::from(same);
            !same
        })
        .map(|(state, _)| state)
        .collect();
    // Each candidate's digest, computed once in `prepare`, goes to the write.
    let candidate_digests: std::collections::HashMap<i64, &String> = prepared
        .states
        .iter()
        .zip(&prepared.digests)
        .map(|(state, digest)| (state.flid, digest))
        .collect();
    let candidate_flids: Vec<i64> = candidates.iter().map(|s| s.flid).collect();
    let current = tx.load_flights(&candidate_flids)?;
    let SnapshotPlan {
        mut writes,
        unchanged,
        ..
    } = plan_snapshot(day, candidates, &current, &[])
        .map_err(|e| PipelineError::BadInput(e.to_string()))?;
    let unchanged = unchanged + already_current;
    // A flight deleted before and created again continues above its
    // tombstone (its version floor).
    let created: Vec<i64> = writes
        .iter()
        .filter(|w| w.created)
        .map(|w| w.state.flid)
        .collect();
    let floors = tx.select_version_floors(&created)?;
    for write in writes.iter_mut().filter(|w| w.created) {
        write.state_version = first_version(floors.get(&write.state.flid).copied());
    }
    let list = &prepared.list;

    let mut events = Vec::with_capacity(writes.len());
    let mut notices = Vec::with_capacity(writes.len() + 1);
    let mut created = 0;
    let written: Vec<StoredFlight> = writes
        .into_iter()
        .map(|write| {
            let old = current.get(&write.state.flid);
            created += usize::from(write.created);
            events.push(StateEvent {
                message_id: message.id,
                flid: write.state.flid,
                state_version: write.state_version,
                kind: EventKind::State,
            });
            notices.push(flight_notice(
                message.id,
                old,
                &write.state,
                day,
                write.state_version,
            ));
            StoredFlight {
                state: write.state,
                operation_day: Some(day),
                state_version: write.state_version,
                last_message_id: message.id,
                updated_at: message.now,
            }
        })
        .collect();
    let digests: Vec<String> = written
        .iter()
        .map(|w| {
            candidate_digests
                .get(&w.state.flid)
                .map_or_else(|| w.state.digest(), |d| (*d).clone())
        })
        .collect();
    tx.write_flights_digested(&written, &digests)?;

    let deleted = tx.delete_flights_of_day(day, list)?;
    let tombstones: Vec<(i64, i64)> = deleted.iter().map(|&(f, v)| (f, v + 1)).collect();
    tx.upsert_version_floors(&tombstones, message.now)?;
    for &(flid, last_version) in &deleted {
        events.push(StateEvent {
            message_id: message.id,
            flid,
            state_version: last_version + 1,
            kind: EventKind::Tombstone,
        });
        notices.push(ChangeNotice {
            message_id: message.id,
            flid: Some(flid),
            change_kind: "DELETED",
            payload: json(&serde_json::json!({
                "operation_day": day,
                "state_version": last_version + 1,
                "reason": "absent from the day's snapshot",
            })),
        });
    }
    crate::failpoint!("snapshot.after_deletes");

    if tx.snapshot_list(day)? != *list {
        tx.replace_snapshot_list(day, list)?;
    }
    crate::failpoint!("snapshot.before_bump");
    let version =
        tx.bump_snapshot_version(day, ledger.map(|l| l.version), message.id, message.now)?;

    let deleted: Vec<i64> = deleted.into_iter().map(|(flid, _)| flid).collect();
    let report = SnapshotReport {
        operation_day: day,
        day_source: prepared.day_source,
        version,
        replay: false,
        flights: list.len(),
        created,
        updated: written.len() - created,
        unchanged,
        deleted,
    };
    notices.push(ChangeNotice {
        message_id: message.id,
        flid: None,
        change_kind: "SNAPSHOT",
        payload: json(&report),
    });
    tx.append_state_events(&events, message.now)?;
    tx.append_change_notices(&notices, message.now)?;
    tx.record_outcome(&message.succeeded())?;
    crate::failpoint!("snapshot.before_commit");
    Ok(report)
}

/// The notice of one written flight: created, or which parts changed.
fn flight_notice(
    message_id: i64,
    old: Option<&StoredFlight>,
    new: &FlightState,
    day: NaiveDate,
    version: i64,
) -> ChangeNotice {
    match old {
        None => ChangeNotice {
            message_id,
            flid: Some(new.flid),
            change_kind: "CREATED",
            payload: json(&serde_json::json!({ "operation_day": day, "state_version": version })),
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
                })),
            }
        }
    }
}

/// Serialises a notice payload; our own plain values always serialise.
pub(super) fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}
