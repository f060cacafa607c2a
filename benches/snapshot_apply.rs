//! Benchmark: applying a full day's snapshot (9,999 flights, realistic
//! collections) to PostgreSQL, next to the raw baseline of loading the same
//! rows with `COPY` into an empty copy of the tables, in the same run.
//!
//! Prints, for each of a few rounds on fresh databases, the three times, the
//! CPU each side used, and the rows written by the unchanged re-apply; then
//! the medians, the ratios apply/COPY and unchanged/apply (median and
//! range over the rounds) and the bench process's peak RSS (which holds the
//! message, its XML and the baseline's rows besides the apply: the apply's own
//! is `scripts/apply-peak-rss`'s). A 2-core VM's times move by a
//! quarter from one run to the next; the rounds let the ratios be read
//! through that. Nothing here is asserted on time: the numbers are for
//! people.
//!
//! Run: `cargo bench --bench snapshot_apply` (PostgreSQL on
//! `FLIGHTSTATE_TEST_PG_ADMIN_URL`, default `postgres://postgres@127.0.0.1:5432/postgres`;
//! `psql` on PATH). Options by env: `FLIGHTSTATE_BENCH_FLIGHTS` (default 9999);
//! `FLIGHTSTATE_BENCH_ROUNDS` (default 3); `FLIGHTSTATE_BENCH_READ_WHOLE=1`
//! reads the message whole before writing instead of streaming it
//! (`pipeline::streamed`), to compare the two; `FLIGHTSTATE_BENCH_ONE_CORE=1`
//! reads it on one core (no `ParseOptions::second_reader_from_bytes`).

use std::io::Write;
use std::process::Command;
use std::time::Instant;

use chrono::NaiveDate;
use diesel::sql_types::BigInt;
use diesel::{Connection, PgConnection, QueryableByName, RunQueryDsl};
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::protocol::{Body, to_xml};
use flightstate::state::{
    ColumnValues, FlightState, StoredFlight, TableRow, state_document, state_from_record,
};
use flightstate::store::pg::{PgStore, run_pending_migrations};
use flightstate::synth::{DayOptions, Moment, detail_rows, snapshot_of};

mod common;

/// The allocator of the `flightstate` binary (`src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use common::{BenchDatabase, BenchResult, CpuTimes, FLIGHT_TABLES, peak_rss_kib};

fn main() -> BenchResult<()> {
    flightstate::memory::refuse_huge_pages();
    let admin = common::pg_admin_url();
    let flights: usize = common::env_or("FLIGHTSTATE_BENCH_FLIGHTS", 9_999);

    let options = DayOptions {
        seed: 20260909,
        day: NaiveDate::from_ymd_opt(2026, 9, 9).ok_or("day")?,
        flights,
        ..DayOptions::default()
    };
    // The end-of-day snapshot carries the day's actuals too: ~14 detail rows
    // per flight, the realistic worst case for a re-sent DNLD.
    let message = snapshot_of(&options, Moment::Closing);
    let details = detail_rows(&message);
    let xml = to_xml(&message);
    let states: Vec<FlightState> = match &message.body {
        Body::Schedule(schedule) => schedule
            .flights
            .iter()
            .map(state_from_record)
            .collect::<Result<_, _>>()?,
        _ => return Err("the generator gave no snapshot".into()),
    };
    println!(
        "snapshot: {} flights, {details} detail rows, {:.1} MiB of XML",
        states.len(),
        xml.len() as f64 / (1024.0 * 1024.0)
    );

    let read_whole: u8 = common::env_or("FLIGHTSTATE_BENCH_READ_WHOLE", 0);
    let one_core: u8 = common::env_or("FLIGHTSTATE_BENCH_ONE_CORE", 0);
    let mut settings = Rules::default();
    if read_whole == 1 {
        settings.stream_from_bytes = usize::MAX;
    }
    if one_core == 1 {
        settings.parse.second_reader_from_bytes = None;
    }
    let rounds: usize = common::env_or("FLIGHTSTATE_BENCH_ROUNDS", 3).max(1);
    let csv_dir = std::env::temp_dir().join(format!("flightstate-bench-{}", std::process::id()));
    std::fs::create_dir_all(&csv_dir)?;
    let script = write_copy_script(&csv_dir, &states)?;

    let mut all = Vec::with_capacity(rounds);
    for round in 1..=rounds {
        let times = measure_round(&admin, &settings, &xml, &script)?;
        println!("round {round}:");
        times.print();
        all.push(times);
    }
    std::fs::remove_dir_all(&csv_dir).ok();

    let median = |pick: fn(&Round) -> f64| {
        let mut values: Vec<f64> = all.iter().map(pick).collect();
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    println!("median of {rounds} rounds:");
    println!(
        "parse alone:      {:8.3} s  (part of every apply)",
        median(|r| r.parse)
    );
    println!("apply:            {:8.3} s", median(|r| r.apply));
    println!("COPY baseline:    {:8.3} s", median(|r| r.copy));
    println!("unchanged apply:  {:8.3} s", median(|r| r.unchanged));
    println!(
        "ratio apply/COPY:        {:.2}  (goal <= 1.5; rounds {})",
        median(|r| r.apply / r.copy),
        spread(&all, |r| r.apply / r.copy)
    );
    println!(
        "ratio unchanged/apply:   {:.2}  (goal <= 0.3; rounds {})",
        median(|r| r.unchanged / r.apply),
        spread(&all, |r| r.unchanged / r.apply)
    );
    println!("peak RSS:                {} MiB", peak_rss_kib()? / 1024);
    Ok(())
}

/// The times of one round: the same message on fresh databases.
struct Round {
    parse: f64,
    apply: f64,
    apply_cpu: String,
    how: String,
    created: usize,
    copy: f64,
    unchanged: f64,
    unchanged_cpu: String,
    unchanged_flights: usize,
    rewritten: i64,
}

impl Round {
    fn print(&self) {
        println!(
            "  parse alone:      {:8.3} s  (part of every apply)",
            self.parse
        );
        println!(
            "  apply:            {:8.3} s  ({} created, {})",
            self.apply, self.created, self.how
        );
        println!("    {}", self.apply_cpu);
        println!(
            "  COPY baseline:    {:8.3} s  (psql \\copy of the same rows, one transaction)",
            self.copy
        );
        println!(
            "  unchanged apply:  {:8.3} s  ({} unchanged, {} flight rows written)",
            self.unchanged, self.unchanged_flights, self.rewritten
        );
        println!("    {}", self.unchanged_cpu);
    }
}

/// The lowest and highest of a ratio over the rounds.
fn spread(rounds: &[Round], pick: fn(&Round) -> f64) -> String {
    let values: Vec<f64> = rounds.iter().map(pick).collect();
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{low:.2}–{high:.2}")
}

/// Parses the message alone, loads the `COPY` baseline into an empty
/// migrated database, applies the message to another, then applies it
/// again unchanged.
fn measure_round(
    admin: &str,
    settings: &Rules,
    xml: &str,
    script: &std::path::Path,
) -> BenchResult<Round> {
    // What parsing alone costs, to read the apply times against.
    let started = Instant::now();
    let parsed = flightstate::protocol::parse_slice(xml.as_bytes(), &settings.parse)?;
    let parse = started.elapsed().as_secs_f64();
    drop(parsed);

    let apply_db = BenchDatabase::create(admin, "apply")?;
    let copy_db = BenchDatabase::create(admin, "copy")?;
    run_pending_migrations(&apply_db.url)?;
    run_pending_migrations(&copy_db.url)?;

    // Baseline: COPY the same rows into the empty tables of a migrated copy.
    let started = Instant::now();
    let status = Command::new("psql")
        .args(["-q", "-v", "ON_ERROR_STOP=1", "-d", &copy_db.url, "-f"])
        .arg(script)
        .status()?;
    let copy = started.elapsed().as_secs_f64();
    if !status.success() {
        return Err("psql COPY failed".into());
    }

    let store = PgStore::connect(&apply_db.url, 2, std::time::Duration::from_secs(30))?;
    let now = chrono::Utc::now().naive_utc();

    let cpu = CpuTimes::now();
    let started = Instant::now();
    let applied = apply_message(&store, settings, 1, xml.as_bytes(), now)?;
    let apply = started.elapsed().as_secs_f64();
    let apply_cpu = CpuTimes::now().since(&cpu, apply);
    let Applied::Snapshot(report) = applied else {
        return Err(format!("not applied: {applied:?}").into());
    };

    let mut conn = PgConnection::establish(&apply_db.url)?;
    let before = current_xid(&mut conn)?;
    let cpu = CpuTimes::now();
    let started = Instant::now();
    let applied = apply_message(&store, settings, 2, xml.as_bytes(), now)?;
    let unchanged = started.elapsed().as_secs_f64();
    let unchanged_cpu = CpuTimes::now().since(&cpu, unchanged);
    let Applied::Snapshot(again) = applied else {
        return Err(format!("not applied: {applied:?}").into());
    };
    let rewritten = rows_written_since(&mut conn, before)?;
    Ok(Round {
        parse,
        apply,
        apply_cpu,
        how: match report.streamed_parts {
            0 => "read whole, then written".to_owned(),
            parts => format!("written in {parts} parts while read"),
        },
        created: report.created,
        copy,
        unchanged,
        unchanged_cpu,
        unchanged_flights: again.unchanged,
        rewritten,
    })
}

/// Writes one CSV per flight table with exactly the rows the pipeline
/// writes, and a psql script that loads them all in one transaction.
fn write_copy_script(
    dir: &std::path::Path,
    states: &[FlightState],
) -> BenchResult<std::path::PathBuf> {
    let now = chrono::Utc::now().naive_utc();
    let day = NaiveDate::from_ymd_opt(2026, 9, 9).ok_or("day")?;
    let mut commands = vec!["BEGIN;".to_owned()];
    let mut main = Csv::create(dir, "flight_schd")?;
    for state in states {
        let mut row = vec![state.flid.to_string()];
        row.extend(cells(&flightstate::state::FlightFields::columns(
            std::iter::once(&state.fields),
        )));
        let flight = StoredFlight {
            state: state.clone(),
            operation_day: Some(day),
            state_version: 1,
            last_message_id: 1,
            updated_at: now,
        };
        row.extend([
            day.to_string(),
            "1".to_owned(),
            "1".to_owned(),
            now.to_string(),
            state.digest(),
            quoted(&state_document(&flight)),
        ]);
        main.row(&row)?;
    }
    commands.push(main.finish("flight_schd")?);
    macro_rules! table {
        ($table:literal, $field:ident) => {{
            let mut csv = Csv::create(dir, $table)?;
            for state in states {
                for (i, item) in state.$field.iter().enumerate() {
                    let mut row = vec![state.flid.to_string(), (i + 1).to_string()];
                    row.extend(cells(&TableRow::columns(std::iter::once(item))));
                    csv.row(&row)?;
                }
            }
            commands.push(csv.finish($table)?);
        }};
    }
    table!("flight_gate", gates);
    table!("flight_counter", counters);
    table!("flight_carousel", carousels);
    table!("flight_stand", stands);
    table!("flight_chute", chutes);
    table!("flight_delay", delays);
    table!("flight_bridge", bridges);
    table!("flight_chock", chocks);
    let mut routes = Csv::create(dir, "flight_route_point")?;
    for state in states {
        for (kind, points) in [("ROUT", &state.route), ("ERUT", &state.entire_route)] {
            for (i, point) in points.iter().enumerate() {
                let mut row = vec![state.flid.to_string(), kind.to_owned(), (i + 1).to_string()];
                row.extend(cells(&TableRow::columns(std::iter::once(point))));
                routes.row(&row)?;
            }
        }
    }
    commands.push(routes.finish("flight_route_point")?);
    commands.push("COMMIT;".to_owned());
    let script = dir.join("copy.sql");
    std::fs::write(&script, commands.join("\n"))?;
    Ok(script)
}

/// One-row columns as CSV cells (empty = NULL).
fn cells(columns: &[ColumnValues]) -> Vec<String> {
    fn cell<T: ToString>(value: &[Option<T>]) -> String {
        value
            .first()
            .and_then(Option::as_ref)
            .map_or_else(String::new, ToString::to_string)
    }
    columns
        .iter()
        .map(|column| match column {
            ColumnValues::Text(v) | ColumnValues::Decimal(v) => v
                .first()
                .and_then(Option::as_ref)
                .map_or_else(String::new, |s| quoted(s)),
            ColumnValues::Time(v) => cell(v),
            ColumnValues::Id(v) => cell(v),
            ColumnValues::Count(v) => cell(v),
        })
        .collect()
}

/// A CSV cell holding `text` (never NULL).
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

struct Csv {
    path: std::path::PathBuf,
    out: std::io::BufWriter<std::fs::File>,
}

impl Csv {
    fn create(dir: &std::path::Path, table: &str) -> BenchResult<Csv> {
        let path = dir.join(format!("{table}.csv"));
        Ok(Csv {
            out: std::io::BufWriter::new(std::fs::File::create(&path)?),
            path,
        })
    }

    fn row(&mut self, cells: &[String]) -> BenchResult<()> {
        writeln!(self.out, "{}", cells.join(","))?;
        Ok(())
    }

    fn finish(mut self, table: &str) -> BenchResult<String> {
        self.out.flush()?;
        Ok(format!(
            "\\copy {table} FROM '{}' WITH (FORMAT csv)",
            self.path.display()
        ))
    }
}

#[derive(QueryableByName)]
struct Xid {
    #[diesel(sql_type = BigInt)]
    xid: i64,
}

fn current_xid(conn: &mut PgConnection) -> BenchResult<i64> {
    Ok(diesel::sql_query("SELECT txid_current() AS xid")
        .get_result::<Xid>(conn)?
        .xid)
}

/// Rows of the flight tables whose creating transaction came after `xid`.
fn rows_written_since(conn: &mut PgConnection, xid: i64) -> BenchResult<i64> {
    let mut total = 0;
    for table in FLIGHT_TABLES {
        let query = format!("SELECT count(*) AS xid FROM {table} WHERE xmin::text::bigint > $1");
        total += diesel::sql_query(query)
            .bind::<BigInt, _>(xid)
            .get_result::<Xid>(conn)?
            .xid;
    }
    Ok(total)
}
