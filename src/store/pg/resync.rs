//! [`ResyncOps`] on PostgreSQL: the stored flights walked a page at a time,
//! their versions raised, the pending state events settled.

use diesel::sql_types::{Array, BigInt, Text};
use diesel::{QueryableByName, RunQueryDsl, sql_query};

use super::errors::query;
use super::prepared::Prepare;
use super::statements as sql;
use super::tx::PgTx;
use crate::FailureKind;
use crate::store::{FlightVersion, RaisedVersion, ResyncOps, StoreError};

/// A flight's version and last message, as `select_flight_versions` and
/// `select_current_versions` return them.
#[derive(QueryableByName)]
pub(super) struct VersionRow {
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = BigInt)]
    state_version: i64,
    #[diesel(sql_type = BigInt)]
    last_message_id: i64,
}

impl From<VersionRow> for FlightVersion {
    fn from(row: VersionRow) -> FlightVersion {
        FlightVersion {
            flid: row.flid,
            state_version: row.state_version,
            last_message_id: row.last_message_id,
        }
    }
}

impl ResyncOps for PgTx<'_> {
    fn select_flight_versions(
        &mut self,
        after: i64,
        limit: i64,
    ) -> Result<Vec<FlightVersion>, StoreError> {
        let rows: Vec<VersionRow> = sql_query(sql::SELECT_FLIGHT_VERSIONS)
            .bind::<BigInt, _>(after)
            .bind::<BigInt, _>(limit)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_flight_versions", e))?;
        Ok(rows.into_iter().map(FlightVersion::from).collect())
    }

    fn raise_state_versions(&mut self, raised: &[RaisedVersion]) -> Result<(), StoreError> {
        let op = "raise_state_versions";
        if raised.is_empty() {
            return Ok(());
        }
        let updated = sql_query(sql::RAISE_STATE_VERSIONS)
            .bind::<Array<BigInt>, _>(raised.iter().map(|r| r.flid).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(raised.iter().map(|r| r.from_version).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(raised.iter().map(|r| r.state_version).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(
                raised
                    .iter()
                    .map(|r| r.state_document.as_str())
                    .collect::<Vec<_>>(),
            )
            .prepared()
            .execute(self.conn())
            .map_err(|e| query(op, e))?;
        if updated == raised.len() {
            Ok(())
        } else {
            Err(StoreError::new(
                FailureKind::Conflict,
                op,
                format!(
                    "{} of {} flights were no longer at the version read",
                    raised.len() - updated.min(raised.len()),
                    raised.len()
                ),
            ))
        }
    }

    fn raise_event_ids(
        &mut self,
        state_events_above: i64,
        change_notices_above: i64,
    ) -> Result<(), StoreError> {
        sql_query(sql::RAISE_EVENT_IDS)
            .bind::<Text, _>("kafka_schd")
            .bind::<Text, _>("kafka_msg")
            .bind::<Text, _>("event_id")
            .bind::<BigInt, _>(state_events_above)
            .bind::<BigInt, _>(change_notices_above)
            .prepared()
            .execute(self.conn())
            .map(drop)
            .map_err(|e| query("raise_event_ids", e))
    }

    fn delete_superseded_state_events(&mut self, limit: i64) -> Result<usize, StoreError> {
        sql_query(sql::DELETE_SUPERSEDED_STATE_EVENTS)
            .bind::<BigInt, _>(limit)
            .prepared()
            .execute(self.conn())
            .map_err(|e| query("delete_superseded_state_events", e))
    }
}
