//! The version floor of deleted flights (`FLIGHT_VERSION_FLOOR`): a flight
//! deleted with a tombstone at version `v` and created again under the same
//! FLID continues at `v + 1`, so that consumers ordering a flight's messages
//! by `(FLID, STATE_VERSION)` see the new flight after its tombstone.
//!
//! The pipeline records a floor in every transaction that deletes a flight
//! and reads the floors of the flights a transaction creates, through
//! [`StateTx`](super::StateTx).

/// The version a flight created now starts at, given its floor.
pub fn first_version(floor: Option<i64>) -> i64 {
    floor.map_or(1, |tombstone| tombstone + 1)
}
