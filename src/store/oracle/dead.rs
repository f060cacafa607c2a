//! [`DeadOps`] on Oracle: dead letters listed, shown and requeued, with
//! named binds. Never run on this project's machines (no Oracle there);
//! pinned and linted with the other statements.

use chrono::NaiveDateTime;
use oracle::Row;
use oracle::sql_type::{OracleType, Timestamp};

use super::binds::{AsTimestamp, Text, proc_status, read_time, required_time, run_batch};
use super::errors::at;
use super::statements as sql;
use super::tx::OracleTx;
use crate::store::{
    DeadFilter, DeadOps, MASS_DELETE, MessageRecord, ProcStatus, REQUEUED, StoreError,
};

/// Ids per `FLIGHTSTATE_ID_LIST` bind: an operator requeues a handful, or
/// one error kind's worth.
const REQUEUE_BATCH: usize = 1_000;

fn record(row: &Row, op: &'static str) -> Result<MessageRecord, StoreError> {
    let first_seen: Timestamp = row.get("first_seen_at").map_err(at(op))?;
    let updated: Timestamp = row.get("updated_at").map_err(at(op))?;
    let requeued: Option<Timestamp> = row.get("requeued_at").map_err(at(op))?;
    Ok(MessageRecord {
        message_id: row.get("message_id").map_err(at(op))?,
        status: proc_status(row, op)?,
        error_kind: row.get("error_kind").map_err(at(op))?,
        error_text: row.get("error_text").map_err(at(op))?,
        msg_type: row.get("msg_type").map_err(at(op))?,
        msg_subtype: row.get("msg_subtype").map_err(at(op))?,
        attempts: row.get("attempts").map_err(at(op))?,
        first_seen_at: required_time(first_seen, op)?,
        updated_at: required_time(updated, op)?,
        requeue_count: row.get("requeue_count").map_err(at(op))?,
        requeued_by: row.get("requeued_by").map_err(at(op))?,
        requeued_at: read_time(requeued),
    })
}

impl DeadOps for OracleTx<'_> {
    fn select_dead_letters(
        &mut self,
        filter: DeadFilter<'_>,
        limit: i64,
    ) -> Result<Vec<MessageRecord>, StoreError> {
        let op = "select_dead_letters";
        let (day_start, day_end) = filter.day_bounds();
        let rows = self
            .conn()
            .query_named(
                sql::SELECT_DEAD_LETTERS,
                &[
                    ("status", &Text(Some(ProcStatus::Dead.code()))),
                    ("error_kind", &Text(filter.error_kind)),
                    ("since", &AsTimestamp(filter.since)),
                    ("error_text", &Text(filter.error_text)),
                    ("day_start", &AsTimestamp(day_start)),
                    ("day_end", &AsTimestamp(day_end)),
                    ("max_rows", &limit),
                ],
            )
            .map_err(at(op))?;
        rows.map(|row| record(&row.map_err(at(op))?, op)).collect()
    }

    fn select_message_record(
        &mut self,
        message_id: i64,
    ) -> Result<Option<MessageRecord>, StoreError> {
        let op = "select_message_record";
        let mut rows = self
            .conn()
            .query_named(sql::SELECT_MESSAGE_RECORD, &[("message_id", &message_id)])
            .map_err(at(op))?;
        rows.next()
            .map(|row| record(&row.map_err(at(op))?, op))
            .transpose()
    }

    fn requeue_dead_letters(
        &mut self,
        message_ids: &[i64],
        by: &str,
        now: NaiveDateTime,
    ) -> Result<Vec<(i64, i32)>, StoreError> {
        // Read and locked by the id list, then requeued by key: no collection bind beside
        // RETURNING (docs/oracle.md, "No collection beside RETURNING").
        let op = "lock_dead_letters";
        let mut requeued: Vec<(i64, i32)> = Vec::new();
        for batch in message_ids.chunks(REQUEUE_BATCH) {
            let list = self.id_list(batch, op)?;
            let rows = self
                .conn()
                .query_as_named::<(i64, i32)>(
                    sql::LOCK_DEAD_LETTERS,
                    &[
                        ("ids", &list),
                        ("dead", &Text(Some(ProcStatus::Dead.code()))),
                    ],
                )
                .map_err(at(op))?;
            requeued.extend(
                rows.collect::<oracle::Result<Vec<(i64, i32)>>>()
                    .map_err(at(op))?,
            );
        }
        // An id given twice, in two chunks, is locked twice and requeued once.
        requeued.sort_unstable();
        requeued.dedup_by_key(|r| r.0);
        let ids: Vec<i64> = requeued.iter().map(|r| r.0).collect();
        let (failed, kind, dead) = (
            Text(Some(ProcStatus::Failed.code())),
            Text(Some(REQUEUED)),
            Text(Some(ProcStatus::Dead.code())),
        );
        let (who, at_now) = (Text(Some(by)), AsTimestamp(Some(now)));
        run_batch(
            self.conn(),
            sql::REQUEUE_DEAD_LETTERS,
            "requeue_dead_letters",
            // The texts are the same in every row: each is typed by its first value.
            &[
                ("now", OracleType::Timestamp(6)),
                ("message_id", OracleType::Int64),
            ],
            ids.len(),
            |batch, row| {
                batch.set("failed", &failed)?;
                batch.set("requeued", &kind)?;
                batch.set("requeued_by", &who)?;
                batch.set("now", &at_now)?;
                batch.set("message_id", &ids[row])?;
                batch.set("dead", &dead)
            },
        )?;
        Ok(requeued)
    }

    fn decide_held_message(
        &mut self,
        message_id: i64,
        decision: &str,
        by: &str,
        now: NaiveDateTime,
    ) -> Result<bool, StoreError> {
        let op = "decide_held_message";
        let stmt = self
            .conn()
            .execute_named(
                sql::DECIDE_HELD_MESSAGE,
                &[
                    ("message_id", &message_id),
                    ("decision", &Text(Some(decision))),
                    ("decided_by", &Text(Some(by))),
                    ("now", &AsTimestamp(Some(now))),
                    ("held", &Text(Some(ProcStatus::Held.code()))),
                    ("waiting", &Text(Some(MASS_DELETE))),
                ],
            )
            .map_err(at(op))?;
        Ok(stmt.row_count().map_err(at(op))? > 0)
    }
}
