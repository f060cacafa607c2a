//! [`LeaseOps`] on PostgreSQL: the pump lease in `PIPELINE_LOCK` and the
//! retry time of a blocked head.

use chrono::NaiveDateTime;
use diesel::sql_types::{BigInt, Text, Timestamp};
use diesel::{QueryableByName, RunQueryDsl, sql_query};

use super::errors::query;
use super::prepared::Prepare;
use super::statements as sql;
use super::tx::PgTx;
use crate::store::{LeaseOps, ProcStatus, StoreError};

#[derive(QueryableByName)]
struct EpochRow {
    #[diesel(sql_type = BigInt)]
    lease_epoch: i64,
}

impl LeaseOps for PgTx<'_> {
    #[tracing::instrument(name = "store.acquire_lease", skip_all)]
    fn acquire_lease(
        &mut self,
        holder: &str,
        now: NaiveDateTime,
        expires_at: NaiveDateTime,
    ) -> Result<Option<i64>, StoreError> {
        let rows: Vec<EpochRow> = sql_query(sql::ACQUIRE_LEASE)
            .bind::<Text, _>(holder)
            .bind::<Timestamp, _>(now)
            .bind::<Timestamp, _>(expires_at)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("acquire_lease", e))?;
        Ok(rows.first().map(|r| r.lease_epoch))
    }

    #[tracing::instrument(name = "store.renew_lease", skip_all)]
    fn renew_lease(
        &mut self,
        holder: &str,
        epoch: i64,
        now: NaiveDateTime,
        expires_at: NaiveDateTime,
    ) -> Result<bool, StoreError> {
        let rows: Vec<EpochRow> = sql_query(sql::RENEW_LEASE)
            .bind::<Text, _>(holder)
            .bind::<BigInt, _>(epoch)
            .bind::<Timestamp, _>(now)
            .bind::<Timestamp, _>(expires_at)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("renew_lease", e))?;
        Ok(!rows.is_empty())
    }

    #[tracing::instrument(name = "store.release_lease", skip_all)]
    fn release_lease(
        &mut self,
        holder: &str,
        epoch: i64,
        now: NaiveDateTime,
    ) -> Result<bool, StoreError> {
        let rows: Vec<EpochRow> = sql_query(sql::RELEASE_LEASE)
            .bind::<Text, _>(holder)
            .bind::<BigInt, _>(epoch)
            .bind::<Timestamp, _>(now)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("release_lease", e))?;
        Ok(!rows.is_empty())
    }

    fn schedule_retry(
        &mut self,
        message_id: i64,
        next_attempt_at: NaiveDateTime,
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        sql_query(sql::SCHEDULE_RETRY)
            .bind::<BigInt, _>(message_id)
            .bind::<Timestamp, _>(next_attempt_at)
            .bind::<Timestamp, _>(now)
            .bind::<Text, _>(ProcStatus::Failed.code())
            .prepared()
            .execute(self.conn())
            .map(drop)
            .map_err(|e| query("schedule_retry", e))
    }
}
