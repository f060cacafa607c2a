//! Removing the clean-up's flights: each deleted with its detail rows and
//! given a tombstone exactly as a deletion by a message is (a version
//! floor, a `TOMBSTONE` state event, a `DELETED` change notice), so that
//! consumers of the state topic see it go and a flight created again under
//! the same FLID continues above it.

use chrono::NaiveDateTime;

use crate::store::{ChangeNotice, EventKind, StaleFlight, StateEvent, StateTx, StoreError};

/// Why the notice says the flight went.
const REASON: &str = "lifecycle clean-up: no operation day, unchanged past its retention";

/// Deletes the `stale` flights at `now` with their tombstones. Returns the
/// FLIDs deleted, ascending. The tombstone's message is the last message
/// that changed the flight: the clean-up is no message of its own.
pub(super) fn remove<T: StateTx>(
    tx: &mut T,
    stale: &[StaleFlight],
    now: NaiveDateTime,
) -> Result<Vec<i64>, StoreError> {
    if stale.is_empty() {
        return Ok(Vec::new());
    }
    let flids: Vec<i64> = stale.iter().map(|s| s.flid).collect();
    let mut deleted = tx.delete_flights(&flids)?;
    // DELETE … RETURNING gives no order; tombstones go out by FLID.
    deleted.sort_unstable();
    let tombstones: Vec<(i64, i64)> = deleted.iter().map(|&(f, v)| (f, v + 1)).collect();
    tx.upsert_version_floors(&tombstones, now)?;
    // `stale` comes ascending by FLID from its select.
    let message_of = |flid: i64| {
        stale
            .binary_search_by_key(&flid, |s| s.flid)
            .map_or(0, |i| stale[i].last_message_id)
    };
    let mut events = Vec::with_capacity(tombstones.len());
    let mut notices = Vec::with_capacity(tombstones.len());
    for &(flid, tombstone) in &tombstones {
        let message_id = message_of(flid);
        events.push(StateEvent {
            message_id,
            flid,
            state_version: tombstone,
            kind: EventKind::Tombstone,
        });
        notices.push(ChangeNotice {
            message_id,
            flid: Some(flid),
            change_kind: "DELETED",
            payload: serde_json::json!({
                "state_version": tombstone,
                "reason": REASON,
            })
            .to_string(),
        });
    }
    tx.append_state_events(&events, now)?;
    tx.append_change_notices(&notices, now)?;
    Ok(deleted.into_iter().map(|(flid, _)| flid).collect())
}
