//! [`VersionFloorOps`] on PostgreSQL: `FLIGHT_VERSION_FLOOR`.

use std::collections::HashMap;

use chrono::NaiveDateTime;
use diesel::sql_types::{Array, BigInt, Timestamp};
use diesel::{QueryableByName, RunQueryDsl, sql_query};

use super::errors::query;
use super::prepared::Prepare;
use super::statements as sql;
use super::tx::PgTx;
use crate::store::{StoreError, VersionFloorOps};

#[derive(QueryableByName)]
struct FloorRow {
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = BigInt)]
    state_version: i64,
}

impl VersionFloorOps for PgTx<'_> {
    fn upsert_version_floors(
        &mut self,
        floors: &[(i64, i64)],
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        if floors.is_empty() {
            return Ok(());
        }
        sql_query(sql::UPSERT_VERSION_FLOORS)
            .bind::<Array<BigInt>, _>(floors.iter().map(|f| f.0).collect::<Vec<_>>())
            .bind::<Array<BigInt>, _>(floors.iter().map(|f| f.1).collect::<Vec<_>>())
            .bind::<Timestamp, _>(now)
            .prepared()
            .execute(self.conn())
            .map(drop)
            .map_err(|e| query("upsert_version_floors", e))
    }

    fn select_version_floors(&mut self, flids: &[i64]) -> Result<HashMap<i64, i64>, StoreError> {
        if flids.is_empty() {
            return Ok(HashMap::new());
        }
        let rows: Vec<FloorRow> = sql_query(sql::SELECT_VERSION_FLOORS)
            .bind::<Array<BigInt>, _>(flids.to_vec())
            .prepared()
            .load(self.conn())
            .map_err(|e| query("select_version_floors", e))?;
        Ok(rows
            .into_iter()
            .map(|r| (r.flid, r.state_version))
            .collect())
    }
}
