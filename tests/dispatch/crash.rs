//! A dispatcher that crashes between producing a batch and marking its rows
//! sent (failpoints `dispatch.state_after_produce` and
//! `dispatch.change_after_produce`, one per lane's pass, armed to kill the
//! process with SIGKILL, proven by the signal and the marker line it writes
//! first) leaves every row of the batch pending; the next run sends them
//! again. Duplicates reach the topic, nothing is lost, and the consumer's
//! view converges on the database's. One that crashes between a state
//! claim and its produce (`dispatch.before_produce`) sent nothing, and the
//! next run sends each flight once. Runs the real binary against
//! PostgreSQL and tansu.
#![cfg(feature = "failpoints")]

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus};
use std::time::Duration;

use flightstate::pipeline::{Rules, apply_message};
use flightstate::store::pg::PgStore;

use crate::common::TestDatabase;
use crate::common::child::{BIN, run_to_end};
use crate::common::sis::{at, flight, parse_options, sep, snapshot};
use crate::dispatching::{pending, read_all, rebuild, stored, tansu, topics};

/// Runs `flightstate dispatch --until-idle` to its end (at most 120 s);
/// returns how it ended and what it wrote on stderr.
fn dispatch(
    db: &TestDatabase,
    topics: &(String, String),
    failpoint: Option<&str>,
) -> (ExitStatus, String) {
    let mut command = Command::new(BIN);
    command
        .args([
            "--config",
            "/nonexistent/flightstate.toml",
            "dispatch",
            "--until-idle",
        ])
        .env("FLIGHTSTATE_DATABASE_URL", db.url())
        .env("FLIGHTSTATE_KAFKA_BROKERS", tansu())
        .env("FLIGHTSTATE_KAFKA_STATE_TOPIC", &topics.0)
        .env("FLIGHTSTATE_KAFKA_CHANGE_TOPIC", &topics.1)
        // Small batches on one lane: the crash comes after the first
        // batch, and only that batch is out (a second lane could have
        // produced its own first batch by then).
        .env("FLIGHTSTATE_KAFKA_BATCH_SIZE", "5")
        .env("FLIGHTSTATE_KAFKA_LANES", "1")
        .env("FLIGHTSTATE_KAFKA_DELIVERY_TIMEOUT_MS", "10000")
        .env("RUST_LOG", "warn");
    run_to_end(
        command,
        "dispatch_crash",
        failpoint,
        Duration::from_secs(120),
    )
}

/// The test's day: 12 flights, so 12 state events and 13 change notices
/// (one per flight and the snapshot's own).
const FLIGHTS: i64 = 12;
const NOTICES: i64 = 13;
/// `FLIGHTSTATE_KAFKA_BATCH_SIZE` above.
const BATCH: usize = 5;

/// Applies the day, kills the dispatcher at `point` in its first pass of
/// that kind, and returns what the crash left: the database, the store, the
/// topics.
fn crash_at(point: &str, tag: &str) -> (TestDatabase, PgStore, (String, String)) {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let settings = Rules {
        parse: parse_options(),
        ..Rules::default()
    };
    let day = snapshot(
        sep(9),
        (1..=FLIGHTS).map(|f| flight(f, at(9, 8, 0))).collect(),
    );
    apply_message(&store, &settings, 1, &day, at(9, 12, 0)).expect("snapshot applied");
    let topics = topics(tag);

    let (crashed, said) = dispatch(&db, &topics, Some(point));
    assert_eq!(crashed.signal(), Some(libc::SIGKILL), "{crashed:?}\n{said}");
    assert!(
        said.contains(&format!("failpoint `{point}`: killed")),
        "killed there and nowhere else: {said}"
    );
    (db, store, topics)
}

/// The run after the crash ends with nothing pending, and the consumer's
/// view of the state topic is the database's.
fn restart_and_converge(db: &TestDatabase, store: &PgStore, topics: &(String, String)) {
    let (finished, said) = dispatch(db, topics, None);
    assert!(finished.success(), "{finished:?}\n{said}");
    let mut conn = db.connect();
    assert_eq!(pending(&mut conn, "kafka_schd"), 0);
    assert_eq!(pending(&mut conn, "kafka_msg"), 0);
    assert_eq!(
        rebuild(&read_all(&tansu(), &topics.0)),
        stored(store, &mut conn)
    );
}

#[test]
fn a_crash_between_producing_states_and_marking_sends_the_batch_again_and_the_consumer_converges() {
    let (db, store, topics) = crash_at("dispatch.state_after_produce", "crash-state");
    let mut conn = db.connect();
    assert_eq!(
        pending(&mut conn, "kafka_schd"),
        FLIGHTS,
        "nothing was marked"
    );
    assert_eq!(
        pending(&mut conn, "kafka_msg"),
        NOTICES,
        "no notice was sent"
    );
    let before = read_all(&tansu(), &topics.0);
    assert_eq!(before.len(), BATCH, "the first batch reached the topic");

    restart_and_converge(&db, &store, &topics);
    let records = read_all(&tansu(), &topics.0);
    assert_eq!(
        records.len(),
        FLIGHTS as usize + BATCH,
        "the first batch came twice"
    );
}

#[test]
fn a_crash_between_claiming_states_and_producing_them_sends_them_on_the_next_run() {
    let (db, store, topics) = crash_at("dispatch.before_produce", "crash-claim");
    let mut conn = db.connect();
    assert_eq!(
        pending(&mut conn, "kafka_schd"),
        FLIGHTS,
        "the claimed rows are pending again"
    );
    assert!(
        read_all(&tansu(), &topics.0).is_empty(),
        "nothing of the claim reached the topic"
    );
    restart_and_converge(&db, &store, &topics);
    assert_eq!(
        read_all(&tansu(), &topics.0).len(),
        FLIGHTS as usize,
        "each flight once"
    );
}

#[test]
fn a_crash_between_producing_notices_and_marking_sends_them_again() {
    let (db, store, topics) = crash_at("dispatch.change_after_produce", "crash-change");
    let mut conn = db.connect();
    // The lane's state pass before it committed: its batch is marked.
    assert_eq!(
        pending(&mut conn, "kafka_schd"),
        FLIGHTS - BATCH as i64,
        "the state batch before the crash was marked"
    );
    assert_eq!(
        pending(&mut conn, "kafka_msg"),
        NOTICES,
        "nothing was marked"
    );
    let before = read_all(&tansu(), &topics.1);
    assert_eq!(before.len(), BATCH, "the first batch reached the topic");

    restart_and_converge(&db, &store, &topics);
    let notices = read_all(&tansu(), &topics.1);
    assert_eq!(
        notices.len(),
        NOTICES as usize + BATCH,
        "the first batch came twice"
    );
    let ids: std::collections::BTreeSet<_> = notices.iter().map(|r| r.event_id.clone()).collect();
    assert_eq!(
        ids.len(),
        NOTICES as usize,
        "every notice, none lost: {ids:?}"
    );
}
