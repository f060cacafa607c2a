//! Benchmark: what a year of history costs. Two PostgreSQL state databases
//! in the same run — one empty, one holding `FLIGHTSTATE_BENCH_DAYS` (365)
//! past operation days of `FLIGHTSTATE_BENCH_FLIGHTS` (1,000) flights each,
//! applied through the pipeline with their ledgers, and a year of
//! `PROC_STATE` and settled `EFFECT_CALL` rows generated in SQL — and on
//! each the same work: today's snapshot applied, the same snapshot again
//! (unchanged), the day's first `FLIGHTSTATE_BENCH_EVENTS` (2,000) flight
//! events one per transaction (the pump's transactions, without the
//! mailbox), `GET /all/flights?operation_day=`
//! today's read, the status's read, and (year only) the history clean-up of
//! one day. Prints each time and the ratio year/empty.
//!
//! Then, with `cleanup.history_days = 30`, 60 simulated days (a day's
//! snapshot, then the clean-up) and the table sizes after day 30 and day
//! 60: about 30 days' size both times.
//!
//! Nothing is asserted on time: the numbers are for people. Run:
//! `cargo bench --bench year_at_a_site` (PostgreSQL on
//! `FLIGHTSTATE_TEST_PG_ADMIN_URL`).

use std::time::{Duration, Instant};

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use diesel::{Connection, PgConnection, QueryableByName, RunQueryDsl};
use flightstate::api::{StatusLimits, state_facts};
use flightstate::cleanup::{CleanupSettings, clean_up};
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::protocol::to_xml;
use flightstate::station::{HistoryRule, StationClock};
use flightstate::store::pg::{PgStore, run_pending_migrations};
use flightstate::store::{Selection, read_states};
use flightstate::synth::{DayOptions, airport_day};

mod common;

use common::{BenchDatabase, BenchResult, env_or};

/// The allocator of the `flightstate` binary (`src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The first day of the history.
fn first_day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2025, 1, 1).unwrap_or_default()
}

/// A day's generated snapshot and events, FLIDs of its own.
struct Day {
    snapshot: Vec<u8>,
    events: Vec<Vec<u8>>,
}

fn day(n: u32, flights: usize) -> Day {
    let options = DayOptions {
        seed: 20_250_101 + u64::from(n),
        day: first_day() + chrono::Days::new(u64::from(n)),
        flights,
        first_flid: 1_000_000 + i64::from(n) * 10_000,
        ..DayOptions::default()
    };
    let day = airport_day(&options);
    Day {
        snapshot: to_xml(&day.snapshot).into_bytes(),
        events: day.events.iter().map(|m| to_xml(m).into_bytes()).collect(),
    }
}

/// Noon UTC of day `n`.
fn noon(n: u32) -> NaiveDateTime {
    (first_day() + chrono::Days::new(u64::from(n)))
        .and_time(NaiveTime::from_hms_opt(12, 0, 0).unwrap_or_default())
}

/// Message ids: a day's `n * 100_000 + i` (a day of 1,000 flights is
/// some 14,000 messages).
fn message_id(n: u32, i: usize) -> i64 {
    i64::from(n) * 100_000 + i64::try_from(i).unwrap_or(0)
}

fn apply(
    store: &PgStore,
    rules: &Rules,
    id: i64,
    body: &[u8],
    now: NaiveDateTime,
) -> BenchResult<()> {
    match apply_message(store, rules, id, body, now)? {
        Applied::Snapshot(_) | Applied::Flights(_) => Ok(()),
        other => Err(format!("message {id}: {other:?}").into()),
    }
}

fn store_of(db: &BenchDatabase) -> BenchResult<PgStore> {
    run_pending_migrations(&db.url)?;
    Ok(PgStore::connect(&db.url, 4, Duration::from_secs(10))?)
}

/// A year of `PROC_STATE` (messages) and settled `EFFECT_CALL` rows (their
/// write-backs), `per_day` a day, as the pump leaves them without a
/// clean-up. Benchmark set-up: fixed statements, no value from outside.
fn journal_history(url: &str, days: u32, per_day: u32) -> BenchResult<()> {
    let mut conn = PgConnection::establish(url)?;
    let rows = i64::from(days) * i64::from(per_day);
    diesel::sql_query(format!(
        "INSERT INTO proc_state (message_id, identity_key, status, attempts, msg_type, msg_subtype, first_seen_at, updated_at) \
         SELECT 100000000 + g, 'history:' || g, 'SUCCEEDED', 1, 'FLOP', 'STND', \
                TIMESTAMP '2025-01-01' + (g * INTERVAL '1 second' * 86400 / {per_day}), \
                TIMESTAMP '2025-01-01' + (g * INTERVAL '1 second' * 86400 / {per_day}) \
         FROM generate_series(1, {rows}) g"
    ))
    .execute(&mut conn)?;
    diesel::sql_query(format!(
        "INSERT INTO effect_call (idempotency_key, scope, step, sub_key, call_kind, target, payload, payload_digest, status, send_token, attempt, created_at, dispatched_at, receipt_at, updated_at) \
         SELECT encode(sha256(('history:' || g)::bytea), 'hex'), 'mailbox', 'write-back', 'backfill:' || (100000000 + g), \
                'BACKFILL', 'cminmsgs:' || (100000000 + g), 'PROCESSED', encode(sha256(('digest:' || g)::bytea), 'hex'), \
                'ACCEPTED', 'token:' || g, 1, \
                TIMESTAMP '2025-01-01' + (g * INTERVAL '1 second' * 86400 / {per_day}), \
                TIMESTAMP '2025-01-01' + (g * INTERVAL '1 second' * 86400 / {per_day}), \
                TIMESTAMP '2025-01-01' + (g * INTERVAL '1 second' * 86400 / {per_day}), \
                TIMESTAMP '2025-01-01' + (g * INTERVAL '1 second' * 86400 / {per_day}) \
         FROM generate_series(1, {rows}) g"
    ))
    .execute(&mut conn)?;
    diesel::sql_query("ANALYZE").execute(&mut conn)?;
    Ok(())
}

/// What the same work took on one database.
#[derive(Debug, Default)]
struct Times {
    snapshot: Duration,
    unchanged: Duration,
    events: Duration,
    event_count: usize,
    day_read: Duration,
    status: Duration,
}

fn measure(store: &PgStore, today: u32, flights: usize, events: usize) -> BenchResult<Times> {
    let rules = Rules::default();
    let day = day(today, flights);
    let now = noon(today);
    let mut times = Times::default();
    let started = Instant::now();
    apply(store, &rules, message_id(today, 0), &day.snapshot, now)?;
    times.snapshot = started.elapsed();
    let started = Instant::now();
    apply(store, &rules, message_id(today, 1), &day.snapshot, now)?;
    times.unchanged = started.elapsed();
    let started = Instant::now();
    for (i, event) in day.events.iter().take(events).enumerate() {
        apply(store, &rules, message_id(today, 2 + i), event, now)?;
    }
    times.events = started.elapsed();
    times.event_count = day.events.len().min(events);
    let today_date = first_day() + chrono::Days::new(u64::from(today));
    let started = Instant::now();
    let read = read_states(store, Selection::Day(today_date), 1_000, |_| {
        Ok::<_, flightstate::store::StoreError>(())
    })?;
    times.day_read = started.elapsed();
    // A day's events move or delete a few of its flights.
    if read < flights * 9 / 10 {
        return Err(format!("the day read {read} flights").into());
    }
    let started = Instant::now();
    let limits = StatusLimits {
        dead_letters: 10,
        days: 7,
        head_blocked_alert_secs: 300,
    };
    state_facts(store, limits, now)?;
    times.status = started.elapsed();
    Ok(times)
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

fn count(conn: &mut PgConnection, table: &str) -> BenchResult<i64> {
    // Benchmark infrastructure: the table names are this file's own.
    Ok(
        diesel::sql_query(format!("SELECT COUNT(*) AS n FROM {table}"))
            .get_result::<Count>(conn)?
            .n,
    )
}

fn sizes(url: &str) -> BenchResult<String> {
    let mut conn = PgConnection::establish(url)?;
    Ok(format!(
        "{} flights, {} stand rows, {} ledgers, {} listed",
        count(&mut conn, "flight_schd")?,
        count(&mut conn, "flight_stand")?,
        count(&mut conn, "schd_gen")?,
        count(&mut conn, "schd_gen_flid")?
    ))
}

fn history_rule(days: u32) -> HistoryRule {
    HistoryRule {
        days,
        clock: StationClock::new(Some(chrono_tz::UTC)),
        day_boundary: NaiveTime::MIN,
    }
}

fn main() -> BenchResult<()> {
    flightstate::memory::refuse_huge_pages();
    let admin = common::pg_admin_url();
    let days: u32 = env_or("FLIGHTSTATE_BENCH_DAYS", 365);
    let flights: usize = env_or("FLIGHTSTATE_BENCH_FLIGHTS", 1_000);
    let per_day: u32 = env_or("FLIGHTSTATE_BENCH_MESSAGES_PER_DAY", 3_000);
    // The day's first events, one per transaction.
    let events: usize = env_or("FLIGHTSTATE_BENCH_EVENTS", 2_000);
    let rules = Rules::default();

    let empty_db = BenchDatabase::create(&admin, "empty")?;
    let year_db = BenchDatabase::create(&admin, "year")?;
    let empty = store_of(&empty_db)?;
    let year = store_of(&year_db)?;

    let started = Instant::now();
    for n in 0..days {
        let past = day(n, flights);
        apply(&year, &rules, message_id(n, 0), &past.snapshot, noon(n))?;
    }
    journal_history(&year_db.url, days, per_day)?;
    println!(
        "history: {days} days of {flights} flights and {} messages a day, built in {:.0} s: {}",
        per_day,
        started.elapsed().as_secs_f64(),
        sizes(&year_db.url)?
    );
    let mut conn = PgConnection::establish(&empty_db.url)?;
    diesel::sql_query("ANALYZE").execute(&mut conn)?;

    // Alternate so that the machine's drift falls on both.
    let e1 = measure(&empty, days, flights, events)?;
    let y1 = measure(&year, days, flights, events)?;
    let e2 = measure(&empty, days + 1, flights, events)?;
    let y2 = measure(&year, days + 1, flights, events)?;
    let pair = |name: &str, e: [Duration; 2], y: [Duration; 2], per: Option<usize>| {
        let e = (e[0] + e[1]).as_secs_f64() / 2.0;
        let y = (y[0] + y[1]).as_secs_f64() / 2.0;
        let rate = per.map_or(String::new(), |n| {
            format!("  ({:.0} vs {:.0} msg/s)", n as f64 / e, n as f64 / y)
        });
        println!(
            "{name:<28} empty {:>8.1} ms   year {:>8.1} ms   empty/year {:.2}{rate}",
            e * 1e3,
            y * 1e3,
            e / y
        );
    };
    println!("each the mean of two days, today's work on each database:");
    pair(
        "snapshot apply",
        [e1.snapshot, e2.snapshot],
        [y1.snapshot, y2.snapshot],
        None,
    );
    pair(
        "unchanged re-apply",
        [e1.unchanged, e2.unchanged],
        [y1.unchanged, y2.unchanged],
        None,
    );
    pair(
        "flight events, one per tx",
        [e1.events, e2.events],
        [y1.events, y2.events],
        Some(e1.event_count),
    );
    pair(
        "GET /all/flights?day=",
        [e1.day_read, e2.day_read],
        [y1.day_read, y2.day_read],
        None,
    );
    pair(
        "status",
        [e1.status, e2.status],
        [y1.status, y2.status],
        None,
    );

    // The history clean-up of one day: keep all but the oldest.
    let settings = CleanupSettings {
        history: Some(history_rule(days)),
        flight_days: 10_000,
        ledger_days: 10_000,
        effect_call_days: 10_000,
        proc_state_days: 10_000,
        ..CleanupSettings::default()
    };
    let started = Instant::now();
    let report = clean_up(&year, &settings, noon(days + 1), false, &mut |_, _| true)?;
    println!(
        "history clean-up of one day:  {:.1} ms ({} days, {} flights retired, {} ledgers)",
        started.elapsed().as_secs_f64() * 1e3,
        report.retired_days.len(),
        report.retired_flights.len(),
        report.days.len()
    );
    drop((empty, year));
    drop((empty_db, year_db));

    // 60 days with 30 kept: the tables stay at about 30 days' size.
    let window_db = BenchDatabase::create(&admin, "window")?;
    let window = store_of(&window_db)?;
    let settings = CleanupSettings {
        history: Some(history_rule(30)),
        ..CleanupSettings::default()
    };
    for n in 0..60 {
        let next = day(n, flights);
        apply(&window, &rules, message_id(n, 0), &next.snapshot, noon(n))?;
        clean_up(&window, &settings, noon(n), false, &mut |_, _| true)?;
        if n == 29 || n == 59 {
            println!(
                "history_days = 30, after day {}: {}",
                n + 1,
                sizes(&window_db.url)?
            );
        }
    }
    Ok(())
}
