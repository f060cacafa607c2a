//! [`TailOps`] on Oracle, with named binds. Never run on this project's
//! machines (no Oracle there); pinned and linted with the other statements.

use super::binds::Text;
use super::errors::at;
use super::statements as sql;
use super::tx::OracleTx;
use crate::store::{ProcStatus, REQUEUED, StoreError, TailOps};

impl TailOps for OracleTx<'_> {
    fn select_last_final_message(&mut self) -> Result<Option<i64>, StoreError> {
        let op = "select_last_final_message";
        let row = self
            .conn()
            .query_row_named(
                sql::SELECT_LAST_FINAL_MESSAGE,
                &[
                    ("succeeded", &Text(Some(ProcStatus::Succeeded.code()))),
                    ("dead", &Text(Some(ProcStatus::Dead.code()))),
                    ("failed", &Text(Some(ProcStatus::Failed.code()))),
                    ("requeued", &Text(Some(REQUEUED))),
                ],
            )
            .map_err(at(op))?;
        row.get("last_message_id").map_err(at(op))
    }
}
