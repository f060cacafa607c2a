//! Outages under `flightstate run` (pump, effect worker, dispatcher in one
//! child process, its JSON log read from stderr), against real PostgreSQL,
//! MariaDB and a tansu broker: the link to each server, through a proxy of
//! the test's own, is cut (every connection reset, new ones refused) or
//! frozen (every packet dropped by the kernel: `Proxy::freeze`, needs `tc`
//! and CAP_NET_ADMIN) in the middle of a stream — the first half applied
//! and published, the second half queued while the link is down — once for
//! less than the timeout that applies (`database.io_timeout_secs`,
//! `mailbox.io_timeout_secs`, `kafka.delivery_timeout_ms`, all 3 s here)
//! and once for well over it.
//!
//! Every case asserts that the outage met the process (during a cut it
//! tried to connect and was refused, counted by the proxy; during a freeze
//! it sent segments the kernel lost and sent again, counted by `ss`); that
//! the same process, never restarted, finishes the stream by itself; that
//! a long outage is logged (`WARN` or `ERROR`) within the time its
//! settings allow after it met the process (the next use of the link, its
//! timeout, its pool's wait for a connection), and then with back-off, not
//! once per attempt; that a short freeze times nothing out; and that the end equals
//! a clean run's: the state dump, `PROC_STATE` (attempts included), the
//! mailbox statuses with every row written back once, and on the state
//! topic each flight's last message equal to its stored state document,
//! with no flight's version ever going down.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::common::sis::day_messages;
use crate::common::{TestDatabase, eventually};
use crate::dispatching::{tansu, topics};
use crate::pumping::{MailboxDatabase, Outcome, OwnBroker, Proxy, outcome};
use crate::running::{
    CONNECTION_WAIT, DELIVERY_TIMEOUT, IO_TIMEOUT, LEASE, MAILBOX_CONNECT_TIMEOUT, RunChild,
    RunSetup, assert_topic_matches_state, clean_run, finished,
};

/// Flights of the generated day (the snapshot, then a few hundred events).
const FLIGHTS: usize = 20;
/// An outage shorter than every timeout of the run.
const SHORT: Duration = Duration::from_secs(1);
/// An outage well past the timeout and the slack.
const LONG: Duration = Duration::from_secs(12);
/// The longest a part of the run goes without using a link it holds: the
/// pump renews its lease every third of `pump.lease_secs`, the effect
/// worker looks at the journal every second; everything else polls faster.
const LONGEST_QUIET_USE: Duration = Duration::from_secs(1);

/// How long after the outage first met the process (a connection the proxy
/// refused during a cut, a segment the kernel lost and the client sent
/// again during a freeze) its first line at `WARN` or `ERROR` may come:
/// the next use of the link (at most [`LONGEST_QUIET_USE`] away), the
/// link's timeout, and the wait of its pool for a new connection.
fn first_log_bound(link: Link) -> Duration {
    let (timeout, connection_wait) = match link {
        Link::Postgres => (IO_TIMEOUT, CONNECTION_WAIT),
        Link::Mariadb => (IO_TIMEOUT, MAILBOX_CONNECT_TIMEOUT),
        // The producer's own reconnects; a delivery fails at its timeout.
        Link::Broker => (DELIVERY_TIMEOUT, Duration::ZERO),
    };
    LONGEST_QUIET_USE.max(LEASE / 3) + timeout + connection_wait
}
/// At most this many lines at `WARN` or `ERROR` per started 10 s of the
/// outage and its recovery: the outage logged, then with back-off.
const LOUD_PER_10S: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Link {
    Postgres,
    Mariadb,
    Broker,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    Cut,
    Freeze,
}

/// The clean run of the stream (once per test process): `flightstate run`
/// straight to the servers, to the end of the stream and of the outbox.
fn reference() -> &'static Outcome {
    static REFERENCE: OnceLock<Outcome> = OnceLock::new();
    REFERENCE.get_or_init(|| clean_run("ro_ref", &day_messages(FLIGHTS)))
}

fn outage(link: Link, fault: Fault, length: Duration) {
    let tag = format!("{link:?}_{fault:?}_{}", length.as_secs()).to_ascii_lowercase();
    let messages = day_messages(FLIGHTS);
    let half = messages.len() / 2;
    let expected = reference();

    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create(&format!("ro_{tag}"));
    let topics = topics(&format!("run-outage-{tag}"));
    let broker = (link == Link::Broker).then(OwnBroker::start);
    let server = match link {
        Link::Postgres => Some(Proxy::start("127.0.0.1:5432")),
        Link::Mariadb => Some(Proxy::start("127.0.0.1:3306")),
        Link::Broker => None,
    };
    let proxy = match (&server, &broker) {
        (Some(proxy), _) => proxy,
        (None, Some(broker)) => &broker.proxy,
        (None, None) => unreachable!("every link has a proxy"),
    };
    let database_url = match link {
        Link::Postgres => crate::common::database_url(
            &format!("postgres://postgres@{}/postgres", proxy.host_port()),
            db.name(),
        ),
        _ => db.url().to_owned(),
    };
    let mailbox_url = match link {
        Link::Mariadb => mb.url_via(&proxy.host_port()),
        _ => mb.url(),
    };
    let brokers = broker.as_ref().map_or_else(tansu, OwnBroker::brokers);
    let mut run = RunChild::start(&RunSetup {
        database_url,
        mailbox_url,
        brokers: brokers.clone(),
        topics: topics.clone(),
        holder: format!("outage-{tag}"),
        env: Vec::new(),
    });

    let started = Instant::now();
    for m in &messages[..half] {
        mb.insert(m);
    }
    assert!(
        eventually(Duration::from_secs(60), || finished(&db, &mb, half)),
        "the first half was not applied and published in 60 s:\n{}",
        run.text()
    );

    // The second half is queued while the link is down.
    let (refused_before, retransmitted_before) = (proxy.refused(), proxy.retransmitted());
    let fault_at = Instant::now();
    match fault {
        Fault::Cut => proxy.cut(),
        Fault::Freeze => proxy.freeze(),
    }
    for m in &messages[half..] {
        mb.insert(m);
    }
    // Retransmissions are read while the link is frozen: a connection a
    // timeout ends takes its count with it.
    let mut retransmitted = retransmitted_before;
    let mut first_retransmitted = None;
    while fault_at.elapsed() < length {
        std::thread::sleep(Duration::from_millis(50));
        if fault == Fault::Freeze {
            retransmitted = retransmitted.max(proxy.retransmitted());
            if retransmitted > retransmitted_before {
                first_retransmitted.get_or_insert_with(Instant::now);
            }
        }
    }
    match fault {
        Fault::Cut => proxy.restore(),
        Fault::Freeze => proxy.thaw(),
    }
    let restored_at = Instant::now();
    // The outage met the process: during a cut it tried to connect and was
    // refused; during a freeze it sent segments that were lost and sent
    // again.
    let (met, met_at) = match fault {
        Fault::Cut => (proxy.refused() - refused_before, proxy.first_refused()),
        Fault::Freeze => (
            usize::try_from(retransmitted.max(proxy.retransmitted()) - retransmitted_before)
                .expect("small"),
            first_retransmitted,
        ),
    };
    eprintln!("{tag}: {met} connections refused or segments retransmitted during the outage");
    assert!(
        met > 0,
        "the process never met the {length:?} {fault:?}: nothing refused or retransmitted; \
         the log:\n{}",
        run.text()
    );

    let done = eventually(Duration::from_secs(60), || {
        finished(&db, &mb, messages.len())
    });
    let done_at = Instant::now();
    assert!(
        done,
        "the stream was not finished 60 s after the link came back; the log:\n{}",
        run.text()
    );
    assert!(
        run.is_running(),
        "the process ended during the outage:\n{}",
        run.text()
    );

    let loud = run.loud_between(fault_at, done_at);
    for (at, event) in &loud {
        eprintln!("{:?} after the fault: {event}", at.duration_since(fault_at));
    }
    let timeout = match link {
        Link::Broker => DELIVERY_TIMEOUT,
        Link::Postgres | Link::Mariadb => IO_TIMEOUT,
    };
    let names_a_timeout = |event: &serde_json::Value| {
        let text = event.to_string().to_ascii_lowercase();
        text.contains("timed out") || text.contains("timeout")
    };
    if length > timeout {
        // Measured from when the outage met the process: a cut is met at the
        // first connection it refused, a freeze at the first segment sent
        // again (read every 50 ms: the first one seen is at most that late).
        let met_at = met_at.expect("the outage met the process");
        let bound = first_log_bound(link);
        match loud.first() {
            Some((at, event)) => assert!(
                at.saturating_duration_since(met_at) <= bound,
                "the outage was first logged {:?} after it met the process ({:?} after it began; \
                 bound {bound:?}): {event}",
                at.saturating_duration_since(met_at),
                at.duration_since(fault_at)
            ),
            None => panic!(
                "nothing logged at WARN or ERROR during a {length:?} outage; the log:\n{}",
                run.text()
            ),
        }
    } else if fault == Fault::Freeze {
        let timed_out: Vec<_> = loud.iter().filter(|(_, e)| names_a_timeout(e)).collect();
        assert!(
            timed_out.is_empty(),
            "a {length:?} freeze, below the {timeout:?} timeout, timed something out: {timed_out:?}"
        );
    }
    let window = done_at.duration_since(fault_at);
    let tens = usize::try_from(window.as_secs() / 10 + 1).expect("small");
    assert!(
        loud.len() <= LOUD_PER_10S * tens,
        "{} lines at WARN or ERROR in {window:?}: a flood\n{}",
        loud.len(),
        run.text()
    );
    eprintln!(
        "{tag}: first half in {:?}; outage {length:?}; finished {:?} after the link came back; \
         {} loud lines in {window:?}",
        fault_at.duration_since(started),
        done_at.duration_since(restored_at),
        loud.len()
    );

    run.stop();
    mb.assert_each_written_back_once();
    assert_eq!(
        &outcome(&mut db.connect(), &mb),
        expected,
        "the same end as a clean run"
    );
    assert_topic_matches_state(&brokers, &topics.0, &db);
}

#[test]
fn postgres_cut_short() {
    outage(Link::Postgres, Fault::Cut, SHORT);
}

#[test]
fn postgres_cut_long() {
    outage(Link::Postgres, Fault::Cut, LONG);
}

#[test]
fn postgres_frozen_short() {
    outage(Link::Postgres, Fault::Freeze, SHORT);
}

#[test]
fn postgres_frozen_long() {
    outage(Link::Postgres, Fault::Freeze, LONG);
}

#[test]
fn mariadb_cut_short() {
    outage(Link::Mariadb, Fault::Cut, SHORT);
}

#[test]
fn mariadb_cut_long() {
    outage(Link::Mariadb, Fault::Cut, LONG);
}

#[test]
fn mariadb_frozen_short() {
    outage(Link::Mariadb, Fault::Freeze, SHORT);
}

#[test]
fn mariadb_frozen_long() {
    outage(Link::Mariadb, Fault::Freeze, LONG);
}

#[test]
fn broker_cut_short() {
    outage(Link::Broker, Fault::Cut, SHORT);
}

#[test]
fn broker_cut_long() {
    outage(Link::Broker, Fault::Cut, LONG);
}

#[test]
fn broker_frozen_short() {
    outage(Link::Broker, Fault::Freeze, SHORT);
}

#[test]
fn broker_frozen_long() {
    outage(Link::Broker, Fault::Freeze, LONG);
}
