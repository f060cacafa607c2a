//! A state database that lost its last commits (docs/operations.md, "After
//! a failover", "After a restore"), against real PostgreSQL, MariaDB and the
//! tansu broker, in process:
//!
//! - what is not a lost tail: a mailbox's history from before flightstate,
//!   rows another reader processed with its own statuses, rows AODB purged;
//!   and what is (a row written back with flightstate's status above the
//!   database's last final message), at which the pump stops;
//! - a restore from a `pg_dump` taken mid-stream: the tail is named, the
//!   pump applies nothing above it, the catch-up re-applies it and puts the
//!   topics back in step; the end state is a clean run's, every mailbox row
//!   was written back once, and a consumer keeping the highest version per
//!   FLID holds the database without any FLID's version going down.
//!
//! The failover of a streaming standby is `tests/failover.rs`.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/dispatching/mod.rs"]
mod dispatching;
#[path = "helpers/pumping/mod.rs"]
mod pumping;

use std::collections::{BTreeMap, HashMap};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use common::TestDatabase;
use common::backup::{dump, restore};
use common::sis::{day_messages, flop, site_settings};
use dispatching::{Record, kafka, read_all, rebuild, settings, stored, tansu, tansu_dispatcher};
use flightstate::dispatch::Dispatcher;
use flightstate::kafka::KafkaClient;
use flightstate::lost_tail::{CatchUpSettings, catch_up, detect};
use flightstate::mailbox::Mailbox;
use flightstate::pump::{Pump, PumpSettings};
use flightstate::resync::ResyncSettings;
use flightstate::store::pg::PgStore;
use mysql::prelude::Queryable;
use pumping::pg::{drain, mailbox, pg_store};
use pumping::{MailboxDatabase, proc_states, pump_settings};

/// Marks mailbox row `id` processed with `status`, as a reader does.
fn write_back_by_hand(mb: &MailboxDatabase, id: i64, status: &str) {
    mb.conn()
        .exec_drop(
            "UPDATE cminmsgs SET CMINMSGS_STATUS = ?, CMINMSGS_DATE_PROCESSED = NOW() \
             WHERE CMINMSGS_ID = ?",
            (status, id),
        )
        .expect("write a row back by hand");
}

fn reno(flid: i64, reno: &str) -> Vec<u8> {
    flop("RENO", &[(flid, &format!("<RENO>{reno}</RENO>"))])
}

#[test]
fn history_other_readers_and_purged_rows_are_not_a_lost_tail() {
    let db = TestDatabase::migrated();
    let store = pg_store(db.url());
    let mb = MailboxDatabase::create("tail_not");
    let mailbox = mailbox(mb.url());
    // The mailbox's history from before flightstate, written back by the
    // reader it replaces with the very statuses flightstate uses.
    let history: Vec<i64> = (0..3).map(|i| mb.insert(&reno(7_000 + i, "H1"))).collect();
    for id in &history {
        write_back_by_hand(&mb, *id, "PROCESSED");
    }
    assert_eq!(
        detect(&store, &mailbox).expect("look"),
        None,
        "a database that holds no final message has no tail"
    );

    let mut pump = Pump::new(
        store.clone(),
        Arc::clone(&mailbox),
        site_settings(),
        pump_settings("tail-not"),
    );
    for flid in 1..=4 {
        mb.insert(&reno(flid, "B1"));
    }
    drain(&mut pump);
    assert!(mb.all_written_back(7));
    assert_eq!(
        detect(&store, &mailbox).expect("look"),
        None,
        "history below flightstate's first message"
    );

    // Another reader takes rows above flightstate's last message, writing
    // its own statuses; the pump goes on past them.
    let taken = mb.insert(&reno(5, "OTHER"));
    write_back_by_hand(&mb, taken, "TAKEN");
    assert_eq!(detect(&store, &mailbox).expect("look"), None);
    let after_taken = mb.insert(&reno(6, "B1"));
    drain(&mut pump);
    assert_eq!(pump.lost_tail(), None);
    assert!(
        proc_states(&mut db.connect())
            .iter()
            .any(|(id, status, _, _)| *id == after_taken && status == "SUCCEEDED")
    );

    // AODB purges its processed rows, flightstate's among them.
    mb.conn()
        .exec_drop("DELETE FROM cminmsgs WHERE CMINMSGS_ID < ?", (after_taken,))
        .expect("purge");
    assert_eq!(detect(&store, &mailbox).expect("look"), None);
    mb.insert(&reno(1, "B2"));
    drain(&mut pump);
    assert_eq!(detect(&store, &mailbox).expect("look"), None);
    assert_eq!(pump.lost_tail(), None);

    // The rule does see a tail: a row written back with flightstate's
    // status above the database's last final message.
    let lost = mb.insert(&reno(2, "B2"));
    write_back_by_hand(&mb, lost, "PROCESSED");
    let tail = detect(&store, &mailbox)
        .expect("look")
        .expect("a lost tail");
    assert_eq!((tail.written_back, tail.first, tail.last), (1, lost, lost));
    assert_eq!(
        tail.describe(),
        format!("the state database is behind the mailbox by 1 messages (ids {lost}–{lost})")
    );
    // The pump stops at it and applies nothing above it.
    let above = mb.insert(&reno(3, "B2"));
    let summary = pump
        .run(&AtomicBool::new(false), true)
        .expect("no failpoint armed");
    assert_eq!(summary.lost_tail, Some(tail));
    assert_eq!(summary.messages, 0);
    assert!(
        !proc_states(&mut db.connect())
            .iter()
            .any(|(id, _, _, _)| *id == above),
        "nothing above the tail is applied"
    );
}

/// An operator's requeue sets the highest final message FAILED (REQUEUED)
/// and its mailbox row pending: the state database's last final message
/// moves down by the operator's hand, not by a lost commit, and the pump
/// that recorded it goes on and applies it again.
#[test]
fn a_requeue_of_the_last_final_message_is_not_a_lost_tail() {
    let db = TestDatabase::migrated();
    let store = pg_store(db.url());
    let mb = MailboxDatabase::create("tail_requeue");
    let mailbox = mailbox(mb.url());
    let mut pump = Pump::new(
        store.clone(),
        Arc::clone(&mailbox),
        site_settings(),
        pump_settings("tail-requeue"),
    );
    mb.insert(&reno(1, "B1"));
    let dead = mb.insert(b"<MSG/>");
    drain(&mut pump);
    assert!(mb.all_written_back(2));
    let actor =
        flightstate::operator::Actor::new("night-shift", flightstate::operator::Via::CommandLine)
            .expect("a name");
    let requeued =
        flightstate::operator::requeue(&store, &mailbox, &[dead], &actor).expect("the requeue");
    assert!(requeued.iter().all(|r| r.ok()), "{requeued:?}");
    assert_eq!(detect(&store, &mailbox).expect("look"), None);
    let summary = pump
        .run(&AtomicBool::new(false), true)
        .expect("no failpoint armed");
    assert_eq!(summary.lost_tail, None);
    assert_eq!(pump.lost_tail(), None);
    assert!(
        proc_states(&mut db.connect())
            .iter()
            .any(|(id, status, _, _)| *id == dead && status == "DEAD"),
        "the requeued message is applied again (and refused again)"
    );
    assert!(mb.all_written_back(2));
}

/// The site's pump, with a lease short enough for a test to wait out.
fn site_pump(holder: &str) -> PumpSettings {
    PumpSettings {
        lease_ttl: Duration::from_secs(5),
        ..pump_settings(holder)
    }
}

/// Each stored flight without its version and time: what a clean run and
/// a caught-up one must agree on (the catch-up's resync raises versions
/// above the topic's).
fn contents(store: &PgStore, db: &TestDatabase) -> BTreeMap<i64, serde_json::Value> {
    stored(store, &mut db.connect())
        .into_iter()
        .map(|(flid, flight)| {
            let mut json = serde_json::to_value(&flight).expect("a flight as JSON");
            if let Some(fields) = json.as_object_mut() {
                fields.remove("STATE_VERSION");
                fields.remove("UPDATED_AT");
            }
            (flid, json)
        })
        .collect()
}

/// Each FLID's versions in topic order.
fn versions_by_flid(records: &[Record]) -> HashMap<i64, Vec<i64>> {
    let mut by_flid: HashMap<i64, Vec<i64>> = HashMap::new();
    for record in records {
        let json = record.json();
        let flid = json["FLID"].as_i64().expect("FLID");
        let version = json["STATE_VERSION"].as_i64().expect("STATE_VERSION");
        by_flid.entry(flid).or_default().push(version);
    }
    by_flid
}

#[track_caller]
fn assert_no_version_goes_down(records: &[Record]) {
    for (flid, versions) in versions_by_flid(records) {
        assert!(
            versions.windows(2).all(|pair| pair[1] >= pair[0]),
            "FLID {flid}: a version went down on the topic: {versions:?}"
        );
    }
}

fn catch_up_settings(topics: &(String, String)) -> CatchUpSettings {
    CatchUpSettings {
        pump: site_pump("catch-up"),
        rules: site_settings(),
        resync: ResyncSettings {
            topic_stall: Duration::from_secs(30),
            ..ResyncSettings::new(topics.clone(), Duration::from_secs(15))
        },
    }
}

/// What a run leaves: each flight's contents, and `PROC_STATE`.
type EndState = (
    BTreeMap<i64, serde_json::Value>,
    Vec<(i64, String, Option<String>, i64)>,
);

/// A clean run of `messages` through a pump: the end state to reach.
fn clean_run(messages: &[Vec<u8>]) -> EndState {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("tail_clean");
    for message in messages {
        mb.insert(message);
    }
    let store = pg_store(db.url());
    let mut pump = Pump::new(
        store.clone(),
        mailbox(mb.url()),
        site_settings(),
        site_pump("clean"),
    );
    drain(&mut pump);
    pump.release();
    (contents(&store, &db), proc_states(&mut db.connect()))
}

#[test]
fn a_restore_taken_mid_stream_is_caught_up_to_a_clean_run() {
    let messages = day_messages(30);
    let half = messages.len() / 2;
    let (clean_contents, clean_proc) = clean_run(&messages);

    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("tail_restore");
    let mailbox: Arc<Mailbox> = mailbox(mb.url());
    let store = PgStore::from_pool(db.pool());
    let (mut dispatcher, topics) = tansu_dispatcher(store.clone(), "lost-tail-restore");
    let mut pump = Pump::new(
        store.clone(),
        Arc::clone(&mailbox),
        site_settings(),
        site_pump("site"),
    );
    for message in &messages[..half] {
        mb.insert(message);
    }
    drain(&mut pump);
    dispatching::drain(&mut dispatcher);
    // Let go, so that the restored lease is free at once (a held one runs
    // out by itself after `lease_ttl`).
    pump.release();
    let backup = dump(&db);
    for message in &messages[half..] {
        mb.insert(message);
    }
    drain(&mut pump);
    dispatching::drain(&mut dispatcher);
    assert!(mb.all_written_back(messages.len()));
    drop((pump, dispatcher, store));
    restore(&db, &backup);

    // Named by every look, and the pump applies nothing above it.
    let store = PgStore::from_pool(db.pool());
    let lost = i64::try_from(messages.len() - half).expect("a count");
    let tail = detect(&store, &mailbox)
        .expect("look")
        .expect("a lost tail");
    assert_eq!(tail.written_back, lost);
    assert_eq!(tail.last - tail.first + 1, lost);
    let mut pump = Pump::new(
        store.clone(),
        Arc::clone(&mailbox),
        site_settings(),
        site_pump("after"),
    );
    let stop = AtomicBool::new(false);
    let summary = pump.run(&stop, true).expect("no failpoint armed");
    assert_eq!(summary.lost_tail, Some(tail));
    assert_eq!(summary.messages, 0);

    let report = catch_up(
        &store,
        &mailbox,
        &KafkaClient::new(tansu()),
        &catch_up_settings(&topics),
        summary.lost_tail,
        &stop,
    )
    .expect("caught up");
    let lost = usize::try_from(lost).expect("a count");
    assert_eq!(report.tail, Some(tail));
    assert_eq!((report.rows, report.applied), (lost, lost));
    assert_eq!(report.write_backs_found, lost, "settled without a call");
    let resync = report.resync.expect("the topics put back in step");
    assert!(resync.flights_raised > 0, "{resync:?}");
    assert_eq!(detect(&store, &mailbox).expect("look"), None);

    // The site goes on: nothing left to pump, the outbox sent.
    drain(&mut pump);
    pump.release();
    let mut dispatcher =
        Dispatcher::new(store.clone(), kafka(&tansu()), settings(&topics)).expect("dispatcher");
    dispatching::drain(&mut dispatcher);

    assert_eq!(contents(&store, &db), clean_contents);
    assert_eq!(proc_states(&mut db.connect()), clean_proc);
    mb.assert_each_written_back_once();
    let records = read_all(&tansu(), &topics.0);
    assert_no_version_goes_down(&records);
    assert_eq!(
        rebuild(&records),
        stored(&store, &mut db.connect()),
        "the consumer holds what the database holds"
    );
}

/// `flightstate SUBCOMMAND…` on the test's servers and topics.
fn flightstate(
    args: &[&str],
    db: &TestDatabase,
    mb: &MailboxDatabase,
    topics: &(String, String),
) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_flightstate"))
        .args(["--config", "/nonexistent/flightstate.toml"])
        .args(args)
        .env("FLIGHTSTATE_DATABASE_URL", db.url())
        .env("FLIGHTSTATE_MAILBOX_URL", mb.url())
        .env("FLIGHTSTATE_KAFKA_BROKERS", tansu())
        .env("FLIGHTSTATE_KAFKA_STATE_TOPIC", &topics.0)
        .env("FLIGHTSTATE_KAFKA_CHANGE_TOPIC", &topics.1)
        .env("FLIGHTSTATE_PUMP_LEASE_SECS", "5")
        .env("FLIGHTSTATE_STATION_TIME_ZONE", "Asia/Shanghai")
        .env("RUST_LOG", "info")
        .env_remove("FLIGHTSTATE_FAILPOINTS")
        .output()
        .expect("run flightstate")
}

#[test]
fn the_pump_of_flightstate_catches_a_restored_database_up_by_itself() {
    let messages = day_messages(20);
    let half = messages.len() / 2;
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("tail_cli");
    let store = PgStore::from_pool(db.pool());
    let (mut dispatcher, topics) = tansu_dispatcher(store.clone(), "lost-tail-cli");
    let rules = flightstate::pipeline::Rules::default();
    let mut pump = Pump::new(
        store.clone(),
        mailbox(mb.url()),
        rules.clone(),
        site_pump("site"),
    );
    for message in &messages[..half] {
        mb.insert(message);
    }
    drain(&mut pump);
    dispatching::drain(&mut dispatcher);
    pump.release();
    let backup = dump(&db);
    let ids: Vec<i64> = messages[half..].iter().map(|m| mb.insert(m)).collect();
    drain(&mut pump);
    dispatching::drain(&mut dispatcher);
    pump.release();
    drop((pump, dispatcher, store));
    restore(&db, &backup);
    let named = format!(
        "the state database is behind the mailbox by {} messages (ids {}–{})",
        ids.len(),
        ids[0],
        ids[ids.len() - 1]
    );

    let look = flightstate(&["catch-up", "--dry-run"], &db, &mb, &topics);
    assert!(look.status.success());
    assert_eq!(String::from_utf8_lossy(&look.stdout), format!("{named}\n"));
    let status = flightstate(&["status"], &db, &mb, &topics);
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(text.contains(&format!("LOST TAIL: {named}")), "{text}");

    let pumped = flightstate(&["pump", "--until-idle"], &db, &mb, &topics);
    let log = String::from_utf8_lossy(&pumped.stderr);
    assert!(pumped.status.success(), "{log}");
    assert!(log.contains(&named), "{log}");
    assert!(log.contains("lost tail caught up; pumping again"), "{log}");

    let store = PgStore::from_pool(db.pool());
    let mailbox = mailbox(mb.url());
    assert_eq!(detect(&store, &mailbox).expect("look"), None);
    let applied: Vec<i64> = proc_states(&mut db.connect())
        .into_iter()
        .filter(|(_, status, _, _)| status == "SUCCEEDED")
        .map(|(id, _, _, _)| id)
        .collect();
    assert_eq!(applied.len(), messages.len(), "every message applied once");
    mb.assert_each_written_back_once();
    let mut dispatcher =
        Dispatcher::new(store.clone(), kafka(&tansu()), settings(&topics)).expect("dispatcher");
    dispatching::drain(&mut dispatcher);
    let records = read_all(&tansu(), &topics.0);
    assert_no_version_goes_down(&records);
    assert_eq!(rebuild(&records), stored(&store, &mut db.connect()));
    let after = flightstate(&["status"], &db, &mb, &topics);
    assert!(!String::from_utf8_lossy(&after.stdout).contains("LOST TAIL"));
}
