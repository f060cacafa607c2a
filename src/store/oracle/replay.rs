//! [`ReplayOps`] on Oracle, with named binds. Never run on this project's
//! machines (no Oracle there); pinned and linted with the other statements.

use super::binds::{AsTimestamp, Text};
use super::errors::at;
use super::statements as sql;
use super::tx::OracleTx;
use crate::store::{ProcStatus, ReplayOps, ReplayRecord, StoreError};

impl ReplayOps for OracleTx<'_> {
    fn record_replay(&mut self, replay: &ReplayRecord<'_>) -> Result<bool, StoreError> {
        let op = "record_replay";
        let stmt = self
            .conn()
            .execute_named(
                sql::RECORD_REPLAY,
                &[
                    ("message_id", &replay.message_id),
                    ("replayed_by", &Text(Some(replay.by))),
                    ("now", &AsTimestamp(Some(replay.now))),
                    ("policy", &Text(Some(replay.policy))),
                    ("succeeded", &Text(Some(ProcStatus::Succeeded.code()))),
                ],
            )
            .map_err(at(op))?;
        Ok(stmt.row_count().map_err(at(op))? > 0)
    }
}
