//! `PgTx`: the repository operations inside one PostgreSQL transaction, in
//! three parts: `read` (flights whole, their digests and documents), `write`
//! (whole flights, changes, deletes: the steps of
//! [`full_write`](crate::store::full_write)) and `ledger` (the lock, the
//! snapshot ledger and list, outbox rows, outcomes, version floors). Every
//! statement comes from `statements`; every value is bound.

mod ledger;
mod read;
mod write;

use std::collections::HashMap;

use chrono::{NaiveDate, NaiveDateTime};
use diesel::pg::Pg;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::{PgConnection, RunQueryDsl, sql_query};

use super::errors;
use super::prepared::Prepare;
use crate::state::{StateDocument, StoredFlight};
use crate::store::full_write;
use crate::store::{
    ChangeNotice, FlightChange, FlightDigest, FlightRows, Outcome, PipelineLease, ProcRecord,
    SnapshotLedger, StateEvent, StateTx, StoreError,
};

pub(super) use write::copy_statements;

/// How many FLIDs one read binds: large enough that a full day is a handful
/// of round trips, small enough to bound the rows one query returns.
const READ_BATCH: usize = 5_000;

/// A state transaction on PostgreSQL.
pub struct PgTx<'c> {
    conn: &'c mut PgConnection,
}

impl<'c> PgTx<'c> {
    pub(super) fn new(conn: &'c mut PgConnection) -> PgTx<'c> {
        PgTx { conn }
    }

    /// The transaction's connection, for the operations implemented in
    /// sibling modules (`lease`, `journal`).
    pub(super) fn conn(&mut self) -> &mut PgConnection {
        self.conn
    }

    fn execute(&mut self, query: Boxed, op: &'static str) -> Result<usize, StoreError> {
        query
            .prepared()
            .execute(self.conn)
            .map_err(|e| errors::query(op, e))
    }
}

type Boxed = BoxedSqlQuery<'static, Pg, SqlQuery>;

fn statement(text: &'static str) -> Boxed {
    sql_query(text).into_boxed()
}

impl StateTx for PgTx<'_> {
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
