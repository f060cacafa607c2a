//! The `[api]` section: the read API and status page.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{ConfigError, database_dialect, redact_url};

/// The read API and status page; see `docs/api.md`.
#[derive(Clone, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ApiConfig {
    /// `host:port` to listen on; empty: `run` starts no API thread.
    pub bind: String,
    /// A separate state-database URL for the API's reads (a read-only
    /// replica or a read-only user); default: `database.url`.
    pub database_url: Option<String>,
    /// Bearer token every request must carry; none: no authentication.
    /// Secret: set it through `FLIGHTSTATE_API_TOKEN`, not the file.
    pub token: Option<String>,
    /// Threads answering requests (each may hold a database connection).
    pub threads: u32,
    /// Flights read per page of a full read (one statement per table per
    /// page); at most 5,000.
    pub page_size: u32,
    /// How long `/healthz` waits for each of the three servers.
    pub check_timeout_ms: u64,
    /// DEAD messages the status page lists.
    pub dead_letters: u32,
    /// Operation days the status page and the metrics list.
    pub days: u32,
    /// Whether the page offers operators' actions (requeue, release,
    /// reject, request a day) under `/operator`; off: only `GET` is
    /// answered.
    pub actions: bool,
    /// The operators who may act, each `name:<SHA-256 of the password, in
    /// hex>`: the file never holds a password (docs/api.md, "Actions").
    pub operators: Vec<String>,
    /// The PEM certificate (chain) the API serves TLS with; with
    /// `tls_key_file`. Unset: plain HTTP.
    pub tls_cert_file: Option<PathBuf>,
    /// The PEM private key of `tls_cert_file`.
    pub tls_key_file: Option<PathBuf>,
}

impl Default for ApiConfig {
    fn default() -> Self {
        ApiConfig {
            bind: "127.0.0.1:8080".to_owned(),
            database_url: None,
            token: None,
            threads: 4,
            page_size: 1_000,
            check_timeout_ms: 2_000,
            dead_letters: 20,
            days: 14,
            actions: false,
            operators: Vec::new(),
            tls_cert_file: None,
            tls_key_file: None,
        }
    }
}

impl std::fmt::Debug for ApiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token and a URL's password stay out of logs.
        f.debug_struct("ApiConfig")
            .field("bind", &self.bind)
            .field(
                "database_url",
                &self.database_url.as_deref().map(redact_url),
            )
            .field("token", &self.token.as_ref().map(|_| "***"))
            .field("threads", &self.threads)
            .field("page_size", &self.page_size)
            .field("check_timeout_ms", &self.check_timeout_ms)
            .field("dead_letters", &self.dead_letters)
            .field("days", &self.days)
            .field("actions", &self.actions)
            .field(
                "operators",
                &self
                    .operators
                    .iter()
                    .map(|o| o.split_once(':').map_or("***", |(name, _)| name))
                    .collect::<Vec<_>>(),
            )
            .field("tls_cert_file", &self.tls_cert_file)
            .field("tls_key_file", &self.tls_key_file)
            .finish()
    }
}

/// The largest `api.page_size`: the batch the state reads bind at most.
pub const MAX_API_PAGE: u32 = 5_000;

impl ApiConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if let Some(url) = &self.database_url {
            database_dialect(url)?;
        }
        if self.threads == 0 {
            return Err(ConfigError::BadValue {
                setting: "api.threads",
                value: "0".to_owned(),
                reason: "the API needs at least one thread",
            });
        }
        if !(1..=MAX_API_PAGE).contains(&self.page_size) {
            return Err(ConfigError::BadValue {
                setting: "api.page_size",
                value: self.page_size.to_string(),
                reason: "must be between 1 and 5000",
            });
        }
        if self.token.as_deref() == Some("") {
            return Err(ConfigError::BadValue {
                setting: "api.token",
                value: String::new(),
                reason: "an empty token would let anyone in; leave it unset for no authentication",
            });
        }
        self.validate_actions()
    }

    /// The operators' credentials: each well formed, and never sent in
    /// clear over a network (docs/api.md, "Actions").
    fn validate_actions(&self) -> Result<(), ConfigError> {
        for entry in &self.operators {
            if crate::api::Credential::parse(entry).is_none() {
                return Err(ConfigError::BadValue {
                    setting: "api.operators",
                    value: entry
                        .split_once(':')
                        .map_or("***", |(name, _)| name)
                        .to_owned(),
                    reason: "each must be `name:<SHA-256 of the password, 64 hex digits>`",
                });
            }
        }
        if self.tls_cert_file.is_some() != self.tls_key_file.is_some() {
            return Err(ConfigError::BadValue {
                setting: "api.tls_cert_file",
                value: String::new(),
                reason: "api.tls_cert_file and api.tls_key_file are set together or not at all",
            });
        }
        if !self.actions {
            return Ok(());
        }
        if self.operators.is_empty() {
            return Err(ConfigError::BadValue {
                setting: "api.actions",
                value: "true".to_owned(),
                reason: "actions need at least one operator in api.operators",
            });
        }
        if self.database_url.is_some() {
            return Err(ConfigError::BadValue {
                setting: "api.actions",
                value: "true".to_owned(),
                reason: "actions write to the state database; api.database_url (a read-only \
                         replica or user) cannot take them: unset one of the two",
            });
        }
        if self.tls_cert_file.is_none() && !crate::api::loopback(&self.bind) {
            return Err(ConfigError::BadValue {
                setting: "api.actions",
                value: "true".to_owned(),
                reason: "operators' passwords would cross the network in clear: set \
                         api.tls_cert_file and api.tls_key_file, or bind to a loopback address",
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANA: &str = "ana:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";

    fn refusal(config: &ApiConfig) -> Option<&'static str> {
        match config.validate() {
            Ok(()) => None,
            Err(ConfigError::BadValue { reason, .. }) => Some(reason),
            Err(other) => panic!("{other}"),
        }
    }

    #[test]
    fn actions_need_operators_a_writable_database_and_no_clear_network() {
        let on = ApiConfig {
            actions: true,
            operators: vec![ANA.to_owned()],
            ..ApiConfig::default()
        };
        assert_eq!(refusal(&on), None);
        assert_eq!(refusal(&ApiConfig::default()), None);
        let none = ApiConfig {
            operators: Vec::new(),
            ..on.clone()
        };
        assert!(refusal(&none).is_some_and(|r| r.contains("at least one operator")));
        let replica = ApiConfig {
            database_url: Some("postgres://reader@replica/flightstate".to_owned()),
            ..on.clone()
        };
        assert!(refusal(&replica).is_some_and(|r| r.contains("api.database_url")));
        let network = ApiConfig {
            bind: "0.0.0.0:8080".to_owned(),
            ..on.clone()
        };
        assert!(refusal(&network).is_some_and(|r| r.contains("in clear")));
        let tls = ApiConfig {
            tls_cert_file: Some("/etc/flightstate/api.pem".into()),
            tls_key_file: Some("/etc/flightstate/api.key".into()),
            ..network
        };
        assert_eq!(refusal(&tls), None);
        let half = ApiConfig {
            tls_key_file: None,
            ..tls
        };
        assert!(refusal(&half).is_some_and(|r| r.contains("together")));
        let plain = ApiConfig {
            operators: vec!["ana:secret".to_owned()],
            ..on
        };
        assert!(refusal(&plain).is_some_and(|r| r.contains("SHA-256")));
        // The password's digest is never shown.
        let shown = format!("{:?}", ApiConfig::default());
        assert!(!shown.contains("2c26b46b"), "{shown}");
        let shown = format!(
            "{:?}",
            ApiConfig {
                operators: vec![ANA.to_owned()],
                ..ApiConfig::default()
            }
        );
        assert!(
            shown.contains("\"ana\"") && !shown.contains("2c26b46b"),
            "{shown}"
        );
    }
}
