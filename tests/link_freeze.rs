//! A frozen link (packets dropped, nothing reset) between the pump and one of
//! its servers, through the `flightstate pump` binary as a child process
//! whose JSON log is read from its stderr, against real PostgreSQL and
//! MariaDB:
//!
//! - the link to PostgreSQL freezes while the pump waits for a statement's
//!   reply (the statement sent and acknowledged: only TCP keepalive can tell
//!   such a wait from a slow server);
//! - the link to MariaDB freezes while the pump waits for its look at the
//!   head to be answered.
//!
//! In both, the freeze lasts well past the configured timeouts. The pump
//! must log the stall, with its cause, within the timeout (plus slack for
//! the retry that follows), recover by itself once the link is back, and
//! end with the state, `PROC_STATE` and mailbox of a run without a freeze.
//! To hold the pump inside a wait at the moment of the freeze, the test
//! takes a lock the pump's next statement needs, and lets it go once the
//! link is frozen: the server's answer is what the frozen link swallows.
//!
//! Underneath, in process: a statement waiting for its answer on a frozen
//! PostgreSQL link fails within the timeout with the cause, and the server
//! ends the session left behind, so that `PIPELINE_LOCK`, which it held, is
//! free again while the link is still frozen.
//!
//! The freeze is a kernel filter (`tests/helpers/pumping`, `Proxy::freeze`): it
//! needs `tc` and CAP_NET_ADMIN.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/pumping/mod.rs"]
mod pumping;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::child::{BIN, Logged, Running, wait_for_exit};
use common::sis::day_messages;
use common::{TestDatabase, wait_until, waits_for_a_lock};
use diesel::connection::SimpleConnection;
use flightstate::FailureKind;
use flightstate::store::pg::PgStore;
use flightstate::store::{StateTx, Store, StoreError, Timeouts};
use mysql::prelude::Queryable;
use pumping::{MailboxDatabase, Outcome, Proxy, outcome};

/// The timeouts the pump runs with (`io_timeout_secs` of the frozen side).
const IO_TIMEOUT: Duration = Duration::from_secs(3);
/// Time allowed after the timeout for the failure to reach the log (the
/// first retry's wait for a connection, scheduling on a loaded machine).
const SLACK: Duration = Duration::from_secs(7);
/// How long the link stays frozen: well past the timeout and the slack.
const FREEZE: Duration = Duration::from_secs(14);
/// Flights of the generated day: its snapshot, then its updates.
const FLIGHTS: usize = 6;

fn pump_command(database_url: &str, mailbox_url: &str) -> Command {
    let mut command = Command::new(BIN);
    command
        .args(["--config", "/nonexistent/flightstate.toml", "pump"])
        .env("FLIGHTSTATE_DATABASE_URL", database_url)
        .env("FLIGHTSTATE_MAILBOX_URL", mailbox_url)
        .env("FLIGHTSTATE_DATABASE_CONNECT_TIMEOUT_SECS", "2")
        .env("FLIGHTSTATE_DATABASE_CONNECTION_TIMEOUT_SECS", "3")
        .env(
            "FLIGHTSTATE_DATABASE_IO_TIMEOUT_SECS",
            IO_TIMEOUT.as_secs().to_string(),
        )
        .env("FLIGHTSTATE_MAILBOX_CONNECT_TIMEOUT_SECS", "2")
        .env(
            "FLIGHTSTATE_MAILBOX_IO_TIMEOUT_SECS",
            IO_TIMEOUT.as_secs().to_string(),
        )
        .env("FLIGHTSTATE_PUMP_LEASE_SECS", "3")
        .env("FLIGHTSTATE_PUMP_IDLE_POLL_MS", "100")
        .env("FLIGHTSTATE_PUMP_BACKOFF_INITIAL_MS", "100")
        .env("FLIGHTSTATE_PUMP_BACKOFF_MAX_MS", "1000")
        .env("FLIGHTSTATE_LOG_FORMAT", "json")
        .env("RUST_LOG", "warn")
        .env_remove("FLIGHTSTATE_FAILPOINTS");
    command
}

/// The clean run: `flightstate pump --until-idle` straight to both servers.
fn reference(tag: &str, messages: &[Vec<u8>]) -> Outcome {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create(tag);
    for m in messages {
        mb.insert(m);
    }
    let mut child = pump_command(db.url(), &mb.url())
        .arg("--until-idle")
        .stderr(Stdio::null())
        .spawn()
        .expect("start flightstate pump");
    let status = wait_for_exit(&mut child, Duration::from_secs(120), "flightstate pump");
    assert!(status.success(), "the clean run: {status:?}");
    mb.assert_each_written_back_once();
    outcome(&mut db.connect(), &mb)
}

/// Warnings and errors logged at or after `since` whose error text names a
/// timeout: the stall reported with its cause.
fn timeouts_since(pumping: &Running, since: Instant) -> Vec<Logged> {
    pumping
        .events()
        .into_iter()
        .filter(|(at, event)| {
            let level = event["level"].as_str().unwrap_or_default();
            let error = event["fields"]["error"]
                .as_str()
                .unwrap_or_default()
                .to_ascii_lowercase();
            *at >= since
                && matches!(level, "WARN" | "ERROR")
                && (error.contains("timed out") || error.contains("timeout"))
        })
        .collect()
}

/// Freezes the link, keeps it frozen for [`FREEZE`] (running `release`
/// right after the freeze), thaws it, and returns the warnings that named a
/// timeout, each with its delay after the freeze.
fn freeze_for_a_while(
    proxy: &Proxy,
    pumping: &Running,
    release: impl FnOnce(),
) -> Vec<(Duration, String)> {
    proxy.freeze();
    let frozen_at = Instant::now();
    release();
    while frozen_at.elapsed() < FREEZE {
        std::thread::sleep(Duration::from_millis(100));
    }
    proxy.thaw();
    timeouts_since(pumping, frozen_at)
        .into_iter()
        .map(|(at, event)| (at.duration_since(frozen_at), event.to_string()))
        .collect()
}

#[track_caller]
fn assert_logged_in_time(warnings: &[(Duration, String)], pumping: &Running) {
    let bound = IO_TIMEOUT + SLACK;
    for (after, event) in warnings {
        eprintln!("logged {after:?} after the freeze: {event}");
    }
    match warnings.first() {
        Some((after, event)) => assert!(
            *after <= bound,
            "the stall was first logged {after:?} after the freeze (bound {bound:?}): {event}"
        ),
        None => panic!(
            "no warning naming a timeout during a {FREEZE:?} freeze; the log:\n{}",
            pumping.text()
        ),
    }
    // Logged again while it lasts, but with backoff, not once per attempt.
    assert!(
        warnings.len() <= 40,
        "{} warnings in {FREEZE:?}: a flood\n{}",
        warnings.len(),
        pumping.text()
    );
}

#[test]
fn a_statement_waiting_for_its_answer_on_a_frozen_link_fails_and_its_session_ends() {
    let db = TestDatabase::migrated();
    let proxy = Proxy::start("127.0.0.1:5432");
    let proxied = common::database_url(
        &format!("postgres://postgres@{}/postgres", proxy.host_port()),
        db.name(),
    );
    let timeouts = Timeouts {
        connect: Duration::from_secs(2),
        io: IO_TIMEOUT,
        statement: Some(Duration::from_secs(60)),
        idle_in_transaction: None,
    };
    let store = PgStore::connect_with(&proxied, 2, Duration::from_secs(3), &timeouts)
        .expect("pool through the proxy");

    let mut holder = db.connect();
    holder
        .batch_execute("BEGIN; SELECT lock_id FROM pipeline_lock FOR UPDATE;")
        .expect("take PIPELINE_LOCK");
    let waiter = {
        let store = store.clone();
        std::thread::spawn(move || {
            let outcome = store.transaction(|tx| tx.lock_pipeline().map(|_| ()));
            (Instant::now(), outcome)
        })
    };
    let mut watcher = db.connect();
    wait_until(
        Duration::from_secs(30),
        "the statement waits for the lock",
        || waits_for_a_lock(&mut watcher, db.name()),
    );
    proxy.freeze();
    let frozen_at = Instant::now();
    // The server now grants the lock and answers into the frozen link: the
    // client has nothing unacknowledged and just waits.
    holder
        .batch_execute("COMMIT")
        .expect("let PIPELINE_LOCK go");

    let limit = IO_TIMEOUT + SLACK;
    wait_until(limit, "the waiting statement fails", || {
        waiter.is_finished()
    });
    let (failed_at, outcome) = waiter.join().expect("the waiting thread");
    let error: StoreError = outcome.expect_err("no answer can come through a frozen link");
    let text = format!("{error:#}");
    eprintln!(
        "failed {:?} after the freeze: {text}",
        failed_at.duration_since(frozen_at)
    );
    assert_eq!(error.kind(), FailureKind::ConnectionLost, "{text}");
    assert!(
        text.contains("lock_pipeline") && text.contains("timed out"),
        "the statement and the cause, not the failed rollback after it: {text}"
    );

    // The server gave up its end too and rolled back: the lock is free while
    // the link is still frozen.
    wait_until(limit, "the server ends the abandoned session", || {
        let mut probe = db.connect();
        probe
            .batch_execute("BEGIN; SELECT lock_id FROM pipeline_lock FOR UPDATE NOWAIT; ROLLBACK;")
            .is_ok()
    });

    proxy.thaw();
    // The broken connection left the pool: the next transaction gets a
    // fresh one.
    store
        .transaction(|tx| tx.lock_pipeline().map(|_| ()))
        .expect("a transaction after the thaw");
}

#[test]
fn frozen_postgres_link_is_logged_and_the_pump_recovers() {
    let messages = day_messages(FLIGHTS);
    let half = messages.len() / 2;
    let expected = reference("fz_pg_ref", &messages);

    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("fz_pg");
    let proxy = Proxy::start("127.0.0.1:5432");
    let proxied = common::database_url(
        &format!("postgres://postgres@{}/postgres", proxy.host_port()),
        db.name(),
    );
    for m in &messages[..half] {
        mb.insert(m);
    }
    let pumping = Running::start(pump_command(&proxied, &mb.url()), "flightstate pump");
    wait_until(Duration::from_secs(60), "the first half applied", || {
        mb.all_written_back(half)
    });

    // Hold PIPELINE_LOCK so that the pump's next state transaction waits on
    // the server for it.
    let mut holder = db.connect();
    holder
        .batch_execute("BEGIN; SELECT lock_id FROM pipeline_lock FOR UPDATE;")
        .expect("take PIPELINE_LOCK");
    for m in &messages[half..] {
        mb.insert(m);
    }
    let mut watcher = db.connect();
    wait_until(
        Duration::from_secs(30),
        "the pump waits for the lock",
        || waits_for_a_lock(&mut watcher, db.name()),
    );

    let warnings = freeze_for_a_while(&proxy, &pumping, || {
        holder
            .batch_execute("COMMIT")
            .expect("let PIPELINE_LOCK go");
    });
    assert_logged_in_time(&warnings, &pumping);

    wait_until(
        Duration::from_secs(90),
        "every message written back after the thaw",
        || mb.all_written_back(messages.len()),
    );
    pumping.stop(Duration::from_secs(60));
    mb.assert_each_written_back_once();
    assert_eq!(
        outcome(&mut db.connect(), &mb),
        expected,
        "the same end as a clean run"
    );
}

#[test]
fn frozen_mariadb_link_is_logged_and_the_pump_recovers() {
    let messages = day_messages(FLIGHTS);
    let half = messages.len() / 2;
    let expected = reference("fz_my_ref", &messages);

    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("fz_my");
    let proxy = Proxy::start("127.0.0.1:3306");
    for m in &messages[..half] {
        mb.insert(m);
    }
    let pumping = Running::start(
        pump_command(db.url(), &mb.url_via(&proxy.host_port())),
        "flightstate pump",
    );
    wait_until(Duration::from_secs(60), "the first half applied", || {
        mb.all_written_back(half)
    });

    // Lock the inbound table so that the pump's next look at the head waits
    // on the server; the second half goes in under the same lock.
    let mut holder = mb.conn();
    holder
        .query_drop("LOCK TABLES cminmsgs WRITE")
        .expect("lock the mailbox");
    for m in &messages[half..] {
        holder
            .exec_drop(
                "INSERT INTO cminmsgs (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED, \
                 CMINMSGS_STATUS) VALUES (?, NOW(), 'VALID')",
                (m,),
            )
            .expect("insert a message");
    }
    let mut watcher = mb.conn();
    let name = mb.name.clone();
    wait_until(
        Duration::from_secs(30),
        "the pump waits for the table",
        || {
            let waiting: Option<i64> = watcher
                .exec_first(
                    "SELECT COUNT(*) FROM information_schema.PROCESSLIST \
                 WHERE DB = ? AND STATE LIKE 'Waiting for table%'",
                    (&name,),
                )
                .expect("read the process list");
            waiting.unwrap_or(0) > 0
        },
    );

    let warnings = freeze_for_a_while(&proxy, &pumping, || {
        holder
            .query_drop("UNLOCK TABLES")
            .expect("unlock the mailbox");
    });
    assert_logged_in_time(&warnings, &pumping);

    wait_until(
        Duration::from_secs(90),
        "every message written back after the thaw",
        || mb.all_written_back(messages.len()),
    );
    pumping.stop(Duration::from_secs(60));
    mb.assert_each_written_back_once();
    assert_eq!(
        outcome(&mut db.connect(), &mb),
        expected,
        "the same end as a clean run"
    );
}
