//! The `[pump]` section: the main pump's lease, failure policy and batches,
//! and their defaults — the only ones: `pump::PumpSettings` is built from
//! this section, its default from this default.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{Config, ConfigError};
use crate::lease_holder::default_holder;
use crate::pump::PumpSettings;
use crate::resync::ResyncSettings;

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
    /// How long nothing must arrive before those looks stop (the head alone
    /// is read every `idle_poll_ms` until a row arrives).
    pub arrival_quiet_secs: u64,
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
            arrival_quiet_secs: 60,
            head_batch: 500,
            effect_batch: 500,
            group_commit: 50,
        }
    }
}

impl PumpConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if self.lease_secs < 3 {
            return Err(ConfigError::BadValue {
                setting: "pump.lease_secs",
                value: self.lease_secs.to_string(),
                reason: "must be at least 3 (the lease is renewed every third of it)",
            });
        }
        if self.head_batch == 0 || self.effect_batch == 0 || self.group_commit == 0 {
            return Err(ConfigError::BadValue {
                setting: "pump.head_batch / pump.effect_batch / pump.group_commit",
                value: "0".to_owned(),
                reason: "a batch needs at least one row",
            });
        }
        Ok(())
    }

    /// The settings this section gives the pump; `inline_effects` is the
    /// subcommand's choice, not configuration.
    pub fn pump_settings(&self, inline_effects: bool) -> PumpSettings {
        let config = self;
        PumpSettings {
            holder: config.holder.clone().unwrap_or_else(default_holder),
            lease_ttl: Duration::from_secs(config.lease_secs),
            unsupported_threshold: i32::try_from(config.unsupported_threshold).unwrap_or(i32::MAX),
            unsupported_retry: Duration::from_millis(config.unsupported_retry_ms),
            backoff_initial: Duration::from_millis(config.backoff_initial_ms),
            backoff_max: Duration::from_millis(config.backoff_max_ms),
            head_blocked_alert: Duration::from_secs(config.head_blocked_alert_secs),
            bypass_after: (config.bypass_after_secs > 0)
                .then(|| Duration::from_secs(config.bypass_after_secs)),
            idle_poll: Duration::from_millis(config.idle_poll_ms),
            arrival_poll: (config.arrival_poll_ms > 0)
                .then(|| Duration::from_millis(config.arrival_poll_ms)),
            arrival_quiet: Duration::from_secs(config.arrival_quiet_secs),
            head_batch: usize::try_from(config.head_batch).unwrap_or(usize::MAX),
            effect_batch: i64::from(config.effect_batch),
            group_commit: usize::try_from(config.group_commit).unwrap_or(usize::MAX),
            inline_effects,
        }
    }
}

impl Config {
    /// The settings of a resync (`flightstate resync`, a catch-up's): the
    /// topics it reads and raises, and the pump's lease, which it holds
    /// meanwhile.
    pub fn resync_settings(&self) -> ResyncSettings {
        ResyncSettings::new(
            (
                self.kafka.state_topic.clone(),
                self.kafka.change_topic.clone(),
            ),
            Duration::from_secs(self.pump.lease_secs),
        )
    }
}

impl Default for PumpSettings {
    /// The defaults of `[pump]`, making the write-backs inline.
    fn default() -> Self {
        PumpConfig::default().pump_settings(true)
    }
}

#[cfg(test)]
mod settings_tests {
    use super::*;

    #[test]
    fn the_pump_settings_defaults_are_the_sections() {
        let config = PumpConfig::default();
        let defaults = PumpSettings::default();
        assert_eq!(defaults.lease_ttl.as_secs(), config.lease_secs);
        assert_eq!(
            defaults.backoff_max,
            Duration::from_millis(config.backoff_max_ms)
        );
        assert_eq!(defaults.group_commit, config.group_commit as usize);
        assert!(defaults.inline_effects);
        let named = PumpConfig {
            holder: Some("pump-a".to_owned()),
            ..config
        };
        assert_eq!(named.pump_settings(false).holder, "pump-a");
    }
}
