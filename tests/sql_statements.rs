//! Every handwritten PostgreSQL statement is pinned by a snapshot (a change
//! to what reaches the driver is reviewed like code), carries the header a
//! DBA reads, and — for the flight tables — names exactly the columns that
//! the Rust side binds and the migrations create.
#![cfg(feature = "postgres")]

mod common;

use diesel::sql_types::Text;
use diesel::{QueryableByName, RunQueryDsl};
use flightstate::state::{
    Bridge, Carousel, Chock, Chute, Counter, Delay, FlightFields, Gate, RoutePoint, Stand, TableRow,
};
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

fn declared<T: TableRow>(keys: &[&str]) -> Vec<String> {
    keys.iter()
        .map(|k| (*k).to_owned())
        .chain(T::COLUMNS.iter().map(|(c, _)| (*c).to_owned()))
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
    let key = ["flid", "ordinal"];
    let cases: Vec<(&str, &str, Vec<String>)> = vec![
        ("flight_gate", "insert_gates", declared::<Gate>(&key)),
        (
            "flight_counter",
            "insert_counters",
            declared::<Counter>(&key),
        ),
        (
            "flight_carousel",
            "insert_carousels",
            declared::<Carousel>(&key),
        ),
        ("flight_stand", "insert_stands", declared::<Stand>(&key)),
        ("flight_chute", "insert_chutes", declared::<Chute>(&key)),
        ("flight_delay", "insert_delays", declared::<Delay>(&key)),
        ("flight_bridge", "insert_bridges", declared::<Bridge>(&key)),
        ("flight_chock", "insert_chocks", declared::<Chock>(&key)),
        (
            "flight_route_point",
            "insert_route_points",
            declared::<RoutePoint>(&["flid", "route_kind", "ordinal"]),
        ),
    ];
    for (table, insert, rust) in cases {
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
    let mut main = declared::<FlightFields>(&["flid"]);
    main.extend(
        [
            "operation_day",
            "state_version",
            "last_message_id",
            "updated_at",
            "state_digest",
            "state_document",
        ]
        .map(str::to_owned),
    );
    assert_eq!(insert_columns("upsert_flights"), main);
    assert_eq!(insert_columns("insert_flights"), main);
    // New flights' main rows are COPYed in the same order.
    assert_eq!(copy_columns("copy_flights"), main);
    assert_eq!(table_columns("flight_schd"), main);
}
