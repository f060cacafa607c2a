//! Heartbeats (docs/kafka.md, "Heartbeats") against PostgreSQL, MariaDB and
//! tansu: what a heartbeat says of the watermark, the outbox, the mailbox
//! and the lease, that every record up to its watermark is on the state
//! topic before it, and that a dispatcher whose gate is closed (a standby)
//! or that has stopped sends none.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use flightstate::dispatch::{Beat, Dispatcher, Gate, HEARTBEAT_KIND, HeartbeatSettings};
use flightstate::mailbox::Mailbox;
use flightstate::store::pg::PgStore;
use flightstate::store::{LeaseOps, Store};

use crate::common::sis;
use crate::dispatching::{
    Record, drain, kafka, outbox_of_a_day, read_all, rebuild, settings, stored, tansu, topics,
};
use crate::pumping::{MailboxDatabase, mailbox_settings};

/// A heartbeat topic of the test's own, every `interval`, keyed by `PEK`.
fn heartbeat_settings(test: &str, interval: Duration) -> HeartbeatSettings {
    HeartbeatSettings {
        topic: format!("{}.heartbeat", topics(test).0),
        interval,
        station: "PEK".to_owned(),
    }
}

/// A dispatcher of `store` to topics of the test's own that sends
/// heartbeats by `heartbeat`, with the backlog of `mailbox`.
fn dispatcher(
    store: PgStore,
    test: &str,
    heartbeat: &HeartbeatSettings,
    mailbox: Option<Arc<Mailbox>>,
) -> (Dispatcher<PgStore>, (String, String)) {
    let topics = topics(test);
    let dispatcher = Dispatcher::new(store, kafka(&tansu()), settings(&topics))
        .and_then(|d| d.with_heartbeat(heartbeat.clone(), mailbox))
        .expect("a dispatcher");
    dispatcher.prepare_topics().expect("topics");
    (dispatcher, topics)
}

#[track_caller]
fn beat(dispatcher: &mut Dispatcher<PgStore>) -> Beat {
    dispatcher
        .heartbeat_once()
        .expect("heartbeats are on")
        .expect("a heartbeat sent")
}

/// The heartbeats on `topic`, each held to the contract by the reader.
fn heartbeats(topic: &str) -> Vec<(Record, serde_json::Value)> {
    read_all(&tansu(), topic)
        .into_iter()
        .map(|r| {
            let value = r.json();
            (r, value)
        })
        .collect()
}

#[test]
fn a_heartbeat_names_what_is_published_and_what_is_still_to_send() {
    let (db, store) = outbox_of_a_day(30);
    let mut conn = db.connect();
    let applied = sis::day_messages(30).len() as i64;
    let mailbox_db = MailboxDatabase::create("heartbeat");
    mailbox_db.insert(b"<MSG/>");
    let mailbox = Mailbox::connect(mailbox_settings(mailbox_db.url())).expect("a mailbox pool");
    let settings = heartbeat_settings("heartbeat-watermark", Duration::from_secs(30));
    let (mut dispatcher, (state_topic, _)) = dispatcher(
        store.clone(),
        "heartbeat-watermark",
        &settings,
        Some(Arc::new(mailbox)),
    );

    // Applied, not sent: the watermark stays below the first message whose
    // rows wait, and no pump holds the lease.
    let before = beat(&mut dispatcher);
    assert_eq!(before.last_message_id, Some(applied), "{before:?}");
    assert!(before.outbox_pending > 0, "{before:?}");
    assert_eq!(before.published_through_message_id, Some(0), "{before:?}");
    assert_eq!(before.mailbox_pending, Some(1), "{before:?}");
    assert!(!before.lease_held, "{before:?}");

    // Sent, and a pump holds the lease.
    let report = drain(&mut dispatcher);
    assert!(report.state.sent > 0, "{report:?}");
    store
        .transaction(|tx| {
            let now = chrono::Utc::now().naive_utc();
            tx.acquire_lease("heartbeat-test", now, now + chrono::Duration::seconds(60))
        })
        .expect("the lease taken");
    let after = beat(&mut dispatcher);
    assert_eq!(after.outbox_pending, 0, "{after:?}");
    assert_eq!(after.outbox_oldest_age_secs, None, "{after:?}");
    assert_eq!(
        after.published_through_message_id,
        Some(applied),
        "{after:?}"
    );
    assert!(after.lease_held, "{after:?}");

    // Every record before the heartbeat is on the state topic: the flights
    // a consumer rebuilds from it are the database's.
    assert_eq!(
        rebuild(&read_all(&tansu(), &state_topic)),
        stored(&store, &mut conn),
        "a heartbeat said published through {applied}, yet the state topic lacks flights"
    );

    // Three on the topic: the two above and the one a dispatcher that
    // stops once idle sends as it ends (the outbox empty, no lease yet).
    let read = heartbeats(&settings.topic);
    assert_eq!(read.len(), 3, "{read:?}");
    for (record, _) in &read {
        assert_eq!(record.key.as_deref(), Some("PEK"));
        assert_eq!(record.kind.as_deref(), Some(HEARTBEAT_KIND));
    }
    assert_eq!(read[0].1, serde_json::to_value(&before).expect("json"));
    assert_eq!(read[1].1["OUTBOX_PENDING"], 0, "{:?}", read[1]);
    assert_eq!(read[1].1["LEASE_HELD"], false, "{:?}", read[1]);
    assert_eq!(read[2].1, serde_json::to_value(&after).expect("json"));
}

/// A gate a test opens and closes: a `run` standby's, whose pump does not
/// hold the lease.
struct Switch(AtomicBool);

impl Gate for Switch {
    fn is_open(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    fn why_closed(&self) -> &str {
        "closed by the test"
    }
}

/// Sets `flag` when dropped: a failed assertion inside a thread scope
/// still stops the dispatcher the scope waits for.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[test]
fn heartbeats_come_every_interval_only_while_the_dispatcher_dispatches() {
    let (_db, store) = outbox_of_a_day(5);
    let settings = heartbeat_settings("heartbeat-interval", Duration::from_secs(1));
    let (mut dispatcher, _) = dispatcher(store, "heartbeat-interval", &settings, None);
    let stop = AtomicBool::new(false);
    let gate = Switch(AtomicBool::new(true));
    let closed_at = std::thread::scope(|scope| {
        let running = scope.spawn(|| dispatcher.run_while(&stop, false, &gate));
        let _stop = SetOnDrop(&stop);
        std::thread::sleep(Duration::from_millis(3500));
        gate.0.store(false, Ordering::SeqCst);
        let closed_at = chrono::Utc::now().naive_utc();
        std::thread::sleep(Duration::from_millis(3000));
        stop.store(true, Ordering::SeqCst);
        running
            .join()
            .expect("the dispatcher thread")
            .expect("the dispatcher ran");
        closed_at
    });
    let sent = heartbeats(&settings.topic);
    assert!(
        (3..=5).contains(&sent.len()),
        "about one heartbeat a second for 3.5 s: {sent:?}"
    );
    for (_, value) in &sent {
        let at = chrono::NaiveDateTime::parse_from_str(
            value["SENT_AT"].as_str().unwrap_or_default(),
            "%Y-%m-%dT%H:%M:%S",
        )
        .expect("SENT_AT");
        assert!(
            at <= closed_at,
            "a heartbeat at {at} after the gate closed at {closed_at}"
        );
        // Without a mailbox configured, its backlog is unknown, not 0.
        assert!(value.get("MAILBOX_PENDING").is_none(), "{value}");
    }
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        heartbeats(&settings.topic).len(),
        sent.len(),
        "a heartbeat after the dispatcher stopped"
    );
}

#[test]
fn heartbeats_off_send_nothing_and_create_no_topic() {
    let (_db, store) = outbox_of_a_day(2);
    let settings = heartbeat_settings("heartbeat-off", Duration::ZERO);
    let (mut dispatcher, _) = dispatcher(store, "heartbeat-off", &settings, None);
    assert!(dispatcher.heartbeat_once().is_none());
    drain(&mut dispatcher);
    let metadata = flightstate::kafka::KafkaClient::new(tansu())
        .metadata(None, Duration::from_secs(10))
        .expect("metadata");
    assert!(
        !metadata.topics().iter().any(|t| t.name() == settings.topic),
        "the heartbeat topic was created with heartbeats off"
    );
}
