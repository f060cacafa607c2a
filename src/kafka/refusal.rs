//! A broker that refuses flightstate — credentials it does not accept, a
//! certificate that does not verify — looks like an outage to librdkafka:
//! it reconnects with back-off, and the calls waiting for the broker end
//! as "all brokers down" or a timeout. The cause is told once, in the
//! client's error callback. This module tells such a refusal from a broker
//! that is merely away, so that it is reported once at `error`, naming the
//! broker, how the link is secured and what to check: retrying does not
//! fix it, a person does.

use std::sync::{Mutex, PoisonError};

use rdkafka::client::ClientContext;
use rdkafka::config::RDKafkaLogLevel;
use rdkafka::consumer::ConsumerContext;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};

use super::KafkaClient;

/// What the broker refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusalKind {
    /// SASL authentication failed: the user, the password or the mechanism.
    Credentials,
    /// The TLS handshake failed: most often the broker's certificate is not
    /// signed by a CA this client trusts.
    Tls,
}

/// A broker's refusal of this client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// What was refused.
    pub kind: RefusalKind,
    /// The broker, as librdkafka names it (`sasl_ssl://host:port/id`).
    pub broker: String,
    /// How the link is secured ([`KafkaClient::security`]).
    pub security: String,
    /// librdkafka's words.
    pub detail: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Refusal {
            broker,
            security,
            detail,
            ..
        } = self;
        match self.kind {
            RefusalKind::Credentials => write!(
                f,
                "kafka broker {broker} refused flightstate's credentials ({security}): {detail}; \
                 check `sasl.mechanism` and `sasl.username` in [kafka.client] and the password \
                 (FLIGHTSTATE_KAFKA_SASL_PASSWORD or `kafka.sasl_password_file`)"
            ),
            RefusalKind::Tls => write!(
                f,
                "TLS with kafka broker {broker} failed ({security}): {detail}; check \
                 `ssl.ca.location` in [kafka.client] (the CA that signed the broker's \
                 certificate) and that the broker's name matches its certificate"
            ),
        }
    }
}

impl std::error::Error for Refusal {}

impl Refusal {
    /// The refusal a client error with `code` and librdkafka's `reason`
    /// reports, if it is one; `None` for anything else (a broker down, a
    /// connection closed).
    pub fn of(code: Option<RDKafkaErrorCode>, reason: &str, security: &str) -> Option<Refusal> {
        let kind = match code? {
            RDKafkaErrorCode::Authentication | RDKafkaErrorCode::SaslAuthenticationFailed => {
                RefusalKind::Credentials
            }
            RDKafkaErrorCode::SSL => RefusalKind::Tls,
            _ => return None,
        };
        // librdkafka says `<broker>: <what happened>`, the broker as
        // `proto://host:port/id`.
        let (broker, detail) = match reason.split_once(": ") {
            Some((broker, detail)) if broker.contains("://") => (broker, detail),
            _ => ("(unnamed)", reason),
        };
        Some(Refusal {
            kind,
            broker: broker.to_owned(),
            security: security.to_owned(),
            detail: detail.to_owned(),
        })
    }
}

/// The context of a short-lived client (a metadata or admin request): it
/// keeps the first refusal the client met, so that a call that failed with
/// "all brokers down" can say why, and keeps librdkafka's own log at
/// `debug` (the caller reports the outcome once).
#[derive(Debug)]
pub struct RefusalWatch {
    security: String,
    first: Mutex<Option<Refusal>>,
}

impl RefusalWatch {
    /// A watch for a client of `client`.
    pub fn new(client: &KafkaClient) -> RefusalWatch {
        RefusalWatch {
            security: client.security(),
            first: Mutex::new(None),
        }
    }

    /// The first refusal the client met, if any.
    pub fn refusal(&self) -> Option<Refusal> {
        self.first
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl ClientContext for RefusalWatch {
    fn log(&self, level: RDKafkaLogLevel, fac: &str, log_message: &str) {
        match level {
            RDKafkaLogLevel::Emerg | RDKafkaLogLevel::Alert | RDKafkaLogLevel::Critical => {
                tracing::error!(facility = fac, "librdkafka: {log_message}")
            }
            _ => tracing::debug!(facility = fac, "librdkafka: {log_message}"),
        }
    }

    fn error(&self, error: KafkaError, reason: &str) {
        tracing::debug!(error = %error, reason, "kafka client error");
        if let Some(refusal) = Refusal::of(error.rdkafka_error_code(), reason, &self.security) {
            self.first
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get_or_insert(refusal);
        }
    }
}

impl ConsumerContext for RefusalWatch {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_the_broker_and_the_security() {
        let refusal = Refusal::of(
            Some(RDKafkaErrorCode::Authentication),
            "sasl_ssl://127.0.0.1:9093/bootstrap: SASL authentication error: Authentication \
             failed during authentication due to invalid credentials with SASL mechanism \
             SCRAM-SHA-512",
            "SASL_SSL, SCRAM-SHA-512 as fs",
        )
        .expect("a refusal");
        assert_eq!(refusal.kind, RefusalKind::Credentials);
        assert_eq!(refusal.broker, "sasl_ssl://127.0.0.1:9093/bootstrap");
        let text = refusal.to_string();
        assert!(
            text.starts_with(
                "kafka broker sasl_ssl://127.0.0.1:9093/bootstrap refused flightstate's \
                 credentials (SASL_SSL, SCRAM-SHA-512 as fs): SASL authentication error"
            ),
            "{text}"
        );
        let tls = Refusal::of(
            Some(RDKafkaErrorCode::SSL),
            "ssl://b:9093/1: SSL handshake failed: certificate verify failed",
            "SSL",
        )
        .expect("a refusal");
        assert_eq!(tls.kind, RefusalKind::Tls);
        assert!(tls.to_string().contains("ssl.ca.location"), "{tls}");
    }

    #[test]
    fn a_broker_that_is_away_is_no_refusal() {
        for code in [
            RDKafkaErrorCode::AllBrokersDown,
            RDKafkaErrorCode::BrokerTransportFailure,
            RDKafkaErrorCode::MessageTimedOut,
        ] {
            assert_eq!(
                Refusal::of(Some(code), "b:9092/1: Connect failed", "x"),
                None
            );
        }
        assert_eq!(Refusal::of(None, "whatever", "x"), None);
    }
}
