//! What makes a snapshot whole and valid (DESIGN §4, the seed's step 3 and
//! the operation day): RECS, the day, every flight's state, no FLID twice.
//!
//! The checks read a [`SnapshotTally`] of the flights rather than the flights
//! themselves, so that a message read whole and one streamed by parts (whose
//! flights are gone once written) are judged by the same code, in the same
//! order, with the same reasons.

use std::borrow::Cow;

use chrono::{NaiveDate, NaiveDateTime};

use crate::pipeline::{PipelineError, Rules};
use crate::protocol::{Field, FlightRecord, Schedule};
use crate::state::{
    self, DuplicateFlid, FlightState, RecordError, snapshot_day, state_from_record,
};

/// The most flights one snapshot may carry (RECS is at most 4 digits).
pub const MAX_SNAPSHOT_FLIGHTS: u32 = 9_999;

/// A flight's new state with its `STATE_DIGEST`, made together so that
/// they travel together.
#[derive(Clone)]
pub(in crate::pipeline) struct NewState {
    pub(super) state: FlightState,
    pub(super) digest: String,
}

impl NewState {
    /// The state and digest of one record.
    pub(super) fn of(record: &FlightRecord) -> Result<NewState, RecordError> {
        state_from_record(record).map(|state| NewState {
            digest: state.digest(),
            state,
        })
    }
}

/// The new states of a day's flights (or of a part of them, as read), in
/// input order.
#[derive(Clone, Default)]
pub(in crate::pipeline) struct NewStates(pub(super) Vec<NewState>);

impl NewStates {
    /// The states whose `keep` is true, in order: moved out of a part the
    /// caller owns, copied from one it borrows.
    pub(super) fn take(part: Cow<'_, NewStates>, keep: &[bool]) -> Vec<NewState> {
        match part {
            Cow::Owned(NewStates(states)) => states
                .into_iter()
                .zip(keep)
                .filter_map(|(state, &k)| k.then_some(state))
                .collect(),
            Cow::Borrowed(NewStates(states)) => states
                .iter()
                .zip(keep)
                .filter(|&(_, &k)| k)
                .map(|(state, _)| state.clone())
                .collect(),
        }
    }

    /// The day of the first flight that has a scheduled time.
    pub(super) fn first_day(&self, rules: &Rules) -> Option<NaiveDate> {
        self.0
            .iter()
            .find_map(|s| s.state.fields.sodt)
            .map(|sodt| state::day_of(sodt, rules.day_boundary))
    }
}

/// What the checks need of each flight of a snapshot, gathered in input
/// order as the flights are read: the count, the scheduled times, the FLIDs
/// and the first record whose state cannot be built.
#[derive(Default)]
pub(super) struct SnapshotTally {
    sodts: Vec<NaiveDateTime>,
    flids: Vec<i64>,
    first_bad: Option<RecordError>,
}

impl SnapshotTally {
    /// Counts one record; `built` is what became of its state.
    pub(super) fn add<T>(
        &mut self,
        flid: i64,
        sodt: Option<NaiveDateTime>,
        built: &Result<T, RecordError>,
    ) {
        self.flids.push(flid);
        self.sodts.extend(sodt);
        if let (Err(e), None) = (built, &self.first_bad) {
            self.first_bad = Some(e.clone());
        }
    }

    /// Whether every record so far has its state.
    pub(super) fn all_built(&self) -> bool {
        self.first_bad.is_none()
    }

    /// The records counted so far.
    pub(super) fn count(&self) -> usize {
        self.flids.len()
    }

    /// Checks the snapshot whose SCHD says `recs` and `operation_day`:
    /// RECS, then the day, then every record, then no FLID twice. Returns
    /// the day, where it came from and the new list (`N`), ascending.
    ///
    /// # Errors
    ///
    /// [`PipelineError::BadInput`] with the first check that fails.
    pub(super) fn check(
        self,
        recs: &Field<u32>,
        (operation_day, request_day): (Option<NaiveDate>, Option<NaiveDate>),
        rules: &Rules,
    ) -> Result<(NaiveDate, state::DaySource, Vec<i64>), PipelineError> {
        check_recs(recs, self.flids.len())?;
        let (day, day_source) =
            snapshot_day(operation_day, request_day, self.sodts, rules.day_boundary)
                .map_err(|e| PipelineError::BadInput(e.to_string()))?;
        if let Some(e) = self.first_bad {
            return Err(PipelineError::BadInput(e.to_string()));
        }
        Ok((day, day_source, snapshot_list(self.flids)?))
    }
}

/// The checks' verdict on a whole snapshot: the day and the list they
/// found, which no reading of the message carries until it is checked
/// whole. The message itself (its META included) is the attempt's.
#[derive(Clone)]
pub(in crate::pipeline) struct CheckedSnapshot {
    /// Its operation day.
    pub(super) day: NaiveDate,
    /// Where the day came from.
    pub(super) day_source: state::DaySource,
    /// The new list (`N`), ascending.
    pub(super) list: Vec<i64>,
    /// In how many parts its flights were handed out while it was still
    /// being read; 0 when it was read whole first.
    pub(super) streamed_parts: usize,
}

/// A snapshot read whole, checked and built: its flights as one part.
pub(in crate::pipeline) struct WholeSnapshot {
    pub(in crate::pipeline) day: NaiveDate,
    pub(in crate::pipeline) day_source: state::DaySource,
    pub(in crate::pipeline) list: Vec<i64>,
    pub(super) flights: NewStates,
}

impl WholeSnapshot {
    /// Checks `schedule` and builds every flight's state, on the machine's
    /// cores for a large one; `request_day` is the day of the request a RESP
    /// naming no day answers.
    ///
    /// # Errors
    ///
    /// [`PipelineError::BadInput`] as [`SnapshotTally::check`].
    pub(in crate::pipeline) fn of(
        schedule: &Schedule,
        rules: &Rules,
        request_day: Option<NaiveDate>,
    ) -> Result<WholeSnapshot, PipelineError> {
        let built: Vec<_> = schedule.flights.iter().map(NewState::of).collect();
        let mut tally = SnapshotTally::default();
        for (record, built) in schedule.flights.iter().zip(&built) {
            tally.add(record.flid, record.sodt.value().copied(), built);
        }
        let (day, day_source, list) =
            tally.check(&schedule.recs, (schedule.operation_day, request_day), rules)?;
        let states = built
            .into_iter()
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| PipelineError::BadInput(e.to_string()))?;
        Ok(WholeSnapshot {
            day,
            day_source,
            list,
            flights: NewStates(states),
        })
    }
}

/// RECS must be sent, at most [`MAX_SNAPSHOT_FLIGHTS`], and the number of
/// records: it is the only protection against a truncated snapshot deleting
/// the rest of a day.
fn check_recs(recs: &Field<u32>, count: usize) -> Result<(), PipelineError> {
    match recs {
        Field::Value(recs) if *recs > MAX_SNAPSHOT_FLIGHTS => {
            Err(PipelineError::BadInput(format!(
                "RECS = {recs} is over capacity: a snapshot carries at most {MAX_SNAPSHOT_FLIGHTS} flights"
            )))
        }
        Field::Value(recs) if *recs as usize != count => Err(PipelineError::BadInput(format!(
            "RECS = {recs} but the snapshot carries {count} FLTR records"
        ))),
        Field::Value(_) => Ok(()),
        Field::Absent | Field::Empty => Err(PipelineError::BadInput(
            "RECS is missing: a snapshot must say how many flights it carries".to_owned(),
        )),
    }
}

/// The new list (`N`) of a snapshot's `flids`, ascending; a FLID twice is
/// bad input.
fn snapshot_list(mut flids: Vec<i64>) -> Result<Vec<i64>, PipelineError> {
    flids.sort_unstable();
    if let Some(pair) = flids.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(PipelineError::BadInput(
            DuplicateFlid { flid: pair[0] }.to_string(),
        ));
    }
    Ok(flids)
}
