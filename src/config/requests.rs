//! The `[requests]` section: outbound requests to AODB (docs/requests.md).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::ConfigError;
use crate::request::RequestSettings;

/// How requests are written to `COUTMSGS` and how long they wait for an
/// answer; see `docs/requests.md`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct RequestsConfig {
    /// `META/SNDR` of our requests: the name AODB knows this system by
    /// (letters and digits).
    pub sender: String,
    /// `COUTMSGS.ROUTINGID` of a flight-data request (RQFD): AODB routes
    /// the row by it (letters and digits, at most 23).
    pub routing_id: String,
    /// `META/SNDR` of AODB's answers: a RESP or DNLD completes a request
    /// only when it comes from this sender.
    pub answer_sender: String,
    /// How long a request waits for its answer before it is TIMED_OUT.
    pub answer_timeout_secs: u64,
    /// Requests `flightstate requests` lists at most, the live ones first.
    pub list: u32,
}

impl Default for RequestsConfig {
    fn default() -> Self {
        RequestsConfig {
            sender: "VIEW".to_owned(),
            routing_id: "VIEWRQFD".to_owned(),
            answer_sender: "AODB".to_owned(),
            answer_timeout_secs: 3_600,
            list: 20,
        }
    }
}

/// Letters and digits only: the values are written into the request XML
/// and AODB's `VARCHAR` columns as they are.
/// At most 23: `COUTMSGS.ROUTINGID` is a `VARCHAR(23)`.
fn plain(setting: &'static str, value: &str) -> Result<(), ConfigError> {
    if value.is_empty() || value.len() > 23 || !value.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(ConfigError::BadValue {
            setting,
            value: value.to_owned(),
            reason: "must be 1 to 23 letters or digits",
        });
    }
    Ok(())
}

impl RequestsConfig {
    /// Checks every value.
    ///
    /// # Errors
    ///
    /// [`ConfigError::BadValue`] naming the setting.
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        plain("requests.sender", &self.sender)?;
        plain("requests.routing_id", &self.routing_id)?;
        plain("requests.answer_sender", &self.answer_sender)?;
        if self.answer_timeout_secs == 0 {
            return Err(ConfigError::BadValue {
                setting: "requests.answer_timeout_secs",
                value: "0".to_owned(),
                reason: "must be at least 1: a request needs time to be answered",
            });
        }
        Ok(())
    }

    /// The settings of the request rules, with the station's day boundary.
    pub fn settings(&self, day_boundary: chrono::NaiveTime) -> RequestSettings {
        RequestSettings {
            sender: self.sender.clone(),
            routing_id: self.routing_id.clone(),
            answer_sender: self.answer_sender.clone(),
            answer_timeout: Duration::from_secs(self.answer_timeout_secs),
            day_boundary,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_written_into_the_message_are_plain_letters_and_digits() {
        assert!(RequestsConfig::default().validate().is_ok());
        for (config, setting) in [
            (
                RequestsConfig {
                    sender: "VI<EW".into(),
                    ..RequestsConfig::default()
                },
                "requests.sender",
            ),
            (
                RequestsConfig {
                    routing_id: "R".repeat(24),
                    ..RequestsConfig::default()
                },
                "requests.routing_id",
            ),
            (
                RequestsConfig {
                    answer_sender: String::new(),
                    ..RequestsConfig::default()
                },
                "requests.answer_sender",
            ),
            (
                RequestsConfig {
                    answer_timeout_secs: 0,
                    ..RequestsConfig::default()
                },
                "requests.answer_timeout_secs",
            ),
        ] {
            match config.validate() {
                Err(ConfigError::BadValue { setting: named, .. }) => assert_eq!(named, setting),
                other => panic!("{setting}: {other:?}"),
            }
        }
    }
}
