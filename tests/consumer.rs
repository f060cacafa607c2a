//! The reference consumer (`examples/consumer`, its own modules included
//! below) against a real flightstate: PostgreSQL, a MariaDB mailbox, the
//! pump and the dispatcher, and tansu. A scenario of steps — generated
//! days, flight events, the history clean-up, a restore and `flightstate
//! resync`, `flightstate republish` — after each of which, the outbox drained, the view the
//! consumer rebuilds from the state topic (from its first offset, on three
//! partitions) is the database: the same FLIDs as `FLIGHT_SCHD`, each one's
//! value its stored state document at its version, and every deleted FLID
//! a remembered tombstone at its version floor. At the end, a client that
//! shares no code with flightstate (`tests/consumer/view.py`, kafka-python)
//! rebuilds the same view. The last step runs `flightstate run`, whose
//! heartbeats the consumer reads as "up to date". A record of another major
//! schema version stops both.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/dispatching/mod.rs"]
mod dispatching;
#[path = "helpers/pumping/mod.rs"]
mod pumping;
#[path = "helpers/running/mod.rs"]
mod running;

#[path = "../examples/consumer/heartbeat.rs"]
mod heartbeat;
#[path = "../examples/consumer/read.rs"]
mod read;
#[path = "../examples/consumer/record.rs"]
mod record;
#[path = "../examples/consumer/view.rs"]
mod view;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::Duration;

use chrono::{NaiveDate, NaiveDateTime, NaiveTime, Utc};
use common::TestDatabase;
use common::backup::{dump, restore};
use common::sis::{flop, state_documents};
use diesel::sql_types::BigInt;
use diesel::{PgConnection, QueryableByName, RunQueryDsl};
use dispatching::{drain, kafka, pending, read_all, settings, tansu};
use flightstate::cleanup::{CleanupSettings, clean_up};
use flightstate::dispatch::{Dispatcher, HeartbeatSettings, KafkaSettings};
use flightstate::mailbox::Mailbox;
use flightstate::pipeline::Rules;
use flightstate::station::{HistoryRule, StationClock};
use flightstate::store::pg::PgStore;
use flightstate::synth::{DayOptions, airport_day};
use heartbeat::{Stall, Status};
use pumping::pg::pump_until_idle;
use pumping::{MailboxDatabase, mailbox_settings};
use read::{ReadError, Topics, read_to_end};
use record::ContractError;
use running::{RunChild, RunSetup};
use view::View;

/// The independent client.
const PYTHON_CLIENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/consumer/view.py");

/// The older generated day: retired by the history clean-up.
const OLD_DAY_FIRST_FLID: i64 = 1_000_000;
/// The later one: kept.
const KEPT_DAY_FIRST_FLID: i64 = 2_000_000;
/// Flights of each generated day.
const FLIGHTS_A_DAY: usize = 24;
/// The station of the scenario's heartbeats.
const STATION: &str = "PEK";

/// A flight created by a FLOP after the backup: no day, never in it.
const NEW_FLIGHT: i64 = 900_001;

fn day(d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2025, 6, d).expect("a day")
}

/// The scenario's servers and what its steps leave for the next ones.
struct Scenario {
    db: TestDatabase,
    mailbox: MailboxDatabase,
    /// The topics of this test alone: runs and parallel tests never mix.
    /// The heartbeat topic is where the dispatcher is to send heartbeats.
    topics: Topics,
    change_topic: String,
    /// The backup the restore step restores.
    backup: Option<PathBuf>,
    /// The FLIDs the FDEL deleted.
    fdel: Vec<i64>,
}

/// One step of the scenario: what it does, then the outbox is empty and
/// the view is checked against the database.
type Step = (&'static str, fn(&mut Scenario));

/// The scenario. One more step is one more line (and its function).
const STEPS: &[Step] = &[
    ("two generated days from the mailbox", two_generated_days),
    ("flight events: FLOPs, an FDEL, a new flight", flight_events),
    ("the history clean-up retires a day", history_clean_up),
    ("a restore, then `flightstate resync`", restore_and_resync),
    (
        "`flightstate republish --day` of the kept day",
        republish_a_day,
    ),
    (
        "the pipeline running: its heartbeat says up to date",
        the_pipeline_running,
    ),
];

#[test]
fn after_every_step_the_consumers_view_is_the_database() {
    let mut scenario = Scenario::new();
    for (what, step) in STEPS {
        step(&mut scenario);
        scenario.assert_view_is_the_database(what);
    }
    let view = scenario.view();
    let independent = python_view(&scenario.topics.state);
    let database: serde_json::Map<String, serde_json::Value> =
        state_documents(&mut scenario.db.connect())
            .into_iter()
            .map(|(flid, doc)| (flid.to_string(), doc))
            .collect();
    assert_eq!(
        independent,
        serde_json::Value::Object(database),
        "kafka-python's view is the database"
    );
    assert_eq!(independent, view.to_json(), "and the example's");
}

impl Scenario {
    fn new() -> Scenario {
        let (state, change) = dispatching::topics("consumer");
        let heartbeat = format!("{}.heartbeat", state.trim_end_matches(".state"));
        Scenario {
            db: TestDatabase::migrated(),
            mailbox: MailboxDatabase::create("consumer"),
            topics: Topics {
                state,
                heartbeat: Some(heartbeat),
            },
            change_topic: change,
            backup: None,
            fdel: Vec::new(),
        }
    }

    /// Puts `messages` into the mailbox and pumps until it is empty.
    fn pump(&self, messages: &[Vec<u8>]) {
        for body in messages {
            self.mailbox.insert(body);
        }
        pump_until_idle(
            self.db.url(),
            &self.mailbox,
            Rules::default(),
            "consumer-test",
        );
    }

    /// Dispatches until the outbox is empty; the topics are created on
    /// first use with three partitions, so that the consumer reads several.
    fn dispatch(&self) {
        let topics = (self.topics.state.clone(), self.change_topic.clone());
        let kafka = KafkaSettings {
            topic_partitions: 3,
            ..kafka(&tansu())
        };
        let mailbox =
            Mailbox::connect(mailbox_settings(self.mailbox.url())).expect("a mailbox pool");
        let mut dispatcher = Dispatcher::new(self.store(), kafka, settings(&topics))
            .and_then(|d| d.with_heartbeat(self.heartbeat_settings(), Some(Arc::new(mailbox))))
            .expect("a dispatcher");
        dispatcher
            .prepare_topics()
            .expect("topics ready (is tansu running? scripts/services)");
        let report = drain(&mut dispatcher);
        assert_eq!(report.state.failed + report.change.failed, 0, "{report:?}");
    }

    /// Heartbeats of station `PEK` to the scenario's heartbeat topic.
    fn heartbeat_settings(&self) -> HeartbeatSettings {
        HeartbeatSettings {
            topic: self
                .topics
                .heartbeat
                .clone()
                .expect("the scenario's heartbeat topic"),
            interval: Duration::from_secs(30),
            station: STATION.to_owned(),
        }
    }

    fn store(&self) -> PgStore {
        PgStore::from_pool(self.db.pool())
    }

    /// The consumer's view, read from the topics' first offsets.
    fn view(&self) -> View {
        read_to_end(&tansu(), &self.topics).expect("the consumer reads the topics to their end")
    }

    #[track_caller]
    fn assert_view_is_the_database(&self, step: &str) {
        let mut conn = self.db.connect();
        for outbox in ["kafka_schd", "kafka_msg"] {
            assert_eq!(pending(&mut conn, outbox), 0, "{step}: {outbox} drained");
        }
        let view = self.view();
        let flights = view.flights();
        let documents = state_documents(&mut conn);
        assert_eq!(
            flights.keys().collect::<Vec<_>>(),
            documents.keys().collect::<Vec<_>>(),
            "{step}: the view holds the FLIDs of FLIGHT_SCHD"
        );
        let versions = numbers(
            &mut conn,
            "SELECT flid, state_version AS n FROM flight_schd",
        );
        for (flid, document) in &documents {
            assert_eq!(
                flights.get(flid).copied(),
                Some(document),
                "{step}: flight {flid} is its stored state document"
            );
            assert_eq!(
                document["STATE_VERSION"], versions[flid],
                "{step}: flight {flid} at its version"
            );
        }
        // Every FLID the database holds a version floor of and no flight:
        // a tombstone in the view, at that version.
        let floors = numbers(
            &mut conn,
            "SELECT flid, state_version AS n FROM flight_version_floor \
             WHERE flid NOT IN (SELECT flid FROM flight_schd)",
        );
        assert_eq!(view.deleted(), floors, "{step}: the deleted flights");
    }
}

/// Two generated days of [`FLIGHTS_A_DAY`] flights, 1 and 3 June 2025,
/// each a snapshot and the day's events, through the mailbox and the pump;
/// then the backup the restore step goes back to.
fn two_generated_days(scenario: &mut Scenario) {
    let messages: Vec<Vec<u8>> = [(day(1), OLD_DAY_FIRST_FLID), (day(3), KEPT_DAY_FIRST_FLID)]
        .into_iter()
        .flat_map(|(day, first_flid)| {
            let generated = airport_day(&DayOptions {
                day,
                flights: FLIGHTS_A_DAY,
                first_flid,
                ..DayOptions::default()
            });
            std::iter::once(generated.snapshot)
                .chain(generated.events)
                .map(|m| flightstate::protocol::to_xml(&m).into_bytes())
                .collect::<Vec<_>>()
        })
        .collect();
    scenario.pump(&messages);
    scenario.dispatch();
    scenario.backup = Some(dump(&scenario.db));
}

/// A FLOP RENO for three flights of the kept day, an FDEL of one flight of
/// each day, and a FLOP creating a flight that has no day.
fn flight_events(scenario: &mut Scenario) {
    let mut conn = scenario.db.connect();
    let kept = flids_from(&mut conn, KEPT_DAY_FIRST_FLID);
    let old = flids_from(&mut conn, OLD_DAY_FIRST_FLID);
    let renos: Vec<(i64, String)> = kept[..3]
        .iter()
        .map(|flid| (*flid, format!("<RENO>B{}</RENO>", flid % 10_000)))
        .collect();
    let renos: Vec<(i64, &str)> = renos.iter().map(|(f, b)| (*f, b.as_str())).collect();
    scenario.fdel = vec![old[0], kept[3]];
    let fdel: Vec<(i64, &str)> = scenario.fdel.iter().map(|f| (*f, "<FDEL/>")).collect();
    scenario.pump(&[
        flop("RENO", &renos),
        flop("FDEL", &fdel),
        flop("RENO", &[(NEW_FLIGHT, "<RENO>B9001</RENO>")]),
    ]);
    scenario.dispatch();
    let view = scenario.view();
    for flid in &scenario.fdel {
        assert!(view.deleted().contains_key(flid), "{flid} deleted");
    }
    assert_eq!(view.flights()[&NEW_FLIGHT]["RENO"], "B9001");
}

/// `cleanup.history_days = 1` on 3 June: 1 June is retired, its flights
/// removed with tombstones; the kept day and the flight without a day stay.
fn history_clean_up(scenario: &mut Scenario) {
    let settings = CleanupSettings {
        batch: 5,
        history: Some(HistoryRule {
            days: 1,
            clock: StationClock::new(Some(chrono_tz::UTC)),
            day_boundary: NaiveTime::MIN,
        }),
        ..CleanupSettings::default()
    };
    let now: NaiveDateTime = day(3).and_hms_opt(12, 0, 0).expect("a time");
    let report =
        clean_up(&scenario.store(), &settings, now, false, &mut |_, _| true).expect("the clean-up");
    assert_eq!(report.retired_days, vec![day(1)]);
    assert!(
        report.retired_flights.len() >= FLIGHTS_A_DAY - 1,
        "{report:?}"
    );
    scenario.dispatch();
    let view = scenario.view();
    for flid in &report.retired_flights {
        assert!(view.deleted().contains_key(flid), "{flid} retired");
    }
    assert!(view.flights().contains_key(&NEW_FLIGHT));
}

/// The database restored from the backup of the first step (the events and
/// the clean-up undone in it), then `flightstate resync`: the consumer ends
/// holding the restored database, the flights deleted since back above
/// their tombstones, the flight created since gone.
fn restore_and_resync(scenario: &mut Scenario) {
    let before = scenario.view();
    let backup = scenario.backup.take().expect("the first step's backup");
    restore(&scenario.db, &backup);
    let resync = Command::new(common::child::BIN)
        .args(["--config", "/nonexistent/flightstate.toml", "resync"])
        .env("FLIGHTSTATE_DATABASE_URL", scenario.db.url())
        .env("FLIGHTSTATE_KAFKA_BROKERS", tansu())
        .env("FLIGHTSTATE_KAFKA_STATE_TOPIC", &scenario.topics.state)
        .env("FLIGHTSTATE_KAFKA_CHANGE_TOPIC", &scenario.change_topic)
        .env("FLIGHTSTATE_STATION_TIME_ZONE", "UTC")
        .env("RUST_LOG", "warn")
        .output()
        .expect("run flightstate resync");
    assert_success(&resync, "flightstate resync");
    scenario.dispatch();
    let after = scenario.view();
    for (flid, tombstone) in before.deleted() {
        if let Some(state) = after.flights().get(&flid) {
            assert!(
                state["STATE_VERSION"].as_i64() > Some(tombstone),
                "{flid} is back above its tombstone"
            );
        }
    }
    for flid in &scenario.fdel {
        assert!(after.flights().contains_key(flid), "{flid} is back");
    }
    assert!(after.deleted().contains_key(&NEW_FLIGHT));
}

/// `flightstate republish --day` of the kept day: every flight of the day
/// once more on the state topic, at the version the topic already holds,
/// which the consumer keeps as it was.
fn republish_a_day(scenario: &mut Scenario) {
    let mut conn = scenario.db.connect();
    let of_day = numbers(
        &mut conn,
        "SELECT flid, state_version AS n FROM flight_schd WHERE operation_day = DATE '2025-06-03'",
    );
    let records_per_flight = || {
        let mut counts: BTreeMap<i64, usize> = BTreeMap::new();
        for record in read_all(&tansu(), &scenario.topics.state) {
            *counts
                .entry(record.json()["FLID"].as_i64().unwrap_or_default())
                .or_default() += 1;
        }
        counts
    };
    let before = records_per_flight();
    let view_before = scenario.view();
    let republish = Command::new(common::child::BIN)
        .args([
            "--config",
            "/nonexistent/flightstate.toml",
            "republish",
            "--day",
            "2025-06-03",
        ])
        .env("FLIGHTSTATE_DATABASE_URL", scenario.db.url())
        .env("FLIGHTSTATE_STATION_TIME_ZONE", "UTC")
        .env("RUST_LOG", "warn")
        .output()
        .expect("run flightstate republish");
    assert_success(&republish, "flightstate republish");
    scenario.dispatch();
    let after = records_per_flight();
    let again: BTreeMap<i64, usize> = after
        .iter()
        .map(|(flid, n)| (*flid, n - before.get(flid).copied().unwrap_or_default()))
        .filter(|(_, more)| *more > 0)
        .collect();
    assert_eq!(
        again,
        of_day
            .keys()
            .map(|flid| (*flid, 1))
            .collect::<BTreeMap<_, _>>(),
        "every flight of the day sent once more, and nothing else"
    );
    // At the version the topic held: the consumer's view does not move.
    assert_eq!(scenario.view().to_json(), view_before.to_json());
}

/// `flightstate run` over the scenario's databases and topics, heartbeats
/// every 5 s: a message put into the mailbox meanwhile is applied and
/// sent, and the consumer's reading of the latest heartbeat is "up to date"
/// through that message. Before the run no pump held the lease, and the
/// reading said so.
fn the_pipeline_running(scenario: &mut Scenario) {
    let station_status = |view: &View| {
        heartbeat::status(
            view.heartbeats.latest().get(STATION),
            Utc::now().naive_utc(),
        )
    };
    let before = station_status(&scenario.view());
    assert!(
        matches!(&before, Status::Stalled(why) if why.contains(&Stall::LeaseNotHeld)),
        "no pump held the lease: {before}"
    );
    let heartbeat = scenario.heartbeat_settings();
    let run = RunChild::start(&RunSetup {
        database_url: scenario.db.url().to_owned(),
        mailbox_url: scenario.mailbox.url(),
        brokers: tansu(),
        topics: (scenario.topics.state.clone(), scenario.change_topic.clone()),
        holder: "consumer-run".to_owned(),
        env: vec![
            (
                "FLIGHTSTATE_KAFKA_HEARTBEAT_TOPIC".to_owned(),
                heartbeat.topic,
            ),
            // Stale after three intervals: longer than the consumer takes
            // to read both topics on a loaded machine.
            (
                "FLIGHTSTATE_KAFKA_HEARTBEAT_SECS".to_owned(),
                "5".to_owned(),
            ),
            (
                "FLIGHTSTATE_STATION_HOME_AIRPORT".to_owned(),
                STATION.to_owned(),
            ),
            ("FLIGHTSTATE_STATION_TIME_ZONE".to_owned(), "UTC".to_owned()),
        ],
    });
    let mut conn = scenario.db.connect();
    let flid = flids_from(&mut conn, KEPT_DAY_FIRST_FLID)[0];
    let message = scenario
        .mailbox
        .insert(&flop("RENO", &[(flid, "<RENO>B7777</RENO>")]));
    let mut last = None;
    let up_to_date = common::eventually(Duration::from_secs(60), || {
        let status = station_status(&scenario.view());
        let done =
            matches!(status, Status::UpToDate { published_through: Some(id) } if id >= message);
        last = Some(status);
        done
    });
    run.stop();
    assert!(
        up_to_date,
        "the heartbeat never said up to date through message {message}: {last:?}"
    );
    assert_eq!(scenario.view().flights()[&flid]["RENO"], "B7777");
}

#[derive(QueryableByName)]
struct Number {
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// `flid → n` of a test-only query.
fn numbers(conn: &mut PgConnection, query: &str) -> BTreeMap<i64, i64> {
    diesel::sql_query(query)
        .load::<Number>(conn)
        .expect("a test query")
        .into_iter()
        .map(|r| (r.flid, r.n))
        .collect()
}

/// The stored FLIDs of the generated day whose first FLID is `first`.
fn flids_from(conn: &mut PgConnection, first: i64) -> Vec<i64> {
    numbers(
        conn,
        &format!(
            "SELECT flid, 0::bigint AS n FROM flight_schd WHERE flid BETWEEN {first} AND {}",
            first + 999_999
        ),
    )
    .into_keys()
    .collect()
}

#[track_caller]
fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs the independent client on `topic`.
///
/// # Panics
///
/// When python3 or kafka-python is missing: a test that cannot run is not
/// a test that passed.
fn python_client(topic: &str) -> Output {
    let found = Command::new("python3")
        .args(["-c", "import kafka"])
        .output();
    assert!(
        found.is_ok_and(|out| out.status.success()),
        "the independent client needs python3 with kafka-python 2.0.2: run scripts/services, \
         or `python3 -m pip install kafka-python==2.0.2`"
    );
    Command::new("python3")
        .arg(PYTHON_CLIENT)
        .args(["--brokers", &tansu(), "--topic", topic])
        .output()
        .expect("run tests/consumer/view.py")
}

/// kafka-python's view of the state topic `topic`.
fn python_view(topic: &str) -> serde_json::Value {
    let out = python_client(topic);
    assert_success(&out, "tests/consumer/view.py");
    serde_json::from_slice(&out.stdout).expect("view.py prints JSON")
}

/// The example reads the headers flightstate writes, in the contract's
/// major version.
#[test]
fn the_example_reads_the_contract_flightstate_writes() {
    use flightstate::dispatch::{SCHEMA_VERSION, SCHEMA_VERSION_HEADER};
    assert_eq!(record::SCHEMA_VERSION_HEADER, SCHEMA_VERSION_HEADER);
    assert_eq!(
        SCHEMA_VERSION.split('.').next(),
        Some(record::SUPPORTED_MAJOR.to_string().as_str())
    );
}

/// A state topic holding a 1.0 record, a 1.3 record with a key 1.0 lacks
/// (both read), then a 2.0 record: both consumers stop and say why.
#[test]
fn a_record_of_another_major_version_stops_both_consumers() {
    let (state, _) = dispatching::topics("consumer-major");
    create_topic(&state);
    let value = |flid: i64, extra: &str| {
        format!(
            r#"{{"FLID":{flid},{extra}"STATE_VERSION":1,"LAST_MESSAGE_ID":1,"UPDATED_AT":"2026-09-09T12:00:00"}}"#
        )
    };
    send(
        &state,
        &[
            (1, "1.0", value(1, "")),
            (2, "1.3", value(2, r#""A_KEY_OF_1_3":"x","#)),
        ],
    );
    let topics = Topics {
        state: state.clone(),
        heartbeat: None,
    };
    let read = read_to_end(&tansu(), &topics).expect("minor versions are read");
    assert_eq!(read.flights().keys().copied().collect::<Vec<_>>(), [1, 2]);
    assert_eq!(python_view(&state).as_object().map(|o| o.len()), Some(2));

    send(&state, &[(3, "2.0", value(3, ""))]);
    let refused = read_to_end(&tansu(), &topics).expect_err("a major version stops it");
    assert!(
        matches!(&refused, ReadError::Contract(ContractError::UnsupportedMajor { version, .. }) if version == "2.0"),
        "{refused:?}"
    );
    assert!(
        refused.to_string().contains("schema-version 2.0"),
        "{refused}"
    );
    let python = python_client(&state);
    let said = String::from_utf8_lossy(&python.stderr);
    assert_eq!(python.status.code(), Some(2), "{said}");
    assert!(said.contains("schema-version 2.0"), "{said}");
}

/// Creates `topic`, compacted, as the dispatcher would.
fn create_topic(topic: &str) {
    use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
    use rdkafka::client::DefaultClientContext;
    let admin: AdminClient<DefaultClientContext> = flightstate::kafka::KafkaClient::new(tansu())
        .config()
        .create()
        .expect("an admin client");
    let new = NewTopic::new(topic, 1, TopicReplication::Fixed(1)).set("cleanup.policy", "compact");
    let results = futures_executor::block_on(admin.create_topics([&new], &AdminOptions::new()))
        .expect("create the topic");
    assert!(results.iter().all(Result::is_ok), "{results:?}");
}

/// Sends `(flid, schema-version, value)` records to `topic`, keyed by FLID.
fn send(topic: &str, records: &[(i64, &str, String)]) {
    use rdkafka::message::{Header, OwnedHeaders};
    use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
    let producer: BaseProducer = flightstate::kafka::KafkaClient::new(tansu())
        .config()
        .set("message.timeout.ms", "10000")
        .create()
        .expect("a producer");
    for (flid, version, value) in records {
        let headers = OwnedHeaders::new().insert(Header {
            key: record::SCHEMA_VERSION_HEADER,
            value: Some(*version),
        });
        let key = flid.to_string();
        producer
            .send(
                BaseRecord::to(topic)
                    .key(&key)
                    .payload(value)
                    .headers(headers),
            )
            .map_err(|(e, _)| e)
            .expect("queued");
    }
    producer
        .flush(std::time::Duration::from_secs(10))
        .expect("delivered");
}
