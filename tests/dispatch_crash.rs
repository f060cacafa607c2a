//! A dispatcher that crashes between producing a batch and marking its rows
//! sent (failpoint `dispatch.after_produce`, armed to kill the process with
//! SIGKILL, proven by the signal and the marker line it writes first) leaves every row of the batch pending; the next run
//! sends them again. Duplicates reach the topic, nothing is lost, and the
//! consumer's view converges on the database's. Runs the real binary
//! against PostgreSQL and tansu.
#![cfg(all(feature = "postgres", feature = "failpoints"))]

mod common;
mod dispatching;

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus};
use std::time::Duration;

use common::TestDatabase;
use common::child::run_to_end;
use common::sis::{at, flight, parse_options, sep, snapshot};
use dispatching::{pending, read_all, rebuild, stored, tansu, topics};
use flightstate::pipeline::{Settings, apply_message};
use flightstate::store::pg::PgStore;

const BIN: &str = env!("CARGO_BIN_EXE_flightstate");

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

#[test]
fn a_crash_between_produce_and_marking_sends_the_batch_again_and_the_consumer_converges() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let settings = Settings {
        parse: parse_options(),
        ..Settings::default()
    };
    let flids: Vec<i64> = (1..=12).collect();
    let day = snapshot(
        sep(9),
        flids.iter().map(|f| flight(*f, at(9, 8, 0))).collect(),
    );
    apply_message(&store, &settings, 1, &day, at(9, 12, 0)).expect("snapshot applied");
    let topics = topics("crash");
    let mut conn = db.connect();

    let (crashed, said) = dispatch(&db, &topics, Some("dispatch.after_produce"));
    assert_eq!(crashed.signal(), Some(libc::SIGKILL), "{crashed:?}\n{said}");
    assert!(
        said.contains("failpoint `dispatch.after_produce`: killed"),
        "killed there and nowhere else: {said}"
    );
    assert_eq!(pending(&mut conn, "kafka_schd"), 12, "nothing was marked");
    let before = read_all(&tansu(), &topics.0);
    assert_eq!(before.len(), 5, "the first batch reached the topic");

    let (finished, said) = dispatch(&db, &topics, None);
    assert!(finished.success(), "{finished:?}\n{said}");
    assert_eq!(pending(&mut conn, "kafka_schd"), 0);
    assert_eq!(pending(&mut conn, "kafka_msg"), 0);

    let records = read_all(&tansu(), &topics.0);
    assert_eq!(records.len(), 12 + 5, "the first batch came twice");
    assert_eq!(rebuild(&records), stored(&store, &mut conn));
}
