//! Benchmark: end-to-end throughput of the pump (mailbox row → committed
//! state → journaled write-back) over a day's FLOP and ADFT updates, next to
//! `pgbench -c 1` of a comparable single-row update transaction on the same
//! PostgreSQL database, in the same run. The pump runs as `flightstate run`
//! deploys it (pump thread + effect worker thread), timed until the mailbox
//! shows every row written back. Prints both rates and their ratio
//! (the goal is ≥ 0.5). Nothing is asserted: the numbers are for people.
//!
//! Run: `cargo bench --bench pump_throughput` (PostgreSQL on
//! `FLIGHTSTATE_TEST_PG_ADMIN_URL`, MariaDB on `FLIGHTSTATE_TEST_MARIADB_URL`,
//! `pgbench` on PATH). Options by env: `FLIGHTSTATE_BENCH_FLIGHTS` (default
//! 750, about 10,500 updates), `FLIGHTSTATE_BENCH_PGBENCH_SECS` (default 15).

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use diesel::connection::SimpleConnection;
use diesel::{Connection, PgConnection};
use flightstate::doorbell::Doorbell;
use flightstate::mailbox::{Mailbox, MailboxSettings};
use flightstate::pipeline::{Rules, apply_message};
use flightstate::protocol::to_xml;
use flightstate::pump::{Pump, PumpSettings, Step, run_effect_worker};
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
    let flights: usize = env_or("FLIGHTSTATE_BENCH_FLIGHTS", 750);
    let pgbench_secs: u64 = env_or("FLIGHTSTATE_BENCH_PGBENCH_SECS", 15);

    // Databases of the benchmark's own (identifiers from the process id).
    let db = BenchDatabase::create(&admin, "pump")?;
    let db_url = db.url.clone();
    let name = db.name.clone();
    run_pending_migrations(&db_url)?;
    let maria_pool = mysql::Pool::new(maria.as_str())?;
    let mut mconn = maria_pool.get_conn()?;
    common::create_mailbox(&mut mconn, &name)?;

    let result = run(
        &admin,
        &db_url,
        &format!("{maria}/{name}"),
        &mut mconn,
        flights,
        pgbench_secs,
    );

    let _ = mconn.query_drop(format!("DROP DATABASE IF EXISTS {name}"));
    drop(db);
    result
}

fn drain(pump: &mut Pump<PgStore>) -> BenchResult<usize> {
    let mut messages = 0;
    loop {
        match pump.step()? {
            Step::Progress { messages: n } => messages += n,
            // Without inline effects the pump is idle once every row is
            // applied; the caller waits for the write-backs.
            Step::Idle => return Ok(messages),
            Step::Blocked { until, .. } => {
                std::thread::sleep(until.saturating_duration_since(Instant::now()))
            }
            other => return Err(format!("the pump stopped: {other:?}").into()),
        }
    }
}

fn run(
    admin: &str,
    db_url: &str,
    mailbox_url: &str,
    mconn: &mut mysql::PooledConn,
    flights: usize,
    pgbench_secs: u64,
) -> BenchResult<()> {
    let day = airport_day(&DayOptions {
        seed: 20260909,
        day: NaiveDate::from_ymd_opt(2026, 9, 9).ok_or("day")?,
        flights,
        ..DayOptions::default()
    });
    let events: Vec<Vec<u8>> = day.events.iter().map(|m| to_xml(m).into_bytes()).collect();
    let flops = day
        .events
        .iter()
        .filter(|m| m.meta.msg_type == "FLOP")
        .count();
    println!(
        "stream: 1 DNLD of {flights} flights, then {} updates ({flops} FLOP, {} ADFT)",
        events.len(),
        events.len() - flops
    );

    let store = PgStore::connect(db_url, 4, Duration::from_secs(10))?;
    let mailbox = Arc::new(Mailbox::connect(MailboxSettings {
        url: mailbox_url.to_owned(),
        pending_status: "VALID".to_owned(),
        succeeded_status: "PROCESSED".to_owned(),
        dead_status: "DEAD".to_owned(),
        pool_size: 2,
        connect_timeout: Duration::from_secs(5),
        io_timeout: Duration::from_secs(30),
        idle_in_transaction: None,
    })?);
    let worker_store = store.clone();
    let worker_mailbox = Arc::clone(&mailbox);
    let worker_settings = PumpSettings {
        holder: "bench".to_owned(),
        lease_ttl: Duration::from_secs(60),
        unsupported_threshold: 1,
        idle_poll: Duration::from_millis(10),
        inline_effects: false,
        ..PumpSettings::default()
    };
    // As under `run`: the pump rings the effect worker when it commits.
    let doorbell = Doorbell::new();
    let mut pump = Pump::new(store, mailbox, Rules::default(), worker_settings.clone())
        .with_doorbell(doorbell.clone());
    println!(
        "pump: {} flight-level messages per state transaction at most (pump.group_commit)",
        worker_settings.group_commit
    );
    // The morning snapshot is not timed.
    common::insert_all(mconn, &[to_xml(&day.snapshot).into_bytes()])?;
    drain(&mut pump)?;
    common::insert_all(mconn, &events)?;
    // As `flightstate run` deploys it: the pump on one thread, the
    // write-backs on an effect worker thread; done when the mailbox shows
    // every row written back.
    let lease = pump.shared_lease();
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    let messages = std::thread::scope(|scope| -> BenchResult<usize> {
        scope.spawn(|| {
            run_effect_worker(
                &worker_store,
                &worker_mailbox,
                &lease,
                &worker_settings,
                &doorbell,
                &stop,
            )
        });
        // The pump looks at most `head_batch` rows past the last written
        // back, so it goes on as the worker writes rows back.
        let mut watch = mysql::Pool::new(mailbox_url)?.get_conn()?;
        let mut drained = Ok(0);
        loop {
            match drain(&mut pump) {
                Ok(n) => drained = drained.map(|total| total + n),
                Err(e) => {
                    drained = Err(e);
                    break;
                }
            }
            let pending: Option<i64> = watch.query_first(
                "SELECT COUNT(*) FROM cminmsgs WHERE CMINMSGS_DATE_PROCESSED IS NULL",
            )?;
            if pending.unwrap_or(0) == 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        stop.store(true, Ordering::SeqCst);
        drained
    })?;
    let elapsed = start.elapsed();
    let (succeeded, other): (Vec<String>, Vec<String>) = {
        let statuses: Vec<String> =
            mconn.query("SELECT CMINMSGS_STATUS FROM cminmsgs WHERE CMINMSGS_ID > 1")?;
        statuses.into_iter().partition(|s| s == "PROCESSED")
    };
    let pump_rate = messages as f64 / elapsed.as_secs_f64();
    println!(
        "pump: {messages} messages in {:.2} s = {pump_rate:.0} msg/s ({} written back PROCESSED, {} otherwise)",
        elapsed.as_secs_f64(),
        succeeded.len(),
        other.len()
    );
    pump.release();

    // The same updates through apply_message alone (one commit per message;
    // no mailbox, no journal, no lease) on a second copy of the state: what
    // group commit saves.
    let alone_db = BenchDatabase::create(admin, "pump_alone")?;
    let alone_url = alone_db.url.clone();
    run_pending_migrations(&alone_url)?;
    let alone = PgStore::connect(&alone_url, 2, Duration::from_secs(10))?;
    let settings = Rules::default();
    let now = chrono::Utc::now().naive_utc();
    apply_message(&alone, &settings, 1, to_xml(&day.snapshot).as_bytes(), now)?;
    let start = Instant::now();
    for (i, body) in events.iter().enumerate() {
        apply_message(&alone, &settings, i as i64 + 2, body, now)?;
    }
    let alone_secs = start.elapsed().as_secs_f64();
    drop(alone);
    drop(alone_db);
    let alone_rate = events.len() as f64 / alone_secs;
    println!(
        "apply_message alone (one message per commit, no mailbox, journal or lease): \
         {alone_rate:.0} msg/s; the pump with group commit: {:.1}x that",
        pump_rate / alone_rate
    );

    // The baseline: one client, one single-row UPDATE per transaction, on the
    // same database, against a table shaped like a flight's main row.
    let mut conn = PgConnection::establish(db_url)?;
    conn.batch_execute(
        "CREATE TABLE bench_flight (flid BIGINT PRIMARY KEY, gate VARCHAR(16), \
         state_version BIGINT NOT NULL, updated_at TIMESTAMP NOT NULL); \
         INSERT INTO bench_flight SELECT g, 'G1', 1, now() FROM generate_series(1, 1000) g",
    )?;
    conn.batch_execute("VACUUM ANALYZE bench_flight")?;
    let script = std::env::temp_dir().join(format!("fs_pgbench_{}.sql", std::process::id()));
    std::fs::write(
        &script,
        "\\set id random(1, 1000)\nBEGIN;\nUPDATE bench_flight SET gate = 'G' || :id, \
         state_version = state_version + 1, updated_at = now() WHERE flid = :id;\nEND;\n",
    )?;
    let out = Command::new("pgbench")
        .args(["-n", "-c", "1", "-T", &pgbench_secs.to_string(), "-f"])
        .arg(&script)
        .arg(db_url)
        .output()?;
    let _ = std::fs::remove_file(&script);
    let text = String::from_utf8_lossy(&out.stdout);
    let tps: f64 = text
        .lines()
        .find(|l| l.starts_with("tps = "))
        .and_then(|l| l.trim_start_matches("tps = ").split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| {
            format!(
                "no tps in pgbench output: {text}{}",
                String::from_utf8_lossy(&out.stderr)
            )
        })?;
    println!("pgbench -c 1 (single-row UPDATE transaction): {tps:.0} tps");
    println!("ratio pump / pgbench: {:.2}", pump_rate / tps);
    Ok(())
}
