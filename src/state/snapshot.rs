//! The pure half of applying a snapshot: given the day's new flight list and
//! what is stored, decide which flights to write (new or changed), which to
//! leave alone, and which old ones are candidates for deletion.
//!
//! The deletion itself is guarded in SQL by the operation day (a candidate
//! that another day's snapshot has taken over is kept); this module only
//! computes `O − N`.

use std::collections::{HashMap, HashSet};

use chrono::NaiveDate;

use super::flight::{FlightState, StoredFlight};

/// One flight to write, with the state version it will carry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlightWrite {
    /// The new full state.
    pub state: FlightState,
    /// The stored version plus one, or 1 for a new flight.
    pub state_version: i64,
    /// Whether no row existed for the FLID.
    pub created: bool,
}

/// What applying a snapshot will do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SnapshotPlan {
    /// New or changed flights (content or operation day), in list order.
    pub writes: Vec<FlightWrite>,
    /// Flights of the list whose stored state and day already match.
    pub unchanged: usize,
    /// The old list minus the new one (`O − N`), ascending.
    pub delete_candidates: Vec<i64>,
    /// The new list (`N`), ascending: what `SCHD_GEN_FLID` will hold.
    pub list: Vec<i64>,
}

/// A snapshot that names one flight twice cannot say which record is the
/// flight's state.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("FLID {flid} appears more than once in the snapshot")]
pub struct DuplicateFlid {
    /// The repeated FLID.
    pub flid: i64,
}

/// Plans a snapshot of `day` whose flights are `new_states`, given the
/// stored flights among them (`current`, by FLID) and the day's old list.
/// Only the flights to write are copied: an unchanged day costs no copies.
///
/// # Errors
///
/// [`DuplicateFlid`] when a FLID appears twice in `new_states`.
pub fn plan_snapshot<'a>(
    day: NaiveDate,
    new_states: impl IntoIterator<Item = &'a FlightState>,
    current: &HashMap<i64, StoredFlight>,
    old_list: &[i64],
) -> Result<SnapshotPlan, DuplicateFlid> {
    let mut seen = HashSet::new();
    let mut plan = SnapshotPlan::default();
    for state in new_states {
        if !seen.insert(state.flid) {
            return Err(DuplicateFlid { flid: state.flid });
        }
        plan.list.push(state.flid);
        match current.get(&state.flid) {
            Some(stored) if stored.state == *state && stored.operation_day == Some(day) => {
                plan.unchanged += 1;
            }
            Some(stored) => plan.writes.push(FlightWrite {
                state: state.clone(),
                state_version: stored.state_version + 1,
                created: false,
            }),
            None => plan.writes.push(FlightWrite {
                state: state.clone(),
                state_version: 1,
                created: true,
            }),
        }
    }
    plan.list.sort_unstable();
    plan.delete_candidates = old_list
        .iter()
        .copied()
        .filter(|flid| !seen.contains(flid))
        .collect();
    plan.delete_candidates.sort_unstable();
    plan.delete_candidates.dedup();
    Ok(plan)
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
        let plan = plan_snapshot(
            day(9),
            &[
                flight(1, "B1"),
                flight(2, "XX"),
                flight(3, "B3"),
                flight(4, "B4"),
            ],
            &current,
            &[1, 2, 5],
        )
        .expect("no duplicates");
        assert_eq!(plan.unchanged, 1);
        let written: Vec<_> = plan
            .writes
            .iter()
            .map(|w| (w.state.flid, w.state_version, w.created))
            .collect();
        // 2 changed; 3 unchanged in content but moves to day 9; 4 is new.
        assert_eq!(written, vec![(2, 8, false), (3, 3, false), (4, 1, true)]);
        assert_eq!(plan.delete_candidates, vec![5]);
        assert_eq!(plan.list, vec![1, 2, 3, 4]);
    }

    #[test]
    fn a_repeated_flid_is_refused() {
        let got = plan_snapshot(
            day(9),
            &[flight(1, "A"), flight(1, "B")],
            &HashMap::new(),
            &[],
        );
        assert_eq!(got, Err(DuplicateFlid { flid: 1 }));
    }
}
