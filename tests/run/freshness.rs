//! The freshness of what `flightstate run` published, on its own
//! `/metrics`: messages the mailbox received 20 s before they were queued
//! are counted once per delivered outbox row, per topic, in the buckets of
//! 20 s and more, never below; and the pump recorded each message's receipt
//! in `PROC_STATE.RECEIVED_AT` on its own clock. Against real PostgreSQL,
//! MariaDB and tansu.

use std::net::{SocketAddr, TcpListener};
use std::time::Duration;

use chrono::{NaiveDateTime, Utc};
use diesel::connection::SimpleConnection;
use diesel::sql_types::{BigInt, Nullable, Text, Timestamp};
use diesel::{QueryableByName, RunQueryDsl};
use mysql::prelude::Queryable;

use crate::common::sis::day_messages;
use crate::common::{TestDatabase, eventually};
use crate::dispatching::{tansu, topics};
use crate::pumping::MailboxDatabase;
use crate::reading::{get, parse_prometheus, value};
use crate::running::{RunChild, RunSetup, finished};

/// How long before its row was queued the mailbox received each message.
const AGE: i64 = 20;
/// The histogram `/metrics` shows.
const FRESHNESS: &str = "flightstate_publish_freshness_seconds";

/// Logs every outbox row the state database commits, by topic: the rows
/// the dispatcher must count (it deletes them once sent). A row of a
/// rolled-back transaction is rolled back with its log row.
const OUTBOX_LOG: &str = "
CREATE TABLE outbox_log (topic TEXT NOT NULL, event_id BIGINT NOT NULL);
CREATE FUNCTION log_outbox_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO outbox_log (topic, event_id) VALUES (TG_ARGV[0], NEW.event_id);
    RETURN NEW;
END $$;
CREATE TRIGGER kafka_schd_log AFTER INSERT ON kafka_schd
    FOR EACH ROW EXECUTE FUNCTION log_outbox_row('state');
CREATE TRIGGER kafka_msg_log AFTER INSERT ON kafka_msg
    FOR EACH ROW EXECUTE FUNCTION log_outbox_row('change');
";

#[derive(QueryableByName)]
struct Logged {
    #[diesel(sql_type = Text)]
    topic: String,
    #[diesel(sql_type = BigInt)]
    rows: i64,
}

/// The outbox rows committed, `(state, change)`.
fn outbox_rows(db: &TestDatabase) -> (f64, f64) {
    let logged: Vec<Logged> =
        diesel::sql_query("SELECT topic, count(*) AS rows FROM outbox_log GROUP BY topic")
            .load(&mut db.connect())
            .expect("read the outbox log");
    let of = |topic: &str| {
        logged
            .iter()
            .find(|l| l.topic == topic)
            .map_or(0.0, |l| l.rows as f64)
    };
    (of("state"), of("change"))
}

#[derive(QueryableByName)]
struct Received {
    #[diesel(sql_type = BigInt)]
    message_id: i64,
    #[diesel(sql_type = Nullable<Timestamp>)]
    received_at: Option<NaiveDateTime>,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

#[test]
fn what_was_published_is_counted_as_old_as_its_receipt_in_the_mailbox() {
    let messages = day_messages(4);
    let db = TestDatabase::migrated();
    db.connect()
        .batch_execute(OUTBOX_LOG)
        .expect("log the outbox rows");
    let mb = MailboxDatabase::create("fresh");
    let topics = topics("run-fresh");
    let api: SocketAddr = format!("127.0.0.1:{}", free_port())
        .parse()
        .expect("an address");
    let run = RunChild::start(&RunSetup {
        database_url: db.url().to_owned(),
        mailbox_url: mb.url(),
        brokers: tansu(),
        topics: topics.clone(),
        holder: "run-fresh".to_owned(),
        env: vec![("FLIGHTSTATE_API_BIND".to_owned(), api.to_string())],
    });

    // Received 20 s ago by the mailbox's clock, queued now: the pump may
    // read each row as soon as it is there.
    let queued_from = Utc::now().naive_utc();
    let mut conn = mb.conn();
    for m in &messages {
        conn.exec_drop(
            "INSERT INTO cminmsgs (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED, CMINMSGS_STATUS) \
             VALUES (?, NOW() - INTERVAL ? SECOND, 'VALID')",
            (m, AGE),
        )
        .expect("queue a message received earlier");
    }
    let queued_to = Utc::now().naive_utc();
    assert!(
        eventually(Duration::from_secs(90), || finished(
            &db,
            &mb,
            messages.len()
        )),
        "the stream was not pumped and dispatched:\n{}",
        run.text()
    );

    let (state_rows, change_rows) = outbox_rows(&db);
    assert!(
        state_rows > 0.0 && change_rows > 0.0,
        "the day made rows for both topics"
    );
    // A pass counts its rows once it committed: the scrape may come first.
    let mut samples = Vec::new();
    let counted = eventually(Duration::from_secs(10), || {
        let text = get(api, "/metrics").text();
        samples = parse_prometheus(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        value(
            &samples,
            &format!("{FRESHNESS}_count"),
            &[("topic", topics.0.as_str())],
        ) == state_rows
            && value(
                &samples,
                &format!("{FRESHNESS}_count"),
                &[("topic", topics.1.as_str())],
            ) == change_rows
    });
    for (topic, rows) in [
        (topics.0.as_str(), state_rows),
        (topics.1.as_str(), change_rows),
    ] {
        let count = value(&samples, &format!("{FRESHNESS}_count"), &[("topic", topic)]);
        let bucket = |le: &str| {
            value(
                &samples,
                &format!("{FRESHNESS}_bucket"),
                &[("topic", topic), ("le", le)],
            )
        };
        let sum = value(&samples, &format!("{FRESHNESS}_sum"), &[("topic", topic)]);
        eprintln!(
            "{topic}: {rows} rows, {count} counted, le=10 {}, le=30 {}, le=60 {}, sum {sum:.1} s",
            bucket("10"),
            bucket("30"),
            bucket("60")
        );
        assert!(
            counted,
            "{topic}: one observation per delivered row ({rows}), counted {count}"
        );
        assert_eq!(
            bucket("10"),
            0.0,
            "{topic}: nothing fresher than its receipt"
        );
        assert_eq!(
            bucket("60"),
            rows,
            "{topic}: every row 20 s old and a little more (a loaded machine included)"
        );
        assert_eq!(bucket("+Inf"), rows, "{topic}");
        assert!(sum >= AGE as f64 * rows, "{topic}: sum {sum} s");
    }
    // The apply latency is the same kind of histogram, on the same page.
    assert!(
        value(&samples, "flightstate_apply_seconds_count", &[]) >= messages.len() as f64,
        "the pump's apply latency counts every message"
    );

    let received: Vec<Received> =
        diesel::sql_query("SELECT message_id, received_at FROM proc_state ORDER BY message_id")
            .load(&mut db.connect())
            .expect("read PROC_STATE");
    assert_eq!(received.len(), messages.len());
    // CMINMSGS_DATE_RECEIVED keeps whole seconds: up to one more.
    let earliest = queued_from - chrono::Duration::seconds(AGE + 2);
    let latest = queued_to - chrono::Duration::seconds(AGE - 1);
    for r in &received {
        let at = r
            .received_at
            .unwrap_or_else(|| panic!("message {}: no RECEIVED_AT", r.message_id));
        assert!(
            earliest <= at && at <= latest,
            "message {}: received at {at}, not {AGE} s before it was queued ({queued_from} to {queued_to})",
            r.message_id
        );
    }
    run.stop();
}
