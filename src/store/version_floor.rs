//! The version floor of deleted flights (`FLIGHT_VERSION_FLOOR`): a flight
//! deleted with a tombstone at version `v` and created again under the same
//! FLID continues at `v + 1`, so that consumers ordering a flight's messages
//! by `(FLID, STATE_VERSION)` see the new flight after its tombstone.
//!
//! The pipeline records a floor in every transaction that deletes a flight
//! and reads the floors of the flights a transaction creates.

use std::collections::HashMap;

use chrono::NaiveDateTime;

use super::StoreError;

/// Version-floor operations. Method names are the names of the SQL files
/// that run them.
pub trait VersionFloorOps {
    /// Records `(FLID, tombstone version)` of flights deleted at `now`; an
    /// existing floor only ever rises.
    fn upsert_version_floors(
        &mut self,
        floors: &[(i64, i64)],
        now: NaiveDateTime,
    ) -> Result<(), StoreError>;

    /// The floors of `flids`: the tombstone version of each flight deleted
    /// before (FLIDs never deleted are absent).
    fn select_version_floors(&mut self, flids: &[i64]) -> Result<HashMap<i64, i64>, StoreError>;
}

/// The version a flight created now starts at, given its floor.
pub fn first_version(floor: Option<i64>) -> i64 {
    floor.map_or(1, |tombstone| tombstone + 1)
}
