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

use super::PipelineError;
use super::message_ref::{MessageRef, json};
use super::report::SnapshotReport;
use super::settings::{Settings, check_fence};
use crate::failure::Causes;
use crate::protocol::{Field, FlightRecord, Schedule};
use crate::request;
use crate::state::{
    self, DuplicateFlid, FlightState, SnapshotPlan, StoredFlight, changed_parts, plan_snapshot,
    snapshot_day, state_from_record,
};
use crate::store::{
    ChangeNotice, EventKind, FlightRows, RequestOps, SnapshotLedger, StateEvent, StateTx, Store,
    first_version,
};

/// The most flights one snapshot may carry (RECS is at most 4 digits).
pub const MAX_SNAPSHOT_FLIGHTS: u32 = 9_999;

/// A snapshot checked and converted, ready for its transaction.
struct Prepared {
    day: NaiveDate,
    day_source: state::DaySource,
    flights: Built,
    /// The new list (`N`), ascending.
    list: Vec<i64>,
}

/// The new states of a day's flights (or of a part of them, as read), each
/// with its `STATE_DIGEST`.
#[derive(Default)]
pub(super) struct Built {
    pub(super) states: Vec<FlightState>,
    pub(super) digests: Vec<String>,
}

impl Built {
    /// The state and digest of each record; both are a good part of
    /// applying a day (and most of recognising it unchanged), so a large
    /// batch is built on the machine's cores.
    pub(super) fn of(records: &[FlightRecord]) -> Result<Built, PipelineError> {
        Built::collect(crate::cores::map_in_parallel(records, Built::one))
    }

    /// The state and digest of one record.
    pub(super) fn one(record: &FlightRecord) -> Result<(FlightState, String), state::RecordError> {
        state_from_record(record).map(|state| {
            let digest = state.digest();
            (state, digest)
        })
    }

    fn collect(
        built: Vec<Result<(FlightState, String), state::RecordError>>,
    ) -> Result<Built, PipelineError> {
        built
            .into_iter()
            .collect::<Result<Vec<_>, _>>()
            .map(Built::from_pairs)
            .map_err(|e| PipelineError::BadInput(e.to_string()))
    }

    /// The states and digests of `(state, digest)` pairs, in order.
    pub(super) fn from_pairs(pairs: Vec<(FlightState, String)>) -> Built {
        let (states, digests) = pairs.into_iter().unzip();
        Built { states, digests }
    }

    pub(super) fn len(&self) -> usize {
        self.states.len()
    }
}

/// Checks RECS and decides the day: everything about a snapshot that does
/// not need its flights' states.
pub(super) fn check_schedule(
    schedule: &Schedule,
    settings: &Settings,
    request_day: Option<NaiveDate>,
) -> Result<(NaiveDate, state::DaySource), PipelineError> {
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
    snapshot_day(
        schedule.operation_day,
        request_day,
        schedule
            .flights
            .iter()
            .filter_map(|f| f.sodt.value().copied()),
        settings.day_boundary,
    )
    .map_err(|e| PipelineError::BadInput(e.to_string()))
}

/// The new list (`N`) of a snapshot's `flids`, ascending; a FLID twice is
/// bad input.
pub(super) fn snapshot_list(mut flids: Vec<i64>) -> Result<Vec<i64>, PipelineError> {
    flids.sort_unstable();
    if let Some(pair) = flids.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(PipelineError::BadInput(
            DuplicateFlid { flid: pair[0] }.to_string(),
        ));
    }
    Ok(flids)
}

/// Checks RECS, decides the day and builds every flight's state.
fn prepare(
    schedule: &Schedule,
    settings: &Settings,
    request_day: Option<NaiveDate>,
) -> Result<Prepared, PipelineError> {
    let (day, day_source) = check_schedule(schedule, settings, request_day)?;
    let flights = Built::of(&schedule.flights)?;
    let list = snapshot_list(flights.states.iter().map(|s| s.flid).collect())?;
    Ok(Prepared {
        day,
        day_source,
        flights,
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
    // A RESP that names no day takes the day of the request it answers.
    let request_day = match schedule.operation_day {
        None if request::takes_request_day(message.msg_type, message.subtype) => {
            store.transaction(|tx| request::request_day(tx, message.sender))?
        }
        _ => None,
    };
    let prepared = prepare(schedule, settings, request_day)?;
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
                    error = %Causes(&e),
                    "snapshot lost the version race; re-reading and retrying"
                );
            }
            other => {
                let flights = prepared.flights.len();
                crate::cores::free(prepared, flights);
                return other;
            }
        }
    }
}

fn snapshot_transaction<T: StateTx + RequestOps>(
    tx: &mut T,
    settings: &Settings,
    message: &MessageRef<'_>,
    prepared: &Prepared,
) -> Result<SnapshotReport, PipelineError> {
    let day = prepared.day;
    let ledger = match begin(tx, settings, message.id, day)? {
        Begun::Replay(ledger) => {
            tx.record_outcome(&message.succeeded())?;
            let flights = prepared.flights.len();
            return Ok(SnapshotReport {
                operation_day: day,
                day_source: prepared.day_source,
                version: ledger.version,
                replay: true,
                flights,
                created: 0,
                updated: 0,
                unchanged: flights,
                deleted: Vec::new(),
                streamed_parts: 0,
            });
        }
        Begun::Fresh(ledger) => ledger,
    };
    let mut written = Written::default();
    write_flights(
        tx,
        day,
        message.id,
        message.now,
        &prepared.flights,
        &mut written,
    )?;
    finish(
        tx,
        message,
        (day, prepared.day_source),
        &prepared.list,
        ledger,
        written,
    )
}

/// How a snapshot's transaction starts.
pub(super) enum Begun {
    /// The message is the day's latest snapshot again: nothing to change.
    Replay(SnapshotLedger),
    /// The day's ledger before the message (`None`: the day's first).
    Fresh(Option<SnapshotLedger>),
}

/// Takes `PIPELINE_LOCK`, checks the pump's epoch and reads the day's
/// ledger.
pub(super) fn begin<T: StateTx>(
    tx: &mut T,
    settings: &Settings,
    message_id: i64,
    day: NaiveDate,
) -> Result<Begun, PipelineError> {
    let lease = tx.lock_pipeline()?;
    check_fence(settings.fence, &lease)?;
    Ok(match tx.snapshot_ledger(day)? {
        Some(ledger) if ledger.last_message_id == message_id => Begun::Replay(ledger),
        ledger => Begun::Fresh(ledger),
    })
}

/// What the writes of a snapshot's flights did so far, for the events and
/// the report.
#[derive(Default)]
pub(super) struct Written {
    events: Vec<StateEvent>,
    notices: Vec<ChangeNotice>,
    created: usize,
    updated: usize,
    unchanged: usize,
}

/// Writes `flights` (all of a day's, or a part of them) with the day: new
/// and changed flights get a new state version, an event and a notice;
/// flights already in exactly that state are not written.
pub(super) fn write_flights<T: StateTx>(
    tx: &mut T,
    day: NaiveDate,
    message_id: i64,
    now: NaiveDateTime,
    flights: &Built,
    written: &mut Written,
) -> Result<(), PipelineError> {
    let flids: Vec<i64> = flights.states.iter().map(|s| s.flid).collect();
    // Unchanged flights are told from the stored digests (one narrow read);
    // only the others are read whole, for their versions and what changed.
    let stored = tx.flight_digests(&flids)?;
    let mut candidates = Vec::new();
    let mut candidate_digests = std::collections::HashMap::new();
    for (state, digest) in flights.states.iter().zip(&flights.digests) {
        let same = stored.get(&state.flid).is_some_and(|s| {
            s.digest.as_deref() == Some(digest.as_str()) && s.operation_day == Some(day)
        });
        if same {
            written.unchanged += 1;
        } else {
            candidates.push(state);
            candidate_digests.insert(state.flid, digest);
        }
    }
    let candidate_flids: Vec<i64> = candidates.iter().map(|s| s.flid).collect();
    let current = tx.load_flights(&candidate_flids)?;
    let SnapshotPlan {
        mut writes,
        unchanged,
        ..
    } = plan_snapshot(day, candidates, &current, &[])
        .map_err(|e| PipelineError::BadInput(e.to_string()))?;
    written.unchanged += unchanged;
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

    // New flights (no row: neither digest nor state was found) are
    // inserted, the others upserted.
    let (mut new, mut new_digests) = (Vec::new(), Vec::new());
    let (mut changed, mut changed_digests) = (Vec::with_capacity(writes.len()), Vec::new());
    for write in writes {
        let flid = write.state.flid;
        let old = current.get(&flid);
        let (rows, digests) = if write.created {
            written.created += 1;
            (&mut new, &mut new_digests)
        } else {
            written.updated += 1;
            (&mut changed, &mut changed_digests)
        };
        written.events.push(StateEvent {
            message_id,
            flid,
            state_version: write.state_version,
            kind: EventKind::State,
        });
        written.notices.push(flight_notice(
            message_id,
            old,
            &write.state,
            day,
            write.state_version,
        ));
        digests.push(
            candidate_digests
                .get(&flid)
                .map_or_else(|| write.state.digest(), |d| (*d).clone()),
        );
        rows.push(StoredFlight {
            state: write.state,
            operation_day: Some(day),
            state_version: write.state_version,
            last_message_id: message_id,
            updated_at: now,
        });
    }
    tx.write_flights(&new, &new_digests, FlightRows::New)?;
    tx.write_flights(&changed, &changed_digests, FlightRows::MayExist)?;
    Ok(())
}

/// The steps after the flights are written: delete `(O − N)` of the day
/// with tombstones, replace the list, CAS-bump the version, register the
/// events and the outcome.
pub(super) fn finish<T: StateTx + RequestOps>(
    tx: &mut T,
    message: &MessageRef<'_>,
    (day, day_source): (NaiveDate, state::DaySource),
    list: &[i64],
    ledger: Option<SnapshotLedger>,
    written: Written,
) -> Result<SnapshotReport, PipelineError> {
    let Written {
        mut events,
        mut notices,
        created,
        updated,
        unchanged,
    } = written;
    let mut deleted = tx.delete_flights_of_day(day, list)?;
    // DELETE … RETURNING gives no order; the tombstones, the notices and the
    // report list them by FLID, so that the same snapshot always says the same.
    deleted.sort_unstable();
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

    if tx.snapshot_list(day)? != list {
        tx.replace_snapshot_list(day, list)?;
    }
    crate::failpoint!("snapshot.before_bump");
    let version =
        tx.bump_snapshot_version(day, ledger.map(|l| l.version), message.id, message.now)?;
    request::complete_by_answer(
        tx,
        &request::Answer {
            msg_type: message.msg_type,
            subtype: message.subtype,
            sender: message.sender,
            day,
            message_id: message.id,
            now: message.now,
        },
    )?;

    let deleted: Vec<i64> = deleted.into_iter().map(|(flid, _)| flid).collect();
    let report = SnapshotReport {
        operation_day: day,
        day_source,
        version,
        replay: false,
        flights: list.len(),
        created,
        updated,
        unchanged,
        deleted,
        streamed_parts: 0,
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
