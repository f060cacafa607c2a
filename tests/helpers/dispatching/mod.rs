//! Test infrastructure for the Kafka dispatcher: topic names of the test's
//! own, settings with short timeouts, a consumer that reads a topic from the
//! beginning to its current end, and the consumer's side of DESIGN §5 —
//! rebuilding every flight's state from the state topic alone.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;
use diesel::sql_types::BigInt;
use diesel::{PgConnection, QueryableByName, RunQueryDsl};
use flightstate::dispatch::{
    DispatchReport, DispatchSettings, Dispatcher, EVENT_ID_HEADER, EVENT_KIND_HEADER,
    KafkaSettings, SCHEMA_VERSION_HEADER,
};
use flightstate::kafka::KafkaClient;
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::state::StoredFlight;
use flightstate::store::pg::PgStore;
use flightstate::store::{StateTx, Store};
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::{Headers, Message};
use rdkafka::{Offset, TopicPartitionList};

/// The tansu broker started by `scripts/services`.
pub fn tansu() -> String {
    std::env::var("FLIGHTSTATE_TEST_KAFKA_BROKERS").unwrap_or_else(|_| "127.0.0.1:9092".to_owned())
}

/// Topic names no other test (or earlier run) uses.
pub fn topics(test: &str) -> (String, String) {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    let base = format!("fs-{test}-{}-{n}-{stamp}", std::process::id());
    (format!("{base}.state"), format!("{base}.change"))
}

/// Dispatch settings for `topics` with short back-offs, so that retries
/// come within a test's patience.
pub fn settings((state, change): &(String, String)) -> DispatchSettings {
    DispatchSettings {
        state_topic: state.clone(),
        change_topic: change.clone(),
        batch_size: 100,
        backoff_initial: Duration::from_millis(200),
        backoff_max: Duration::from_secs(1),
        idle_poll: Duration::from_millis(50),
        lanes: 2,
    }
}

/// Producer settings for `brokers`, quick to give up.
pub fn kafka(brokers: &str) -> KafkaSettings {
    KafkaSettings {
        linger: Duration::from_millis(1),
        delivery_timeout: Duration::from_secs(10),
        ..KafkaSettings::new(brokers)
    }
}

/// A dispatcher against tansu with topics of the test's own, created.
#[track_caller]
pub fn tansu_dispatcher(store: PgStore, test: &str) -> (Dispatcher<PgStore>, (String, String)) {
    tansu_dispatcher_with(store, test, settings(&topics(test)).lanes)
}

/// [`tansu_dispatcher`] with `lanes` lanes.
#[track_caller]
pub fn tansu_dispatcher_with(
    store: PgStore,
    test: &str,
    lanes: u32,
) -> (Dispatcher<PgStore>, (String, String)) {
    let topics = topics(test);
    let settings = DispatchSettings {
        lanes,
        ..settings(&topics)
    };
    let dispatcher = Dispatcher::new(store, kafka(&tansu()), settings).expect("dispatcher");
    dispatcher
        .prepare_topics()
        .expect("topics created (is tansu running? scripts/services)");
    (dispatcher, topics)
}

/// Dispatches until nothing is due.
#[track_caller]
pub fn drain(dispatcher: &mut Dispatcher<PgStore>) -> DispatchReport {
    dispatcher
        .run(&AtomicBool::new(false), true)
        .expect("dispatch until idle")
}

/// Applies message `message_id` as the tests' site does (its parse options,
/// at 9 September 12:00): a snapshot or flight events, which must be
/// applied.
#[track_caller]
pub fn apply(store: &PgStore, message_id: i64, body: &[u8]) {
    let settings = Rules {
        parse: crate::common::sis::parse_options(),
        ..Rules::default()
    };
    let now = crate::common::sis::at(9, 12, 0);
    match apply_message(store, &settings, message_id, body, now).expect("applied") {
        Applied::Snapshot(_) | Applied::Flights(_) => {}
        other => panic!("message {message_id} not applied: {other:?}"),
    }
}

/// A snapshot of 9 September holding the flights `flids`, each at 08:00.
pub fn day_of(flids: &[i64]) -> Vec<u8> {
    use crate::common::sis::{at, flight, sep, snapshot};
    snapshot(
        sep(9),
        flids.iter().map(|f| flight(*f, at(9, 8, 0))).collect(),
    )
}

/// A FLOP that gives flight `flid` registration `reno`.
pub fn reno(flid: i64, reno: &str) -> Vec<u8> {
    crate::common::sis::flop("RENO", &[(flid, &format!("<RENO>{reno}</RENO>"))])
}

/// A state database holding the outbox of a generated day of `flights`
/// flights, applied but never dispatched.
#[track_caller]
pub fn outbox_of_a_day(flights: usize) -> (crate::common::TestDatabase, PgStore) {
    let db = crate::common::TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let now = crate::common::sis::at(9, 12, 0);
    for (i, body) in crate::common::sis::day_messages(flights).iter().enumerate() {
        let id = i64::try_from(i).expect("small") + 1;
        let applied = apply_message(&store, &Rules::default(), id, body, now).expect("applied");
        assert!(
            matches!(applied, Applied::Snapshot(_) | Applied::Flights(_)),
            "{applied:?}"
        );
    }
    (db, store)
}

/// Applies `messages` (ids from 1) up to each stage's end in turn and drains
/// the dispatcher after each stage; returns the state rows and the change
/// notices sent in all.
#[track_caller]
pub fn apply_in_stages(
    store: &PgStore,
    dispatcher: &mut Dispatcher<PgStore>,
    messages: &[Vec<u8>],
    stages: &[usize],
    now: NaiveDateTime,
) -> (usize, usize) {
    let mut from = 0;
    let mut sent = (0, 0);
    for &until in stages {
        for (i, body) in messages.iter().enumerate().take(until).skip(from) {
            let id = i64::try_from(i).expect("small") + 1;
            let applied = apply_message(store, &Rules::default(), id, body, now).expect("applied");
            assert!(
                matches!(applied, Applied::Snapshot(_) | Applied::Flights(_)),
                "{applied:?}"
            );
        }
        from = until;
        let report = drain(dispatcher);
        assert_eq!(report.state.failed + report.change.failed, 0, "{report:?}");
        sent.0 += report.state.sent;
        sent.1 += report.change.sent;
    }
    sent
}

/// A record as a consumer sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub key: Option<String>,
    pub value: String,
    pub event_id: Option<String>,
    pub kind: Option<String>,
}

impl Record {
    /// The value as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.value)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.value))
    }
}

/// Every record of `topic` (one partition or several, each in order) from
/// the beginning to the end it has now; at most 30 s. Each one is held to
/// the topics' contract (`common::contract`): the suite's dispatchers never
/// send a record that breaks it unnoticed.
///
/// tansu's high watermark can trail the last record of a multi-record
/// batch, and under load the end it reports can fall short of what it
/// acknowledged, so the reader goes on until the topic has been quiet for a
/// second and then asks for the end again, reading on if it grew.
#[track_caller]
pub fn read_all(brokers: &str, topic: &str) -> Vec<Record> {
    read_all_with(&KafkaClient::new(brokers), topic)
}

/// [`read_all`] through `client` (a secured link).
#[track_caller]
pub fn read_all_with(client: &KafkaClient, topic: &str) -> Vec<Record> {
    let consumer: BaseConsumer = client
        .config()
        .set("group.id", format!("{topic}-reader"))
        .set("enable.auto.commit", "false")
        .create()
        .expect("consumer");
    let timeout = Duration::from_secs(10);
    let metadata = consumer
        .fetch_metadata(Some(topic), timeout)
        .expect("topic metadata");
    let partitions: Vec<i32> = metadata
        .topics()
        .iter()
        .flat_map(|t| t.partitions().iter().map(|p| p.id()))
        .collect();
    assert!(!partitions.is_empty(), "topic {topic} has no partitions");
    let mut assignment = TopicPartitionList::new();
    // Per partition, the next offset to read; read until it reaches the end
    // the broker reports, asked again once the topic is quiet (a broker
    // under load may report an end short of what it acknowledged).
    let mut next = HashMap::new();
    for partition in partitions {
        let (low, _) = consumer
            .fetch_watermarks(topic, partition, timeout)
            .expect("watermarks");
        next.insert(partition, low);
        assignment
            .add_partition_offset(topic, partition, Offset::Offset(low))
            .expect("assign");
    }
    consumer.assign(&assignment).expect("assign");
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut records = Vec::new();
    let mut quiet = 0;
    loop {
        if quiet >= 5 {
            let remaining: i64 = next
                .iter()
                .map(|(partition, next)| {
                    let (_, high) = consumer
                        .fetch_watermarks(topic, *partition, timeout)
                        .expect("watermarks");
                    (high - next).max(0)
                })
                .sum();
            if remaining == 0 {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{topic}: {remaining} records not read within 30 s"
            );
            quiet = 0;
        }
        let Some(message) = consumer.poll(Duration::from_millis(200)) else {
            quiet += 1;
            continue;
        };
        quiet = 0;
        let message = message.expect("consume");
        if let Some(next) = next.get_mut(&message.partition()) {
            *next = (*next).max(message.offset() + 1);
        }
        let header = |name: &str| {
            message.headers().and_then(|h| {
                h.iter()
                    .find(|h| h.key == name)
                    .and_then(|h| h.value)
                    .map(|v| String::from_utf8_lossy(v).into_owned())
            })
        };
        records.push(Record {
            key: message
                .key()
                .map(|k| String::from_utf8_lossy(k).into_owned()),
            value: String::from_utf8_lossy(message.payload().unwrap_or_default()).into_owned(),
            event_id: header(EVENT_ID_HEADER),
            kind: header(EVENT_KIND_HEADER),
        });
        if let Some(record) = records.last() {
            crate::common::contract::assert_follows_contract(
                topic,
                record.kind.as_deref(),
                header(SCHEMA_VERSION_HEADER).as_deref(),
                &record.value,
            );
        }
    }
    records
}

/// What a consumer of the state topic knows of a flight.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
    Present(Box<StoredFlight>),
    Deleted,
}

/// DESIGN §5's consumer: keeps, per FLID, the message with the highest
/// `(STATE_VERSION, UPDATED_AT)` (duplicates and reorders are harmless)
/// and returns the flights whose latest message is a state.
pub fn rebuild(records: &[Record]) -> BTreeMap<i64, StoredFlight> {
    let mut latest: HashMap<i64, ((i64, NaiveDateTime), Seen)> = HashMap::new();
    for record in records {
        let json = record.json();
        let flid = json["FLID"].as_i64().expect("FLID");
        assert_eq!(record.key.as_deref(), Some(flid.to_string().as_str()));
        let version = json["STATE_VERSION"].as_i64().expect("STATE_VERSION");
        let updated: NaiveDateTime =
            serde_json::from_value(json["UPDATED_AT"].clone()).expect("UPDATED_AT");
        let seen = if json["DELETED"] == serde_json::Value::Bool(true) {
            Seen::Deleted
        } else {
            Seen::Present(Box::new(
                serde_json::from_value(json).expect("a state value is a stored flight"),
            ))
        };
        let order = (version, updated);
        match latest.get(&flid) {
            Some((have, _)) if *have >= order => {}
            _ => {
                latest.insert(flid, (order, seen));
            }
        }
    }
    latest
        .into_iter()
        .filter_map(|(flid, (_, seen))| match seen {
            Seen::Present(flight) => Some((flid, *flight)),
            Seen::Deleted => None,
        })
        .collect()
}

#[derive(QueryableByName)]
struct Flid {
    #[diesel(sql_type = BigInt)]
    flid: i64,
}

/// Every stored flight, in full.
pub fn stored(store: &PgStore, conn: &mut PgConnection) -> BTreeMap<i64, StoredFlight> {
    let flids: Vec<i64> = diesel::sql_query("SELECT flid FROM flight_schd ORDER BY flid")
        .load::<Flid>(conn)
        .expect("list flights")
        .into_iter()
        .map(|f| f.flid)
        .collect();
    store
        .transaction(|tx| tx.load_flights(&flids))
        .expect("load flights")
        .into_iter()
        .collect()
}

/// `(FLID, highest version before, then)` for each time a flight's version
/// went down on the topic.
pub fn out_of_order(records: &[Record]) -> Vec<(i64, i64, i64)> {
    let mut highest: HashMap<i64, i64> = HashMap::new();
    let mut found = Vec::new();
    for record in records {
        let json = record.json();
        let flid = json["FLID"].as_i64().expect("FLID");
        let version = json["STATE_VERSION"].as_i64().expect("STATE_VERSION");
        let before = highest.entry(flid).or_insert(version);
        if version < *before {
            found.push((flid, *before, version));
        }
        *before = (*before).max(version);
    }
    found
}

#[derive(QueryableByName)]
struct Pending {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Pending rows of an outbox table.
pub fn pending(conn: &mut PgConnection, table: &str) -> i64 {
    // Test-only SQL: the table is a constant of the caller.
    diesel::sql_query(format!(
        "SELECT count(*) AS n FROM {table} WHERE sent_at IS NULL"
    ))
    .get_result::<Pending>(conn)
    .expect("count pending")
    .n
}
