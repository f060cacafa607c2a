//! Writing flights on Oracle: the steps of [`flight_rows`](crate::store::flight_rows) — main
//! rows by `upsert_flights` (MERGE, then `update_state_documents`) or `insert_flights`, each
//! detail table by its group
//! delete and its `insert_<table>`, all array DML — and the deletes of flights with their
//! detail rows.

use oracle::Connection;
use oracle::sql_type::{OracleType, ToSql};

use super::super::binds::{AsDate, ClobBind, Text, batch_type, of_kind, run_batch, set_cell};
use super::super::errors::at;
use super::super::statements as sql;
use super::OracleTx;
use crate::state::{FlightFields, StoredFlight, TableRow, state_document};
use crate::store::detail::{self, Detail, KeyedRows, with_detail_table};
use crate::store::flight_rows::{self, TableWriter};
use crate::store::{DetailTable, FlightRows, FlightWrite, StoreError};

/// The group delete of one table for `flids`: one batch entry per flight.
fn delete_by_flid(
    conn: &Connection,
    delete: &'static str,
    op: &'static str,
    flids: &[i64],
) -> Result<(), StoreError> {
    run_batch(
        conn,
        delete,
        op,
        &[("flid", OracleType::Int64)],
        flids.len(),
        |batch, row| batch.set("flid", &flids[row]),
    )
}

/// Reads and locks the `FLID, STATE_VERSION` pairs of the main rows a lock read
/// (`lock_flights`, `lock_flights_of_day`) selects `FOR UPDATE`.
fn locked_pairs(
    conn: &Connection,
    text: &'static str,
    op: &'static str,
    binds: &[(&str, &dyn ToSql)],
) -> Result<Vec<(i64, i64)>, StoreError> {
    let rows = conn
        .query_as_named::<(i64, i64)>(text, binds)
        .map_err(at(op))?;
    let mut pairs = rows
        .collect::<oracle::Result<Vec<(i64, i64)>>>()
        .map_err(at(op))?;
    // PostgreSQL returns them in no promised order either; sorted, callers and tests agree.
    pairs.sort_unstable();
    Ok(pairs)
}

/// The group delete of one detail table.
struct DeleteRows<'t> {
    conn: &'t Connection,
    flids: &'t [i64],
}

impl DeleteRows<'_> {
    fn visit<D: Detail>(self) -> Result<(), StoreError> {
        delete_by_flid(
            self.conn,
            detail::statement(sql::ALL, D::DELETE)?,
            D::DELETE,
            self.flids,
        )
    }
}

/// The insert of one detail table's rows of flights that have none, as array DML: key
/// binds, then the row's own columns.
struct InsertRows<'t> {
    conn: &'t Connection,
    flights: &'t [&'t StoredFlight],
}

impl InsertRows<'_> {
    fn visit<D: Detail>(self) -> Result<(), StoreError> {
        let rows = KeyedRows::<D>::of(self.flights);
        if rows.is_empty() {
            return Ok(());
        }
        let with_route_kind = D::has_route_kind();
        let columns = D::columns(rows.items.iter().copied());
        let mut types = vec![("flid", OracleType::Int64), ("ordinal", OracleType::Int64)];
        if with_route_kind {
            types.push(("route_kind", OracleType::Varchar2(4)));
        }
        types.extend(
            D::COLUMNS
                .iter()
                .map(|(name, kind)| (*name, batch_type(*kind))),
        );
        let insert = detail::statement(sql::ALL, D::INSERT)?;
        run_batch(
            self.conn,
            insert,
            D::INSERT,
            &types,
            rows.items.len(),
            |batch, row| {
                batch.set("flid", &rows.flids[row])?;
                batch.set("ordinal", &rows.ordinals[row])?;
                if with_route_kind {
                    batch.set("route_kind", &Text(rows.route_kinds[row]))?;
                }
                for ((name, _), values) in D::COLUMNS.iter().zip(&columns) {
                    set_cell(batch, name, values, row)?;
                }
                Ok(())
            },
        )
    }
}

impl TableWriter for OracleTx<'_> {
    /// `insert_flights` or the MERGE of `upsert_flights`, as array DML. The state document
    /// goes as a CLOB bind (a document is several KB; a `VARCHAR2` bind stops at 4,000
    /// bytes), and a CLOB bind stays out of select lists: `insert_flights` binds it in its
    /// `VALUES`, while the MERGE, whose rows are a `SELECT … FROM DUAL`, leaves it to
    /// `update_state_documents` right after, in the same transaction.
    fn write_main_rows(
        &mut self,
        writes: &[&FlightWrite],
        rows: FlightRows,
    ) -> Result<(), StoreError> {
        let flights: Vec<&StoredFlight> = writes.iter().map(|w| &w.flight).collect();
        let op = flight_rows::main_rows_statement(rows);
        let text = detail::statement(sql::ALL, op)?;
        let columns = FlightFields::columns(flights.iter().map(|f| &f.state.fields));
        let documents: Vec<String> = flights.iter().map(|f| state_document(f)).collect();
        let longest = documents.iter().map(String::len).max().unwrap_or(0);
        let with_document = rows == FlightRows::New;
        let mut types = vec![("flid", OracleType::Int64)];
        types.extend(
            FlightFields::COLUMNS
                .iter()
                .map(|(name, kind)| (*name, batch_type(*kind))),
        );
        types.extend([
            ("operation_day", OracleType::Date),
            ("state_version", OracleType::Int64),
            ("last_message_id", OracleType::Int64),
            ("updated_at", OracleType::Date),
            ("state_digest", OracleType::Varchar2(64)),
        ]);
        let document = if with_document {
            let document = ClobBind::of(op, "state_document")?;
            types.push((document.name(), document.batch_type(longest)));
            Some(document)
        } else {
            None
        };
        debug_assert!(
            columns
                .iter()
                .zip(FlightFields::COLUMNS)
                .all(|(v, (_, k))| of_kind(v, *k))
        );
        run_batch(self.conn, text, op, &types, flights.len(), |batch, row| {
            let flight = flights[row];
            batch.set("flid", &flight.state.flid)?;
            for ((name, _), values) in FlightFields::COLUMNS.iter().zip(&columns) {
                set_cell(batch, name, values, row)?;
            }
            batch.set(
                "operation_day",
                &flight.operation_day.map_or(AsDate(None), AsDate::day),
            )?;
            batch.set("state_version", &flight.state_version)?;
            batch.set("last_message_id", &flight.last_message_id)?;
            batch.set("updated_at", &AsDate(Some(flight.updated_at)))?;
            batch.set("state_digest", &Text(Some(writes[row].digest.as_str())))?;
            if let Some(document) = document {
                batch.set(document.name(), &document.value(&documents[row]))?;
            }
            Ok(())
        })?;
        if with_document {
            return Ok(());
        }
        let op = "update_state_documents";
        let document = ClobBind::of(op, "state_document")?;
        run_batch(
            self.conn,
            sql::UPDATE_STATE_DOCUMENTS,
            op,
            &[
                ("flid", OracleType::Int64),
                (document.name(), document.batch_type(longest)),
            ],
            flights.len(),
            |batch, row| {
                batch.set("flid", &flights[row].state.flid)?;
                batch.set(document.name(), &document.value(&documents[row]))
            },
        )
    }

    fn delete_table_rows(&mut self, table: DetailTable, flids: &[i64]) -> Result<(), StoreError> {
        let delete = DeleteRows {
            conn: self.conn,
            flids,
        };
        with_detail_table!(table, delete)
    }

    fn insert_table_rows(
        &mut self,
        table: DetailTable,
        flights: &[&StoredFlight],
        _whole_flights: bool,
    ) -> Result<(), StoreError> {
        let insert = InsertRows {
            conn: self.conn,
            flights,
        };
        with_detail_table!(table, insert)
    }
}

impl OracleTx<'_> {
    /// Deletes the flights a lock read (`lock_flights`, `lock_flights_of_day`) selects and
    /// locks: their main rows by key (`delete_flights`, array DML), then their detail rows.
    /// Returns each deleted flight's `FLID` and `STATE_VERSION`, as PostgreSQL's
    /// `DELETE … RETURNING` does; Oracle binds no collection beside `RETURNING`
    /// (docs/oracle.md, "No collection beside RETURNING").
    pub(super) fn delete_locked(
        &mut self,
        lock: &'static str,
        op: &'static str,
        binds: &[(&str, &dyn ToSql)],
    ) -> Result<Vec<(i64, i64)>, StoreError> {
        let deleted = locked_pairs(self.conn, lock, op, binds)?;
        let found: Vec<i64> = deleted.iter().map(|d| d.0).collect();
        delete_by_flid(self.conn, sql::DELETE_FLIGHTS, "delete_flights", &found)?;
        flight_rows::delete_table_rows(self, &found)?;
        Ok(deleted)
    }
}
