//! [`ReplayOps`] on PostgreSQL.

use diesel::sql_types::{BigInt, Text, Timestamp};
use diesel::{RunQueryDsl, sql_query};

use super::errors::query;
use super::prepared::Prepare;
use super::statements as sql;
use super::tx::PgTx;
use crate::store::{ProcStatus, ReplayOps, ReplayRecord, StoreError};

impl ReplayOps for PgTx<'_> {
    fn record_replay(&mut self, replay: &ReplayRecord<'_>) -> Result<bool, StoreError> {
        let updated = sql_query(sql::RECORD_REPLAY)
            .bind::<BigInt, _>(replay.message_id)
            .bind::<Text, _>(replay.by)
            .bind::<Timestamp, _>(replay.now)
            .bind::<Text, _>(replay.policy)
            .bind::<Text, _>(ProcStatus::Succeeded.code())
            .prepared()
            .execute(self.conn())
            .map_err(|e| query("record_replay", e))?;
        Ok(updated > 0)
    }
}
