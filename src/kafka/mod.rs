//! The link to the Kafka brokers, for every Kafka client flightstate
//! makes: the dispatcher's producers, its topic checks, `doctor`,
//! `/healthz` and `topics`. Where the brokers are, and how to talk to them
//! — plaintext, TLS, SASL — in librdkafka's own property names, so that a
//! site's Kafka team can hand over the properties they give every client.
//!
//! Secrets (the SASL password, a client key's password) travel apart from
//! the other properties: they are set on the client and nowhere else, and
//! a [`KafkaClient`] printed with `{:?}` shows their names only. Where they
//! come from (the environment, or a file only its owner reads) is the
//! configuration's business (`config::KafkaConfig`).
//!
//! This module never reads the environment or a file.

mod refusal;
mod topics;

use std::time::{Duration, Instant};

use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::KafkaError;
use rdkafka::metadata::Metadata;

pub use refusal::{Refusal, RefusalKind, RefusalWatch};
pub use topics::{
    CHANGE_TOPIC_POLICY, NewTopicSpec, STATE_TOPIC_POLICY, TopicAdmin, TopicError,
    keeps_every_flight,
};

/// Why the brokers gave no answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LinkError {
    /// A broker refused the client: its credentials or TLS. Retrying does
    /// not help until someone fixes the configuration or the broker.
    #[error(transparent)]
    Refused(Refusal),
    /// No broker answered in time: down, unreachable, or not a Kafka
    /// broker at that address.
    #[error("no answer from kafka at {brokers} within {} s", .waited.as_secs())]
    Unanswered {
        /// The bootstrap brokers.
        brokers: String,
        /// How long the client waited.
        waited: Duration,
        /// librdkafka's answer.
        #[source]
        source: KafkaError,
    },
}

/// How every Kafka client of the process reaches the brokers.
#[derive(Clone, PartialEq, Eq)]
pub struct KafkaClient {
    brokers: String,
    /// librdkafka properties of the site (`[kafka.client]`), in order.
    properties: Vec<(String, String)>,
    /// Secret librdkafka properties (`sasl.password`, …), set last.
    secrets: Vec<(&'static str, String)>,
}

impl std::fmt::Debug for KafkaClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secrets: Vec<&str> = self.secrets.iter().map(|(name, _)| *name).collect();
        f.debug_struct("KafkaClient")
            .field("brokers", &self.brokers)
            .field("properties", &self.properties)
            .field("secrets", &secrets)
            .finish()
    }
}

impl KafkaClient {
    /// Plaintext to `brokers` (`host:port,…`), librdkafka's defaults.
    pub fn new(brokers: impl Into<String>) -> KafkaClient {
        KafkaClient {
            brokers: brokers.into(),
            properties: Vec::new(),
            secrets: Vec::new(),
        }
    }

    /// Adds (or replaces) the librdkafka property `name`.
    pub fn with_property(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.set_property(name, value);
        self
    }

    /// Sets (or replaces) the librdkafka property `name`.
    pub fn set_property(&mut self, name: impl Into<String>, value: impl Into<String>) {
        let name = name.into();
        self.properties.retain(|(n, _)| *n != name);
        self.properties.push((name, value.into()));
    }

    /// Adds the secret librdkafka property `name` (never printed).
    pub fn with_secret(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.secrets.retain(|(n, _)| *n != name);
        self.secrets.push((name, value.into()));
        self
    }

    /// The bootstrap brokers, `host:port,…`.
    pub fn brokers(&self) -> &str {
        &self.brokers
    }

    /// The value of the (non-secret) property `name`, if the site set it.
    pub fn property(&self, name: &str) -> Option<&str> {
        self.properties
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// How the link is secured, for messages: `security.protocol`, with the
    /// SASL mechanism and user where SASL is on (`SASL_SSL, SCRAM-SHA-512 as
    /// flightstate`). Never a secret.
    pub fn security(&self) -> String {
        let protocol = self
            .property("security.protocol")
            .unwrap_or("plaintext")
            .to_ascii_uppercase();
        if !protocol.starts_with("SASL") {
            return protocol;
        }
        // librdkafka's own default mechanism.
        let mechanism = self.property("sasl.mechanism").unwrap_or("GSSAPI");
        match self.property("sasl.username") {
            Some(user) => format!("{protocol}, {mechanism} as {user}"),
            None => format!("{protocol}, {mechanism}"),
        }
    }

    /// A client configuration with the brokers, the site's properties and
    /// the secrets; callers add their own (a consumer's `group.id`, …).
    pub fn config(&self) -> ClientConfig {
        let mut config = ClientConfig::new();
        self.configure(&mut config);
        config
    }

    /// Sets the brokers, the site's properties and the secrets on `config`,
    /// over what it holds: a client's own defaults go in first.
    pub fn configure(&self, config: &mut ClientConfig) {
        config.set("bootstrap.servers", &self.brokers);
        for (name, value) in &self.properties {
            config.set(name, value);
        }
        for (name, value) in &self.secrets {
            config.set(*name, value);
        }
    }
}

impl KafkaClient {
    /// Asks the brokers for the metadata of `topic` (all topics: `None`),
    /// waiting at most `timeout`: the one way flightstate checks that the
    /// brokers answer (`doctor`, `/healthz`, the dispatcher's start).
    ///
    /// # Errors
    ///
    /// [`LinkError::Refused`] when a broker refused the client (librdkafka
    /// reports that only to the client's error callback, served here once
    /// the request failed), [`LinkError::Unanswered`] otherwise.
    pub fn metadata(&self, topic: Option<&str>, timeout: Duration) -> Result<Metadata, LinkError> {
        let unanswered = |source| LinkError::Unanswered {
            brokers: self.brokers.clone(),
            waited: timeout,
            source,
        };
        let consumer: BaseConsumer<RefusalWatch> = self
            .config()
            .set("socket.timeout.ms", timeout.as_millis().max(10).to_string())
            .create_with_context(RefusalWatch::new(self))
            .map_err(unanswered)?;
        // Asked in slices, so that a refusal ends the wait at once: the
        // client is then dropped instead of reconnecting to a broker that
        // refuses it (librdkafka retries a failed TLS handshake many times
        // a second) for the rest of `timeout`.
        let deadline = Instant::now() + timeout;
        loop {
            let slice = deadline
                .saturating_duration_since(Instant::now())
                .min(METADATA_SLICE);
            let asked = Instant::now();
            let source = match consumer.fetch_metadata(topic, slice) {
                Ok(metadata) => return Ok(metadata),
                Err(source) => source,
            };
            // An answer of "no broker up" can come at once: never ask
            // faster than a slice apart.
            std::thread::sleep(slice.saturating_sub(asked.elapsed()));
            // The error events wait in the client's queue, among its log
            // lines, until it is polled; a consumer without a subscription
            // serves one event a call and returns at once.
            for _ in 0..EVENTS_SERVED {
                if consumer.context().refusal().is_some() {
                    break;
                }
                let _ = consumer.poll(Duration::ZERO);
            }
            if let Some(refusal) = consumer.context().refusal() {
                return Err(LinkError::Refused(refusal));
            }
            if Instant::now() >= deadline {
                return Err(unanswered(source));
            }
        }
    }
}

/// How long one metadata request may wait before the client's errors are
/// looked at.
const METADATA_SLICE: Duration = Duration::from_millis(100);

/// The most queued events served after a failed request: a few per broker
/// connection attempt (its log lines and its error), and a request of
/// seconds makes only a few attempts.
const EVENTS_SERVED: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_reach_the_client_and_never_a_print() {
        let client = KafkaClient::new("b1:9093")
            .with_property("security.protocol", "SASL_SSL")
            .with_property("sasl.mechanism", "SCRAM-SHA-512")
            .with_property("sasl.username", "fs")
            .with_secret("sasl.password", "s3cret-pw");
        let config = client.config();
        assert_eq!(config.get("sasl.password"), Some("s3cret-pw"));
        assert_eq!(config.get("bootstrap.servers"), Some("b1:9093"));
        let printed = format!("{client:?} {}", client.security());
        assert!(!printed.contains("s3cret-pw"), "{printed}");
        assert!(printed.contains("sasl.password"), "{printed}");
        assert_eq!(client.security(), "SASL_SSL, SCRAM-SHA-512 as fs");
        assert_eq!(KafkaClient::new("b").security(), "PLAINTEXT");
    }

    /// What this build can talk: PLAIN and SCRAM over TLS (librdkafka's
    /// own, with OpenSSL); not GSSAPI, which needs Cyrus SASL and Kerberos
    /// on the host (`docs/kafka.md`). librdkafka checks the mechanism when
    /// the client is made, before any connection.
    #[test]
    fn plain_and_scram_are_built_in_and_gssapi_is_refused_by_name() {
        let client = |mechanism: &str| {
            KafkaClient::new("127.0.0.1:1")
                .with_property("security.protocol", "SASL_SSL")
                .with_property("sasl.mechanism", mechanism)
                .with_property("sasl.username", "fs")
                .with_secret("sasl.password", "pw")
                .config()
                .create::<BaseConsumer>()
                .map(drop)
        };
        for mechanism in ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"] {
            assert!(client(mechanism).is_ok(), "{mechanism}");
        }
        let err = client("GSSAPI").expect_err("no GSSAPI in this build");
        assert!(err.to_string().contains("GSSAPI"), "{err}");
    }

    #[test]
    fn a_property_set_twice_keeps_the_last_value() {
        let mut client = KafkaClient::new("b").with_property("linger.ms", "5");
        client.set_property("linger.ms", "7");
        assert_eq!(client.config().get("linger.ms"), Some("7"));
        assert_eq!(client.property("linger.ms"), Some("7"));
    }
}
