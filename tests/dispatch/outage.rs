//! A broker outage longer than `kafka.delivery_timeout_ms`, against a real
//! tansu broker of the test's own behind a TCP proxy the test cuts, with
//! `flightstate dispatch` as a child process (its log is its stderr, every
//! thread's and librdkafka's lines included):
//!
//! - after the link returns, every pending row reaches the topic without a
//!   restart of the dispatcher (a producer the broker no longer accepts is
//!   replaced, and the log says so once);
//! - the outage is logged once at `warn` with its cause, not once per
//!   reconnect attempt, lane, pass or flight.
//!
//! The broker advertises the proxy's address: a client that learnt the
//! broker's own address from the metadata would bypass the proxy.

use std::process::{Command, Stdio};
use std::time::Duration;

use flightstate::store::pg::PgStore;

use crate::common::child::{BIN, Running};
use crate::common::{TestDatabase, eventually};
use crate::dispatching::{apply, day_of, pending, read_all, reno, topics};
use crate::pumping::OwnBroker;

/// `flightstate dispatch` as a child on the test's database and `brokers`,
/// its stderr read line by line; killed with the guard.
#[track_caller]
fn start_dispatch(
    db: &TestDatabase,
    brokers: &str,
    topics: &(String, String),
    timeout_ms: u64,
) -> Running {
    let mut command = Command::new(BIN);
    command
        .args(["--config", "/nonexistent/flightstate.toml", "dispatch"])
        .env("FLIGHTSTATE_DATABASE_URL", db.url())
        .env("FLIGHTSTATE_KAFKA_BROKERS", brokers)
        .env("FLIGHTSTATE_KAFKA_STATE_TOPIC", &topics.0)
        .env("FLIGHTSTATE_KAFKA_CHANGE_TOPIC", &topics.1)
        .env(
            "FLIGHTSTATE_KAFKA_DELIVERY_TIMEOUT_MS",
            timeout_ms.to_string(),
        )
        .env("FLIGHTSTATE_KAFKA_LINGER_MS", "1")
        .env("FLIGHTSTATE_KAFKA_LANES", "2")
        .env("FLIGHTSTATE_KAFKA_BACKOFF_INITIAL_MS", "200")
        .env("FLIGHTSTATE_KAFKA_BACKOFF_MAX_MS", "1000")
        .env("FLIGHTSTATE_KAFKA_IDLE_POLL_MS", "50")
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdout(Stdio::null());
    Running::start(command, "flightstate dispatch")
}

/// Waits (at most `limit`) until both outboxes are empty; `false` if not.
fn drained(db: &TestDatabase, limit: Duration) -> bool {
    let mut conn = db.connect();
    eventually(limit, || {
        pending(&mut conn, "kafka_schd") + pending(&mut conn, "kafka_msg") == 0
    })
}

/// Lines at `WARN` or `ERROR`.
fn loud(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| l.contains(" WARN ") || l.contains(" ERROR "))
        .collect()
}

const FLIGHTS: [i64; 5] = [1, 2, 3, 4, 5];
/// `kafka.delivery_timeout_ms` of the dispatcher under test.
const DELIVERY_TIMEOUT_MS: u64 = 2_000;

#[test]
fn after_an_outage_longer_than_the_delivery_timeout_the_pending_rows_go_out_without_a_restart() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let broker = OwnBroker::start();
    let topics = topics("outage-long");
    let dispatcher = start_dispatch(&db, &broker.brokers(), &topics, DELIVERY_TIMEOUT_MS);

    // The producer is in use (a producer id, sequence numbers) before the cut.
    apply(&store, 1, &day_of(&FLIGHTS));
    assert!(
        drained(&db, Duration::from_secs(60)),
        "the snapshot was not sent before the outage:\n{}",
        dispatcher.text()
    );
    let before = dispatcher.lines().len();

    // Rows become pending while the broker is unreachable, for three times
    // the delivery timeout: their messages time out in the producer.
    broker.proxy.cut();
    for (i, flid) in FLIGHTS.iter().enumerate() {
        let id = i64::try_from(i).expect("small") + 2;
        apply(&store, id, &reno(*flid, &format!("B{flid}")));
    }
    std::thread::sleep(Duration::from_millis(3 * DELIVERY_TIMEOUT_MS));
    broker.proxy.restore();

    let sent = drained(&db, Duration::from_secs(60));
    let log: Vec<String> = dispatcher.lines().into_iter().skip(before).collect();
    assert!(
        sent,
        "rows still pending 60 s after the link returned; the dispatcher's log:\n{}",
        log.join("\n")
    );
    // Every flight's latest state is on the topic, sent by the same
    // dispatcher process.
    let records = read_all(&broker.brokers(), &topics.0);
    for flid in FLIGHTS {
        let key = flid.to_string();
        let last = records
            .iter()
            .rev()
            .find(|r| r.key.as_deref() == Some(key.as_str()))
            .unwrap_or_else(|| panic!("flight {flid} not on the topic"));
        assert_eq!(
            last.json()["RENO"].as_str(),
            Some(format!("B{flid}").as_str()),
            "{last:?}"
        );
    }
    eprintln!("the dispatcher's log from the cut on:\n{}", log.join("\n"));
    let replaced: Vec<&String> = log.iter().filter(|l| l.contains("replaced it")).collect();
    assert_eq!(replaced.len(), 1, "{replaced:#?}");
    // The outage itself: one line at warn, with its cause; nothing else of
    // it above debug (librdkafka's lines, reconnect attempts, each pass's
    // and each flight's failures).
    let loud = loud(&log);
    let outage: Vec<&&String> = loud.iter().filter(|l| !l.contains("replaced it")).collect();
    assert_eq!(outage.len(), 1, "{loud:#?}");
    assert!(outage[0].contains(" WARN "), "{outage:?}");
    assert!(outage[0].contains("error="), "no cause: {outage:?}");
    assert_eq!(
        log.iter()
            .filter(|l| l.contains("kafka deliveries succeed again"))
            .count(),
        1,
        "{log:#?}"
    );
}
