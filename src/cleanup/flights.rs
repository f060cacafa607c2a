//! Removing the clean-up's flights: each deleted with its detail rows and
//! given a tombstone exactly as a deletion by a message is (a version
//! floor, a `TOMBSTONE` state event, a `DELETED` change notice whose reason
//! says why), so that consumers of the state topic see it go and a flight
//! created again under the same FLID continues above it.

use chrono::NaiveDateTime;
use serde_json::{Value, json};

use crate::station::HistoryRule;
use crate::store::{
    ChangeNotice, EventKind, RetiredFlight, StaleFlight, StateEvent, StateTx, StoreError,
};

/// Why a flight without an operation day went.
const STALE: &str = "lifecycle clean-up: no operation day, unchanged past its retention";

/// Deletes the `stale` flights (no operation day) at `now` with their
/// tombstones. Returns the FLIDs deleted, ascending.
pub(super) fn remove_stale<T: StateTx>(
    tx: &mut T,
    stale: &[StaleFlight],
    now: NaiveDateTime,
) -> Result<Vec<i64>, StoreError> {
    let flights: Vec<Removed> = stale
        .iter()
        .map(|s| Removed {
            flid: s.flid,
            last_message_id: s.last_message_id,
            notice: json!({ "reason": STALE }),
        })
        .collect();
    remove(tx, flights, now)
}

/// Deletes the `past` flights, of days `history` retires, at `now` with
/// their tombstones. Returns the FLIDs deleted, ascending.
pub(super) fn retire<T: StateTx>(
    tx: &mut T,
    past: &[RetiredFlight],
    history: HistoryRule,
    now: NaiveDateTime,
) -> Result<Vec<i64>, StoreError> {
    let reason = format!(
        "history clean-up: its operation day is before the first day kept ({}; cleanup.history_days = {})",
        history.first_kept_day(now),
        history.days
    );
    let flights: Vec<Removed> = past
        .iter()
        .map(|f| Removed {
            flid: f.flid,
            last_message_id: f.last_message_id,
            notice: json!({ "operation_day": f.operation_day, "reason": reason }),
        })
        .collect();
    remove(tx, flights, now)
}

/// A flight to remove.
struct Removed {
    flid: i64,
    /// The last message that changed it: its tombstone's message (the
    /// clean-up is no message of its own).
    last_message_id: i64,
    /// The notice's payload besides the tombstone's version.
    notice: Value,
}

fn remove<T: StateTx>(
    tx: &mut T,
    mut flights: Vec<Removed>,
    now: NaiveDateTime,
) -> Result<Vec<i64>, StoreError> {
    if flights.is_empty() {
        return Ok(Vec::new());
    }
    flights.sort_unstable_by_key(|f| f.flid);
    let flids: Vec<i64> = flights.iter().map(|f| f.flid).collect();
    let mut deleted = tx.delete_flights(&flids)?;
    // DELETE … RETURNING gives no order; tombstones go out by FLID.
    deleted.sort_unstable();
    let tombstones: Vec<(i64, i64)> = deleted.iter().map(|&(f, v)| (f, v + 1)).collect();
    tx.upsert_version_floors(&tombstones, now)?;
    let mut events = Vec::with_capacity(tombstones.len());
    let mut notices = Vec::with_capacity(tombstones.len());
    for &(flid, tombstone) in &tombstones {
        let Ok(at) = flights.binary_search_by_key(&flid, |f| f.flid) else {
            continue;
        };
        let flight = &mut flights[at];
        if let Value::Object(fields) = &mut flight.notice {
            fields.insert("state_version".to_owned(), json!(tombstone));
        }
        events.push(StateEvent {
            message_id: flight.last_message_id,
            flid,
            state_version: tombstone,
            kind: EventKind::Tombstone,
        });
        notices.push(ChangeNotice {
            message_id: flight.last_message_id,
            flid: Some(flid),
            change_kind: "DELETED",
            payload: flight.notice.to_string(),
        });
    }
    tx.append_state_events(&events, now)?;
    tx.append_change_notices(&notices, now)?;
    Ok(deleted.into_iter().map(|(flid, _)| flid).collect())
}
