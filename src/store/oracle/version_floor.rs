//! [`VersionFloorOps`] on Oracle: `FLIGHT_VERSION_FLOOR`.

use std::collections::HashMap;

use chrono::NaiveDateTime;
use oracle::sql_type::OracleType;

use super::binds::{AsTimestamp, run_batch};
use super::errors::at;
use super::statements as sql;
use super::tx::OracleTx;
use crate::store::{StoreError, VersionFloorOps};

impl VersionFloorOps for OracleTx<'_> {
    fn upsert_version_floors(
        &mut self,
        floors: &[(i64, i64)],
        now: NaiveDateTime,
    ) -> Result<(), StoreError> {
        let now = AsTimestamp(Some(now));
        run_batch(
            self.conn(),
            sql::UPSERT_VERSION_FLOORS,
            "upsert_version_floors",
            &[
                ("flid", OracleType::Int64),
                ("state_version", OracleType::Int64),
                ("deleted_at", OracleType::Timestamp(6)),
            ],
            floors.len(),
            |batch, row| {
                let (flid, version) = floors[row];
                batch.set("flid", &flid)?;
                batch.set("state_version", &version)?;
                batch.set("deleted_at", &now)
            },
        )
    }

    fn select_version_floors(&mut self, flids: &[i64]) -> Result<HashMap<i64, i64>, StoreError> {
        let op = "select_version_floors";
        if flids.is_empty() {
            return Ok(HashMap::new());
        }
        let mut unique = flids.to_vec();
        unique.sort_unstable();
        unique.dedup();
        let list = self.id_list(&unique, op)?;
        let rows = self
            .conn()
            .query_as_named::<(i64, i64)>(sql::SELECT_VERSION_FLOORS, &[("flids", &list)])
            .map_err(at(op))?;
        rows.map(|r| r.map_err(at(op))).collect()
    }
}
