//! Applies `migrations_pg/`, compiled into the binary, to a PostgreSQL state database.
//!
//! The same directory drives the `diesel` CLI (through `diesel.toml`), so a DBA may run
//! either; both record what they applied in diesel's `__diesel_schema_migrations` table.

use std::collections::BTreeSet;

use diesel::migration::MigrationSource;
use diesel::pg::Pg;
use diesel::sql_types::{Array, BigInt, Bool, Integer, Text};
use diesel::{Connection, PgConnection, QueryableByName, RunQueryDsl};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

use super::store::with_timeouts;
use super::{errors, statements};
use crate::store::preflight::PG_MIN_VERSION_NUM;
use crate::store::{DatabaseFacts, SchemaLevel, StoreError, Timeouts};

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations_pg");

/// Session advisory lock taken around the run: diesel_migrations does not lock, and two
/// `flightstate migrate` started together (two hosts rolling out) would both try to create
/// the same tables. The value is arbitrary but fixed ("flight" + 1).
const MIGRATION_LOCK_KEY: i64 = 0x0066_6c69_6768_7401;

/// Applies every migration of `migrations_pg/` that the database has not seen yet, each in
/// its own transaction, and returns the names of those applied (empty when the database was
/// already up to date).
///
/// A concurrent run against the same database waits for this one to finish, then finds
/// nothing left to do. The URL is never logged or put in an error (it may hold a password).
///
/// # Errors
///
/// A [`StoreError`] with kind `ConnectionLost` when the server cannot be reached, or the kind
/// of the failing statement; a migration that fails is rolled back and later ones are not
/// tried.
pub fn run_pending_migrations(database_url: &str) -> Result<Vec<String>, StoreError> {
    migrate(database_url)
}

/// [`run_pending_migrations`] over a connection opened with `timeouts`' connect and
/// silent-link limits; never a statement or idle-transaction timeout, since a migration's DDL
/// may run long.
///
/// # Errors
///
/// As [`run_pending_migrations`].
pub fn run_pending_migrations_with(
    database_url: &str,
    timeouts: &Timeouts,
) -> Result<Vec<String>, StoreError> {
    let timeouts = Timeouts {
        statement: None,
        idle_in_transaction: None,
        ..*timeouts
    };
    migrate(&with_timeouts(database_url, &timeouts))
}

fn migrate(database_url: &str) -> Result<Vec<String>, StoreError> {
    let mut conn = PgConnection::establish(database_url)
        .map_err(|e| errors::connect("connect to the state database", e))?;
    lock(
        &mut conn,
        statements::TAKE_MIGRATION_LOCK,
        "take the migration lock",
    )?;
    let applied = conn
        .run_pending_migrations(MIGRATIONS)
        .map(|versions| versions.iter().map(ToString::to_string).collect::<Vec<_>>())
        .map_err(|e| errors::migration("apply migrations", e));
    // Closing the session releases the lock as well; unlock explicitly all the same so that
    // a failed unlock is reported rather than hidden.
    let unlocked = lock(
        &mut conn,
        statements::RELEASE_MIGRATION_LOCK,
        "release the migration lock",
    );
    let applied = applied?;
    unlocked?;
    names_of(&applied)
}

/// Takes or releases the migration advisory lock.
fn lock(conn: &mut PgConnection, sql: &'static str, op: &'static str) -> Result<(), StoreError> {
    diesel::sql_query(sql)
        .bind::<BigInt, _>(MIGRATION_LOCK_KEY)
        .execute(conn)
        .map(drop)
        .map_err(|e| errors::query(op, e))
}

/// The directory names (`2026-11-29-000001_flight_state`) of the given versions, which is
/// what an operator sees in `migrations_pg/`.
fn names_of(versions: &[String]) -> Result<Vec<String>, StoreError> {
    let migrations = MigrationSource::<Pg>::migrations(&MIGRATIONS)
        .map_err(|e| errors::migration("list embedded migrations", e))?;
    Ok(versions
        .iter()
        .map(|version| {
            migrations
                .iter()
                .map(|m| m.name())
                .find(|name| name.version().to_string() == *version)
                .map_or_else(|| version.clone(), ToString::to_string)
        })
        .collect())
}

/// diesel's migration history table.
const HISTORY_TABLE: &str = "__diesel_schema_migrations";

/// Every table the pipeline reads and writes (`migrations_pg/`).
const PIPELINE_TABLES: &[&str] = &[
    "EFFECT_CALL",
    "FLIGHT_BRIDGE",
    "FLIGHT_CAROUSEL",
    "FLIGHT_CHOCK",
    "FLIGHT_CHUTE",
    "FLIGHT_COUNTER",
    "FLIGHT_DELAY",
    "FLIGHT_GATE",
    "FLIGHT_ROUTE_POINT",
    "FLIGHT_SCHD",
    "FLIGHT_STAND",
    "FLIGHT_VERSION_FLOOR",
    "KAFKA_MSG",
    "KAFKA_SCHD",
    "OPERATOR_ACTION",
    "ORDER_EVIDENCE",
    "PIPELINE_LOCK",
    "PROC_STATE",
    "REQ_TRACK",
    "SCHD_GEN",
    "SCHD_GEN_FLID",
    "SEQN_EVIDENCE",
];

/// What the pipeline does to every one of [`PIPELINE_TABLES`].
const PIPELINE_PRIVILEGES: [&str; 4] = ["SELECT", "INSERT", "UPDATE", "DELETE"];

/// The migrations this binary carries and those the database at `database_url` has applied,
/// read without writing (a database never migrated has applied none).
///
/// # Errors
///
/// A [`StoreError`] of kind `ConnectionLost` when the server cannot be reached, or the kind
/// of the failing statement.
pub fn schema_level(database_url: &str, timeouts: &Timeouts) -> Result<SchemaLevel, StoreError> {
    let mut conn = PgConnection::establish(&with_timeouts(database_url, timeouts))
        .map_err(|e| errors::connect("connect to the state database", e))?;
    read_schema_level(&mut conn)
}

/// What the state database at `database_url` is: its server, its schema against this binary's
/// and the tables the connected user cannot write, for `flightstate doctor`.
///
/// # Errors
///
/// As [`schema_level`].
pub fn inspect(database_url: &str, timeouts: &Timeouts) -> Result<DatabaseFacts, StoreError> {
    #[derive(QueryableByName)]
    struct Version {
        #[diesel(sql_type = Integer)]
        version_num: i32,
        #[diesel(sql_type = Text)]
        version: String,
    }
    #[derive(QueryableByName)]
    struct Table {
        #[diesel(sql_type = Text)]
        table_name: String,
    }
    let mut conn = PgConnection::establish(&with_timeouts(database_url, timeouts))
        .map_err(|e| errors::connect("connect to the state database", e))?;
    let version: Version = diesel::sql_query(statements::SELECT_SERVER_VERSION)
        .bind::<Text, _>("server_version_num")
        .bind::<Text, _>("server_version")
        .get_result(&mut conn)
        .map_err(|e| errors::query("select_server_version", e))?;
    let tables: Vec<String> = PIPELINE_TABLES.iter().map(|t| (*t).to_owned()).collect();
    // One privilege per look: `has_table_privilege` given a list holds when
    // any one of them is held.
    let mut missing = BTreeSet::new();
    for privilege in PIPELINE_PRIVILEGES {
        let short: Vec<Table> = diesel::sql_query(statements::SELECT_MISSING_PRIVILEGES)
            .bind::<Array<Text>, _>(&tables)
            .bind::<Text, _>(privilege)
            .load(&mut conn)
            .map_err(|e| errors::query("select_missing_privileges", e))?;
        missing.extend(short.into_iter().map(|t| t.table_name));
    }
    Ok(DatabaseFacts {
        server: format!("PostgreSQL {}", version.version),
        server_too_old: (version.version_num < PG_MIN_VERSION_NUM)
            .then(|| "flightstate needs PostgreSQL 13 or later".to_owned()),
        client: None,
        character_set: None,
        schema: read_schema_level(&mut conn)?,
        missing_privileges: Some(missing.into_iter().collect()),
    })
}

fn read_schema_level(conn: &mut PgConnection) -> Result<SchemaLevel, StoreError> {
    #[derive(QueryableByName)]
    struct Present {
        #[diesel(sql_type = Bool)]
        present: bool,
    }
    #[derive(QueryableByName)]
    struct Applied {
        #[diesel(sql_type = Text)]
        version: String,
    }
    let binary = MigrationSource::<Pg>::migrations(&MIGRATIONS)
        .map_err(|e| errors::migration("list embedded migrations", e))?
        .iter()
        .map(|m| m.name().version().to_string())
        .collect();
    let present: Present = diesel::sql_query(statements::SELECT_MIGRATION_TABLE)
        .bind::<Text, _>(HISTORY_TABLE)
        .get_result(conn)
        .map_err(|e| errors::query("select_migration_table", e))?;
    let database = if present.present {
        diesel::sql_query(statements::SELECT_APPLIED_MIGRATIONS)
            .load::<Applied>(conn)
            .map_err(|e| errors::query("select_applied_migrations", e))?
            .into_iter()
            .map(|a| a.version)
            .collect()
    } else {
        Vec::new()
    };
    Ok(sorted(SchemaLevel { binary, database }))
}

fn sorted(mut level: SchemaLevel) -> SchemaLevel {
    level.binary.sort();
    level.database.sort();
    level
}
