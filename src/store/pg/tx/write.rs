//! Writing flights on PostgreSQL: the steps of
//! [`flight_rows`](crate::store::flight_rows) — main rows by `upsert_flights`
//! or `insert_flights`, each detail table by its group delete and its
//! `insert_<table>` (a few flights) or `COPY` (a snapshot's) — and the
//! deletes of flights with their detail rows.

use diesel::RunQueryDsl;
use diesel::sql_types::{Array, BigInt, Date, Integer, Nullable, Text, Timestamp};

use super::super::copy::{DetailRows, NewFlights};
use super::super::copy::{copy_main_rows, main_rows_statement};
use super::super::copy_rows::PgCopy;
use super::super::errors;
use super::super::prepared::Prepare;
use super::super::rows::DeletedFlight;
use super::super::statements as sql;
use super::{Boxed, PgTx, statement};
use crate::state::{ColumnValues, FlightFields, StoredFlight, TableRow, state_document};
use crate::store::detail::{self, Detail, KeyedRows, with_detail_table};
use crate::store::flight_rows::{self, TableWriter};
use crate::store::{DetailTable, FlightRows, FlightWrite, StoreError};

/// Binds one column of many rows as the array the statement unnests.
fn bind_column(query: Boxed, values: ColumnValues) -> Boxed {
    match values {
        ColumnValues::Text(v) | ColumnValues::Decimal(v) => {
            query.bind::<Array<Nullable<Text>>, _>(v)
        }
        ColumnValues::Time(v) => query.bind::<Array<Nullable<Timestamp>>, _>(v),
        ColumnValues::Id(v) => query.bind::<Array<Nullable<BigInt>>, _>(v),
        ColumnValues::Count(v) => query.bind::<Array<Nullable<Integer>>, _>(v),
    }
}

/// The group delete of one detail table.
struct DeleteRows<'t, 'c> {
    tx: &'t mut PgTx<'c>,
    flids: &'t [i64],
}

impl DeleteRows<'_, '_> {
    fn visit<D: Detail>(self) -> Result<(), StoreError> {
        let query = statement(detail::statement(sql::ALL, D::DELETE)?)
            .bind::<Array<BigInt>, _>(self.flids.to_vec());
        self.tx.execute(query, D::DELETE).map(drop)
    }
}

/// The insert of one detail table's rows of flights that have none.
struct InsertRows<'t, 'c> {
    tx: &'t mut PgTx<'c>,
    flights: &'t [&'t StoredFlight],
    /// Loaded by `COPY` rather than inserted by statement.
    copy: bool,
}

impl InsertRows<'_, '_> {
    fn visit<D: PgCopy>(self) -> Result<(), StoreError> {
        let rows = KeyedRows::<D>::of(self.flights);
        if rows.is_empty() {
            return Ok(());
        }
        if self.copy {
            return D::copy(self.tx.conn, &rows);
        }
        let mut query =
            statement(detail::statement(sql::ALL, D::INSERT)?).bind::<Array<BigInt>, _>(rows.flids);
        if D::has_route_kind() {
            query = query.bind::<Array<Nullable<Text>>, _>(rows.route_kinds);
        }
        query = query.bind::<Array<Integer>, _>(rows.ordinals);
        let query = D::columns(rows.items.iter().copied())
            .into_iter()
            .fold(query, bind_column);
        self.tx.execute(query, D::INSERT).map(drop)
    }
}

impl TableWriter for PgTx<'_> {
    fn write_main_rows(
        &mut self,
        writes: &[&FlightWrite],
        rows: FlightRows,
    ) -> Result<(), StoreError> {
        if rows == FlightRows::New && self.new_flights == NewFlights::Copy {
            return copy_main_rows(self.conn, writes);
        }
        let flights: Vec<&StoredFlight> = writes.iter().map(|w| &w.flight).collect();
        let op = flight_rows::main_rows_statement(rows);
        let mut query = statement(detail::statement(sql::ALL, op)?)
            .bind::<Array<BigInt>, _>(flights.iter().map(|f| f.state.flid).collect::<Vec<_>>());
        query = FlightFields::columns(flights.iter().map(|f| &f.state.fields))
            .into_iter()
            .fold(query, bind_column);
        let query = query
            .bind::<Array<Nullable<Date>>, _>(
                flights.iter().map(|f| f.operation_day).collect::<Vec<_>>(),
            )
            .bind::<Array<BigInt>, _>(flights.iter().map(|f| f.state_version).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(
                flights
                    .iter()
                    .map(|f| f.last_message_id)
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Timestamp>, _>(flights.iter().map(|f| f.updated_at).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(writes.iter().map(|w| w.digest.clone()).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(
                flights
                    .iter()
                    .map(|f| state_document(f))
                    .collect::<Vec<_>>(),
            );
        self.execute(query, op).map(drop)
    }

    fn delete_table_rows(&mut self, table: DetailTable, flids: &[i64]) -> Result<(), StoreError> {
        let delete = DeleteRows { tx: self, flids };
        with_detail_table!(table, delete)
    }

    fn insert_table_rows(
        &mut self,
        table: DetailTable,
        flights: &[&StoredFlight],
        whole_flights: bool,
    ) -> Result<(), StoreError> {
        let copy = whole_flights && self.detail_rows == DetailRows::Copy;
        let insert = InsertRows {
            tx: self,
            flights,
            copy,
        };
        with_detail_table!(table, insert)
    }
}

impl PgTx<'_> {
    /// Runs a delete of main rows that returns `FLID, STATE_VERSION`, then
    /// deletes the detail rows of the flights it deleted.
    pub(super) fn delete_returning(
        &mut self,
        query: Boxed,
        op: &'static str,
    ) -> Result<Vec<(i64, i64)>, StoreError> {
        let deleted: Vec<DeletedFlight> = query
            .prepared()
            .load(self.conn)
            .map_err(|e| errors::query(op, e))?;
        let found: Vec<i64> = deleted.iter().map(|d| d.flid).collect();
        flight_rows::delete_table_rows(self, &found)?;
        Ok(deleted
            .into_iter()
            .map(|d| (d.flid, d.state_version))
            .collect())
    }
}

/// Every `COPY … FROM STDIN` the full writes send, as `(op, text)`.
pub(crate) fn copy_statements() -> Vec<(&'static str, String)> {
    struct Statement<'v>(&'v mut Vec<(&'static str, String)>);
    impl Statement<'_> {
        fn visit<D: PgCopy>(self) {
            self.0.push((D::COPY, D::copy_statement()));
        }
    }
    let mut all = vec![("copy_flights", main_rows_statement())];
    for table in DetailTable::ALL {
        with_detail_table!(table, Statement(&mut all));
    }
    all
}
