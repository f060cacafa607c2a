//! [`JournalOps`] on Oracle: the `EFFECT_CALL` journal.

use chrono::NaiveDateTime;
use oracle::Row;
use oracle::sql_type::{OracleType, Timestamp};

use super::binds::{AsTimestamp, ClobBind, Text, read_time};
use super::errors::{at, query};
use super::statements as sql;
use super::tx::OracleTx;
use crate::FailureKind;
use crate::store::{CallStatus, Grant, JournalOps, NewCall, StoreError, StoredCall};

fn call_from_row(row: &Row, op: &'static str) -> Result<StoredCall, StoreError> {
    let status: String = row.get("status").map_err(at(op))?;
    let status = CallStatus::from_code(&status).ok_or_else(|| {
        StoreError::new(
            FailureKind::Other,
            op,
            format!("unknown EFFECT_CALL.STATUS {status:?}"),
        )
    })?;
    let deadline: Option<Timestamp> = row.get("deadline_at").map_err(at(op))?;
    Ok(StoredCall {
        call_id: row.get("call_id").map_err(at(op))?,
        idempotency_key: row.get("idempotency_key").map_err(at(op))?,
        call_kind: row.get("call_kind").map_err(at(op))?,
        target: row.get("target").map_err(at(op))?,
        payload: row.get("payload").map_err(at(op))?,
        payload_digest: row.get("payload_digest").map_err(at(op))?,
        status,
        send_token: row.get("send_token").map_err(at(op))?,
        attempt: row.get("attempt").map_err(at(op))?,
        deadline_at: read_time(deadline),
    })
}

fn code(status: CallStatus) -> Text<'static> {
    Text(Some(status.code()))
}

impl JournalOps for OracleTx<'_> {
    fn insert_effect_intent(
        &mut self,
        call: &NewCall<'_>,
        now: NaiveDateTime,
    ) -> Result<Option<i64>, StoreError> {
        crate::store::nonempty::refuse_empty_call(call)?;
        let op = "insert_effect_intent";
        // The id first, so that the insert needs no RETURNING (which would send the CLOB
        // payload at execute time with the out-bind). A key journaled already costs a
        // sequence number, a gap like a rollback's.
        let payload = ClobBind::of(op, "payload")?;
        let call_id = self.next_value(sql::NEXT_EFFECT_CALL_ID, "next_effect_call_id")?;
        let result = self.conn().execute_named(
            sql::INSERT_EFFECT_INTENT,
            &[
                ("call_id", &call_id),
                ("idempotency_key", &Text(Some(call.idempotency_key))),
                ("scope", &Text(Some(call.scope))),
                ("step", &Text(Some(call.step))),
                ("sub_key", &Text(Some(call.sub_key))),
                ("call_kind", &Text(Some(call.call_kind))),
                ("target", &Text(Some(call.target))),
                ("payload_digest", &Text(Some(call.payload_digest))),
                ("deadline_at", &AsTimestamp(call.deadline_at)),
                ("now", &AsTimestamp(Some(now))),
                // Last in the statement too: long binds after the short ones.
                (payload.name(), &payload.value(call.payload)),
            ],
        );
        match result {
            Ok(_) => Ok(Some(call_id)),
            // ORA-00001 on EFFECT_CALL_IDEM_KEY_UK (CALL_ID comes from a sequence and cannot
            // clash): the key is journaled already. Oracle rolled back this statement only.
            Err(e) => match query(op, e) {
                err if err.kind() == FailureKind::Duplicate => Ok(None),
                err => Err(err),
            },
        }
    }

    fn select_effect_call(
        &mut self,
        idempotency_key: &str,
    ) -> Result<Option<StoredCall>, StoreError> {
        let op = "select_effect_call";
        let mut rows = self
            .conn()
            .query_named(
                sql::SELECT_EFFECT_CALL,
                &[("idempotency_key", &Text(Some(idempotency_key)))],
            )
            .map_err(at(op))?;
        rows.next()
            .map(|row| call_from_row(&row.map_err(at(op))?, op))
            .transpose()
    }

    fn select_open_effect_calls(
        &mut self,
        limit: i64,
        now: NaiveDateTime,
    ) -> Result<Vec<StoredCall>, StoreError> {
        let op = "select_open_effect_calls";
        let rows = self
            .conn()
            .query_named(
                sql::SELECT_OPEN_EFFECT_CALLS,
                &[
                    ("unresolved_1", &code(CallStatus::Dispatched)),
                    ("unresolved_2", &code(CallStatus::Unknown)),
                    ("grantable_1", &code(CallStatus::Pending)),
                    ("grantable_2", &code(CallStatus::NotSent)),
                    ("now", &AsTimestamp(Some(now))),
                    ("row_limit", &limit),
                ],
            )
            .map_err(at(op))?;
        rows.map(|row| call_from_row(&row.map_err(at(op))?, op))
            .collect()
    }

    fn grant_effect_calls(
        &mut self,
        calls: &[(i64, i32)],
        epoch: i64,
        now: NaiveDateTime,
    ) -> Result<Vec<Grant>, StoreError> {
        let op = "grant_effect_calls";
        let token = OracleType::Varchar2(64);
        let attempt = OracleType::Number(10, 0);
        let mut stmt = self
            .conn()
            .statement(sql::GRANT_EFFECT_CALLS)
            .build()
            .map_err(at(op))?;
        let mut grants = Vec::new();
        // One execution per call: a batch cannot return the tokens (see the statement).
        for (call_id, seen_attempt) in calls {
            stmt.execute_named(&[
                ("call_id", call_id),
                ("seen_attempt", seen_attempt),
                ("dispatched", &code(CallStatus::Dispatched)),
                ("lease_epoch", &epoch),
                ("now", &AsTimestamp(Some(now))),
                ("grantable_1", &code(CallStatus::Pending)),
                ("grantable_2", &code(CallStatus::NotSent)),
                ("send_token", &token),
                ("attempt", &attempt),
            ])
            .map_err(at(op))?;
            let tokens: Vec<String> = stmt.returned_values("send_token").map_err(at(op))?;
            let attempts: Vec<i32> = stmt.returned_values("attempt").map_err(at(op))?;
            if let (Some(send_token), Some(attempt)) = (tokens.into_iter().next(), attempts.first())
            {
                grants.push(Grant {
                    call_id: *call_id,
                    send_token,
                    attempt: *attempt,
                });
            }
        }
        Ok(grants)
    }

    fn record_effect_receipt(
        &mut self,
        call_id: i64,
        send_token: &str,
        status: CallStatus,
        remote_ref: Option<&str>,
        now: NaiveDateTime,
    ) -> Result<bool, StoreError> {
        let op = "record_effect_receipt";
        let stmt = self
            .conn()
            .execute_named(
                sql::RECORD_EFFECT_RECEIPT,
                &[
                    ("call_id", &call_id),
                    ("send_token", &Text(Some(send_token))),
                    ("status", &code(status)),
                    ("remote_ref", &Text(remote_ref)),
                    ("now", &AsTimestamp(Some(now))),
                    ("open_1", &code(CallStatus::Dispatched)),
                    ("open_2", &code(CallStatus::Unknown)),
                ],
            )
            .map_err(at(op))?;
        Ok(stmt.row_count().map_err(at(op))? > 0)
    }
}
