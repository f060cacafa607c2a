//! Test infrastructure for `flightstate run` as a child process: the
//! process with its JSON log read from stderr line by line (each line with
//! the moment it was read), a tansu broker of the test's own behind a proxy
//! the test can cut or freeze, the stream a test feeds, and what a run
//! leaves behind (the state dump, `PROC_STATE`, the mailbox, and the state
//! topic against the stored state documents).
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use diesel::sql_types::{BigInt, Text};
use diesel::{QueryableByName, RunQueryDsl};
use flightstate::protocol::to_xml;
use flightstate::synth::{DayOptions, airport_day};

use crate::common::TestDatabase;
use crate::dispatching::{Record, pending, read_all};
use crate::pumping::{MailboxDatabase, proc_states, state_dump};

const BIN: &str = env!("CARGO_BIN_EXE_flightstate");

/// A generated day of `flights` flights: the snapshot, then its events.
pub fn stream(flights: usize) -> Vec<Vec<u8>> {
    let day = airport_day(&DayOptions {
        flights,
        ..DayOptions::default()
    });
    let mut messages = vec![to_xml(&day.snapshot).into_bytes()];
    messages.extend(day.events.iter().map(|m| to_xml(m).into_bytes()));
    messages
}

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

/// A log event of the child: when it was read, and the event.
pub type Logged = (Instant, serde_json::Value);

/// A running `flightstate run`, killed with the guard if still running.
pub struct RunChild {
    child: Child,
    log: Arc<Mutex<Vec<Logged>>>,
    /// The thread reading the log, joined by [`RunChild::stop`] so that the
    /// log is whole once the process ended.
    reader: Option<std::thread::JoinHandle<()>>,
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
            .env(
                "FLIGHTSTATE_KAFKA_DELIVERY_TIMEOUT_MS",
                DELIVERY_TIMEOUT.as_millis().to_string(),
            )
            .env("FLIGHTSTATE_KAFKA_LINGER_MS", "1")
            .env("FLIGHTSTATE_KAFKA_LANES", "2")
            .env("FLIGHTSTATE_KAFKA_IDLE_POLL_MS", "50")
            .env("FLIGHTSTATE_KAFKA_BACKOFF_INITIAL_MS", "200")
            .env("FLIGHTSTATE_KAFKA_BACKOFF_MAX_MS", "1000")
            .env("FLIGHTSTATE_PUMP_LEASE_SECS", "3")
            .env("FLIGHTSTATE_PUMP_IDLE_POLL_MS", "100")
            .env("FLIGHTSTATE_PUMP_BACKOFF_INITIAL_MS", "100")
            .env("FLIGHTSTATE_PUMP_BACKOFF_MAX_MS", "4000")
            .env("FLIGHTSTATE_LOG_FORMAT", "json")
            .env("RUST_LOG", "info")
            .env_remove("FLIGHTSTATE_FAILPOINTS");
        for (name, value) in &setup.env {
            command.env(name, value);
        }
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start flightstate run");
        let stderr = child.stderr.take().expect("the child's stderr");
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&log);
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let event = serde_json::from_str(&line)
                    .unwrap_or_else(|_| serde_json::Value::String(line.clone()));
                sink.lock().expect("log").push((Instant::now(), event));
            }
        });
        RunChild {
            child,
            log,
            reader: Some(reader),
            holder: setup.holder.clone(),
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process still runs.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Every event logged so far.
    pub fn events(&self) -> Vec<Logged> {
        self.log.lock().expect("log").clone()
    }

    /// Events at `WARN` or `ERROR` read in `[from, to]`.
    pub fn loud_between(&self, from: Instant, to: Instant) -> Vec<Logged> {
        self.events()
            .into_iter()
            .filter(|(at, event)| {
                *at >= from
                    && *at <= to
                    && matches!(event["level"].as_str(), Some("WARN" | "ERROR"))
            })
            .collect()
    }

    /// The first event at or after `since` whose message contains `text`.
    pub fn first_saying(&self, since: Instant, text: &str) -> Option<Logged> {
        self.events().into_iter().find(|(at, event)| {
            *at >= since
                && event["fields"]["message"]
                    .as_str()
                    .is_some_and(|m| m.contains(text))
        })
    }

    /// The whole log, one event a line.
    pub fn dump_log(&self) -> String {
        self.events()
            .iter()
            .map(|(_, event)| event.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// SIGTERM, then the exit, which must be a clean one; returns the whole
    /// log, read to its end.
    #[track_caller]
    pub fn stop(mut self) -> Vec<Logged> {
        let pid = libc::pid_t::try_from(self.child.id()).expect("pid fits");
        // SAFETY: `kill` has no memory effects; the pid is our own child.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        let status = wait_for_exit(&mut self.child, Duration::from_secs(30));
        assert!(
            status.success(),
            "flightstate run stops cleanly: {status:?}\n{}",
            self.dump_log()
        );
        if let Some(reader) = self.reader.take() {
            reader.join().expect("the log reader");
        }
        self.events()
    }

    /// SIGKILL, then the exit.
    pub fn kill(&mut self) -> ExitStatus {
        let _ = self.child.kill();
        self.child.wait().expect("wait for the killed process")
    }
}

impl Drop for RunChild {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[track_caller]
fn wait_for_exit(child: &mut Child, limit: Duration) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("flightstate run did not stop in {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits (at most `limit`) until `done` holds; `false` if it never did.
pub fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if done() {
            return true;
        }
        if start.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every one of `count` mailbox rows written back, and both outboxes empty.
pub fn finished(db: &TestDatabase, mb: &MailboxDatabase, count: usize) -> bool {
    let rows = mb.rows();
    if rows.len() != count || !rows.iter().all(|(_, _, processed)| *processed) {
        return false;
    }
    let mut conn = db.connect();
    pending(&mut conn, "kafka_schd") + pending(&mut conn, "kafka_msg") == 0
}

/// What a run leaves behind in the databases.
#[derive(Debug, PartialEq)]
pub struct Outcome {
    pub state: String,
    pub proc_states: Vec<(i64, String, Option<String>, i64)>,
    pub mailbox: Vec<(i64, Option<String>, bool)>,
}

pub fn outcome(db: &TestDatabase, mb: &MailboxDatabase) -> Outcome {
    let mut conn = db.connect();
    Outcome {
        state: state_dump(&mut conn),
        proc_states: proc_states(&mut conn),
        mailbox: mb.rows(),
    }
}

#[derive(QueryableByName)]
struct Document {
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = Text)]
    doc: String,
}

/// `FLIGHT_SCHD.STATE_DOCUMENT` of every flight, by FLID.
pub fn state_documents(db: &TestDatabase) -> BTreeMap<i64, serde_json::Value> {
    let mut conn = db.connect();
    diesel::sql_query(
        "SELECT flid, COALESCE(state_document, '') AS doc FROM flight_schd ORDER BY flid",
    )
    .load::<Document>(&mut conn)
    .expect("read the state documents")
    .into_iter()
    .map(|d| {
        let doc = serde_json::from_str(&d.doc)
            .unwrap_or_else(|e| panic!("flight {}: no state document ({e})", d.flid));
        (d.flid, doc)
    })
    .collect()
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

/// `(FLID, highest version before, then)` for each time a flight's version
/// went down on the topic.
pub fn out_of_order(records: &[Record]) -> Vec<(i64, i64, i64)> {
    let mut highest: HashMap<i64, i64> = HashMap::new();
    let mut found = Vec::new();
    for record in records {
        let json = record.json();
        let flid = json["FLID"].as_i64().expect("FLID");
        let version = json["STATE_VERSION"].as_i64().expect("STATE_VERSION");
        let before = highest.entry(flid).or_insert(version);
        if version < *before {
            found.push((flid, *before, version));
        }
        *before = (*before).max(version);
    }
    found
}

/// Asserts that each flight's last message on the state topic is its
/// stored state document, and that no flight is missing or left over.
#[track_caller]
pub fn assert_topic_matches_state(brokers: &str, topic: &str, db: &TestDatabase) {
    let records = read_all(brokers, topic);
    let on_topic = last_per_flight(&records);
    let stored = state_documents(db);
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
        wait_until(Duration::from_secs(60), || finished(
            &db,
            &mb,
            messages.len()
        )),
        "the clean run did not finish in 60 s:\n{}",
        run.dump_log()
    );
    run.stop();
    mb.assert_each_written_back_once();
    assert_topic_matches_state(&brokers, &topics.0, &db);
    outcome(&db, &mb)
}
