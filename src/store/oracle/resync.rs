//! [`ResyncOps`] on Oracle, with named binds. Never run on this project's
//! machines (no Oracle there); pinned and linted with the other statements.

use oracle::ResultSet;
use oracle::sql_type::OracleType;

use super::binds::{ClobBind, run_batch};
use super::errors::at;
use super::statements as sql;
use super::tx::OracleTx;
use crate::store::{FlightVersion, RaisedVersion, ResyncOps, StoreError};

/// The rows of `select_flight_versions` or `select_current_versions`.
pub(super) fn flight_versions(
    rows: ResultSet<'_, (i64, i64, i64)>,
    op: &'static str,
) -> Result<Vec<FlightVersion>, StoreError> {
    rows.map(|row| {
        let (flid, state_version, last_message_id) = row.map_err(at(op))?;
        Ok(FlightVersion {
            flid,
            state_version,
            last_message_id,
        })
    })
    .collect()
}

impl ResyncOps for OracleTx<'_> {
    fn select_flight_versions(
        &mut self,
        after: i64,
        limit: i64,
    ) -> Result<Vec<FlightVersion>, StoreError> {
        let op = "select_flight_versions";
        let rows = self
            .conn()
            .query_as_named::<(i64, i64, i64)>(
                sql::SELECT_FLIGHT_VERSIONS,
                &[("after_flid", &after), ("page_size", &limit)],
            )
            .map_err(at(op))?;
        flight_versions(rows, op)
    }

    /// Array DML; 11g's default batch mode reports no row count per entry,
    /// so the version guard in the statement is not checked here: the
    /// caller's `PIPELINE_LOCK` keeps every row at the version it read.
    fn raise_state_versions(&mut self, raised: &[RaisedVersion]) -> Result<(), StoreError> {
        let op = "raise_state_versions";
        let document = ClobBind::of(op, "state_document")?;
        let longest = raised.iter().map(|r| r.state_document.len()).max();
        run_batch(
            self.conn(),
            sql::RAISE_STATE_VERSIONS,
            op,
            &[
                ("flid", OracleType::Int64),
                ("from_version", OracleType::Int64),
                ("state_version", OracleType::Int64),
                (document.name(), document.batch_type(longest.unwrap_or(0))),
            ],
            raised.len(),
            |batch, row| {
                let raise = &raised[row];
                batch.set("flid", &raise.flid)?;
                batch.set("from_version", &raise.from_version)?;
                batch.set("state_version", &raise.state_version)?;
                batch.set(document.name(), &document.value(&raise.state_document))
            },
        )
    }

    fn raise_event_ids(
        &mut self,
        state_events_above: i64,
        change_notices_above: i64,
    ) -> Result<(), StoreError> {
        self.conn()
            .execute_named(
                sql::RAISE_EVENT_IDS,
                &[
                    ("state_events_above", &state_events_above),
                    ("change_notices_above", &change_notices_above),
                ],
            )
            .map(drop)
            .map_err(at("raise_event_ids"))
    }

    fn delete_superseded_state_events(&mut self, limit: i64) -> Result<usize, StoreError> {
        let op = "delete_superseded_state_events";
        let stmt = self
            .conn()
            .execute_named(
                sql::DELETE_SUPERSEDED_STATE_EVENTS,
                &[("row_limit", &limit)],
            )
            .map_err(at(op))?;
        let count = stmt.row_count().map_err(at(op))?;
        Ok(usize::try_from(count).unwrap_or(usize::MAX))
    }
}
