//! How the pump behaves: the settings `[pump]` configures, with the
//! defaults a site starts from.

use std::time::Duration;

/// How the pump behaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PumpSettings {
    /// Who this pump is in `PIPELINE_LOCK.LEASE_HOLDER` (host, process, a
    /// random suffix).
    pub holder: String,
    /// How long a lease lasts unless renewed; it is renewed after a third of
    /// that.
    pub lease_ttl: Duration,
    /// FAILED(UNSUPPORTED) attempts after which the message is DEAD.
    pub unsupported_threshold: i32,
    /// How long an unsupported head waits before its next attempt.
    pub unsupported_retry: Duration,
    /// First backoff of a blocked head (INFRA).
    pub backoff_initial: Duration,
    /// Longest backoff.
    pub backoff_max: Duration,
    /// How long an idle (or lease-less) pump sleeps between looks.
    pub idle_poll: Duration,
    /// Mailbox rows read per look at the head.
    pub head_batch: usize,
    /// Journaled calls made per pass of the effect worker.
    pub effect_batch: i64,
    /// Most consecutive flight-level messages applied in one state
    /// transaction (group commit); 1 commits each on its own.
    pub group_commit: usize,
    /// Whether the pump makes the write-backs itself after each batch
    /// (`flightstate pump`), or leaves them to an effect worker thread
    /// (`flightstate run`).
    pub inline_effects: bool,
}

impl Default for PumpSettings {
    fn default() -> Self {
        PumpSettings {
            holder: default_holder(),
            lease_ttl: Duration::from_secs(15),
            unsupported_threshold: 3,
            unsupported_retry: Duration::ZERO,
            backoff_initial: Duration::from_millis(200),
            backoff_max: Duration::from_secs(30),
            idle_poll: Duration::from_millis(500),
            head_batch: 500,
            effect_batch: 500,
            group_commit: 50,
            inline_effects: true,
        }
    }
}

/// `host:pid:random`, unique enough that two pumps never share a name.
pub fn default_holder() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_owned());
    format!("{host}:{}:{:04x}", std::process::id(), fastrand::u16(..))
}
