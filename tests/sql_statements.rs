//! Every handwritten PostgreSQL statement is pinned by a snapshot (a change
//! to what reaches the driver is reviewed like code), carries the header a
//! DBA reads, and — for the flight tables — names exactly the columns that
//! the Rust side binds and the migrations create.
#![cfg(feature = "postgres")]

#[path = "common/columns.rs"]
mod columns;
mod common;

use diesel::sql_types::Text;
use diesel::{QueryableByName, RunQueryDsl};
use flightstate::store::pg::{copy_statements, statements};

fn statement(name: &str) -> &'static str {
    statements()
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
        .unwrap_or_else(|| panic!("no statement {name}"))
}

#[test]
fn every_statement_is_pinned() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/sql/pg");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for (name, text) in statements() {
            insta::assert_snapshot!(*name, text.replace("\r\n", "\n"));
        }
    });
}

/// The COPY statements diesel builds from `schema.rs` for the detail tables.
#[test]
fn every_copy_is_pinned() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/sql/pg");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for (name, text) in copy_statements() {
            insta::assert_snapshot!(name, text);
        }
    });
}

/// The columns a COPY statement names, in order.
fn copy_columns(name: &str) -> Vec<String> {
    let copies = copy_statements();
    let text = &copies
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no copy {name}"))
        .1;
    let start = text.find('(').expect("column list") + 1;
    let end = text[start..].find(')').expect("column list end") + start;
    text[start..end]
        .split(',')
        .map(|c| c.trim().trim_matches('"').to_owned())
        .collect()
}

#[test]
fn every_statement_documents_itself_and_binds_its_values() {
    let files: Vec<String> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/sql/pg"))
        .expect("sql/pg")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), statements().len(), "a file is not compiled in");
    for (name, text) in statements() {
        assert!(files.contains(&format!("{name}.sql")), "{name}");
        assert!(
            text.starts_with(&format!("-- name: {name}\n")),
            "{name}: header"
        );
        for key in ["-- binds:", "-- returns:", "-- locks:"] {
            assert!(text.contains(key), "{name}: no `{key}` line");
        }
        let body: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("--"))
            .collect::<Vec<_>>()
            .join("\n");
        // Values come in as binds: the only literals are the fixed
        // PIPELINE_LOCK key, the ledger's first version and the name of
        // the one setting a transaction changes (its value is bound).
        let literal_free = body
            .replace("lock_id = 1", "")
            .replace("VALUES ($1, 1, $2, $3)", "")
            .replace("set_config('idle_in_transaction_session_timeout', $1", "");
        assert!(!literal_free.contains('\''), "{name}: a quoted literal");
        assert!(!body.contains(';'), "{name}: one statement, no terminator");
    }
}

/// The columns an insert statement names, in order.
fn insert_columns(name: &str) -> Vec<String> {
    let text: String = statement(name)
        .lines()
        .filter(|l| !l.starts_with("--"))
        .collect::<Vec<_>>()
        .join("\n");
    let start = text.find('(').expect("column list") + 1;
    let end = text[start..].find(')').expect("column list end") + start;
    text[start..end]
        .split(',')
        .map(|c| c.trim().to_owned())
        .collect()
}

#[derive(QueryableByName)]
struct Column {
    #[diesel(sql_type = Text)]
    column_name: String,
}

#[test]
fn statements_rust_and_migrations_agree_on_every_column() {
    let db = common::TestDatabase::migrated();
    let mut conn = db.connect();
    let mut table_columns = |table: &str| -> Vec<String> {
        diesel::sql_query(
            "SELECT column_name::text AS column_name FROM information_schema.columns \
             WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position",
        )
        .bind::<Text, _>(table)
        .load::<Column>(&mut conn)
        .expect("columns")
        .into_iter()
        .map(|c| c.column_name)
        .collect()
    };
    for (table, insert, rust) in columns::detail_tables() {
        assert_eq!(
            insert_columns(insert),
            rust,
            "{insert} vs the Rust declaration"
        );
        // Full writes COPY the rows in the Rust declaration's order.
        let copy = insert.replacen("insert_", "copy_", 1);
        assert_eq!(copy_columns(&copy), rust, "{copy} vs the Rust declaration");
        let mut migrated = table_columns(table);
        let mut rust_sorted = rust.clone();
        migrated.sort();
        rust_sorted.sort();
        assert_eq!(migrated, rust_sorted, "{table} vs the Rust declaration");
    }
    let main = columns::main_row();
    assert_eq!(insert_columns("upsert_flights"), main);
    assert_eq!(insert_columns("insert_flights"), main);
    // New flights' main rows are COPYed in the same order.
    assert_eq!(copy_columns("copy_flights"), main);
    assert_eq!(table_columns("flight_schd"), main);
}

/// The `COPY` statements diesel sends, as each connection of this test
/// process reports them to diesel's instrumentation.
static SENT_COPIES: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

fn record_copies() -> Option<Box<dyn diesel::connection::Instrumentation>> {
    Some(Box::new(
        |event: diesel::connection::InstrumentationEvent<'_>| {
            if let diesel::connection::InstrumentationEvent::StartQuery { query, .. } = event {
                let text = query.to_string();
                if text.starts_with("COPY ") {
                    SENT_COPIES
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push(text);
                }
            }
        },
    ))
}

/// The `COPY`s `flightstate sql` prints (and `every_copy_is_pinned` pins)
/// are the text of the queries diesel builds and sends: a generated day's
/// snapshot, written on the default paths, sends exactly these.
#[test]
fn the_catalogued_copies_are_what_diesel_sends() {
    use common::dialects::{PgDb, ScenarioDb};
    use flightstate::state::StoredFlight;
    use flightstate::store::{FlightRows, FlightWrite, StateTx, Store};

    diesel::connection::set_default_instrumentation(record_copies).expect("instrumentation");
    let day = chrono::NaiveDate::from_ymd_opt(2026, 9, 9).expect("day");
    let (states, updated_at) = common::generated_day::closing_flights(day);
    let writes: Vec<FlightWrite> = states
        .into_iter()
        .map(|state| {
            let flight = StoredFlight {
                state,
                operation_day: Some(day),
                state_version: 1,
                last_message_id: 40,
                updated_at,
            };
            let digest = flight.state.digest();
            FlightWrite::whole(flight, digest)
        })
        .collect();
    let db = PgDb::migrated();
    db.store()
        .transaction(|tx| tx.write_flights(&writes, FlightRows::New))
        .expect("a day's flights COPYed");
    let sent: std::collections::BTreeSet<String> = SENT_COPIES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .cloned()
        .collect();
    let catalogued: std::collections::BTreeSet<String> = copy_statements()
        .into_iter()
        .map(|(_, text)| text)
        .collect();
    assert_eq!(sent, catalogued);
}
