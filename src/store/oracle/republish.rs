//! [`RepublishOps`] on Oracle, with named binds; the batch's FLIDs as one
//! `FLIGHTSTATE_ID_LIST` collection. Never run on this project's machines
//! (no Oracle there); pinned and linted with the other statements.

use super::binds::Text;
use super::errors::at;
use super::resync::flight_versions;
use super::statements as sql;
use super::tx::OracleTx;
use crate::store::{FlightVersion, RepublishOps, StoreError};

impl RepublishOps for OracleTx<'_> {
    fn select_flids_of_airline_after(
        &mut self,
        alcd: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError> {
        let op = "select_flids_of_airline_after";
        let rows = self
            .conn()
            .query_as_named::<i64>(
                sql::SELECT_FLIDS_OF_AIRLINE_AFTER,
                &[
                    ("alcd", &Text(Some(alcd))),
                    ("after_flid", &after),
                    ("page_size", &limit),
                ],
            )
            .map_err(at(op))?;
        rows.map(|r| r.map_err(at(op))).collect()
    }

    fn select_current_versions(&mut self, flids: &[i64]) -> Result<Vec<FlightVersion>, StoreError> {
        let op = "select_current_versions";
        if flids.is_empty() {
            return Ok(Vec::new());
        }
        let mut distinct = flids.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let list = self.id_list(&distinct, op)?;
        let rows = self
            .conn()
            .query_as_named::<(i64, i64, i64)>(sql::SELECT_CURRENT_VERSIONS, &[("flids", &list)])
            .map_err(at(op))?;
        flight_versions(rows, op)
    }
}
