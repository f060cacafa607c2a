//! The `[snapshot]` section: the mass-delete guard's limits
//! (`docs/open-questions.md`, "Mass-delete guard"), and their defaults —
//! the only ones: the pipeline's guard is built from this section — and
//! the size from which a message is read while it is written.

use serde::{Deserialize, Serialize};

use super::ConfigError;
use crate::pipeline::STREAM_FROM_BYTES;
use crate::state::DeleteGuard;

/// How much of its day a snapshot may delete before it is held.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct SnapshotConfig {
    /// The share of the day's listed flights (0 to 1) a snapshot may delete.
    pub max_delete_fraction: f64,
    /// Flights a snapshot may always delete, whatever the share.
    pub max_delete_min: u32,
    /// From this size on (bytes), a message is read on a thread of its own
    /// while a snapshot's flights are written a part at a time
    /// (`docs/snapshot-ledger.md`, "A large snapshot is written while it is read"); a smaller one is read
    /// whole first. A value above `protocol.max_message_bytes` reads every message
    /// whole. Either way a message has the same outcome.
    pub stream_from_bytes: u64,
}

impl Default for SnapshotConfig {
    fn default() -> Self {
        let guard = DeleteGuard::default();
        SnapshotConfig {
            max_delete_fraction: guard.max_fraction,
            max_delete_min: u32::try_from(guard.max_flights).unwrap_or(u32::MAX),
            stream_from_bytes: STREAM_FROM_BYTES as u64,
        }
    }
}

impl SnapshotConfig {
    /// The guard these limits give.
    pub fn delete_guard(&self) -> DeleteGuard {
        DeleteGuard {
            max_fraction: self.max_delete_fraction,
            max_flights: usize::try_from(self.max_delete_min).unwrap_or(usize::MAX),
        }
    }

    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if !(0.0..=1.0).contains(&self.max_delete_fraction) {
            return Err(ConfigError::BadValue {
                setting: "snapshot.max_delete_fraction",
                value: self.max_delete_fraction.to_string(),
                reason: "a share of the day's flights: between 0 and 1 (1 turns the guard off)",
            });
        }
        Ok(())
    }
}
