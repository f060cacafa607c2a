//! Why the dispatcher could not go on: one error for its passes, its
//! producers and its topics, with the kind the retry decision reads.

use rdkafka::error::KafkaError;

use crate::FailureKind;
use crate::kafka::TopicError;
use crate::store::StoreError;

/// Why the dispatcher could not go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutboxError {
    /// The state database failed (down, pool exhausted, a conflict with a
    /// second dispatcher). Retried by [`Dispatcher::run`] after a pause;
    /// rows stay pending.
    #[error("outbox")]
    Store(#[from] StoreError),
    /// The Kafka client could not be created: a bad property in `[kafka]`
    /// or `extra`. Fix the configuration.
    #[error("cannot create the kafka producer; check the [kafka] settings")]
    Producer(#[source] KafkaError),
    /// A topic could not be created or read (broker down, or no right to
    /// create topics: then create them yourself and set
    /// `kafka.create_topics = false`). Retried.
    #[error("topics not ready")]
    Topic(#[source] TopicError),
    /// The state topic keeps messages by time (`cleanup.policy` other than
    /// `compact` alone): a consumer rebuilding from the start would miss
    /// every flight that did not change within the retention. Nothing is
    /// sent until the topic is compacted, or the site accepts it with
    /// `kafka.allow_uncompacted_state_topic = true`.
    #[error(
        "state topic `{topic}` has cleanup.policy={policy}: a consumer reading it from the start \
         would miss every flight whose last state is older than the retention; set \
         cleanup.policy=compact on the topic (or accept the loss with \
         `kafka.allow_uncompacted_state_topic = true`)"
    )]
    UncompactedStateTopic {
        /// The state topic.
        topic: String,
        /// Its `cleanup.policy` as the broker reports it.
        policy: String,
    },
    /// A pass came to produce more than one delivery wait after its last
    /// statement (the process was frozen or starved in between). The
    /// server may have ended its transaction meanwhile, and another
    /// dispatcher may have sent newer versions of its flights; what it
    /// would produce now could land after them. It produces nothing and
    /// rolls back; its rows are claimed again. Retried.
    #[error(
        "the pass held its claim {held_ms} ms before producing (a frozen or starved process); \
         nothing produced, its rows are claimed again"
    )]
    ClaimTooOld {
        /// How long after its last statement the pass came to produce.
        held_ms: u64,
    },
    /// A test's failure point fired.
    #[cfg(feature = "failpoints")]
    #[error(transparent)]
    Injected(#[from] crate::failpoint::Injected),
}

impl OutboxError {
    /// What went wrong, for the retry decision.
    pub fn kind(&self) -> FailureKind {
        match self {
            OutboxError::Store(e) => e.kind(),
            OutboxError::Producer(_) => FailureKind::BadInput,
            OutboxError::Topic(_) => FailureKind::ConnectionLost,
            OutboxError::UncompactedStateTopic { .. } => FailureKind::BadInput,
            OutboxError::ClaimTooOld { .. } => FailureKind::Timeout,
            #[cfg(feature = "failpoints")]
            OutboxError::Injected(_) => FailureKind::Other,
        }
    }
}
