//! [`LeaseOps`] on Oracle: the pump lease in `PIPELINE_LOCK` and the retry time of a blocked
//! head.

use chrono::NaiveDateTime;
use oracle::sql_type::OracleType;

use super::binds::{AsTimestamp, Text};
use super::errors::at;
use super::statements as sql;
use super::tx::OracleTx;
use crate::store::{LeaseOps, ProcStatus, StoreError};

impl LeaseOps for OracleTx<'_> {
    #[tracing::instrument(name = "store.acquire_lease", skip_all)]
    fn acquire_lease(
        &mut self,
        holder: &str,
        now: NaiveDateTime,
        expires_at: NaiveDateTime,
    ) -> Result<Option<i64>, StoreError> {
        let op = "acquire_lease";
        let out = OracleType::Number(19, 0);
        let stmt = self
            .conn()
            .execute_named(
                sql::ACQUIRE_LEASE,
                &[
                    ("holder", &Text(Some(holder))),
                    ("now", &AsTimestamp(Some(now))),
                    ("expires_at", &AsTimestamp(Some(expires_at))),
                    ("lease_epoch", &out),
                ],
            )
            .map_err(at(op))?;
        let epochs: Vec<i64> = stmt.returned_values("lease_epoch").map_err(at(op))?;
        Ok(epochs.first().copied())
    }

    #[tracing::instrument(name = "store.renew_lease", skip_all)]
    fn renew_lease(
        &mut self,
        holder: &str,
        epoch: i64,
        now: NaiveDateTime,
        expires_at: NaiveDateTime,
    ) -> Result<bool, StoreError> {
        let op = "renew_lease";
        let stmt = self
            .conn()
            .execute_named(
                sql::RENEW_LEASE,
                &[
                    ("holder", &Text(Some(holder))),
                    ("epoch", &epoch),
                    ("now", &AsTimestamp(Some(now))),
                    ("expires_at", &AsTimestamp(Some(expires_at))),
                ],
            )
            .map_err(at(op))?;
        Ok(stmt.row_count().map_err(at(op))? > 0)
    }

    #[tracing::instrument(name = "store.release_lease", skip_all)]
    fn release_lease(
        &mut self,
        holder: &str,
        epoch: i64,
        now: NaiveDateTime,
    ) -> Result<bool, StoreError> {
        let op = "release_lease";
        let stmt = self
            .conn()
            .execute_named(
                sql::RELEASE_LEASE,
                &[
                    ("holder", &Text(Some(holder))),
                    ("epoch", &epoch),
                    ("now", &AsTimestamp(Some(now))),
                ],
            )
            .map_err(at(op))?;
        Ok(stmt.row_count().map_err(at(op))? > 0)
    }

    fn schedule_retry(
        &mut self,
        message_id: i64,
        next_attempt_at: NaiveDateTime,
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        self.conn()
            .execute_named(
                sql::SCHEDULE_RETRY,
                &[
                    ("message_id", &message_id),
                    ("next_attempt_at", &AsTimestamp(Some(next_attempt_at))),
                    ("now", &AsTimestamp(Some(now))),
                    ("status", &Text(Some(ProcStatus::Failed.code()))),
                ],
            )
            .map(drop)
            .map_err(at("schedule_retry"))
    }
}
