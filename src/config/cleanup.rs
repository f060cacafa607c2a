//! The `[cleanup]` section: the lifecycle clean-up (`flightstate cleanup`,
//! and the periodic job of `flightstate run`; docs/operations.md).

use serde::{Deserialize, Serialize};

use super::ConfigError;
use chrono::NaiveTime;

use super::Config;
use crate::cleanup::CleanupSettings;
use crate::station::{HistoryRule, StationClock};

/// The most rows per clean-up transaction: an Oracle id list holds 1000,
/// and a longer batch holds `PIPELINE_LOCK` longer.
const MAX_BATCH: u32 = 1_000;

/// Retentions, batch size and the period of the job in `run`; see
/// `docs/configuration.md`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct CleanupConfig {
    /// How often `flightstate run` cleans up, in seconds; 0 (the default)
    /// = never (run `flightstate cleanup` instead).
    pub every_secs: u64,
    /// Days a flight without an operation day is kept unchanged.
    pub flight_days: u32,
    /// Days a snapshot ledger of a day without flights is kept.
    pub ledger_days: u32,
    /// Days a settled journaled call is kept.
    pub effect_call_days: u32,
    /// Days a SUCCEEDED message's processing record is kept.
    pub proc_state_days: u32,
    /// Days a recorded operator action is kept.
    pub action_days: u32,
    /// Rows per transaction (1 to 1000).
    pub batch: u32,
    /// Past operation days kept besides today (station time); older days
    /// are retired — their flights removed with tombstones, their ledgers
    /// and lists removed, a snapshot of them refused. 0 (the default) keeps
    /// every day: retiring is for the consumers of the state topic to
    /// confirm (`docs/open-questions.md`, "Past operation days").
    pub history_days: u32,
}

impl Default for CleanupConfig {
    fn default() -> Self {
        let settings = CleanupSettings::default();
        CleanupConfig {
            every_secs: 0,
            flight_days: settings.flight_days,
            ledger_days: settings.ledger_days,
            effect_call_days: settings.effect_call_days,
            proc_state_days: settings.proc_state_days,
            action_days: settings.action_days,
            batch: settings.batch,
            history_days: 0,
        }
    }
}

impl CleanupConfig {
    /// Checks every value.
    ///
    /// # Errors
    ///
    /// [`ConfigError::BadValue`] naming the setting.
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if !(1..=MAX_BATCH).contains(&self.batch) {
            return Err(ConfigError::BadValue {
                setting: "cleanup.batch",
                value: self.batch.to_string(),
                reason: "must be between 1 and 1000",
            });
        }
        for (setting, days) in [
            ("cleanup.flight_days", self.flight_days),
            ("cleanup.ledger_days", self.ledger_days),
            ("cleanup.effect_call_days", self.effect_call_days),
            ("cleanup.proc_state_days", self.proc_state_days),
            ("cleanup.action_days", self.action_days),
        ] {
            if days == 0 {
                return Err(ConfigError::BadValue {
                    setting,
                    value: "0".to_owned(),
                    reason: "must be at least 1: a retention of 0 days would remove what was just written",
                });
            }
        }
        Ok(())
    }

    /// The rule of `history_days` at a station, if it is on.
    pub fn history(&self, clock: StationClock, day_boundary: NaiveTime) -> Option<HistoryRule> {
        (self.history_days > 0).then_some(HistoryRule {
            days: self.history_days,
            clock,
            day_boundary,
        })
    }

    /// The period of the job in `run`, if it is on.
    pub fn every(&self) -> Option<std::time::Duration> {
        (self.every_secs > 0).then(|| std::time::Duration::from_secs(self.every_secs))
    }
}

impl Config {
    /// The clean-up's settings: the `[cleanup]` section at this station
    /// (its day boundary and clock).
    pub fn cleanup_settings(&self) -> CleanupSettings {
        let c = &self.cleanup;
        CleanupSettings {
            flight_days: c.flight_days,
            ledger_days: c.ledger_days,
            effect_call_days: c.effect_call_days,
            proc_state_days: c.proc_state_days,
            action_days: c.action_days,
            batch: c.batch,
            day_boundary: self.day_boundary(),
            history: c.history(self.station_clock(), self.day_boundary()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_job_is_off_by_default_and_bad_values_name_their_setting() {
        let config = CleanupConfig::default();
        assert!(config.validate().is_ok());
        assert_eq!(config.every(), None);
        for (bad, setting) in [
            (
                CleanupConfig {
                    batch: 0,
                    ..CleanupConfig::default()
                },
                "cleanup.batch",
            ),
            (
                CleanupConfig {
                    batch: 1_001,
                    ..CleanupConfig::default()
                },
                "cleanup.batch",
            ),
            (
                CleanupConfig {
                    ledger_days: 0,
                    ..CleanupConfig::default()
                },
                "cleanup.ledger_days",
            ),
        ] {
            match bad.validate() {
                Err(ConfigError::BadValue { setting: named, .. }) => assert_eq!(named, setting),
                other => panic!("{setting}: {other:?}"),
            }
        }
    }
}
