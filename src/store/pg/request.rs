//! [`RequestOps`] on PostgreSQL: the `REQ_TRACK` request tracker.

use chrono::{NaiveDate, NaiveDateTime};
use diesel::sql_types::{Array, BigInt, Date, Integer, Nullable, Text, Timestamp};
use diesel::{QueryableByName, RunQueryDsl, sql_query};

use super::errors::query;
use super::prepared::Prepare;
use super::statements as sql;
use super::tx::PgTx;
use crate::FailureKind;
use crate::store::{CallStatus, NewRequest, RequestEntry, RequestOps, RequestStatus, StoreError};

#[derive(QueryableByName)]
struct ReqIdRow {
    #[diesel(sql_type = BigInt)]
    req_id: i64,
}

#[derive(QueryableByName)]
struct ExpiredRow {
    #[diesel(sql_type = BigInt)]
    req_id: i64,
    #[diesel(sql_type = Nullable<BigInt>)]
    call_id: Option<i64>,
}

#[derive(QueryableByName)]
struct CallIdRow {
    #[diesel(sql_type = BigInt)]
    call_id: i64,
}

#[derive(QueryableByName)]
struct NextValueRow {
    #[diesel(sql_type = BigInt)]
    next_value: i64,
}

#[derive(QueryableByName)]
struct DayRow {
    #[diesel(sql_type = Date)]
    operation_day: NaiveDate,
}

#[derive(QueryableByName)]
struct EntryRow {
    #[diesel(sql_type = BigInt)]
    req_id: i64,
    #[diesel(sql_type = Text)]
    req_kind: String,
    #[diesel(sql_type = Nullable<Date>)]
    operation_day: Option<NaiveDate>,
    #[diesel(sql_type = Nullable<Text>)]
    sender: Option<String>,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Timestamp)]
    created_at: NaiveDateTime,
    #[diesel(sql_type = Nullable<Timestamp>)]
    answer_due_at: Option<NaiveDateTime>,
    #[diesel(sql_type = Nullable<Timestamp>)]
    completed_at: Option<NaiveDateTime>,
    #[diesel(sql_type = Nullable<BigInt>)]
    completed_by_message_id: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    expired_by_req_id: Option<i64>,
    #[diesel(sql_type = Nullable<Text>)]
    seqn: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    call_id: Option<i64>,
    #[diesel(sql_type = Nullable<Text>)]
    call_status: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    remote_ref: Option<String>,
    #[diesel(sql_type = Nullable<Integer>)]
    attempt: Option<i32>,
}

impl EntryRow {
    fn into_entry(self) -> Result<RequestEntry, StoreError> {
        let op = "select_requests";
        let unknown = |what: &str, value: &str| {
            StoreError::new(FailureKind::Other, op, format!("unknown {what} {value:?}"))
        };
        let status = RequestStatus::from_code(&self.status)
            .ok_or_else(|| unknown("REQ_TRACK.STATUS", &self.status))?;
        let call_status = self
            .call_status
            .map(|s| CallStatus::from_code(&s).ok_or_else(|| unknown("EFFECT_CALL.STATUS", &s)))
            .transpose()?;
        Ok(RequestEntry {
            req_id: self.req_id,
            req_kind: self.req_kind,
            operation_day: self.operation_day,
            sender: self.sender,
            status,
            created_at: self.created_at,
            answer_due_at: self.answer_due_at,
            completed_at: self.completed_at,
            completed_by_message_id: self.completed_by_message_id,
            expired_by_req_id: self.expired_by_req_id,
            seqn: self.seqn,
            call_id: self.call_id,
            call_status,
            remote_ref: self.remote_ref,
            attempts: self.attempt,
        })
    }
}

fn ids(rows: Vec<ReqIdRow>) -> Vec<i64> {
    rows.into_iter().map(|r| r.req_id).collect()
}

/// The one value of a `SELECT nextval(…) AS next_value` whose sequence is
/// named by `names` (bound, like every value).
fn next_value(
    tx: &mut PgTx<'_>,
    statement: &str,
    names: (&str, Option<&str>),
    op: &'static str,
) -> Result<i64, StoreError> {
    let first = sql_query(statement).bind::<Text, _>(names.0);
    let rows: Vec<NextValueRow> = match names.1 {
        Some(second) => first.bind::<Text, _>(second).prepared().load(tx.conn()),
        None => first.prepared().load(tx.conn()),
    }
    .map_err(|e| query(op, e))?;
    rows.first()
        .map(|r| r.next_value)
        .ok_or_else(|| StoreError::new(FailureKind::Other, op, "the sequence gave no value"))
}

impl RequestOps for PgTx<'_> {
    fn next_request_id(&mut self) -> Result<i64, StoreError> {
        next_value(
            self,
            sql::NEXT_REQUEST_ID,
            ("req_track", Some("req_id")),
            "next_request_id",
        )
    }

    fn next_outbound_seqn(&mut self) -> Result<i64, StoreError> {
        next_value(
            self,
            sql::NEXT_OUTBOUND_SEQN,
            ("outbound_seqn_seq", None),
            "next_outbound_seqn",
        )
    }

    fn expire_requests(
        &mut self,
        req_kind: &str,
        new_req_id: i64,
        now: NaiveDateTime,
    ) -> Result<Vec<(i64, Option<i64>)>, StoreError> {
        let rows: Vec<ExpiredRow> = sql_query(sql::EXPIRE_REQUESTS)
            .bind::<Text, _>(req_kind)
            .bind::<BigInt, _>(new_req_id)
            .bind::<Timestamp, _>(now)
            .bind::<Text, _>(RequestStatus::Expired.code())
            .bind::<Text, _>(RequestStatus::Pending.code())
            .prepared()
            .load(self.conn())
            .map_err(|e| query("expire_requests", e))?;
        Ok(rows.into_iter().map(|r| (r.req_id, r.call_id)).collect())
    }

    fn withdraw_request_calls(
        &mut self,
        call_ids: &[i64],
        now: NaiveDateTime,
    ) -> Result<Vec<i64>, StoreError> {
        if call_ids.is_empty() {
            return Ok(Vec::new());
        }
        let grantable = vec![CallStatus::Pending.code(), CallStatus::NotSent.code()];
        let rows: Vec<CallIdRow> = sql_query(sql::WITHDRAW_REQUEST_CALLS)
            .bind::<Array<BigInt>, _>(call_ids.to_vec())
            .bind::<Timestamp, _>(now)
            .bind::<Array<Text>, _>(grantable)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("withdraw_request_calls", e))?;
        Ok(rows.into_iter().map(|r| r.call_id).collect())
    }

    fn insert_request(
        &mut self,
        request: &NewRequest<'_>,
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        sql_query(sql::INSERT_REQUEST)
            .bind::<BigInt, _>(request.req_id)
            .bind::<Text, _>(request.req_kind)
            .bind::<Nullable<Date>, _>(request.operation_day)
            .bind::<Text, _>(request.sender)
            .bind::<Text, _>(RequestStatus::Pending.code())
            .bind::<Timestamp, _>(now)
            .bind::<Timestamp, _>(request.answer_due_at)
            .bind::<Text, _>(request.seqn)
            .bind::<BigInt, _>(request.call_id)
            .prepared()
            .execute(self.conn())
            .map_err(|e| query("insert_request", e))?;
        Ok(())
    }

    fn complete_request(
        &mut self,
        day: NaiveDate,
        sender: &str,
        req_kind: &str,
        message_id: i64,
        now: NaiveDateTime,
    ) -> Result<Option<i64>, StoreError> {
        let rows: Vec<ReqIdRow> = sql_query(sql::COMPLETE_REQUEST)
            .bind::<Date, _>(day)
            .bind::<Text, _>(sender)
            .bind::<Text, _>(req_kind)
            .bind::<BigInt, _>(message_id)
            .bind::<Timestamp, _>(now)
            .bind::<Text, _>(RequestStatus::Completed.code())
            .bind::<Text, _>(RequestStatus::Pending.code())
            .prepared()
            .load(self.conn())
            .map_err(|e| query("complete_request", e))?;
        Ok(rows.first().map(|r| r.req_id))
    }

    fn select_request_day(
        &mut self,
        sender: &str,
        req_kind: &str,
    ) -> Result<Option<NaiveDate>, StoreError> {
        let rows: Vec<DayRow> = sql_query(sql::SELECT_REQUEST_DAY)
            .bind::<Text, _>(sender)
            .bind::<Text, _>(req_kind)
            .bind::<Text, _>(RequestStatus::Pending.code())
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_request_day", e))?;
        Ok(rows.first().map(|r| r.operation_day))
    }

    fn time_out_requests(&mut self, now: NaiveDateTime) -> Result<Vec<i64>, StoreError> {
        let rows: Vec<ReqIdRow> = sql_query(sql::TIME_OUT_REQUESTS)
            .bind::<Timestamp, _>(now)
            .bind::<Text, _>(RequestStatus::TimedOut.code())
            .bind::<Text, _>(RequestStatus::Pending.code())
            .prepared()
            .load(self.conn())
            .map_err(|e| query("time_out_requests", e))?;
        Ok(ids(rows))
    }

    fn select_requests(&mut self, limit: i64) -> Result<Vec<RequestEntry>, StoreError> {
        let rows: Vec<EntryRow> = sql_query(sql::SELECT_REQUESTS)
            .bind::<Text, _>(RequestStatus::Pending.code())
            .bind::<BigInt, _>(limit)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_requests", e))?;
        rows.into_iter().map(EntryRow::into_entry).collect()
    }
}
