//! [`RequestOps`] on Oracle: the `REQ_TRACK` request tracker, with named
//! binds. Never run on this project's machines (no Oracle there); pinned and
//! linted with the other statements.

use chrono::{NaiveDate, NaiveDateTime};
use oracle::Row;
use oracle::sql_type::{OracleType, Timestamp};

use super::binds::{AsDate, AsTimestamp, Text, read_time, required_time};
use super::errors::at;
use super::statements as sql;
use super::tx::OracleTx;
use crate::FailureKind;
use crate::store::{CallStatus, NewRequest, RequestEntry, RequestOps, RequestStatus, StoreError};

fn code(status: RequestStatus) -> Text<'static> {
    Text(Some(status.code()))
}

fn unknown(op: &'static str, what: &str, value: &str) -> StoreError {
    StoreError::new(FailureKind::Other, op, format!("unknown {what} {value:?}"))
}

fn entry(row: &Row, op: &'static str) -> Result<RequestEntry, StoreError> {
    let status: String = row.get("status").map_err(at(op))?;
    let call_status: Option<String> = row.get("call_status").map_err(at(op))?;
    let day: Option<Timestamp> = row.get("operation_day").map_err(at(op))?;
    let created: Timestamp = row.get("created_at").map_err(at(op))?;
    let due: Option<Timestamp> = row.get("answer_due_at").map_err(at(op))?;
    let completed: Option<Timestamp> = row.get("completed_at").map_err(at(op))?;
    Ok(RequestEntry {
        req_id: row.get("req_id").map_err(at(op))?,
        req_kind: row.get("req_kind").map_err(at(op))?,
        operation_day: read_time(day).map(|t| t.date()),
        sender: row.get("sender").map_err(at(op))?,
        status: RequestStatus::from_code(&status)
            .ok_or_else(|| unknown(op, "REQ_TRACK.STATUS", &status))?,
        created_at: required_time(created, op)?,
        answer_due_at: read_time(due),
        completed_at: read_time(completed),
        completed_by_message_id: row.get("completed_by_message_id").map_err(at(op))?,
        expired_by_req_id: row.get("expired_by_req_id").map_err(at(op))?,
        seqn: row.get("seqn").map_err(at(op))?,
        call_id: row.get("call_id").map_err(at(op))?,
        call_status: call_status
            .map(|s| CallStatus::from_code(&s).ok_or_else(|| unknown(op, "EFFECT_CALL.STATUS", &s)))
            .transpose()?,
        remote_ref: row.get("remote_ref").map_err(at(op))?,
        attempts: row.get("attempt").map_err(at(op))?,
    })
}

impl OracleTx<'_> {
    /// The one value of a `SELECT <sequence>.NEXTVAL FROM DUAL`.
    pub(super) fn next_value(
        &mut self,
        statement: &str,
        op: &'static str,
    ) -> Result<i64, StoreError> {
        self.conn()
            .query_row_as::<i64>(statement, &[])
            .map_err(at(op))
    }
}

impl RequestOps for OracleTx<'_> {
    fn next_request_id(&mut self) -> Result<i64, StoreError> {
        self.next_value(sql::NEXT_REQUEST_ID, "next_request_id")
    }

    fn next_outbound_seqn(&mut self) -> Result<i64, StoreError> {
        self.next_value(sql::NEXT_OUTBOUND_SEQN, "next_outbound_seqn")
    }

    fn expire_requests(
        &mut self,
        req_kind: &str,
        new_req_id: i64,
        now: NaiveDateTime,
    ) -> Result<Vec<(i64, Option<i64>)>, StoreError> {
        let op = "expire_requests";
        let out = OracleType::Number(19, 0);
        let call_out = OracleType::Number(19, 0);
        let stmt = self
            .conn()
            .execute_named(
                sql::EXPIRE_REQUESTS,
                &[
                    ("req_kind", &Text(Some(req_kind))),
                    ("new_req_id", &new_req_id),
                    ("now", &AsTimestamp(Some(now))),
                    ("expired", &code(RequestStatus::Expired)),
                    ("pending", &code(RequestStatus::Pending)),
                    ("req_id", &out),
                    ("call_id", &call_out),
                ],
            )
            .map_err(at(op))?;
        let req_ids: Vec<i64> = stmt.returned_values("req_id").map_err(at(op))?;
        let call_ids: Vec<Option<i64>> = stmt.returned_values("call_id").map_err(at(op))?;
        Ok(req_ids.into_iter().zip(call_ids).collect())
    }

    fn withdraw_request_calls(
        &mut self,
        call_ids: &[i64],
        now: NaiveDateTime,
    ) -> Result<Vec<i64>, StoreError> {
        let op = "withdraw_request_calls";
        let mut withdrawn = Vec::new();
        for call_id in call_ids {
            let stmt = self
                .conn()
                .execute_named(
                    sql::WITHDRAW_REQUEST_CALLS,
                    &[
                        ("call_id", call_id),
                        ("now", &AsTimestamp(Some(now))),
                        ("grantable_1", &Text(Some(CallStatus::Pending.code()))),
                        ("grantable_2", &Text(Some(CallStatus::NotSent.code()))),
                    ],
                )
                .map_err(at(op))?;
            if stmt.row_count().map_err(at(op))? > 0 {
                withdrawn.push(*call_id);
            }
        }
        Ok(withdrawn)
    }

    fn insert_request(
        &mut self,
        request: &NewRequest<'_>,
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        self.conn()
            .execute_named(
                sql::INSERT_REQUEST,
                &[
                    ("req_id", &request.req_id),
                    ("req_kind", &Text(Some(request.req_kind))),
                    (
                        "operation_day",
                        &request.operation_day.map_or(AsDate(None), AsDate::day),
                    ),
                    ("sender", &Text(Some(request.sender))),
                    ("pending", &code(RequestStatus::Pending)),
                    ("now", &AsTimestamp(Some(now))),
                    ("answer_due_at", &AsTimestamp(Some(request.answer_due_at))),
                    ("seqn", &Text(Some(request.seqn))),
                    ("call_id", &request.call_id),
                ],
            )
            .map(drop)
            .map_err(at("insert_request"))
    }

    fn complete_request(
        &mut self,
        day: NaiveDate,
        sender: &str,
        req_kind: &str,
        message_id: i64,
        now: NaiveDateTime,
    ) -> Result<Option<i64>, StoreError> {
        let op = "complete_request";
        let out = OracleType::Number(19, 0);
        let stmt = self
            .conn()
            .execute_named(
                sql::COMPLETE_REQUEST,
                &[
                    ("operation_day", &AsDate::day(day)),
                    ("sender", &Text(Some(sender))),
                    ("req_kind", &Text(Some(req_kind))),
                    ("message_id", &message_id),
                    ("now", &AsTimestamp(Some(now))),
                    ("completed", &code(RequestStatus::Completed)),
                    ("pending", &code(RequestStatus::Pending)),
                    ("req_id", &out),
                ],
            )
            .map_err(at(op))?;
        let ids: Vec<i64> = stmt.returned_values("req_id").map_err(at(op))?;
        Ok(ids.first().copied())
    }

    fn select_request_day(
        &mut self,
        sender: &str,
        req_kind: &str,
    ) -> Result<Option<NaiveDate>, StoreError> {
        let op = "select_request_day";
        let mut rows = self
            .conn()
            .query_as_named::<Timestamp>(
                sql::SELECT_REQUEST_DAY,
                &[
                    ("sender", &Text(Some(sender))),
                    ("req_kind", &Text(Some(req_kind))),
                    ("pending", &code(RequestStatus::Pending)),
                ],
            )
            .map_err(at(op))?;
        rows.next()
            .map(|day| Ok(required_time(day.map_err(at(op))?, op)?.date()))
            .transpose()
    }

    fn time_out_requests(&mut self, now: NaiveDateTime) -> Result<Vec<i64>, StoreError> {
        let op = "time_out_requests";
        let out = OracleType::Number(19, 0);
        let stmt = self
            .conn()
            .execute_named(
                sql::TIME_OUT_REQUESTS,
                &[
                    ("now", &AsTimestamp(Some(now))),
                    ("timed_out", &code(RequestStatus::TimedOut)),
                    ("pending", &code(RequestStatus::Pending)),
                    ("req_id", &out),
                ],
            )
            .map_err(at(op))?;
        stmt.returned_values("req_id").map_err(at(op))
    }

    fn select_requests(&mut self, limit: i64) -> Result<Vec<RequestEntry>, StoreError> {
        let op = "select_requests";
        let rows = self
            .conn()
            .query_named(
                sql::SELECT_REQUESTS,
                &[
                    ("pending", &code(RequestStatus::Pending)),
                    ("row_limit", &limit),
                ],
            )
            .map_err(at(op))?;
        rows.map(|row| entry(&row.map_err(at(op))?, op)).collect()
    }
}
