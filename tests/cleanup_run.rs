//! The clean-up job of `flightstate run` (the binary of this test run, a
//! child process) against real PostgreSQL, MariaDB and tansu: off unless
//! `cleanup.every_secs` is set; when set, the running process removes a
//! stale flight without an operation day and its dispatcher sends the
//! tombstone.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/dispatching/mod.rs"]
mod dispatching;
#[path = "helpers/pumping/mod.rs"]
mod pumping;
#[path = "helpers/running/mod.rs"]
mod running;

use std::time::Duration;

use common::sis::{at, flop, parse_options};
use common::{TestDatabase, eventually};
use dispatching::{read_all, tansu, topics};
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::store::pg::PgStore;
use pumping::MailboxDatabase;
use running::{RunChild, RunSetup};

fn flight_count(db: &TestDatabase, flid: i64) -> i64 {
    common::sis::count(&mut db.connect(), "flight_schd", &format!("flid = {flid}"))
}

fn processed(db: &TestDatabase, message_id: i64) -> bool {
    common::sis::count(
        &mut db.connect(),
        "proc_state",
        &format!("message_id = {message_id} AND status = 'SUCCEEDED'"),
    ) == 1
}

#[test]
fn run_cleans_up_only_when_the_job_is_enabled() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("cleanup_run");
    let store = PgStore::connect(db.url(), 2, Duration::from_secs(2)).expect("pool");
    let settings = Rules {
        parse: parse_options(),
        ..Rules::default()
    };
    // Flight 101: created by an event in September, never given a day. The
    // message id is far above the mailbox's, which start at 1.
    let applied = apply_message(
        &store,
        &settings,
        1_000_000,
        &flop("RENO", &[(101, "<RENO>B101</RENO>")]),
        at(10, 8, 0),
    )
    .expect("applied");
    assert!(matches!(applied, Applied::Flights(_)), "{applied:?}");
    let setup = |holder: &str, env: Vec<(String, String)>| RunSetup {
        database_url: db.url().to_owned(),
        mailbox_url: mb.url(),
        brokers: tansu(),
        topics: topics("cleanup-run"),
        holder: holder.to_owned(),
        env,
    };

    // Off by default: the process works (it applies a message), never
    // starts the job (which says "clean-up job on" as it starts, as below),
    // and leaves the stale flight alone. The whole log is read once the
    // process stopped, every thread joined: nothing of it can come later.
    let quiet = setup("cleanup-off", Vec::new());
    let run = RunChild::start(&quiet);
    let first = mb.insert(&flop("RENO", &[(102, "<RENO>B102</RENO>")]));
    assert!(
        eventually(Duration::from_secs(30), || processed(&db, first)),
        "the message was not applied in 30 s\n{}",
        run.text()
    );
    let log = run.stop();
    let said_clean_up: Vec<_> = log
        .iter()
        .filter(|(_, event)| event.to_string().contains("clean-up"))
        .collect();
    assert!(
        said_clean_up.is_empty(),
        "the job is off: {said_clean_up:?}"
    );
    assert_eq!(flight_count(&db, 101), 1, "{log:?}");

    // On: the process removes it, and its dispatcher sends the tombstone.
    let busy = RunSetup {
        topics: quiet.topics.clone(),
        ..setup(
            "cleanup-on",
            vec![("FLIGHTSTATE_CLEANUP_EVERY_SECS".to_owned(), "1".to_owned())],
        )
    };
    let started = std::time::Instant::now();
    let run = RunChild::start(&busy);
    assert!(
        eventually(Duration::from_secs(30), || flight_count(&db, 101) == 0),
        "the stale flight was not removed in 30 s\n{}",
        run.text()
    );
    let tombstone = |records: &[dispatching::Record]| {
        records
            .iter()
            .filter(|r| r.key.as_deref() == Some("101"))
            .map(dispatching::Record::json)
            .any(|json| json["DELETED"] == serde_json::json!(true))
    };
    assert!(
        eventually(Duration::from_secs(30), || tombstone(&read_all(
            &tansu(),
            &busy.topics.0
        ))),
        "no tombstone of 101 on the state topic in 30 s\n{}",
        run.text()
    );
    // The recent flight stays.
    assert_eq!(flight_count(&db, 102), 1);
    assert!(
        run.first_saying(started, "clean-up job on").is_some(),
        "the job says it is on: {}",
        run.text()
    );
    run.stop();
}
