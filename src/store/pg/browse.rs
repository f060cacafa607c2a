//! [`BrowseOps`] on PostgreSQL: the status page's search and its per-minute
//! counts.

use chrono::{NaiveDate, NaiveDateTime};
use diesel::sql_types::{BigInt, Date, Nullable, Text, Timestamp};
use diesel::{QueryableByName, RunQueryDsl, sql_query};

use super::errors::query;
use super::prepared::Prepare;
use super::rows::proc_status;
use super::statements as sql;
use super::tx::PgTx;
use crate::store::{BrowseOps, FlightMatch, ProcMinute, StoreError};

#[derive(QueryableByName)]
struct MatchRow {
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = Nullable<Text>)]
    flno: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    mvin: Option<String>,
    #[diesel(sql_type = Nullable<Date>)]
    operation_day: Option<NaiveDate>,
    #[diesel(sql_type = Nullable<Timestamp>)]
    sodt: Option<NaiveDateTime>,
    #[diesel(sql_type = BigInt)]
    state_version: i64,
}

#[derive(QueryableByName)]
struct MinuteRow {
    #[diesel(sql_type = Timestamp)]
    minute: NaiveDateTime,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Nullable<Text>)]
    msg_type: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    msg_subtype: Option<String>,
    #[diesel(sql_type = BigInt)]
    messages: i64,
}

impl BrowseOps for PgTx<'_> {
    fn select_flight_matches(
        &mut self,
        number: &str,
        first_day: NaiveDate,
        last_day: NaiveDate,
        limit: i64,
    ) -> Result<Vec<FlightMatch>, StoreError> {
        let rows: Vec<MatchRow> = sql_query(sql::SELECT_FLIGHT_MATCHES)
            .bind::<Text, _>(number)
            .bind::<Date, _>(first_day)
            .bind::<Date, _>(last_day)
            .bind::<BigInt, _>(limit)
            .bind::<Text, _>(" ")
            .bind::<Text, _>("")
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_flight_matches", e))?;
        Ok(rows
            .into_iter()
            .map(|r| FlightMatch {
                flid: r.flid,
                flno: r.flno,
                mvin: r.mvin,
                operation_day: r.operation_day,
                sodt: r.sodt,
                state_version: r.state_version,
            })
            .collect())
    }

    fn select_proc_minutes(&mut self, since: NaiveDateTime) -> Result<Vec<ProcMinute>, StoreError> {
        let op = "select_proc_minutes";
        let rows: Vec<MinuteRow> = sql_query(sql::SELECT_PROC_MINUTES)
            .bind::<Timestamp, _>(since)
            .prepared()
            .load(self.conn())
            .map_err(|e| query(op, e))?;
        rows.into_iter()
            .map(|r| {
                let status = proc_status(&r.status, op)?;
                Ok(ProcMinute {
                    minute: r.minute,
                    status,
                    msg_type: r.msg_type,
                    msg_subtype: r.msg_subtype,
                    messages: r.messages,
                })
            })
            .collect()
    }
}
