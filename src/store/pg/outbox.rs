//! [`OutboxOps`] on PostgreSQL: claiming and settling the rows of
//! `KAFKA_SCHD` and `KAFKA_MSG`.

use std::collections::HashMap;

use chrono::NaiveDateTime;
use diesel::sql_types::{Array, BigInt, Double, Integer, Nullable, Text, Timestamp};
use diesel::{QueryableByName, RunQueryDsl, sql_query};

use super::errors::query;
use super::prepared::Prepare;
use super::statements as sql;
use super::tx::PgTx;
use crate::FailureKind;
use crate::store::outbox::{notices_in_order, whole_flights};
use crate::store::{
    Backoff, ClaimedNotice, ClaimedStateEvent, EventKind, FailedRow, Lane, OutboxOps,
    PendingCounts, Receipt, StoreError,
};

#[derive(QueryableByName)]
struct StateEventRow {
    #[diesel(sql_type = BigInt)]
    event_id: i64,
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = BigInt)]
    state_version: i64,
    #[diesel(sql_type = Text)]
    event_kind: String,
    #[diesel(sql_type = Timestamp)]
    created_at: NaiveDateTime,
    #[diesel(sql_type = Integer)]
    attempts: i32,
    #[diesel(sql_type = BigInt)]
    message_id: i64,
    #[diesel(sql_type = BigInt)]
    flight_pending: i64,
}

#[derive(QueryableByName)]
struct NoticeRow {
    #[diesel(sql_type = BigInt)]
    event_id: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    flid: Option<i64>,
    #[diesel(sql_type = Text)]
    change_kind: String,
    #[diesel(sql_type = Text)]
    payload: String,
    #[diesel(sql_type = BigInt)]
    message_id: i64,
    #[diesel(sql_type = Timestamp)]
    created_at: NaiveDateTime,
    #[diesel(sql_type = Integer)]
    attempts: i32,
    #[diesel(sql_type = BigInt)]
    earlier_pending: i64,
}

#[derive(QueryableByName)]
struct ReceivedRow {
    #[diesel(sql_type = BigInt)]
    message_id: i64,
    #[diesel(sql_type = Timestamp)]
    received_at: NaiveDateTime,
    #[diesel(sql_type = Timestamp)]
    recorded_at: NaiveDateTime,
}

#[derive(QueryableByName)]
struct CountsRow {
    #[diesel(sql_type = BigInt)]
    state_events: i64,
    #[diesel(sql_type = BigInt)]
    change_notices: i64,
}

fn event_kind(code: &str) -> Result<EventKind, StoreError> {
    match code {
        "STATE" => Ok(EventKind::State),
        "TOMBSTONE" => Ok(EventKind::Tombstone),
        other => Err(StoreError::new(
            FailureKind::Other,
            "claim_state_events",
            format!("unknown KAFKA_SCHD.EVENT_KIND {other:?}"),
        )),
    }
}

impl PgTx<'_> {
    fn retry(
        &mut self,
        text: &'static str,
        op: &'static str,
        failed: &[FailedRow],
        now: NaiveDateTime,
        backoff: Backoff,
    ) -> Result<(), StoreError> {
        if failed.is_empty() {
            return Ok(());
        }
        sql_query(text)
            .bind::<Array<BigInt>, _>(failed.iter().map(|f| f.event_id).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(failed.iter().map(|f| f.error.clone()).collect::<Vec<_>>())
            .bind::<Timestamp, _>(now)
            .bind::<Double, _>(backoff.initial_secs)
            .bind::<Double, _>(backoff.max_secs)
            .prepared()
            .execute(self.conn())
            .map(drop)
            .map_err(|e| query(op, e))
    }

    fn delete_sent(
        &mut self,
        text: &'static str,
        op: &'static str,
        event_ids: &[i64],
    ) -> Result<(), StoreError> {
        if event_ids.is_empty() {
            return Ok(());
        }
        sql_query(text)
            .bind::<Array<BigInt>, _>(event_ids.to_vec())
            .prepared()
            .execute(self.conn())
            .map(drop)
            .map_err(|e| query(op, e))
    }
}

impl OutboxOps for PgTx<'_> {
    fn set_repeatable_read(&mut self) -> Result<(), StoreError> {
        sql_query(sql::SET_REPEATABLE_READ)
            .prepared()
            .execute(self.conn())
            .map(drop)
            .map_err(|e| query("set_repeatable_read", e))
    }

    #[tracing::instrument(name = "store.claim_state_events", skip_all)]
    fn claim_state_events(
        &mut self,
        now: NaiveDateTime,
        limit: i64,
        lane: Lane,
    ) -> Result<Vec<ClaimedStateEvent>, StoreError> {
        let rows: Vec<StateEventRow> = sql_query(sql::CLAIM_STATE_EVENTS)
            .bind::<Timestamp, _>(now)
            .bind::<BigInt, _>(limit)
            .bind::<BigInt, _>(lane.count)
            .bind::<BigInt, _>(lane.number)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("claim_state_events", e))?;
        let rows = rows
            .into_iter()
            .map(|r| {
                Ok((
                    ClaimedStateEvent {
                        event_id: r.event_id,
                        flid: r.flid,
                        state_version: r.state_version,
                        kind: event_kind(&r.event_kind)?,
                        created_at: r.created_at,
                        attempts: r.attempts,
                        message_id: r.message_id,
                    },
                    r.flight_pending,
                ))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok(whole_flights(rows))
    }

    #[tracing::instrument(name = "store.claim_change_notices", skip_all)]
    fn claim_change_notices(
        &mut self,
        now: NaiveDateTime,
        limit: i64,
        lane: Lane,
    ) -> Result<Vec<ClaimedNotice>, StoreError> {
        let rows: Vec<NoticeRow> = sql_query(sql::CLAIM_CHANGE_NOTICES)
            .bind::<Timestamp, _>(now)
            .bind::<BigInt, _>(limit)
            .bind::<BigInt, _>(lane.count)
            .bind::<BigInt, _>(lane.number)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("claim_change_notices", e))?;
        Ok(notices_in_order(
            rows.into_iter()
                .map(|r| {
                    (
                        ClaimedNotice {
                            event_id: r.event_id,
                            flid: r.flid,
                            change_kind: r.change_kind,
                            payload: r.payload,
                            message_id: r.message_id,
                            created_at: r.created_at,
                            attempts: r.attempts,
                        },
                        r.earlier_pending,
                    )
                })
                .collect(),
        ))
    }

    #[tracing::instrument(name = "store.delete_sent_state_events", skip_all)]
    fn delete_sent_state_events(&mut self, event_ids: &[i64]) -> Result<(), StoreError> {
        self.delete_sent(
            sql::DELETE_SENT_STATE_EVENTS,
            "delete_sent_state_events",
            event_ids,
        )
    }

    #[tracing::instrument(name = "store.delete_sent_change_notices", skip_all)]
    fn delete_sent_change_notices(&mut self, event_ids: &[i64]) -> Result<(), StoreError> {
        self.delete_sent(
            sql::DELETE_SENT_CHANGE_NOTICES,
            "delete_sent_change_notices",
            event_ids,
        )
    }

    #[tracing::instrument(name = "store.retry_state_events", skip_all)]
    fn retry_state_events(
        &mut self,
        failed: &[FailedRow],
        now: NaiveDateTime,
        backoff: Backoff,
    ) -> Result<(), StoreError> {
        self.retry(
            sql::RETRY_STATE_EVENTS,
            "retry_state_events",
            failed,
            now,
            backoff,
        )
    }

    #[tracing::instrument(name = "store.retry_change_notices", skip_all)]
    fn retry_change_notices(
        &mut self,
        failed: &[FailedRow],
        now: NaiveDateTime,
        backoff: Backoff,
    ) -> Result<(), StoreError> {
        self.retry(
            sql::RETRY_CHANGE_NOTICES,
            "retry_change_notices",
            failed,
            now,
            backoff,
        )
    }

    #[tracing::instrument(name = "store.select_received_times", skip_all)]
    fn select_received_times(
        &mut self,
        message_ids: &[i64],
    ) -> Result<HashMap<i64, Receipt>, StoreError> {
        if message_ids.is_empty() {
            return Ok(HashMap::new());
        }
        let rows: Vec<ReceivedRow> = sql_query(sql::SELECT_RECEIVED_TIMES)
            .bind::<Array<BigInt>, _>(message_ids.to_vec())
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_received_times", e))?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let receipt = Receipt {
                    received_at: r.received_at,
                    recorded_at: r.recorded_at,
                };
                (r.message_id, receipt)
            })
            .collect())
    }

    fn count_pending_events(&mut self) -> Result<PendingCounts, StoreError> {
        let rows: Vec<CountsRow> = sql_query(sql::COUNT_PENDING_EVENTS)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("count_pending_events", e))?;
        Ok(rows
            .first()
            .map_or_else(PendingCounts::default, |r| PendingCounts {
                state_events: r.state_events,
                change_notices: r.change_notices,
            }))
    }
}
