//! The pure half of writing a snapshot's flights: given new states and what
//! is stored of them, decide which to write (new or changed, with the state
//! version each will carry) and which to leave alone.
//!
//! It plans one part at a time (a snapshot read whole is one part): the
//! day's list, the FLIDs that come twice and the set-difference delete are
//! the whole message's, decided elsewhere (`pipeline::snapshot::check`, and
//! in SQL by the operation day).

use std::collections::HashMap;

use chrono::NaiveDate;

use super::flight::{FlightState, StoredFlight};

/// One flight to write, with the state version it will carry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedWrite {
    /// The new full state.
    pub state: FlightState,
    /// The stored version plus one, or the first version of a new flight.
    pub state_version: i64,
    /// Whether no row existed for the FLID.
    pub created: bool,
}

/// What writing some of a snapshot's flights will do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SnapshotPlan {
    /// New or changed flights (content or operation day), in input order.
    pub writes: Vec<PlannedWrite>,
    /// Flights whose stored state and day already match.
    pub unchanged: usize,
}

/// A snapshot that names one flight twice cannot say which record is the
/// flight's state.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("FLID {flid} appears more than once in the snapshot")]
pub struct DuplicateFlid {
    /// The repeated FLID.
    pub flid: i64,
}

/// Plans writing `new_states` with `day`, given the stored flights among
/// them (`current`, by FLID); a flight with no row starts at
/// `first_version(flid)` (above a tombstone it may have). The states to
/// write move into the plan, so a part's flights are held once while they
/// are written.
pub fn plan_snapshot(
    day: NaiveDate,
    new_states: impl IntoIterator<Item = FlightState>,
    current: &HashMap<i64, StoredFlight>,
    first_version: impl Fn(i64) -> i64,
) -> SnapshotPlan {
    let mut plan = SnapshotPlan::default();
    for state in new_states {
        match current.get(&state.flid) {
            Some(stored) if stored.state == state && stored.operation_day == Some(day) => {
                plan.unchanged += 1;
            }
            Some(stored) => plan.writes.push(PlannedWrite {
                state,
                state_version: stored.state_version + 1,
                created: false,
            }),
            None => plan.writes.push(PlannedWrite {
                state_version: first_version(state.flid),
                state,
                created: true,
            }),
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDateTime;

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 9, d).expect("test day")
    }

    fn flight(flid: i64, reno: &str) -> FlightState {
        let mut state = FlightState::new(flid);
        state.fields.reno = Some(reno.to_owned());
        state
    }

    fn stored(state: FlightState, day: Option<NaiveDate>, version: i64) -> StoredFlight {
        StoredFlight {
            state,
            operation_day: day,
            state_version: version,
            last_message_id: 1,
            updated_at: NaiveDateTime::default(),
        }
    }

    #[test]
    fn unchanged_flights_are_not_written() {
        let current = HashMap::from([
            (1, stored(flight(1, "B1"), Some(day(9)), 4)),
            (2, stored(flight(2, "B2"), Some(day(9)), 7)),
            (3, stored(flight(3, "B3"), Some(day(10)), 2)),
        ]);
        // Flight 5 was deleted before, at version 6.
        let first_version = |flid| if flid == 5 { 7 } else { 1 };
        let plan = plan_snapshot(
            day(9),
            [
                flight(1, "B1"),
                flight(2, "XX"),
                flight(3, "B3"),
                flight(4, "B4"),
                flight(5, "B5"),
            ],
            &current,
            first_version,
        );
        assert_eq!(plan.unchanged, 1);
        let written: Vec<_> = plan
            .writes
            .iter()
            .map(|w| (w.state.flid, w.state_version, w.created))
            .collect();
        // 2 changed; 3 unchanged in content but moves to day 9; 4 is new; 5
        // is new again, above its tombstone.
        assert_eq!(
            written,
            vec![(2, 8, false), (3, 3, false), (4, 1, true), (5, 7, true)]
        );
    }
}
