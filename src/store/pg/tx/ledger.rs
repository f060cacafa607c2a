//! [`StateTx`] on PostgreSQL: the ledger of a state transaction —
//! `PIPELINE_LOCK`, the snapshot ledger and list, outbox rows, processing
//! outcomes, version floors — run here; flights are read and written by the
//! shared steps of [`flight_rows`] over `read` and `write`.

use std::collections::HashMap;

use chrono::{NaiveDate, NaiveDateTime};
use diesel::sql_types::{Array, BigInt, Date, Nullable, Text, Timestamp};
use diesel::{QueryableByName, RunQueryDsl};

use super::super::errors;
use super::super::prepared::Prepare;
use super::super::rows::{FlidRow, LeaseRow, LedgerRow, ProcRow, proc_status};
use super::super::statements as sql;
use super::{PgTx, statement};
use crate::FailureKind;
use crate::state::{StateDocument, StoredFlight};
use crate::store::flight_rows;
use crate::store::{
    ChangeNotice, FlightDigest, FlightRows, FlightWrite, Outcome, PipelineLease, ProcRecord,
    SnapshotLedger, StateEvent, StateTx, StoreError,
};

#[derive(QueryableByName)]
struct FloorRow {
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = BigInt)]
    state_version: i64,
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
        let query = statement(sql::DELETE_FLIGHTS_OF_DAY)
            .bind::<Date, _>(day)
            .bind::<Array<BigInt>, _>(new_list.to_vec());
        self.delete_returning(query, "delete_flights_of_day")
    }

    fn delete_flights(&mut self, flids: &[i64]) -> Result<Vec<(i64, i64)>, StoreError> {
        if flids.is_empty() {
            return Ok(Vec::new());
        }
        let query = statement(sql::DELETE_FLIGHTS).bind::<Array<BigInt>, _>(flids.to_vec());
        self.delete_returning(query, "delete_flights")
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
                let status = proc_status(&r.status, op)?;
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
            .bind::<Array<Timestamp>, _>(outcomes.iter().map(|o| o.now).collect::<Vec<_>>())
            .bind::<Array<Nullable<Timestamp>>, _>(
                outcomes.iter().map(|o| o.received_at).collect::<Vec<_>>(),
            );
        self.execute(query, "record_outcomes").map(drop)
    }

    fn upsert_version_floors(
        &mut self,
        floors: &[(i64, i64)],
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        if floors.is_empty() {
            return Ok(());
        }
        let query = statement(sql::UPSERT_VERSION_FLOORS)
            .bind::<Array<BigInt>, _>(floors.iter().map(|f| f.0).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(floors.iter().map(|f| f.1).collect::<Vec<_>>())
            .bind::<Timestamp, _>(now);
        self.execute(query, "upsert_version_floors").map(drop)
    }

    fn select_version_floors(&mut self, flids: &[i64]) -> Result<HashMap<i64, i64>, StoreError> {
        if flids.is_empty() {
            return Ok(HashMap::new());
        }
        let rows: Vec<FloorRow> = statement(sql::SELECT_VERSION_FLOORS)
            .bind::<Array<BigInt>, _>(flids.to_vec())
            .prepared()
            .load(self.conn)
            .map_err(|e| errors::query("select_version_floors", e))?;
        Ok(rows
            .into_iter()
            .map(|r| (r.flid, r.state_version))
            .collect())
    }
}
