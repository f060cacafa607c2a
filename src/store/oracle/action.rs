//! [`ActionOps`] on Oracle: the operator's record written, read and
//! cleaned up, with named binds. Never run on this project's machines (no
//! Oracle there); pinned and linted with the other statements.

use chrono::NaiveDateTime;
use oracle::Row;
use oracle::sql_type::Timestamp;

use super::binds::{AsDate, AsTimestamp, Text, read_time, required_time};
use super::errors::at;
use super::statements as sql;
use super::tx::OracleTx;
use crate::store::action::{ACTION_BY_CHARS, ACTION_DETAIL_CHARS, cut};
use crate::store::{ActionOps, ActionRecord, NewAction, StoreError};

fn record(row: &Row, op: &'static str) -> Result<ActionRecord, StoreError> {
    let taken: Timestamp = row.get("taken_at").map_err(at(op))?;
    let day: Option<Timestamp> = row.get("operation_day").map_err(at(op))?;
    Ok(ActionRecord {
        action_id: row.get("action_id").map_err(at(op))?,
        taken_at: required_time(taken, op)?,
        taken_by: row.get("taken_by").map_err(at(op))?,
        via: row.get("via").map_err(at(op))?,
        action: row.get("action").map_err(at(op))?,
        message_id: row.get("message_id").map_err(at(op))?,
        operation_day: read_time(day).map(|t| t.date()),
        flid: row.get("flid").map_err(at(op))?,
        result: row.get("result").map_err(at(op))?,
        detail: row.get("detail").map_err(at(op))?,
    })
}

impl ActionOps for OracleTx<'_> {
    fn insert_operator_action(&mut self, action: &NewAction<'_>) -> Result<(), StoreError> {
        crate::store::nonempty::refuse_empty_action(action)?;
        let op = "insert_operator_action";
        // '' is NULL in Oracle anyway: an empty detail is none in both dialects.
        let detail = Some(cut(action.detail, ACTION_DETAIL_CHARS)).filter(|d| !d.is_empty());
        self.conn()
            .execute_named(
                sql::INSERT_OPERATOR_ACTION,
                &[
                    ("taken_at", &AsTimestamp(Some(action.taken_at))),
                    (
                        "taken_by",
                        &Text(Some(cut(action.taken_by, ACTION_BY_CHARS))),
                    ),
                    ("via", &Text(Some(action.via))),
                    ("action", &Text(Some(action.action))),
                    ("message_id", &action.message_id),
                    (
                        "operation_day",
                        &action.operation_day.map_or(AsDate(None), AsDate::day),
                    ),
                    ("flid", &action.flid),
                    ("result", &Text(Some(action.result))),
                    ("detail", &Text(detail)),
                ],
            )
            .map_err(at(op))?;
        Ok(())
    }

    fn select_operator_actions(&mut self, limit: i64) -> Result<Vec<ActionRecord>, StoreError> {
        let op = "select_operator_actions";
        let rows = self
            .conn()
            .query_named(sql::SELECT_OPERATOR_ACTIONS, &[("max_rows", &limit)])
            .map_err(at(op))?;
        rows.map(|row| record(&row.map_err(at(op))?, op)).collect()
    }

    fn select_old_operator_actions(
        &mut self,
        cutoff: NaiveDateTime,
        after: i64,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError> {
        let op = "select_old_operator_actions";
        let rows = self
            .conn()
            .query_named(
                sql::SELECT_OLD_OPERATOR_ACTIONS,
                &[
                    ("cutoff", &AsTimestamp(Some(cutoff))),
                    ("after_id", &after),
                    ("max_rows", &limit),
                ],
            )
            .map_err(at(op))?;
        rows.map(|row| row.map_err(at(op))?.get("action_id").map_err(at(op)))
            .collect()
    }

    fn delete_operator_actions(
        &mut self,
        action_ids: &[i64],
        cutoff: NaiveDateTime,
    ) -> Result<usize, StoreError> {
        self.delete_listed(
            sql::DELETE_OPERATOR_ACTIONS,
            "delete_operator_actions",
            action_ids,
            &[("cutoff", &AsTimestamp(Some(cutoff)))],
        )
    }
}
