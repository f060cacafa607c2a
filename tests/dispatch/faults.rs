//! The dispatcher under broker faults. A broker outage is a tansu broker of
//! the test's own cut at its proxy, and a flight refused for its size is
//! refused by the producer's own limit on the shared tansu: a real broker
//! makes both. rdkafka's in-process `MockCluster` stands in only where a
//! real broker cannot be made to give the error on cue (DESIGN §8):
//! retriable Produce errors, and a broker refusing the producer itself;
//! each such test says so. What the consumer sees of a real broker is
//! tested against tansu (`tansu.rs`).

use std::time::Duration;

use diesel::sql_types::{BigInt, Integer, Nullable, Text};
use diesel::{PgConnection, QueryableByName, RunQueryDsl};
use flightstate::dispatch::{Dispatcher, KafkaSettings};
use flightstate::protocol::Field;
use flightstate::store::pg::PgStore;
use rdkafka::mocking::MockCluster;
use rdkafka::producer::DefaultProducerContext;
use rdkafka::types::{RDKafkaApiKey, RDKafkaRespErr};

use crate::common::TestDatabase;
use crate::common::log::Captured;
use crate::common::sis::{at, flight, sep};
use crate::dispatching::{
    apply, day_of, drain, pending, read_all, rebuild, reno, stored, tansu, topics,
};
use crate::pumping::OwnBroker;

type Mock = MockCluster<'static, DefaultProducerContext>;

/// A one-broker mock cluster with the test's two topics (the mock's broker
/// id is 1).
fn mock_with(topics: &(String, String)) -> Mock {
    let mock = MockCluster::new(1).expect("mock cluster");
    mock.create_topic(&topics.0, 1, 1).expect("state topic");
    mock.create_topic(&topics.1, 1, 1).expect("change topic");
    mock
}

fn kafka(mock: &Mock) -> KafkaSettings {
    KafkaSettings {
        // The mock's topics exist already; short timeouts so that a broker
        // outage is noticed within the test. The mock answers no
        // `DescribeConfigs`, so the state topic's policy cannot be read:
        // accepted, as a site that allows an uncompacted state topic does.
        create_topics: false,
        allow_uncompacted_state_topic: true,
        delivery_timeout: Duration::from_secs(2),
        ..crate::dispatching::kafka(&mock.bootstrap_servers())
    }
}

#[derive(QueryableByName, Debug)]
struct Row {
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = Integer)]
    attempts: i32,
    #[diesel(sql_type = Nullable<Text>)]
    last_error: Option<String>,
}

/// The state events still in the outbox: pending ones (a row is deleted
/// once its delivery is confirmed).
fn state_rows(conn: &mut PgConnection) -> Vec<Row> {
    diesel::sql_query("SELECT flid, attempts, last_error FROM kafka_schd ORDER BY event_id")
        .load(conn)
        .expect("read kafka_schd")
}

#[derive(QueryableByName)]
struct Waiting {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Waits until every pending row of both outboxes is due again (its
/// back-off, computed in SQL, is over by the dispatcher's clock), at most
/// twice the longest back-off of the settings (1 s).
#[track_caller]
fn until_due(conn: &mut PgConnection) {
    let longest = crate::dispatching::settings(&(String::new(), String::new())).backoff_max;
    let waiting = |conn: &mut PgConnection| {
        let now = flightstate::station::utc_now();
        ["kafka_schd", "kafka_msg"]
            .iter()
            .map(|table| {
                // Test-only SQL: the table is a constant of this function.
                diesel::sql_query(format!(
                    "SELECT count(*) AS n FROM {table} \
                     WHERE sent_at IS NULL AND next_attempt_at > $1"
                ))
                .bind::<diesel::sql_types::Timestamp, _>(now)
                .get_result::<Waiting>(conn)
                .expect("read the outbox")
                .n
            })
            .sum::<i64>()
    };
    assert!(
        crate::common::eventually(longest * 2, || waiting(conn) == 0),
        "rows still waiting for their retry after {:?}",
        longest * 2
    );
}

#[test]
fn a_broker_outage_keeps_rows_pending_and_they_are_delivered_after_recovery() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let topics = topics("outage");
    let broker = OwnBroker::start();
    let mut dispatcher = Dispatcher::new(
        store.clone(),
        KafkaSettings {
            // Short, so that the outage is noticed within the test.
            delivery_timeout: Duration::from_secs(2),
            ..crate::dispatching::kafka(&broker.brokers())
        },
        crate::dispatching::settings(&topics),
    )
    .expect("dispatcher");
    // The topics are made before the outage, as a running site has them.
    dispatcher.prepare_topics().expect("the topics");
    apply(&store, 1, &day_of(&[1, 2, 3, 4, 5]));
    let mut conn = db.connect();

    broker.proxy.cut();
    let report = dispatcher
        .dispatch_once()
        .expect("a pass during the outage");
    assert_eq!(
        (report.state.sent, report.state.failed),
        (0, 5),
        "{report:?}"
    );
    assert_eq!(report.change.sent, 0);
    assert!(broker.proxy.refused() > 0, "the pass met the outage");
    assert_eq!(pending(&mut conn, "kafka_schd"), 5);
    assert_eq!(pending(&mut conn, "kafka_msg"), 6);
    for row in state_rows(&mut conn) {
        assert_eq!(row.attempts, 1, "{row:?}");
        assert!(row.last_error.is_some(), "{row:?}");
    }
    // Each waits for its retry time (the back-off, computed in SQL).
    assert_eq!(
        crate::common::sis::count(
            &mut conn,
            "kafka_schd",
            "sent_at IS NULL AND next_attempt_at > created_at"
        ),
        5
    );

    // Back: each row goes out at one of its next tries (a pass may still
    // meet the producer the outage left behind, which is then replaced).
    broker.proxy.restore();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while pending(&mut conn, "kafka_schd") + pending(&mut conn, "kafka_msg") > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "rows still pending 30 s after the broker came back: {:?}",
            state_rows(&mut conn)
        );
        until_due(&mut conn);
        dispatcher.dispatch_once().expect("a pass");
    }

    // None lost: the consumer rebuilds every flight (duplicates from the
    // uncertain first try would be harmless too).
    let records = read_all(&broker.brokers(), &topics.0);
    assert_eq!(rebuild(&records), stored(&store, &mut conn));
}

/// The mock stands in for the broker: a real one cannot be made to answer
/// a Produce request with a retriable error on cue.
#[test]
fn retriable_produce_errors_are_retried_until_delivered() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let topics = topics("retriable");
    let mock = mock_with(&topics);
    let mut dispatcher = Dispatcher::new(
        store.clone(),
        kafka(&mock),
        crate::dispatching::settings(&topics),
    )
    .expect("dispatcher");
    apply(&store, 1, &day_of(&[1, 2, 3]));
    // The next three Produce requests fail with errors the producer retries
    // itself (idempotently: no duplicates, order kept).
    mock.request_errors(
        RDKafkaApiKey::Produce,
        &[
            RDKafkaRespErr::RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
            RDKafkaRespErr::RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
            RDKafkaRespErr::RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
        ],
    );
    let report = dispatcher.dispatch_once().expect("one pass");
    assert_eq!(
        (report.state.sent, report.state.failed),
        (3, 0),
        "{report:?}"
    );
    assert_eq!(
        (report.change.sent, report.change.failed),
        (4, 0),
        "{report:?}"
    );
    let mut conn = db.connect();
    let left = state_rows(&mut conn);
    assert!(
        left.is_empty(),
        "every row done in the first pass: {left:?}"
    );
    let records = read_all(&mock.bootstrap_servers(), &topics.0);
    assert_eq!(records.len(), 3, "no duplicates");
    assert_eq!(rebuild(&records), stored(&store, &mut conn));
}

#[test]
fn a_refused_flight_is_logged_with_its_flid_and_kept_while_the_others_go_on() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let topics = topics("refused");
    let mut kafka = crate::dispatching::kafka(&tansu());
    // Flight 3's state is larger than the producer may send: refused before
    // it leaves the process, a fault no retry can fix.
    kafka.client.set_property("message.max.bytes", "1500");
    let mut dispatcher =
        Dispatcher::new(store.clone(), kafka, crate::dispatching::settings(&topics))
            .expect("dispatcher");
    dispatcher.prepare_topics().expect("the topics");
    let mut big = flight(3, at(9, 8, 0));
    big.remc = Field::Value("x".repeat(1000));
    big.exsr = Field::Value("y".repeat(1000));
    let flights = vec![flight(1, at(9, 8, 0)), flight(2, at(9, 8, 0)), big];
    apply(
        &store,
        1,
        &crate::common::sis::schedule_message(
            flightstate::protocol::ScheduleSubtype::Dnld,
            Some(sep(9)),
            Field::Value(3),
            flights,
        ),
    );

    let log = Captured::default();
    let report = log.during(|| dispatcher.dispatch_once().expect("a pass"));
    assert_eq!(
        (report.state.sent, report.state.failed),
        (2, 1),
        "{report:?}"
    );
    let text = log.text();
    let line = text
        .lines()
        .find(|l| l.contains("ERROR") && l.contains("refused"))
        .unwrap_or_else(|| panic!("no error logged:\n{text}"));
    assert!(line.contains("flid=3"), "{line}");

    let mut conn = db.connect();
    let refused = state_rows(&mut conn);
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].flid, 3);
    assert!(
        refused[0]
            .last_error
            .as_deref()
            .is_some_and(|e| e.contains("MessageSizeTooLarge")),
        "{refused:?}"
    );

    // The dispatcher keeps going: a later change of flight 1 is delivered,
    // flight 3 stays pending (tried again after its back-off, refused again).
    apply(
        &store,
        2,
        b"<MSG><META><SNDR>AODB</SNDR><SEQN>2</SEQN><DTTM>20260909080000</DTTM>\
          <TYPE>FLOP</TYPE><STYP>RENO</STYP></META><FLOP><FLID>1</FLID><RENO>B77</RENO></FLOP></MSG>",
    );
    until_due(&mut conn);
    let report = drain(&mut dispatcher);
    assert_eq!(
        (report.state.sent, report.state.failed),
        (1, 1),
        "{report:?}"
    );
    // Only flight 3's row is left: flight 1's new row went out.
    let refused = state_rows(&mut conn);
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!((refused[0].flid, refused[0].attempts), (3, 2));
    let records = read_all(&tansu(), &topics.0);
    assert!(records.iter().all(|r| r.key.as_deref() != Some("3")));
    assert_eq!(
        rebuild(&records)[&1].state.fields.reno.as_deref(),
        Some("B77")
    );
}

/// The broker refuses the producer itself (the answers a broker gives an
/// idempotent producer whose id, epoch or sequence it no longer accepts)
/// for a pass. librdkafka makes none of these fatal when they answer a
/// Produce request, so a check of `fatal_error()` never replaced the
/// producer. The mock stands in for the broker because a real one cannot
/// be made to give each answer on cue; unlike a broker that fenced the
/// producer, the mock accepts the same producer again once its injected
/// errors are used up, so the wedge itself (every later message refused) is
/// shown against tansu (`outage.rs`). Here: each refusal gets the
/// producer replaced, said once in the log, and the rows go out.
/// (`UnknownProducerId` is in the set too, but librdkafka answers it itself
/// with a new producer id and sends again within the pass: it reaches no
/// delivery report here.)
#[test]
fn a_producer_the_broker_refuses_is_replaced_and_the_pending_rows_go_out() {
    for (n, code) in [
        RDKafkaRespErr::RD_KAFKA_RESP_ERR_PRODUCER_FENCED,
        RDKafkaRespErr::RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH,
        RDKafkaRespErr::RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER,
    ]
    .into_iter()
    .enumerate()
    {
        let db = TestDatabase::migrated();
        let store = PgStore::from_pool(db.pool());
        let topics = topics(&format!("refused-producer-{n}"));
        let mock = mock_with(&topics);
        let mut dispatcher = Dispatcher::new(
            store.clone(),
            kafka(&mock),
            crate::dispatching::settings(&topics),
        )
        .expect("dispatcher");
        apply(&store, 1, &day_of(&[1, 2, 3]));
        let report = drain(&mut dispatcher);
        assert_eq!(report.state.sent, 3, "{code:?}: {report:?}");

        let log = Captured::default();
        let mut conn = db.connect();
        log.during(|| {
            // The Produce requests of the next pass are refused so.
            mock.request_errors(RDKafkaApiKey::Produce, &[code; 8]);
            apply(&store, 2, &reno(1, "B77"));
            let report = dispatcher.dispatch_once().expect("a pass");
            assert_eq!(report.state.sent, 0, "{code:?}: {report:?}");
            mock.clear_request_errors(RDKafkaApiKey::Produce);
            let deadline = std::time::Instant::now() + Duration::from_secs(30);
            while pending(&mut conn, "kafka_schd") + pending(&mut conn, "kafka_msg") > 0 {
                assert!(
                    std::time::Instant::now() < deadline,
                    "{code:?}: rows still pending: {:?}",
                    state_rows(&mut conn)
                );
                until_due(&mut conn);
                dispatcher.dispatch_once().expect("a pass");
            }
        });
        let text = log.text();
        let replaced = text.lines().filter(|l| l.contains("replaced it")).count();
        assert_eq!(replaced, 1, "{code:?}:\n{text}");
        let records = read_all(&mock.bootstrap_servers(), &topics.0);
        assert_eq!(
            rebuild(&records)[&1].state.fields.reno.as_deref(),
            Some("B77"),
            "{code:?}"
        );
    }
}
