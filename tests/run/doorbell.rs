//! Under `flightstate run` nothing waits out an idle poll: the idle pump
//! sees a new row by its look at the mailbox's last id, and wakes the
//! dispatcher of its own process when it commits; after a quiet spell the
//! looks stop and the head alone is read. Against real PostgreSQL, MariaDB
//! and tansu.
//!
//! The pump's idle wait also ends when its lease falls due for renewal
//! (every third of `pump.lease_secs`), so both tests run with a lease of an
//! hour: nothing but the look (or, in the quiet, the idle poll) ends the
//! wait within a test's deadline.

use std::time::{Duration, Instant};

use crate::common::sis::day_messages;
use crate::common::{TestDatabase, eventually};
use crate::dispatching::{read_all, tansu, topics};
use crate::pumping::{GeneralLog, MailboxDatabase};
use crate::running::{RunChild, RunSetup, finished};

/// `pump.lease_secs` of both tests: renewed every 20 minutes.
const LEASE_SECS: u64 = 3600;
/// The statement of the look (`sql/mailbox/select_last_message_id.sql`).
const LOOK: &str = "%SELECT MAX(CMINMSGS_ID)%";
/// The statement of a read of the head
/// (`sql/mailbox/select_pending_messages.sql`).
const HEAD_READ: &str = "%FROM cminmsgs%ORDER BY CMINMSGS_ID%LIMIT%";

fn run_with(
    tag: &str,
    db: &TestDatabase,
    mb: &MailboxDatabase,
    topics: &(String, String),
    settings: &[(&str, String)],
) -> RunChild {
    RunChild::start(&RunSetup {
        database_url: db.url().to_owned(),
        mailbox_url: mb.url(),
        brokers: tansu(),
        topics: topics.clone(),
        holder: tag.to_owned(),
        env: settings
            .iter()
            .map(|(name, value)| ((*name).to_owned(), value.clone()))
            .chain([(
                "FLIGHTSTATE_PUMP_LEASE_SECS".to_owned(),
                LEASE_SECS.to_string(),
            )])
            .collect(),
    })
}

/// With both idle polls and the lease at an hour, a message queued after
/// everything went idle still reaches the topics: the pump's look at the
/// last id ends its sleep, its commit rings the dispatcher's lanes. Without
/// the look or the ring it would wait out the hour (the test's deadline
/// fails first).
#[test]
fn a_new_row_is_seen_at_once_and_its_commit_wakes_the_idle_dispatcher() {
    let messages = day_messages(3);
    let (last, first) = messages.split_last().expect("a stream");
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("doorbell");
    let topics = topics("run-doorbell");
    let hour = (3600 * 1000).to_string();
    let run = run_with(
        "run-doorbell",
        &db,
        &mb,
        &topics,
        &[
            ("FLIGHTSTATE_KAFKA_IDLE_POLL_MS", hour.clone()),
            ("FLIGHTSTATE_PUMP_IDLE_POLL_MS", hour),
        ],
    );

    for m in first {
        mb.insert(m);
    }
    assert!(
        eventually(Duration::from_secs(60), || finished(&db, &mb, first.len())),
        "the stream but its last message was not pumped and dispatched:\n{}",
        run.text()
    );
    let notices = read_all(&tansu(), &topics.1).len();

    // Everything is idle now: the pump sleeps for an hour but looks at the
    // last id; the lanes wait for an hour or a ring.
    mb.insert(last);
    assert!(
        eventually(Duration::from_secs(60), || finished(
            &db,
            &mb,
            messages.len()
        )),
        "the last message was not pumped and dispatched: the look at the mailbox or the ring did not wake the pipeline\n{}",
        run.text()
    );
    assert!(
        read_all(&tansu(), &topics.1).len() > notices,
        "its change notice is on the topic"
    );
    run.stop();
}

/// `pump.idle_poll_ms` of the quiet test.
const IDLE_POLL: Duration = Duration::from_millis(1000);
/// `pump.arrival_poll_ms` of the quiet test.
const ARRIVAL_POLL: Duration = Duration::from_millis(50);
/// `pump.arrival_quiet_secs` of the quiet test.
const QUIET: Duration = Duration::from_secs(1);

/// Counted in the mailbox's general log: while rows arrive the idle pump
/// looks at the last id every `arrival_poll_ms`; once nothing arrived for
/// `arrival_quiet_secs` it makes no look at all and reads the head every
/// `idle_poll_ms`; the next row is read by such a read, and the looks come
/// back with it.
#[test]
fn after_a_quiet_spell_the_idle_pump_stops_its_looks_and_reads_the_head_alone() {
    let messages = day_messages(2);
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("quiet");
    let topics = topics("run-quiet");
    // On before the process connects: its connections are told apart by
    // their Connect lines.
    let _log = GeneralLog::on();
    let run = run_with(
        "run-quiet",
        &db,
        &mb,
        &topics,
        &[
            (
                "FLIGHTSTATE_PUMP_IDLE_POLL_MS",
                IDLE_POLL.as_millis().to_string(),
            ),
            (
                "FLIGHTSTATE_PUMP_ARRIVAL_POLL_MS",
                ARRIVAL_POLL.as_millis().to_string(),
            ),
            (
                "FLIGHTSTATE_PUMP_ARRIVAL_QUIET_SECS",
                QUIET.as_secs().to_string(),
            ),
        ],
    );

    let started_at = mb.server_time();
    mb.insert(&messages[0]);
    assert!(
        eventually(Duration::from_secs(60), || finished(&db, &mb, 1)),
        "the first message was not pumped and dispatched:\n{}",
        run.text()
    );
    // The pump's last arrival was before this moment.
    let done = Instant::now();

    // Until the quiet, the pump looks (the looks are counted, so that the
    // count after the quiet can be trusted).
    std::thread::sleep(QUIET.saturating_sub(done.elapsed()));
    let looks_before = mb.statements_between(LOOK, &started_at, &mb.server_time());
    assert!(
        looks_before > 0,
        "the idle pump looked at the last id before the quiet:\n{}",
        run.text()
    );

    // The wait under way when the quiet began runs to its end (at most
    // `idle_poll`); every wait after it makes no look. A margin of half a
    // poll for a loaded machine.
    std::thread::sleep((QUIET + IDLE_POLL + IDLE_POLL / 2).saturating_sub(done.elapsed()));
    let from = mb.server_time();
    std::thread::sleep(IDLE_POLL * 3);
    let to = mb.server_time();
    let looks = mb.statements_between(LOOK, &from, &to);
    let heads = mb.statements_between(HEAD_READ, &from, &to);
    eprintln!(
        "{looks_before} looks before the quiet; in {:?} of quiet {looks} looks and {heads} reads of the head",
        IDLE_POLL * 3
    );
    assert_eq!(
        looks, 0,
        "no look at the last id after {QUIET:?} without an arrival (a looking pump makes one every {ARRIVAL_POLL:?})"
    );
    assert!(
        heads >= 2,
        "the quiet pump reads the head every {IDLE_POLL:?}: {heads} reads in {:?}",
        IDLE_POLL * 3
    );

    // The next row is read by a read of the head, and the looks resume.
    mb.insert(&messages[1]);
    assert!(
        eventually(Duration::from_secs(60), || finished(&db, &mb, 2)),
        "the row after the quiet was not pumped and dispatched:\n{}",
        run.text()
    );
    // No look was made in the quiet: every look after it followed the
    // arrival.
    assert!(
        eventually(QUIET * 10, || {
            mb.statements_between(LOOK, &to, &mb.server_time()) > 0
        }),
        "the looks came back with the arrival:\n{}",
        run.text()
    );
    run.stop();
}
