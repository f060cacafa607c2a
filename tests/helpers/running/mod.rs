//! Test infrastructure for `flightstate run` as a child process: the
//! process with its JSON log read from stderr (`common::child::Running`),
//! started on the test's servers with short timeouts, and what a run leaves
//! behind (the state dump, `PROC_STATE`, the mailbox, and the state topic
//! against the stored state documents).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ops::{Deref, DerefMut};
use std::process::{Command, Stdio};
use std::time::Duration;

use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::{QueryableByName, RunQueryDsl};

use crate::common::child::{BIN, Logged, Running};
use crate::common::sis::state_documents;
use crate::common::{TestDatabase, eventually};
use crate::dispatching::{Record, out_of_order, pending, read_all};
use crate::pumping::{MailboxDatabase, Outcome, outcome};

/// Where a `flightstate run` connects, and how.
pub struct RunSetup {
    pub database_url: String,
    pub mailbox_url: String,
    pub brokers: String,
    pub topics: (String, String),
    /// `pump.holder` (so that `PIPELINE_LOCK` names the process).
    pub holder: String,
    /// More `FLIGHTSTATE_*` settings, applied last.
    pub env: Vec<(String, String)>,
}

/// `database.io_timeout_secs` and `mailbox.io_timeout_secs` of the runs.
pub const IO_TIMEOUT: Duration = Duration::from_secs(3);
/// `kafka.delivery_timeout_ms` of the runs.
pub const DELIVERY_TIMEOUT: Duration = Duration::from_secs(3);
/// `kafka.linger_ms` of the runs.
pub const LINGER: Duration = Duration::from_millis(1);
/// `database.connection_timeout_secs` of the runs: how long the state
/// database's pool waits for a connection.
pub const CONNECTION_WAIT: Duration = Duration::from_secs(3);
/// `mailbox.connect_timeout_secs` of the runs.
pub const MAILBOX_CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// `pump.lease_secs` of the runs (renewed every third).
pub const LEASE: Duration = Duration::from_secs(3);

/// A running `flightstate run` (its log read as [`Running`]'s), killed with
/// the guard if still running.
pub struct RunChild {
    process: Running,
    pub holder: String,
}

impl RunChild {
    #[track_caller]
    pub fn start(setup: &RunSetup) -> RunChild {
        let mut command = Command::new(BIN);
        command
            .args(["--config", "/nonexistent/flightstate.toml", "run"])
            .env("FLIGHTSTATE_DATABASE_URL", &setup.database_url)
            .env("FLIGHTSTATE_MAILBOX_URL", &setup.mailbox_url)
            .env("FLIGHTSTATE_KAFKA_BROKERS", &setup.brokers)
            .env("FLIGHTSTATE_KAFKA_STATE_TOPIC", &setup.topics.0)
            .env("FLIGHTSTATE_KAFKA_CHANGE_TOPIC", &setup.topics.1)
            // No read API: nothing here needs it, and two processes (or
            // parallel tests) must not contend for a port.
            .env("FLIGHTSTATE_API_BIND", "")
            .env("FLIGHTSTATE_PUMP_HOLDER", &setup.holder)
            .env("FLIGHTSTATE_DATABASE_CONNECT_TIMEOUT_SECS", "2")
            .env(
                "FLIGHTSTATE_DATABASE_CONNECTION_TIMEOUT_SECS",
                CONNECTION_WAIT.as_secs().to_string(),
            )
            .env(
                "FLIGHTSTATE_DATABASE_IO_TIMEOUT_SECS",
                IO_TIMEOUT.as_secs().to_string(),
            )
            .env(
                "FLIGHTSTATE_MAILBOX_CONNECT_TIMEOUT_SECS",
                MAILBOX_CONNECT_TIMEOUT.as_secs().to_string(),
            )
            .env(
                "FLIGHTSTATE_MAILBOX_IO_TIMEOUT_SECS",
                IO_TIMEOUT.as_secs().to_string(),
            )
            .env(
                "FLIGHTSTATE_KAFKA_DELIVERY_TIMEOUT_MS",
                DELIVERY_TIMEOUT.as_millis().to_string(),
            )
            .env(
                "FLIGHTSTATE_KAFKA_LINGER_MS",
                LINGER.as_millis().to_string(),
            )
            .env("FLIGHTSTATE_KAFKA_LANES", "2")
            .env("FLIGHTSTATE_KAFKA_IDLE_POLL_MS", "50")
            .env("FLIGHTSTATE_KAFKA_BACKOFF_INITIAL_MS", "200")
            .env("FLIGHTSTATE_KAFKA_BACKOFF_MAX_MS", "1000")
            .env("FLIGHTSTATE_PUMP_LEASE_SECS", LEASE.as_secs().to_string())
            .env("FLIGHTSTATE_PUMP_IDLE_POLL_MS", "100")
            .env("FLIGHTSTATE_PUMP_BACKOFF_INITIAL_MS", "100")
            .env("FLIGHTSTATE_PUMP_BACKOFF_MAX_MS", "4000")
            .env("FLIGHTSTATE_LOG_FORMAT", "json")
            .env("RUST_LOG", "info")
            .env_remove("FLIGHTSTATE_FAILPOINTS");
        for (name, value) in &setup.env {
            command.env(name, value);
        }
        command.stdout(Stdio::null());
        RunChild {
            process: Running::start(command, "flightstate run"),
            holder: setup.holder.clone(),
        }
    }

    /// Like [`Running::stop`], within 30 s.
    #[track_caller]
    pub fn stop(self) -> Vec<Logged> {
        self.process.stop(Duration::from_secs(30))
    }
}

impl Deref for RunChild {
    type Target = Running;

    fn deref(&self) -> &Running {
        &self.process
    }
}

impl DerefMut for RunChild {
    fn deref_mut(&mut self) -> &mut Running {
        &mut self.process
    }
}

#[derive(QueryableByName)]
struct Lock {
    #[diesel(sql_type = Nullable<Text>)]
    lease_holder: Option<String>,
    #[diesel(sql_type = BigInt)]
    lease_epoch: i64,
}

/// `PIPELINE_LOCK`'s holder and epoch.
pub fn lease(db: &TestDatabase) -> (Option<String>, i64) {
    let mut conn = db.connect();
    let lock = diesel::sql_query("SELECT lease_holder, lease_epoch FROM pipeline_lock")
        .get_result::<Lock>(&mut conn)
        .expect("read PIPELINE_LOCK");
    (lock.lease_holder, lock.lease_epoch)
}

/// Every one of `count` mailbox rows written back, and both outboxes empty.
pub fn finished(db: &TestDatabase, mb: &MailboxDatabase, count: usize) -> bool {
    if !mb.all_written_back(count) {
        return false;
    }
    let mut conn = db.connect();
    pending(&mut conn, "kafka_schd") + pending(&mut conn, "kafka_msg") == 0
}

/// Each flight's last message on the state topic, tombstones left out: what
/// a compacted topic keeps of the flights that exist.
pub fn last_per_flight(records: &[Record]) -> BTreeMap<i64, serde_json::Value> {
    let mut last: BTreeMap<i64, serde_json::Value> = BTreeMap::new();
    for record in records {
        let json = record.json();
        let flid = json["FLID"].as_i64().expect("FLID");
        assert_eq!(
            record.key.as_deref(),
            Some(flid.to_string().as_str()),
            "keyed by FLID"
        );
        last.insert(flid, json);
    }
    last.retain(|_, json| json["DELETED"] != serde_json::Value::Bool(true));
    last
}

/// Asserts that each flight's last message on the state topic is its
/// stored state document, and that no flight is missing or left over.
#[track_caller]
pub fn assert_topic_matches_state(brokers: &str, topic: &str, db: &TestDatabase) {
    let records = read_all(brokers, topic);
    let on_topic = last_per_flight(&records);
    let stored = state_documents(&mut db.connect());
    assert_eq!(
        on_topic.keys().collect::<Vec<_>>(),
        stored.keys().collect::<Vec<_>>(),
        "the flights on the state topic"
    );
    for (flid, doc) in &stored {
        assert_eq!(
            on_topic.get(flid),
            Some(doc),
            "flight {flid}: the topic's last message is not its stored state"
        );
    }
    let wrong = out_of_order(&records);
    assert!(
        wrong.is_empty(),
        "versions went down on the topic: {wrong:?}"
    );
}

/// The clean run of `messages`: one `flightstate run` straight to the
/// servers (the shared tansu, topics of its own) to the end of the stream
/// and of the outbox; what it leaves behind.
#[track_caller]
pub fn clean_run(tag: &str, messages: &[Vec<u8>]) -> Outcome {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create(tag);
    let topics = crate::dispatching::topics(tag);
    let brokers = crate::dispatching::tansu();
    let run = RunChild::start(&RunSetup {
        database_url: db.url().to_owned(),
        mailbox_url: mb.url(),
        brokers: brokers.clone(),
        topics: topics.clone(),
        holder: "clean".to_owned(),
        env: Vec::new(),
    });
    for m in messages {
        mb.insert(m);
    }
    assert!(
        eventually(Duration::from_secs(60), || finished(
            &db,
            &mb,
            messages.len()
        )),
        "the clean run did not finish in 60 s:\n{}",
        run.text()
    );
    run.stop();
    mb.assert_each_written_back_once();
    assert_topic_matches_state(&brokers, &topics.0, &db);
    outcome(&mut db.connect(), &mb)
}
