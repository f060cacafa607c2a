//! [`CleanupOps`] on Oracle: the lifecycle clean-up's selects and purges,
//! with named binds. Never run on this project's machines (no Oracle
//! there); pinned and linted with the other statements.

use chrono::{NaiveDate, NaiveDateTime};
use oracle::Row;
use oracle::sql_type::Timestamp;

use super::binds::{AsDate, AsTimestamp, Text, required_time};
use super::errors::at;
use super::statements as sql;
use super::tx::OracleTx;
use crate::store::{
    CallStatus, CleanupOps, ProcStatus, RequestStatus, RetiredFlight, StaleFlight, StoreError,
};

/// Ids per `FLIGHTSTATE_ID_LIST` bind: a clean-up batch is at most this.
const PURGE_BATCH: usize = 1_000;

fn day(row: &Row, op: &'static str) -> Result<NaiveDate, StoreError> {
    let day: Timestamp = row.get("operation_day").map_err(at(op))?;
    Ok(required_time(day, op)?.date())
}

impl OracleTx<'_> {
    /// Runs `text` once per batch of `ids` (bound as `:ids`) with `binds`;
    /// returns the rows deleted.
    pub(super) fn delete_listed(
        &mut self,
        text: &'static str,
        op: &'static str,
        ids: &[i64],
        binds: &[(&str, &dyn oracle::sql_type::ToSql)],
    ) -> Result<usize, StoreError> {
        let mut deleted = 0;
        for batch in ids.chunks(PURGE_BATCH) {
            let list = self.id_list(batch, op)?;
            let mut all: Vec<(&str, &dyn oracle::sql_type::ToSql)> = vec![("ids", &list)];
            all.extend_from_slice(binds);
            let stmt = self.conn().execute_named(text, &all).map_err(at(op))?;
            let count = stmt.row_count().map_err(at(op))?;
            deleted += usize::try_from(count).unwrap_or(usize::MAX);
        }
        Ok(deleted)
    }
}

impl CleanupOps for OracleTx<'_> {
    fn select_stale_flights(
        &mut self,
        cutoff: NaiveDateTime,
        day_boundary_minutes: i32,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StaleFlight>, StoreError> {
        let op = "select_stale_flights";
        let rows = self
            .conn()
            .query_named(
                sql::SELECT_STALE_FLIGHTS,
                &[
                    ("cutoff", &AsDate(Some(cutoff))),
                    ("after_flid", &after),
                    ("pending", &Text(Some(RequestStatus::Pending.code()))),
                    ("boundary_minutes", &day_boundary_minutes),
                    ("max_rows", &limit),
                ],
            )
            .map_err(at(op))?;
        rows.map(|row| {
            let row = row.map_err(at(op))?;
            Ok(StaleFlight {
                flid: row.get("flid").map_err(at(op))?,
                last_message_id: row.get("last_message_id").map_err(at(op))?,
            })
        })
        .collect()
    }

    fn select_retired_flights(
        &mut self,
        first_kept: NaiveDate,
        after: i64,
        limit: i64,
    ) -> Result<Vec<RetiredFlight>, StoreError> {
        let op = "select_retired_flights";
        let rows = self
            .conn()
            .query_named(
                sql::SELECT_RETIRED_FLIGHTS,
                &[
                    ("first_kept", &AsDate::day(first_kept)),
                    ("after_flid", &after),
                    ("max_rows", &limit),
                ],
            )
            .map_err(at(op))?;
        rows.map(|row| {
            let row = row.map_err(at(op))?;
            Ok(RetiredFlight {
                flid: row.get("flid").map_err(at(op))?,
                operation_day: day(&row, op)?,
                last_message_id: row.get("last_message_id").map_err(at(op))?,
            })
        })
        .collect()
    }

    fn select_retired_days(&mut self, first_kept: NaiveDate) -> Result<Vec<NaiveDate>, StoreError> {
        let op = "select_retired_days";
        let rows = self
            .conn()
            .query_named(
                sql::SELECT_RETIRED_DAYS,
                &[("first_kept", &AsDate::day(first_kept))],
            )
            .map_err(at(op))?;
        rows.map(|row| day(&row.map_err(at(op))?, op)).collect()
    }

    fn select_stale_snapshot_days(
        &mut self,
        cutoff: NaiveDate,
        after: Option<NaiveDate>,
        limit: i64,
    ) -> Result<Vec<NaiveDate>, StoreError> {
        let op = "select_stale_snapshot_days";
        let after = AsDate(after.map(|d| d.and_time(chrono::NaiveTime::MIN)));
        let rows = self
            .conn()
            .query_named(
                sql::SELECT_STALE_SNAPSHOT_DAYS,
                &[
                    ("cutoff", &AsDate::day(cutoff)),
                    ("after_day", &after),
                    ("max_rows", &limit),
                ],
            )
            .map_err(at(op))?;
        rows.map(|row| day(&row.map_err(at(op))?, op)).collect()
    }

    fn delete_snapshot_ledger(
        &mut self,
        day: NaiveDate,
        cutoff: NaiveDate,
    ) -> Result<bool, StoreError> {
        let op = "delete_snapshot_ledger";
        let stmt = self
            .conn()
            .execute_named(
                sql::DELETE_SNAPSHOT_LEDGER,
                &[
                    ("operation_day", &AsDate::day(day)),
                    ("cutoff", &AsDate::day(cutoff)),
                ],
            )
            .map_err(at(op))?;
        Ok(stmt.row_count().map_err(at(op))? == 1)
    }

    fn select_stale_proc_states(
        &mut self,
        cutoff: NaiveDateTime,
        (target_prefix, calls_cutoff): (&str, NaiveDateTime),
        after: i64,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError> {
        let op = "select_stale_proc_states";
        let rows = self
            .conn()
            .query_named(
                sql::SELECT_STALE_PROC_STATES,
                &[
                    ("status", &Text(Some(ProcStatus::Succeeded.code()))),
                    ("cutoff", &AsTimestamp(Some(cutoff))),
                    ("after_id", &after),
                    ("target_prefix", &Text(Some(target_prefix))),
                    ("accepted", &Text(Some(CallStatus::Accepted.code()))),
                    ("rejected", &Text(Some(CallStatus::Rejected.code()))),
                    ("conflict", &Text(Some(CallStatus::Conflict.code()))),
                    ("calls_cutoff", &AsTimestamp(Some(calls_cutoff))),
                    ("max_rows", &limit),
                ],
            )
            .map_err(at(op))?;
        rows.map(|row| row.map_err(at(op))?.get("message_id").map_err(at(op)))
            .collect()
    }

    fn delete_proc_states(&mut self, message_ids: &[i64]) -> Result<usize, StoreError> {
        let status = Text(Some(ProcStatus::Succeeded.code()));
        self.delete_listed(
            sql::DELETE_PROC_STATES,
            "delete_proc_states",
            message_ids,
            &[("status", &status)],
        )
    }

    fn select_settled_effect_calls(
        &mut self,
        cutoff: NaiveDateTime,
        after: i64,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError> {
        let op = "select_settled_effect_calls";
        let rows = self
            .conn()
            .query_named(
                sql::SELECT_SETTLED_EFFECT_CALLS,
                &[
                    ("accepted", &Text(Some(CallStatus::Accepted.code()))),
                    ("rejected", &Text(Some(CallStatus::Rejected.code()))),
                    ("conflict", &Text(Some(CallStatus::Conflict.code()))),
                    ("cutoff", &AsTimestamp(Some(cutoff))),
                    ("after_id", &after),
                    ("max_rows", &limit),
                ],
            )
            .map_err(at(op))?;
        rows.map(|row| row.map_err(at(op))?.get("call_id").map_err(at(op)))
            .collect()
    }

    fn delete_effect_calls(&mut self, call_ids: &[i64]) -> Result<usize, StoreError> {
        let (accepted, rejected, conflict) = (
            Text(Some(CallStatus::Accepted.code())),
            Text(Some(CallStatus::Rejected.code())),
            Text(Some(CallStatus::Conflict.code())),
        );
        self.delete_listed(
            sql::DELETE_EFFECT_CALLS,
            "delete_effect_calls",
            call_ids,
            &[
                ("accepted", &accepted),
                ("rejected", &rejected),
                ("conflict", &conflict),
            ],
        )
    }
}
