//! Reading the topics back: the state topic as a consumer keeping the
//! highest version per FLID would (`docs/kafka.md`, "What a consumer does"),
//! to learn what each FLID's consumers hold now and at which version; and
//! the highest `event-id` each topic carries, which consumers dedupe on.
//!
//! A consumer of its own, synchronous, with the site's client settings (TLS,
//! SASL: [`KafkaClient`]); it joins no group and commits nothing. Each
//! partition is read from its beginning to the end the broker reports when
//! the read starts; then on until the topic has been quiet for a moment and
//! its end is where the read stopped, because a broker may report an end
//! that trails what it has acknowledged (tansu does, for a while after a
//! batch). Nothing should be sending meanwhile: a topic that keeps growing
//! is refused.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{BorrowedMessage, Headers, Message};
use rdkafka::{Offset, TopicPartitionList};
use serde::Deserialize;

use super::ResyncError;
use crate::dispatch::EVENT_ID_HEADER;
use crate::kafka::KafkaClient;

/// How long a request for metadata or offsets may take.
const REQUEST_WAIT: Duration = Duration::from_secs(10);

/// One wait for a record.
const POLL: Duration = Duration::from_millis(200);

/// Polls without a record after which the topic counts as quiet (a second):
/// long enough for a broker's trailing end to catch up with what it holds.
const QUIET_POLLS: u32 = 5;

/// Rounds of "read to the end, ask for the end again" before a topic that
/// keeps growing is refused: the first end may trail, the second must not.
const MOST_ROUNDS: u32 = 3;

/// What consumers hold of one FLID: the record with the highest
/// `(STATE_VERSION, UPDATED_AT)` the topic has of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TopicFlight {
    /// Its `STATE_VERSION`: the highest of the FLID on the topic.
    pub version: i64,
    /// Its `UPDATED_AT`, the tie-breaker consumers use.
    pub updated_at: Option<NaiveDateTime>,
    /// Whether it is a tombstone (the flight is gone for consumers).
    pub deleted: bool,
    /// A state's `LAST_MESSAGE_ID` (a tombstone has none).
    pub last_message_id: Option<i64>,
}

/// What the state topic holds, FLID by FLID.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopicView {
    /// What consumers hold of each FLID on the topic.
    pub flights: HashMap<i64, TopicFlight>,
    /// Records read.
    pub records: u64,
    /// Records whose FLID and version could not be read (a null or foreign
    /// value, a key that is not the value's FLID): skipped, as a consumer
    /// keeping the highest version per FLID cannot order them either.
    pub unreadable: u64,
    /// The topic did not exist: read as empty.
    pub missing: bool,
    /// The highest `event-id` header on the topic.
    pub max_event_id: Option<i64>,
}

impl TopicView {
    /// FLIDs whose latest record is a state.
    pub fn live(&self) -> usize {
        self.flights.values().filter(|f| !f.deleted).count()
    }

    /// Takes one record into the view, as a consumer would.
    pub fn add(&mut self, key: Option<&[u8]>, value: Option<&[u8]>) {
        self.records += 1;
        let Some(record) = Bookkeeping::read(key, value) else {
            self.unreadable += 1;
            return;
        };
        let seen = TopicFlight {
            version: record.state_version,
            updated_at: record.updated_at,
            deleted: record.deleted,
            last_message_id: record.last_message_id,
        };
        let order = |f: &TopicFlight| (f.version, f.updated_at);
        match self.flights.get(&record.flid) {
            Some(kept) if order(kept) >= order(&seen) => {}
            _ => {
                self.flights.insert(record.flid, seen);
            }
        }
    }
}

/// The bookkeeping of a state topic value, state or tombstone (the rest of
/// a state is skipped).
#[derive(Deserialize)]
struct Bookkeeping {
    #[serde(rename = "FLID")]
    flid: i64,
    #[serde(rename = "STATE_VERSION")]
    state_version: i64,
    #[serde(rename = "UPDATED_AT")]
    updated_at: Option<NaiveDateTime>,
    #[serde(rename = "DELETED", default)]
    deleted: bool,
    #[serde(rename = "LAST_MESSAGE_ID")]
    last_message_id: Option<i64>,
}

impl Bookkeeping {
    /// The record's bookkeeping, if it is a flightstate value whose key is
    /// its FLID.
    fn read(key: Option<&[u8]>, value: Option<&[u8]>) -> Option<Bookkeeping> {
        let record: Bookkeeping = serde_json::from_slice(value?).ok()?;
        let key: i64 = std::str::from_utf8(key?).ok()?.parse().ok()?;
        (key == record.flid).then_some(record)
    }
}

/// Reads `topic` through `client` and returns what consumers hold of each
/// FLID. `keep` is called between records (the caller renews its lease
/// there); its error ends the read. The read gives up when no record comes
/// for `stall` while some are still due.
///
/// # Errors
///
/// [`ResyncError::Link`] when the brokers do not answer or refuse the
/// client, [`ResyncError::Kafka`] when the consumer fails,
/// [`ResyncError::TopicStalled`] and [`ResyncError::TopicGrowing`], or the
/// error of `keep`.
pub fn read_state_topic(
    client: &KafkaClient,
    topic: &str,
    stall: Duration,
    keep: &mut dyn FnMut() -> Result<(), ResyncError>,
) -> Result<TopicView, ResyncError> {
    let mut view = TopicView::default();
    let mut max_event_id = None;
    let missing = read_topic(client, topic, stall, keep, &mut |message| {
        max_event_id = max_event_id.max(event_id(message));
        view.add(message.key(), message.payload());
    })?;
    view.missing = missing;
    view.max_event_id = max_event_id;
    Ok(view)
}

/// The highest `event-id` header on `topic` (the change topic): read like
/// [`read_state_topic`], values unread. `None` for a topic without one.
///
/// # Errors
///
/// As [`read_state_topic`].
pub fn read_highest_event_id(
    client: &KafkaClient,
    topic: &str,
    stall: Duration,
    keep: &mut dyn FnMut() -> Result<(), ResyncError>,
) -> Result<Option<i64>, ResyncError> {
    let mut highest = None;
    read_topic(client, topic, stall, keep, &mut |message| {
        highest = highest.max(event_id(message));
    })?;
    Ok(highest)
}

/// A record's `event-id` header, if it has one that is a number.
fn event_id(message: &BorrowedMessage<'_>) -> Option<i64> {
    let headers = message.headers()?;
    let header = headers.iter().find(|h| h.key == EVENT_ID_HEADER)?;
    std::str::from_utf8(header.value?).ok()?.parse().ok()
}

/// Reads every record of `topic` from the beginning into `record`; returns
/// whether the topic was missing (then nothing is read).
fn read_topic(
    client: &KafkaClient,
    topic: &str,
    stall: Duration,
    keep: &mut dyn FnMut() -> Result<(), ResyncError>,
    record: &mut dyn FnMut(&BorrowedMessage<'_>),
) -> Result<bool, ResyncError> {
    // Asked through the client's own check first, so that a broker refusing
    // the credentials or the TLS is named as such.
    let metadata = client.metadata(Some(topic), REQUEST_WAIT)?;
    let kafka = |what: &'static str| move |source| ResyncError::Kafka { what, source };
    let partitions: Vec<i32> = match metadata.topics().iter().find(|t| t.name() == topic) {
        Some(t) if t.error().is_none() => t.partitions().iter().map(|p| p.id()).collect(),
        Some(t)
            if t.error().map(RDKafkaErrorCode::from)
                == Some(RDKafkaErrorCode::UnknownTopicOrPartition) =>
        {
            Vec::new()
        }
        None => Vec::new(),
        Some(t) => {
            let code = t.error().map(RDKafkaErrorCode::from);
            return Err(ResyncError::Kafka {
                what: "read a topic's metadata",
                source: KafkaError::MetadataFetch(code.unwrap_or(RDKafkaErrorCode::Unknown)),
            });
        }
    };
    if partitions.is_empty() {
        tracing::warn!(topic, "the topic does not exist; read as empty");
        return Ok(true);
    }
    let consumer: BaseConsumer = client
        .config()
        .set("group.id", "flightstate-resync")
        .set("enable.auto.commit", "false")
        .set("enable.auto.offset.store", "false")
        .set("enable.partition.eof", "true")
        .create()
        .map_err(kafka("create a kafka consumer"))?;
    // Per partition: the next offset to read, and the end to read to.
    let mut next: HashMap<i32, i64> = HashMap::new();
    let mut end: HashMap<i32, i64> = HashMap::new();
    let mut assignment = TopicPartitionList::new();
    for partition in &partitions {
        let (low, high) = consumer
            .fetch_watermarks(topic, *partition, REQUEST_WAIT)
            .map_err(kafka("read a topic's offsets"))?;
        next.insert(*partition, low);
        end.insert(*partition, high);
        assignment
            .add_partition_offset(topic, *partition, Offset::Offset(low))
            .map_err(kafka("assign a topic's partitions"))?;
    }
    consumer
        .assign(&assignment)
        .map_err(kafka("assign a topic's partitions"))?;
    for round in 1..=MOST_ROUNDS {
        read_to(&consumer, record, (&mut next, &end), stall, keep)?;
        let mut grown = false;
        for partition in &partitions {
            let (_, high) = consumer
                .fetch_watermarks(topic, *partition, REQUEST_WAIT)
                .map_err(kafka("read a topic's offsets"))?;
            let read = next.get(partition).copied().unwrap_or_default();
            if high > read {
                grown = true;
                end.insert(*partition, high);
            }
        }
        if !grown {
            return Ok(false);
        }
        tracing::debug!(topic, round, "the topic's end moved; reading on");
    }
    Err(ResyncError::TopicGrowing {
        topic: topic.to_owned(),
    })
}

/// Reads until every partition reached its `end` (or reported its end of
/// partition), then until the topic has been quiet for a second, or for at
/// most `stall` past the end while records keep coming (the caller then
/// finds the end moved).
fn read_to(
    consumer: &BaseConsumer,
    record: &mut dyn FnMut(&BorrowedMessage<'_>),
    (next, end): (&mut HashMap<i32, i64>, &HashMap<i32, i64>),
    stall: Duration,
    keep: &mut dyn FnMut() -> Result<(), ResyncError>,
) -> Result<(), ResyncError> {
    let remaining = |next: &HashMap<i32, i64>| -> i64 {
        end.iter()
            .map(|(p, e)| (e - next.get(p).copied().unwrap_or_default()).max(0))
            .sum()
    };
    let mut last_record = Instant::now();
    let mut at_end: Option<Instant> = None;
    let mut quiet = 0;
    loop {
        keep()?;
        let due = remaining(next);
        if due == 0 {
            let since = *at_end.get_or_insert_with(Instant::now);
            if quiet >= QUIET_POLLS || since.elapsed() >= stall {
                return Ok(());
            }
        }
        match consumer.poll(POLL) {
            Some(Ok(message)) => {
                quiet = 0;
                last_record = Instant::now();
                let partition = message.partition();
                let read = next.entry(partition).or_default();
                *read = (*read).max(message.offset() + 1);
                record(&message);
            }
            Some(Err(KafkaError::PartitionEOF(partition))) => {
                // The broker's end now: nothing before it is left to read
                // (compaction and control records leave gaps in offsets).
                quiet += 1;
                if let Some(e) = end.get(&partition) {
                    let read = next.entry(partition).or_default();
                    *read = (*read).max(*e);
                }
            }
            Some(Err(source)) => {
                return Err(ResyncError::Kafka {
                    what: "read a topic",
                    source,
                });
            }
            None => {
                quiet += 1;
                if due > 0 && last_record.elapsed() >= stall {
                    return Err(ResyncError::TopicStalled {
                        remaining: due,
                        waited: stall,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(view: &mut TopicView, key: &str, value: &str) {
        view.add(Some(key.as_bytes()), Some(value.as_bytes()));
    }

    #[test]
    fn a_flid_is_held_at_its_highest_version_whatever_the_order() {
        let mut view = TopicView::default();
        add(
            &mut view,
            "7",
            r#"{"FLID":7,"STATE_VERSION":3,"LAST_MESSAGE_ID":9,"UPDATED_AT":"2026-09-09T12:00:00"}"#,
        );
        add(
            &mut view,
            "7",
            r#"{"FLID":7,"DELETED":true,"STATE_VERSION":4,"UPDATED_AT":"2026-09-09T12:01:00"}"#,
        );
        add(
            &mut view,
            "7",
            r#"{"FLID":7,"STATE_VERSION":2,"LAST_MESSAGE_ID":5,"UPDATED_AT":"2026-09-09T12:02:00"}"#,
        );
        add(
            &mut view,
            "8",
            r#"{"FLID":8,"ALCD":"CA","GTDT":[{"SOURCE_SEQ":1,"GATE":"G1"}],"STATE_VERSION":1,"LAST_MESSAGE_ID":2,"UPDATED_AT":"2026-09-09T12:00:00"}"#,
        );
        let seven = view.flights.get(&7).copied().expect("7");
        assert_eq!((seven.version, seven.deleted), (4, true));
        let eight = view.flights.get(&8).copied().expect("8");
        assert_eq!(
            (eight.version, eight.deleted, eight.last_message_id),
            (1, false, Some(2))
        );
        assert_eq!((view.records, view.unreadable, view.live()), (4, 0, 1));
    }

    #[test]
    fn records_no_consumer_can_order_are_counted_and_skipped() {
        let mut view = TopicView::default();
        view.add(Some(b"7"), None);
        add(&mut view, "7", "not json");
        add(&mut view, "8", r#"{"FLID":7,"STATE_VERSION":3}"#);
        add(&mut view, "x", r#"{"FLID":7,"STATE_VERSION":3}"#);
        add(&mut view, "7", r#"{"FLID":7}"#);
        view.add(None, Some(br#"{"FLID":7,"STATE_VERSION":3}"#));
        assert!(view.flights.is_empty());
        assert_eq!((view.records, view.unreadable), (6, 6));
    }
}
