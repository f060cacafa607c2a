//! [`CleanupOps`] on PostgreSQL: the lifecycle clean-up's selects and
//! purges.

use chrono::{NaiveDate, NaiveDateTime};
use diesel::sql_types::{Array, BigInt, Date, Integer, Nullable, Text, Timestamp};
use diesel::{QueryableByName, RunQueryDsl, sql_query};

use super::errors::query;
use super::prepared::Prepare;
use super::statements as sql;
use super::tx::PgTx;
use crate::store::{
    CallStatus, CleanupOps, ProcStatus, RequestStatus, RetiredFlight, StaleFlight, StoreError,
};

#[derive(QueryableByName)]
struct FlightRow {
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = BigInt)]
    last_message_id: i64,
}

#[derive(QueryableByName)]
struct RetiredRow {
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = Date)]
    operation_day: NaiveDate,
    #[diesel(sql_type = BigInt)]
    last_message_id: i64,
}

#[derive(QueryableByName)]
struct DayRow {
    #[diesel(sql_type = Date)]
    operation_day: NaiveDate,
}

#[derive(QueryableByName)]
struct MessageRow {
    #[diesel(sql_type = BigInt)]
    message_id: i64,
}

#[derive(QueryableByName)]
struct CallRow {
    #[diesel(sql_type = BigInt)]
    call_id: i64,
}

impl CleanupOps for PgTx<'_> {
    fn select_stale_flights(
        &mut self,
        cutoff: NaiveDateTime,
        day_boundary_minutes: i32,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StaleFlight>, StoreError> {
        let rows: Vec<FlightRow> = sql_query(sql::SELECT_STALE_FLIGHTS)
            .bind::<Timestamp, _>(cutoff)
            .bind::<BigInt, _>(after)
            .bind::<Text, _>(RequestStatus::Pending.code())
            .bind::<Integer, _>(day_boundary_minutes)
            .bind::<BigInt, _>(limit)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_stale_flights", e))?;
        Ok(rows
            .into_iter()
            .map(|r| StaleFlight {
                flid: r.flid,
                last_message_id: r.last_message_id,
            })
            .collect())
    }

    fn select_retired_flights(
        &mut self,
        first_kept: NaiveDate,
        after: i64,
        limit: i64,
    ) -> Result<Vec<RetiredFlight>, StoreError> {
        let rows: Vec<RetiredRow> = sql_query(sql::SELECT_RETIRED_FLIGHTS)
            .bind::<Date, _>(first_kept)
            .bind::<BigInt, _>(after)
            .bind::<BigInt, _>(limit)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_retired_flights", e))?;
        Ok(rows
            .into_iter()
            .map(|r| RetiredFlight {
                flid: r.flid,
                operation_day: r.operation_day,
                last_message_id: r.last_message_id,
            })
            .collect())
    }

    fn select_retired_days(&mut self, first_kept: NaiveDate) -> Result<Vec<NaiveDate>, StoreError> {
        let rows: Vec<DayRow> = sql_query(sql::SELECT_RETIRED_DAYS)
            .bind::<Date, _>(first_kept)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_retired_days", e))?;
        Ok(rows.into_iter().map(|r| r.operation_day).collect())
    }

    fn select_stale_snapshot_days(
        &mut self,
        cutoff: NaiveDate,
        after: Option<NaiveDate>,
        limit: i64,
    ) -> Result<Vec<NaiveDate>, StoreError> {
        let rows: Vec<DayRow> = sql_query(sql::SELECT_STALE_SNAPSHOT_DAYS)
            .bind::<Date, _>(cutoff)
            .bind::<Nullable<Date>, _>(after)
            .bind::<BigInt, _>(limit)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_stale_snapshot_days", e))?;
        Ok(rows.into_iter().map(|r| r.operation_day).collect())
    }

    fn delete_snapshot_ledger(
        &mut self,
        day: NaiveDate,
        cutoff: NaiveDate,
    ) -> Result<bool, StoreError> {
        let deleted = sql_query(sql::DELETE_SNAPSHOT_LEDGER)
            .bind::<Date, _>(day)
            .bind::<Date, _>(cutoff)
            .prepared()
            .execute(self.conn())
            .map_err(|e| query("delete_snapshot_ledger", e))?;
        Ok(deleted == 1)
    }

    fn select_stale_proc_states(
        &mut self,
        cutoff: NaiveDateTime,
        (target_prefix, calls_cutoff): (&str, NaiveDateTime),
        after: i64,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError> {
        let rows: Vec<MessageRow> = sql_query(sql::SELECT_STALE_PROC_STATES)
            .bind::<Text, _>(ProcStatus::Succeeded.code())
            .bind::<Timestamp, _>(cutoff)
            .bind::<BigInt, _>(after)
            .bind::<Text, _>(target_prefix)
            .bind::<Text, _>(CallStatus::Accepted.code())
            .bind::<Text, _>(CallStatus::Rejected.code())
            .bind::<Text, _>(CallStatus::Conflict.code())
            .bind::<Timestamp, _>(calls_cutoff)
            .bind::<BigInt, _>(limit)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_stale_proc_states", e))?;
        Ok(rows.into_iter().map(|r| r.message_id).collect())
    }

    fn delete_proc_states(&mut self, message_ids: &[i64]) -> Result<usize, StoreError> {
        if message_ids.is_empty() {
            return Ok(0);
        }
        sql_query(sql::DELETE_PROC_STATES)
            .bind::<Array<BigInt>, _>(message_ids.to_vec())
            .bind::<Text, _>(ProcStatus::Succeeded.code())
            .prepared()
            .execute(self.conn())
            .map_err(|e| query("delete_proc_states", e))
    }

    fn select_settled_effect_calls(
        &mut self,
        cutoff: NaiveDateTime,
        after: i64,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError> {
        let rows: Vec<CallRow> = sql_query(sql::SELECT_SETTLED_EFFECT_CALLS)
            .bind::<Text, _>(CallStatus::Accepted.code())
            .bind::<Text, _>(CallStatus::Rejected.code())
            .bind::<Text, _>(CallStatus::Conflict.code())
            .bind::<Timestamp, _>(cutoff)
            .bind::<BigInt, _>(after)
            .bind::<BigInt, _>(limit)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_settled_effect_calls", e))?;
        Ok(rows.into_iter().map(|r| r.call_id).collect())
    }

    fn delete_effect_calls(&mut self, call_ids: &[i64]) -> Result<usize, StoreError> {
        if call_ids.is_empty() {
            return Ok(0);
        }
        sql_query(sql::DELETE_EFFECT_CALLS)
            .bind::<Array<BigInt>, _>(call_ids.to_vec())
            .bind::<Text, _>(CallStatus::Accepted.code())
            .bind::<Text, _>(CallStatus::Rejected.code())
            .bind::<Text, _>(CallStatus::Conflict.code())
            .prepared()
            .execute(self.conn())
            .map_err(|e| query("delete_effect_calls", e))
    }
}
