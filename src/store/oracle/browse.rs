//! [`BrowseOps`] on Oracle: the status page's search and its per-minute
//! counts, with named binds. Never run on this project's machines (no
//! Oracle there); pinned and linted with the other statements.

use chrono::{NaiveDate, NaiveDateTime};
use oracle::sql_type::Timestamp;

use super::binds::{AsDate, AsTimestamp, Text, proc_status, read_time, required_time};
use super::errors::at;
use super::statements as sql;
use super::tx::OracleTx;
use crate::store::{BrowseOps, FlightMatch, ProcMinute, StoreError};

impl BrowseOps for OracleTx<'_> {
    fn select_flight_matches(
        &mut self,
        number: &str,
        first_day: NaiveDate,
        last_day: NaiveDate,
        limit: i64,
    ) -> Result<Vec<FlightMatch>, StoreError> {
        let op = "select_flight_matches";
        let rows = self
            .conn()
            .query_named(
                sql::SELECT_FLIGHT_MATCHES,
                &[
                    ("flight_number", &Text(Some(number))),
                    ("blank", &Text(Some(" "))),
                    ("first_day", &AsDate::day(first_day)),
                    ("last_day", &AsDate::day(last_day)),
                    ("how_many", &limit),
                ],
            )
            .map_err(at(op))?;
        rows.map(|row| {
            let row = row.map_err(at(op))?;
            let day: Option<Timestamp> = row.get("operation_day").map_err(at(op))?;
            let sodt: Option<Timestamp> = row.get("sodt").map_err(at(op))?;
            Ok(FlightMatch {
                flid: row.get("flid").map_err(at(op))?,
                flno: row.get("flno").map_err(at(op))?,
                mvin: row.get("mvin").map_err(at(op))?,
                operation_day: read_time(day).map(|t| t.date()),
                sodt: read_time(sodt),
                state_version: row.get("state_version").map_err(at(op))?,
            })
        })
        .collect()
    }

    fn select_proc_minutes(&mut self, since: NaiveDateTime) -> Result<Vec<ProcMinute>, StoreError> {
        let op = "select_proc_minutes";
        let rows = self
            .conn()
            .query_named(
                sql::SELECT_PROC_MINUTES,
                &[("since", &AsTimestamp(Some(since)))],
            )
            .map_err(at(op))?;
        rows.map(|row| {
            let row = row.map_err(at(op))?;
            let minute: Timestamp = row.get("minute").map_err(at(op))?;
            Ok(ProcMinute {
                minute: required_time(minute, op)?,
                status: proc_status(&row, op)?,
                msg_type: row.get("msg_type").map_err(at(op))?,
                msg_subtype: row.get("msg_subtype").map_err(at(op))?,
                messages: row.get("messages").map_err(at(op))?,
            })
        })
        .collect()
    }
}
