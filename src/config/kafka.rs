//! The `[kafka]` section: the brokers, how to reach them (`[kafka.client]`,
//! librdkafka's own property names), the topics and the dispatcher's
//! tuning.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use std::time::Duration;

use super::ConfigError;
use super::secrets::read_secret_file;
use crate::dispatch::{DispatchSettings, HeartbeatSettings, KafkaSettings};
use crate::kafka::KafkaClient;

/// Kafka brokers and topics.
#[derive(Clone, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct KafkaConfig {
    /// `host:port,…`; env `FLIGHTSTATE_KAFKA_BROKERS`.
    pub brokers: Option<String>,
    /// Topic of whole-flight state events and tombstones.
    pub state_topic: String,
    /// Topic of change notifications.
    pub change_topic: String,
    /// Due outbox rows one dispatcher pass starts from, per outbox.
    pub batch_size: u32,
    /// Dispatcher lanes working side by side, each with its own connection
    /// and producer (a flight always goes through the same lane).
    pub lanes: u32,
    /// `linger.ms` of the producer.
    pub linger_ms: u64,
    /// `message.timeout.ms` of the producer: how long a message is retried
    /// before its rows are kept for a later pass.
    pub delivery_timeout_ms: u64,
    /// Wait after a row's first failed delivery (doubled per failure).
    pub backoff_initial_ms: u64,
    /// Longest wait between two tries of a row.
    pub backoff_max_ms: u64,
    /// Sleep of an idle dispatcher between looks at the outbox.
    pub idle_poll_ms: u64,
    /// Create the two topics at start when they are missing; sites whose
    /// operators create topics set `false`.
    pub create_topics: bool,
    /// Partitions of a topic the dispatcher creates.
    pub topic_partitions: u32,
    /// Replication factor of a topic the dispatcher creates.
    pub topic_replication: u32,
    /// Dispatch to a state topic whose `cleanup.policy` is not `compact`
    /// alone, with a warning, instead of refusing: the site accepts that a
    /// consumer reading from the start misses flights older than the
    /// retention.
    pub allow_uncompacted_state_topic: bool,
    /// Topic of the heartbeats (compacted, one record per station).
    pub heartbeat_topic: String,
    /// Seconds between two heartbeats; 0 sends none.
    pub heartbeat_secs: u64,
    /// The SASL password (`sasl.password`); env
    /// `FLIGHTSTATE_KAFKA_SASL_PASSWORD`. Never from a file others can
    /// read.
    pub sasl_password: Option<String>,
    /// A file holding the SASL password (one line), readable by its owner
    /// (and group) only; instead of `sasl_password`.
    pub sasl_password_file: Option<PathBuf>,
    /// The password of the client key (`ssl.key.password`); env
    /// `FLIGHTSTATE_KAFKA_SSL_KEY_PASSWORD`.
    pub ssl_key_password: Option<String>,
    /// A file holding the client key's password; instead of
    /// `ssl_key_password`.
    pub ssl_key_password_file: Option<PathBuf>,
    /// librdkafka properties every Kafka client of flightstate is given,
    /// under their own names (`"security.protocol" = "SASL_SSL"`,
    /// `"sasl.mechanism"`, `"sasl.username"`, `"ssl.ca.location"`, …):
    /// the `[kafka.client]` table. No secrets here.
    pub client: BTreeMap<String, PropertyValue>,
}

impl Default for KafkaConfig {
    fn default() -> Self {
        KafkaConfig {
            brokers: None,
            state_topic: "flight.state".to_owned(),
            change_topic: "flight.change".to_owned(),
            batch_size: 1000,
            lanes: 3,
            linger_ms: 5,
            delivery_timeout_ms: 30_000,
            backoff_initial_ms: 1_000,
            backoff_max_ms: 60_000,
            idle_poll_ms: 500,
            create_topics: true,
            topic_partitions: 1,
            topic_replication: 1,
            allow_uncompacted_state_topic: false,
            heartbeat_topic: "flight.heartbeat".to_owned(),
            heartbeat_secs: 30,
            sasl_password: None,
            sasl_password_file: None,
            ssl_key_password: None,
            ssl_key_password_file: None,
            client: BTreeMap::new(),
        }
    }
}

impl std::fmt::Debug for KafkaConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The passwords stay out of logs.
        let hidden = |secret: &Option<String>| secret.as_ref().map(|_| "***");
        f.debug_struct("KafkaConfig")
            .field("brokers", &self.brokers)
            .field("state_topic", &self.state_topic)
            .field("change_topic", &self.change_topic)
            .field("batch_size", &self.batch_size)
            .field("lanes", &self.lanes)
            .field("linger_ms", &self.linger_ms)
            .field("delivery_timeout_ms", &self.delivery_timeout_ms)
            .field("backoff_initial_ms", &self.backoff_initial_ms)
            .field("backoff_max_ms", &self.backoff_max_ms)
            .field("idle_poll_ms", &self.idle_poll_ms)
            .field("create_topics", &self.create_topics)
            .field("topic_partitions", &self.topic_partitions)
            .field("topic_replication", &self.topic_replication)
            .field(
                "allow_uncompacted_state_topic",
                &self.allow_uncompacted_state_topic,
            )
            .field("heartbeat_topic", &self.heartbeat_topic)
            .field("heartbeat_secs", &self.heartbeat_secs)
            .field("sasl_password", &hidden(&self.sasl_password))
            .field("sasl_password_file", &self.sasl_password_file)
            .field("ssl_key_password", &hidden(&self.ssl_key_password))
            .field("ssl_key_password_file", &self.ssl_key_password_file)
            .field("client", &self.client)
            .finish()
    }
}

/// The most dispatcher lanes (`kafka.lanes`): beyond a few, lanes only
/// take connections from the pool.
const MAX_LANES: u32 = 16;

/// A `[kafka.client]` value: librdkafka takes every property as text, and
/// a TOML number or boolean is taken as it is written.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum PropertyValue {
    /// `"SASL_SSL"`.
    Text(String),
    /// `5`.
    Integer(i64),
    /// `true`.
    Bool(bool),
}

impl std::fmt::Display for PropertyValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PropertyValue::Text(text) => f.write_str(text),
            PropertyValue::Integer(n) => write!(f, "{n}"),
            PropertyValue::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// A secret librdkafka property, the settings that give it, and how to
/// read them from the section.
struct SecretProperty {
    property: &'static str,
    setting: &'static str,
    file_setting: &'static str,
    value: fn(&KafkaConfig) -> (Option<&String>, Option<&PathBuf>),
}

const SECRET_PROPERTIES: [SecretProperty; 2] = [
    SecretProperty {
        property: "sasl.password",
        setting: "kafka.sasl_password",
        file_setting: "kafka.sasl_password_file",
        value: |k| (k.sasl_password.as_ref(), k.sasl_password_file.as_ref()),
    },
    SecretProperty {
        property: "ssl.key.password",
        setting: "kafka.ssl_key_password",
        file_setting: "kafka.ssl_key_password_file",
        value: |k| {
            (
                k.ssl_key_password.as_ref(),
                k.ssl_key_password_file.as_ref(),
            )
        },
    },
];

impl KafkaConfig {
    /// Where and how often the dispatcher sends heartbeats, keyed by the
    /// station `home_airport` (`station.home_airport`), or `flightstate`
    /// where none is set.
    pub fn heartbeat(&self, home_airport: Option<&str>) -> HeartbeatSettings {
        let defaults = HeartbeatSettings::default();
        HeartbeatSettings {
            topic: self.heartbeat_topic.clone(),
            interval: Duration::from_secs(self.heartbeat_secs),
            station: home_airport.map_or(defaults.station, str::to_owned),
        }
    }

    /// How the dispatcher works through the outbox.
    pub fn dispatch_settings(&self) -> DispatchSettings {
        DispatchSettings {
            state_topic: self.state_topic.clone(),
            change_topic: self.change_topic.clone(),
            batch_size: i64::from(self.batch_size),
            lanes: self.lanes,
            backoff_initial: Duration::from_millis(self.backoff_initial_ms),
            backoff_max: Duration::from_millis(self.backoff_max_ms),
            idle_poll: Duration::from_millis(self.idle_poll_ms),
        }
    }

    /// The dispatcher's producer: the [`client`](Self::client) and how it
    /// sends and creates topics.
    ///
    /// # Errors
    ///
    /// As [`client`](Self::client).
    pub fn producer_settings(&self) -> Result<KafkaSettings, ConfigError> {
        Ok(KafkaSettings {
            linger: Duration::from_millis(self.linger_ms),
            delivery_timeout: Duration::from_millis(self.delivery_timeout_ms),
            create_topics: self.create_topics,
            topic_partitions: i32::try_from(self.topic_partitions).unwrap_or(i32::MAX),
            topic_replication: i32::try_from(self.topic_replication).unwrap_or(i32::MAX),
            allow_uncompacted_state_topic: self.allow_uncompacted_state_topic,
            ..KafkaSettings::of(self.client()?)
        })
    }

    /// The settings that hold a secret value (not a file name), for the
    /// check of where they came from.
    pub(super) fn secret_settings(&self) -> Vec<&'static str> {
        SECRET_PROPERTIES
            .iter()
            .filter(|p| (p.value)(self).0.is_some())
            .map(|p| p.setting)
            .collect()
    }

    /// Checks the section; `pool_size` is `database.pool_size`, the pool
    /// the lanes share with the pump.
    pub(super) fn validate(&self, pool_size: u32) -> Result<(), ConfigError> {
        self.validate_client()?;
        if self.batch_size == 0 || self.topic_partitions == 0 {
            return Err(ConfigError::BadValue {
                setting: "kafka.batch_size / kafka.topic_partitions",
                value: "0".to_owned(),
                reason: "must be at least 1",
            });
        }
        if !(1..=MAX_LANES).contains(&self.lanes) {
            return Err(ConfigError::BadValue {
                setting: "kafka.lanes",
                value: self.lanes.to_string(),
                reason: "must be between 1 and 16",
            });
        }
        if self.lanes >= pool_size {
            return Err(ConfigError::BadValue {
                setting: "kafka.lanes",
                value: self.lanes.to_string(),
                reason: "each lane holds a connection during its pass: keep it below database.pool_size, which the pump shares",
            });
        }
        Ok(())
    }

    /// Refuses what never goes in `[kafka.client]`, and a secret set twice.
    fn validate_client(&self) -> Result<(), ConfigError> {
        let bad = |setting, value: &str, reason| ConfigError::BadValue {
            setting,
            value: value.to_owned(),
            reason,
        };
        for name in self.client.keys() {
            let reason = match name.as_str() {
                "bootstrap.servers" | "metadata.broker.list" => {
                    "the brokers are `kafka.brokers` (FLIGHTSTATE_KAFKA_BROKERS)"
                }
                "enable.idempotence" | "acks" | "request.required.acks" => {
                    "never overridable: the outbox counts a row sent only once every replica has it, exactly once"
                }
                "sasl.password" => {
                    "a password never goes in [kafka.client]: set FLIGHTSTATE_KAFKA_SASL_PASSWORD or `kafka.sasl_password_file`"
                }
                "ssl.key.password" => {
                    "a password never goes in [kafka.client]: set FLIGHTSTATE_KAFKA_SSL_KEY_PASSWORD or `kafka.ssl_key_password_file`"
                }
                other
                    if other.contains("password")
                        || other.contains("secret")
                        || other == "ssl.key.pem" =>
                {
                    "a secret never goes in [kafka.client]; flightstate takes `sasl.password` and `ssl.key.password` only, through their settings"
                }
                _ => continue,
            };
            return Err(bad("kafka.client", name, reason));
        }
        for property in &SECRET_PROPERTIES {
            if let (Some(_), Some(file)) = (property.value)(self) {
                return Err(bad(
                    property.setting,
                    &file.display().to_string(),
                    "set the secret or its file, not both",
                ));
            }
        }
        Ok(())
    }

    /// The Kafka client of these settings: the brokers, the `[kafka.client]`
    /// properties and the secrets, a secret's file read now.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Missing`] without brokers; [`ConfigError::ReadableSecret`]
    /// or [`ConfigError::SecretFile`] for a secret's file that others can
    /// read or that cannot be read.
    pub fn client(&self) -> Result<KafkaClient, ConfigError> {
        let brokers = self.brokers.as_deref().ok_or(ConfigError::Missing {
            setting: "kafka.brokers",
            env: "FLIGHTSTATE_KAFKA_BROKERS",
        })?;
        let mut client = KafkaClient::new(brokers);
        for (name, value) in &self.client {
            client.set_property(name.clone(), value.to_string());
        }
        for property in &SECRET_PROPERTIES {
            let secret = match (property.value)(self) {
                (Some(secret), _) => secret.clone(),
                (None, Some(file)) => read_secret_file(property.file_setting, file)?,
                (None, None) => continue,
            };
            client = client.with_secret(property.property, secret);
        }
        Ok(client)
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    use figment::Figment;
    use figment::providers::{Format, Serialized, Toml};

    use super::super::{Config, ConfigError};

    fn from_toml(text: &str) -> Result<Config, ConfigError> {
        Config::from_figment(
            Figment::from(Serialized::defaults(Config::default())).merge(Toml::string(text)),
        )
    }

    fn chmod(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }

    #[test]
    fn client_properties_pass_through_under_their_own_names() {
        let config = from_toml(
            "[kafka]\nbrokers = \"k1:9093\"\n[kafka.client]\n\"security.protocol\" = \
             \"SASL_SSL\"\n\"sasl.mechanism\" = \"SCRAM-SHA-256\"\n\"sasl.username\" = \"fs\"\n\
             \"socket.keepalive.enable\" = true\n\"reconnect.backoff.max.ms\" = 5000\n",
        )
        .expect("valid");
        let client = config.kafka_client().expect("a client");
        let rd = client.config();
        assert_eq!(rd.get("security.protocol"), Some("SASL_SSL"));
        assert_eq!(rd.get("socket.keepalive.enable"), Some("true"));
        assert_eq!(rd.get("reconnect.backoff.max.ms"), Some("5000"));
        assert_eq!(rd.get("bootstrap.servers"), Some("k1:9093"));
        assert_eq!(client.security(), "SASL_SSL, SCRAM-SHA-256 as fs");
    }

    #[test]
    fn what_never_goes_in_the_client_table_is_refused_by_name() {
        for name in [
            "bootstrap.servers",
            "acks",
            "enable.idempotence",
            "sasl.password",
            "ssl.key.password",
            "sasl.oauthbearer.client.secret",
            "ssl.key.pem",
        ] {
            let err = from_toml(&format!("[kafka.client]\n\"{name}\" = \"x\"\n")).expect_err(name);
            let text = err.to_string();
            assert!(
                text.contains("kafka.client") && text.contains(name),
                "{text}"
            );
        }
        let err = from_toml("[kafka]\nsasl_password = \"a\"\nsasl_password_file = \"/f\"\n")
            .expect_err("both");
        assert!(err.to_string().contains("not both"), "{err}");
    }

    #[test]
    fn a_password_file_others_can_read_is_refused() {
        let dir = std::env::temp_dir().join(format!("fs_kafka_secret_{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join("kafka-password");
        std::fs::write(&file, "pw-from-file\n").expect("write");
        let config = from_toml(&format!(
            "[kafka]\nbrokers = \"k:9092\"\nsasl_password_file = \"{}\"\n",
            file.display()
        ))
        .expect("valid");
        chmod(&file, 0o644);
        let err = config.kafka_client().expect_err("world-readable");
        assert!(
            matches!(err, ConfigError::ReadableSecret { mode: 0o644, .. }),
            "{err}"
        );
        assert!(
            err.to_string().contains("kafka.sasl_password_file"),
            "{err}"
        );
        chmod(&file, 0o640);
        let client = config.kafka_client().expect("owner and group only");
        assert_eq!(client.config().get("sasl.password"), Some("pw-from-file"));
        assert!(!format!("{client:?} {config:?}").contains("pw-from-file"));
        std::fs::remove_file(&file).expect("remove");
        assert!(matches!(
            config.kafka_client(),
            Err(ConfigError::SecretFile { .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    // The closure's error type is figment's own (`figment::Error`), not ours.
    #[allow(clippy::result_large_err)]
    fn a_secret_in_a_settings_file_others_can_read_is_refused() {
        figment::Jail::expect_with(|jail| {
            for text in [
                "[kafka]\nsasl_password = \"pw1\"\n",
                "[database]\nurl = \"postgres://u:pw2@h/db\"\n",
                "[mailbox]\nurl = \"mysql://u:pw3@h/aodb\"\n",
                "[api]\ntoken = \"tok4\"\n",
            ] {
                let file = jail.directory().join("flightstate.toml");
                std::fs::write(&file, text).map_err(|e| e.to_string())?;
                chmod(&file, 0o644);
                let err = Config::load(&file).expect_err(text);
                assert!(matches!(err, ConfigError::ReadableSecret { .. }), "{err}");
                assert!(!err.to_string().contains("pw"), "{err}");
                chmod(&file, 0o600);
                Config::load(&file).map_err(|e| e.to_string())?;
            }
            // The same file without secrets, world-readable: fine; the
            // secret from the environment: fine.
            let file = jail.directory().join("flightstate.toml");
            std::fs::write(&file, "[database]\nurl = \"postgres://u@h/db\"\n")
                .map_err(|e| e.to_string())?;
            chmod(&file, 0o644);
            jail.set_env("FLIGHTSTATE_KAFKA_SASL_PASSWORD", "pw-env");
            jail.set_env("FLIGHTSTATE_DATABASE_URL", "postgres://u:pw-env@h/db");
            let config = Config::load(&file).map_err(|e| e.to_string())?;
            assert_eq!(config.kafka.sasl_password.as_deref(), Some("pw-env"));
            assert!(!format!("{config:?}").contains("pw-env"));
            Ok(())
        });
    }
}
