//! Benchmark: how long a message takes from its mailbox insert to its
//! change notice on the topic under `flightstate run` with its default
//! settings, at a site's pace — the wait a flight display sees. Next to it,
//! in the same run, the floor: a plain producer's record from its send to
//! a consumer on the same broker.
//!
//! Each pace (default 20 and 100 FLOPs a second, for 45 s) runs against a
//! state database, a mailbox and topics of its own: the day's snapshot is
//! applied first (not timed), then a consumer reads the change topic from
//! its end while a feeder inserts one FLOP at a time; each message is timed
//! from its insert to its first notice (a FLOP that changes nothing has
//! none, and is counted apart). Then the drain of a 10-minute backlog at
//! 20/s: the process stopped, 12,000 FLOPs queued, the process started, the
//! time until the last notice. And the idle load: statements per second the
//! process runs with nothing to do, on PostgreSQL (transactions of its
//! database, `pg_stat_database`) and on MariaDB (commands of a user of its
//! own, `USER_STATISTICS`, with `userstat` switched on for the run).
//!
//! Nothing is asserted: the numbers are for people (`docs/benchmarks.md`).
//!
//! Run: `cargo bench --bench mailbox_to_topic` (PostgreSQL, MariaDB and
//! tansu as for the tests: `scripts/services`). Options by env:
//! `FLIGHTSTATE_BENCH_RATES` (default `20,100`), `FLIGHTSTATE_BENCH_SECS`
//! (45), `FLIGHTSTATE_BENCH_BACKLOG_SECS` (600 at 20/s; 0 skips it),
//! `FLIGHTSTATE_BENCH_QUIET_IDLE=1` (the idle load after a quiet minute too),
//! `FLIGHTSTATE_BENCH_BINARY` (another `flightstate` to run, e.g. a
//! release to compare with), and any `FLIGHTSTATE_*` setting, passed on to
//! the process (e.g. `FLIGHTSTATE_PUMP_IDLE_POLL_MS`).

use std::collections::HashMap;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use diesel::Connection;
use flightstate::protocol::to_xml;
use flightstate::synth::{DayOptions, airport_day};
use mysql::prelude::Queryable;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::{ClientConfig, Message, Offset, TopicPartitionList};

mod common;

use common::{BenchDatabase, BenchResult, env_or};

/// The MariaDB user the process connects as, so that its commands can be
/// told from everyone else's.
const MAILBOX_USER: &str = "fs_latency_bench";

fn main() -> BenchResult<()> {
    let rates: Vec<u32> = std::env::var("FLIGHTSTATE_BENCH_RATES")
        .unwrap_or_else(|_| "20,100".to_owned())
        .split(',')
        .filter_map(|r| r.trim().parse().ok())
        .collect();
    let secs: u64 = env_or("FLIGHTSTATE_BENCH_SECS", 45);
    let backlog_secs: u64 = env_or("FLIGHTSTATE_BENCH_BACKLOG_SECS", 600);
    let brokers = std::env::var("FLIGHTSTATE_TEST_KAFKA_BROKERS")
        .unwrap_or_else(|_| "127.0.0.1:9092".to_owned());
    let binary = std::env::var("FLIGHTSTATE_BENCH_BINARY")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_flightstate").to_owned());
    println!("flightstate: {binary}");
    // `FLIGHTSTATE_BENCH_QUIET_IDLE=1`: also the idle load after a quiet
    // minute (a minute more per rate).
    let quiet_idle = std::env::var_os("FLIGHTSTATE_BENCH_QUIET_IDLE").is_some();

    let floor = producer_floor(&brokers, 20, 200)?;
    println!(
        "plain producer → consumer, 200 records at 20/s: {}",
        floor.line()
    );
    let day = Day::generate()?;
    let events = &day.flops;
    println!("FLOPs of the generated day: {}", events.len());
    for rate in &rates {
        let count = (*rate as u64 * secs) as usize;
        let site = Site::new(&brokers, &format!("r{rate}"))?;
        let mut run = site.start(&binary)?;
        site.apply_snapshot(&day.snapshot)?;
        let idle = site.idle_load(Duration::from_secs(10))?;
        println!("idle load of run: {idle}");
        let latencies = site.feed(&events[..count.min(events.len())], *rate)?;
        if quiet_idle {
            // The pump stops its arrival looks after a quiet minute.
            std::thread::sleep(Duration::from_secs(62));
            let quiet = site.idle_load(Duration::from_secs(10))?;
            println!("idle load of run after a quiet minute: {quiet}");
        }
        println!(
            "{rate}/s for {secs} s: {} (floor p50 ×{:.1}, p99 ×{:.1})",
            latencies.line(),
            latencies.p(50.0) / floor.p(50.0).max(0.001),
            latencies.p(99.0) / floor.p(99.0).max(0.001),
        );
        run.stop();
    }
    if backlog_secs > 0 {
        let count = ((20 * backlog_secs) as usize).min(events.len());
        let site = Site::new(&brokers, "backlog")?;
        let mut run = site.start(&binary)?;
        site.apply_snapshot(&day.snapshot)?;
        run.stop();
        site.insert_all(&events[..count])?;
        let started = Instant::now();
        let mut run = site.start(&binary)?;
        site.wait_until_done(count + 1, Duration::from_secs(600))?;
        let took = started.elapsed().as_secs_f64();
        println!(
            "backlog of {backlog_secs} s at 20/s ({count} FLOPs): drained to the topic in {took:.1} s = {:.0} msg/s",
            count as f64 / took
        );
        run.stop();
    }
    Ok(())
}

/// The generated day: its snapshot and its FLOPs, in order.
struct Day {
    snapshot: Vec<u8>,
    flops: Vec<Vec<u8>>,
}

impl Day {
    fn generate() -> BenchResult<Day> {
        let day = airport_day(&DayOptions {
            seed: 20261205,
            day: NaiveDate::from_ymd_opt(2026, 12, 5).ok_or("day")?,
            flights: 2000,
            ..DayOptions::default()
        });
        Ok(Day {
            snapshot: to_xml(&day.snapshot).into_bytes(),
            flops: day
                .events
                .iter()
                .filter(|m| m.meta.msg_type == "FLOP")
                .map(|m| to_xml(m).into_bytes())
                .collect(),
        })
    }
}

/// Latencies in seconds, and the messages that had no notice.
struct Latencies {
    seconds: Vec<f64>,
    without_notice: usize,
}

impl Latencies {
    fn p(&self, percent: f64) -> f64 {
        if self.seconds.is_empty() {
            return f64::NAN;
        }
        let mut sorted = self.seconds.clone();
        sorted.sort_by(f64::total_cmp);
        let at = ((percent / 100.0) * (sorted.len() - 1) as f64).round() as usize;
        sorted[at.min(sorted.len() - 1)]
    }

    fn line(&self) -> String {
        let max = self.seconds.iter().copied().fold(0.0, f64::max);
        format!(
            "{} timed, p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms ({} without a notice)",
            self.seconds.len(),
            self.p(50.0) * 1000.0,
            self.p(99.0) * 1000.0,
            max * 1000.0,
            self.without_notice
        )
    }
}

/// The floor: a plain producer sends `count` records at `rate` a second to
/// a topic of its own, a consumer reads them; each timed from send to read.
fn producer_floor(brokers: &str, rate: u32, count: usize) -> BenchResult<Latencies> {
    let topic = format!("fs-bench-floor-{}", std::process::id());
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set("linger.ms", "5")
        .set("acks", "all")
        .create()?;
    common::create_topics(&flightstate::kafka::KafkaClient::new(brokers), &[&topic])?;
    producer
        .send(BaseRecord::to(&topic).key("warm").payload("warm"))
        .map_err(|(e, _)| e)?;
    producer.flush(Duration::from_secs(10))?;
    let reader = NoticeReader::start(brokers, &topic, |m| {
        m.key()
            .and_then(|k| std::str::from_utf8(k).ok()?.parse().ok())
    })?;
    let mut sent = HashMap::new();
    for i in 0..count {
        sent.insert(i as i64, Instant::now());
        producer
            .send(BaseRecord::to(&topic).key(&i.to_string()).payload("x"))
            .map_err(|(e, _)| e)?;
        producer.poll(Duration::ZERO);
        std::thread::sleep(Duration::from_secs_f64(1.0 / f64::from(rate)));
    }
    producer.flush(Duration::from_secs(10))?;
    std::thread::sleep(Duration::from_secs(2));
    Ok(reader.finish(&sent))
}

/// A consumer thread reading a topic from its end, noting when it first
/// saw each id `id_of` finds in a record.
struct NoticeReader {
    seen: Arc<Mutex<HashMap<i64, Instant>>>,
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl NoticeReader {
    fn start(
        brokers: &str,
        topic: &str,
        id_of: fn(&rdkafka::message::BorrowedMessage<'_>) -> Option<i64>,
    ) -> BenchResult<NoticeReader> {
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", brokers)
            .set("group.id", format!("{topic}-bench"))
            .set("enable.auto.commit", "false")
            .set("fetch.wait.max.ms", "10")
            .create()?;
        let mut assignment = TopicPartitionList::new();
        assignment.add_partition_offset(topic, 0, Offset::End)?;
        consumer.assign(&assignment)?;
        // Polled once, so that the end is fixed before anything is sent.
        let _ = consumer.poll(Duration::from_millis(500));
        let seen = Arc::new(Mutex::new(HashMap::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let seen = Arc::clone(&seen);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    if let Some(Ok(message)) = consumer.poll(Duration::from_millis(50)) {
                        let at = Instant::now();
                        if let Some(id) = id_of(&message)
                            && let Ok(mut seen) = seen.lock()
                        {
                            seen.entry(id).or_insert(at);
                        }
                    }
                }
            })
        };
        Ok(NoticeReader { seen, stop, thread })
    }

    fn finish(self, sent: &HashMap<i64, Instant>) -> Latencies {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.thread.join();
        let seen = self.seen.lock().map(|s| s.clone()).unwrap_or_default();
        let mut seconds = Vec::new();
        let mut without_notice = 0;
        for (id, at) in sent {
            match seen.get(id) {
                Some(read) => seconds.push(read.saturating_duration_since(*at).as_secs_f64()),
                None => without_notice += 1,
            }
        }
        Latencies {
            seconds,
            without_notice,
        }
    }
}

/// The MESSAGE_ID of a change notice.
fn notice_message_id(message: &rdkafka::message::BorrowedMessage<'_>) -> Option<i64> {
    let value: serde_json::Value = serde_json::from_slice(message.payload()?).ok()?;
    value["MESSAGE_ID"].as_i64()
}

/// A state database, a mailbox and topics of one pace's own.
struct Site {
    db: BenchDatabase,
    mailbox_url: String,
    root: mysql::Pool,
    brokers: String,
    topics: (String, String),
}

impl Site {
    fn new(brokers: &str, tag: &str) -> BenchResult<Site> {
        let admin = common::pg_admin_url();
        let maria = std::env::var("FLIGHTSTATE_TEST_MARIADB_URL")
            .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306".to_owned());
        let db = BenchDatabase::create(&admin, &format!("latency_{tag}"))?;
        let name = db.name.clone();
        let root = mysql::Pool::new(maria.as_str())?;
        let mut conn = root.get_conn()?;
        common::create_mailbox(&mut conn, &name)?;
        conn.query_drop(format!(
            "CREATE USER IF NOT EXISTS {MAILBOX_USER}@'%' IDENTIFIED BY 'bench'"
        ))?;
        conn.query_drop(format!("GRANT ALL ON {name}.* TO {MAILBOX_USER}@'%'"))?;
        conn.query_drop("SET GLOBAL userstat = 1")?;
        let host = maria.trim_start_matches("mysql://");
        let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
        let stamp = std::process::id();
        Ok(Site {
            mailbox_url: format!("mysql://{MAILBOX_USER}:bench@{host}/{name}"),
            db,
            root,
            brokers: brokers.to_owned(),
            topics: (
                format!("fs-bench-{tag}-{stamp}.state"),
                format!("fs-bench-{tag}-{stamp}.change"),
            ),
        })
    }

    fn start(&self, binary: &str) -> BenchResult<RunProcess> {
        let mut command = Command::new(binary);
        command
            .args(["--config", "/nonexistent/flightstate.toml", "run"])
            .env("FLIGHTSTATE_DATABASE_URL", &self.db.url)
            .env("FLIGHTSTATE_MAILBOX_URL", &self.mailbox_url)
            .env("FLIGHTSTATE_KAFKA_BROKERS", &self.brokers)
            .env("FLIGHTSTATE_KAFKA_STATE_TOPIC", &self.topics.0)
            .env("FLIGHTSTATE_KAFKA_CHANGE_TOPIC", &self.topics.1)
            .env("FLIGHTSTATE_API_BIND", "")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let status = Command::new(binary)
            .args(["--config", "/nonexistent/flightstate.toml", "migrate"])
            .env("FLIGHTSTATE_DATABASE_URL", &self.db.url)
            .stdout(Stdio::null())
            .status()?;
        if !status.success() {
            return Err(format!("migrate: {status}").into());
        }
        Ok(RunProcess(command.spawn()?))
    }

    fn mailbox(&self) -> BenchResult<mysql::PooledConn> {
        let mut conn = self.root.get_conn()?;
        conn.query_drop(format!("USE {}", self.db.name))?;
        Ok(conn)
    }

    fn insert(&self, conn: &mut mysql::PooledConn, body: &[u8]) -> BenchResult<i64> {
        conn.exec_drop(
            "INSERT INTO cminmsgs (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED, CMINMSGS_STATUS) \
             VALUES (?, NOW(), 'VALID')",
            (body,),
        )?;
        Ok(i64::try_from(conn.last_insert_id())?)
    }

    fn insert_all(&self, bodies: &[Vec<u8>]) -> BenchResult<()> {
        common::insert_all(&mut self.mailbox()?, bodies)
    }

    /// Until `rows` mailbox rows are written back and the outbox is empty.
    fn wait_until_done(&self, rows: usize, limit: Duration) -> BenchResult<()> {
        let deadline = Instant::now() + limit;
        let mut conn = self.mailbox()?;
        let mut pg = diesel::PgConnection::establish(&self.db.url)?;
        loop {
            let done: Option<i64> = conn.query_first(
                "SELECT COUNT(*) FROM cminmsgs WHERE CMINMSGS_DATE_PROCESSED IS NOT NULL",
            )?;
            if done.unwrap_or(0) as usize >= rows && outbox_empty(&mut pg)? {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!("not done within {limit:?}").into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn apply_snapshot(&self, snapshot: &[u8]) -> BenchResult<()> {
        let mut conn = self.mailbox()?;
        self.insert(&mut conn, snapshot)?;
        self.wait_until_done(1, Duration::from_secs(120))
    }

    /// Inserts `bodies` one at a time at `rate` a second and times each to
    /// its first change notice.
    fn feed(&self, bodies: &[Vec<u8>], rate: u32) -> BenchResult<Latencies> {
        let reader = NoticeReader::start(&self.brokers, &self.topics.1, notice_message_id)?;
        let mut conn = self.mailbox()?;
        let mut sent = HashMap::new();
        let started = Instant::now();
        for (i, body) in bodies.iter().enumerate() {
            let due = started + Duration::from_secs_f64(i as f64 / f64::from(rate));
            std::thread::sleep(due.saturating_duration_since(Instant::now()));
            let at = Instant::now();
            let id = self.insert(&mut conn, body)?;
            sent.insert(id, at);
        }
        self.wait_until_done(bodies.len() + 1, Duration::from_secs(120))?;
        std::thread::sleep(Duration::from_secs(2));
        Ok(reader.finish(&sent))
    }

    /// Statements a second of the idle process: transactions of its
    /// PostgreSQL database, commands of its MariaDB user.
    fn idle_load(&self, over: Duration) -> BenchResult<String> {
        let mut pg = diesel::PgConnection::establish(&self.db.url)?;
        let mut root = self.root.get_conn()?;
        let read = |pg: &mut diesel::PgConnection,
                    root: &mut mysql::PooledConn|
         -> BenchResult<(i64, i64)> {
            let pg_count = transactions(pg, &self.db.name)?;
            let maria: Option<(i64, i64, i64)> = root.exec_first(
                "SELECT SELECT_COMMANDS, UPDATE_COMMANDS, OTHER_COMMANDS \
                 FROM information_schema.USER_STATISTICS WHERE USER = ?",
                (MAILBOX_USER,),
            )?;
            let (s, u, o) = maria.unwrap_or_default();
            Ok((pg_count, s + u + o))
        };
        std::thread::sleep(Duration::from_secs(2));
        let before = read(&mut pg, &mut root)?;
        std::thread::sleep(over);
        let after = read(&mut pg, &mut root)?;
        let secs = over.as_secs_f64();
        // Our own two reads of pg_stat_database are transactions too.
        Ok(format!(
            "PostgreSQL {:.1} transactions/s, MariaDB {:.1} commands/s",
            ((after.0 - before.0 - 1) as f64 / secs).max(0.0),
            (after.1 - before.1) as f64 / secs
        ))
    }
}

fn outbox_empty(pg: &mut diesel::PgConnection) -> BenchResult<bool> {
    use diesel::RunQueryDsl;
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    // Benchmark-only SQL.
    let pending: Count = diesel::sql_query(
        "SELECT (SELECT count(*) FROM kafka_schd WHERE sent_at IS NULL) \
         + (SELECT count(*) FROM kafka_msg WHERE sent_at IS NULL) AS n",
    )
    .get_result(pg)?;
    Ok(pending.n == 0)
}

fn transactions(pg: &mut diesel::PgConnection, name: &str) -> BenchResult<i64> {
    use diesel::RunQueryDsl;
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    // Benchmark-only SQL: the counters of the bench's own database.
    let count: Count = diesel::sql_query(
        "SELECT (xact_commit + xact_rollback)::bigint AS n FROM pg_stat_database WHERE datname = $1",
    )
    .bind::<diesel::sql_types::Text, _>(name)
    .get_result(pg)?;
    Ok(count.n)
}

/// `flightstate run`, stopped with SIGTERM (and killed if it lingers).
struct RunProcess(Child);

impl RunProcess {
    fn stop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for RunProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}
