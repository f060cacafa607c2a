//! The operations of `flightstate republish`, which queues the current state
//! of chosen flights in the state outbox again, at their current versions,
//! while the pipeline runs: choosing the flights of an airline a page at a
//! time, and reading the current version of a batch of flights under
//! `PIPELINE_LOCK`. The day's pages are [`ReadOps::flid_page`](super::ReadOps::flid_page)'s,
//! the version floors of deleted flights [`StateTx::select_version_floors`](super::StateTx::select_version_floors)'s
//! and the outbox rows [`StateTx::append_state_events`](super::StateTx::append_state_events)'s.
//! The rules (what is queued for which FLID) are `crate::republish`'s.

use super::StoreError;
use super::resync::FlightVersion;

/// Republish operations. Method names are the names of the SQL files that
/// run them.
pub trait RepublishOps {
    /// At most `limit` stored FLIDs of airline `alcd` (`FLIGHT_SCHD.ALCD`,
    /// as AODB sends it) above `after`, ascending.
    fn select_flids_of_airline_after(
        &mut self,
        alcd: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError>;

    /// The current version and last message of the stored flights among
    /// `flids`, ascending by FLID (absent FLIDs are simply missing). Read
    /// under the caller's `PIPELINE_LOCK`, they are the versions the
    /// flights are at when its transaction commits.
    fn select_current_versions(&mut self, flids: &[i64]) -> Result<Vec<FlightVersion>, StoreError>;
}
