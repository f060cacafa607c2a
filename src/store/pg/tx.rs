//! `PgTx`: the repository operations inside one PostgreSQL transaction.
//! Every statement comes from `statements`; every value is bound.

use std::collections::HashMap;

use chrono::{NaiveDate, NaiveDateTime};
use diesel::pg::Pg;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::sql_types::{Array, BigInt, Date, Integer, Nullable, Text, Timestamp};
use diesel::{PgConnection, RunQueryDsl, sql_query};

use super::errors::query;
use super::rows::{
    DeletedFlight, DigestRow, FlidRow, Keyed, LeaseRow, LedgerRow, MainRow, ProcRow,
};
use super::statements as sql;
use crate::FailureKind;
use crate::state::{ColumnValues, FlightFields, FlightState, StoredFlight, TableRow};
use crate::store::{
    ChangeNotice, DetailTable, FlightChange, FlightDigest, Outcome, PipelineLease, ProcRecord,
    ProcStatus, SnapshotLedger, StateEvent, StateTx, StoreError,
};

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

impl PgTx<'_> {
    fn execute(&mut self, query: Boxed, op: &'static str) -> Result<usize, StoreError> {
        query.execute(self.conn).map_err(|e| query_error(op, e))
    }

    /// The group delete-insert of one collection for `flights`.
    fn replace_collection<T: TableRow>(
        &mut self,
        flights: &[&StoredFlight],
        (delete, delete_op): (&'static str, &'static str),
        (insert, insert_op): (&'static str, &'static str),
        rows_of: impl Fn(&FlightState) -> &[T],
    ) -> Result<(), StoreError> {
        let flids: Vec<i64> = flights.iter().map(|f| f.state.flid).collect();
        self.execute(statement(delete).bind::<Array<BigInt>, _>(flids), delete_op)?;
        let mut rows = KeyedRows::new();
        for flight in flights {
            rows.push(flight.state.flid, None, rows_of(&flight.state));
        }
        if !rows.items.is_empty() {
            self.execute(rows.bind(insert, false), insert_op)?;
        }
        Ok(())
    }

    /// ROUT and ERUT share `FLIGHT_ROUTE_POINT`, told apart by ROUTE_KIND.
    fn replace_route_points(&mut self, flights: &[&StoredFlight]) -> Result<(), StoreError> {
        let flids: Vec<i64> = flights.iter().map(|f| f.state.flid).collect();
        self.execute(
            statement(sql::DELETE_ROUTE_POINTS).bind::<Array<BigInt>, _>(flids),
            "delete_route_points",
        )?;
        let mut rows = KeyedRows::new();
        for flight in flights {
            rows.push(flight.state.flid, Some("ROUT"), &flight.state.route);
            rows.push(flight.state.flid, Some("ERUT"), &flight.state.entire_route);
        }
        if !rows.items.is_empty() {
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
    fn load_collection<T: diesel::deserialize::QueryableByName<Pg> + 'static>(
        &mut self,
        text: &'static str,
        op: &'static str,
        flids: &[i64],
        flights: &mut HashMap<i64, StoredFlight>,
        mut place: impl FnMut(&mut FlightState, Option<String>, T),
    ) -> Result<(), StoreError> {
        let rows: Vec<Keyed<T>> = statement(text)
            .bind::<Array<BigInt>, _>(flids.to_vec())
            .load(self.conn)
            .map_err(|e| query_error(op, e))?;
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
            .load(self.conn)
            .map_err(|e| query_error("select_flights", e))?;
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
    /// The set-based upsert of many flights' main rows.
    /// `digests[i]` is the `STATE_DIGEST` of `flights[i]`.
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
            .bind::<Array<Nullable<Text>>, _>(digests);
        self.execute(upsert, "upsert_flights").map(drop)
    }

    /// The group delete-insert of one detail table for `flights`.
    fn replace_table(
        &mut self,
        table: DetailTable,
        flights: &[&StoredFlight],
    ) -> Result<(), StoreError> {
        match table {
            DetailTable::Gate => self.replace_collection(
                flights,
                (sql::DELETE_GATES, "delete_gates"),
                (sql::INSERT_GATES, "insert_gates"),
                |s| &s.gates,
            ),
            DetailTable::Counter => self.replace_collection(
                flights,
                (sql::DELETE_COUNTERS, "delete_counters"),
                (sql::INSERT_COUNTERS, "insert_counters"),
                |s| &s.counters,
            ),
            DetailTable::Carousel => self.replace_collection(
                flights,
                (sql::DELETE_CAROUSELS, "delete_carousels"),
                (sql::INSERT_CAROUSELS, "insert_carousels"),
                |s| &s.carousels,
            ),
            DetailTable::Stand => self.replace_collection(
                flights,
                (sql::DELETE_STANDS, "delete_stands"),
                (sql::INSERT_STANDS, "insert_stands"),
                |s| &s.stands,
            ),
            DetailTable::Chute => self.replace_collection(
                flights,
                (sql::DELETE_CHUTES, "delete_chutes"),
                (sql::INSERT_CHUTES, "insert_chutes"),
                |s| &s.chutes,
            ),
            DetailTable::Delay => self.replace_collection(
                flights,
                (sql::DELETE_DELAYS, "delete_delays"),
                (sql::INSERT_DELAYS, "insert_delays"),
                |s| &s.delays,
            ),
            DetailTable::Bridge => self.replace_collection(
                flights,
                (sql::DELETE_BRIDGES, "delete_bridges"),
                (sql::INSERT_BRIDGES, "insert_bridges"),
                |s| &s.bridges,
            ),
            DetailTable::Chock => self.replace_collection(
                flights,
                (sql::DELETE_CHOCKS, "delete_chocks"),
                (sql::INSERT_CHOCKS, "insert_chocks"),
                |s| &s.chocks,
            ),
            DetailTable::RoutePoint => self.replace_route_points(flights),
        }
    }
}

impl PgTx<'_> {
    /// Main rows and every detail table of `flights`, with their digests.
    fn write_main_and_tables(
        &mut self,
        flights: &[StoredFlight],
        digests: Vec<Option<String>>,
    ) -> Result<(), StoreError> {
        let flights: Vec<&StoredFlight> = flights.iter().collect();
        self.upsert_main_rows(&flights, digests)?;
        for table in DetailTable::ALL {
            self.replace_table(table, &flights)?;
        }
        Ok(())
    }
}

fn query_error(op: &'static str, e: diesel::result::Error) -> StoreError {
    query(op, e)
}

impl StateTx for PgTx<'_> {
    fn lock_pipeline(&mut self) -> Result<PipelineLease, StoreError> {
        let row: LeaseRow = statement(sql::LOCK_PIPELINE)
            .get_result(self.conn)
            .map_err(|e| query_error("lock_pipeline", e))?;
        Ok(PipelineLease {
            holder: row.lease_holder,
            epoch: row.lease_epoch,
            expires_at: row.lease_expires_at,
        })
    }

    fn snapshot_ledger(&mut self, day: NaiveDate) -> Result<Option<SnapshotLedger>, StoreError> {
        let rows: Vec<LedgerRow> = statement(sql::SELECT_SNAPSHOT_LEDGER)
            .bind::<Date, _>(day)
            .load(self.conn)
            .map_err(|e| query_error("select_snapshot_ledger", e))?;
        Ok(rows.into_iter().next().map(|r| SnapshotLedger {
            version: r.version,
            last_message_id: r.last_message_id,
        }))
    }

    fn snapshot_list(&mut self, day: NaiveDate) -> Result<Vec<i64>, StoreError> {
        let rows: Vec<FlidRow> = statement(sql::SELECT_SNAPSHOT_LIST)
            .bind::<Date, _>(day)
            .load(self.conn)
            .map_err(|e| query_error("select_snapshot_list", e))?;
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
                .load(self.conn)
                .map_err(|e| query_error("select_flight_digests", e))?;
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
        let mut flights = HashMap::with_capacity(flids.len());
        for batch in flids.chunks(READ_BATCH) {
            self.load_batch(batch, &mut flights)?;
        }
        Ok(flights)
    }

    fn write_flights(&mut self, flights: &[StoredFlight]) -> Result<(), StoreError> {
        if flights.is_empty() {
            return Ok(());
        }
        let digests = flights.iter().map(|f| Some(f.state.digest())).collect();
        self.write_main_and_tables(flights, digests)
    }

    fn write_flights_digested(
        &mut self,
        flights: &[StoredFlight],
        digests: &[String],
    ) -> Result<(), StoreError> {
        if flights.is_empty() {
            return Ok(());
        }
        if digests.len() != flights.len() {
            return Err(StoreError::new(
                FailureKind::Other,
                "upsert_flights",
                format!("{} digests for {} flights", digests.len(), flights.len()),
            ));
        }
        let digests = digests.iter().cloned().map(Some).collect();
        self.write_main_and_tables(flights, digests)
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
                self.replace_table(table, &changed)?;
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
            .load(self.conn)
            .map_err(|e| query_error("delete_flights", e))?;
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
            .load(self.conn)
            .map_err(|e| query_error("delete_flights_of_day", e))?;
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
        message_id: i64,
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        let query = statement(sql::INSERT_STATE_EVENTS)
            .bind::<Array<BigInt>, _>(events.iter().map(|e| e.flid).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(events.iter().map(|e| e.state_version).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(events.iter().map(|e| e.kind.code()).collect::<Vec<_>>())
            .bind::<BigInt, _>(message_id)
            .bind::<Timestamp, _>(now);
        self.execute(query, "insert_state_events").map(drop)
    }

    fn append_change_notices(
        &mut self,
        notices: &[ChangeNotice],
        message_id: i64,
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
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
            .bind::<BigInt, _>(message_id)
            .bind::<Timestamp, _>(now);
        self.execute(query, "insert_change_notices").map(drop)
    }

    fn proc_state(&mut self, message_id: i64) -> Result<Option<ProcRecord>, StoreError> {
        let rows: Vec<ProcRow> = statement(sql::SELECT_PROC_STATE)
            .bind::<BigInt, _>(message_id)
            .load(self.conn)
            .map_err(|e| query_error("select_proc_state", e))?;
        rows.into_iter()
            .next()
            .map(|r| {
                let status = ProcStatus::from_code(&r.status).ok_or_else(|| {
                    StoreError::new(
                        FailureKind::Other,
                        "select_proc_state",
                        format!("unknown PROC_STATE.STATUS {:?}", r.status),
                    )
                })?;
                Ok(ProcRecord {
                    identity_key: r.identity_key,
                    status,
                    error_kind: r.error_kind,
                    error_text: r.error_text,
                    attempts: r.attempts,
                })
            })
            .transpose()
    }

    fn record_outcome(&mut self, outcome: &Outcome<'_>) -> Result<(), StoreError> {
        let query = statement(sql::RECORD_OUTCOME)
            .bind::<BigInt, _>(outcome.message_id)
            .bind::<Text, _>(outcome.identity_key.to_owned())
            .bind::<Text, _>(outcome.status.code())
            .bind::<Nullable<Text>, _>(outcome.error_kind.map(str::to_owned))
            .bind::<Nullable<Text>, _>(outcome.error_text.map(str::to_owned))
            .bind::<Nullable<Text>, _>(outcome.msg_type.map(str::to_owned))
            .bind::<Nullable<Text>, _>(outcome.msg_subtype.map(str::to_owned))
            .bind::<Nullable<Timestamp>, _>(outcome.next_attempt_at)
            .bind::<Timestamp, _>(outcome.now);
        self.execute(query, "record_outcome").map(drop)
    }
}
