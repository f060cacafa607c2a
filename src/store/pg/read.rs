//! [`ReadOps`] on PostgreSQL: the read-only snapshot, FLID pages and the
//! pipeline's own facts. Every statement comes from `statements`; every
//! value is bound.

use chrono::{NaiveDate, NaiveDateTime};
use diesel::sql_types::{BigInt, Date, Integer, Nullable, Text, Timestamp};
use diesel::{QueryableByName, RunQueryDsl, sql_query};

use super::errors::query;
use super::prepared::Prepare;
use super::rows::{FlidRow, LeaseRow, proc_status};
use super::statements as sql;
use super::tx::PgTx;
#[derive(QueryableByName)]
struct HeldRow {
    #[diesel(sql_type = Nullable<Date>)]
    first_day: Option<NaiveDate>,
    #[diesel(sql_type = Nullable<Date>)]
    last_day: Option<NaiveDate>,
    #[diesel(sql_type = BigInt)]
    without_day: i64,
}

use crate::store::{
    HeldDays, OutboxBacklog, PipelineLease, ProcCount, ProcEntry, ProcStatus, ReadOps, SnapshotDay,
    StoreError, Watermark, lowest,
};

#[derive(QueryableByName)]
struct CountRow {
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Nullable<Text>)]
    error_kind: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    msg_type: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    msg_subtype: Option<String>,
    #[diesel(sql_type = BigInt)]
    messages: i64,
}

#[derive(QueryableByName)]
struct EntryRow {
    #[diesel(sql_type = BigInt)]
    message_id: i64,
    #[diesel(sql_type = Nullable<Text>)]
    error_kind: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    error_text: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    msg_type: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    msg_subtype: Option<String>,
    #[diesel(sql_type = Integer)]
    attempts: i32,
    #[diesel(sql_type = Timestamp)]
    updated_at: NaiveDateTime,
}

#[derive(QueryableByName)]
struct BacklogRow {
    #[diesel(sql_type = BigInt)]
    state_events: i64,
    #[diesel(sql_type = Nullable<Timestamp>)]
    state_oldest: Option<NaiveDateTime>,
    #[diesel(sql_type = BigInt)]
    change_notices: i64,
    #[diesel(sql_type = Nullable<Timestamp>)]
    change_oldest: Option<NaiveDateTime>,
}

#[derive(QueryableByName)]
struct WatermarkRow {
    #[diesel(sql_type = Nullable<BigInt>)]
    last_message_id: Option<i64>,
    #[diesel(sql_type = Nullable<Timestamp>)]
    last_applied_at: Option<NaiveDateTime>,
    #[diesel(sql_type = Nullable<BigInt>)]
    state_lowest_pending: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    change_lowest_pending: Option<i64>,
}

#[derive(QueryableByName)]
struct DayRow {
    #[diesel(sql_type = Date)]
    operation_day: NaiveDate,
    #[diesel(sql_type = BigInt)]
    version: i64,
    #[diesel(sql_type = BigInt)]
    last_message_id: i64,
    #[diesel(sql_type = Timestamp)]
    updated_at: NaiveDateTime,
    #[diesel(sql_type = BigInt)]
    listed: i64,
    #[diesel(sql_type = BigInt)]
    flights: i64,
}

impl ReadOps for PgTx<'_> {
    fn set_read_only_snapshot(&mut self) -> Result<(), StoreError> {
        sql_query(sql::SET_READ_ONLY_SNAPSHOT)
            .execute(self.conn())
            .map(drop)
            .map_err(|e| query("set_read_only_snapshot", e))
    }

    fn set_idle_limit(&mut self, limit: Option<std::time::Duration>) -> Result<(), StoreError> {
        let millis = limit.map_or(0, |l| l.as_millis().max(1));
        sql_query(sql::SET_IDLE_LIMIT)
            .bind::<Text, _>(millis.to_string())
            .execute(self.conn())
            .map(drop)
            .map_err(|e| query("set_idle_limit", e))
    }

    #[tracing::instrument(name = "store.flid_page", skip_all)]
    fn flid_page(
        &mut self,
        day: Option<NaiveDate>,
        after: i64,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError> {
        let rows: Vec<FlidRow> = match day {
            None => sql_query(sql::SELECT_FLIDS_AFTER)
                .bind::<BigInt, _>(after)
                .bind::<BigInt, _>(limit)
                .prepared()
                .load(self.conn())
                .map_err(|e| query("select_flids_after", e))?,
            Some(day) => sql_query(sql::SELECT_FLIDS_OF_DAY_AFTER)
                .bind::<Date, _>(day)
                .bind::<BigInt, _>(after)
                .bind::<BigInt, _>(limit)
                .prepared()
                .load(self.conn())
                .map_err(|e| query("select_flids_of_day_after", e))?,
        };
        Ok(rows.into_iter().map(|r| r.flid).collect())
    }

    fn pipeline_lease(&mut self) -> Result<PipelineLease, StoreError> {
        let row: LeaseRow = sql_query(sql::SELECT_PIPELINE_LEASE)
            .prepared()
            .get_result(self.conn())
            .map_err(|e| query("select_pipeline_lease", e))?;
        Ok(PipelineLease {
            holder: row.lease_holder,
            epoch: row.lease_epoch,
            expires_at: row.lease_expires_at,
        })
    }

    fn proc_counts(&mut self) -> Result<Vec<ProcCount>, StoreError> {
        let op = "select_proc_counts";
        let rows: Vec<CountRow> = sql_query(sql::SELECT_PROC_COUNTS)
            .prepared()
            .load(self.conn())
            .map_err(|e| query(op, e))?;
        rows.into_iter()
            .map(|r| {
                Ok(ProcCount {
                    status: proc_status(&r.status, op)?,
                    error_kind: r.error_kind,
                    msg_type: r.msg_type,
                    msg_subtype: r.msg_subtype,
                    messages: r.messages,
                })
            })
            .collect()
    }

    fn latest_by_status(
        &mut self,
        status: ProcStatus,
        limit: i64,
    ) -> Result<Vec<ProcEntry>, StoreError> {
        let rows: Vec<EntryRow> = sql_query(sql::SELECT_LATEST_BY_STATUS)
            .bind::<Text, _>(status.code())
            .bind::<BigInt, _>(limit)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_latest_by_status", e))?;
        Ok(rows
            .into_iter()
            .map(|r| ProcEntry {
                message_id: r.message_id,
                error_kind: r.error_kind,
                error_text: r.error_text,
                msg_type: r.msg_type,
                msg_subtype: r.msg_subtype,
                attempts: r.attempts,
                updated_at: r.updated_at,
            })
            .collect())
    }

    fn outbox_backlog(&mut self) -> Result<OutboxBacklog, StoreError> {
        let row: BacklogRow = sql_query(sql::SELECT_OUTBOX_BACKLOG)
            .prepared()
            .get_result(self.conn())
            .map_err(|e| query("select_outbox_backlog", e))?;
        Ok(OutboxBacklog {
            state_events: row.state_events,
            state_oldest: row.state_oldest,
            change_notices: row.change_notices,
            change_oldest: row.change_oldest,
        })
    }

    fn select_held_days(&mut self) -> Result<HeldDays, StoreError> {
        let row: HeldRow = sql_query(sql::SELECT_HELD_DAYS)
            .prepared()
            .get_result(self.conn())
            .map_err(|e| query("select_held_days", e))?;
        Ok(HeldDays {
            first_day: row.first_day,
            last_day: row.last_day,
            without_day: row.without_day,
        })
    }

    fn select_watermark(&mut self) -> Result<Watermark, StoreError> {
        let row: WatermarkRow = sql_query(sql::SELECT_WATERMARK)
            .bind::<Text, _>(ProcStatus::Succeeded.code())
            .bind::<Text, _>(ProcStatus::Dead.code())
            .prepared()
            .get_result(self.conn())
            .map_err(|e| query("select_watermark", e))?;
        Ok(Watermark {
            last_message_id: row.last_message_id,
            last_applied_at: row.last_applied_at,
            lowest_pending_message_id: lowest(row.state_lowest_pending, row.change_lowest_pending),
        })
    }

    fn snapshot_days(&mut self, limit: i64) -> Result<Vec<SnapshotDay>, StoreError> {
        let rows: Vec<DayRow> = sql_query(sql::SELECT_SNAPSHOT_DAYS)
            .bind::<BigInt, _>(limit)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_snapshot_days", e))?;
        Ok(rows
            .into_iter()
            .map(|r| SnapshotDay {
                operation_day: r.operation_day,
                version: r.version,
                last_message_id: r.last_message_id,
                updated_at: r.updated_at,
                listed: r.listed,
                flights: r.flights,
            })
            .collect())
    }
}
