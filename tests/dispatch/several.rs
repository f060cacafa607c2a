//! Several dispatchers on one outbox, against real PostgreSQL and tansu:
//! a flight's rows are claimed by one dispatcher at a time until they are
//! sent, so on the state topic a flight's versions come in version order
//! whatever runs. (A compacted topic keeps a flight's last message, not its
//! highest: a lower version after a higher one would be the state that
//! stays.)

use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use diesel::r2d2::Pool;
use flightstate::dispatch::Dispatcher;
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::store::pg::PgStore;
use flightstate::store::{
    ChangeNotice, EventKind, Lane, OutboxOps, StateEvent, StateTx, Store, StoreError,
};

use crate::common::child::{BIN, Running};
use crate::common::sis::{at, parse_options};
use crate::common::{TestDatabase, eventually};
use crate::dispatching::{out_of_order, pending, read_all, tansu, topics};
use crate::pumping::MailboxDatabase;

/// A FLOP that gives flight `flid` registration `B{n}`: a new version.
fn flop(flid: i64, n: usize) -> Vec<u8> {
    format!(
        "<MSG><META><SNDR>AODB</SNDR><SEQN>{n}</SEQN><DTTM>20260909080000</DTTM>\
         <TYPE>FLOP</TYPE><STYP>RENO</STYP></META>\
         <FLOP><FLID>{flid}</FLID><RENO>B{n}</RENO></FLOP></MSG>"
    )
    .into_bytes()
}

fn append(store: &PgStore, flid: i64, state_version: i64) {
    store
        .transaction(|tx| {
            tx.append_state_events(
                &[StateEvent {
                    message_id: state_version,
                    flid,
                    state_version,
                    kind: EventKind::State,
                }],
                at(9, 8, 0),
            )?;
            tx.append_change_notices(
                &[ChangeNotice {
                    message_id: state_version,
                    flid: Some(flid),
                    change_kind: "UPDATED",
                    payload: "{}".to_owned(),
                }],
                at(9, 8, 0),
            )
        })
        .expect("outbox rows appended");
}

/// The situation that let a flight's versions overtake each other: one
/// dispatcher holds a flight's rows (its pass is producing), the pipeline
/// commits a newer row of the flight, and a second dispatcher claims. The
/// second claim must leave the flight alone, and take the other flights.
#[test]
fn a_flight_in_another_dispatchers_pass_is_left_out_of_a_claim() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    append(&store, 1, 1);
    append(&store, 2, 1);
    let now = at(9, 9, 0);
    let (first, second) = store
        .transaction(|a| {
            a.set_repeatable_read()?;
            // The oldest row only: flight 1.
            let first = (
                a.claim_state_events(now, 1, Lane::ALL)?,
                a.claim_change_notices(now, 1, Lane::ALL)?,
            );
            // While the first pass holds flight 1, newer rows are committed.
            append(&store, 1, 2);
            append(&store, 3, 1);
            let second = store.transaction(|b| {
                b.set_repeatable_read()?;
                Ok::<_, StoreError>((
                    b.claim_state_events(now, 100, Lane::ALL)?,
                    b.claim_change_notices(now, 100, Lane::ALL)?,
                ))
            })?;
            Ok::<_, StoreError>((first, second))
        })
        .expect("two claims at once");
    let flids = |rows: &[i64]| {
        let mut v = rows.to_vec();
        v.dedup();
        v
    };
    let first_state: Vec<i64> = first.0.iter().map(|r| r.flid).collect();
    assert_eq!(flids(&first_state), vec![1], "{first:?}");
    let second_state: Vec<i64> = second.0.iter().map(|r| r.flid).collect();
    assert_eq!(flids(&second_state), vec![2, 3], "{second:?}");
    let first_notices: Vec<Option<i64>> = first.1.iter().map(|r| r.flid).collect();
    assert_eq!(first_notices, vec![Some(1)], "{first:?}");
    let second_notices: Vec<Option<i64>> = second.1.iter().map(|r| r.flid).collect();
    assert_eq!(second_notices, vec![Some(2), Some(3)], "{second:?}");

    // Once the first pass is over, flight 1's newer rows are claimed.
    let third = store
        .transaction(|c| {
            Ok::<_, StoreError>((
                c.claim_state_events(now, 100, Lane::ALL)?,
                c.claim_change_notices(now, 100, Lane::ALL)?,
            ))
        })
        .expect("a later claim");
    assert!(third.0.iter().any(|r| r.flid == 1), "{third:?}");
    assert!(third.1.iter().any(|r| r.flid == Some(1)), "{third:?}");
}

/// Two dispatchers (as `flightstate dispatch` run twice, or two `run`
/// processes during a lease move) on one outbox while the pipeline writes
/// new versions of a few flights as fast as it can: on the state topic
/// each flight's versions never go down.
#[test]
fn two_dispatchers_publish_each_flights_versions_in_order() {
    let db = TestDatabase::migrated();
    // Two dispatchers of two lanes each, and the pipeline.
    let store = PgStore::from_pool(
        db.pool_with(
            Pool::builder()
                .max_size(6)
                .connection_timeout(Duration::from_secs(10)),
        ),
    );
    let topics = topics("several");
    let settings = crate::dispatching::settings(&topics);
    let mut first = Dispatcher::new(
        store.clone(),
        crate::dispatching::kafka(&tansu()),
        settings.clone(),
    )
    .expect("first dispatcher");
    first
        .prepare_topics()
        .expect("topics created (is tansu running? scripts/services)");
    let mut second = Dispatcher::new(store.clone(), crate::dispatching::kafka(&tansu()), settings)
        .expect("second dispatcher");
    let pipeline = Rules {
        parse: parse_options(),
        ..Rules::default()
    };
    let stop = AtomicBool::new(false);
    let mut conn = db.connect();
    let (by_first, by_second) = std::thread::scope(|scope| {
        let a = scope.spawn(|| first.run(&stop, false));
        let b = scope.spawn(|| second.run(&stop, false));
        for n in 1..=800 {
            let flid = i64::try_from(n % 4).expect("small") + 1;
            let id = i64::try_from(n).expect("small");
            let applied = apply_message(&store, &pipeline, id, &flop(flid, n), at(9, 12, 0))
                .expect("applied");
            assert!(matches!(applied, Applied::Flights(_)), "{applied:?}");
        }
        assert!(
            eventually(Duration::from_secs(60), || pending(&mut conn, "kafka_schd")
                + pending(&mut conn, "kafka_msg")
                == 0),
            "outbox not drained in 60 s"
        );
        stop.store(true, Ordering::SeqCst);
        (
            a.join().expect("first joined").expect("first ran"),
            b.join().expect("second joined").expect("second ran"),
        )
    });
    // A dispatcher that never won a claim would leave the other to publish alone, in order
    // because alone: both must have sent, and between them every state row once.
    assert!(
        by_first.state.sent > 0 && by_second.state.sent > 0,
        "one dispatcher did all the work: {by_first:?} {by_second:?}"
    );
    assert_eq!(
        by_first.state.sent + by_second.state.sent,
        800,
        "{by_first:?} {by_second:?}"
    );
    let records = read_all(&tansu(), &topics.0);
    assert!(!records.is_empty(), "the state topic holds no record");
    let wrong = out_of_order(&records);
    assert!(
        wrong.is_empty(),
        "{} times a lower version came after a higher one (flid, highest before, then): {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(20)]
    );
    // Every flight's last message is its last version.
    let mut last: HashMap<i64, i64> = HashMap::new();
    for record in &records {
        let json = record.json();
        last.insert(
            json["FLID"].as_i64().expect("FLID"),
            json["STATE_VERSION"].as_i64().expect("STATE_VERSION"),
        );
    }
    assert_eq!(last.len(), 4, "{last:?}");
    assert!(last.values().all(|v| *v == 200), "{last:?}");
}

/// `flightstate run` as a child on the test's servers, its stderr read
/// line by line; killed with the guard.
#[track_caller]
fn start_run(db: &TestDatabase, mailbox: &MailboxDatabase, topics: &(String, String)) -> Running {
    let mut command = Command::new(BIN);
    command
        .args(["--config", "/nonexistent/flightstate.toml", "run"])
        .env("FLIGHTSTATE_DATABASE_URL", db.url())
        .env("FLIGHTSTATE_MAILBOX_URL", mailbox.url())
        .env("FLIGHTSTATE_KAFKA_BROKERS", tansu())
        .env("FLIGHTSTATE_KAFKA_STATE_TOPIC", &topics.0)
        .env("FLIGHTSTATE_KAFKA_CHANGE_TOPIC", &topics.1)
        .env("FLIGHTSTATE_KAFKA_LINGER_MS", "1")
        .env("FLIGHTSTATE_KAFKA_LANES", "2")
        .env("FLIGHTSTATE_KAFKA_IDLE_POLL_MS", "20")
        .env("FLIGHTSTATE_KAFKA_BACKOFF_INITIAL_MS", "200")
        .env("FLIGHTSTATE_KAFKA_BACKOFF_MAX_MS", "1000")
        .env("FLIGHTSTATE_PUMP_LEASE_SECS", "3")
        .env("FLIGHTSTATE_PUMP_IDLE_POLL_MS", "50")
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .env_remove("FLIGHTSTATE_FAILPOINTS")
        .stdout(Stdio::null());
    Running::start(command, "flightstate run")
}

/// Two `flightstate run` processes on one state database, mailbox and
/// broker, as a site runs an active and a standby: only the process whose
/// pump holds the lease dispatches; the other says once why it waits. On
/// the state topic each flight's versions never go down.
#[test]
fn of_two_run_processes_only_the_lease_holder_dispatches() {
    let db = TestDatabase::migrated();
    let mailbox = MailboxDatabase::create("two_runs");
    let topics = topics("two-runs");
    let first = start_run(&db, &mailbox, &topics);
    let second = start_run(&db, &mailbox, &topics);
    for n in 1..=300 {
        let flid = i64::try_from(n % 3).expect("small") + 1;
        mailbox.insert(&flop(flid, n));
    }
    let mut conn = db.connect();
    let done = eventually(Duration::from_secs(120), || {
        let applied = mailbox.rows().iter().all(|(_, _, processed)| *processed);
        let outbox = pending(&mut conn, "kafka_schd") + pending(&mut conn, "kafka_msg");
        applied && outbox == 0
    });
    assert!(
        done,
        "not done in 120 s; first:\n{}\nsecond:\n{}",
        first.text(),
        second.text()
    );
    let dispatched = |p: &Running| p.lines_with("state events dispatched").len();
    let (active, standby) = if dispatched(&first) > 0 {
        (&first, &second)
    } else {
        (&second, &first)
    };
    assert!(dispatched(active) > 0, "{}", active.text());
    assert_eq!(
        dispatched(standby),
        0,
        "the standby dispatched too:\n{}",
        standby.text()
    );
    assert_eq!(
        standby.lines_with("the dispatcher waits").len(),
        1,
        "{}",
        standby.text()
    );
    assert!(
        standby.text().contains("does not hold the lease"),
        "{}",
        standby.text()
    );
    let records = read_all(&tansu(), &topics.0);
    assert!(
        !records.is_empty(),
        "the state topic holds no record: {}",
        active.text()
    );
    let wrong = out_of_order(&records);
    assert!(wrong.is_empty(), "{wrong:?}");
}
