//! The `[pump]` section: the main pump's lease, failure policy and batches,
//! and their defaults — the only ones: `pump::PumpSettings` is built from
//! this section, its default from this default.

use serde::{Deserialize, Serialize};

/// The main pump (`flightstate pump`, `flightstate run`); see `docs/pump.md`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct PumpConfig {
    /// Name of this pump in `PIPELINE_LOCK.LEASE_HOLDER`; default
    /// `host:pid:random`.
    pub holder: Option<String>,
    /// How long the lease lasts unless renewed (renewed after a third).
    pub lease_secs: u64,
    /// FAILED(UNSUPPORTED) attempts after which a message is DEAD.
    pub unsupported_threshold: u32,
    /// Wait before an unsupported head is tried again.
    pub unsupported_retry_ms: u64,
    /// First backoff of a head blocked by a database or mailbox fault.
    pub backoff_initial_ms: u64,
    /// Longest backoff.
    pub backoff_max_ms: u64,
    /// How long the head may stay blocked by an infrastructure failure
    /// (FAILED(INFRA) or CONFLICT) before it is an alert: an ERROR log
    /// once, `flightstate_head_blocked_alert` and the status.
    pub head_blocked_alert_secs: u64,
    /// The bypass rule, off (0) unless a site sets it: a head whose own
    /// attempts have failed (not the connection to a server) for this long
    /// is recorded DEAD (`BYPASSED`) and the queue moves on.
    pub bypass_after_secs: u64,
    /// Sleep of an idle or stand-by pump between two reads of the head.
    pub idle_poll_ms: u64,
    /// While idle, how often the pump looks at the mailbox's last id (one
    /// read of its primary key's end) to read a new row at once; 0 sleeps
    /// the whole `idle_poll_ms`.
    pub arrival_poll_ms: u64,
    /// Mailbox rows read per look at the head.
    pub head_batch: u32,
    /// Write-backs made per pass of the effect worker.
    pub effect_batch: u32,
    /// Most consecutive flight-level messages (FLOP, SCHD ADFT/DEL) applied
    /// in one state transaction; 1 commits every message on its own.
    pub group_commit: u32,
}

impl Default for PumpConfig {
    fn default() -> Self {
        PumpConfig {
            holder: None,
            lease_secs: 15,
            unsupported_threshold: 3,
            unsupported_retry_ms: 0,
            backoff_initial_ms: 200,
            backoff_max_ms: 30_000,
            head_blocked_alert_secs: 300,
            bypass_after_secs: 0,
            idle_poll_ms: 500,
            arrival_poll_ms: 100,
            head_batch: 500,
            effect_batch: 500,
            group_commit: 50,
        }
    }
}
