//! Benchmark: `GET /all/flights` of 10,000 flights from a running
//! `flightstate serve`, next to the raw baseline of `psql -c "COPY (…) TO
//! STDOUT"` of the same ten tables, in the same run; and the server's peak
//! RSS after serving 1,000 and 10,000 flights, which should barely move: a
//! full read holds one page of flights at a time.
//!
//! Prints, per size, the median of a few rounds of each side, the bytes each
//! sent, the ratio API/COPY and the server's peak RSS. Nothing is asserted
//! on time: the numbers are for people (`docs/benchmarks.md`).
//!
//! Run: `cargo bench --bench read_api` (PostgreSQL on
//! `FLIGHTSTATE_TEST_PG_ADMIN_URL`, default `postgres://postgres@127.0.0.1:5432/postgres`;
//! `psql` on PATH). Options by env: `FLIGHTSTATE_BENCH_ROUNDS` (default 3),
//! `FLIGHTSTATE_BENCH_PAGE` (`api.page_size`, default 1000).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::protocol::to_xml;
use flightstate::store::pg::{PgStore, run_pending_migrations};
use flightstate::synth::{DayOptions, Moment, snapshot_of};

mod common;

use common::{BenchDatabase, BenchResult, FLIGHT_TABLES};

/// A snapshot holds at most 9,999 flights: larger sizes span several days.
const FLIGHTS_PER_DAY: usize = 5_000;

/// A server process, killed at the end.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Server {
    fn peak_rss_kib(&self) -> BenchResult<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.0.id()))?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .ok_or_else(|| "no VmHWM".into())
    }
}

/// Loads `flights` flights (end-of-day snapshots, ~14 detail rows each).
fn load(url: &str, flights: usize) -> BenchResult<()> {
    let store = PgStore::connect(url, 2, Duration::from_secs(30))?;
    let now = chrono::Utc::now().naive_utc();
    let first_day = NaiveDate::from_ymd_opt(2026, 9, 9).ok_or("day")?;
    let mut left = flights;
    let mut day = 0;
    while left > 0 {
        let count = left.min(FLIGHTS_PER_DAY);
        let options = DayOptions {
            seed: 20260909 + day,
            day: first_day + chrono::Days::new(day),
            flights: count,
            first_flid: 1_000_000 + i64::try_from(day)? * 100_000,
            ..DayOptions::default()
        };
        let xml = to_xml(&snapshot_of(&options, Moment::Closing));
        let id = i64::try_from(day)? + 1;
        match apply_message(&store, &Rules::default(), id, xml.as_bytes(), now)? {
            Applied::Snapshot(_) => {}
            other => return Err(format!("snapshot not applied: {other:?}").into()),
        }
        left -= count;
        day += 1;
    }
    Ok(())
}

fn start_server(url: &str, page: usize) -> BenchResult<(Server, SocketAddr)> {
    let addr = TcpListener::bind("127.0.0.1:0")?.local_addr()?;
    let child = Command::new(env!("CARGO_BIN_EXE_flightstate"))
        .args([
            "--config",
            "/nonexistent/flightstate.toml",
            "serve",
            "--bind",
        ])
        .arg(addr.to_string())
        .env("FLIGHTSTATE_DATABASE_URL", url)
        .env("FLIGHTSTATE_API_PAGE_SIZE", page.to_string())
        .env_remove("FLIGHTSTATE_MAILBOX_URL")
        .env_remove("FLIGHTSTATE_KAFKA_BROKERS")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let server = Server(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(addr).is_err() {
        if Instant::now() > deadline {
            return Err("flightstate serve does not listen".into());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok((server, addr))
}

/// `GET /all/flights`, read to the end: seconds and bytes received.
fn get_all(addr: SocketAddr) -> BenchResult<(f64, usize)> {
    let started = Instant::now();
    let mut stream = TcpStream::connect(addr)?;
    write!(
        stream,
        "GET /all/flights HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )?;
    let mut sink = Vec::with_capacity(64 << 20);
    stream.read_to_end(&mut sink)?;
    let secs = started.elapsed().as_secs_f64();
    if !sink.starts_with(b"HTTP/1.1 200") || !sink.ends_with(b"0\r\n\r\n") {
        return Err("GET /all/flights did not answer a whole 200".into());
    }
    Ok((secs, sink.len()))
}

/// `psql -c "COPY (SELECT * FROM t ORDER BY …) TO STDOUT"` of every flight
/// table in one read-only REPEATABLE READ transaction: seconds and bytes.
fn copy_out(url: &str) -> BenchResult<(f64, usize)> {
    let mut command = Command::new("psql");
    command.args(["-q", "-X", "-v", "ON_ERROR_STOP=1", "-d", url]);
    command.args(["-c", "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"]);
    for table in FLIGHT_TABLES {
        let order = if table == "flight_schd" {
            "flid"
        } else {
            "flid, ordinal"
        };
        command.arg("-c").arg(format!(
            "COPY (SELECT * FROM {table} ORDER BY {order}) TO STDOUT"
        ));
    }
    command.args(["-c", "COMMIT"]);
    let started = Instant::now();
    let out = command.stderr(Stdio::inherit()).output()?;
    let secs = started.elapsed().as_secs_f64();
    if !out.status.success() {
        return Err("psql COPY failed".into());
    }
    Ok((secs, out.stdout.len()))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() -> BenchResult<()> {
    let admin = common::pg_admin_url();
    let rounds: usize = common::env_or("FLIGHTSTATE_BENCH_ROUNDS", 3).max(1);
    let page: usize = common::env_or("FLIGHTSTATE_BENCH_PAGE", 1_000);
    println!("read_api: GET /all/flights vs psql COPY TO STDOUT; page {page}, {rounds} rounds");
    for flights in [1_000, 10_000] {
        let db = BenchDatabase::create(&admin, &format!("read_{flights}"))?;
        run_pending_migrations(&db.url)?;
        load(&db.url, flights)?;
        let (server, addr) = start_server(&db.url, page)?;
        let rss_idle = server.peak_rss_kib()?;
        let mut api = Vec::new();
        let mut copy = Vec::new();
        let (mut api_bytes, mut copy_bytes) = (0, 0);
        for _ in 0..rounds {
            let (secs, bytes) = get_all(addr)?;
            api.push(secs);
            api_bytes = bytes;
            let (secs, bytes) = copy_out(&db.url)?;
            copy.push(secs);
            copy_bytes = bytes;
        }
        let rss = server.peak_rss_kib()?;
        let (api, copy) = (median(api), median(copy));
        println!("{flights:>6} flights:");
        println!(
            "  GET /all/flights   {api:8.3} s  {:>6.1} MB  {:>8.0} flights/s",
            api_bytes as f64 / 1e6,
            flights as f64 / api
        );
        println!(
            "  psql COPY TO STDOUT {copy:7.3} s  {:>6.1} MB  (10 tables, one snapshot)",
            copy_bytes as f64 / 1e6
        );
        println!("  ratio API/COPY     {:8.2}", api / copy);
        println!(
            "  server peak RSS    {:8.1} MiB (at start {:.1} MiB)",
            rss as f64 / 1024.0,
            rss_idle as f64 / 1024.0
        );
    }
    Ok(())
}
