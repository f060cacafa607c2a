//! Benchmark: the catch-up of a lost tail (docs/operations.md, "After a
//! failover") next to the pump's own rate over the same messages, in the
//! same run. A generated day goes through the pump (inline write-backs)
//! after a `pg_dump` taken once its morning snapshot was applied; the dump
//! is restored, so the state database lost every message but the first,
//! and `lost_tail::catch_up` applies them again from the mailbox. Prints
//! both rates (messages per second) and the resync's time. Nothing is
//! asserted: the numbers are for people.
//!
//! Run: `cargo bench --bench catch_up` (PostgreSQL on
//! `FLIGHTSTATE_TEST_PG_ADMIN_URL`, MariaDB on `FLIGHTSTATE_TEST_MARIADB_URL`,
//! the brokers on `FLIGHTSTATE_TEST_KAFKA_BROKERS`, `pg_dump` and
//! `pg_restore` on PATH). Options by env: `FLIGHTSTATE_BENCH_FLIGHTS`
//! (default 300).

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::{Connection, PgConnection};
use flightstate::kafka::KafkaClient;
use flightstate::lost_tail::{CatchUpSettings, catch_up};
use flightstate::mailbox::{Mailbox, MailboxSettings};
use flightstate::pipeline::Rules;
use flightstate::protocol::to_xml;
use flightstate::pump::{Pump, PumpSettings, Step};
use flightstate::resync::ResyncSettings;
use flightstate::store::pg::{PgStore, run_pending_migrations};
use flightstate::synth::{DayOptions, airport_day};
use mysql::prelude::Queryable;

mod common;

/// The allocator of the `flightstate` binary (`src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use common::{BenchDatabase, BenchResult, env_or};

fn main() -> BenchResult<()> {
    flightstate::memory::refuse_huge_pages();
    let admin = common::pg_admin_url();
    let maria = std::env::var("FLIGHTSTATE_TEST_MARIADB_URL")
        .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306".to_owned());
    let brokers = std::env::var("FLIGHTSTATE_TEST_KAFKA_BROKERS")
        .unwrap_or_else(|_| "127.0.0.1:9092".to_owned());
    let flights: usize = env_or("FLIGHTSTATE_BENCH_FLIGHTS", 300);

    let db = BenchDatabase::create(&admin, "catch_up")?;
    run_pending_migrations(&db.url)?;
    let maria_pool = mysql::Pool::new(maria.as_str())?;
    let mut mconn = maria_pool.get_conn()?;
    common::create_mailbox(&mut mconn, &db.name)?;
    let result = run(
        (&admin, &db),
        &format!("{maria}/{}", db.name),
        &mut mconn,
        &brokers,
        flights,
    );
    let _ = mconn.query_drop(format!("DROP DATABASE IF EXISTS {}", db.name));
    drop(db);
    result
}

fn drain(pump: &mut Pump<PgStore>) -> BenchResult<usize> {
    let mut messages = 0;
    loop {
        match pump.step()? {
            Step::Progress { messages: n } => messages += n,
            Step::Idle => return Ok(messages),
            Step::Blocked { until, .. } => {
                std::thread::sleep(until.saturating_duration_since(Instant::now()))
            }
            other => return Err(format!("the pump stopped: {other:?}").into()),
        }
    }
}

fn run(
    (admin, db): (&str, &BenchDatabase),
    mailbox_url: &str,
    mconn: &mut mysql::PooledConn,
    brokers: &str,
    flights: usize,
) -> BenchResult<()> {
    let day = airport_day(&DayOptions {
        flights,
        ..DayOptions::default()
    });
    let store = PgStore::connect(&db.url, 4, Duration::from_secs(10))?;
    let mailbox = Arc::new(Mailbox::connect(MailboxSettings {
        url: mailbox_url.to_owned(),
        pending_status: "VALID".to_owned(),
        succeeded_status: "PROCESSED".to_owned(),
        dead_status: "DEAD".to_owned(),
        pool_size: 4,
        connect_timeout: Duration::from_secs(5),
        io_timeout: Duration::from_secs(30),
        idle_in_transaction: None,
    })?);
    let settings = PumpSettings {
        holder: "bench".to_owned(),
        lease_ttl: Duration::from_secs(60),
        unsupported_threshold: 1,
        idle_poll: Duration::from_millis(10),
        ..PumpSettings::default()
    };
    let mut pump = Pump::new(
        store.clone(),
        Arc::clone(&mailbox),
        Rules::default(),
        settings.clone(),
    );
    common::insert_all(mconn, &[to_xml(&day.snapshot).into_bytes()])?;
    drain(&mut pump)?;
    pump.release();
    let backup = std::env::temp_dir().join(format!("{}.dump", db.name));
    let dumped = Command::new("pg_dump")
        .args(["--format=custom", "--file"])
        .arg(&backup)
        .arg(&db.url)
        .status()?;
    if !dumped.success() {
        return Err("pg_dump failed".into());
    }

    let events: Vec<Vec<u8>> = day.events.iter().map(|m| to_xml(m).into_bytes()).collect();
    common::insert_all(mconn, &events)?;
    let started = Instant::now();
    let pumped = drain(&mut pump)?;
    let pump_secs = started.elapsed().as_secs_f64();
    pump.release();
    drop(pump);

    // The restore: the database back at the snapshot.
    let mut conn = PgConnection::establish(admin)?;
    conn.batch_execute(&format!("DROP DATABASE {} WITH (FORCE)", db.name))?;
    conn.batch_execute(&format!("CREATE DATABASE {} TEMPLATE template0", db.name))?;
    let restored = Command::new("pg_restore")
        .args(["--no-owner", "--exit-on-error", "--dbname"])
        .arg(&db.url)
        .arg(&backup)
        .status()?;
    let _ = std::fs::remove_file(&backup);
    if !restored.success() {
        return Err("pg_restore failed".into());
    }

    let client = KafkaClient::new(brokers);
    let topics = (
        format!("{}.state", db.name.replace('_', "-")),
        format!("{}.change", db.name.replace('_', "-")),
    );
    common::create_topics(&client, &[&topics.0, &topics.1])?;
    let store = PgStore::connect(&db.url, 4, Duration::from_secs(10))?;
    let catch_up_settings = CatchUpSettings {
        pump: settings,
        rules: Rules::default(),
        resync: ResyncSettings::new(topics, Duration::from_secs(60)),
    };
    let started = Instant::now();
    let report = catch_up(
        &store,
        &mailbox,
        &client,
        &catch_up_settings,
        None,
        &AtomicBool::new(false),
    )?;
    let total_secs = started.elapsed().as_secs_f64();
    #[allow(clippy::cast_precision_loss)] // counts far below 2^52
    let rate = |n: usize, secs: f64| n as f64 / secs;
    let apply_secs = report.apply_millis as f64 / 1000.0;
    println!(
        "flights: {flights}, messages lost and caught up: {}",
        report.applied
    );
    println!(
        "pump (inline write-backs):  {pumped} messages in {pump_secs:.2} s = {:.0} msg/s",
        rate(pumped, pump_secs)
    );
    println!(
        "catch-up (re-apply, write-backs read back): {} messages in {apply_secs:.2} s = {:.0} msg/s",
        report.applied,
        rate(report.applied, apply_secs)
    );
    println!(
        "catch-up with the resync of {} flights: {total_secs:.2} s",
        report.resync.as_ref().map_or(0, |r| r.stored_flights)
    );
    Ok(())
}
