//! Benchmark: the dispatcher's outbox → broker rate for ≥ 100,000 pending
//! state events, next to a plain rdkafka producer sending the same
//! pre-serialised payloads (same keys, same producer settings: idempotent,
//! `acks=all`, same linger) to the same broker in the same run.
//!
//! The outbox is filled through the repository (`write_flights` +
//! `append_state_events`, what a snapshot's transaction does) with
//! realistic flights from `flightstate::synth` (end-of-day snapshots of
//! several days, one event per flight: nothing to coalesce, so both sides
//! send the same number of messages). Prints both rates and their ratio
//! (goal ≥ 0.5), the CPU each side used, and the time of the floor under any dispatcher
//! that sends the current state: psql copying the ten flight tables out
//! (no claim, no JSON, no broker). Nothing is asserted on time.
//!
//! Run: `cargo bench --bench dispatch_throughput` (PostgreSQL on
//! `FLIGHTSTATE_TEST_PG_ADMIN_URL`, Kafka on `FLIGHTSTATE_TEST_KAFKA_BROKERS`,
//! defaults local; `scripts/services` starts both). Options by env:
//! `FLIGHTSTATE_BENCH_EVENTS` (default 100000), `FLIGHTSTATE_BENCH_BATCH`
//! (the dispatcher's batch size, default that of `[kafka]`, 1000),
//! `FLIGHTSTATE_BENCH_LANES` (default that of `[kafka]`, 2).

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use diesel::connection::SimpleConnection;
use diesel::{Connection, PgConnection};
use flightstate::dispatch::{DispatchSettings, Dispatcher, KafkaSettings};
use flightstate::protocol::Body;
use flightstate::state::{StoredFlight, state_document, state_from_record};
use flightstate::store::pg::{PgStore, run_pending_migrations};
use flightstate::store::{EventKind, FlightRows, StateEvent, StateTx, Store};
use flightstate::synth::{DayOptions, Moment, snapshot_of};
use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};

mod common;

/// The allocator of the `flightstate` binary (`src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use common::{BenchDatabase, BenchResult, CpuTimes, FLIGHT_TABLES, env_or};

/// Realistic flights: end-of-day snapshots of consecutive days, 9,999
/// flights each (the most a snapshot carries), with distinct FLIDs.
fn flights(count: usize) -> BenchResult<Vec<StoredFlight>> {
    let mut flights = Vec::with_capacity(count);
    let first_day = NaiveDate::from_ymd_opt(2026, 9, 1).ok_or("day")?;
    let mut day_index = 0i64;
    while flights.len() < count {
        let options = DayOptions {
            seed: 20260901 + day_index as u64,
            day: first_day + chrono::Duration::days(day_index),
            flights: 9_999.min(count - flights.len()),
            first_flid: 1_000_000 + day_index * 100_000,
            ..DayOptions::default()
        };
        let Body::Schedule(schedule) = snapshot_of(&options, Moment::Closing).body else {
            return Err("the generator gave no snapshot".into());
        };
        for record in &schedule.flights {
            flights.push(StoredFlight {
                state: state_from_record(record)?,
                operation_day: Some(options.day),
                state_version: 1,
                last_message_id: day_index + 1,
                updated_at: chrono::Utc::now().naive_utc(),
            });
        }
        day_index += 1;
    }
    flights.truncate(count);
    Ok(flights)
}

fn create_topics(brokers: &str, names: &[&str]) -> BenchResult<()> {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .create()?;
    let topics: Vec<NewTopic<'_>> = names
        .iter()
        .map(|n| NewTopic::new(n, 1, TopicReplication::Fixed(1)))
        .collect();
    for result in futures_executor::block_on(admin.create_topics(&topics, &AdminOptions::new()))? {
        result.map_err(|(t, e)| format!("create topic {t}: {e}"))?;
    }
    Ok(())
}

/// Deletes the bench's topics: the development broker keeps every message in
/// memory, and a broker grown by earlier runs slows the next ones down.
fn delete_topics(brokers: &str, names: &[&str]) -> BenchResult<()> {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .create()?;
    for result in futures_executor::block_on(admin.delete_topics(names, &AdminOptions::new()))? {
        result.map_err(|(t, e)| format!("delete topic {t}: {e}"))?;
    }
    Ok(())
}

fn main() -> BenchResult<()> {
    flightstate::memory::refuse_huge_pages();
    let admin = common::pg_admin_url();
    let brokers = std::env::var("FLIGHTSTATE_TEST_KAFKA_BROKERS")
        .unwrap_or_else(|_| "127.0.0.1:9092".to_owned());
    let events: usize = env_or("FLIGHTSTATE_BENCH_EVENTS", 100_000);
    let batch: i64 = env_or("FLIGHTSTATE_BENCH_BATCH", 1_000);
    let lanes: u32 = env_or("FLIGHTSTATE_BENCH_LANES", DispatchSettings::default().lanes);

    let started = Instant::now();
    let flights = flights(events)?;
    println!(
        "generated {} flights in {:.1}s",
        flights.len(),
        started.elapsed().as_secs_f64()
    );

    let db = BenchDatabase::create(&admin, "dispatch")?;
    run_pending_migrations(&db.url)?;
    let store = PgStore::connect(&db.url, 4, Duration::from_secs(30))?;
    let started = Instant::now();
    for chunk in flights.chunks(5_000) {
        store.transaction(|tx| {
            let digests: Vec<String> = chunk.iter().map(|f| f.state.digest()).collect();
            tx.write_flights(chunk, &digests, FlightRows::MayExist)?;
            let events: Vec<StateEvent> = chunk
                .iter()
                .map(|f| StateEvent {
                    message_id: 1,
                    flid: f.state.flid,
                    state_version: f.state_version,
                    kind: EventKind::State,
                })
                .collect();
            tx.append_state_events(&events, chrono::Utc::now().naive_utc())
        })?;
    }
    // Statistics, as autovacuum (or the DBA after a bulk load) leaves them
    // on a live database: without them the planner guesses table sizes.
    // Autovacuum itself is then kept off these tables: its first visit of
    // 300 MB loaded a moment ago (something a live database spreads over
    // its day) would otherwise land in the timed run or not by chance, and
    // its CPU count as PostgreSQL's (measured: 0.43-0.56 with it, 0.45-0.49
    // without, before the outbox deleted its sent rows).
    let mut conn = PgConnection::establish(&db.url)?;
    conn.batch_execute("ANALYZE")?;
    for table in ["kafka_schd", "kafka_msg"]
        .iter()
        .chain(FLIGHT_TABLES.iter())
    {
        conn.batch_execute(&format!(
            "ALTER TABLE {table} SET (autovacuum_enabled = false)"
        ))?;
    }
    drop(conn);
    println!(
        "outbox filled: {} pending state events in {:.1}s",
        flights.len(),
        started.elapsed().as_secs_f64()
    );

    // The floor of reading the state the dispatcher sends: every row of
    // the ten flight tables copied out by psql (to /dev/null), no claim, no
    // JSON, no broker.
    let mut psql = std::process::Command::new("psql");
    psql.args(["-q", "-v", "ON_ERROR_STOP=1", "-d", &db.url]);
    for table in FLIGHT_TABLES {
        psql.arg("-c").arg(format!("\\copy {table} TO '/dev/null'"));
    }
    let started = Instant::now();
    let status = psql.status()?;
    let read_secs = started.elapsed().as_secs_f64();
    if !status.success() {
        return Err("psql COPY TO failed".into());
    }
    // No CPU line: the server process that served psql is gone by now, and
    // its CPU time with it.
    println!("raw state read: psql COPY TO of the 10 flight tables in {read_secs:.2}s");

    let stamp = format!("{}-{}", std::process::id(), chrono::Utc::now().timestamp());
    let kafka = KafkaSettings {
        linger: Duration::from_millis(5),
        ..KafkaSettings::new(&brokers)
    };

    // Baseline: the same payloads, serialised before the clock starts.
    let baseline_topic = format!("fs-bench-baseline-{stamp}");
    create_topics(&brokers, &[&baseline_topic])?;
    let payloads: Vec<(String, Vec<u8>)> = flights
        .iter()
        .map(|f| (f.state.flid.to_string(), state_document(f).into_bytes()))
        .collect();
    let bytes: usize = payloads.iter().map(|(_, v)| v.len()).sum();
    drop(flights);
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", &brokers)
        .set("enable.idempotence", "true")
        .set("acks", "all")
        .set("linger.ms", kafka.linger.as_millis().to_string())
        .set(
            "message.timeout.ms",
            kafka.delivery_timeout.as_millis().to_string(),
        )
        .create()?;
    let cpu = CpuTimes::now();
    let started = Instant::now();
    for (key, value) in &payloads {
        let mut record = BaseRecord::to(&baseline_topic).key(key).payload(value);
        loop {
            match producer.send(record) {
                Ok(()) => break,
                Err((
                    rdkafka::error::KafkaError::MessageProduction(
                        rdkafka::types::RDKafkaErrorCode::QueueFull,
                    ),
                    back,
                )) => {
                    record = back;
                    producer.poll(Duration::from_millis(5));
                }
                Err((e, _)) => return Err(e.into()),
            }
        }
        producer.poll(Duration::ZERO);
    }
    producer.flush(Duration::from_secs(120))?;
    let baseline_secs = started.elapsed().as_secs_f64();
    let baseline_rate = payloads.len() as f64 / baseline_secs;
    println!(
        "plain producer: {} messages ({:.1} MiB) in {baseline_secs:.2}s = {baseline_rate:.0} msg/s",
        payloads.len(),
        bytes as f64 / (1024.0 * 1024.0)
    );
    println!("  {}", CpuTimes::now().since(&cpu, baseline_secs));

    // The dispatcher: claim, read state, produce, wait for reports, mark.
    let topics = (
        format!("fs-bench-state-{stamp}"),
        format!("fs-bench-change-{stamp}"),
    );
    let settings = DispatchSettings {
        state_topic: topics.0.clone(),
        change_topic: topics.1.clone(),
        batch_size: batch,
        lanes,
        ..DispatchSettings::default()
    };
    let mut dispatcher = Dispatcher::new(store, kafka, settings)?;
    dispatcher.prepare_topics()?;
    let cpu = CpuTimes::now();
    let started = Instant::now();
    let report = dispatcher.run(&AtomicBool::new(false), true)?;
    let dispatch_secs = started.elapsed().as_secs_f64();
    let cpu = CpuTimes::now().since(&cpu, dispatch_secs);
    let dispatch_rate = report.state.sent as f64 / dispatch_secs;
    let pending = dispatcher.pending()?;
    println!(
        "dispatcher (batch {batch}, {lanes} lanes): {} events as {} messages in {dispatch_secs:.2}s = {dispatch_rate:.0} events/s; still pending: {}",
        report.state.sent, report.state.produced, pending.state_events
    );
    println!("  {cpu}");
    println!(
        "ratio dispatcher / plain producer: {:.2} (goal >= 0.5)",
        dispatch_rate / baseline_rate
    );
    delete_topics(&brokers, &[&baseline_topic, &topics.0, &topics.1])?;
    Ok(())
}
