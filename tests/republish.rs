//! `flightstate republish` (docs/kafka.md, "Sending flights again on
//! request") as an operator runs it (the binary of this test run) against
//! real PostgreSQL, MariaDB and the tansu broker: a generated day applied
//! and dispatched, then flights queued again by day, by FLID and by airline.
//! The dispatcher sends each again at the version and with the document the
//! state topic already carries for it; a deleted flight named gets its
//! tombstone at its version floor, an unknown FLID nothing; a dry run
//! changes nothing. It runs beside a `flightstate run` that keeps its lease
//! and goes on pumping, and is refused while a resync holds the lease.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/dispatching/mod.rs"]
mod dispatching;
#[path = "helpers/pumping/mod.rs"]
mod pumping;
#[path = "helpers/running/mod.rs"]
mod running;

use std::collections::{BTreeMap, BTreeSet};
use std::process::{Command, Output};
use std::time::Duration;

use common::TestDatabase;
use common::child::{BIN, on_a_terminal_draws_a_full_bar};
use common::sis::{day_messages, dump_database, flop};
use diesel::sql_types::{BigInt, Date, Text};
use diesel::{QueryableByName, RunQueryDsl};
use dispatching::{Record, apply, drain, pending, read_all, tansu, tansu_dispatcher};
use flightstate::dispatch::Dispatcher;
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::republish::{RepublishError, Selection, republish};
use flightstate::resync::RESYNC_HOLDER_PREFIX;
use flightstate::store::pg::PgStore;
use flightstate::store::{LeaseOps, Store};
use pumping::MailboxDatabase;
use running::{RunChild, RunSetup, assert_topic_matches_state, finished, lease};

/// The operation day of the generated days (`synth::DayOptions`' default).
const DAY: &str = "2025-06-01";

/// A FLID no generated day has.
const UNKNOWN_FLID: i64 = 999_999_999;

fn operation_day() -> chrono::NaiveDate {
    DAY.parse().expect("a day")
}

/// A generated day of `flights` flights applied and dispatched: the outbox
/// empty, the state topic holding every flight's last state.
struct Dispatched {
    db: TestDatabase,
    store: PgStore,
    dispatcher: Dispatcher<PgStore>,
    state_topic: String,
}

#[track_caller]
fn a_day_applied_and_dispatched(flights: usize, test: &str) -> Dispatched {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let (mut dispatcher, topics) = tansu_dispatcher(store.clone(), test);
    let now = common::sis::at(9, 12, 0);
    for (i, body) in day_messages(flights).iter().enumerate() {
        let id = i64::try_from(i).expect("small") + 1;
        let applied = apply_message(&store, &Rules::default(), id, body, now).expect("applied");
        assert!(
            matches!(applied, Applied::Snapshot(_) | Applied::Flights(_)),
            "{applied:?}"
        );
    }
    let sent = drain(&mut dispatcher);
    assert_eq!(sent.state.failed + sent.change.failed, 0, "{sent:?}");
    assert_eq!(pending(&mut db.connect(), "kafka_schd"), 0);
    Dispatched {
        db,
        store,
        dispatcher,
        state_topic: topics.0,
    }
}

fn republish_command(db: &TestDatabase, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(["--config", "/nonexistent/flightstate.toml", "republish"])
        .args(args)
        .env("FLIGHTSTATE_DATABASE_URL", db.url())
        .env("FLIGHTSTATE_STATION_TIME_ZONE", "Asia/Shanghai")
        .env("RUST_LOG", "warn")
        .env_remove("FLIGHTSTATE_FAILPOINTS")
        .output()
        .expect("run flightstate republish")
}

/// Stdout of `out`, which must have exited with `code`.
#[track_caller]
fn stdout(out: &Output, code: i32) -> String {
    common::operator::stdout_of(out, code)
}

#[derive(QueryableByName)]
struct Flid {
    #[diesel(sql_type = BigInt)]
    flid: i64,
}

#[derive(QueryableByName, Debug, PartialEq, Eq)]
struct OutboxRow {
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = BigInt)]
    state_version: i64,
    #[diesel(sql_type = Text)]
    event_kind: String,
}

/// The state outbox's rows, in event order.
fn outbox(db: &TestDatabase) -> Vec<OutboxRow> {
    diesel::sql_query(
        "SELECT flid, state_version, event_kind FROM kafka_schd WHERE sent_at IS NULL \
         ORDER BY event_id",
    )
    .load(&mut db.connect())
    .expect("read the state outbox")
}

/// The stored FLIDs of operation day `DAY`.
fn flids_of_the_day(db: &TestDatabase) -> BTreeSet<i64> {
    diesel::sql_query("SELECT flid FROM flight_schd WHERE operation_day = $1")
        .bind::<Date, _>(operation_day())
        .load::<Flid>(&mut db.connect())
        .expect("the day's flights")
        .into_iter()
        .map(|f| f.flid)
        .collect()
}

/// Each stored flight's current version.
fn versions(db: &TestDatabase) -> BTreeMap<i64, i64> {
    #[derive(QueryableByName)]
    struct Version {
        #[diesel(sql_type = BigInt)]
        flid: i64,
        #[diesel(sql_type = BigInt)]
        state_version: i64,
    }
    diesel::sql_query("SELECT flid, state_version FROM flight_schd")
        .load::<Version>(&mut db.connect())
        .expect("versions")
        .into_iter()
        .map(|v| (v.flid, v.state_version))
        .collect()
}

/// Each FLID's records on the state topic, in topic order.
fn by_flid(records: &[Record]) -> BTreeMap<i64, Vec<Record>> {
    let mut by_flid: BTreeMap<i64, Vec<Record>> = BTreeMap::new();
    for record in records {
        let flid = record.json()["FLID"].as_i64().expect("FLID");
        by_flid.entry(flid).or_default().push(record.clone());
    }
    by_flid
}

/// Asserts that the outbox holds exactly one STATE row per flight of
/// `flids`, each at the flight's current version, and nothing else.
#[track_caller]
fn assert_queued_states_of(db: &TestDatabase, flids: &BTreeSet<i64>) {
    let rows = outbox(db);
    let current = versions(db);
    let queued: Vec<i64> = rows.iter().map(|r| r.flid).collect();
    assert_eq!(
        queued.iter().copied().collect::<BTreeSet<_>>(),
        *flids,
        "the flights queued"
    );
    assert_eq!(queued.len(), flids.len(), "each flight once: {queued:?}");
    for row in &rows {
        assert_eq!(row.event_kind, "STATE", "{row:?}");
        assert_eq!(row.state_version, current[&row.flid], "{row:?}");
    }
}

#[test]
fn a_day_is_sent_again_at_the_versions_and_with_the_states_the_topic_holds() {
    let mut day = a_day_applied_and_dispatched(24, "republish-day");
    let before = read_all(&tansu(), &day.state_topic);
    let of_the_day = flids_of_the_day(&day.db);
    let all = versions(&day.db);
    assert!(of_the_day.len() >= 20, "{of_the_day:?}");
    assert!(
        all.len() > of_the_day.len(),
        "some flights have no operation day (ad-hoc ones): they stay out"
    );

    let out = republish_command(&day.db, &["--day", DAY, "--batch", "7"]);
    let printed = stdout(&out, 0);
    let n = of_the_day.len();
    assert_eq!(
        printed,
        format!(
            "queued {n} states (flights of operation day {DAY}, at their current versions)\n\
             queued 0 tombstones (deleted flights named, at their version floors)\n\
             0 unknown FLIDs\n"
        )
    );
    // Progress into a pipe: plain lines, the last one the whole.
    let stderr = String::from_utf8_lossy(&out.stderr);
    let progress: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("queued "))
        .collect();
    assert_eq!(
        progress.last().copied(),
        Some(format!("queued {n} of {n}").as_str()),
        "{stderr}"
    );
    assert_queued_states_of(&day.db, &of_the_day);
    assert_eq!(
        pending(&mut day.db.connect(), "kafka_msg"),
        0,
        "no change notice: a republish changes no flight"
    );
    assert_eq!(versions(&day.db), all, "no version moved");

    let sent = drain(&mut day.dispatcher);
    assert_eq!(sent.state.failed, 0, "{sent:?}");
    let after = read_all(&tansu(), &day.state_topic);
    let (old, new) = (by_flid(&before), by_flid(&after));
    assert_eq!(
        old.keys().collect::<Vec<_>>(),
        new.keys().collect::<Vec<_>>()
    );
    for (flid, records) in &new {
        let earlier = &old[flid];
        if !of_the_day.contains(flid) {
            assert_eq!(records, earlier, "FLID {flid} is not of the day");
            continue;
        }
        assert_eq!(records.len(), earlier.len() + 1, "FLID {flid}: once more");
        assert_eq!(&records[..earlier.len()], &earlier[..]);
        let (again, last) = (&records[earlier.len()], &earlier[earlier.len() - 1]);
        assert_eq!(again.kind.as_deref(), Some("STATE"), "FLID {flid}");
        assert_eq!(
            again.value, last.value,
            "FLID {flid}: the same state, at the same version"
        );
        assert_eq!(again.json()["STATE_VERSION"], all[flid]);
    }
}

#[test]
fn a_deleted_flight_named_gets_its_tombstone_at_its_floor_and_an_unknown_flid_nothing() {
    let mut day = a_day_applied_and_dispatched(12, "republish-flid");
    let held: Vec<i64> = versions(&day.db).keys().copied().collect();
    let (kept, deleted) = (held[0], held[1]);
    apply(&day.store, 10_000, &flop("FDEL", &[(deleted, "<FDEL/>")]));
    drain(&mut day.dispatcher);
    let before = by_flid(&read_all(&tansu(), &day.state_topic));
    let tombstone = before[&deleted].last().expect("a record").json();
    assert_eq!(tombstone["DELETED"], true, "{tombstone}");
    let floor = tombstone["STATE_VERSION"].as_i64().expect("a version");

    let (kept_arg, deleted_arg, unknown_arg) = (
        kept.to_string(),
        deleted.to_string(),
        UNKNOWN_FLID.to_string(),
    );
    let args = [
        "--flid",
        &unknown_arg,
        "--flid",
        &deleted_arg,
        "--flid",
        &kept_arg,
        "--flid",
        &kept_arg,
    ];
    // An unknown FLID is "found something wrong": exit 1, the others queued.
    let printed = stdout(&republish_command(&day.db, &args), 1);
    assert_eq!(
        printed,
        format!(
            "queued 1 states (flights named, at their current versions)\n\
             queued 1 tombstones (deleted flights named, at their version floors)\n\
             unknown FLID {UNKNOWN_FLID}: neither stored nor deleted, nothing queued\n\
             1 unknown FLIDs\n"
        )
    );
    assert_eq!(
        outbox(&day.db),
        vec![
            OutboxRow {
                flid: kept,
                state_version: versions(&day.db)[&kept],
                event_kind: "STATE".to_owned(),
            },
            OutboxRow {
                flid: deleted,
                state_version: floor,
                event_kind: "TOMBSTONE".to_owned(),
            },
        ]
    );

    drain(&mut day.dispatcher);
    let after = by_flid(&read_all(&tansu(), &day.state_topic));
    assert!(!after.contains_key(&UNKNOWN_FLID));
    let sent = &after[&deleted];
    assert_eq!(sent.len(), before[&deleted].len() + 1);
    let again = sent.last().expect("the tombstone again");
    assert_eq!(again.kind.as_deref(), Some("TOMBSTONE"));
    let json = again.json();
    assert_eq!(json["DELETED"], true);
    assert_eq!(json["STATE_VERSION"], floor, "at the floor, not above");
    assert_eq!(
        after[&kept].last().map(|r| &r.value),
        before[&kept].last().map(|r| &r.value)
    );
}

#[derive(QueryableByName)]
struct Airline {
    #[diesel(sql_type = Text)]
    alcd: String,
}

#[test]
fn an_airline_picks_exactly_its_flights() {
    let day = a_day_applied_and_dispatched(24, "republish-airline");
    let airlines: Vec<String> = diesel::sql_query(
        "SELECT alcd FROM flight_schd WHERE alcd IS NOT NULL GROUP BY alcd \
         ORDER BY count(*) DESC, alcd",
    )
    .load::<Airline>(&mut day.db.connect())
    .expect("airlines")
    .into_iter()
    .map(|a| a.alcd)
    .collect();
    assert!(airlines.len() >= 2, "{airlines:?}");
    let alcd = &airlines[0];
    let theirs: BTreeSet<i64> = diesel::sql_query("SELECT flid FROM flight_schd WHERE alcd = $1")
        .bind::<Text, _>(alcd)
        .load::<Flid>(&mut day.db.connect())
        .expect("the airline's flights")
        .into_iter()
        .map(|f| f.flid)
        .collect();
    assert!(theirs.len() >= 2 && theirs.len() < versions(&day.db).len());

    let printed = stdout(
        &republish_command(&day.db, &["--airline", alcd, "--batch", "2"]),
        0,
    );
    assert!(
        printed.starts_with(&format!(
            "queued {} states (flights of airline {alcd}, at their current versions)\n",
            theirs.len()
        )),
        "{printed}"
    );
    assert_queued_states_of(&day.db, &theirs);
}

#[test]
fn a_dry_run_counts_and_queues_nothing() {
    let day = a_day_applied_and_dispatched(12, "republish-dry");
    let mut conn = day.db.connect();
    let before = dump_database(&mut conn);
    let n = flids_of_the_day(&day.db).len();

    let out = republish_command(&day.db, &["--day", DAY, "--dry-run"]);
    let printed = stdout(&out, 0);
    assert!(
        printed.starts_with(&format!(
            "dry run, nothing changed\nwould queue {n} states (flights of operation day {DAY}"
        )),
        "{printed}"
    );
    assert!(out.stderr.is_empty(), "a dry run draws no progress");

    let deleted = *versions(&day.db).keys().next().expect("a flight");
    apply(&day.store, 10_000, &flop("FDEL", &[(deleted, "<FDEL/>")]));
    // The deletion's own rows are pending: the dump to compare is taken now.
    let before_named = dump_database(&mut conn);
    assert_ne!(before_named, before);
    let printed = stdout(
        &republish_command(&day.db, &["--flid", &deleted.to_string(), "--dry-run"]),
        0,
    );
    assert!(
        printed.contains("would queue 1 tombstones (deleted flights named"),
        "{printed}"
    );
    assert_eq!(dump_database(&mut conn), before_named, "nothing changed");
}

/// Takes the pump lease as a resync does, for a minute.
fn take_as_resync(store: &PgStore) -> (String, i64) {
    let now = flightstate::station::utc_now();
    let holder = format!("{RESYNC_HOLDER_PREFIX}host:9");
    let epoch = store
        .transaction(|tx| tx.acquire_lease(&holder, now, now + chrono::Duration::seconds(60)))
        .expect("lease")
        .expect("taken");
    (holder, epoch)
}

#[test]
fn refused_while_a_resync_holds_the_lease_even_when_it_takes_it_midway() {
    let day = a_day_applied_and_dispatched(12, "republish-resync");
    let mut conn = day.db.connect();
    let (holder, epoch) = take_as_resync(&day.store);
    let before = dump_database(&mut conn);
    for args in [&["--day", DAY][..], &["--day", DAY, "--dry-run"][..]] {
        let out = republish_command(&day.db, args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(out.stdout.is_empty());
        assert!(
            stderr.contains("republish refused: `flightstate resync` holds the pump lease")
                && stderr.contains(&holder),
            "{stderr}"
        );
    }
    assert_eq!(dump_database(&mut conn), before, "nothing changed");
    day.store
        .transaction(|tx| tx.release_lease(&holder, epoch, flightstate::station::utc_now()))
        .expect("release");

    // A resync that takes the lease between two batches: the next batch
    // sees it under PIPELINE_LOCK and queues nothing more.
    let mut batches = 0;
    let stopped = republish(
        &day.store,
        &Selection::Day(operation_day()),
        3,
        false,
        &mut |_| {
            batches += 1;
            if batches == 1 {
                take_as_resync(&day.store);
            }
        },
    )
    .expect_err("refused midway");
    assert!(
        matches!(&stopped, RepublishError::DuringResync { holder: h, .. } if *h == holder),
        "{stopped:?}"
    );
    assert_eq!(batches, 1);
    assert_eq!(outbox(&day.db).len(), 3, "the first batch alone");
}

/// Every batch takes `PIPELINE_LOCK` as the pump's transactions do: while
/// another state transaction holds it, the republish waits (the server
/// shows it waiting, nothing is queued), and once that transaction commits a
/// version, the republish queues the flight at the version committed.
#[test]
fn each_batch_waits_for_the_pipeline_lock_and_queues_the_version_committed_before_it() {
    use diesel::Connection;
    use diesel::connection::SimpleConnection;

    let day = a_day_applied_and_dispatched(12, "republish-lock");
    let flid = *flids_of_the_day(&day.db)
        .first()
        .expect("a flight of the day");
    let version = versions(&day.db)[&flid];
    let mut holder = day.db.connect();
    let child = holder
        .transaction::<_, diesel::result::Error, _>(|holder| {
            // A pump's transaction: the lock, then a version raised.
            holder.batch_execute("SELECT 1 FROM pipeline_lock WHERE lock_id = 1 FOR UPDATE")?;
            diesel::sql_query(
                "UPDATE flight_schd SET state_version = state_version + 1 WHERE flid = $1",
            )
            .bind::<BigInt, _>(flid)
            .execute(holder)?;
            let mut child = Command::new(BIN)
                .args(["--config", "/nonexistent/flightstate.toml", "republish"])
                .args(["--day", DAY])
                .env("FLIGHTSTATE_DATABASE_URL", day.db.url())
                .env("RUST_LOG", "warn")
                .env_remove("FLIGHTSTATE_FAILPOINTS")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("start flightstate republish");
            let mut watcher = day.db.connect();
            common::wait_until(
                Duration::from_secs(30),
                "the republish waits for PIPELINE_LOCK",
                || {
                    assert!(
                        child.try_wait().expect("poll the republish").is_none(),
                        "the republish ended while another transaction held PIPELINE_LOCK"
                    );
                    common::waits_for_a_lock(&mut watcher, day.db.name())
                },
            );
            assert!(outbox(&day.db).is_empty(), "nothing queued while it waits");
            Ok(child)
        })
        .expect("hold PIPELINE_LOCK, then commit");
    let out = child.wait_with_output().expect("the republish ends");
    stdout(&out, 0);
    let queued = outbox(&day.db);
    let row = queued.iter().find(|r| r.flid == flid).expect("queued");
    assert_eq!(row.state_version, version + 1, "the version committed");
    assert_queued_states_of(&day.db, &flids_of_the_day(&day.db));
}

/// `flightstate republish` beside a `flightstate run` that pumps a day:
/// the run keeps its lease (same holder, same epoch), the messages queued
/// just before and after the republish are applied, and the state topic
/// ends holding every flight's stored state, no version gone down.
#[test]
fn it_runs_beside_a_running_pipeline_which_keeps_its_lease_and_pumps() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("republish");
    let topics = dispatching::topics("republish-run");
    let brokers = tansu();
    let run = RunChild::start(&RunSetup {
        database_url: db.url().to_owned(),
        mailbox_url: mb.url(),
        brokers: brokers.clone(),
        topics: topics.clone(),
        holder: "republish-run".to_owned(),
        env: Vec::new(),
    });
    let messages = day_messages(16);
    let (first, second) = (messages.len() - 40, messages.len() - 20);
    for m in &messages[..first] {
        mb.insert(m);
    }
    common::wait_until(Duration::from_secs(60), "the first part pumped", || {
        finished(&db, &mb, first)
    });
    let held = lease(&db);
    assert_eq!(held.0.as_deref(), Some("republish-run"));

    for m in &messages[first..second] {
        mb.insert(m);
    }
    let out = republish_command(&db, &["--day", DAY, "--batch", "3"]);
    for m in &messages[second..] {
        mb.insert(m);
    }
    let printed = stdout(&out, 0);
    assert!(
        printed.starts_with("queued ") && !printed.starts_with("queued 0 "),
        "{printed}"
    );
    common::wait_until(Duration::from_secs(60), "every message pumped", || {
        finished(&db, &mb, messages.len())
    });
    assert_eq!(lease(&db), held, "the run kept its lease");
    run.stop();
    mb.assert_each_written_back_once();
    assert_topic_matches_state(&brokers, &topics.0, &db);
}

#[test]
fn on_a_terminal_it_draws_a_bar() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let now = common::sis::at(9, 12, 0);
    let snapshot = &day_messages(4)[0];
    apply_message(&store, &Rules::default(), 1, snapshot, now).expect("applied");
    let flids: Vec<String> = versions(&db).keys().map(ToString::to_string).collect();
    assert_eq!(flids.len(), 4);
    let shown = on_a_terminal_draws_a_full_bar(
        db.url(),
        &format!("republish --day {DAY} --batch 3"),
        "queued",
        4,
    );
    assert!(shown.contains("queued 4 states"), "{shown}");
}
