//! Applying flight events (FLOP): DESIGN §4 "Flight event", in one
//! transaction.
//!
//! Every `<FLOP>` body is checked and converted before the transaction
//! (a body that cannot apply makes the message DEAD). Then, under
//! `PIPELINE_LOCK` and the pump's epoch: read the full state of the flights
//! named, apply the bodies in order with the `state` merge rules (computed
//! once, here), and settle: write each changed flight (main row + only the
//! detail tables that changed), delete the deleted ones, register one
//! `KAFKA_SCHD` row and one `KAFKA_MSG` row per changed flight and the
//! outcome. A message that changes nothing writes nothing but its outcome.
//!
//! [`settle`] is shared with ad-hoc flights and SCHD DEL (`adft`).

use std::collections::HashMap;

use chrono::NaiveDate;
use serde::Serialize;

use super::PipelineError;
use super::apply::{Settings, check_fence};
use super::snapshot::MessageRef;
use crate::protocol::FlightOperation;
use crate::state::{
    FlightEvent, FlightState, StoredFlight, changed_parts, merge_event, prepare_event,
};
use crate::store::{
    ChangeNotice, DetailTable, EventKind, FlightChange, StateEvent, StateTx, Store,
    VersionFloorOps, first_version,
};

/// What applying a flight event, an ad-hoc flight or an SCHD DEL did, by
/// FLID in the order the message named them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct EventReport {
    /// `TYPE/STYP` of the message.
    pub event: String,
    /// Flights created (operation day not known yet).
    pub created: Vec<i64>,
    /// Flights whose state changed.
    pub updated: Vec<i64>,
    /// Flights deleted (with tombstones).
    pub deleted: Vec<i64>,
    /// Flights named whose state the message left as it was.
    pub unchanged: Vec<i64>,
}

/// A flight's state while a message is being applied: `None` once deleted.
pub(super) type Draft = Option<(FlightState, Option<NaiveDate>)>;

/// The flights a message works on, from their stored state to their new one.
pub(super) struct Working {
    /// What was stored before the message.
    pub(super) stored: HashMap<i64, StoredFlight>,
    /// Every FLID the message names, first mention first.
    pub(super) order: Vec<i64>,
    /// The new state of each.
    pub(super) drafts: HashMap<i64, Draft>,
    /// The version floor of each named flight that is not stored but was
    /// deleted before: created again, it continues above its tombstone.
    pub(super) floors: HashMap<i64, i64>,
}

impl Working {
    /// Reads the full stored state of `flids` (repeats allowed).
    pub(super) fn load<T: StateTx + VersionFloorOps>(
        tx: &mut T,
        flids: &[i64],
    ) -> Result<Working, PipelineError> {
        let mut order = Vec::with_capacity(flids.len());
        for flid in flids {
            if !order.contains(flid) {
                order.push(*flid);
            }
        }
        let stored = tx.load_flights(&order)?;
        let absent: Vec<i64> = order
            .iter()
            .copied()
            .filter(|flid| !stored.contains_key(flid))
            .collect();
        let floors = tx.select_version_floors(&absent)?;
        let drafts = order
            .iter()
            .map(|flid| {
                let draft = stored.get(flid).map(|s| (s.state.clone(), s.operation_day));
                (*flid, draft)
            })
            .collect();
        Ok(Working {
            stored,
            order,
            drafts,
            floors,
        })
    }

    /// The flight's current state in this message, if it exists.
    pub(super) fn current(&self, flid: i64) -> Option<&FlightState> {
        self.drafts
            .get(&flid)
            .and_then(|d| d.as_ref())
            .map(|(state, _)| state)
    }

    /// Sets the flight's new state (`None`: deleted). A flight that exists
    /// keeps its operation day; one that does not yet has none.
    pub(super) fn set(&mut self, flid: i64, state: Option<FlightState>) {
        let day = self
            .drafts
            .get(&flid)
            .and_then(|d| d.as_ref())
            .and_then(|(_, day)| *day);
        self.drafts.insert(flid, state.map(|s| (s, day)));
    }
}

/// Applies a FLOP message's bodies, in order, in one transaction.
pub(super) fn apply_event<S: Store>(
    store: &S,
    settings: &Settings,
    message: &MessageRef<'_>,
    operation: &FlightOperation,
) -> Result<EventReport, PipelineError> {
    let collections = &settings.merge.collections;
    let events = operation
        .flights
        .iter()
        .map(|record| prepare_event(operation.subtype, record, collections))
        .collect::<Result<Vec<FlightEvent>, _>>()
        .map_err(|e| PipelineError::BadInput(e.to_string()))?;
    store.transaction(|tx| {
        let lease = tx.lock_pipeline()?;
        check_fence(settings, &lease)?;
        let flids: Vec<i64> = events.iter().map(FlightEvent::flid).collect();
        let mut working = Working::load(tx, &flids)?;
        for event in &events {
            let next = merge_event(working.current(event.flid()), event, collections);
            working.set(event.flid(), next);
        }
        crate::failpoint!("event.before_write");
        settle(tx, message, working)
    })
}

/// Writes what a message changed and registers its events and outcome.
///
/// Per flight: unchanged (state and day) → nothing; changed → main row +
/// the detail tables that differ, `STATE_VERSION + 1`; new → version 1;
/// deleted → main row and details deleted, tombstone at the last version
/// plus one.
///
/// The tombstone's version becomes the flight's version floor: a flight
/// created again starts above it. Always records the message SUCCEEDED.
pub(super) fn settle<T: StateTx + VersionFloorOps>(
    tx: &mut T,
    message: &MessageRef<'_>,
    working: Working,
) -> Result<EventReport, PipelineError> {
    let mut report = EventReport {
        event: format!("{}/{}", message.msg_type, message.subtype),
        ..EventReport::default()
    };
    let mut changes = Vec::new();
    let mut deletes = Vec::new();
    let mut events = Vec::new();
    let mut notices = Vec::new();
    let Working {
        stored,
        order,
        mut drafts,
        floors,
    } = working;
    for flid in order {
        let old = stored.get(&flid);
        match (old, drafts.remove(&flid).flatten()) {
            (None, None) => report.unchanged.push(flid),
            (Some(_), None) => deletes.push(flid),
            (Some(old), Some((state, day))) if old.state == state && old.operation_day == day => {
                report.unchanged.push(flid);
            }
            (old, Some((state, day))) => {
                let version = old.map_or_else(
                    || first_version(floors.get(&flid).copied()),
                    |o| o.state_version + 1,
                );
                let empty = FlightState::new(flid);
                let before = old.map_or(&empty, |o| &o.state);
                let tables = DetailTable::changed(before, &state);
                notices.push(ChangeNotice {
                    flid: Some(flid),
                    change_kind: if old.is_some() { "UPDATED" } else { "CREATED" },
                    payload: json(&serde_json::json!({
                        "event": report.event,
                        "operation_day": day,
                        "state_version": version,
                        "changed": changed_parts(before, &state),
                    })),
                });
                events.push(StateEvent {
                    flid,
                    state_version: version,
                    kind: EventKind::State,
                });
                if old.is_some() {
                    report.updated.push(flid);
                } else {
                    report.created.push(flid);
                }
                changes.push(FlightChange {
                    flight: StoredFlight {
                        state,
                        operation_day: day,
                        state_version: version,
                        last_message_id: message.id,
                        updated_at: message.now,
                    },
                    tables,
                });
            }
        }
    }
    tx.write_flight_changes(&changes)?;
    if !deletes.is_empty() {
        let deleted = tx.delete_flights(&deletes)?;
        let tombstones: Vec<(i64, i64)> = deleted.iter().map(|&(f, v)| (f, v + 1)).collect();
        tx.upsert_version_floors(&tombstones, message.now)?;
        for (flid, last_version) in deleted {
            report.deleted.push(flid);
            events.push(StateEvent {
                flid,
                state_version: last_version + 1,
                kind: EventKind::Tombstone,
            });
            notices.push(ChangeNotice {
                flid: Some(flid),
                change_kind: "DELETED",
                payload: json(&serde_json::json!({
                    "event": report.event,
                    "state_version": last_version + 1,
                })),
            });
        }
        // The report follows the message's order, not the database's.
        report
            .deleted
            .sort_by_key(|flid| deletes.iter().position(|d| d == flid));
    }
    tx.append_state_events(&events, message.id, message.now)?;
    tx.append_change_notices(&notices, message.id, message.now)?;
    tx.record_outcome(&message.succeeded())?;
    Ok(report)
}

/// Serialises a notice payload; our own plain values always serialise.
fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}
