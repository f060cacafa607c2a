//! The operations of `flightstate resync`, run after a restore of the state
//! database: walking the stored flights, raising their versions above what
//! the state topic already holds, numbering new outbox rows above the
//! topics' event ids, and settling the state events that came back pending
//! with the restored database. The rules (which version, which
//! flights get a tombstone) are the resync's (`crate::resync`); the
//! statements only read and write what they are given. The caller holds
//! `PIPELINE_LOCK` under the pump lease for every write.

use super::StoreError;

/// A stored flight's version, as the resync walks the flights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlightVersion {
    /// The flight.
    pub flid: i64,
    /// Its `STATE_VERSION`.
    pub state_version: i64,
    /// The message of its last change (`LAST_MESSAGE_ID`): the message its
    /// republished state event names.
    pub last_message_id: i64,
}

/// A flight's version raised by the resync, with its state document at the
/// new version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaisedVersion {
    /// The flight.
    pub flid: i64,
    /// The version the resync read: the row is raised only from it.
    pub from_version: i64,
    /// The new version.
    pub state_version: i64,
    /// The state document at the new version (the JSON the state topic
    /// carries).
    pub state_document: String,
}

/// Resync operations. Method names are the names of the SQL files that run
/// them.
pub trait ResyncOps {
    /// The stored flights with FLIDs above `after`, ascending, at most
    /// `limit`.
    fn select_flight_versions(
        &mut self,
        after: i64,
        limit: i64,
    ) -> Result<Vec<FlightVersion>, StoreError>;

    /// Raises each flight of `raised` from its `from_version` to its
    /// `state_version`, with its new document; state, digest, last message
    /// and `UPDATED_AT` stay.
    ///
    /// # Errors
    ///
    /// A [`StoreError`] of kind `Conflict` when a flight was not at its
    /// `from_version` any more (PostgreSQL counts the rows; 11g's batch mode
    /// cannot, and relies on the caller's `PIPELINE_LOCK`).
    fn raise_state_versions(&mut self, raised: &[RaisedVersion]) -> Result<(), StoreError>;

    /// Numbers the outbox rows registered from now on above the topics'
    /// highest event ids: `KAFKA_SCHD`'s above `state_events_above`,
    /// `KAFKA_MSG`'s above `change_notices_above` (0: no id on the topic). A
    /// sequence only ever moves up; the move stays even if the transaction
    /// rolls back.
    fn raise_event_ids(
        &mut self,
        state_events_above: i64,
        change_notices_above: i64,
    ) -> Result<(), StoreError>;

    /// Settles (deletes, unsent) at most `limit` pending state events,
    /// oldest first, waiting for rows another transaction holds. Returns
    /// how many; 0 when none is left.
    fn delete_superseded_state_events(&mut self, limit: i64) -> Result<usize, StoreError>;
}
