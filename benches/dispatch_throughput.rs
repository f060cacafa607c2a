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
//! Both are measured twice, in plaintext and over TLS (the link a site's
//! cluster asks for), each against a fresh tansu of the bench's own; the
//! last line gives TLS / plaintext.
//!
//! Run: `cargo bench --bench dispatch_throughput` (PostgreSQL on
//! `FLIGHTSTATE_TEST_PG_ADMIN_URL`, default local; tansu and socat on the
//! `PATH`: `scripts/services` installs them). Options by env:
//! `FLIGHTSTATE_BENCH_EVENTS` (default 100000), `FLIGHTSTATE_BENCH_BATCH`
//! (the dispatcher's batch size, default that of `[kafka]`, 1000),
//! `FLIGHTSTATE_BENCH_LANES` (default that of `[kafka]`, 2).

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use diesel::connection::SimpleConnection;
use diesel::{Connection, PgConnection};
use flightstate::dispatch::{DispatchSettings, Dispatcher, KafkaSettings};
use flightstate::kafka::KafkaClient;
use flightstate::protocol::Body;
use flightstate::state::{StoredFlight, state_document, state_from_record};
use flightstate::store::pg::{PgStore, run_pending_migrations};
use flightstate::store::{EventKind, FlightRows, FlightWrite, StateEvent, StateTx, Store};
use flightstate::synth::{DayOptions, Moment, snapshot_of};
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

/// A broker of the bench's own (tansu, in-memory storage), reached in
/// plaintext or through a TLS terminator (socat, a certificate of a CA made
/// here with openssl: tansu 0.6 does not encrypt its own listener); both
/// stopped and their files removed when dropped.
struct OwnBroker {
    children: Vec<Child>,
    dir: PathBuf,
    client: KafkaClient,
}

fn free_port() -> BenchResult<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn wait_for_port(port: u16) -> BenchResult<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            return Err(format!("nothing listens on {port} after 30 s").into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}

fn openssl(dir: &Path, args: &[&str]) -> BenchResult<()> {
    let status = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    if !status.success() {
        return Err(format!("openssl {args:?} failed").into());
    }
    Ok(())
}

impl OwnBroker {
    fn start(tls: bool) -> BenchResult<OwnBroker> {
        let dir =
            std::env::temp_dir().join(format!("fs_bench_broker_{}_{tls}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let (port, tls_port) = (free_port()?, free_port()?);
        let advertised = if tls { tls_port } else { port };
        let tansu = std::env::var("FLIGHTSTATE_TEST_TANSU").unwrap_or_else(|_| "tansu".to_owned());
        let mut children = vec![
            Command::new(tansu)
                .args(["broker", "--silent", "--storage-engine", "memory://tansu/"])
                .arg("--listener-url")
                .arg(format!("tcp://127.0.0.1:{port}"))
                .arg("--advertised-listener-url")
                .arg(format!("tcp://127.0.0.1:{advertised}"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()?,
        ];
        wait_for_port(port)?;
        let mut client = KafkaClient::new(format!("127.0.0.1:{advertised}"));
        if tls {
            openssl(
                &dir,
                &[
                    "req",
                    "-x509",
                    "-newkey",
                    "rsa:2048",
                    "-nodes",
                    "-days",
                    "1",
                    "-subj",
                    "/CN=bench-ca",
                    "-keyout",
                    "ca.key",
                    "-out",
                    "ca.pem",
                ],
            )?;
            std::fs::write(dir.join("ext"), "subjectAltName=IP:127.0.0.1\n")?;
            openssl(
                &dir,
                &[
                    "req",
                    "-newkey",
                    "rsa:2048",
                    "-nodes",
                    "-subj",
                    "/CN=broker",
                    "-keyout",
                    "broker.key",
                    "-out",
                    "broker.csr",
                ],
            )?;
            openssl(
                &dir,
                &[
                    "x509",
                    "-req",
                    "-in",
                    "broker.csr",
                    "-CA",
                    "ca.pem",
                    "-CAkey",
                    "ca.key",
                    "-CAcreateserial",
                    "-days",
                    "1",
                    "-extfile",
                    "ext",
                    "-out",
                    "broker.pem",
                ],
            )?;
            children.push(
                Command::new("socat")
                    .arg(format!(
                        "OPENSSL-LISTEN:{tls_port},bind=127.0.0.1,reuseaddr,fork,verify=0,cert={0}/broker.pem,key={0}/broker.key",
                        dir.display()
                    ))
                    .arg(format!("TCP:127.0.0.1:{port}"))
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()?,
            );
            wait_for_port(tls_port)?;
            client = client
                .with_property("security.protocol", "SSL")
                .with_property("ssl.ca.location", dir.join("ca.pem").display().to_string());
        }
        Ok(OwnBroker {
            children,
            dir,
            client,
        })
    }
}

impl Drop for OwnBroker {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Fills the outbox with one state event per flight, as a snapshot's
/// transaction does.
fn fill_outbox(store: &PgStore, flights: &[StoredFlight]) -> BenchResult<()> {
    for chunk in flights.chunks(5_000) {
        store.transaction(|tx| {
            let writes: Vec<FlightWrite> = chunk
                .iter()
                .map(|f| FlightWrite::whole(f.clone(), f.state.digest()))
                .collect();
            tx.write_flights(&writes, FlightRows::MayExist)?;
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
    Ok(())
}

/// The plain producer's rate over `client`: the same payloads, serialised
/// before the clock starts.
fn plain_producer(
    client: &KafkaClient,
    kafka: &KafkaSettings,
    topic: &str,
    payloads: &[(String, Vec<u8>)],
) -> BenchResult<f64> {
    common::create_topics(client, &[topic])?;
    let bytes: usize = payloads.iter().map(|(_, v)| v.len()).sum();
    let mut config = client.config();
    config
        .set("enable.idempotence", "true")
        .set("acks", "all")
        .set("linger.ms", kafka.linger.as_millis().to_string())
        .set(
            "message.timeout.ms",
            kafka.delivery_timeout.as_millis().to_string(),
        );
    let producer: BaseProducer = config.create()?;
    let cpu = CpuTimes::now();
    let started = Instant::now();
    for (key, value) in payloads {
        let mut record = BaseRecord::to(topic).key(key).payload(value);
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
    let secs = started.elapsed().as_secs_f64();
    let rate = payloads.len() as f64 / secs;
    println!(
        "  plain producer: {} messages ({:.1} MiB) in {secs:.2}s = {rate:.0} msg/s",
        payloads.len(),
        bytes as f64 / (1024.0 * 1024.0)
    );
    println!("    {}", CpuTimes::now().since(&cpu, secs));
    Ok(rate)
}

/// The dispatcher's rate: claim, read state, produce, wait for reports,
/// settle.
fn dispatch(store: &PgStore, kafka: KafkaSettings, settings: DispatchSettings) -> BenchResult<f64> {
    let (batch, lanes) = (settings.batch_size, settings.lanes);
    let mut dispatcher = Dispatcher::new(store.clone(), kafka, settings)?;
    dispatcher.prepare_topics()?;
    let cpu = CpuTimes::now();
    let started = Instant::now();
    let report = dispatcher.run(&AtomicBool::new(false), true)?;
    let secs = started.elapsed().as_secs_f64();
    let cpu = CpuTimes::now().since(&cpu, secs);
    let rate = report.state.sent as f64 / secs;
    let pending = dispatcher.pending()?;
    println!(
        "  dispatcher (batch {batch}, {lanes} lanes): {} events as {} messages in {secs:.2}s = {rate:.0} events/s; still pending: {}",
        report.state.sent, report.state.produced, pending.state_events
    );
    println!("    {cpu}");
    Ok(rate)
}

fn main() -> BenchResult<()> {
    flightstate::memory::refuse_huge_pages();
    let admin = common::pg_admin_url();
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
    fill_outbox(&store, &flights)?;
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
    println!(
        "outbox filled: {} pending state events in {:.1}s",
        flights.len(),
        started.elapsed().as_secs_f64()
    );

    // The floor of reading the state the dispatcher sends: every row of
    // the ten flight tables copied out by psql (to /dev/null), no claim, no
    // JSON, no broker.
    let mut psql = Command::new("psql");
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

    let payloads: Vec<(String, Vec<u8>)> = flights
        .iter()
        .map(|f| (f.state.flid.to_string(), state_document(f).into_bytes()))
        .collect();
    // The same link, plaintext then TLS, each to a fresh broker of the
    // bench's own: the plain producer, then the dispatcher over a full
    // outbox (filled again for the second link).
    let mut rates = Vec::new();
    for tls in [false, true] {
        let broker = OwnBroker::start(tls)?;
        let link = if tls { "TLS" } else { "plaintext" };
        println!("{link} ({}):", broker.client.security());
        if tls {
            let started = Instant::now();
            fill_outbox(&store, &flights)?;
            conn.batch_execute("ANALYZE kafka_schd")?;
            println!(
                "  outbox filled again in {:.1}s",
                started.elapsed().as_secs_f64()
            );
        }
        let kafka = KafkaSettings {
            linger: Duration::from_millis(5),
            ..KafkaSettings::of(broker.client.clone())
        };
        let baseline = plain_producer(&broker.client, &kafka, "fs-bench-baseline", &payloads)?;
        let settings = DispatchSettings {
            state_topic: "fs-bench-state".to_owned(),
            change_topic: "fs-bench-change".to_owned(),
            batch_size: batch,
            lanes,
            ..DispatchSettings::default()
        };
        let dispatcher = dispatch(&store, kafka, settings)?;
        println!(
            "  ratio dispatcher / plain producer: {:.2} (goal >= 0.5)",
            dispatcher / baseline
        );
        rates.push((baseline, dispatcher));
    }
    if let [(plain_baseline, plain), (tls_baseline, tls)] = rates[..] {
        println!(
            "TLS / plaintext: dispatcher {:.2}, plain producer {:.2}",
            tls / plain,
            tls_baseline / plain_baseline
        );
    }
    Ok(())
}
