//! `PgTx`: the repository operations inside one PostgreSQL transaction.
//! Every statement comes from `statements`; every value is bound.

use std::collections::HashMap;

use chrono::{NaiveDate, NaiveDateTime};
use diesel::pg::Pg;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::sql_types::{Array, BigInt, Date, Integer, Nullable, Text, Timestamp};
use diesel::{PgConnection, RunQueryDsl, sql_query};

use super::copy::{
    COPY_BINARY_HEADER, COPY_BINARY_TRAILER, copy_columns, copy_field, copy_main_rows,
    main_rows_statement,
};
use super::errors;
use super::prepared::Prepare;
use super::rows::{
    DeletedFlight, DigestRow, DocumentRow, FlidRow, FromColumns, Keyed, LeaseRow, LedgerRow,
    MainRow, ProcRow,
};
use super::schema;
use super::statements as sql;
use crate::FailureKind;
use crate::state::{
    ColumnValues, FlightFields, FlightState, StateDocument, StoredFlight, TableRow, state_document,
};
use crate::store::{
    ChangeNotice, DetailTable, FlightChange, FlightDigest, Outcome, PipelineLease, ProcRecord,
    ProcStatus, SnapshotLedger, StateEvent, StateTx, StoreError,
};

/// How many FLIDs one read binds: large enough that a full day is a handful
/// of round trips, small enough to bound the rows one query returns.
const READ_BATCH: usize = 5_000;

/// `flids` as the reads join them: each FLID once, in index order.
fn as_list(flids: &[i64]) -> Vec<i64> {
    let mut list = flids.to_vec();
    list.sort_unstable();
    list.dedup();
    list
}

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
}

type Boxed = BoxedSqlQuery<'static, Pg, SqlQuery>;

fn statement(text: &'static str) -> Boxed {
    sql_query(text).into_boxed()
}

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

/// How a write replaces a detail table's rows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rows {
    /// A few flights' changed tables (flight events): delete, then
    /// `insert_<table>`.
    Changed,
    /// A snapshot's flights: delete, then `COPY`.
    Bulk,
    /// New flights, which have no rows (a flight's rows are only ever
    /// written and deleted with its main row): `COPY` alone.
    New,
}

/// A collection's rows across many flights, with their keys, ready to bind.
struct KeyedRows<'s, T> {
    flids: Vec<Option<i64>>,
    route_kinds: Vec<Option<String>>,
    ordinals: Vec<Option<i32>>,
    items: Vec<&'s T>,
}

impl<'s, T: TableRow> KeyedRows<'s, T> {
    fn new() -> Self {
        KeyedRows {
            flids: Vec::new(),
            route_kinds: Vec::new(),
            ordinals: Vec::new(),
            items: Vec::new(),
        }
    }

    /// Adds a flight's rows; `ORDINAL` is the input position, from 1.
    fn push(&mut self, flid: i64, route_kind: Option<&str>, rows: &'s [T]) {
        for (position, item) in rows.iter().enumerate() {
            self.flids.push(Some(flid));
            self.route_kinds.push(route_kind.map(str::to_owned));
            // A flight has far fewer than 2^31 rows of one kind.
            self.ordinals.push(i32::try_from(position + 1).ok());
            self.items.push(item);
        }
    }

    /// The insert statement with its arrays bound: key columns, then the
    /// row's own.
    fn bind(self, insert: &'static str, with_route_kind: bool) -> Boxed {
        let mut query = statement(insert).bind::<Array<Nullable<BigInt>>, _>(self.flids);
        if with_route_kind {
            query = query.bind::<Array<Nullable<Text>>, _>(self.route_kinds);
        }
        query = query.bind::<Array<Nullable<Integer>>, _>(self.ordinals);
        T::columns(self.items.iter().copied())
            .into_iter()
            .fold(query, bind_column)
    }
}

impl<T: TableRow> KeyedRows<'_, T> {
    /// The rows in `COPY … FROM STDIN`'s binary format, key columns first,
    /// in the order of the table's columns (`schema.rs`). Binary rather
    /// than text: PostgreSQL then parses no timestamp or number, which
    /// makes a day's collections cost it about a third less.
    ///
    /// # Errors
    ///
    /// A value longer than COPY takes.
    fn copy_binary(self, with_route_kind: bool) -> Result<Vec<u8>, &'static str> {
        let columns = T::columns(self.items.iter().copied());
        let fields = columns.len() + if with_route_kind { 3 } else { 2 };
        let fields = i16::try_from(fields).map_err(|_| "more columns than COPY takes")?;
        let mut out = Vec::with_capacity(COPY_BINARY_HEADER.len() + self.items.len() * 96);
        out.extend_from_slice(COPY_BINARY_HEADER);
        for row in 0..self.items.len() {
            out.extend_from_slice(&fields.to_be_bytes());
            copy_field(&mut out, self.flids[row].map(i64::to_be_bytes).as_ref())?;
            if with_route_kind {
                copy_field(
                    &mut out,
                    self.route_kinds[row].as_deref().map(str::as_bytes),
                )?;
            }
            copy_field(&mut out, self.ordinals[row].map(i32::to_be_bytes).as_ref())?;
            copy_columns(&mut out, &columns, row)?;
        }
        out.extend_from_slice(COPY_BINARY_TRAILER);
        Ok(out)
    }
}

/// Loads `data` (COPY binary format, every column of `table` in its order)
/// into `table`: `COPY <table> (<all columns>) FROM STDIN WITH (FORMAT
/// binary)`, pinned by [`copy_statement`].
fn copy_into<Tab>(
    conn: &mut PgConnection,
    table: Tab,
    data: &[u8],
    op: &'static str,
) -> Result<(), StoreError>
where
    Tab: diesel::Table + diesel::pg::CopyTarget<Table = Tab> + Copy,
{
    let copy = diesel::copy_from(table)
        .from_raw_data(table, |out| {
            out.write_all(data)
                .map_err(|e| diesel::result::Error::SerializationError(Box::new(e)))
        })
        .with_format(diesel::pg::CopyFormat::Binary);
    diesel::prelude::ExecuteCopyFromDsl::execute(copy, conn)
        .map(drop)
        .map_err(|e| errors::query(op, e))
}

/// The text of the `COPY … FROM STDIN` that [`copy_into`] sends for
/// `Tab`, rendered the way diesel renders it (diesel does not expose it),
/// for the statement snapshots.
fn copy_statement<Tab>() -> String
where
    Tab: diesel::pg::CopyTarget,
{
    struct Copy<Tab>(std::marker::PhantomData<Tab>);
    impl<Tab: diesel::pg::CopyTarget> diesel::query_builder::QueryFragment<Pg> for Copy<Tab> {
        fn walk_ast<'b>(
            &'b self,
            mut pass: diesel::query_builder::AstPass<'_, 'b, Pg>,
        ) -> diesel::QueryResult<()> {
            pass.push_sql("COPY ");
            Tab::walk_target(pass.reborrow())?;
            pass.push_sql(" FROM STDIN WITH (FORMAT binary)");
            Ok(())
        }
    }
    diesel::debug_query::<Pg, _>(&Copy::<Tab>(std::marker::PhantomData)).to_string()
}

impl PgTx<'_> {
    fn execute(&mut self, query: Boxed, op: &'static str) -> Result<usize, StoreError> {
        query
            .prepared()
            .execute(self.conn)
            .map_err(|e| errors::query(op, e))
    }

    /// The group delete-insert of one collection for `flights`.
    fn replace_collection<T: TableRow>(
        &mut self,
        flights: &[&StoredFlight],
        (delete, delete_op): (&'static str, &'static str),
        (insert, insert_op): (&'static str, &'static str),
        rows_of: impl Fn(&FlightState) -> &[T],
        copy: Option<impl FnOnce(&mut PgConnection, &[u8]) -> Result<(), StoreError>>,
        mode: Rows,
    ) -> Result<(), StoreError> {
        if mode != Rows::New {
            let flids: Vec<i64> = flights.iter().map(|f| f.state.flid).collect();
            self.execute(statement(delete).bind::<Array<BigInt>, _>(flids), delete_op)?;
        }
        let mut rows = KeyedRows::new();
        for flight in flights {
            rows.push(flight.state.flid, None, rows_of(&flight.state));
        }
        if !rows.items.is_empty() {
            match copy {
                Some(copy) => {
                    let data = rows
                        .copy_binary(false)
                        .map_err(|why| StoreError::new(FailureKind::Other, insert_op, why))?;
                    copy(self.conn, &data)?;
                }
                None => drop(self.execute(rows.bind(insert, false), insert_op)?),
            }
        }
        Ok(())
    }

    /// ROUT and ERUT share `FLIGHT_ROUTE_POINT`, told apart by ROUTE_KIND.
    fn replace_route_points(
        &mut self,
        flights: &[&StoredFlight],
        mode: Rows,
    ) -> Result<(), StoreError> {
        if mode != Rows::New {
            let flids: Vec<i64> = flights.iter().map(|f| f.state.flid).collect();
            self.execute(
                statement(sql::DELETE_ROUTE_POINTS).bind::<Array<BigInt>, _>(flids),
                "delete_route_points",
            )?;
        }
        let mut rows = KeyedRows::new();
        for flight in flights {
            rows.push(flight.state.flid, Some("ROUT"), &flight.state.route);
            rows.push(flight.state.flid, Some("ERUT"), &flight.state.entire_route);
        }
        if rows.items.is_empty() {
        } else if mode != Rows::Changed {
            let data = rows
                .copy_binary(true)
                .map_err(|why| StoreError::new(FailureKind::Other, "copy_route_points", why))?;
            copy_into(
                self.conn,
                schema::flight_route_point::table,
                &data,
                "copy_route_points",
            )?;
        } else {
            self.execute(
                rows.bind(sql::INSERT_ROUTE_POINTS, true),
                "insert_route_points",
            )?;
        }
        Ok(())
    }

    /// Deletes every collection row of `flids`.
    fn delete_collections(&mut self, flids: &[i64]) -> Result<(), StoreError> {
        for (text, op) in [
            (sql::DELETE_GATES, "delete_gates"),
            (sql::DELETE_COUNTERS, "delete_counters"),
            (sql::DELETE_CAROUSELS, "delete_carousels"),
            (sql::DELETE_STANDS, "delete_stands"),
            (sql::DELETE_CHUTES, "delete_chutes"),
            (sql::DELETE_DELAYS, "delete_delays"),
            (sql::DELETE_BRIDGES, "delete_bridges"),
            (sql::DELETE_CHOCKS, "delete_chocks"),
            (sql::DELETE_ROUTE_POINTS, "delete_route_points"),
        ] {
            self.execute(statement(text).bind::<Array<BigInt>, _>(flids.to_vec()), op)?;
        }
        Ok(())
    }

    /// Reads one collection of `flids` into the loaded flights.
    fn load_collection<T: FromColumns + 'static>(
        &mut self,
        text: &'static str,
        op: &'static str,
        flids: &[i64],
        flights: &mut HashMap<i64, StoredFlight>,
        mut place: impl FnMut(&mut FlightState, Option<String>, T),
    ) -> Result<(), StoreError> {
        let rows: Vec<Keyed<T>> = statement(text)
            .bind::<Array<BigInt>, _>(flids.to_vec())
            .prepared()
            .load(self.conn)
            .map_err(|e| errors::query(op, e))?;
        for row in rows {
            if let Some(flight) = flights.get_mut(&row.flid) {
                place(&mut flight.state, row.route_kind, row.item);
            }
        }
        Ok(())
    }

    fn load_batch(
        &mut self,
        flids: &[i64],
        flights: &mut HashMap<i64, StoredFlight>,
    ) -> Result<(), StoreError> {
        let mains: Vec<MainRow> = statement(sql::SELECT_FLIGHTS)
            .bind::<Array<BigInt>, _>(flids.to_vec())
            .prepared()
            .load(self.conn)
            .map_err(|e| errors::query("select_flights", e))?;
        let found: Vec<i64> = mains.iter().map(|m| m.0.state.flid).collect();
        flights.extend(mains.into_iter().map(|m| (m.0.state.flid, m.0)));
        if found.is_empty() {
            return Ok(());
        }
        let f = &found;
        self.load_collection(sql::SELECT_GATES, "select_gates", f, flights, |s, _, r| {
            s.gates.push(r)
        })?;
        self.load_collection(
            sql::SELECT_COUNTERS,
            "select_counters",
            f,
            flights,
            |s, _, r| s.counters.push(r),
        )?;
        self.load_collection(
            sql::SELECT_CAROUSELS,
            "select_carousels",
            f,
            flights,
            |s, _, r| s.carousels.push(r),
        )?;
        self.load_collection(
            sql::SELECT_STANDS,
            "select_stands",
            f,
            flights,
            |s, _, r| s.stands.push(r),
        )?;
        self.load_collection(
            sql::SELECT_CHUTES,
            "select_chutes",
            f,
            flights,
            |s, _, r| s.chutes.push(r),
        )?;
        self.load_collection(
            sql::SELECT_DELAYS,
            "select_delays",
            f,
            flights,
            |s, _, r| s.delays.push(r),
        )?;
        self.load_collection(
            sql::SELECT_BRIDGES,
            "select_bridges",
            f,
            flights,
            |s, _, r| s.bridges.push(r),
        )?;
        self.load_collection(
            sql::SELECT_CHOCKS,
            "select_chocks",
            f,
            flights,
            |s, _, r| s.chocks.push(r),
        )?;
        self.load_collection(
            sql::SELECT_ROUTE_POINTS,
            "select_route_points",
            f,
            flights,
            |s, kind, r| {
                if kind.as_deref() == Some("ERUT") {
                    s.entire_route.push(r);
                } else {
                    s.route.push(r);
                }
            },
        )
    }
}

impl PgTx<'_> {
    /// The set-based upsert of many flights' main rows, each with its state
    /// document. `digests[i]` is the `STATE_DIGEST` of `flights[i]`.
    fn upsert_main_rows(
        &mut self,
        flights: &[&StoredFlight],
        digests: Vec<Option<String>>,
    ) -> Result<(), StoreError> {
        let mut upsert = statement(sql::UPSERT_FLIGHTS).bind::<Array<Nullable<BigInt>>, _>(
            flights
                .iter()
                .map(|f| Some(f.state.flid))
                .collect::<Vec<_>>(),
        );
        upsert = FlightFields::columns(flights.iter().map(|f| &f.state.fields))
            .into_iter()
            .fold(upsert, bind_column);
        upsert = upsert
            .bind::<Array<Nullable<Date>>, _>(
                flights.iter().map(|f| f.operation_day).collect::<Vec<_>>(),
            )
            .bind::<Array<Nullable<BigInt>>, _>(
                flights
                    .iter()
                    .map(|f| Some(f.state_version))
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Nullable<BigInt>>, _>(
                flights
                    .iter()
                    .map(|f| Some(f.last_message_id))
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Nullable<Timestamp>>, _>(
                flights
                    .iter()
                    .map(|f| Some(f.updated_at))
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Nullable<Text>>, _>(digests)
            .bind::<Array<Nullable<Text>>, _>(crate::cores::map_in_parallel(flights, |f| {
                Some(state_document(f))
            }));
        self.execute(upsert, "upsert_flights").map(drop)
    }

    /// The group delete-insert of one detail table for `flights`; `bulk`
    /// loads the new rows with `COPY … FROM STDIN` (a full day's rows)
    /// rather than the `INSERT … SELECT FROM UNNEST` of `insert_<table>`.
    fn replace_table(
        &mut self,
        table: DetailTable,
        flights: &[&StoredFlight],
        mode: Rows,
    ) -> Result<(), StoreError> {
        let bulk = mode != Rows::Changed;
        match table {
            DetailTable::Gate => self.replace_collection(
                flights,
                (sql::DELETE_GATES, "delete_gates"),
                (sql::INSERT_GATES, "insert_gates"),
                |s| &s.gates,
                bulk.then_some(|c: &mut PgConnection, d: &[u8]| {
                    copy_into(c, schema::flight_gate::table, d, "copy_gates")
                }),
                mode,
            ),
            DetailTable::Counter => self.replace_collection(
                flights,
                (sql::DELETE_COUNTERS, "delete_counters"),
                (sql::INSERT_COUNTERS, "insert_counters"),
                |s| &s.counters,
                bulk.then_some(|c: &mut PgConnection, d: &[u8]| {
                    copy_into(c, schema::flight_counter::table, d, "copy_counters")
                }),
                mode,
            ),
            DetailTable::Carousel => self.replace_collection(
                flights,
                (sql::DELETE_CAROUSELS, "delete_carousels"),
                (sql::INSERT_CAROUSELS, "insert_carousels"),
                |s| &s.carousels,
                bulk.then_some(|c: &mut PgConnection, d: &[u8]| {
                    copy_into(c, schema::flight_carousel::table, d, "copy_carousels")
                }),
                mode,
            ),
            DetailTable::Stand => self.replace_collection(
                flights,
                (sql::DELETE_STANDS, "delete_stands"),
                (sql::INSERT_STANDS, "insert_stands"),
                |s| &s.stands,
                bulk.then_some(|c: &mut PgConnection, d: &[u8]| {
                    copy_into(c, schema::flight_stand::table, d, "copy_stands")
                }),
                mode,
            ),
            DetailTable::Chute => self.replace_collection(
                flights,
                (sql::DELETE_CHUTES, "delete_chutes"),
                (sql::INSERT_CHUTES, "insert_chutes"),
                |s| &s.chutes,
                bulk.then_some(|c: &mut PgConnection, d: &[u8]| {
                    copy_into(c, schema::flight_chute::table, d, "copy_chutes")
                }),
                mode,
            ),
            DetailTable::Delay => self.replace_collection(
                flights,
                (sql::DELETE_DELAYS, "delete_delays"),
                (sql::INSERT_DELAYS, "insert_delays"),
                |s| &s.delays,
                bulk.then_some(|c: &mut PgConnection, d: &[u8]| {
                    copy_into(c, schema::flight_delay::table, d, "copy_delays")
                }),
                mode,
            ),
            DetailTable::Bridge => self.replace_collection(
                flights,
                (sql::DELETE_BRIDGES, "delete_bridges"),
                (sql::INSERT_BRIDGES, "insert_bridges"),
                |s| &s.bridges,
                bulk.then_some(|c: &mut PgConnection, d: &[u8]| {
                    copy_into(c, schema::flight_bridge::table, d, "copy_bridges")
                }),
                mode,
            ),
            DetailTable::Chock => self.replace_collection(
                flights,
                (sql::DELETE_CHOCKS, "delete_chocks"),
                (sql::INSERT_CHOCKS, "insert_chocks"),
                |s| &s.chocks,
                bulk.then_some(|c: &mut PgConnection, d: &[u8]| {
                    copy_into(c, schema::flight_chock::table, d, "copy_chocks")
                }),
                mode,
            ),
            DetailTable::RoutePoint => self.replace_route_points(flights, mode),
        }
    }
}

impl PgTx<'_> {
    /// Main rows and every detail table of `flights`, with their digests.
    fn write_main_and_tables(
        &mut self,
        flights: &[StoredFlight],
        digests: Vec<Option<String>>,
        full: Full,
    ) -> Result<(), StoreError> {
        let flights: Vec<&StoredFlight> = flights.iter().collect();
        match full {
            Full::Upsert => self.upsert_main_rows(&flights, digests)?,
            Full::Insert => copy_main_rows(self.conn, &flights, &digests)?,
        }
        for table in DetailTable::ALL {
            self.replace_table(table, &flights, full.rows())?;
        }
        Ok(())
    }
}

/// How a full write goes: flights that may exist are upserted (their old
/// rows deleted), flights known to be new are loaded with `COPY`.
#[derive(Clone, Copy)]
enum Full {
    Upsert,
    Insert,
}

impl Full {
    /// The op that writes the main rows, for errors.
    fn op(self) -> &'static str {
        match self {
            Full::Upsert => "upsert_flights",
            Full::Insert => "copy_flights",
        }
    }

    fn rows(self) -> Rows {
        match self {
            Full::Upsert => Rows::Bulk,
            Full::Insert => Rows::New,
        }
    }
}

impl PgTx<'_> {
    /// Full writes of `flights` with their digests (`digests[i]` is the
    /// digest of `flights[i]`), the main rows by `main`.
    fn write_digested(
        &mut self,
        flights: &[StoredFlight],
        digests: &[String],
        full: Full,
    ) -> Result<(), StoreError> {
        if flights.is_empty() {
            return Ok(());
        }
        if digests.len() != flights.len() {
            return Err(StoreError::new(
                FailureKind::Other,
                full.op(),
                format!("{} digests for {} flights", digests.len(), flights.len()),
            ));
        }
        let digests = digests.iter().cloned().map(Some).collect();
        self.write_main_and_tables(flights, digests, full)
    }
}

/// Every `COPY … FROM STDIN` the full writes send, as `(op, text)`.
pub(super) fn copy_statements() -> Vec<(&'static str, String)> {
    vec![
        ("copy_flights", main_rows_statement()),
        ("copy_gates", copy_statement::<schema::flight_gate::table>()),
        (
            "copy_counters",
            copy_statement::<schema::flight_counter::table>(),
        ),
        (
            "copy_carousels",
            copy_statement::<schema::flight_carousel::table>(),
        ),
        (
            "copy_stands",
            copy_statement::<schema::flight_stand::table>(),
        ),
        (
            "copy_chutes",
            copy_statement::<schema::flight_chute::table>(),
        ),
        (
            "copy_delays",
            copy_statement::<schema::flight_delay::table>(),
        ),
        (
            "copy_bridges",
            copy_statement::<schema::flight_bridge::table>(),
        ),
        (
            "copy_chocks",
            copy_statement::<schema::flight_chock::table>(),
        ),
        (
            "copy_route_points",
            copy_statement::<schema::flight_route_point::table>(),
        ),
    ]
}

impl StateTx for PgTx<'_> {
    fn lock_pipeline(&mut self) -> Result<PipelineLease, StoreError> {
        let row: LeaseRow = statement(sql::LOCK_PIPELINE)
            .prepared()
            .get_result(self.conn)
            .map_err(|e| errors::query("lock_pipeline", e))?;
        Ok(PipelineLease {
            holder: row.lease_holder,
            epoch: row.lease_epoch,
            expires_at: row.lease_expires_at,
        })
    }

    fn snapshot_ledger(&mut self, day: NaiveDate) -> Result<Option<SnapshotLedger>, StoreError> {
        let rows: Vec<LedgerRow> = statement(sql::SELECT_SNAPSHOT_LEDGER)
            .bind::<Date, _>(day)
            .prepared()
            .load(self.conn)
            .map_err(|e| errors::query("select_snapshot_ledger", e))?;
        Ok(rows.into_iter().next().map(|r| SnapshotLedger {
            version: r.version,
            last_message_id: r.last_message_id,
        }))
    }

    fn snapshot_list(&mut self, day: NaiveDate) -> Result<Vec<i64>, StoreError> {
        let rows: Vec<FlidRow> = statement(sql::SELECT_SNAPSHOT_LIST)
            .bind::<Date, _>(day)
            .prepared()
            .load(self.conn)
            .map_err(|e| errors::query("select_snapshot_list", e))?;
        Ok(rows.into_iter().map(|r| r.flid).collect())
    }

    fn replace_snapshot_list(&mut self, day: NaiveDate, flids: &[i64]) -> Result<(), StoreError> {
        self.execute(
            statement(sql::DELETE_SNAPSHOT_LIST).bind::<Date, _>(day),
            "delete_snapshot_list",
        )?;
        if !flids.is_empty() {
            self.execute(
                statement(sql::INSERT_SNAPSHOT_LIST)
                    .bind::<Date, _>(day)
                    .bind::<Array<BigInt>, _>(flids.to_vec()),
                "insert_snapshot_list",
            )?;
        }
        Ok(())
    }

    fn bump_snapshot_version(
        &mut self,
        day: NaiveDate,
        expected: Option<i64>,
        message_id: i64,
        now: NaiveDateTime,
    ) -> Result<i64, StoreError> {
        let (rows, op, version) = match expected {
            None => (
                self.execute(
                    statement(sql::INSERT_SNAPSHOT_LEDGER)
                        .bind::<Date, _>(day)
                        .bind::<BigInt, _>(message_id)
                        .bind::<Timestamp, _>(now),
                    "insert_snapshot_ledger",
                )?,
                "insert_snapshot_ledger",
                1,
            ),
            Some(expected) => (
                self.execute(
                    statement(sql::BUMP_SNAPSHOT_VERSION)
                        .bind::<Date, _>(day)
                        .bind::<BigInt, _>(expected)
                        .bind::<BigInt, _>(message_id)
                        .bind::<Timestamp, _>(now),
                    "bump_snapshot_version",
                )?,
                "bump_snapshot_version",
                expected + 1,
            ),
        };
        if rows == 1 {
            Ok(version)
        } else {
            Err(StoreError::new(
                FailureKind::Conflict,
                op,
                format!("the snapshot ledger of {day} moved past version {expected:?}"),
            ))
        }
    }

    fn flight_digests(&mut self, flids: &[i64]) -> Result<HashMap<i64, FlightDigest>, StoreError> {
        let mut digests = HashMap::with_capacity(flids.len());
        for batch in flids.chunks(READ_BATCH) {
            let rows: Vec<DigestRow> = statement(sql::SELECT_FLIGHT_DIGESTS)
                .bind::<Array<BigInt>, _>(batch.to_vec())
                .prepared()
                .load(self.conn)
                .map_err(|e| errors::query("select_flight_digests", e))?;
            digests.extend(rows.into_iter().map(|r| {
                let digest = FlightDigest {
                    digest: r.state_digest,
                    operation_day: r.operation_day,
                    state_version: r.state_version,
                };
                (r.flid, digest)
            }));
        }
        Ok(digests)
    }

    fn load_flights(&mut self, flids: &[i64]) -> Result<HashMap<i64, StoredFlight>, StoreError> {
        let flids = as_list(flids);
        let mut flights = HashMap::with_capacity(flids.len());
        for batch in flids.chunks(READ_BATCH) {
            self.load_batch(batch, &mut flights)?;
        }
        Ok(flights)
    }

    fn load_state_documents(
        &mut self,
        flids: &[i64],
    ) -> Result<HashMap<i64, StateDocument>, StoreError> {
        let flids = as_list(flids);
        let mut documents = HashMap::with_capacity(flids.len());
        // Rows written before documents were stored: built from the tables.
        let mut unstored = Vec::new();
        for batch in flids.chunks(READ_BATCH) {
            let rows: Vec<DocumentRow> = statement(sql::SELECT_STATE_DOCUMENTS)
                .bind::<Array<BigInt>, _>(batch.to_vec())
                .prepared()
                .load(self.conn)
                .map_err(|e| errors::query("select_state_documents", e))?;
            for row in rows {
                match row.state_document {
                    Some(json) => {
                        let document = StateDocument {
                            state_version: row.state_version,
                            json,
                        };
                        documents.insert(row.flid, document);
                    }
                    None => unstored.push(row.flid),
                }
            }
        }
        let built = self.load_flights(&unstored)?;
        documents.extend(built.iter().map(|(flid, f)| (*flid, StateDocument::of(f))));
        Ok(documents)
    }

    fn write_flights(&mut self, flights: &[StoredFlight]) -> Result<(), StoreError> {
        if flights.is_empty() {
            return Ok(());
        }
        let digests = flights.iter().map(|f| Some(f.state.digest())).collect();
        self.write_main_and_tables(flights, digests, Full::Upsert)
    }

    fn write_flights_digested(
        &mut self,
        flights: &[StoredFlight],
        digests: &[String],
    ) -> Result<(), StoreError> {
        self.write_digested(flights, digests, Full::Upsert)
    }

    fn insert_flights_digested(
        &mut self,
        flights: &[StoredFlight],
        digests: &[String],
    ) -> Result<(), StoreError> {
        self.write_digested(flights, digests, Full::Insert)
    }

    fn write_flight_changes(&mut self, changes: &[FlightChange]) -> Result<(), StoreError> {
        if changes.is_empty() {
            return Ok(());
        }
        let flights: Vec<&StoredFlight> = changes.iter().map(|c| &c.flight).collect();
        let digests = flights.iter().map(|f| Some(f.state.digest())).collect();
        self.upsert_main_rows(&flights, digests)?;
        for table in DetailTable::ALL {
            let changed: Vec<&StoredFlight> = changes
                .iter()
                .filter(|c| c.tables.contains(&table))
                .map(|c| &c.flight)
                .collect();
            if !changed.is_empty() {
                self.replace_table(table, &changed, Rows::Changed)?;
            }
        }
        Ok(())
    }

    fn delete_flights(&mut self, flids: &[i64]) -> Result<Vec<(i64, i64)>, StoreError> {
        if flids.is_empty() {
            return Ok(Vec::new());
        }
        let deleted: Vec<DeletedFlight> = statement(sql::DELETE_FLIGHTS)
            .bind::<Array<BigInt>, _>(flids.to_vec())
            .prepared()
            .load(self.conn)
            .map_err(|e| errors::query("delete_flights", e))?;
        let found: Vec<i64> = deleted.iter().map(|d| d.flid).collect();
        if !found.is_empty() {
            self.delete_collections(&found)?;
        }
        Ok(deleted
            .into_iter()
            .map(|d| (d.flid, d.state_version))
            .collect())
    }

    fn delete_flights_of_day(
        &mut self,
        day: NaiveDate,
        new_list: &[i64],
    ) -> Result<Vec<(i64, i64)>, StoreError> {
        let deleted: Vec<DeletedFlight> = statement(sql::DELETE_FLIGHTS_OF_DAY)
            .bind::<Date, _>(day)
            .bind::<Array<BigInt>, _>(new_list.to_vec())
            .prepared()
            .load(self.conn)
            .map_err(|e| errors::query("delete_flights_of_day", e))?;
        let flids: Vec<i64> = deleted.iter().map(|d| d.flid).collect();
        if !flids.is_empty() {
            self.delete_collections(&flids)?;
        }
        Ok(deleted
            .into_iter()
            .map(|d| (d.flid, d.state_version))
            .collect())
    }

    fn append_state_events(
        &mut self,
        events: &[StateEvent],
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        let query = statement(sql::INSERT_STATE_EVENTS)
            .bind::<Array<BigInt>, _>(events.iter().map(|e| e.flid).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(events.iter().map(|e| e.state_version).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(events.iter().map(|e| e.kind.code()).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(events.iter().map(|e| e.message_id).collect::<Vec<_>>())
            .bind::<Timestamp, _>(now);
        self.execute(query, "insert_state_events").map(drop)
    }

    fn append_change_notices(
        &mut self,
        notices: &[ChangeNotice],
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        crate::store::nonempty::refuse_empty_notices(notices)?;
        if notices.is_empty() {
            return Ok(());
        }
        let query = statement(sql::INSERT_CHANGE_NOTICES)
            .bind::<Array<Nullable<BigInt>>, _>(notices.iter().map(|n| n.flid).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(notices.iter().map(|n| n.change_kind).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(
                notices
                    .iter()
                    .map(|n| n.payload.clone())
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<BigInt>, _>(notices.iter().map(|n| n.message_id).collect::<Vec<_>>())
            .bind::<Timestamp, _>(now);
        self.execute(query, "insert_change_notices").map(drop)
    }

    fn proc_states(&mut self, message_ids: &[i64]) -> Result<HashMap<i64, ProcRecord>, StoreError> {
        let op = "select_proc_states";
        let rows: Vec<ProcRow> = statement(sql::SELECT_PROC_STATES)
            .bind::<Array<BigInt>, _>(message_ids.to_vec())
            .prepared()
            .load(self.conn)
            .map_err(|e| errors::query(op, e))?;
        rows.into_iter()
            .map(|r| {
                let status = ProcStatus::from_code(&r.status).ok_or_else(|| {
                    StoreError::new(
                        FailureKind::Other,
                        op,
                        format!("unknown PROC_STATE.STATUS {:?}", r.status),
                    )
                })?;
                let record = ProcRecord {
                    identity_key: r.identity_key,
                    status,
                    error_kind: r.error_kind,
                    error_text: r.error_text,
                    attempts: r.attempts,
                };
                Ok((r.message_id, record))
            })
            .collect()
    }

    fn record_outcomes(&mut self, outcomes: &[Outcome<'_>]) -> Result<(), StoreError> {
        if outcomes.is_empty() {
            return Ok(());
        }
        let texts = |f: for<'o> fn(&'o Outcome<'_>) -> Option<&'o str>| -> Vec<Option<String>> {
            outcomes.iter().map(|o| f(o).map(str::to_owned)).collect()
        };
        let query = statement(sql::RECORD_OUTCOMES)
            .bind::<Array<BigInt>, _>(outcomes.iter().map(|o| o.message_id).collect::<Vec<_>>())
            .bind::<Array<Nullable<Text>>, _>(texts(|o| Some(o.identity_key)))
            .bind::<Array<Nullable<Text>>, _>(texts(|o| Some(o.status.code())))
            .bind::<Array<Nullable<Text>>, _>(texts(|o| o.error_kind))
            .bind::<Array<Nullable<Text>>, _>(texts(|o| o.error_text))
            .bind::<Array<Nullable<Text>>, _>(texts(|o| o.msg_type))
            .bind::<Array<Nullable<Text>>, _>(texts(|o| o.msg_subtype))
            .bind::<Array<Nullable<Timestamp>>, _>(
                outcomes
                    .iter()
                    .map(|o| o.next_attempt_at)
                    .collect::<Vec<_>>(),
            )
            .bind::<Array<Timestamp>, _>(outcomes.iter().map(|o| o.now).collect::<Vec<_>>());
        self.execute(query, "record_outcomes").map(drop)
    }
}
