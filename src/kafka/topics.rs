//! The two topics and their cleanup policies. The state topic is
//! **compacted and nothing else**: a consumer that rebuilds its view from
//! the start of the topic must find every flight's last message however
//! old it is, and a time-based `delete` (alone or beside `compact`) drops
//! the flights that did not change within the retention — silently. The
//! change topic is a log of notices and deletes by time.
//!
//! Topics are created with those policies; an existing state topic is read
//! back ([`TopicAdmin::cleanup_policy`]) and judged by
//! [`keeps_every_flight`], never altered: topics belong to the site's Kafka
//! operators.

use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, ResourceSpecifier, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};

use super::{KafkaClient, LinkError};

/// `cleanup.policy` of the state topic flightstate creates.
pub const STATE_TOPIC_POLICY: &str = "compact";
/// `cleanup.policy` of the change topic flightstate creates.
pub const CHANGE_TOPIC_POLICY: &str = "delete";

/// Whether a topic of `cleanup.policy` keeps every key's last message for
/// as long as the topic exists: `compact`, without `delete`.
pub fn keeps_every_flight(policy: &str) -> bool {
    let mut policies = policy.split(',').map(str::trim);
    policies.next() == Some("compact") && policies.next().is_none()
}

/// A topic to create.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewTopicSpec<'a> {
    /// Its name.
    pub name: &'a str,
    /// Partitions.
    pub partitions: i32,
    /// Replication factor.
    pub replication: i32,
    /// `cleanup.policy`.
    pub policy: &'static str,
}

/// Why a topic request failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TopicError {
    /// The brokers did not answer, or refused the client (credentials,
    /// TLS).
    #[error(transparent)]
    Link(#[from] LinkError),
    /// The broker did not answer, or answered with an error about `topic`.
    #[error("topic `{topic}`")]
    Kafka {
        /// The topic asked about.
        topic: String,
        /// Kafka's answer.
        #[source]
        source: KafkaError,
    },
}

/// An admin client for topic requests, each bounded by `timeout`. Ask
/// [`KafkaClient::metadata`] first: its answer tells a refusal of the client
/// from a broker that is away, which an admin request's timeout does not.
pub struct TopicAdmin {
    admin: AdminClient<DefaultClientContext>,
    timeout: Duration,
}

impl std::fmt::Debug for TopicAdmin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TopicAdmin").finish_non_exhaustive()
    }
}

impl TopicAdmin {
    /// An admin client of `client`; it connects on its first request.
    ///
    /// # Errors
    ///
    /// The [`KafkaError`] of a configuration librdkafka refuses (an unknown
    /// property, a mechanism this build lacks).
    pub fn new(client: &KafkaClient, timeout: Duration) -> Result<TopicAdmin, KafkaError> {
        let admin = client
            .config()
            .set("socket.timeout.ms", timeout.as_millis().max(10).to_string())
            .create()?;
        Ok(TopicAdmin { admin, timeout })
    }

    fn options(&self) -> AdminOptions {
        AdminOptions::new()
            .request_timeout(Some(self.timeout))
            .operation_timeout(Some(self.timeout))
    }

    fn failed(topic: &str, source: KafkaError) -> TopicError {
        TopicError::Kafka {
            topic: topic.to_owned(),
            source,
        }
    }

    /// Creates the topics that do not exist yet; returns the names of those
    /// it created. An existing topic is left as it is.
    ///
    /// # Errors
    ///
    /// [`TopicError`] when the broker refuses or does not answer.
    pub fn create(&self, topics: &[NewTopicSpec<'_>]) -> Result<Vec<String>, TopicError> {
        let new: Vec<NewTopic<'_>> = topics
            .iter()
            .map(|t| {
                NewTopic::new(t.name, t.partitions, TopicReplication::Fixed(t.replication))
                    .set("cleanup.policy", t.policy)
            })
            .collect();
        let first = topics.first().map_or("", |t| t.name);
        let results = futures_executor::block_on(self.admin.create_topics(&new, &self.options()))
            .map_err(|e| Self::failed(first, e))?;
        let mut created = Vec::new();
        for result in results {
            match result {
                Ok(topic) => created.push(topic),
                Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
                Err((topic, code)) => return Err(Self::failed(&topic, KafkaError::AdminOp(code))),
            }
        }
        Ok(created)
    }

    /// The `cleanup.policy` the broker reports for `topic`; `None` when it
    /// reports none.
    ///
    /// # Errors
    ///
    /// [`TopicError`] when the broker refuses, does not answer, or does not
    /// know the topic.
    pub fn cleanup_policy(&self, topic: &str) -> Result<Option<String>, TopicError> {
        let results = futures_executor::block_on(
            self.admin
                .describe_configs(&[ResourceSpecifier::Topic(topic)], &self.options()),
        )
        .map_err(|e| Self::failed(topic, e))?;
        let Some(result) = results.into_iter().next() else {
            return Ok(None);
        };
        let resource = result.map_err(|code| Self::failed(topic, KafkaError::AdminOp(code)))?;
        Ok(resource
            .get("cleanup.policy")
            .and_then(|entry| entry.value.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_compaction_alone_keeps_every_flight() {
        assert!(keeps_every_flight("compact"));
        assert!(keeps_every_flight(" compact "));
        for policy in ["delete", "compact,delete", "delete,compact", "", "compact,"] {
            assert!(!keeps_every_flight(policy), "{policy:?}");
        }
    }
}
