//! How the pump behaves: the settings `[pump]` configures, in the types the
//! pump works with, built from the configuration by `config::PumpConfig`
//! (whose defaults are the only ones).

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
    /// How long the head may stay blocked by an infrastructure failure
    /// before the alert is raised.
    pub head_blocked_alert: Duration,
    /// The bypass rule (`pump.bypass_after_secs`): how long the head's own
    /// attempts may fail before it is recorded DEAD; `None`, the default,
    /// never bypasses.
    pub bypass_after: Option<Duration>,
    /// How long an idle (or lease-less) pump sleeps between reads of the
    /// head.
    pub idle_poll: Duration,
    /// How often an idle pump looks at the mailbox's last id meanwhile;
    /// `None`: it does not.
    pub arrival_poll: Option<Duration>,
    /// How long nothing must arrive before the idle pump stops those looks
    /// and reads the head alone every `idle_poll`: long enough that a
    /// site's steady flow (a message every few seconds at the quietest)
    /// keeps the looks, short enough that a quiet night costs the mailbox
    /// no more than the head's reads.
    pub arrival_quiet: Duration,
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
