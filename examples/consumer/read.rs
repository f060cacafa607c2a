//! Reading flightstate's topics from the beginning to their end, into a
//! [`View`]: the whole of what a consumer that starts cold (or "when in
//! doubt", docs/kafka.md) does.
//!
//! No consumer group offsets are committed: the state topic is compacted,
//! so reading it from the start is what rebuilds the view, and its size is
//! bounded by the flights that ever existed (one record each once
//! compacted), not by their changes. A long-running consumer would go on
//! polling after [`read_to_end`] and apply each new record the same way.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{BorrowedMessage, Headers, Message};
use rdkafka::{Offset, TopicPartitionList};

use crate::record::{ContractError, Record, SCHEMA_VERSION_HEADER};
use crate::view::View;

/// How long one request to the broker may take.
const REQUEST_WAIT: Duration = Duration::from_secs(10);
/// One poll's wait for records.
const POLL: Duration = Duration::from_millis(200);
/// Polls without a record, once the end is reached, before the end is asked
/// again (below).
const QUIET_POLLS: u32 = 3;
/// How many times the ends are asked again once reached.
const END_CHECKS: u32 = 3;
/// How long reading a topic to its end may take in all.
const READ_LIMIT: Duration = Duration::from_secs(120);

/// The topics to read: flightstate's `kafka.state_topic` and
/// `kafka.heartbeat_topic`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topics {
    pub state: String,
    /// None: heartbeats are not read (the view's status is then unknown).
    pub heartbeat: Option<String>,
}

/// Why the topics could not be read to their end.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot {what}")]
    Kafka {
        what: &'static str,
        #[source]
        source: KafkaError,
    },
    #[error(
        "topic `{0}` does not exist: flightstate's dispatcher creates it at start \
         (`kafka.create_topics`), or its operators do"
    )]
    NoSuchTopic(String),
    #[error("topic `{topic}`: {remaining} records not read within {READ_LIMIT:?}")]
    TooSlow { topic: String, remaining: i64 },
    /// A record this consumer cannot read under its contract: stop.
    #[error(transparent)]
    Contract(#[from] ContractError),
}

fn kafka(what: &'static str) -> impl FnOnce(KafkaError) -> ReadError {
    move |source| ReadError::Kafka { what, source }
}

/// Reads the heartbeat topic, then the state topic, each partition from its
/// first offset to its end, and returns the view they give.
///
/// The heartbeat is read *first*: every change it counts as published was
/// on the state topic before it was sent, so the state topic read after it
/// holds at least what the heartbeat says (docs/kafka.md; read the other
/// way round, the heartbeat could speak of changes read too early to see).
///
/// `brokers` is `bootstrap.servers`; a site whose brokers need TLS or SASL
/// sets `security.protocol`, `ssl.ca.location`, `sasl.*` on the
/// `ClientConfig` below, as flightstate's own `kafka.*` settings do.
pub fn read_to_end(brokers: &str, topics: &Topics) -> Result<View, ReadError> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        // librdkafka wants a group even for a consumer that assigns its own
        // partitions; nothing is committed under it.
        .set("group.id", "flight-state-view")
        .set("enable.auto.commit", "false")
        .set("enable.auto.offset.store", "false")
        // Says when a partition's end is reached, so that reading stops
        // there instead of waiting for records that will not come.
        .set("enable.partition.eof", "true")
        .create()
        .map_err(kafka("create a kafka consumer"))?;
    let mut view = View::new();
    if let Some(topic) = &topics.heartbeat {
        // A missing heartbeat topic is a fact to report (the status says
        // "no heartbeat"), not a reason to refuse the state.
        if let Some(partitions) = partitions_of(&consumer, topic)? {
            read_topic(&consumer, topic, &partitions, &mut |record| {
                view.heartbeats.apply(record)
            })?;
        }
    }
    let partitions = partitions_of(&consumer, &topics.state)?
        .ok_or_else(|| ReadError::NoSuchTopic(topics.state.clone()))?;
    read_topic(&consumer, &topics.state, &partitions, &mut |record| {
        view.apply(record).map(|_| ())
    })?;
    Ok(view)
}

/// The partitions of `topic`; None when it does not exist.
fn partitions_of(consumer: &BaseConsumer, topic: &str) -> Result<Option<Vec<i32>>, ReadError> {
    let metadata = consumer
        .fetch_metadata(Some(topic), REQUEST_WAIT)
        .map_err(kafka("read a topic's metadata"))?;
    let Some(found) = metadata.topics().iter().find(|t| t.name() == topic) else {
        return Ok(None);
    };
    match found.error().map(RDKafkaErrorCode::from) {
        None if !found.partitions().is_empty() => {
            Ok(Some(found.partitions().iter().map(|p| p.id()).collect()))
        }
        None | Some(RDKafkaErrorCode::UnknownTopicOrPartition) => Ok(None),
        Some(code) => Err(ReadError::Kafka {
            what: "read a topic's metadata",
            source: KafkaError::MetadataFetch(code),
        }),
    }
}

/// Reads every partition of `topic` from its first offset to its end,
/// handing each record to `apply`.
///
/// The end is each partition's high watermark, asked before reading; once
/// there (and the topic quiet for a moment), the ends are asked again and
/// reading goes on if they moved, at most [`END_CHECKS`] times. Both
/// because records may come while we read, and because some brokers (tansu,
/// used in this project's tests) report an end that trails the last record
/// of a batch for a moment. The bound is for a live topic (the heartbeats
/// come every few seconds): the view is of the topic as it was when the
/// reading ended, not a chase of its growing end.
fn read_topic(
    consumer: &BaseConsumer,
    topic: &str,
    partitions: &[i32],
    apply: &mut dyn FnMut(&Record) -> Result<(), ContractError>,
) -> Result<(), ReadError> {
    let mut assignment = TopicPartitionList::new();
    // Per partition, the next offset to read and the end to read to.
    let mut next: BTreeMap<i32, i64> = BTreeMap::new();
    let mut end: BTreeMap<i32, i64> = BTreeMap::new();
    for &partition in partitions {
        let (low, high) = consumer
            .fetch_watermarks(topic, partition, REQUEST_WAIT)
            .map_err(kafka("read a topic's offsets"))?;
        // The first offset, not 0: compaction removes the oldest records.
        next.insert(partition, low);
        end.insert(partition, high);
        assignment
            .add_partition_offset(topic, partition, Offset::Beginning)
            .map_err(kafka("assign a topic's partitions"))?;
    }
    consumer
        .assign(&assignment)
        .map_err(kafka("assign a topic's partitions"))?;
    let started = Instant::now();
    let mut quiet = 0;
    let mut checks = 0;
    loop {
        let remaining: i64 = end
            .iter()
            .map(|(p, e)| (e - next.get(p).copied().unwrap_or_default()).max(0))
            .sum();
        if remaining == 0 && quiet >= QUIET_POLLS {
            let mut moved = false;
            for (&partition, read) in &next {
                let (_, high) = consumer
                    .fetch_watermarks(topic, partition, REQUEST_WAIT)
                    .map_err(kafka("read a topic's offsets"))?;
                if high > *read {
                    end.insert(partition, high);
                    moved = true;
                }
            }
            checks += 1;
            if !moved || checks > END_CHECKS {
                return Ok(());
            }
            quiet = 0;
        }
        if started.elapsed() > READ_LIMIT {
            return Err(ReadError::TooSlow {
                topic: topic.to_owned(),
                remaining,
            });
        }
        match consumer.poll(POLL) {
            Some(Ok(message)) => {
                quiet = 0;
                let read = next.entry(message.partition()).or_default();
                *read = (*read).max(message.offset() + 1);
                apply(&record_of(topic, &message))?;
            }
            Some(Err(KafkaError::PartitionEOF(partition))) => {
                // Nothing before the broker's end is left to read; offsets
                // may have gaps (compaction, transaction markers).
                quiet += 1;
                if let (Some(read), Some(e)) = (next.get_mut(&partition), end.get(&partition)) {
                    *read = (*read).max(*e);
                }
            }
            Some(Err(source)) => {
                return Err(ReadError::Kafka {
                    what: "read a topic",
                    source,
                });
            }
            None => quiet += 1,
        }
    }
}

/// What the view needs of a message.
fn record_of(topic: &str, message: &BorrowedMessage<'_>) -> Record {
    let schema_version = message.headers().and_then(|headers| {
        headers
            .iter()
            .find(|h| h.key == SCHEMA_VERSION_HEADER)
            .and_then(|h| h.value)
            .map(|v| String::from_utf8_lossy(v).into_owned())
    });
    Record {
        at: format!("{topic}/{}@{}", message.partition(), message.offset()),
        key: message.key().map(<[u8]>::to_vec),
        value: message.payload().map(<[u8]>::to_vec),
        schema_version,
    }
}
