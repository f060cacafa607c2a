//! [`RepublishOps`] on PostgreSQL: an airline's flights a page at a time,
//! and the current versions of a batch of flights.

use diesel::sql_types::{Array, BigInt, Text};
use diesel::{QueryableByName, RunQueryDsl, sql_query};

use super::errors::query;
use super::prepared::Prepare;
use super::resync::VersionRow;
use super::statements as sql;
use super::tx::PgTx;
use crate::store::{FlightVersion, RepublishOps, StoreError};

#[derive(QueryableByName)]
struct FlidRow {
    #[diesel(sql_type = BigInt)]
    flid: i64,
}

impl RepublishOps for PgTx<'_> {
    fn select_flids_of_airline_after(
        &mut self,
        alcd: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError> {
        let rows: Vec<FlidRow> = sql_query(sql::SELECT_FLIDS_OF_AIRLINE_AFTER)
            .bind::<Text, _>(alcd)
            .bind::<BigInt, _>(after)
            .bind::<BigInt, _>(limit)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_flids_of_airline_after", e))?;
        Ok(rows.into_iter().map(|r| r.flid).collect())
    }

    fn select_current_versions(&mut self, flids: &[i64]) -> Result<Vec<FlightVersion>, StoreError> {
        if flids.is_empty() {
            return Ok(Vec::new());
        }
        let rows: Vec<VersionRow> = sql_query(sql::SELECT_CURRENT_VERSIONS)
            .bind::<Array<BigInt>, _>(flids)
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_current_versions", e))?;
        Ok(rows.into_iter().map(FlightVersion::from).collect())
    }
}
