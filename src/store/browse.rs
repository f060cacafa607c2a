//! What the status page's search and charts read that no other part does:
//! flights found by their flight number, and `PROC_STATE`'s outcomes per
//! minute. Read-only; the API runs both in its read-only snapshots.

use chrono::{NaiveDate, NaiveDateTime};
use serde::Serialize;

use super::{ProcStatus, StoreError};

/// One flight found by [`BrowseOps::select_flight_matches`]: what a person
/// needs to tell it from the others of the same number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FlightMatch {
    /// The AODB flight id.
    pub flid: i64,
    /// The flight number as stored (`FLNO`).
    pub flno: Option<String>,
    /// Arrival or departure (`MVIN`).
    pub mvin: Option<String>,
    /// The operation day, when known.
    pub operation_day: Option<NaiveDate>,
    /// The scheduled time (`SODT`).
    pub sodt: Option<NaiveDateTime>,
    /// The state version.
    pub state_version: i64,
}

/// Messages of one outcome and kind whose outcome was recorded in one
/// minute ([`BrowseOps::select_proc_minutes`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProcMinute {
    /// The minute (UTC, seconds zero).
    pub minute: NaiveDateTime,
    /// The outcome.
    pub status: ProcStatus,
    /// META TYPE, when the message could be read that far.
    pub msg_type: Option<String>,
    /// META STYP, likewise.
    pub msg_subtype: Option<String>,
    /// How many messages.
    pub messages: i64,
}

/// Reads for the search and the charts. Method names are the names of
/// the SQL files that run them.
pub trait BrowseOps {
    /// The flights whose flight number, upper-cased and without spaces,
    /// is `number` (given so), of operation days `first_day` to
    /// `last_day`, by day and scheduled time, at most `limit`.
    fn select_flight_matches(
        &mut self,
        number: &str,
        first_day: NaiveDate,
        last_day: NaiveDate,
        limit: i64,
    ) -> Result<Vec<FlightMatch>, StoreError>;

    /// The messages whose latest outcome was recorded at or after `since`,
    /// counted per minute, outcome and kind, oldest minute first.
    fn select_proc_minutes(&mut self, since: NaiveDateTime) -> Result<Vec<ProcMinute>, StoreError>;
}
