//! [`ReadOps`] on Oracle: the read-only snapshot, FLID pages and the
//! pipeline's own facts, with named binds. Never run on this project's
//! machines (no Oracle there); pinned and linted with the other statements.

use chrono::NaiveDate;
use oracle::Row;
use oracle::sql_type::Timestamp;

use super::binds::{AsDate, Text, proc_status, read_time, required_time};
use super::errors::at;
use super::statements as sql;
use super::tx::OracleTx;
use crate::store::{
    HeldDays, OutboxBacklog, PipelineLease, ProcCount, ProcEntry, ProcStatus, ReadOps, SnapshotDay,
    StoreError, Watermark, lowest,
};

fn entry(row: &Row, op: &'static str) -> Result<ProcEntry, StoreError> {
    let updated: Timestamp = row.get("updated_at").map_err(at(op))?;
    Ok(ProcEntry {
        message_id: row.get("message_id").map_err(at(op))?,
        error_kind: row.get("error_kind").map_err(at(op))?,
        error_text: row.get("error_text").map_err(at(op))?,
        msg_type: row.get("msg_type").map_err(at(op))?,
        msg_subtype: row.get("msg_subtype").map_err(at(op))?,
        attempts: row.get("attempts").map_err(at(op))?,
        updated_at: required_time(updated, op)?,
    })
}

fn day(row: &Row, op: &'static str) -> Result<SnapshotDay, StoreError> {
    let operation_day: Timestamp = row.get("operation_day").map_err(at(op))?;
    let updated: Timestamp = row.get("updated_at").map_err(at(op))?;
    Ok(SnapshotDay {
        operation_day: required_time(operation_day, op)?.date(),
        version: row.get("version").map_err(at(op))?,
        last_message_id: row.get("last_message_id").map_err(at(op))?,
        updated_at: required_time(updated, op)?,
        listed: row.get("listed").map_err(at(op))?,
        flights: row.get("flights").map_err(at(op))?,
    })
}

impl ReadOps for OracleTx<'_> {
    fn set_read_only_snapshot(&mut self) -> Result<(), StoreError> {
        self.conn()
            .execute(sql::SET_READ_ONLY_SNAPSHOT, &[])
            .map(drop)
            .map_err(at("set_read_only_snapshot"))
    }

    /// Oracle ends no idle transaction by itself: the DBA's Resource
    /// Manager does (`MAX_IDLE_BLOCKER_TIME`, `docs/pump.md`, "A frozen
    /// holder"), for the whole session. Nothing to set here.
    fn set_idle_limit(&mut self, _: Option<std::time::Duration>) -> Result<(), StoreError> {
        Ok(())
    }

    #[tracing::instrument(name = "store.flid_page", skip_all)]
    fn flid_page(
        &mut self,
        day: Option<NaiveDate>,
        after: i64,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError> {
        let (op, rows) = match day {
            None => {
                let op = "select_flids_after";
                let rows = self
                    .conn()
                    .query_as_named::<i64>(
                        sql::SELECT_FLIDS_AFTER,
                        &[("after_flid", &after), ("page_size", &limit)],
                    )
                    .map_err(at(op))?;
                (op, rows)
            }
            Some(day) => {
                let op = "select_flids_of_day_after";
                let rows = self
                    .conn()
                    .query_as_named::<i64>(
                        sql::SELECT_FLIDS_OF_DAY_AFTER,
                        &[
                            ("operation_day", &AsDate::day(day)),
                            ("after_flid", &after),
                            ("page_size", &limit),
                        ],
                    )
                    .map_err(at(op))?;
                (op, rows)
            }
        };
        rows.map(|r| r.map_err(at(op))).collect()
    }

    fn pipeline_lease(&mut self) -> Result<PipelineLease, StoreError> {
        let op = "select_pipeline_lease";
        let row = self
            .conn()
            .query_row_named(sql::SELECT_PIPELINE_LEASE, &[])
            .map_err(at(op))?;
        let expires: Option<Timestamp> = row.get("lease_expires_at").map_err(at(op))?;
        Ok(PipelineLease {
            holder: row.get("lease_holder").map_err(at(op))?,
            epoch: row.get("lease_epoch").map_err(at(op))?,
            expires_at: read_time(expires),
        })
    }

    fn proc_counts(&mut self) -> Result<Vec<ProcCount>, StoreError> {
        let op = "select_proc_counts";
        let rows = self
            .conn()
            .query_named(sql::SELECT_PROC_COUNTS, &[])
            .map_err(at(op))?;
        rows.map(|row| {
            let row = row.map_err(at(op))?;
            Ok(ProcCount {
                status: proc_status(&row, op)?,
                error_kind: row.get("error_kind").map_err(at(op))?,
                msg_type: row.get("msg_type").map_err(at(op))?,
                msg_subtype: row.get("msg_subtype").map_err(at(op))?,
                messages: row.get("messages").map_err(at(op))?,
            })
        })
        .collect()
    }

    fn latest_by_status(
        &mut self,
        status: ProcStatus,
        limit: i64,
    ) -> Result<Vec<ProcEntry>, StoreError> {
        let op = "select_latest_by_status";
        let rows = self
            .conn()
            .query_named(
                sql::SELECT_LATEST_BY_STATUS,
                &[("status", &Text(Some(status.code()))), ("how_many", &limit)],
            )
            .map_err(at(op))?;
        rows.map(|row| entry(&row.map_err(at(op))?, op)).collect()
    }

    fn outbox_backlog(&mut self) -> Result<OutboxBacklog, StoreError> {
        let op = "select_outbox_backlog";
        let row = self
            .conn()
            .query_row_named(sql::SELECT_OUTBOX_BACKLOG, &[])
            .map_err(at(op))?;
        let state_oldest: Option<Timestamp> = row.get("state_oldest").map_err(at(op))?;
        let change_oldest: Option<Timestamp> = row.get("change_oldest").map_err(at(op))?;
        Ok(OutboxBacklog {
            state_events: row.get("state_events").map_err(at(op))?,
            state_oldest: read_time(state_oldest),
            change_notices: row.get("change_notices").map_err(at(op))?,
            change_oldest: read_time(change_oldest),
        })
    }

    fn select_watermark(&mut self) -> Result<Watermark, StoreError> {
        let op = "select_watermark";
        let row = self
            .conn()
            .query_row_named(
                sql::SELECT_WATERMARK,
                &[
                    ("succeeded", &Text(Some(ProcStatus::Succeeded.code()))),
                    ("dead", &Text(Some(ProcStatus::Dead.code()))),
                ],
            )
            .map_err(at(op))?;
        let applied: Option<Timestamp> = row.get("last_applied_at").map_err(at(op))?;
        Ok(Watermark {
            last_message_id: row.get("last_message_id").map_err(at(op))?,
            last_applied_at: read_time(applied),
            lowest_pending_message_id: lowest(
                row.get("state_lowest_pending").map_err(at(op))?,
                row.get("change_lowest_pending").map_err(at(op))?,
            ),
        })
    }

    fn select_held_days(&mut self) -> Result<HeldDays, StoreError> {
        let op = "select_held_days";
        let row = self
            .conn()
            .query_row_named(sql::SELECT_HELD_DAYS, &[])
            .map_err(at(op))?;
        let day_of = |name: &str| -> Result<Option<NaiveDate>, StoreError> {
            let day: Option<Timestamp> = row.get(name).map_err(at(op))?;
            Ok(read_time(day).map(|t| t.date()))
        };
        Ok(HeldDays {
            first_day: day_of("first_day")?,
            last_day: day_of("last_day")?,
            without_day: row.get("without_day").map_err(at(op))?,
        })
    }

    fn snapshot_days(&mut self, limit: i64) -> Result<Vec<SnapshotDay>, StoreError> {
        let op = "select_snapshot_days";
        let rows = self
            .conn()
            .query_named(sql::SELECT_SNAPSHOT_DAYS, &[("how_many", &limit)])
            .map_err(at(op))?;
        rows.map(|row| day(&row.map_err(at(op))?, op)).collect()
    }
}
