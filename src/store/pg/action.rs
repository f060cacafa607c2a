//! [`ActionOps`] on PostgreSQL: the operator's record written, read and
//! cleaned up.

use chrono::{NaiveDate, NaiveDateTime};
use diesel::sql_types::{Array, BigInt, Date, Nullable, Text, Timestamp};
use diesel::{QueryableByName, RunQueryDsl, sql_query};

use super::errors::query;
use super::prepared::Prepare;
use super::statements as sql;
use super::tx::PgTx;
use crate::store::action::{ACTION_BY_CHARS, ACTION_DETAIL_CHARS, cut};
use crate::store::{ActionOps, ActionRecord, NewAction, StoreError};

#[derive(QueryableByName)]
struct ActionRow {
    #[diesel(sql_type = BigInt)]
    action_id: i64,
    #[diesel(sql_type = Timestamp)]
    taken_at: NaiveDateTime,
    #[diesel(sql_type = Text)]
    taken_by: String,
    #[diesel(sql_type = Text)]
    via: String,
    #[diesel(sql_type = Text)]
    action: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    message_id: Option<i64>,
    #[diesel(sql_type = Nullable<Date>)]
    operation_day: Option<NaiveDate>,
    #[diesel(sql_type = Nullable<BigInt>)]
    flid: Option<i64>,
    #[diesel(sql_type = Text)]
    result: String,
    #[diesel(sql_type = Nullable<Text>)]
    detail: Option<String>,
}

#[derive(QueryableByName)]
struct IdRow {
    #[diesel(sql_type = BigInt)]
    action_id: i64,
}

impl ActionOps for PgTx<'_> {
    fn insert_operator_action(&mut self, action: &NewAction<'_>) -> Result<(), StoreError> {
        crate::store::nonempty::refuse_empty_action(action)?;
        let detail = Some(cut(action.detail, ACTION_DETAIL_CHARS)).filter(|d| !d.is_empty());
        sql_query(sql::INSERT_OPERATOR_ACTION)
            .bind::<Timestamp, _>(action.taken_at)
            .bind::<Text, _>(cut(action.taken_by, ACTION_BY_CHARS))
            .bind::<Text, _>(action.via)
            .bind::<Text, _>(action.action)
            .bind::<Nullable<BigInt>, _>(action.message_id)
            .bind::<Nullable<Date>, _>(action.operation_day)
            .bind::<Nullable<BigInt>, _>(action.flid)
            .bind::<Text, _>(action.result)
            .bind::<Nullable<Text>, _>(detail)
            .prepared()
            .execute(self.conn())
            .map_err(|e| query("insert_operator_action", e))?;
        Ok(())
    }

    fn select_operator_actions(&mut self, limit: i64) -> Result<Vec<ActionRecord>, StoreError> {
        let rows: Vec<ActionRow> = sql_query(sql::SELECT_OPERATOR_ACTIONS)
            .bind::<BigInt, _>(limit)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_operator_actions", e))?;
        Ok(rows
            .into_iter()
            .map(|r| ActionRecord {
                action_id: r.action_id,
                taken_at: r.taken_at,
                taken_by: r.taken_by,
                via: r.via,
                action: r.action,
                message_id: r.message_id,
                operation_day: r.operation_day,
                flid: r.flid,
                result: r.result,
                detail: r.detail,
            })
            .collect())
    }

    fn select_old_operator_actions(
        &mut self,
        cutoff: NaiveDateTime,
        after: i64,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError> {
        let rows: Vec<IdRow> = sql_query(sql::SELECT_OLD_OPERATOR_ACTIONS)
            .bind::<Timestamp, _>(cutoff)
            .bind::<BigInt, _>(after)
            .bind::<BigInt, _>(limit)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_old_operator_actions", e))?;
        Ok(rows.into_iter().map(|r| r.action_id).collect())
    }

    fn delete_operator_actions(
        &mut self,
        action_ids: &[i64],
        cutoff: NaiveDateTime,
    ) -> Result<usize, StoreError> {
        if action_ids.is_empty() {
            return Ok(0);
        }
        sql_query(sql::DELETE_OPERATOR_ACTIONS)
            .bind::<Array<BigInt>, _>(action_ids.to_vec())
            .bind::<Timestamp, _>(cutoff)
            .prepared()
            .execute(self.conn())
            .map_err(|e| query("delete_operator_actions", e))
    }
}
