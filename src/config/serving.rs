//! The read API's settings as the configuration gives them: `[api]`, with
//! what the status and the metrics show of `[kafka]`, `[station]` and
//! `[pump]`, meet here for `serve`, `run` and `status`.

use std::time::Duration;

use super::{Config, ConfigError};
use crate::api::{
    ActionSettings, ApiSettings, Credential, Operators, StatusLimits, TlsFiles, Topics,
};

impl Config {
    /// The URL the API reads: `api.database_url`, else `database.url`.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Missing`] when neither is set.
    pub fn api_database_url(&self) -> Result<&str, ConfigError> {
        match &self.api.database_url {
            Some(url) => Ok(url),
            None => self.database_url(),
        }
    }

    /// The API's own pool: a connection per thread and one for `/healthz`.
    pub fn api_pool_size(&self) -> u32 {
        self.api.threads + 1
    }

    /// How much the status lists.
    pub fn status_limits(&self) -> StatusLimits {
        StatusLimits {
            dead_letters: self.api.dead_letters,
            days: self.api.days,
            head_blocked_alert_secs: self.pump.head_blocked_alert_secs,
        }
    }

    /// The read API's settings; the brokers `/healthz` asks are those of
    /// `[kafka]` when it names any.
    ///
    /// # Errors
    ///
    /// A secret of `[kafka]` whose file others can read or that cannot be
    /// read.
    pub fn api_settings(&self) -> Result<ApiSettings, ConfigError> {
        Ok(ApiSettings {
            token: self.api.token.clone(),
            page_size: self.api.page_size as usize,
            check_timeout: Duration::from_millis(self.api.check_timeout_ms),
            limits: self.status_limits(),
            topics: Topics {
                state: self.kafka.state_topic.clone(),
                change: self.kafka.change_topic.clone(),
            },
            kafka: self
                .kafka
                .brokers
                .is_some()
                .then(|| self.kafka_client())
                .transpose()?,
            station: self.station_clock(),
            day_boundary: self.day_boundary(),
            actions: self.api.actions.then(|| ActionSettings {
                operators: Operators::new(
                    self.api
                        .operators
                        .iter()
                        .filter_map(|entry| Credential::parse(entry))
                        .collect(),
                ),
                requests: self.requests.settings(self.day_boundary()),
            }),
            tls: self
                .api
                .tls_cert_file
                .clone()
                .zip(self.api.tls_key_file.clone())
                .map(|(certificate, private_key)| TlsFiles {
                    certificate,
                    private_key,
                }),
        })
    }
}
