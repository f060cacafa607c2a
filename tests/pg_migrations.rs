//! `migrations_pg/` against a real PostgreSQL server: the embedded migrations and the `diesel`
//! CLI build the same schema, every table and column is commented, the down migrations undo
//! the up migrations exactly, the committed `schema.rs` matches, and the whole schema is
//! pinned by a snapshot so every change to it is reviewed.
//!
//! Needs `pg_dump` (same major version as the server) and, for the CLI cases, the `diesel`
//! CLI (`cargo install diesel_cli --locked --no-default-features --features postgres`, or set
//! `DIESEL_CLI` to its path). Without them those tests fail, they never pass silently.
#![cfg(feature = "postgres")]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::TestDatabase;
use diesel::connection::SimpleConnection;
use diesel::sql_types::{Integer, Text};
use diesel::{PgConnection, QueryableByName, RunQueryDsl};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations_pg");

/// Every table of DESIGN §3, as PostgreSQL names them (unquoted, so lower case), and the
/// version floor of deleted flights (`docs/kafka.md`), and the evidence of the upstream's
/// order and SEQN (`docs/open-questions.md`), and the operator's record (`docs/operations.md`).
const DESIGN_TABLES: &[&str] = &[
    "effect_call",
    "flight_bridge",
    "flight_carousel",
    "flight_chock",
    "flight_chute",
    "flight_counter",
    "flight_delay",
    "flight_gate",
    "flight_route_point",
    "flight_schd",
    "flight_stand",
    "flight_version_floor",
    "kafka_msg",
    "kafka_schd",
    "operator_action",
    "order_evidence",
    "pipeline_lock",
    "proc_state",
    "req_track",
    "schd_gen",
    "schd_gen_flid",
    "seqn_evidence",
];

/// diesel's own bookkeeping table, present in every migrated database.
const DIESEL_TABLE: &str = "__diesel_schema_migrations";

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[derive(QueryableByName, Debug, PartialEq)]
struct Name {
    #[diesel(sql_type = Text)]
    name: String,
}

fn names(conn: &mut PgConnection, sql: &str) -> Vec<String> {
    diesel::sql_query(sql)
        .load::<Name>(conn)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .into_iter()
        .map(|n| n.name)
        .collect()
}

fn tables(conn: &mut PgConnection) -> Vec<String> {
    names(
        conn,
        "SELECT table_name::text AS name FROM information_schema.tables \
         WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
    )
}

fn with_diesel_table(tables: &[&str]) -> Vec<String> {
    let mut all: Vec<String> = tables.iter().map(|t| t.to_string()).collect();
    all.push(DIESEL_TABLE.to_owned());
    all.sort();
    all
}

#[track_caller]
fn run(command: &mut Command, what: &str) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("could not start {what} ({command:?}): {e}"));
    assert!(
        output.status.success(),
        "{what} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The schema of `db` as `pg_dump --schema-only` prints it, without diesel's table, with
/// the lines that differ between servers or runs removed.
#[track_caller]
fn schema_dump(db: &TestDatabase) -> String {
    let output = run(
        Command::new("pg_dump")
            .args(["--schema-only", "--no-owner", "--no-privileges"])
            .arg(format!("--exclude-table=public.{DIESEL_TABLE}"))
            .arg(format!("--dbname={}", db.url())),
        "pg_dump (install the PostgreSQL client of the server's major version)",
    );
    String::from_utf8(output.stdout)
        .expect("pg_dump prints UTF-8")
        .replace("\r\n", "\n")
        .lines()
        // `\restrict <random key>` (newer pg_dump releases) and the version banner change
        // from run to run or from server to server.
        .filter(|line| !line.starts_with("\\restrict") && !line.starts_with("\\unrestrict"))
        .filter(|line| !line.starts_with("-- Dumped from") && !line.starts_with("-- Dumped by"))
        .map(|line| line.replace(db.name(), "<database>"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `diesel` CLI: `DIESEL_CLI`, else `diesel` on `PATH`, else `~/.cargo/bin/diesel`.
#[track_caller]
fn diesel_cli() -> PathBuf {
    let mut candidates = Vec::new();
    if let Some(path) = std::env::var_os("DIESEL_CLI") {
        candidates.push(PathBuf::from(path));
    }
    candidates.push(PathBuf::from("diesel"));
    if let Some(cargo_home) = std::env::var_os("CARGO_HOME") {
        candidates.push(Path::new(&cargo_home).join("bin/diesel"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        candidates.push(Path::new(&home).join(".cargo/bin/diesel"));
    }
    candidates
        .into_iter()
        .find(|candidate| {
            Command::new(candidate)
                .arg("--version")
                .output()
                .is_ok_and(|output| output.status.success())
        })
        .unwrap_or_else(|| {
            panic!(
                "this test needs the diesel CLI, which was not found (DIESEL_CLI, PATH, \
                 ~/.cargo/bin); install it with \
                 `cargo install diesel_cli --locked --no-default-features --features postgres`"
            )
        })
}

/// The CLI with the repository's `diesel.toml`, run from the repository root.
fn diesel(db: &TestDatabase) -> Command {
    let mut command = Command::new(diesel_cli());
    command
        .current_dir(repo_root())
        .env_remove("DATABASE_URL")
        .arg("--config-file")
        .arg(repo_root().join("diesel.toml"))
        .arg("--database-url")
        .arg(db.url());
    command
}

#[test]
fn migrations_create_every_design_table_and_a_second_run_applies_nothing() {
    let db = TestDatabase::empty();

    let applied = flightstate::store::pg::run_pending_migrations(db.url())
        .unwrap_or_else(|e| panic!("first run: {e:#}"));
    assert_eq!(applied, common::migration_names());
    let mut conn = db.connect();
    assert_eq!(tables(&mut conn), with_diesel_table(DESIGN_TABLES));
    let first = schema_dump(&db);

    let again = flightstate::store::pg::run_pending_migrations(db.url())
        .unwrap_or_else(|e| panic!("second run: {e:#}"));
    assert_eq!(
        again,
        Vec::<String>::new(),
        "an up-to-date database applies nothing"
    );
    assert_eq!(schema_dump(&db), first, "a second run changed the schema");
}

#[test]
fn unreachable_server_is_a_connection_failure() {
    let err = flightstate::store::pg::run_pending_migrations("postgres://postgres@127.0.0.1:1/x")
        .expect_err("nothing listens on port 1");
    assert_eq!(err.kind(), flightstate::FailureKind::ConnectionLost);
}

#[derive(QueryableByName)]
struct LockRow {
    #[diesel(sql_type = Integer)]
    rows: i32,
    #[diesel(sql_type = Integer)]
    lock_id: i32,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    lease_epoch: i64,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    no_holder: bool,
}

#[test]
fn pipeline_lock_has_exactly_one_row_from_the_start() {
    let db = TestDatabase::migrated();
    let mut conn = db.connect();
    let row: LockRow = diesel::sql_query(
        "SELECT (SELECT count(*) FROM pipeline_lock)::int AS rows, lock_id::int AS lock_id, \
         lease_epoch, lease_holder IS NULL AND lease_expires_at IS NULL AS no_holder \
         FROM pipeline_lock",
    )
    .get_result(&mut conn)
    .expect("read pipeline_lock");
    assert_eq!(
        (row.rows, row.lock_id, row.lease_epoch, row.no_holder),
        (1, 1, 0, true)
    );
    let second = conn.batch_execute("INSERT INTO pipeline_lock (lock_id) VALUES (2)");
    assert!(second.is_err(), "a second lock row must be refused");
}

#[test]
fn flight_schd_has_a_column_for_every_scalar_element_of_the_flight_record() {
    let db = TestDatabase::migrated();
    let mut conn = db.connect();
    let columns = names(
        &mut conn,
        "SELECT column_name::text AS name FROM information_schema.columns \
         WHERE table_schema = 'public' AND table_name = 'flight_schd' ORDER BY ordinal_position",
    );
    // PROTOCOL §4.2, in its order, then FDIV/FRET/FLAB, PORT and the bookkeeping columns.
    let expected = "FLID ALCD ALSC FLNO MVIN SODT FLTY FLIN ACFT RENO TAOP TAFL TAID TRML MAXP \
        CSOP CSFT MAID ESTT ACTT STND PHAG FHAG MHAG CNCL REMC BOTM LACL FINT APPT EGSR EGST \
        VIPP VIPR LBNO LBWT PAXC EXSC EXSR FTSS PEDT NEAT PADT NAAT COBT TOBT EOBT IEST CTOT \
        RUNW FFID FDIV_DDES FDIV_DDIR FDIV FRET_REID FRET FLAB_ARES FLAB PORT_OPEN_POTM \
        PORT_CLOSE_POTM OPERATION_DAY STATE_VERSION LAST_MESSAGE_ID UPDATED_AT STATE_DIGEST \
        STATE_DOCUMENT";
    let expected: Vec<String> = expected.split_whitespace().map(str::to_lowercase).collect();
    assert_eq!(columns, expected);
}

#[test]
fn every_table_and_column_has_a_comment() {
    let db = TestDatabase::migrated();
    let mut conn = db.connect();
    let missing = names(
        &mut conn,
        "SELECT c.relname::text AS name FROM pg_class c \
           JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> '__diesel_schema_migrations' \
           AND coalesce(obj_description(c.oid, 'pg_class'), '') = '' \
         UNION ALL \
         SELECT c.relname || '.' || a.attname AS name FROM pg_attribute a \
           JOIN pg_class c ON c.oid = a.attrelid \
           JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> '__diesel_schema_migrations' \
           AND a.attnum > 0 AND NOT a.attisdropped \
           AND coalesce(col_description(c.oid, a.attnum), '') = '' \
         ORDER BY 1",
    );
    assert_eq!(
        missing,
        Vec::<String>::new(),
        "tables or columns without COMMENT ON"
    );
}

#[test]
fn every_identifier_fits_oracle_11g() {
    let db = TestDatabase::migrated();
    let mut conn = db.connect();
    let too_long = names(
        &mut conn,
        "SELECT c.relname::text AS name FROM pg_class c \
           JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = 'public' AND octet_length(c.relname::text) > 30 \
           AND NOT starts_with(c.relname::text, '__diesel_schema_migrations') \
         UNION ALL \
         SELECT a.attname::text FROM pg_attribute a \
           JOIN pg_class c ON c.oid = a.attrelid \
           JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = 'public' AND a.attnum > 0 AND octet_length(a.attname::text) > 30 \
         UNION ALL \
         SELECT con.conname::text FROM pg_constraint con \
           JOIN pg_namespace n ON n.oid = con.connamespace \
         WHERE n.nspname = 'public' AND octet_length(con.conname::text) > 30 \
           AND NOT starts_with(con.conname::text, '__diesel_schema_migrations') \
         ORDER BY 1",
    );
    assert_eq!(
        too_long,
        Vec::<String>::new(),
        "identifiers longer than 30 bytes"
    );
}

#[test]
fn diesel_cli_builds_the_same_schema_as_the_embedded_migrations() {
    let embedded = TestDatabase::migrated();
    let cli = TestDatabase::empty();
    // --locked-schema: the CLI would otherwise rewrite src/store/pg/schema.rs (diesel.toml
    // names it); with it, it only checks the file and fails if it would change.
    run(
        diesel(&cli).args(["migration", "run", "--locked-schema"]),
        "diesel migration run with the repository's diesel.toml",
    );

    let versions = |db: &TestDatabase| {
        names(
            &mut db.connect(),
            "SELECT version::text AS name FROM __diesel_schema_migrations ORDER BY 1",
        )
    };
    assert_eq!(versions(&cli), versions(&embedded));
    assert_eq!(schema_dump(&cli), schema_dump(&embedded));
}

#[test]
fn committed_schema_rs_matches_the_migrations() {
    let db = TestDatabase::migrated();
    let output = run(diesel(&db).arg("print-schema"), "diesel print-schema");
    let generated = String::from_utf8(output.stdout).expect("diesel prints UTF-8");
    let path = repo_root().join("src/store/pg/schema.rs");
    let committed = std::fs::read_to_string(&path).expect("read src/store/pg/schema.rs");
    if generated.replace("\r\n", "\n") != committed.replace("\r\n", "\n") {
        let first_difference = generated
            .lines()
            .zip(committed.lines())
            .position(|(g, c)| g != c)
            .map_or_else(
                || "one is a prefix of the other".to_owned(),
                |i| format!("line {}", i + 1),
            );
        panic!(
            "src/store/pg/schema.rs does not match migrations_pg/ (first difference: \
             {first_difference}). Regenerate it, never edit it: migrate a scratch database \
             (`diesel migration run --database-url postgres://…/scratch` from the repository \
             root writes the file through diesel.toml), or run \
             `diesel print-schema --database-url postgres://…/<migrated db> > src/store/pg/schema.rs`"
        );
    }
}

#[test]
fn each_down_migration_undoes_its_up_migration_exactly() {
    let db = TestDatabase::empty();
    let mut conn = db.connect();
    let names = common::migration_names();

    // The schema after 0, 1, …, n migrations, applying one at a time.
    let mut after = vec![schema_dump(&db)];
    for name in &names {
        conn.run_next_migration(MIGRATIONS)
            .unwrap_or_else(|e| panic!("apply {name}: {e}"));
        after.push(schema_dump(&db));
    }
    assert_eq!(tables(&mut conn), with_diesel_table(DESIGN_TABLES));

    for (i, name) in names.iter().enumerate().rev() {
        conn.revert_last_migration(MIGRATIONS)
            .unwrap_or_else(|e| panic!("revert {name}: {e}"));
        assert_eq!(
            schema_dump(&db),
            after[i],
            "down.sql of {name} does not restore the schema its up.sql started from"
        );
    }
    assert_eq!(
        tables(&mut conn),
        vec![DIESEL_TABLE.to_owned()],
        "tables left behind"
    );
    let leftovers = names_of_objects(&mut conn);
    assert_eq!(leftovers, Vec::<String>::new(), "objects left behind");
}

/// Sequences, views and types left in `public` (tables are checked separately).
fn names_of_objects(conn: &mut PgConnection) -> Vec<String> {
    names(
        conn,
        "SELECT c.relname::text AS name FROM pg_class c \
           JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = 'public' AND c.relkind NOT IN ('r', 'i') \
         UNION ALL \
         SELECT t.typname::text FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace \
         WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd', 'c') AND t.typrelid = 0 \
         ORDER BY 1",
    )
}

#[test]
fn schema_snapshot() {
    let db = TestDatabase::migrated();
    let dump = schema_dump(&db);
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/pg_migrations");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_description("pg_dump --schema-only of a database migrated with migrations_pg/");
    settings.bind(|| insta::assert_snapshot!("pg_schema_dump", dump));
}

#[test]
fn database_url_replaces_only_the_database() {
    assert_eq!(
        common::database_url("postgres://u@h:5432/postgres", "t1"),
        "postgres://u@h:5432/t1"
    );
    assert_eq!(
        common::database_url("postgres://u:p@h/postgres?sslmode=disable", "t1"),
        "postgres://u:p@h/t1?sslmode=disable"
    );
    assert_eq!(
        common::database_url("postgres://h", "t1"),
        "postgres://h/t1"
    );
}
