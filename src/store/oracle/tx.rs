//! `OracleTx`: the repository operations inside one Oracle transaction. Every statement comes
//! from `statements`; every value is a typed named bind.
//!
//! Set-based, as on PostgreSQL, within what 11g offers: writes of many rows are array DML
//! (the batch API, one row per batch entry, [`WRITE_BATCH`](super::binds::WRITE_BATCH) rows
//! per round trip); reads and deletes over many FLIDs bind them as one
//! `FLIGHTSTATE_ID_LIST` collection.

use std::collections::{HashMap, HashSet};

use chrono::{NaiveDate, NaiveDateTime};
use oracle::sql_type::{OracleType, Timestamp};
use oracle::{Connection, Row};

use super::binds::{
    AsDate, AsTimestamp, Clob, Text, batch_type, kind_of, read_time, required_time, run_batch,
    set_cell,
};
use super::errors::{at, query};
use super::statements as sql;
use crate::FailureKind;
use crate::state::{FlightFields, FlightState, StoredFlight, TableRow, flight_tables};
use crate::store::{
    ChangeNotice, DetailTable, FlightChange, FlightDigest, Outcome, PipelineLease, ProcRecord,
    ProcStatus, SnapshotLedger, StateEvent, StateTx, StoreError,
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

/// A collection's rows across many flights, with their keys, ready to bind.
struct KeyedRows<'s, T> {
    flids: Vec<i64>,
    route_kinds: Vec<Option<&'static str>>,
    ordinals: Vec<i32>,
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
    fn push(&mut self, flid: i64, route_kind: Option<&'static str>, rows: &'s [T]) {
        for (position, item) in rows.iter().enumerate() {
            self.flids.push(flid);
            self.route_kinds.push(route_kind);
            // A flight has far fewer than 2^31 rows of one kind.
            self.ordinals
                .push(i32::try_from(position + 1).unwrap_or(i32::MAX));
            self.items.push(item);
        }
    }

    /// Runs the insert as array DML: key binds, then the row's own columns.
    fn insert(
        self,
        conn: &Connection,
        insert: &'static str,
        op: &'static str,
        with_route_kind: bool,
    ) -> Result<(), StoreError> {
        let columns = T::columns(self.items.iter().copied());
        let mut types = vec![("flid", OracleType::Int64), ("ordinal", OracleType::Int64)];
        if with_route_kind {
            types.push(("route_kind", OracleType::Varchar2(4)));
        }
        types.extend(
            T::COLUMNS
                .iter()
                .map(|(name, kind)| (*name, batch_type(*kind))),
        );
        run_batch(conn, insert, op, &types, self.items.len(), |batch, row| {
            batch.set("flid", &self.flids[row])?;
            batch.set("ordinal", &self.ordinals[row])?;
            if with_route_kind {
                batch.set("route_kind", &Text(self.route_kinds[row]))?;
            }
            for ((name, _), values) in T::COLUMNS.iter().zip(&columns) {
                set_cell(batch, name, values, row)?;
            }
            Ok(())
        })
    }
}

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

/// Reads `FLID, STATE_VERSION` pairs returned by a `DELETE … RETURNING … INTO`.
fn deleted_pairs(
    conn: &Connection,
    text: &'static str,
    op: &'static str,
    binds: &[(&str, &dyn oracle::sql_type::ToSql)],
) -> Result<Vec<(i64, i64)>, StoreError> {
    let out = OracleType::Number(19, 0);
    let mut all: Vec<(&str, &dyn oracle::sql_type::ToSql)> = binds.to_vec();
    all.push(("deleted_flid", &out));
    all.push(("deleted_version", &out));
    let mut stmt = conn.statement(text).build().map_err(at(op))?;
    stmt.execute_named(&all).map_err(at(op))?;
    let flids: Vec<i64> = stmt.returned_values("deleted_flid").map_err(at(op))?;
    let versions: Vec<i64> = stmt.returned_values("deleted_version").map_err(at(op))?;
    let mut pairs: Vec<(i64, i64)> = flids.into_iter().zip(versions).collect();
    // PostgreSQL returns them in no promised order either; sorted, callers and tests agree.
    pairs.sort_unstable();
    Ok(pairs)
}

const DETAIL_DELETES: [(&str, &str); 9] = [
    (sql::DELETE_GATES, "delete_gates"),
    (sql::DELETE_COUNTERS, "delete_counters"),
    (sql::DELETE_CAROUSELS, "delete_carousels"),
    (sql::DELETE_STANDS, "delete_stands"),
    (sql::DELETE_CHUTES, "delete_chutes"),
    (sql::DELETE_DELAYS, "delete_delays"),
    (sql::DELETE_BRIDGES, "delete_bridges"),
    (sql::DELETE_CHOCKS, "delete_chocks"),
    (sql::DELETE_ROUTE_POINTS, "delete_route_points"),
];

impl OracleTx<'_> {
    /// The group delete-insert of one collection for `flights`.
    fn replace_collection<T: TableRow>(
        &mut self,
        flights: &[&StoredFlight],
        (delete, delete_op): (&'static str, &'static str),
        (insert, insert_op): (&'static str, &'static str),
        rows_of: impl Fn(&FlightState) -> &[T],
    ) -> Result<(), StoreError> {
        let flids: Vec<i64> = flights.iter().map(|f| f.state.flid).collect();
        delete_by_flid(self.conn, delete, delete_op, &flids)?;
        let mut rows = KeyedRows::new();
        for flight in flights {
            rows.push(flight.state.flid, None, rows_of(&flight.state));
        }
        rows.insert(self.conn, insert, insert_op, false)
    }

    /// ROUT and ERUT share `FLIGHT_ROUTE_POINT`, told apart by ROUTE_KIND.
    fn replace_route_points(&mut self, flights: &[&StoredFlight]) -> Result<(), StoreError> {
        let flids: Vec<i64> = flights.iter().map(|f| f.state.flid).collect();
        delete_by_flid(
            self.conn,
            sql::DELETE_ROUTE_POINTS,
            "delete_route_points",
            &flids,
        )?;
        let mut rows = KeyedRows::new();
        for flight in flights {
            rows.push(flight.state.flid, Some("ROUT"), &flight.state.route);
            rows.push(flight.state.flid, Some("ERUT"), &flight.state.entire_route);
        }
        rows.insert(
            self.conn,
            sql::INSERT_ROUTE_POINTS,
            "insert_route_points",
            true,
        )
    }

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

    /// The main rows of many flights: MERGE as array DML.
    /// `digests[i]` is the `STATE_DIGEST` of `flights[i]`.
    fn upsert_main_rows(
        &mut self,
        flights: &[&StoredFlight],
        digests: &[String],
    ) -> Result<(), StoreError> {
        if digests.len() != flights.len() {
            return Err(StoreError::new(
                FailureKind::Other,
                "upsert_flights",
                format!("{} digests for {} flights", digests.len(), flights.len()),
            ));
        }
        let columns = FlightFields::columns(flights.iter().map(|f| &f.state.fields));
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
        debug_assert!(
            columns
                .iter()
                .zip(FlightFields::COLUMNS)
                .all(|(v, (_, k))| kind_of(v) == *k)
        );
        run_batch(
            self.conn,
            sql::UPSERT_FLIGHTS,
            "upsert_flights",
            &types,
            flights.len(),
            |batch, row| {
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
                batch.set("state_digest", &Text(Some(digests[row].as_str())))
            },
        )
    }

    /// Reads one collection of `flids` into the loaded flights.
    fn load_collection<T: FromOracleRow>(
        &mut self,
        text: &'static str,
        op: &'static str,
        flids: &[i64],
        flights: &mut HashMap<i64, StoredFlight>,
        mut place: impl FnMut(&mut FlightState, Option<String>, T),
    ) -> Result<(), StoreError> {
        let list = self.id_list(flids, op)?;
        let rows = self
            .conn
            .query_named(text, &[("flids", &list)])
            .map_err(at(op))?;
        for row in rows {
            let row = row.map_err(at(op))?;
            let flid: i64 = row.get("flid").map_err(at(op))?;
            let route_kind: Option<String> = if op == "select_route_points" {
                row.get("route_kind").map_err(at(op))?
            } else {
                None
            };
            let item = T::from_row(&row).map_err(at(op))?;
            if let Some(flight) = flights.get_mut(&flid) {
                place(&mut flight.state, route_kind, item);
            }
        }
        Ok(())
    }

    fn load_batch(
        &mut self,
        flids: &[i64],
        flights: &mut HashMap<i64, StoredFlight>,
    ) -> Result<(), StoreError> {
        let op = "select_flights";
        let list = self.id_list(flids, op)?;
        let rows = self
            .conn
            .query_named(sql::SELECT_FLIGHTS, &[("flids", &list)])
            .map_err(at(op))?;
        let mut found = Vec::new();
        for row in rows {
            let row = row.map_err(at(op))?;
            let flid: i64 = row.get("flid").map_err(at(op))?;
            let fields = FlightFields::from_row(&row).map_err(at(op))?;
            let day: Option<Timestamp> = row.get("operation_day").map_err(at(op))?;
            let updated: Timestamp = row.get("updated_at").map_err(at(op))?;
            let stored = StoredFlight {
                state: FlightState {
                    fields,
                    ..FlightState::new(flid)
                },
                operation_day: read_time(day).map(|t| t.date()),
                state_version: row.get("state_version").map_err(at(op))?,
                last_message_id: row.get("last_message_id").map_err(at(op))?,
                updated_at: required_time(updated, op)?,
            };
            found.push(flid);
            flights.insert(flid, stored);
        }
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

    /// Deletes every collection row of `flids`.
    fn delete_collections(&mut self, flids: &[i64]) -> Result<(), StoreError> {
        for (text, op) in DETAIL_DELETES {
            delete_by_flid(self.conn, text, op, flids)?;
        }
        Ok(())
    }
}

impl StateTx for OracleTx<'_> {
    fn lock_pipeline(&mut self) -> Result<PipelineLease, StoreError> {
        let op = "lock_pipeline";
        let row = self
            .conn
            .query_row_named(sql::LOCK_PIPELINE, &[])
            .map_err(at(op))?;
        let expires: Option<Timestamp> = row.get("lease_expires_at").map_err(at(op))?;
        Ok(PipelineLease {
            holder: row.get("lease_holder").map_err(at(op))?,
            epoch: row.get("lease_epoch").map_err(at(op))?,
            expires_at: read_time(expires),
        })
    }

    fn snapshot_ledger(&mut self, day: NaiveDate) -> Result<Option<SnapshotLedger>, StoreError> {
        let op = "select_snapshot_ledger";
        let mut rows = self
            .conn
            .query_named(
                sql::SELECT_SNAPSHOT_LEDGER,
                &[("operation_day", &AsDate::day(day))],
            )
            .map_err(at(op))?;
        let Some(row) = rows.next() else {
            return Ok(None);
        };
        let row = row.map_err(at(op))?;
        Ok(Some(SnapshotLedger {
            version: row.get("version").map_err(at(op))?,
            last_message_id: row.get("last_message_id").map_err(at(op))?,
        }))
    }

    fn snapshot_list(&mut self, day: NaiveDate) -> Result<Vec<i64>, StoreError> {
        let op = "select_snapshot_list";
        let rows = self
            .conn
            .query_as_named::<i64>(
                sql::SELECT_SNAPSHOT_LIST,
                &[("operation_day", &AsDate::day(day))],
            )
            .map_err(at(op))?;
        rows.map(|r| r.map_err(at(op))).collect()
    }

    fn replace_snapshot_list(&mut self, day: NaiveDate, flids: &[i64]) -> Result<(), StoreError> {
        self.conn
            .execute_named(
                sql::DELETE_SNAPSHOT_LIST,
                &[("operation_day", &AsDate::day(day))],
            )
            .map_err(at("delete_snapshot_list"))?;
        let day = AsDate::day(day);
        run_batch(
            self.conn,
            sql::INSERT_SNAPSHOT_LIST,
            "insert_snapshot_list",
            &[
                ("operation_day", OracleType::Date),
                ("flid", OracleType::Int64),
            ],
            flids.len(),
            |batch, row| {
                batch.set("operation_day", &day)?;
                batch.set("flid", &flids[row])
            },
        )
    }

    fn bump_snapshot_version(
        &mut self,
        day: NaiveDate,
        expected: Option<i64>,
        message_id: i64,
        now: NaiveDateTime,
    ) -> Result<i64, StoreError> {
        let updated_at = AsDate(Some(now));
        let operation_day = AsDate::day(day);
        let (result, op, version) = match expected {
            None => (
                self.conn.execute_named(
                    sql::INSERT_SNAPSHOT_LEDGER,
                    &[
                        ("operation_day", &operation_day),
                        ("last_message_id", &message_id),
                        ("updated_at", &updated_at),
                    ],
                ),
                "insert_snapshot_ledger",
                1,
            ),
            Some(expected) => (
                self.conn.execute_named(
                    sql::BUMP_SNAPSHOT_VERSION,
                    &[
                        ("operation_day", &operation_day),
                        ("expected", &expected),
                        ("last_message_id", &message_id),
                        ("updated_at", &updated_at),
                    ],
                ),
                "bump_snapshot_version",
                expected + 1,
            ),
        };
        let conflict = || {
            StoreError::new(
                FailureKind::Conflict,
                op,
                format!("the snapshot ledger of {day} moved past version {expected:?}"),
            )
        };
        let rows = match result {
            Ok(stmt) => stmt.row_count().map_err(at(op))?,
            Err(e) => {
                let err = query(op, e);
                // A concurrent first snapshot of the day committed its row first.
                return Err(if err.kind() == FailureKind::Duplicate {
                    conflict()
                } else {
                    err
                });
            }
        };
        if rows == 1 {
            Ok(version)
        } else {
            Err(conflict())
        }
    }

    fn load_flights(&mut self, flids: &[i64]) -> Result<HashMap<i64, StoredFlight>, StoreError> {
        let flids = distinct(flids);
        let mut flights = HashMap::with_capacity(flids.len());
        for batch in flids.chunks(READ_BATCH) {
            self.load_batch(batch, &mut flights)?;
        }
        Ok(flights)
    }

    fn flight_digests(&mut self, flids: &[i64]) -> Result<HashMap<i64, FlightDigest>, StoreError> {
        let op = "select_flight_digests";
        let flids = distinct(flids);
        let mut digests = HashMap::with_capacity(flids.len());
        for batch in flids.chunks(READ_BATCH) {
            let list = self.id_list(batch, op)?;
            let rows = self
                .conn
                .query_named(sql::SELECT_FLIGHT_DIGESTS, &[("flids", &list)])
                .map_err(at(op))?;
            for row in rows {
                let row = row.map_err(at(op))?;
                let flid: i64 = row.get("flid").map_err(at(op))?;
                let day: Option<Timestamp> = row.get("operation_day").map_err(at(op))?;
                let digest = FlightDigest {
                    digest: row.get("state_digest").map_err(at(op))?,
                    operation_day: read_time(day).map(|t| t.date()),
                    state_version: row.get("state_version").map_err(at(op))?,
                };
                digests.insert(flid, digest);
            }
        }
        Ok(digests)
    }

    fn write_flights(&mut self, flights: &[StoredFlight]) -> Result<(), StoreError> {
        let digests: Vec<String> = flights.iter().map(|f| f.state.digest()).collect();
        self.write_flights_digested(flights, &digests)
    }

    fn write_flights_digested(
        &mut self,
        flights: &[StoredFlight],
        digests: &[String],
    ) -> Result<(), StoreError> {
        if flights.is_empty() {
            return Ok(());
        }
        let flights: Vec<&StoredFlight> = flights.iter().collect();
        self.upsert_main_rows(&flights, digests)?;
        for table in DetailTable::ALL {
            self.replace_table(table, &flights)?;
        }
        Ok(())
    }

    fn write_flight_changes(&mut self, changes: &[FlightChange]) -> Result<(), StoreError> {
        if changes.is_empty() {
            return Ok(());
        }
        let flights: Vec<&StoredFlight> = changes.iter().map(|c| &c.flight).collect();
        let digests: Vec<String> = flights.iter().map(|f| f.state.digest()).collect();
        self.upsert_main_rows(&flights, &digests)?;
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
        let op = "delete_flights";
        let list = self.id_list(&distinct(flids), op)?;
        let deleted = deleted_pairs(self.conn, sql::DELETE_FLIGHTS, op, &[("flids", &list)])?;
        let found: Vec<i64> = deleted.iter().map(|d| d.0).collect();
        self.delete_collections(&found)?;
        Ok(deleted)
    }

    fn delete_flights_of_day(
        &mut self,
        day: NaiveDate,
        new_list: &[i64],
    ) -> Result<Vec<(i64, i64)>, StoreError> {
        let op = "delete_flights_of_day";
        let list = self.id_list(new_list, op)?;
        let deleted = deleted_pairs(
            self.conn,
            sql::DELETE_FLIGHTS_OF_DAY,
            op,
            &[("operation_day", &AsDate::day(day)), ("new_list", &list)],
        )?;
        let found: Vec<i64> = deleted.iter().map(|d| d.0).collect();
        self.delete_collections(&found)?;
        Ok(deleted)
    }

    fn append_state_events(
        &mut self,
        events: &[StateEvent],
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        let created_at = AsTimestamp(Some(now));
        run_batch(
            self.conn,
            sql::INSERT_STATE_EVENTS,
            "insert_state_events",
            &[
                ("flid", OracleType::Int64),
                ("state_version", OracleType::Int64),
                ("event_kind", OracleType::Varchar2(16)),
                ("message_id", OracleType::Int64),
                ("created_at", OracleType::Timestamp(6)),
            ],
            events.len(),
            |batch, row| {
                let event = &events[row];
                batch.set("flid", &event.flid)?;
                batch.set("state_version", &event.state_version)?;
                batch.set("event_kind", &Text(Some(event.kind.code())))?;
                batch.set("message_id", &event.message_id)?;
                batch.set("created_at", &created_at)
            },
        )
    }

    fn append_change_notices(
        &mut self,
        notices: &[ChangeNotice],
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        crate::store::nonempty::refuse_empty_notices(notices)?;
        let created_at = AsTimestamp(Some(now));
        run_batch(
            self.conn,
            sql::INSERT_CHANGE_NOTICES,
            "insert_change_notices",
            &[
                ("flid", OracleType::Int64),
                ("change_kind", OracleType::Varchar2(32)),
                ("message_id", OracleType::Int64),
                ("created_at", OracleType::Timestamp(6)),
                ("payload", OracleType::CLOB),
            ],
            notices.len(),
            |batch, row| {
                let notice = &notices[row];
                batch.set("flid", &notice.flid)?;
                batch.set("change_kind", &Text(Some(notice.change_kind)))?;
                batch.set("message_id", &notice.message_id)?;
                batch.set("created_at", &created_at)?;
                batch.set("payload", &Clob(&notice.payload))
            },
        )
    }

    fn proc_states(&mut self, message_ids: &[i64]) -> Result<HashMap<i64, ProcRecord>, StoreError> {
        let op = "select_proc_states";
        let ids = distinct(message_ids);
        let mut records = HashMap::with_capacity(ids.len());
        for batch in ids.chunks(READ_BATCH) {
            let list = self.id_list(batch, op)?;
            let rows = self
                .conn
                .query_named(sql::SELECT_PROC_STATES, &[("ids", &list)])
                .map_err(at(op))?;
            for row in rows {
                let row = row.map_err(at(op))?;
                let status: String = row.get("status").map_err(at(op))?;
                let status = ProcStatus::from_code(&status).ok_or_else(|| {
                    StoreError::new(
                        FailureKind::Other,
                        op,
                        format!("unknown PROC_STATE.STATUS {status:?}"),
                    )
                })?;
                let message_id: i64 = row.get("message_id").map_err(at(op))?;
                let record = ProcRecord {
                    identity_key: row.get("identity_key").map_err(at(op))?,
                    status,
                    error_kind: row.get("error_kind").map_err(at(op))?,
                    error_text: row.get("error_text").map_err(at(op))?,
                    attempts: row.get("attempts").map_err(at(op))?,
                };
                records.insert(message_id, record);
            }
        }
        Ok(records)
    }

    fn record_outcomes(&mut self, outcomes: &[Outcome<'_>]) -> Result<(), StoreError> {
        run_batch(
            self.conn,
            sql::RECORD_OUTCOMES,
            "record_outcomes",
            &[
                ("message_id", OracleType::Int64),
                ("identity_key", OracleType::Varchar2(80)),
                ("status", OracleType::Varchar2(16)),
                ("error_kind", OracleType::Varchar2(32)),
                ("error_text", super::binds::LONG_TEXT_BIND),
                ("msg_type", OracleType::Varchar2(16)),
                ("msg_subtype", OracleType::Varchar2(16)),
                ("next_attempt_at", OracleType::Timestamp(6)),
                ("now", OracleType::Timestamp(6)),
            ],
            outcomes.len(),
            |batch, row| {
                let outcome = &outcomes[row];
                let error_text = outcome.error_text.map(|t| super::binds::clip(t, 2000));
                batch.set("message_id", &outcome.message_id)?;
                batch.set("identity_key", &Text(Some(outcome.identity_key)))?;
                batch.set("status", &Text(Some(outcome.status.code())))?;
                batch.set("error_kind", &Text(outcome.error_kind))?;
                batch.set("error_text", &Text(error_text))?;
                batch.set("msg_type", &Text(outcome.msg_type))?;
                batch.set("msg_subtype", &Text(outcome.msg_subtype))?;
                batch.set("next_attempt_at", &AsTimestamp(outcome.next_attempt_at))?;
                batch.set("now", &AsTimestamp(Some(outcome.now)))
            },
        )
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
