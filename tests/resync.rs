//! `flightstate resync` (docs/operations.md, "After a restore") against real
//! PostgreSQL and the tansu broker: a generated day applied and dispatched,
//! the state database dumped with state events still pending, more flight
//! events (changes, deletions, new flights) applied and dispatched, then
//! the dump restored. After the resync and a dispatch, a consumer keeping
//! the highest version per FLID holds exactly what the database holds
//! (every stored flight's state, tombstones for the rest), no FLID's version
//! ever went down on the topic, and the pipeline goes on above it. A dry run
//! prints the counts and changes nothing; a resync refuses to start while a
//! pump holds the lease, and a dispatcher alone waits while a resync holds
//! it.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/dispatching/mod.rs"]
mod dispatching;

use std::collections::HashMap;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;
use common::TestDatabase;
use common::backup::{dump, restore};
use common::child::Running;
use common::sis::{at, day_messages, flop, site_settings};
use diesel::RunQueryDsl;
use diesel::sql_types::BigInt;
use dispatching::{
    Record, drain, kafka, pending, read_all, rebuild, settings, stored, tansu, tansu_dispatcher,
};
use flightstate::dispatch::{Dispatcher, Gate};
use flightstate::kafka::KafkaClient;
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::resync::{
    NotDuringResync, RESYNC_HOLDER_PREFIX, ResyncError, ResyncSettings, resync,
};
use flightstate::store::pg::PgStore;
use flightstate::store::{LeaseOps, Store};

const BIN: &str = env!("CARGO_BIN_EXE_flightstate");

/// FLIDs created by flight events after the backup: on the topic, not in
/// the restored database.
const CREATED_AFTER_BACKUP: [i64; 3] = [900_001, 900_002, 900_003];

fn now() -> NaiveDateTime {
    at(9, 12, 0)
}

/// A state database restored from a backup taken while the pipeline ran,
/// and the topics its dispatcher sent to before and after the backup.
struct Restored {
    db: TestDatabase,
    topics: (String, String),
    /// FLIDs stored at the backup and deleted after it.
    deleted_after_backup: Vec<i64>,
    /// The flight deleted just before the backup, its tombstone still
    /// pending in the dump.
    deleted_before_backup: i64,
    /// The next message id no message has had.
    next_message_id: i64,
}

impl Restored {
    fn store(&self) -> PgStore {
        PgStore::from_pool(self.db.pool())
    }

    fn dispatcher(&self) -> Dispatcher<PgStore> {
        Dispatcher::new(self.store(), kafka(&tansu()), settings(&self.topics)).expect("dispatcher")
    }

    fn state_topic(&self) -> &str {
        &self.topics.0
    }
}

#[track_caller]
fn apply(store: &PgStore, rules: &Rules, message_id: i64, body: &[u8]) {
    match apply_message(store, rules, message_id, body, now()).expect("applied") {
        Applied::Snapshot(_) | Applied::Flights(_) => {}
        other => panic!("message {message_id} not applied: {other:?}"),
    }
}

/// Applies `bodies` with ids from `*next` on.
#[track_caller]
fn apply_all(store: &PgStore, rules: &Rules, next: &mut i64, bodies: &[Vec<u8>]) {
    for body in bodies {
        apply(store, rules, *next, body);
        *next += 1;
    }
}

/// The stored FLIDs, ascending.
fn stored_flids(store: &PgStore, db: &TestDatabase) -> Vec<i64> {
    stored(store, &mut db.connect()).keys().copied().collect()
}

/// A generated day of `flights` flights: its first half applied and
/// dispatched; the next quarter and a deletion applied; the database dumped
/// (those state events pending) and then dispatched; the last quarter, three
/// deletions and three new flights applied and dispatched; the dump
/// restored.
fn restored_after_a_day(flights: usize, test: &str) -> Restored {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let (mut dispatcher, topics) = tansu_dispatcher(store.clone(), test);
    let day = Rules::default();
    let site = site_settings();
    let messages = day_messages(flights);
    let (half, three_quarters) = (messages.len() / 2, 3 * messages.len() / 4);
    let mut next = 1;
    apply_all(&store, &day, &mut next, &messages[..half]);
    drain(&mut dispatcher);

    apply_all(&store, &day, &mut next, &messages[half..three_quarters]);
    let deleted_before_backup = stored_flids(&store, &db)[0];
    apply_all(
        &store,
        &site,
        &mut next,
        &[flop("FDEL", &[(deleted_before_backup, "<FDEL/>")])],
    );
    let backup = dump(&db);
    drain(&mut dispatcher);

    apply_all(&store, &day, &mut next, &messages[three_quarters..]);
    let deleted_after_backup: Vec<i64> = stored_flids(&store, &db)[..3].to_vec();
    let deletions: Vec<(i64, &str)> = deleted_after_backup
        .iter()
        .map(|flid| (*flid, "<FDEL/>"))
        .collect();
    let creations: Vec<(i64, &str)> = CREATED_AFTER_BACKUP
        .iter()
        .map(|flid| (*flid, "<RENO>B7777</RENO>"))
        .collect();
    apply_all(
        &store,
        &site,
        &mut next,
        &[flop("FDEL", &deletions), flop("RENO", &creations)],
    );
    // A second change of a new flight, so that the topic holds it above 1.
    apply_all(
        &store,
        &site,
        &mut next,
        &[flop(
            "RENO",
            &[(CREATED_AFTER_BACKUP[0], "<RENO>B7778</RENO>")],
        )],
    );
    drain(&mut dispatcher);
    drop(dispatcher);
    drop(store);

    restore(&db, &backup);
    Restored {
        db,
        topics,
        deleted_after_backup,
        deleted_before_backup,
        next_message_id: next,
    }
}

/// Each FLID's versions in topic order.
fn versions_by_flid(records: &[Record]) -> HashMap<i64, Vec<(i64, bool)>> {
    let mut by_flid: HashMap<i64, Vec<(i64, bool)>> = HashMap::new();
    for record in records {
        let json = record.json();
        let flid = json["FLID"].as_i64().expect("FLID");
        let version = json["STATE_VERSION"].as_i64().expect("STATE_VERSION");
        by_flid
            .entry(flid)
            .or_default()
            .push((version, json.get("DELETED").is_some()));
    }
    by_flid
}

/// What consumers hold of each FLID: its highest version, and whether that
/// record is a tombstone.
fn topic_tops(records: &[Record]) -> HashMap<i64, (i64, bool)> {
    versions_by_flid(records)
        .into_iter()
        .map(|(flid, versions)| {
            let top = versions
                .iter()
                .copied()
                .max_by_key(|(v, _)| *v)
                .expect("a record");
            (flid, top)
        })
        .collect()
}

/// Of the FLIDs on the topic that `stored` says the database lacks: how
/// many get a version floor (all) and a tombstone (those live).
fn only_on_the_topic(
    tops: &HashMap<i64, (i64, bool)>,
    stored: impl Fn(i64) -> bool,
) -> (usize, usize) {
    let missing: Vec<bool> = tops
        .iter()
        .filter(|(flid, _)| !stored(**flid))
        .map(|(_, (_, deleted))| *deleted)
        .collect();
    (missing.len(), missing.iter().filter(|d| !**d).count())
}

#[track_caller]
fn assert_no_version_goes_down(records: &[Record]) {
    for (flid, versions) in versions_by_flid(records) {
        for pair in versions.windows(2) {
            assert!(
                pair[1].0 >= pair[0].0,
                "FLID {flid}: version {} after {} on the topic: {versions:?}",
                pair[1].0,
                pair[0].0
            );
        }
    }
}

#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn pending_state_events(db: &TestDatabase) -> i64 {
    diesel::sql_query("SELECT count(*) AS n FROM kafka_schd WHERE sent_at IS NULL")
        .get_result::<Count>(&mut db.connect())
        .expect("count pending")
        .n
}

fn floor_of(db: &TestDatabase, flid: i64) -> Option<i64> {
    diesel::sql_query("SELECT state_version AS n FROM flight_version_floor WHERE flid = $1")
        .bind::<BigInt, _>(flid)
        .get_result::<Count>(&mut db.connect())
        .ok()
        .map(|c| c.n)
}

/// The resync's settings for the scenario: small batches, so that every
/// step takes several.
fn resync_settings(restored: &Restored) -> ResyncSettings {
    ResyncSettings {
        batch: 7,
        topic_stall: Duration::from_secs(30),
        ..ResyncSettings::new(restored.topics.clone(), Duration::from_secs(15))
    }
}

/// Every table's rows, the sequences and the lease: equal dumps mean
/// nothing changed.
fn data_dump(db: &TestDatabase) -> String {
    let out = Command::new("pg_dump")
        .args(["--data-only", "--no-owner"])
        .arg(db.url())
        .output()
        .expect("run pg_dump");
    assert!(out.status.success(), "pg_dump failed");
    // `\restrict` and `\unrestrict` carry a key drawn for each dump.
    String::from_utf8(out.stdout)
        .expect("utf-8 dump")
        .lines()
        .filter(|line| !line.starts_with("\\restrict") && !line.starts_with("\\unrestrict"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The lines of `after` that `before` lacks and the other way round.
fn changed_lines(before: &str, after: &str) -> Vec<String> {
    let old: std::collections::HashSet<&str> = before.lines().collect();
    let new: std::collections::HashSet<&str> = after.lines().collect();
    old.symmetric_difference(&new)
        .map(|line| (*line).to_owned())
        .collect()
}

#[test]
fn after_a_restore_the_consumer_holds_the_database_and_no_version_goes_down() {
    let restored = restored_after_a_day(40, "resync");
    let store = restored.store();
    let before = read_all(&tansu(), restored.state_topic());
    let tops = topic_tops(&before);
    let database = stored(&store, &mut restored.db.connect());
    // The problem: the restored versions are below what consumers hold.
    let behind = database
        .iter()
        .filter(|(flid, f)| tops.get(flid).is_some_and(|(v, _)| *v >= f.state_version))
        .count();
    assert!(behind > 10, "only {behind} flights behind the topic");
    for flid in &restored.deleted_after_backup {
        assert!(
            database.contains_key(flid),
            "{flid} is back with the restore"
        );
        assert!(tops[flid].1, "{flid} is a tombstone on the topic");
    }
    for flid in CREATED_AFTER_BACKUP {
        assert!(!database.contains_key(&flid));
        assert!(!tops[&flid].1, "{flid} is live on the topic");
    }
    assert!(!database.contains_key(&restored.deleted_before_backup));
    let pending = pending_state_events(&restored.db);
    assert!(pending > 0, "the dump holds pending state events");

    let report = resync(
        &store,
        &KafkaClient::new(tansu()),
        &resync_settings(&restored),
        false,
    )
    .expect("resync");
    assert_eq!(report.stored_flights, database.len());
    assert_eq!(report.states_republished, database.len());
    assert_eq!(report.flights_raised, behind);
    let (floors, tombstones) = only_on_the_topic(&tops, |flid| database.contains_key(&flid));
    // At least the new flights and the flight deleted before the backup
    // (its tombstone is on the topic).
    assert!(tombstones >= CREATED_AFTER_BACKUP.len());
    assert!(floors > tombstones);
    assert_eq!(report.tombstones, tombstones);
    assert_eq!(report.version_floors, floors);
    assert_eq!(
        report.stale_state_events,
        usize::try_from(pending).expect("count")
    );
    assert_eq!(report.topic_flights, tops.len());
    assert_eq!(report.topic_unreadable, 0);

    // Raised above the topic, every one; the lease let go.
    let raised = stored(&store, &mut restored.db.connect());
    for (flid, flight) in &raised {
        if let Some((top, _)) = tops.get(flid) {
            assert!(flight.state_version > *top, "{flid} not above the topic");
        }
    }
    for flid in CREATED_AFTER_BACKUP {
        assert_eq!(floor_of(&restored.db, flid), Some(tops[&flid].0 + 1));
    }
    let lease = store
        .transaction(|tx| flightstate::store::ReadOps::pipeline_lease(tx))
        .expect("lease");
    assert!(
        lease
            .expires_at
            .is_some_and(|e| e <= flightstate::station::utc_now())
    );

    let mut dispatcher = restored.dispatcher();
    let sent = drain(&mut dispatcher);
    assert_eq!(sent.state.failed, 0);
    let after = read_all(&tansu(), restored.state_topic());
    assert_no_version_goes_down(&after);
    let rebuilt = rebuild(&after);
    assert_eq!(
        rebuilt, raised,
        "the consumer holds what the database holds"
    );
    let tops = topic_tops(&after);
    for flid in CREATED_AFTER_BACKUP {
        assert!(tops[&flid].1, "{flid} has its tombstone");
    }

    // The pipeline goes on above the topic: a change of a raised flight,
    // and a new flight under a FLID that has a tombstone.
    let site = site_settings();
    let changed = *raised.keys().last().expect("a flight");
    let mut next = restored.next_message_id + 100;
    apply_all(
        &store,
        &site,
        &mut next,
        &[
            flop("RENO", &[(changed, "<RENO>B4242</RENO>")]),
            flop("RENO", &[(CREATED_AFTER_BACKUP[0], "<RENO>B4243</RENO>")]),
        ],
    );
    drain(&mut dispatcher);
    let last = read_all(&tansu(), restored.state_topic());
    assert_no_version_goes_down(&last);
    let database = stored(&store, &mut restored.db.connect());
    assert_eq!(
        database[&changed].state_version,
        raised[&changed].state_version + 1
    );
    assert_eq!(
        database[&CREATED_AFTER_BACKUP[0]].state_version,
        tops[&CREATED_AFTER_BACKUP[0]].0 + 1
    );
    assert_eq!(rebuild(&last), database);

    // Numbered above what consumers have seen: every state message since
    // the resync carries a new event id, and no event id of the change
    // topic names two different notices.
    let seen = highest_event_id(&before);
    for record in &last[before.len()..] {
        assert!(event_id(record) > seen, "{record:?} reuses an event id");
    }
    let notices = read_all(&tansu(), &restored.topics.1);
    let mut by_id: HashMap<i64, &str> = HashMap::new();
    for notice in &notices {
        let earlier = by_id.insert(event_id(notice), &notice.value);
        assert!(
            earlier.is_none_or(|value| value == notice.value),
            "event id {} names two notices",
            event_id(notice)
        );
    }
}

fn event_id(record: &Record) -> i64 {
    record
        .event_id
        .as_deref()
        .and_then(|id| id.parse().ok())
        .expect("an event-id header")
}

fn highest_event_id(records: &[Record]) -> i64 {
    records.iter().map(event_id).max().unwrap_or_default()
}

fn resync_command(restored: &Restored, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(["--config", "/nonexistent/flightstate.toml", "resync"])
        .args(args)
        .env("FLIGHTSTATE_DATABASE_URL", restored.db.url())
        .env("FLIGHTSTATE_KAFKA_BROKERS", tansu())
        .env("FLIGHTSTATE_KAFKA_STATE_TOPIC", restored.state_topic())
        .env("FLIGHTSTATE_KAFKA_CHANGE_TOPIC", &restored.topics.1)
        .env("FLIGHTSTATE_STATION_TIME_ZONE", "Asia/Shanghai")
        .env("RUST_LOG", "warn")
        .output()
        .expect("run flightstate resync")
}

/// The counts of a report's lines, by the words after the count.
fn counts(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| {
            line.replacen("would raise", "raised", 1)
                .replacen("would queue", "queued", 1)
                .replacen("would record", "recorded", 1)
                .replacen("would settle", "settled", 1)
                .replacen("would number", "numbered", 1)
        })
        .filter(|line| !line.starts_with("dry run"))
        .collect()
}

#[test]
fn a_dry_run_prints_the_counts_and_changes_nothing_and_the_resync_does_what_it_said() {
    let restored = restored_after_a_day(16, "resync-dry");
    let before = data_dump(&restored.db);
    let records = read_all(&tansu(), restored.state_topic());
    let store = restored.store();
    let database = stored(&store, &mut restored.db.connect());
    let (floors, tombstones) =
        only_on_the_topic(&topic_tops(&records), |flid| database.contains_key(&flid));

    let dry = resync_command(&restored, &["--dry-run"]);
    let stdout = String::from_utf8_lossy(&dry.stdout).into_owned();
    assert!(
        dry.status.success(),
        "{}",
        String::from_utf8_lossy(&dry.stderr)
    );
    assert!(stdout.starts_with("dry run, nothing changed\n"), "{stdout}");
    for expected in [
        format!("would queue {tombstones} tombstones of flights the database does not hold"),
        format!("would record {floors} version floors"),
        format!("would queue {} states to republish", database.len()),
    ] {
        assert!(stdout.contains(&expected), "{expected}: {stdout}");
    }
    assert!(stdout.contains("would raise "), "{stdout}");
    assert!(!stdout.contains("would raise 0 "), "{stdout}");
    assert!(!stdout.contains("would settle 0 "), "{stdout}");
    let changed = changed_lines(&before, &data_dump(&restored.db));
    assert!(changed.is_empty(), "the dry run changed {changed:?}");
    assert_eq!(read_all(&tansu(), restored.state_topic()), records);

    let done = resync_command(&restored, &[]);
    let report = String::from_utf8_lossy(&done.stdout).into_owned();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert_eq!(counts(&report), counts(&stdout), "{report}");
    assert_ne!(data_dump(&restored.db), before);
}

#[test]
fn a_resync_refuses_to_start_while_a_pump_holds_the_lease() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let now = flightstate::station::utc_now();
    let until = now + chrono::Duration::seconds(60);
    let epoch = store
        .transaction(|tx| tx.acquire_lease("host:1:pump", now, until))
        .expect("lease");
    assert!(epoch.is_some());
    let before = data_dump(&db);
    let settings = ResyncSettings {
        topic_stall: Duration::from_secs(5),
        ..ResyncSettings::new(
            ("fs-resync-refused.state", "fs-resync-refused.change"),
            Duration::from_secs(15),
        )
    };
    // No broker is asked: the lease comes first.
    let refused =
        resync(&store, &KafkaClient::new("127.0.0.1:1"), &settings, false).expect_err("refused");
    assert!(
        matches!(&refused, ResyncError::PipelineBusy { holder, .. } if holder == "host:1:pump"),
        "{refused:?}"
    );
    let message = refused.to_string();
    assert!(
        message.contains("stop every `flightstate run`"),
        "{message}"
    );
    let changed = changed_lines(&before, &data_dump(&db));
    assert!(changed.is_empty(), "the refused resync changed {changed:?}");
}

/// `flightstate dispatch` started while a resync holds the lease, with
/// state events pending: it says it waits and sends nothing; once the
/// resync lets the lease go it says so and sends them all. A pump's lease
/// leaves it free to send, as before.
#[test]
fn a_dispatcher_alone_waits_while_a_resync_holds_the_lease() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let mut next = 1;
    apply_all(&store, &Rules::default(), &mut next, &day_messages(4)[..1]);
    let pending_events = pending(&mut db.connect(), "kafka_schd");
    assert!(pending_events > 0, "the day's state events wait");
    let gate = NotDuringResync::new(store.clone());
    assert!(gate.is_open(), "no lease held");
    let now = flightstate::station::utc_now();
    let until = now + chrono::Duration::seconds(60);
    let holder = format!("{RESYNC_HOLDER_PREFIX}host:2");
    let epoch = store
        .transaction(|tx| tx.acquire_lease(&holder, now, until))
        .expect("lease")
        .expect("taken");
    assert!(!gate.is_open(), "a resync holds the lease");

    let topics = dispatching::topics("resync-gate");
    let mut command = Command::new(BIN);
    command
        .args(["--config", "/nonexistent/flightstate.toml", "dispatch"])
        .env("FLIGHTSTATE_DATABASE_URL", db.url())
        .env("FLIGHTSTATE_KAFKA_BROKERS", tansu())
        .env("FLIGHTSTATE_KAFKA_STATE_TOPIC", &topics.0)
        .env("FLIGHTSTATE_KAFKA_CHANGE_TOPIC", &topics.1)
        .env("FLIGHTSTATE_KAFKA_IDLE_POLL_MS", "50")
        .env("FLIGHTSTATE_LOG_FORMAT", "json")
        .env("RUST_LOG", "info")
        .env_remove("FLIGHTSTATE_FAILPOINTS")
        .stdout(std::process::Stdio::null());
    let started = Instant::now();
    let dispatch = Running::start(command, "flightstate dispatch");
    // The gate is asked before every pass, the first one included.
    assert!(
        common::eventually(Duration::from_secs(30), || dispatch
            .first_saying(started, "the dispatcher waits")
            .is_some()),
        "the dispatcher did not say it waits for the resync:\n{}",
        dispatch.text()
    );
    let said = dispatch
        .first_saying(started, "the dispatcher waits")
        .expect("said");
    assert!(
        said.1["fields"]["why"]
            .as_str()
            .is_some_and(|why| why.contains("resync")),
        "{}",
        said.1
    );
    assert_eq!(
        pending(&mut db.connect(), "kafka_schd"),
        pending_events,
        "nothing was sent while the resync held the lease:\n{}",
        dispatch.text()
    );
    assert!(
        read_all(&tansu(), &topics.0).is_empty(),
        "nothing reached the state topic"
    );

    let released = Instant::now();
    store
        .transaction(|tx| tx.release_lease(&holder, epoch, flightstate::station::utc_now()))
        .expect("release");
    assert!(gate.is_open(), "the lease was let go");
    assert!(
        common::eventually(Duration::from_secs(30), || pending(
            &mut db.connect(),
            "kafka_schd"
        ) == 0),
        "the dispatcher did not send once the lease was let go:\n{}",
        dispatch.text()
    );
    assert!(
        dispatch
            .first_saying(released, "the dispatcher dispatches now")
            .is_some(),
        "{}",
        dispatch.text()
    );
    assert_eq!(
        read_all(&tansu(), &topics.0).len(),
        usize::try_from(pending_events).expect("a count"),
        "every state event reached the topic"
    );
    dispatch.stop(Duration::from_secs(30));

    // A pump's lease leaves a dispatcher alone free to send, as before.
    let now = flightstate::station::utc_now();
    store
        .transaction(|tx| tx.acquire_lease("host:3:pump", now, until))
        .expect("lease")
        .expect("taken");
    assert!(gate.is_open(), "a pump holds the lease");
}

/// No Oracle server or client library exists here: resync gets as far as
/// the Oracle driver (and reports its failure), and never echoes the
/// password.
#[cfg(feature = "oracle")]
#[test]
fn resync_takes_an_oracle_url_to_the_oracle_driver() {
    let out = Command::new(BIN)
        .args([
            "--config",
            "/nonexistent/flightstate.toml",
            "resync",
            "--dry-run",
        ])
        .env(
            "FLIGHTSTATE_DATABASE_URL",
            "oracle://flightstate:s3cret@127.0.0.1:1/XEPDB1",
        )
        .env("RUST_LOG", "warn")
        .output()
        .expect("run flightstate resync");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.to_lowercase().contains("oracle"), "{stderr}");
    assert!(!stderr.contains("s3cret"), "{stderr}");
}
