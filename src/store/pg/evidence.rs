//! [`EvidenceOps`] on PostgreSQL: order and SEQN evidence read and
//! written in the state transaction of the message they count, and the
//! message that blocks the head.

use chrono::{NaiveDate, NaiveDateTime};
use diesel::sql_types::{BigInt, Date, Integer, Nullable, Text, Timestamp};
use diesel::{QueryableByName, RunQueryDsl, sql_query};

use super::errors::query;
use super::prepared::Prepare;
use super::statements as sql;
use super::tx::PgTx;
use crate::store::{DayOrder, EvidenceOps, FailedHead, ProcStatus, SenderSeqn, StoreError};

#[derive(QueryableByName)]
struct DayOrderRow {
    #[diesel(sql_type = Date)]
    operation_day: NaiveDate,
    #[diesel(sql_type = Nullable<Timestamp>)]
    snapshot_dttm: Option<NaiveDateTime>,
    #[diesel(sql_type = Nullable<BigInt>)]
    snapshot_message_id: Option<i64>,
    #[diesel(sql_type = Nullable<Timestamp>)]
    newest_event_dttm: Option<NaiveDateTime>,
    #[diesel(sql_type = Nullable<BigInt>)]
    newest_event_id: Option<i64>,
    #[diesel(sql_type = BigInt)]
    late_events: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    last_late_event_id: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    late_event_after_id: Option<i64>,
    #[diesel(sql_type = BigInt)]
    stale_snapshots: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    last_stale_snapshot_id: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    stale_snapshot_over_id: Option<i64>,
}

impl From<DayOrderRow> for DayOrder {
    fn from(r: DayOrderRow) -> DayOrder {
        DayOrder {
            operation_day: r.operation_day,
            snapshot_dttm: r.snapshot_dttm,
            snapshot_message_id: r.snapshot_message_id,
            newest_event_dttm: r.newest_event_dttm,
            newest_event_id: r.newest_event_id,
            late_events: r.late_events,
            last_late_event_id: r.last_late_event_id,
            late_event_after_id: r.late_event_after_id,
            stale_snapshots: r.stale_snapshots,
            last_stale_snapshot_id: r.last_stale_snapshot_id,
            stale_snapshot_over_id: r.stale_snapshot_over_id,
        }
    }
}

#[derive(QueryableByName)]
struct SenderSeqnRow {
    #[diesel(sql_type = Text)]
    sender: String,
    #[diesel(sql_type = Text)]
    last_seqn: String,
    #[diesel(sql_type = BigInt)]
    last_message_id: i64,
    #[diesel(sql_type = BigInt)]
    messages: i64,
    #[diesel(sql_type = BigInt)]
    repeats: i64,
    #[diesel(sql_type = BigInt)]
    gaps: i64,
    #[diesel(sql_type = BigInt)]
    missing: i64,
    #[diesel(sql_type = BigInt)]
    resets: i64,
    #[diesel(sql_type = BigInt)]
    unreadable: i64,
    #[diesel(sql_type = Nullable<Text>)]
    last_anomaly: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    last_anomaly_id: Option<i64>,
}

impl From<SenderSeqnRow> for SenderSeqn {
    fn from(r: SenderSeqnRow) -> SenderSeqn {
        SenderSeqn {
            sender: r.sender,
            last_seqn: r.last_seqn,
            last_message_id: r.last_message_id,
            messages: r.messages,
            repeats: r.repeats,
            gaps: r.gaps,
            missing: r.missing,
            resets: r.resets,
            unreadable: r.unreadable,
            last_anomaly: r.last_anomaly,
            last_anomaly_id: r.last_anomaly_id,
        }
    }
}

#[derive(QueryableByName)]
struct FailedHeadRow {
    #[diesel(sql_type = BigInt)]
    message_id: i64,
    #[diesel(sql_type = Text)]
    error_kind: String,
    #[diesel(sql_type = Nullable<Text>)]
    error_text: Option<String>,
    #[diesel(sql_type = Integer)]
    attempts: i32,
    #[diesel(sql_type = Timestamp)]
    first_seen_at: NaiveDateTime,
    #[diesel(sql_type = Timestamp)]
    updated_at: NaiveDateTime,
}

impl EvidenceOps for PgTx<'_> {
    fn select_order_evidence(&mut self, day: NaiveDate) -> Result<Option<DayOrder>, StoreError> {
        let rows: Vec<DayOrderRow> = sql_query(sql::SELECT_ORDER_EVIDENCE)
            .bind::<Date, _>(day)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_order_evidence", e))?;
        Ok(rows.into_iter().next().map(DayOrder::from))
    }

    fn upsert_order_evidence(
        &mut self,
        e: &DayOrder,
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        sql_query(sql::UPSERT_ORDER_EVIDENCE)
            .bind::<Date, _>(e.operation_day)
            .bind::<Nullable<Timestamp>, _>(e.snapshot_dttm)
            .bind::<Nullable<BigInt>, _>(e.snapshot_message_id)
            .bind::<Nullable<Timestamp>, _>(e.newest_event_dttm)
            .bind::<Nullable<BigInt>, _>(e.newest_event_id)
            .bind::<BigInt, _>(e.late_events)
            .bind::<Nullable<BigInt>, _>(e.last_late_event_id)
            .bind::<Nullable<BigInt>, _>(e.late_event_after_id)
            .bind::<BigInt, _>(e.stale_snapshots)
            .bind::<Nullable<BigInt>, _>(e.last_stale_snapshot_id)
            .bind::<Nullable<BigInt>, _>(e.stale_snapshot_over_id)
            .bind::<Timestamp, _>(now)
            .prepared()
            .execute(self.conn())
            .map_err(|e| query("upsert_order_evidence", e))?;
        Ok(())
    }

    fn select_seqn_evidence(&mut self, sender: &str) -> Result<Option<SenderSeqn>, StoreError> {
        let rows: Vec<SenderSeqnRow> = sql_query(sql::SELECT_SEQN_EVIDENCE)
            .bind::<Text, _>(sender)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_seqn_evidence", e))?;
        Ok(rows.into_iter().next().map(SenderSeqn::from))
    }

    fn upsert_seqn_evidence(
        &mut self,
        e: &SenderSeqn,
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        sql_query(sql::UPSERT_SEQN_EVIDENCE)
            .bind::<Text, _>(&e.sender)
            .bind::<Text, _>(&e.last_seqn)
            .bind::<BigInt, _>(e.last_message_id)
            .bind::<BigInt, _>(e.messages)
            .bind::<BigInt, _>(e.repeats)
            .bind::<BigInt, _>(e.gaps)
            .bind::<BigInt, _>(e.missing)
            .bind::<BigInt, _>(e.resets)
            .bind::<BigInt, _>(e.unreadable)
            .bind::<Nullable<Text>, _>(e.last_anomaly.as_deref())
            .bind::<Nullable<BigInt>, _>(e.last_anomaly_id)
            .bind::<Timestamp, _>(now)
            .prepared()
            .execute(self.conn())
            .map_err(|e| query("upsert_seqn_evidence", e))?;
        Ok(())
    }

    fn select_latest_order_evidence(&mut self, limit: i64) -> Result<Vec<DayOrder>, StoreError> {
        let rows: Vec<DayOrderRow> = sql_query(sql::SELECT_LATEST_ORDER_EVIDENCE)
            .bind::<BigInt, _>(limit)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_latest_order_evidence", e))?;
        Ok(rows.into_iter().map(DayOrder::from).collect())
    }

    fn select_seqn_senders(&mut self, limit: i64) -> Result<Vec<SenderSeqn>, StoreError> {
        let rows: Vec<SenderSeqnRow> = sql_query(sql::SELECT_SEQN_SENDERS)
            .bind::<BigInt, _>(limit)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_seqn_senders", e))?;
        Ok(rows.into_iter().map(SenderSeqn::from).collect())
    }

    fn select_blocked_head(&mut self) -> Result<Option<FailedHead>, StoreError> {
        let rows: Vec<FailedHeadRow> = sql_query(sql::SELECT_BLOCKED_HEAD)
            .bind::<Text, _>(ProcStatus::Failed.code())
            .bind::<Text, _>(crate::store::INFRA)
            .bind::<Text, _>(crate::store::CONFLICT)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_blocked_head", e))?;
        Ok(rows.into_iter().next().map(|r| FailedHead {
            message_id: r.message_id,
            error_kind: r.error_kind,
            error_text: r.error_text,
            attempts: r.attempts,
            first_seen_at: r.first_seen_at,
            updated_at: r.updated_at,
        }))
    }
}
