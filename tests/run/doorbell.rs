//! Under `flightstate run` nothing waits out an idle poll: the idle pump
//! sees a new row by its look at the mailbox's last id, and wakes the
//! dispatcher of its own process when it commits. With both idle polls set
//! to an hour, a message queued after everything went idle still reaches
//! the topics, against real PostgreSQL, MariaDB and tansu. Without the look
//! or the ring it would wait out the hour (the test's deadline fails
//! first).

use std::time::Duration;

use crate::common::sis::day_messages;
use crate::common::{TestDatabase, eventually};
use crate::dispatching::{read_all, tansu, topics};
use crate::pumping::MailboxDatabase;
use crate::running::{RunChild, RunSetup, finished};

#[test]
fn a_new_row_is_seen_at_once_and_its_commit_wakes_the_idle_dispatcher() {
    let messages = day_messages(3);
    let (last, first) = messages.split_last().expect("a stream");
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("doorbell");
    let topics = topics("run-doorbell");
    let run = RunChild::start(&RunSetup {
        database_url: db.url().to_owned(),
        mailbox_url: mb.url(),
        brokers: tansu(),
        topics: topics.clone(),
        holder: "run-doorbell".to_owned(),
        env: [
            "FLIGHTSTATE_KAFKA_IDLE_POLL_MS",
            "FLIGHTSTATE_PUMP_IDLE_POLL_MS",
        ]
        .into_iter()
        .map(|name| (name.to_owned(), (3600 * 1000).to_string()))
        .collect(),
    });

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
