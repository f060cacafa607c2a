//! `OracleTx`: the repository operations inside one Oracle transaction, in three parts:
//! `read` (flights whole, their digests and documents), `write` (whole flights, changes,
//! deletes: the steps of [`full_write`](crate::store::full_write)) and `ledger` (the lock,
//! the snapshot ledger and list, outbox rows, outcomes, version floors). Every statement
//! comes from `statements`; every value is a typed named bind.
//!
//! Set-based, as on PostgreSQL, within what 11g offers: writes of many rows are array DML
//! (the batch API, one row per batch entry, [`WRITE_BATCH`](super::binds::WRITE_BATCH) rows
//! per round trip); reads and deletes over many FLIDs bind them as one
//! `FLIGHTSTATE_ID_LIST` collection.

mod ledger;
mod read;
mod write;

use std::collections::{HashMap, HashSet};

use chrono::{NaiveDate, NaiveDateTime};
use oracle::sql_type::Timestamp;
use oracle::{Connection, Row};

use super::binds::read_time;
use crate::state::{StateDocument, StoredFlight, flight_tables};
use crate::store::full_write;
use crate::store::{
    ChangeNotice, FlightChange, FlightDigest, FlightRows, Outcome, PipelineLease, ProcRecord,
    SnapshotLedger, StateEvent, StateTx, StoreError,
};

/// How many FLIDs one read binds: a full day is two round trips per table.
const READ_BATCH: usize = 5_000;

/// A state transaction on Oracle.
pub struct OracleTx<'c> {
    conn: &'c Connection,
    /// The id-list collection type as this session must name it (see `conn::OracleUrl`).
    id_list_type: &'c str,
}

impl<'c> OracleTx<'c> {
    pub(super) fn new(conn: &'c Connection, id_list_type: &'c str) -> OracleTx<'c> {
        OracleTx { conn, id_list_type }
    }

    /// `ids` as one `FLIGHTSTATE_ID_LIST` collection bind.
    pub(super) fn id_list(
        &self,
        ids: &[i64],
        op: &'static str,
    ) -> Result<oracle::sql_type::Collection, StoreError> {
        super::binds::id_list(self.conn, self.id_list_type, ids, op)
    }

    /// The transaction's session, for the operations in sibling modules.
    pub(super) fn conn(&self) -> &'c Connection {
        self.conn
    }
}

/// A row type read by column name (names are the state structs' field names; Oracle matches
/// them without regard to case).
pub(super) trait FromOracleRow: Sized {
    fn from_row(row: &Row) -> oracle::Result<Self>;
}

macro_rules! oracle_get {
    (Time, $row:expr, $name:expr) => {
        read_time($row.get::<&str, Option<Timestamp>>($name)?)
    };
    ($kind:ident, $row:expr, $name:expr) => {
        $row.get::<&str, _>($name)?
    };
}

macro_rules! oracle_row {
    ($(#[$meta:meta])* pub struct $name:ident { $( $field:ident : $kind:ident ),* $(,)? }) => {
        impl FromOracleRow for crate::state::$name {
            fn from_row(row: &Row) -> oracle::Result<Self> {
                Ok(crate::state::$name {
                    $( $field: oracle_get!($kind, row, stringify!($field)), )*
                })
            }
        }
    };
}

flight_tables!(oracle_row);

/// Distinct ids in first-seen order: a collection bind joined to a table returns a row once
/// per element, where PostgreSQL's `= ANY` returns it once.
fn distinct(ids: &[i64]) -> Vec<i64> {
    let mut seen = HashSet::with_capacity(ids.len());
    ids.iter().copied().filter(|id| seen.insert(*id)).collect()
}

impl StateTx for OracleTx<'_> {
    fn lock_pipeline(&mut self) -> Result<PipelineLease, StoreError> {
        self.lock()
    }

    fn snapshot_ledger(&mut self, day: NaiveDate) -> Result<Option<SnapshotLedger>, StoreError> {
        self.ledger(day)
    }

    fn snapshot_list(&mut self, day: NaiveDate) -> Result<Vec<i64>, StoreError> {
        self.list(day)
    }

    fn replace_snapshot_list(&mut self, day: NaiveDate, flids: &[i64]) -> Result<(), StoreError> {
        self.replace_list(day, flids)
    }

    fn bump_snapshot_version(
        &mut self,
        day: NaiveDate,
        expected: Option<i64>,
        message_id: i64,
        now: NaiveDateTime,
    ) -> Result<i64, StoreError> {
        self.bump_version(day, expected, message_id, now)
    }

    fn load_flights(&mut self, flids: &[i64]) -> Result<HashMap<i64, StoredFlight>, StoreError> {
        self.read_flights(flids)
    }

    fn flight_digests(&mut self, flids: &[i64]) -> Result<HashMap<i64, FlightDigest>, StoreError> {
        self.read_digests(flids)
    }

    fn load_state_documents(
        &mut self,
        flids: &[i64],
    ) -> Result<HashMap<i64, StateDocument>, StoreError> {
        self.read_documents(flids)
    }

    fn write_flights(
        &mut self,
        flights: &[StoredFlight],
        digests: &[String],
        rows: FlightRows,
    ) -> Result<(), StoreError> {
        full_write::write_flights(self, flights, digests, rows)
    }

    fn write_flight_changes(&mut self, changes: &[FlightChange]) -> Result<(), StoreError> {
        full_write::write_flight_changes(self, changes)
    }

    fn delete_flights_of_day(
        &mut self,
        day: NaiveDate,
        new_list: &[i64],
    ) -> Result<Vec<(i64, i64)>, StoreError> {
        self.delete_of_day(day, new_list)
    }

    fn delete_flights(&mut self, flids: &[i64]) -> Result<Vec<(i64, i64)>, StoreError> {
        self.delete_listed(flids)
    }

    fn append_state_events(
        &mut self,
        events: &[StateEvent],
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        self.insert_state_events(events, now)
    }

    fn append_change_notices(
        &mut self,
        notices: &[ChangeNotice],
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        self.insert_change_notices(notices, now)
    }

    fn proc_states(&mut self, message_ids: &[i64]) -> Result<HashMap<i64, ProcRecord>, StoreError> {
        self.select_proc_states(message_ids)
    }

    fn record_outcomes(&mut self, outcomes: &[Outcome<'_>]) -> Result<(), StoreError> {
        self.insert_outcomes(outcomes)
    }

    fn upsert_version_floors(
        &mut self,
        floors: &[(i64, i64)],
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        self.upsert_floors(floors, now)
    }

    fn select_version_floors(&mut self, flids: &[i64]) -> Result<HashMap<i64, i64>, StoreError> {
        self.select_floors(flids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_keeps_first_seen_order() {
        assert_eq!(distinct(&[3, 1, 3, 2, 1]), vec![3, 1, 2]);
    }
}
