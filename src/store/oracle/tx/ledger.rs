//! [`StateTx`] on Oracle: the ledger of a state transaction — `PIPELINE_LOCK`, the snapshot
//! ledger and list, outbox rows, processing outcomes, version floors — run here; flights are
//! read and written by the shared steps of [`flight_rows`] over `read` and `write`.

use std::collections::HashMap;

use chrono::{NaiveDate, NaiveDateTime};
use oracle::sql_type::{OracleType, Timestamp, ToSql};

use super::super::binds::{
    AsDate, AsTimestamp, ClobBind, LONG_TEXT_BIND, Text, clip, proc_status, read_time, run_batch,
};
use super::super::errors::{at, query};
use super::super::statements as sql;
use super::{OracleTx, distinct};
use crate::FailureKind;
use crate::state::{StateDocument, StoredFlight};
use crate::store::flight_rows;
use crate::store::{
    ChangeNotice, FlightDigest, FlightRows, FlightWrite, Outcome, PipelineLease, ProcRecord,
    SnapshotLedger, StateEvent, StateTx, StoreError,
};

/// How many message ids one read of `PROC_STATE` binds.
const READ_BATCH: usize = 5_000;

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
        flight_rows::read_flights(self, flids)
    }

    fn flight_digests(&mut self, flids: &[i64]) -> Result<HashMap<i64, FlightDigest>, StoreError> {
        flight_rows::read_digests(self, flids)
    }

    fn load_state_documents(
        &mut self,
        flids: &[i64],
    ) -> Result<HashMap<i64, StateDocument>, StoreError> {
        flight_rows::read_documents(self, flids)
    }

    fn write_flights(
        &mut self,
        flights: &[FlightWrite],
        rows: FlightRows,
    ) -> Result<(), StoreError> {
        flight_rows::write_flights(self, flights, rows)
    }

    fn delete_flights_of_day(
        &mut self,
        day: NaiveDate,
        new_list: &[i64],
    ) -> Result<Vec<(i64, i64)>, StoreError> {
        let op = "lock_flights_of_day";
        let list = self.id_list(new_list, op)?;
        let binds: [(&str, &dyn ToSql); 2] =
            [("operation_day", &AsDate::day(day)), ("new_list", &list)];
        self.delete_locked(sql::LOCK_FLIGHTS_OF_DAY, op, &binds)
    }

    fn delete_flights(&mut self, flids: &[i64]) -> Result<Vec<(i64, i64)>, StoreError> {
        if flids.is_empty() {
            return Ok(Vec::new());
        }
        let op = "lock_flights";
        let list = self.id_list(&distinct(flids), op)?;
        self.delete_locked(sql::LOCK_FLIGHTS, op, &[("flids", &list)])
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
        let op = "insert_change_notices";
        let payload = ClobBind::of(op, "payload")?;
        let longest = notices.iter().map(|n| n.payload.len()).max();
        run_batch(
            self.conn,
            sql::INSERT_CHANGE_NOTICES,
            op,
            &[
                ("flid", OracleType::Int64),
                ("change_kind", OracleType::Varchar2(32)),
                ("message_id", OracleType::Int64),
                ("created_at", OracleType::Timestamp(6)),
                (payload.name(), payload.batch_type(longest.unwrap_or(0))),
            ],
            notices.len(),
            |batch, row| {
                let notice = &notices[row];
                batch.set("flid", &notice.flid)?;
                batch.set("change_kind", &Text(Some(notice.change_kind)))?;
                batch.set("message_id", &notice.message_id)?;
                batch.set("created_at", &created_at)?;
                batch.set(payload.name(), &payload.value(&notice.payload))
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
                let status = proc_status(&row, op)?;
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
                ("error_text", LONG_TEXT_BIND),
                ("msg_type", OracleType::Varchar2(16)),
                ("msg_subtype", OracleType::Varchar2(16)),
                ("next_attempt_at", OracleType::Timestamp(6)),
                ("now", OracleType::Timestamp(6)),
                ("received_at", OracleType::Timestamp(6)),
            ],
            outcomes.len(),
            |batch, row| {
                let outcome = &outcomes[row];
                let error_text = outcome.error_text.map(|t| clip(t, 2000));
                batch.set("message_id", &outcome.message_id)?;
                batch.set("identity_key", &Text(Some(outcome.identity_key)))?;
                batch.set("status", &Text(Some(outcome.status.code())))?;
                batch.set("error_kind", &Text(outcome.error_kind))?;
                batch.set("error_text", &Text(error_text))?;
                batch.set("msg_type", &Text(outcome.msg_type))?;
                batch.set("msg_subtype", &Text(outcome.msg_subtype))?;
                batch.set("next_attempt_at", &AsTimestamp(outcome.next_attempt_at))?;
                batch.set("now", &AsTimestamp(Some(outcome.now)))?;
                batch.set("received_at", &AsTimestamp(outcome.received_at))
            },
        )
    }

    fn upsert_version_floors(
        &mut self,
        floors: &[(i64, i64)],
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        let now = AsTimestamp(Some(now));
        run_batch(
            self.conn,
            sql::UPSERT_VERSION_FLOORS,
            "upsert_version_floors",
            &[
                ("flid", OracleType::Int64),
                ("state_version", OracleType::Int64),
                ("deleted_at", OracleType::Timestamp(6)),
            ],
            floors.len(),
            |batch, row| {
                let (flid, version) = floors[row];
                batch.set("flid", &flid)?;
                batch.set("state_version", &version)?;
                batch.set("deleted_at", &now)
            },
        )
    }

    fn select_version_floors(&mut self, flids: &[i64]) -> Result<HashMap<i64, i64>, StoreError> {
        let op = "select_version_floors";
        if flids.is_empty() {
            return Ok(HashMap::new());
        }
        let list = self.id_list(&distinct(flids), op)?;
        let rows = self
            .conn
            .query_as_named::<(i64, i64)>(sql::SELECT_VERSION_FLOORS, &[("flids", &list)])
            .map_err(at(op))?;
        rows.map(|r| r.map_err(at(op))).collect()
    }
}
