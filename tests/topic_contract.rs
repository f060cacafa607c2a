//! The topics' contract: the JSON Schemas in `schema/`, the
//! `schema-version` header, and the state topic's compaction.
//!
//! - the schemas are draft 2020-12 with the version of this build in their
//!   `$id`, and the state schema names every column of the flight tables
//!   with its kind and length;
//! - values that break the contract are refused by them (and every record
//!   the suite reads back is checked against them: `common::contract`);
//! - a broker whose registry holds the schemas (tansu `--schema-registry`)
//!   takes everything the dispatcher sends and refuses a broken value from
//!   a plain producer;
//! - the dispatcher creates the state topic compacted and the change topic
//!   deleting by time, and refuses a state topic that is not compacted,
//!   sending nothing (unless the site allows it), which `doctor` reports.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/dispatching/mod.rs"]
mod dispatching;

use std::collections::BTreeSet;
use std::net::TcpStream;
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use common::contract::{CHANGE_SCHEMA, HEARTBEAT_SCHEMA, STATE_SCHEMA, schema_json, violations};
use common::server::{Folder, ServerProcess, free_port};
use dispatching::{
    kafka, outbox_of_a_day, pending, read_all, rebuild, settings, stored, tansu, topics,
};
use flightstate::dispatch::{
    Dispatcher, EVENT_KIND_HEADER, OutboxError, SCHEMA_VERSION, SCHEMA_VERSION_HEADER,
};
use flightstate::kafka::{KafkaClient, TopicAdmin};
use flightstate::state::{
    Bridge, Carousel, Chock, Chute, ColumnKind, Counter, Delay, FlightFields, Gate, RoutePoint,
    Stand, TableRow,
};
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::ClientContext;
use rdkafka::client::DefaultClientContext;
use rdkafka::error::RDKafkaErrorCode;
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer, ProducerContext};
use serde_json::{Value, json};

#[test]
fn the_schemas_are_draft_2020_12_with_this_builds_version_in_their_id() {
    for (text, name) in [
        (STATE_SCHEMA, "flight-state"),
        (CHANGE_SCHEMA, "flight-change"),
        (HEARTBEAT_SCHEMA, "flight-heartbeat"),
    ] {
        let schema = schema_json(text);
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert_eq!(
            schema["$id"],
            format!("urn:flightstate:schema:{name}:{SCHEMA_VERSION}")
        );
        assert!(
            jsonschema::meta::is_valid(&schema),
            "{name} is not a valid JSON Schema"
        );
    }
}

/// The JSON Schema of a column of `kind`, as the state schema writes it.
fn column_schema(kind: ColumnKind) -> Value {
    match kind {
        ColumnKind::Text(16) => json!("#/$defs/code"),
        ColumnKind::Text(64) => json!("#/$defs/key"),
        ColumnKind::Text(1000) => json!("#/$defs/text"),
        ColumnKind::Text(other) => panic!("a text column of {other} characters has no schema"),
        ColumnKind::Time => json!("#/$defs/localTime"),
        ColumnKind::Id => json!("#/$defs/id"),
        ColumnKind::Count => json!("#/$defs/count"),
        ColumnKind::Decimal => json!("#/$defs/decimal"),
    }
}

/// The names of `properties` and that each column is there with its kind.
#[track_caller]
fn assert_columns(
    properties: &Value,
    columns: &[(&str, ColumnKind)],
    what: &str,
) -> BTreeSet<String> {
    for (name, kind) in columns {
        let property = &properties[name.to_uppercase()];
        assert_eq!(
            property["$ref"],
            column_schema(*kind),
            "{what}: column {name} ({kind:?}) as {property}"
        );
    }
    properties
        .as_object()
        .expect("properties")
        .keys()
        .cloned()
        .collect()
}

/// A table's columns, as `TableRow::COLUMNS` lists them.
type Columns = &'static [(&'static str, ColumnKind)];

#[test]
fn the_state_schema_names_every_column_of_the_flight_tables_and_nothing_else() {
    let schema = schema_json(STATE_SCHEMA);
    let defs = &schema["$defs"];
    let state = &defs["state"]["properties"];
    let mut named = assert_columns(state, FlightFields::COLUMNS, "FLIGHT_SCHD");
    let groups: [(&str, &str, Columns); 10] = [
        ("GTDT", "gate", Gate::COLUMNS),
        ("CKDT", "counter", Counter::COLUMNS),
        ("CLDT", "carousel", Carousel::COLUMNS),
        ("PSDT", "stand", Stand::COLUMNS),
        ("CHDT", "chute", Chute::COLUMNS),
        ("DELY", "delay", Delay::COLUMNS),
        ("ABTM", "bridge", Bridge::COLUMNS),
        ("CHOT", "chock", Chock::COLUMNS),
        ("ROUT", "routePoint", RoutePoint::COLUMNS),
        ("ERUT", "routePoint", RoutePoint::COLUMNS),
    ];
    for (group, def, columns) in groups {
        assert_eq!(state[group]["items"]["$ref"], format!("#/$defs/{def}"));
        let entry = assert_columns(&defs[def]["properties"], columns, group);
        let expected: BTreeSet<String> = columns.iter().map(|(n, _)| n.to_uppercase()).collect();
        assert_eq!(entry, expected, "{group}: the entry's keys are its columns");
        assert_eq!(defs[def]["additionalProperties"], false);
        named.remove(group);
    }
    let expected: BTreeSet<String> = FlightFields::COLUMNS
        .iter()
        .map(|(n, _)| n.to_uppercase())
        .chain(
            [
                "FLID",
                "OPERATION_DAY",
                "STATE_VERSION",
                "LAST_MESSAGE_ID",
                "UPDATED_AT",
            ]
            .map(str::to_owned),
        )
        .collect();
    assert_eq!(
        named, expected,
        "the state's keys are the flight's columns and bookkeeping"
    );
    assert_eq!(defs["state"]["additionalProperties"], false);
}

#[test]
fn values_that_break_the_contract_are_refused_and_the_documented_ones_follow_it() {
    let state = r#"{"FLID":1,"ALCD":"CA","FLNO":"CA1001","SODT":"2026-09-09T08:00:00","LBWT":"12.50","GTDT":[{"SOURCE_SEQ":1,"GATE":"G1","PGOT":"2026-09-09T07:10:00"}],"OPERATION_DAY":"2026-09-09","STATE_VERSION":2,"LAST_MESSAGE_ID":2,"UPDATED_AT":"2026-09-09T12:00:00"}"#;
    let tombstone =
        r#"{"FLID":2,"DELETED":true,"STATE_VERSION":2,"UPDATED_AT":"2026-09-09T12:00:00"}"#;
    let notice = r#"{"EVENT_ID":4,"FLID":1,"CHANGE_KIND":"UPDATED","MESSAGE_ID":2,"CREATED_AT":"2026-09-09T12:00:00.123456","CHANGE":{"changed":["stnd"],"event":"FLOP/STND","operation_day":"2026-09-09","state_version":2}}"#;
    let snapshot = r#"{"EVENT_ID":7,"CHANGE_KIND":"SNAPSHOT","MESSAGE_ID":3,"CREATED_AT":"2026-09-09T12:00:00","CHANGE":{"created":0,"day_source":"Explicit","deleted":[2],"flights":1,"operation_day":"2026-09-09","replay":false,"unchanged":0,"updated":1,"version":2}}"#;
    for (kind, value) in [
        ("STATE", state),
        ("TOMBSTONE", tombstone),
        ("UPDATED", notice),
        ("SNAPSHOT", snapshot),
    ] {
        assert_eq!(violations(kind, value), Vec::<String>::new(), "{value}");
    }
    let broken = [
        (
            "STATE",
            state.replace(r#""ALCD":"CA""#, r#""ALCD":null"#),
            "a null",
        ),
        (
            "STATE",
            state.replace(r#""ALCD":"CA""#, r#""ALCD":"""#),
            "an empty value",
        ),
        (
            "STATE",
            state.replace(r#""FLID":1"#, r#""FLID":"1""#),
            "FLID as text",
        ),
        (
            "STATE",
            state.replace(r#""ALCD""#, r#""ALCX""#),
            "an unknown key",
        ),
        (
            "STATE",
            state.replace(r#""12.50""#, "12.5"),
            "a weight as a float",
        ),
        (
            "STATE",
            state.replace("2026-09-09T08:00:00", "09SEP260800"),
            "a time as AODB's text",
        ),
        (
            "STATE",
            state.replace(r#","STATE_VERSION":2"#, ""),
            "no version",
        ),
        (
            "STATE",
            state.replace(r#""GATE":"G1""#, r#""GATE":"G1","BELT":"B2""#),
            "a gate with a carousel's key",
        ),
        (
            "STATE",
            state.replace(r#""GATE":"G1""#, &format!(r#""GATE":"{}""#, "G".repeat(17))),
            "a code of 17 characters",
        ),
        (
            "TOMBSTONE",
            tombstone.replace("true", "false"),
            "DELETED false",
        ),
        (
            "UPDATED",
            notice.replace(r#""FLID":1,"#, ""),
            "a flight's notice without FLID",
        ),
        (
            "UPDATED",
            notice.replace("UPDATED", "RENAMED"),
            "an unknown kind",
        ),
        (
            "SNAPSHOT",
            snapshot.replace(r#""replay":false,"#, ""),
            "a snapshot report without replay",
        ),
    ];
    for (kind, value, what) in broken {
        assert!(
            !violations(kind, &value).is_empty(),
            "{what} passed: {value}"
        );
    }
}

/// tansu with a schema registry in `registry`, memory storage, its own port.
fn broker_with_registry(folder: &Folder) -> (ServerProcess, String) {
    let port = free_port();
    let mut command = Command::new(
        std::env::var("FLIGHTSTATE_TEST_TANSU").unwrap_or_else(|_| "tansu".to_owned()),
    );
    command
        .args(["broker", "--silent", "--listener-url"])
        .arg(format!("tcp://127.0.0.1:{port}"))
        .arg("--advertised-listener-url")
        .arg(format!("tcp://127.0.0.1:{port}"))
        // tansu reads the URL's path as relative: the registry is the
        // folder it runs in.
        .args([
            "--storage-engine",
            "memory://tansu/",
            "--schema-registry",
            "file://./",
        ])
        .current_dir(folder.path());
    let mut broker = ServerProcess::start(
        command,
        "tansu (schema registry)",
        folder.path().join("broker.log"),
        libc::SIGTERM,
    );
    broker.wait_until_ready(|| TcpStream::connect(("127.0.0.1", port)).is_ok());
    (broker, format!("127.0.0.1:{port}"))
}

/// Puts `schema` in the registry as the value schema of `topic` (tansu's
/// layout: `<topic>.json` with the value's schema under
/// `properties.value`).
fn register(folder: &Folder, topic: &str, schema: &str) {
    let entry = json!({"type": "object", "properties": {"value": schema_json(schema)}});
    std::fs::write(
        folder.path().join(format!("{topic}.json")),
        serde_json::to_vec_pretty(&entry).expect("json"),
    )
    .expect("write the registry entry");
}

#[test]
fn a_registry_holding_the_schemas_takes_the_pipeline_and_refuses_a_broken_value() {
    let folder = Folder::new("schema_registry");
    let topics = topics("registry");
    register(&folder, &topics.0, STATE_SCHEMA);
    register(&folder, &topics.1, CHANGE_SCHEMA);
    let (_broker, brokers) = broker_with_registry(&folder);
    let (db, store) = outbox_of_a_day(30);
    let mut dispatcher =
        Dispatcher::new(store.clone(), kafka(&brokers), settings(&topics)).expect("dispatcher");
    let report = dispatcher
        .run(&AtomicBool::new(false), true)
        .expect("dispatch until idle");
    assert_eq!(report.state.failed + report.change.failed, 0, "{report:?}");
    assert!(
        report.state.sent > 0 && report.change.sent > 0,
        "{report:?}"
    );
    let mut conn = db.connect();
    assert_eq!(pending(&mut conn, "kafka_schd"), 0);
    assert_eq!(pending(&mut conn, "kafka_msg"), 0);
    assert_eq!(
        rebuild(&read_all(&brokers, &topics.0)),
        stored(&store, &mut conn)
    );

    // A plain producer: a value the registry's schema refuses, then one it
    // takes (the refusal is the schema's, not the link's).
    let refused = plain_send(&brokers, &topics.0, r#"{"FLID":"one","STATE_VERSION":1}"#);
    assert_eq!(refused, Err(RDKafkaErrorCode::InvalidRecord));
    let records = read_all(&brokers, &topics.0).len();
    let taken = plain_send(
        &brokers,
        &topics.0,
        r#"{"FLID":1,"DELETED":true,"STATE_VERSION":99,"UPDATED_AT":"2026-09-09T12:00:00"}"#,
    );
    assert_eq!(taken, Ok(()));
    assert_eq!(read_all(&brokers, &topics.0).len(), records + 1);
}

/// What the broker answered about the one message sent.
#[derive(Default)]
struct Answer(Mutex<Option<Result<(), RDKafkaErrorCode>>>);

impl ClientContext for Answer {}

impl ProducerContext for Answer {
    type DeliveryOpaque = ();

    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        let answer = result
            .as_ref()
            .map(drop)
            .map_err(|(e, _)| e.rdkafka_error_code().unwrap_or(RDKafkaErrorCode::Fail));
        *self.0.lock().expect("answer") = Some(answer);
    }
}

/// Sends `value` to `topic` with a plain producer, the headers of a
/// tombstone; returns the broker's answer.
fn plain_send(brokers: &str, topic: &str, value: &str) -> Result<(), RDKafkaErrorCode> {
    let producer: BaseProducer<Answer> = KafkaClient::new(brokers)
        .config()
        .set("message.timeout.ms", "10000")
        .create_with_context(Answer::default())
        .expect("a plain producer");
    let headers = OwnedHeaders::new()
        .insert(Header {
            key: EVENT_KIND_HEADER,
            value: Some("TOMBSTONE"),
        })
        .insert(Header {
            key: SCHEMA_VERSION_HEADER,
            value: Some(SCHEMA_VERSION),
        });
    producer
        .send(
            BaseRecord::<str, str>::to(topic)
                .key("1")
                .payload(value)
                .headers(headers),
        )
        .map_err(|(e, _)| e)
        .expect("enqueued");
    producer.flush(Duration::from_secs(10)).expect("flushed");
    producer
        .context()
        .0
        .lock()
        .expect("answer")
        .take()
        .expect("a delivery report")
}

/// Creates `topic` with `cleanup.policy=delete`, as an operator might.
fn create_deleting_topic(brokers: &str, topic: &str) {
    let admin: AdminClient<DefaultClientContext> = KafkaClient::new(brokers)
        .config()
        .create()
        .expect("admin client");
    let new = NewTopic::new(topic, 1, TopicReplication::Fixed(1)).set("cleanup.policy", "delete");
    let results = futures_executor::block_on(admin.create_topics([&new], &AdminOptions::new()))
        .expect("create topic");
    assert!(results.iter().all(Result::is_ok), "{results:?}");
}

#[test]
fn the_dispatcher_makes_the_state_topic_compacted_and_refuses_one_that_is_not() {
    let brokers = tansu();
    // Topics it creates: the state topic compacted, the change topic not.
    let (db, store) = outbox_of_a_day(8);
    let made = topics("compacted");
    let dispatcher =
        Dispatcher::new(store.clone(), kafka(&brokers), settings(&made)).expect("dispatcher");
    dispatcher.prepare_topics().expect("topics made");
    let admin =
        TopicAdmin::new(&KafkaClient::new(&brokers), Duration::from_secs(10)).expect("admin");
    assert_eq!(
        admin
            .cleanup_policy(&made.0)
            .expect("state topic")
            .as_deref(),
        Some("compact")
    );
    assert_eq!(
        admin
            .cleanup_policy(&made.1)
            .expect("change topic")
            .as_deref(),
        Some("delete")
    );

    // A state topic an operator made with `delete`: refused, nothing sent.
    let theirs = topics("uncompacted");
    create_deleting_topic(&brokers, &theirs.0);
    let mut conn = db.connect();
    let rows = (
        pending(&mut conn, "kafka_schd"),
        pending(&mut conn, "kafka_msg"),
    );
    let mut dispatcher =
        Dispatcher::new(store.clone(), kafka(&brokers), settings(&theirs)).expect("dispatcher");
    let err = dispatcher
        .run(&AtomicBool::new(false), false)
        .expect_err("an uncompacted state topic is refused");
    assert!(
        matches!(&err, OutboxError::UncompactedStateTopic { topic, policy } if *topic == theirs.0 && policy == "delete"),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains(&theirs.0) && text.contains("kafka.allow_uncompacted_state_topic"),
        "{text}"
    );
    assert_eq!(
        (
            pending(&mut conn, "kafka_schd"),
            pending(&mut conn, "kafka_msg")
        ),
        rows
    );
    assert!(read_all(&brokers, &theirs.0).is_empty(), "nothing sent");

    // doctor says so, naming the topic and the setting.
    let out = Command::new(env!("CARGO_BIN_EXE_flightstate"))
        .args(["--config", "/nonexistent/flightstate.toml", "doctor"])
        .env("FLIGHTSTATE_DATABASE_URL", db.url())
        .env("FLIGHTSTATE_KAFKA_BROKERS", &brokers)
        .env("FLIGHTSTATE_KAFKA_STATE_TOPIC", &theirs.0)
        .env("FLIGHTSTATE_KAFKA_CHANGE_TOPIC", &theirs.1)
        .env("FLIGHTSTATE_API_BIND", "")
        .output()
        .expect("run doctor");
    let report = String::from_utf8_lossy(&out.stdout);
    let line = report
        .lines()
        .find(|l| l.contains("state topic policy"))
        .unwrap_or_else(|| panic!("no state topic line:\n{report}"));
    assert!(
        line.starts_with("FAIL") && line.contains("cleanup.policy=delete"),
        "{line}"
    );

    // The site accepts it: sent, with a warning.
    let mut allowed = kafka(&brokers);
    allowed.allow_uncompacted_state_topic = true;
    let mut dispatcher =
        Dispatcher::new(store.clone(), allowed, settings(&theirs)).expect("dispatcher");
    dispatcher
        .run(&AtomicBool::new(false), true)
        .expect("dispatched to the uncompacted topic");
    assert_eq!(pending(&mut conn, "kafka_schd"), 0);
    assert!(!read_all(&brokers, &theirs.0).is_empty());
}
