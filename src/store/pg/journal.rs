//! [`JournalOps`] on PostgreSQL: the `EFFECT_CALL` journal.

use chrono::NaiveDateTime;
use diesel::sql_types::{Array, BigInt, Integer, Nullable, Text, Timestamp};
use diesel::{QueryableByName, RunQueryDsl, sql_query};

use super::errors::query;
use super::prepared::Prepare;
use super::statements as sql;
use super::tx::PgTx;
use crate::FailureKind;
use crate::store::{CallStatus, Grant, JournalOps, NewCall, StoreError, StoredCall};

#[derive(QueryableByName)]
struct CallIdRow {
    #[diesel(sql_type = BigInt)]
    call_id: i64,
}

#[derive(QueryableByName)]
struct CallRow {
    #[diesel(sql_type = BigInt)]
    call_id: i64,
    #[diesel(sql_type = Text)]
    idempotency_key: String,
    #[diesel(sql_type = Text)]
    call_kind: String,
    #[diesel(sql_type = Text)]
    target: String,
    #[diesel(sql_type = Text)]
    payload: String,
    #[diesel(sql_type = Text)]
    payload_digest: String,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Nullable<Text>)]
    send_token: Option<String>,
    #[diesel(sql_type = Integer)]
    attempt: i32,
    #[diesel(sql_type = Nullable<Timestamp>)]
    deadline_at: Option<NaiveDateTime>,
}

impl CallRow {
    fn into_call(self, op: &'static str) -> Result<StoredCall, StoreError> {
        let status = CallStatus::from_code(&self.status).ok_or_else(|| {
            StoreError::new(
                FailureKind::Other,
                op,
                format!("unknown EFFECT_CALL.STATUS {:?}", self.status),
            )
        })?;
        Ok(StoredCall {
            call_id: self.call_id,
            idempotency_key: self.idempotency_key,
            call_kind: self.call_kind,
            target: self.target,
            payload: self.payload,
            payload_digest: self.payload_digest,
            status,
            send_token: self.send_token,
            attempt: self.attempt,
            deadline_at: self.deadline_at,
        })
    }
}

#[derive(QueryableByName)]
struct GrantRow {
    #[diesel(sql_type = BigInt)]
    call_id: i64,
    #[diesel(sql_type = Text)]
    send_token: String,
    #[diesel(sql_type = Integer)]
    attempt: i32,
}

fn codes(statuses: &[CallStatus]) -> Vec<&'static str> {
    statuses.iter().map(|s| s.code()).collect()
}

const UNRESOLVED: &[CallStatus] = &[CallStatus::Dispatched, CallStatus::Unknown];
const GRANTABLE: &[CallStatus] = &[CallStatus::Pending, CallStatus::NotSent];

impl JournalOps for PgTx<'_> {
    fn insert_effect_intent(
        &mut self,
        call: &NewCall<'_>,
        now: NaiveDateTime,
    ) -> Result<Option<i64>, StoreError> {
        crate::store::nonempty::refuse_empty_call(call)?;
        let rows: Vec<CallIdRow> = sql_query(sql::INSERT_EFFECT_INTENT)
            .bind::<Text, _>(call.idempotency_key)
            .bind::<Text, _>(call.scope)
            .bind::<Text, _>(call.step)
            .bind::<Text, _>(call.sub_key)
            .bind::<Text, _>(call.call_kind)
            .bind::<Text, _>(call.target)
            .bind::<Text, _>(call.payload)
            .bind::<Text, _>(call.payload_digest)
            .bind::<Nullable<Timestamp>, _>(call.deadline_at)
            .bind::<Timestamp, _>(now)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("insert_effect_intent", e))?;
        Ok(rows.first().map(|r| r.call_id))
    }

    fn select_effect_call(
        &mut self,
        idempotency_key: &str,
    ) -> Result<Option<StoredCall>, StoreError> {
        let rows: Vec<CallRow> = sql_query(sql::SELECT_EFFECT_CALL)
            .bind::<Text, _>(idempotency_key)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_effect_call", e))?;
        rows.into_iter()
            .next()
            .map(|r| r.into_call("select_effect_call"))
            .transpose()
    }

    fn select_open_effect_calls(
        &mut self,
        limit: i64,
        now: NaiveDateTime,
    ) -> Result<Vec<StoredCall>, StoreError> {
        let rows: Vec<CallRow> = sql_query(sql::SELECT_OPEN_EFFECT_CALLS)
            .bind::<Array<Text>, _>(codes(UNRESOLVED))
            .bind::<Array<Text>, _>(codes(GRANTABLE))
            .bind::<Timestamp, _>(now)
            .bind::<BigInt, _>(limit)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_open_effect_calls", e))?;
        rows.into_iter()
            .map(|r| r.into_call("select_open_effect_calls"))
            .collect()
    }

    fn grant_effect_calls(
        &mut self,
        calls: &[(i64, i32)],
        epoch: i64,
        now: NaiveDateTime,
    ) -> Result<Vec<Grant>, StoreError> {
        if calls.is_empty() {
            return Ok(Vec::new());
        }
        let rows: Vec<GrantRow> = sql_query(sql::GRANT_EFFECT_CALLS)
            .bind::<Array<BigInt>, _>(calls.iter().map(|c| c.0).collect::<Vec<_>>())
            .bind::<Array<Integer>, _>(calls.iter().map(|c| c.1).collect::<Vec<_>>())
            .bind::<Text, _>(CallStatus::Dispatched.code())
            .bind::<BigInt, _>(epoch)
            .bind::<Timestamp, _>(now)
            .bind::<Array<Text>, _>(codes(GRANTABLE))
            .prepared()
            .load(self.conn())
            .map_err(|e| query("grant_effect_calls", e))?;
        Ok(rows
            .into_iter()
            .map(|r| Grant {
                call_id: r.call_id,
                send_token: r.send_token,
                attempt: r.attempt,
            })
            .collect())
    }

    fn record_effect_receipt(
        &mut self,
        call_id: i64,
        send_token: &str,
        status: CallStatus,
        remote_ref: Option<&str>,
        now: NaiveDateTime,
    ) -> Result<bool, StoreError> {
        let rows: Vec<CallIdRow> = sql_query(sql::RECORD_EFFECT_RECEIPT)
            .bind::<BigInt, _>(call_id)
            .bind::<Text, _>(send_token)
            .bind::<Text, _>(status.code())
            .bind::<Nullable<Text>, _>(remote_ref)
            .bind::<Timestamp, _>(now)
            .bind::<Array<Text>, _>(codes(UNRESOLVED))
            .prepared()
            .load(self.conn())
            .map_err(|e| query("record_effect_receipt", e))?;
        Ok(!rows.is_empty())
    }
}
