//! [`DeadOps`] on PostgreSQL: dead letters listed, shown and requeued.

use chrono::NaiveDateTime;
use diesel::sql_types::{Array, BigInt, Integer, Nullable, Text, Timestamp};
use diesel::{QueryableByName, RunQueryDsl, sql_query};

use super::errors::query;
use super::prepared::Prepare;
use super::rows::proc_status;
use super::statements as sql;
use super::tx::PgTx;
use crate::store::{
    DeadFilter, DeadOps, MASS_DELETE, MessageRecord, ProcStatus, REQUEUED, StoreError,
};

#[derive(QueryableByName)]
struct RecordRow {
    #[diesel(sql_type = BigInt)]
    message_id: i64,
    #[diesel(sql_type = Text)]
    status: String,
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
    first_seen_at: NaiveDateTime,
    #[diesel(sql_type = Timestamp)]
    updated_at: NaiveDateTime,
    #[diesel(sql_type = Integer)]
    requeue_count: i32,
    #[diesel(sql_type = Nullable<Text>)]
    requeued_by: Option<String>,
    #[diesel(sql_type = Nullable<Timestamp>)]
    requeued_at: Option<NaiveDateTime>,
}

impl RecordRow {
    fn into_record(self, op: &'static str) -> Result<MessageRecord, StoreError> {
        let status = proc_status(&self.status, op)?;
        Ok(MessageRecord {
            message_id: self.message_id,
            status,
            error_kind: self.error_kind,
            error_text: self.error_text,
            msg_type: self.msg_type,
            msg_subtype: self.msg_subtype,
            attempts: self.attempts,
            first_seen_at: self.first_seen_at,
            updated_at: self.updated_at,
            requeue_count: self.requeue_count,
            requeued_by: self.requeued_by,
            requeued_at: self.requeued_at,
        })
    }
}

#[derive(QueryableByName)]
struct RequeuedRow {
    #[diesel(sql_type = BigInt)]
    message_id: i64,
    #[diesel(sql_type = Integer)]
    requeue_count: i32,
}

impl DeadOps for PgTx<'_> {
    fn select_dead_letters(
        &mut self,
        filter: DeadFilter<'_>,
        limit: i64,
    ) -> Result<Vec<MessageRecord>, StoreError> {
        let op = "select_dead_letters";
        let (day_start, day_end) = filter.day_bounds();
        let rows: Vec<RecordRow> = sql_query(sql::SELECT_DEAD_LETTERS)
            .bind::<Text, _>(ProcStatus::Dead.code())
            .bind::<Nullable<Text>, _>(filter.error_kind)
            .bind::<Nullable<Timestamp>, _>(filter.since)
            .bind::<Nullable<Text>, _>(filter.error_text)
            .bind::<Nullable<Timestamp>, _>(day_start)
            .bind::<Nullable<Timestamp>, _>(day_end)
            .bind::<BigInt, _>(limit)
            .prepared()
            .load(self.conn())
            .map_err(|e| query(op, e))?;
        rows.into_iter().map(|r| r.into_record(op)).collect()
    }

    fn select_message_record(
        &mut self,
        message_id: i64,
    ) -> Result<Option<MessageRecord>, StoreError> {
        let op = "select_message_record";
        let rows: Vec<RecordRow> = sql_query(sql::SELECT_MESSAGE_RECORD)
            .bind::<BigInt, _>(message_id)
            .prepared()
            .load(self.conn())
            .map_err(|e| query(op, e))?;
        rows.into_iter()
            .next()
            .map(|r| r.into_record(op))
            .transpose()
    }

    fn requeue_dead_letters(
        &mut self,
        message_ids: &[i64],
        by: &str,
        now: NaiveDateTime,
    ) -> Result<Vec<(i64, i32)>, StoreError> {
        if message_ids.is_empty() {
            return Ok(Vec::new());
        }
        let rows: Vec<RequeuedRow> = sql_query(sql::REQUEUE_DEAD_LETTERS)
            .bind::<Array<BigInt>, _>(message_ids.to_vec())
            .bind::<Text, _>(ProcStatus::Failed.code())
            .bind::<Text, _>(REQUEUED)
            .bind::<Text, _>(by)
            .bind::<Timestamp, _>(now)
            .bind::<Text, _>(ProcStatus::Dead.code())
            .prepared()
            .load(self.conn())
            .map_err(|e| query("requeue_dead_letters", e))?;
        let mut requeued: Vec<(i64, i32)> = rows
            .into_iter()
            .map(|r| (r.message_id, r.requeue_count))
            .collect();
        requeued.sort_unstable();
        Ok(requeued)
    }

    fn decide_held_message(
        &mut self,
        message_id: i64,
        decision: &str,
        by: &str,
        now: NaiveDateTime,
    ) -> Result<bool, StoreError> {
        let updated = sql_query(sql::DECIDE_HELD_MESSAGE)
            .bind::<BigInt, _>(message_id)
            .bind::<Text, _>(decision)
            .bind::<Text, _>(by)
            .bind::<Timestamp, _>(now)
            .bind::<Text, _>(ProcStatus::Held.code())
            .bind::<Text, _>(MASS_DELETE)
            .prepared()
            .execute(self.conn())
            .map_err(|e| query("decide_held_message", e))?;
        Ok(updated > 0)
    }
}
