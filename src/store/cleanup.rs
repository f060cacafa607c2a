//! The lifecycle clean-up's operations (`flightstate cleanup`): find and
//! remove what the pipeline no longer needs — flights that never got an
//! operation day, ledgers of old days without flights, old processing
//! records and settled journaled calls.
//!
//! Each `select_*` chooses by rules written in its statement, above a
//! cursor and at most a batch, so that the caller can walk a table in short
//! transactions; each delete repeats the part of the rule a concurrent
//! change could break, so that it removes nothing the select would not
//! choose now. The caller holds `PIPELINE_LOCK`.

use chrono::{NaiveDate, NaiveDateTime};

use super::StoreError;

/// A flight the clean-up may remove.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StaleFlight {
    /// The flight.
    pub flid: i64,
    /// The last message that changed it: its tombstone's message.
    pub last_message_id: i64,
}

/// A flight of an operation day the history clean-up retires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetiredFlight {
    /// The flight.
    pub flid: i64,
    /// Its operation day.
    pub operation_day: NaiveDate,
    /// The last message that changed it: its tombstone's message.
    pub last_message_id: i64,
}

/// Lifecycle clean-up operations. Method names are the names of the SQL
/// files that run them.
pub trait CleanupOps {
    /// Flights without an operation day, unchanged since `cutoff` (UTC),
    /// named in no snapshot list, and not in the day of a live request
    /// (days start `day_boundary_minutes` after midnight; a live request
    /// about no day keeps every such flight); FLIDs above `after`,
    /// ascending, at most `limit`.
    fn select_stale_flights(
        &mut self,
        cutoff: NaiveDateTime,
        day_boundary_minutes: i32,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StaleFlight>, StoreError>;

    /// Flights of an operation day before `first_kept`; FLIDs above
    /// `after`, ascending, at most `limit`.
    fn select_retired_flights(
        &mut self,
        first_kept: NaiveDate,
        after: i64,
        limit: i64,
    ) -> Result<Vec<RetiredFlight>, StoreError>;

    /// The operation days before `first_kept` that hold a flight or a
    /// snapshot ledger, ascending.
    fn select_retired_days(&mut self, first_kept: NaiveDate) -> Result<Vec<NaiveDate>, StoreError>;

    /// Days before `cutoff` with a snapshot ledger and no stored flight;
    /// days after `after`, ascending, at most `limit`.
    fn select_stale_snapshot_days(
        &mut self,
        cutoff: NaiveDate,
        after: Option<NaiveDate>,
        limit: i64,
    ) -> Result<Vec<NaiveDate>, StoreError>;

    /// Removes `day`'s ledger (`SCHD_GEN`) if the day is before `cutoff`
    /// and still has no stored flight. Returns whether it was removed; the
    /// caller then removes the day's list.
    fn delete_snapshot_ledger(
        &mut self,
        day: NaiveDate,
        cutoff: NaiveDate,
    ) -> Result<bool, StoreError>;

    /// SUCCEEDED messages unchanged since `cutoff` (UTC) whose journaled
    /// calls (those targeting `write_back.0` + message id) are all settled
    /// and unchanged since `write_back.1`, so purged first; ids above
    /// `after`, ascending, at most `limit`.
    fn select_stale_proc_states(
        &mut self,
        cutoff: NaiveDateTime,
        write_back: (&str, NaiveDateTime),
        after: i64,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError>;

    /// Purges the records of `message_ids` that are still SUCCEEDED.
    /// Returns how many.
    fn delete_proc_states(&mut self, message_ids: &[i64]) -> Result<usize, StoreError>;

    /// Settled calls unchanged since `cutoff` (UTC); ids above `after`,
    /// ascending, at most `limit`.
    fn select_settled_effect_calls(
        &mut self,
        cutoff: NaiveDateTime,
        after: i64,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError>;

    /// Purges the calls among `call_ids` that are settled. Returns how many.
    fn delete_effect_calls(&mut self, call_ids: &[i64]) -> Result<usize, StoreError>;
}
