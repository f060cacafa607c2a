//! The mailbox's r2d2 pool against real MariaDB: a connection at rest is
//! used again (no reconnect per call); one the server ended while it sat in
//! the pool is replaced by a fresh one without the caller noticing; one
//! whose link went silent is told as a timeout naming
//! `mailbox.io_timeout_secs` within about that time, and a fresh one
//! serves once the link is back; `/metrics` counts the mailbox's
//! connections as it counts the state database's.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/dispatching/mod.rs"]
mod dispatching;
#[path = "helpers/pumping/mod.rs"]
mod pumping;
#[path = "helpers/reading/mod.rs"]
mod reading;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{TestDatabase, wait_until};
use flightstate::FailureKind;
use flightstate::mailbox::{Mailbox, MailboxSettings};
use flightstate::store::pg::PgStore;
use mysql::prelude::Queryable;
use pumping::{MailboxDatabase, Proxy, mailbox_settings};
use reading::{TestApi, get, parse_prometheus, settings, value};

/// `mb`'s database over TCP to the server: the tests' own sessions come
/// through its Unix socket, so the server tells the two apart.
fn over_tcp(mb: &MailboxDatabase) -> String {
    let server = pumping::mariadb_server_url();
    let host_port = server.rsplit('@').next().unwrap_or("127.0.0.1:3306");
    mb.url_via(host_port)
}

/// The server's ids of the TCP sessions open on `mb`'s database: the
/// mailbox pool's connections.
fn sessions(mb: &MailboxDatabase) -> Vec<u64> {
    mb.conn()
        .exec(
            "SELECT ID FROM information_schema.PROCESSLIST \
             WHERE DB = ? AND HOST NOT LIKE 'localhost%' ORDER BY ID",
            (&mb.name,),
        )
        .expect("read the process list")
}

#[test]
fn a_connection_at_rest_serves_again_and_one_the_server_ended_is_replaced() {
    let mb = MailboxDatabase::create("pool_kill");
    let mailbox = Mailbox::connect(mailbox_settings(over_tcp(&mb))).expect("mailbox pool");
    let id = mb.insert(b"<MSG/>");

    assert_eq!(mailbox.last_message_id().expect("a look"), Some(id));
    let first = sessions(&mb);
    assert_eq!(first.len(), 1, "one connection: {first:?}");
    // A read, a transaction and a look again: the same session throughout.
    assert_eq!(mailbox.read_head(10).expect("the head").len(), 1);
    mailbox.write_back(&[(id, "PROCESSED")]);
    assert_eq!(mailbox.last_message_id().expect("a look"), Some(id));
    assert_eq!(sessions(&mb), first, "the pooled connection is used again");
    let count = mailbox.pool_count();
    assert_eq!((count.open, count.idle, count.max), (1, 1, 2));

    // The server ends the idle pooled connection (a DBA's KILL, a restart,
    // `wait_timeout`): its ping at the next checkout fails, and a new one
    // takes its place.
    mb.conn()
        .exec_drop("KILL CONNECTION ?", (first[0],))
        .expect("kill the pooled connection");
    wait_until(Duration::from_secs(10), "the session ends", || {
        sessions(&mb).is_empty()
    });
    assert_eq!(
        mailbox.last_message_id().expect("a look after the kill"),
        Some(id)
    );
    let second = sessions(&mb);
    assert_eq!(second.len(), 1, "{second:?}");
    assert_ne!(second, first, "a fresh connection");
    let count = mailbox.pool_count();
    assert_eq!(
        (count.open, count.idle),
        (1, 1),
        "the dead one is gone from the pool"
    );
}

#[test]
fn a_silent_link_under_pooled_connections_is_told_within_the_io_timeout() {
    let mb = MailboxDatabase::create("pool_silent");
    let proxy = Proxy::start("127.0.0.1:3306");
    let io_timeout = Duration::from_secs(3);
    let mailbox = Arc::new(
        Mailbox::connect(MailboxSettings {
            io_timeout,
            ..mailbox_settings(mb.url_via(&proxy.host_port()))
        })
        .expect("mailbox pool"),
    );
    // Two threads at once, so that the pool most likely holds two
    // connections when the link goes silent.
    let lookers: Vec<_> = (0..2)
        .map(|_| {
            let mailbox = Arc::clone(&mailbox);
            std::thread::spawn(move || {
                for _ in 0..50 {
                    mailbox.last_message_id().expect("a look");
                }
            })
        })
        .collect();
    for looker in lookers {
        looker.join().expect("a looking thread");
    }
    eprintln!("pooled before the freeze: {:?}", mailbox.pool_count());

    proxy.freeze();
    let frozen_at = Instant::now();
    let error = mailbox
        .last_message_id()
        .expect_err("no answer through a frozen link");
    let waited = frozen_at.elapsed();
    let chain = format!("{error:#}");
    eprintln!("failed after {waited:?}: {chain}");
    assert_eq!(error.kind(), FailureKind::Timeout, "{chain}");
    assert!(chain.contains("`mailbox.io_timeout_secs`"), "{chain}");
    // The first ping waits out the timeout; keepalive has given up the
    // other idle connections of the link by then, so theirs fail at once.
    let bound = io_timeout * 2 + Duration::from_secs(4);
    assert!(waited <= bound, "told after {waited:?}, bound {bound:?}");

    proxy.thaw();
    wait_until(
        Duration::from_secs(20),
        "a fresh connection after the thaw",
        || mailbox.last_message_id().is_ok(),
    );
}

#[test]
fn metrics_count_the_mailbox_pool_as_the_state_database_pool() {
    let db = TestDatabase::migrated();
    let store = PgStore::connect(db.url(), 3, Duration::from_secs(5)).expect("state pool");
    let mb = MailboxDatabase::create("pool_metrics");
    mb.insert(b"<MSG/>");
    let mailbox =
        Arc::new(Mailbox::connect(mailbox_settings(over_tcp(&mb))).expect("mailbox pool"));
    let api = TestApi::start(store, Some(Arc::clone(&mailbox)), settings(None, None));

    let text = get(api.addr, "/metrics").text();
    let samples = parse_prometheus(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let count = |part: &str, state: &str| {
        value(
            &samples,
            "flightstate_pool_connections",
            &[("part", part), ("state", state)],
        )
    };
    let max = |part: &str| {
        value(
            &samples,
            "flightstate_pool_max_connections",
            &[("part", part)],
        )
    };
    assert_eq!(max("state_db"), 3.0);
    assert_eq!(max("mailbox"), 2.0);
    // The scrape read the mailbox through one connection and gave it back.
    assert_eq!(count("mailbox", "idle"), 1.0, "{text}");
    assert_eq!(count("mailbox", "in_use"), 0.0, "{text}");
    // The state database's pool serves the API's other threads too.
    let state_db = count("state_db", "idle") + count("state_db", "in_use");
    assert!((1.0..=3.0).contains(&state_db), "{text}");
    assert_eq!(sessions(&mb).len(), 1, "the count is the server's sessions");

    // A look that waits on a table lock holds its connection: in use.
    let mut holder = mb.conn();
    holder
        .query_drop("LOCK TABLES cminmsgs WRITE")
        .expect("lock the mailbox");
    let looker = std::thread::spawn({
        let mailbox = Arc::clone(&mailbox);
        move || mailbox.last_message_id()
    });
    wait_until(
        Duration::from_secs(10),
        "the look holds a connection",
        || mailbox.pool_count().in_use() == 1,
    );
    holder
        .query_drop("UNLOCK TABLES")
        .expect("unlock the mailbox");
    looker
        .join()
        .expect("the looking thread")
        .expect("a look after the unlock");
    assert_eq!(mailbox.pool_count().in_use(), 0);
}
