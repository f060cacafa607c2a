//! Configuration: a TOML file layered with `FLIGHTSTATE_*` environment
//! variables (the environment wins), collected without I/O side effects and
//! then resolved into typed settings that the adapters take.
//!
//! Adapters never read the environment themselves: they receive the typed
//! structs below, so a test can build them directly.

use std::path::Path;

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::{Deserialize, Serialize};

mod api;
mod cleanup;
mod database;
mod dialect;
mod kafka;
mod mailbox;
mod merge;
mod pipeline;
mod protocol;
mod pump;
mod requests;
mod secrets;
mod serving;
mod snapshot;
mod station;

pub use crate::station::StationClock;
pub use api::{ApiConfig, MAX_API_PAGE};
pub use cleanup::CleanupConfig;
pub use database::DatabaseConfig;
pub use dialect::{Dialect, database_dialect, redact_url};
pub use kafka::{KafkaConfig, PropertyValue};
pub use mailbox::MailboxConfig;
pub use merge::MergeConfig;
pub use protocol::ProtocolConfig;
pub use pump::PumpConfig;
pub use requests::RequestsConfig;
pub use snapshot::SnapshotConfig;
pub use station::StationConfig;

/// Everything a `flightstate` process can be configured with.
///
/// Connection URLs are optional here because not every subcommand needs
/// every server (`parse` needs none); the subcommand asks for the ones it
/// uses through [`Config::database_url`] and friends, whose errors name the
/// setting to fill in.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// The state database (PostgreSQL or Oracle).
    pub database: DatabaseConfig,
    /// The shared AODB mailbox (MySQL / MariaDB).
    pub mailbox: MailboxConfig,
    /// The Kafka brokers and topics.
    pub kafka: KafkaConfig,
    /// How inbound SIS messages are read.
    pub protocol: ProtocolConfig,
    /// Facts about the airport itself.
    pub station: StationConfig,
    /// Log output.
    pub log: LogConfig,
    /// How flight events and ad-hoc flights merge into stored state.
    pub merge: MergeConfig,
    /// The main pump: lease, failure policy, batches.
    pub pump: PumpConfig,
    /// The read API and status page (`flightstate serve`, a thread of `run`).
    pub api: ApiConfig,
    /// Outbound requests to AODB (`flightstate request`).
    pub requests: RequestsConfig,
    /// The lifecycle clean-up (`flightstate cleanup`, a job of `run`).
    pub cleanup: CleanupConfig,
    /// Snapshot integrity: the mass-delete guard.
    pub snapshot: SnapshotConfig,
}

/// Log output.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    /// `json` for one JSON object per line (production), anything else for
    /// human-readable text.
    pub format: Option<String>,
}

/// Why a configuration cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file or an environment variable does not fit the settings' shape.
    #[error("invalid configuration")]
    Invalid(#[source] Box<figment::Error>),
    /// A setting that this subcommand needs is not set.
    #[error("`{setting}` is not set; set it in the config file or in env `{env}`")]
    Missing {
        /// The setting's path in the file.
        setting: &'static str,
        /// The environment variable that can supply it.
        env: &'static str,
    },
    /// A setting has a value that cannot work.
    #[error("`{setting}` = {value:?}: {reason}")]
    BadValue {
        /// The setting's path in the file.
        setting: &'static str,
        /// The value given.
        value: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A secret comes from a file every user of the host can read: move it
    /// to the environment (`/etc/flightstate/env`, mode 0600) or take the
    /// others' read right away from the file.
    #[error(
        "`{setting}` comes from {}, which every user of this host can read (mode {mode:04o}): \
         put it in the environment (/etc/flightstate/env, mode 0600) or make the file \
         unreadable to others (chmod o-r)",
        file.display()
    )]
    ReadableSecret {
        /// The setting holding the secret, or naming its file.
        setting: &'static str,
        /// The file.
        file: std::path::PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// A secret's file cannot be read: check the path and that the
    /// `flightstate` user may read it.
    #[error("cannot read `{setting}` from {}", file.display())]
    SecretFile {
        /// The setting naming the file.
        setting: &'static str,
        /// The file.
        file: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// The sections of the file, which are also the environment variables'
/// first word.
const SECTIONS: &[&str] = &[
    "database", "mailbox", "kafka", "protocol", "station", "log", "merge", "pump", "api",
    "requests", "cleanup", "snapshot",
];

impl Config {
    /// Reads `file` (a missing file is not an error: defaults and the
    /// environment may be all a site needs), layers `FLIGHTSTATE_*`
    /// variables over it and validates the result.
    ///
    /// Environment variables map to settings by their first underscore:
    /// `FLIGHTSTATE_DATABASE_URL` sets `database.url`,
    /// `FLIGHTSTATE_DATABASE_POOL_SIZE` sets `database.pool_size`. Only
    /// variables naming one of the sections are read, so that other
    /// `FLIGHTSTATE_*` variables (the test suite's `FLIGHTSTATE_TEST_*`,
    /// `FLIGHTSTATE_ORACLE_URL`) are not mistaken for settings.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Invalid`] when a value has the wrong type or a key is
    /// unknown, [`ConfigError::BadValue`] when a value cannot work.
    pub fn load(file: &Path) -> Result<Config, ConfigError> {
        Self::from_figment(
            Figment::from(Serialized::defaults(Config::default()))
                .merge(Toml::file(file))
                .merge(
                    Env::prefixed("FLIGHTSTATE_")
                        .filter(|key| {
                            let key = key.as_str().to_ascii_lowercase();
                            SECTIONS
                                .iter()
                                .any(|section| key.starts_with(&format!("{section}_")))
                        })
                        .map(|key| {
                            key.as_str()
                                .to_ascii_lowercase()
                                .replacen('_', ".", 1)
                                .into()
                        }),
                ),
        )
    }

    fn from_figment(figment: Figment) -> Result<Config, ConfigError> {
        let config: Config = figment
            .extract()
            .map_err(|e| ConfigError::Invalid(Box::new(e)))?;
        config.validate()?;
        secrets::check_sources(&figment, &config)?;
        Ok(config)
    }

    /// Checks each section where it lives, in the file's order; the
    /// first value that cannot work is the error.
    fn validate(&self) -> Result<(), ConfigError> {
        self.database.validate()?;
        self.mailbox.validate()?;
        self.protocol.validate()?;
        self.station.validate()?;
        self.requests.validate()?;
        self.cleanup.validate()?;
        self.snapshot.validate()?;
        self.pump.validate()?;
        self.kafka.validate(self.database.pool_size)?;
        self.api.validate()
    }

    /// The Kafka client of `[kafka]`: the brokers, the `[kafka.client]`
    /// properties and the secrets.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Missing`] without brokers; a secret's file that others
    /// can read or that cannot be read.
    pub fn kafka_client(&self) -> Result<crate::kafka::KafkaClient, ConfigError> {
        self.kafka.client()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{AbsentFields, CollectionRules, MergeRules, Semantics};

    fn from_toml(text: &str) -> Result<Config, ConfigError> {
        Config::from_figment(
            Figment::from(Serialized::defaults(Config::default())).merge(Toml::string(text)),
        )
    }

    #[test]
    fn empty_file_gives_defaults() {
        let config = from_toml("").expect("defaults are valid");
        assert_eq!(config, Config::default());
        assert_eq!(config.kafka.state_topic, "flight.state");
    }

    #[test]
    fn missing_url_names_setting_and_variable() {
        let config = from_toml("").expect("defaults are valid");
        let err = config.database_url().expect_err("no url set");
        assert_eq!(
            err.to_string(),
            "`database.url` is not set; set it in the config file or in env `FLIGHTSTATE_DATABASE_URL`"
        );
    }

    #[test]
    fn unknown_key_is_rejected() {
        assert!(matches!(
            from_toml("[database]\nurll = \"x\""),
            Err(ConfigError::Invalid(_))
        ));
    }

    #[test]
    fn bad_scheme_and_boundary_are_rejected() {
        let err = from_toml("[database]\nurl = \"mysql://u:secret@h/db\"").expect_err("bad scheme");
        assert!(err.to_string().contains("u:***@h/db"), "{err}");
        assert!(!err.to_string().contains("secret"));
        assert!(from_toml("[station]\nday_boundary = \"25:00\"").is_err());
    }

    #[test]
    // The closure's error type is figment's own (`figment::Error`), not ours.
    #[allow(clippy::result_large_err)]
    fn environment_overrides_the_file() {
        figment::Jail::expect_with(|jail| {
            jail.create_file(
                "flightstate.toml",
                "[database]\nurl = \"postgres://file/db\"\npool_size = 5\n",
            )?;
            jail.set_env("FLIGHTSTATE_DATABASE_URL", "postgres://env/db");
            jail.set_env("FLIGHTSTATE_KAFKA_BROKERS", "127.0.0.1:9092");
            jail.set_env("FLIGHTSTATE_LOG_FORMAT", "json");
            jail.set_env("FLIGHTSTATE_TEST_PG_ADMIN_URL", "postgres://not/a/setting");
            let config = Config::load(Path::new("flightstate.toml")).map_err(|e| e.to_string())?;
            assert_eq!(config.database.url.as_deref(), Some("postgres://env/db"));
            assert_eq!(config.database.pool_size, 5);
            assert_eq!(config.kafka.brokers.as_deref(), Some("127.0.0.1:9092"));
            assert_eq!(config.log.format.as_deref(), Some("json"));
            Ok(())
        });
    }

    #[test]
    // The closure's error type is figment's own (`figment::Error`), not ours.
    #[allow(clippy::result_large_err)]
    fn merge_semantics_are_per_site() {
        let config = from_toml("[merge]\ngtdt = \"merge-by-key\"\n").expect("valid");
        assert_eq!(config.merge.rules().collections.gtdt, Semantics::MergeByKey);
        assert_eq!(config.merge.rules().collections.ckdt, Semantics::Replace);
        assert_eq!(
            config.merge.rules(),
            MergeRules {
                collections: CollectionRules {
                    gtdt: Semantics::MergeByKey,
                    ..CollectionRules::default()
                },
                ..MergeRules::default()
            }
        );
        assert!(from_toml("[merge]\ngtdt = \"append\"\n").is_err());
        assert!(from_toml("[merge]\nsrvt = \"replace\"\n").is_err());
        figment::Jail::expect_with(|jail| {
            jail.set_env("FLIGHTSTATE_MERGE_ADFT_ABSENT", "keep");
            jail.set_env("FLIGHTSTATE_MERGE_DELY", "replace");
            let config = Config::load(Path::new("none.toml")).map_err(|e| e.to_string())?;
            assert_eq!(config.merge.adft_absent, AbsentFields::Keep);
            assert_eq!(config.merge.collections.dely, Semantics::Replace);
            Ok(())
        });
    }

    #[test]
    fn api_settings_are_checked_and_the_token_never_printed() {
        let api = Config::default().api;
        assert_eq!(
            (api.bind.as_str(), api.page_size),
            ("127.0.0.1:8080", 1_000)
        );
        for (text, ok) in [
            ("[api]\nbind = \"\"\n", true),
            ("[api]\npage_size = 0\n", false),
            ("[api]\npage_size = 5001\n", false),
            ("[api]\nthreads = 0\n", false),
            ("[api]\ntoken = \"\"\n", false),
            ("[api]\ndatabase_url = \"mysql://x\"\n", false),
            (
                "[api]\ndatabase_url = \"postgres://ro:pw@replica/fs\"\n",
                true,
            ),
        ] {
            let result = from_toml(text);
            assert_eq!(result.is_ok(), ok, "{text}: {result:?}");
        }
        let config = from_toml(
            "[api]\ntoken = \"t0ken-secret\"\ndatabase_url = \"postgres://ro:pw@replica/fs\"\n",
        )
        .expect("valid");
        let printed = format!("{config:?}");
        assert!(
            !printed.contains("t0ken-secret") && !printed.contains(":pw@"),
            "{printed}"
        );
    }

    #[test]
    fn lanes_are_bounded_and_leave_the_pool_a_connection() {
        assert_eq!(Config::default().kafka.lanes, 3);
        for (text, ok) in [
            ("[kafka]\nlanes = 0\n", false),
            ("[kafka]\nlanes = 17\n", false),
            ("[kafka]\nlanes = 4\n", true),
            ("[database]\npool_size = 4\n[kafka]\nlanes = 4\n", false),
            ("[database]\npool_size = 5\n[kafka]\nlanes = 4\n", true),
        ] {
            let result = from_toml(text);
            assert_eq!(result.is_ok(), ok, "{text}: {result:?}");
            if let Err(e) = result {
                assert!(e.to_string().contains("kafka.lanes"), "{e}");
            }
        }
    }

    #[test]
    fn timeouts_have_defaults_and_zero_is_refused_where_it_would_stall() {
        let config = from_toml("").expect("defaults are valid");
        assert_eq!(
            config.database.timeouts(),
            crate::store::Timeouts::default()
        );
        let config = from_toml("[database]\nstatement_timeout_secs = 0\nio_timeout_secs = 7\n")
            .expect("no statement timeout is allowed");
        assert_eq!(config.database.timeouts().statement, None);
        assert_eq!(config.database.timeouts().io.as_secs(), 7);
        let config = from_toml("[pump]\nlease_secs = 9\n").expect("a lease of 9 s");
        assert_eq!(
            config.state_database_timeouts().idle_in_transaction,
            Some(std::time::Duration::from_secs(9)),
            "an idle transaction is ended within the lease"
        );
        for text in [
            "[database]\nio_timeout_secs = 0\n",
            "[database]\nconnect_timeout_secs = 0\n",
            "[mailbox]\nio_timeout_secs = 0\n",
            "[mailbox]\nconnect_timeout_secs = 0\n",
        ] {
            let err = from_toml(text).expect_err(text);
            assert!(err.to_string().contains("timeout_secs"), "{err}");
        }
    }

    #[test]
    fn dialect_follows_features() {
        assert_eq!(
            database_dialect("postgres://h/db").ok(),
            cfg!(feature = "postgres").then_some(Dialect::Postgres)
        );
        assert_eq!(
            database_dialect("oracle://h/db").ok(),
            cfg!(feature = "oracle").then_some(Dialect::Oracle)
        );
    }
}
