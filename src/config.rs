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

use crate::state::{AbsentFields, CollectionRules, DayMoves, MergeRules, Semantics};

mod api;
mod cleanup;
mod database;
mod dialect;
mod kafka;
mod pipeline;
mod pump;
mod requests;
mod secrets;
mod snapshot;
mod station;

pub use crate::station::StationClock;
pub use api::ApiConfig;
pub use cleanup::CleanupConfig;
pub use database::DatabaseConfig;
pub use dialect::{Dialect, database_dialect, redact_url};
pub use kafka::{KafkaConfig, PropertyValue};
pub use pump::PumpConfig;
pub use requests::RequestsConfig;
pub use snapshot::SnapshotConfig;

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

/// The shared AODB mailbox.
#[derive(Clone, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct MailboxConfig {
    /// `mysql://…`; env `FLIGHTSTATE_MAILBOX_URL`.
    pub url: Option<String>,
    /// The `CMINMSGS_STATUS` value of rows waiting to be read.
    pub pending_status: String,
    /// The `CMINMSGS_STATUS` written back for a message applied (SUCCEEDED).
    pub succeeded_status: String,
    /// The `CMINMSGS_STATUS` written back for a dead letter (DEAD).
    pub dead_status: String,
    /// Connections in the mailbox pool (its own, separate from the state
    /// database's).
    pub pool_size: u32,
    /// How long to wait for a mailbox connection.
    pub connect_timeout_secs: u64,
    /// How long one read or write on a mailbox connection may block.
    pub io_timeout_secs: u64,
}

impl std::fmt::Debug for MailboxConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A URL's password stays out of logs.
        f.debug_struct("MailboxConfig")
            .field("url", &self.url.as_deref().map(redact_url))
            .field("pending_status", &self.pending_status)
            .field("succeeded_status", &self.succeeded_status)
            .field("dead_status", &self.dead_status)
            .field("pool_size", &self.pool_size)
            .field("connect_timeout_secs", &self.connect_timeout_secs)
            .field("io_timeout_secs", &self.io_timeout_secs)
            .finish()
    }
}

impl Default for MailboxConfig {
    fn default() -> Self {
        MailboxConfig {
            url: None,
            pending_status: "VALID".to_owned(),
            succeeded_status: "PROCESSED".to_owned(),
            dead_status: "DEAD".to_owned(),
            pool_size: 2,
            connect_timeout_secs: 5,
            io_timeout_secs: 30,
        }
    }
}

/// How inbound SIS messages are read.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ProtocolConfig {
    /// Larger messages are rejected before parsing (default
    /// [`DEFAULT_MAX_BYTES`](crate::protocol::DEFAULT_MAX_BYTES): room for a
    /// full day of 9,999 flights).
    pub max_message_bytes: usize,
    /// The element inside `<SCHD>` that names a snapshot's operation day, at
    /// sites whose AODB sends one.
    pub operation_day_element: Option<String>,
    /// Whether a large snapshot is read on two cores
    /// ([`ParseOptions::second_reader_from_bytes`](crate::protocol::ParseOptions)); off, every
    /// message is read on one.
    pub second_reader: bool,
}

impl Default for ProtocolConfig {
    fn default() -> Self {
        ProtocolConfig {
            max_message_bytes: crate::protocol::DEFAULT_MAX_BYTES,
            operation_day_element: None,
            second_reader: true,
        }
    }
}

impl ProtocolConfig {
    /// How the parser reads this site's messages.
    pub fn parse_options(&self) -> crate::protocol::ParseOptions {
        crate::protocol::ParseOptions {
            max_bytes: self.max_message_bytes,
            operation_day_element: self.operation_day_element.clone(),
            second_reader_from_bytes: self
                .second_reader
                .then_some(crate::protocol::DEFAULT_SECOND_READER_FROM_BYTES),
        }
    }
}

/// Facts about the airport.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct StationConfig {
    /// IATA code of the home airport.
    pub home_airport: Option<String>,
    /// Local time at which one operation day ends and the next begins,
    /// `HH:MM`.
    pub day_boundary: String,
    /// The IANA zone of the station's wall clock (`Asia/Shanghai`): the
    /// zone of every local time flightstate sends or reads as "today".
    /// Unset: the host's zone, with a warning at start.
    pub time_zone: Option<String>,
    /// Whether a late snapshot of an older day may take a flight back from
    /// a later day: `forward_only` (never) or `any`.
    pub day_moves: DayMoves,
}

impl Default for StationConfig {
    fn default() -> Self {
        StationConfig {
            home_airport: None,
            day_boundary: "00:00".to_owned(),
            time_zone: None,
            day_moves: DayMoves::default(),
        }
    }
}

/// Log output.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    /// `json` for one JSON object per line (production), anything else for
    /// human-readable text.
    pub format: Option<String>,
}

/// How flight events (FLOP) and ad-hoc flights (SCHD ADFT) merge into
/// stored state. The upstream collection semantics are not settled
/// (PROTOCOL §5.2), so each collection kind is a setting: `replace` (the
/// FLOP carries the complete new list) or `merge-by-key` (entries add or
/// overwrite by their key, the others stay). Env:
/// `FLIGHTSTATE_MERGE_GTDT=merge-by-key`, `FLIGHTSTATE_MERGE_ADFT_ABSENT=keep`.
/// See `docs/events.md`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct MergeConfig {
    /// Gate allocations (key GTNO); default `replace`.
    pub gtdt: Semantics,
    /// Check-in counters (key CKNO); default `replace`.
    pub ckdt: Semantics,
    /// Carousels (key CLNO); default `replace`.
    pub cldt: Semantics,
    /// Planned stands (key PSNO); default `replace`.
    pub psdt: Semantics,
    /// Chutes (key CHNO); default `replace`.
    pub chdt: Semantics,
    /// Chocks (key CSNO); default `replace`.
    pub chot: Semantics,
    /// Airbridge events (key ASNO); default `replace`.
    pub abtm: Semantics,
    /// Delays (key CODE); default `merge-by-key`.
    pub dely: Semantics,
    /// Entire route (key RTNO); default `merge-by-key`.
    pub erut: Semantics,
    /// What an element an SCHD ADFT record leaves out means: `clear`
    /// (default: an FLTR is a full record) or `keep`.
    pub adft_absent: AbsentFields,
}

impl Default for MergeConfig {
    fn default() -> Self {
        MergeConfig::from_rules(&MergeRules::default())
    }
}

impl MergeConfig {
    fn from_rules(rules: &MergeRules) -> MergeConfig {
        let c = &rules.collections;
        MergeConfig {
            gtdt: c.gtdt,
            ckdt: c.ckdt,
            cldt: c.cldt,
            psdt: c.psdt,
            chdt: c.chdt,
            chot: c.chot,
            abtm: c.abtm,
            dely: c.dely,
            erut: c.erut,
            adft_absent: rules.adft_absent,
        }
    }

    /// The merge rules these settings give.
    pub fn rules(&self) -> MergeRules {
        MergeRules {
            collections: CollectionRules {
                gtdt: self.gtdt,
                ckdt: self.ckdt,
                cldt: self.cldt,
                psdt: self.psdt,
                chdt: self.chdt,
                chot: self.chot,
                abtm: self.abtm,
                dely: self.dely,
                erut: self.erut,
            },
            adft_absent: self.adft_absent,
        }
    }
}

/// The largest `api.page_size`: the batch the state reads bind at most.
pub const MAX_API_PAGE: u32 = 5_000;

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
/// The most dispatcher lanes (`kafka.lanes`): beyond a few, lanes only
/// take connections from the pool.
const MAX_LANES: u32 = 16;

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

    fn validate(&self) -> Result<(), ConfigError> {
        if self.database.pool_size == 0 {
            return Err(ConfigError::BadValue {
                setting: "database.pool_size",
                value: "0".to_owned(),
                reason: "a pool needs at least one connection",
            });
        }
        if let Some(url) = &self.database.url {
            database_dialect(url)?;
        }
        for (setting, value) in [
            (
                "database.connect_timeout_secs",
                self.database.connect_timeout_secs,
            ),
            ("database.io_timeout_secs", self.database.io_timeout_secs),
            (
                "mailbox.connect_timeout_secs",
                self.mailbox.connect_timeout_secs,
            ),
            ("mailbox.io_timeout_secs", self.mailbox.io_timeout_secs),
        ] {
            if value == 0 {
                return Err(ConfigError::BadValue {
                    setting,
                    value: "0".to_owned(),
                    reason: "must be at least 1: without it a silent link stalls for ever",
                });
            }
        }
        if self.protocol.max_message_bytes < 1024 {
            return Err(ConfigError::BadValue {
                setting: "protocol.max_message_bytes",
                value: self.protocol.max_message_bytes.to_string(),
                reason: "must be at least 1024",
            });
        }
        parse_day_boundary(&self.station.day_boundary)?;
        if let Some(zone) = &self.station.time_zone {
            station::parse_time_zone(zone)?;
        }
        self.requests.validate()?;
        self.cleanup.validate()?;
        self.snapshot.validate()?;
        if self.pump.lease_secs < 3 {
            return Err(ConfigError::BadValue {
                setting: "pump.lease_secs",
                value: self.pump.lease_secs.to_string(),
                reason: "must be at least 3 (the lease is renewed every third of it)",
            });
        }
        self.kafka.validate()?;
        if self.kafka.batch_size == 0 || self.kafka.topic_partitions == 0 {
            return Err(ConfigError::BadValue {
                setting: "kafka.batch_size / kafka.topic_partitions",
                value: "0".to_owned(),
                reason: "must be at least 1",
            });
        }
        if !(1..=MAX_LANES).contains(&self.kafka.lanes) {
            return Err(ConfigError::BadValue {
                setting: "kafka.lanes",
                value: self.kafka.lanes.to_string(),
                reason: "must be between 1 and 16",
            });
        }
        if self.kafka.lanes >= self.database.pool_size {
            return Err(ConfigError::BadValue {
                setting: "kafka.lanes",
                value: self.kafka.lanes.to_string(),
                reason: "each lane holds a connection during its pass: keep it below database.pool_size, which the pump shares",
            });
        }
        if let Some(url) = &self.api.database_url {
            database_dialect(url)?;
        }
        if self.api.threads == 0 {
            return Err(ConfigError::BadValue {
                setting: "api.threads",
                value: "0".to_owned(),
                reason: "the API needs at least one thread",
            });
        }
        if !(1..=MAX_API_PAGE).contains(&self.api.page_size) {
            return Err(ConfigError::BadValue {
                setting: "api.page_size",
                value: self.api.page_size.to_string(),
                reason: "must be between 1 and 5000",
            });
        }
        if self.api.token.as_deref() == Some("") {
            return Err(ConfigError::BadValue {
                setting: "api.token",
                value: String::new(),
                reason: "an empty token would let anyone in; leave it unset for no authentication",
            });
        }
        if self.pump.head_batch == 0 || self.pump.effect_batch == 0 || self.pump.group_commit == 0 {
            return Err(ConfigError::BadValue {
                setting: "pump.head_batch / pump.effect_batch / pump.group_commit",
                value: "0".to_owned(),
                reason: "a batch needs at least one row",
            });
        }
        Ok(())
    }

    /// The state database URL.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Missing`] when it is not set.
    pub fn database_url(&self) -> Result<&str, ConfigError> {
        self.database.url.as_deref().ok_or(ConfigError::Missing {
            setting: "database.url",
            env: "FLIGHTSTATE_DATABASE_URL",
        })
    }

    /// The mailbox URL.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Missing`] when it is not set.
    pub fn mailbox_url(&self) -> Result<&str, ConfigError> {
        self.mailbox.url.as_deref().ok_or(ConfigError::Missing {
            setting: "mailbox.url",
            env: "FLIGHTSTATE_MAILBOX_URL",
        })
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

    /// The station's wall clock (`station.time_zone`, else the host's zone).
    pub fn station_clock(&self) -> StationClock {
        // Validated in `load`, like the day boundary.
        StationClock::new(
            self.station
                .time_zone
                .as_deref()
                .and_then(|zone| station::parse_time_zone(zone).ok()),
        )
    }

    /// The station's day boundary as a time of day.
    pub fn day_boundary(&self) -> chrono::NaiveTime {
        // Validated in `load`; a hand-built config with a bad value falls
        // back to midnight, the protocol's own day boundary.
        parse_day_boundary(&self.station.day_boundary).unwrap_or(chrono::NaiveTime::MIN)
    }
}

fn parse_day_boundary(value: &str) -> Result<chrono::NaiveTime, ConfigError> {
    chrono::NaiveTime::parse_from_str(value, "%H:%M").map_err(|_| ConfigError::BadValue {
        setting: "station.day_boundary",
        value: value.to_owned(),
        reason: "must be a local time of day, HH:MM",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
            assert_eq!(config.merge.dely, Semantics::Replace);
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
