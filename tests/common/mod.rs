//! Shared test infrastructure: a fresh PostgreSQL database per test.
//!
//! [`TestDatabase::migrated`] copies a template database that holds every migration of
//! `migrations_pg/` (`CREATE DATABASE … TEMPLATE`, a file copy: no migration runs per test);
//! [`TestDatabase::empty`] gives an unmigrated one. Either is dropped `WITH (FORCE)` when the
//! guard goes out of scope, so tests run in parallel and leave nothing behind.
//!
//! The template is named after a hash of the migration files (`flightstate_tpl_<hash>`), so a
//! changed migration gets a new template and a stale one is never used. It is built once per
//! test process, under a PostgreSQL advisory lock so that concurrent test processes do not
//! race, and is only marked as a template (`datistemplate`) once fully migrated: a process
//! that died half-way leaves a database the next one rebuilds.
//!
//! The server is `FLIGHTSTATE_TEST_PG_ADMIN_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`); the role needs `CREATEDB`. Identifiers are
//! spliced into SQL with `format!` here and only here: they are test database names built
//! from the process id and a counter, never input.
#![cfg(feature = "postgres")]
// Each test file uses a different part of this module.
#![allow(dead_code)]

pub mod backup;
pub mod binaries;
pub mod child;
pub mod contract;
pub mod dialects;
pub mod generated_day;
pub mod log;
pub mod operator;
pub mod private_mariadb;
pub mod private_pg;
pub mod secured_broker;
pub mod server;
pub mod sis;
pub mod tls;
pub mod webdriver;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::r2d2::{ConnectionManager, Pool};
use diesel::sql_types::{BigInt, Bool, Text};
use diesel::{Connection, PgConnection, QueryableByName, RunQueryDsl};

/// Environment variable naming the server and a database to connect to for administration.
pub const ADMIN_URL_VAR: &str = "FLIGHTSTATE_TEST_PG_ADMIN_URL";
const DEFAULT_ADMIN_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// Advisory lock key serialising template creation across test processes ("fltpl").
const TEMPLATE_LOCK_KEY: i64 = 0x0066_6c74_706c;

/// A pool of connections to a test database.
pub type TestPool = Pool<ConnectionManager<PgConnection>>;

/// The admin URL: from `FLIGHTSTATE_TEST_PG_ADMIN_URL`, or the local default.
pub fn admin_url() -> String {
    std::env::var(ADMIN_URL_VAR).unwrap_or_else(|_| DEFAULT_ADMIN_URL.to_owned())
}

/// The repository's `migrations_pg/` directory.
pub fn migrations_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations_pg")
}

/// The migration directory names, in the order they apply.
pub fn migration_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(migrations_dir())
        .expect("read migrations_pg/")
        .map(|entry| entry.expect("read migrations_pg/ entry"))
        .filter(|entry| entry.path().join("up.sql").is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A database of its own for one test, dropped when the guard is dropped.
pub struct TestDatabase {
    name: String,
    url: String,
}

impl TestDatabase {
    /// A fresh database holding every migration of `migrations_pg/`.
    #[track_caller]
    pub fn migrated() -> TestDatabase {
        let template = template();
        TestDatabase::create(&format!("TEMPLATE {template}"))
    }

    /// A fresh database with nothing in it (not even diesel's migration table).
    #[track_caller]
    pub fn empty() -> TestDatabase {
        TestDatabase::create("TEMPLATE template0")
    }

    #[track_caller]
    fn create(template_clause: &str) -> TestDatabase {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = format!("flightstate_test_{}_{n}", std::process::id());
        let mut admin = admin_connection();
        // A process that crashed earlier with the same id may have left this name behind;
        // no live process can own it, since the id is ours.
        // Two calls: a multi-statement batch is one implicit transaction, which CREATE and
        // DROP DATABASE refuse.
        admin
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .unwrap_or_else(|e| panic!("drop leftover test database {name}: {e}"));
        admin
            .batch_execute(&format!("CREATE DATABASE {name} {template_clause}"))
            .unwrap_or_else(|e| panic!("create test database {name}: {e}"));
        let url = database_url(&admin_url(), &name);
        TestDatabase { name, url }
    }

    /// The database's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A URL to connect to the database.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A new connection to the database.
    #[track_caller]
    pub fn connect(&self) -> PgConnection {
        PgConnection::establish(&self.url)
            .unwrap_or_else(|e| panic!("connect to test database {}: {e}", self.name))
    }

    /// A connection manager for the database, for tests that build their own pool.
    pub fn manager(&self) -> ConnectionManager<PgConnection> {
        ConnectionManager::new(self.url.clone())
    }

    /// A pool built from `builder` (sizes, timeouts, `connection_customizer`, …).
    #[track_caller]
    pub fn pool_with(
        &self,
        builder: diesel::r2d2::Builder<ConnectionManager<PgConnection>>,
    ) -> TestPool {
        builder
            .build(self.manager())
            .unwrap_or_else(|e| panic!("pool for test database {}: {e}", self.name))
    }

    /// A small pool (4 connections, 10 s checkout timeout) on the database.
    #[track_caller]
    pub fn pool(&self) -> TestPool {
        self.pool_with(
            Pool::builder()
                .max_size(4)
                .connection_timeout(std::time::Duration::from_secs(10)),
        )
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        // Never panic here: a panic while a failing test unwinds would abort the process and
        // hide the test's own message.
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        let result = PgConnection::establish(&admin_url())
            .map_err(|e| e.to_string())
            .and_then(|mut admin| admin.batch_execute(&sql).map_err(|e| e.to_string()));
        if let Err(e) = result {
            eprintln!("warning: could not drop test database {}: {e}", self.name);
        }
    }
}

/// A connection to the admin database.
#[track_caller]
pub fn admin_connection() -> PgConnection {
    let url = admin_url();
    PgConnection::establish(&url).unwrap_or_else(|e| {
        panic!("connect to the test PostgreSQL server ({ADMIN_URL_VAR}, default {DEFAULT_ADMIN_URL}): {e}")
    })
}

/// Waits (at most `limit`) until `done` holds, looking every 50 ms; fails
/// the test, naming `what`, when it never does: a state the test must see,
/// rather than a sleep standing for "it would have happened by now".
#[track_caller]
pub fn wait_until(limit: Duration, what: &str, done: impl FnMut() -> bool) {
    assert!(eventually(limit, done), "{what}: not within {limit:?}");
}

/// Like [`wait_until`], for a test that says itself what it missed:
/// whether `done` held within `limit`.
pub fn eventually(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if done() {
            return true;
        }
        if start.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Whether a backend of database `name` waits for a lock (a row lock such
/// as `PIPELINE_LOCK`'s, or an advisory one): a statement shown blocked by
/// the server, not presumed blocked because it has not ended yet.
pub fn waits_for_a_lock(watcher: &mut PgConnection, name: &str) -> bool {
    diesel::sql_query(
        "SELECT COUNT(*) AS n FROM pg_stat_activity \
         WHERE datname = $1 AND wait_event_type = 'Lock'",
    )
    .bind::<Text, _>(name)
    .get_result::<Count>(watcher)
    .expect("read pg_stat_activity")
    .n > 0
}

/// `admin_url` with its database replaced by `name` (query parameters kept).
pub fn database_url(admin_url: &str, name: &str) -> String {
    let (base, query) = match admin_url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (admin_url, None),
    };
    let authority_start = base.find("://").map_or(0, |i| i + 3);
    let server = match base[authority_start..].find('/') {
        Some(slash) => &base[..authority_start + slash],
        None => base,
    };
    match query {
        Some(query) => format!("{server}/{name}?{query}"),
        None => format!("{server}/{name}"),
    }
}

/// The name of the migrated template database, built on first use in this process.
fn template() -> &'static str {
    static TEMPLATE: OnceLock<String> = OnceLock::new();
    TEMPLATE.get_or_init(build_template)
}

#[derive(QueryableByName)]
struct IsTemplate {
    #[diesel(sql_type = Bool)]
    datistemplate: bool,
}

fn build_template() -> String {
    let name = format!("flightstate_tpl_{:016x}", migrations_hash());
    let mut admin = admin_connection();
    diesel::sql_query("SELECT pg_advisory_lock($1)")
        .bind::<BigInt, _>(TEMPLATE_LOCK_KEY)
        .execute(&mut admin)
        .expect("take the template advisory lock");
    let existing: Vec<IsTemplate> =
        diesel::sql_query("SELECT datistemplate FROM pg_database WHERE datname = $1")
            .bind::<Text, _>(&name)
            .load(&mut admin)
            .expect("look up the template database");
    match existing.first().map(|row| row.datistemplate) {
        Some(true) => {}
        found => {
            if found.is_some() {
                // Left half-built by a process that died while migrating it.
                admin
                    .batch_execute(&format!("DROP DATABASE {name} WITH (FORCE)"))
                    .expect("drop a half-built template database");
            }
            admin
                .batch_execute(&format!("CREATE DATABASE {name} TEMPLATE template0"))
                .expect("create the template database");
            flightstate::store::pg::run_pending_migrations(&database_url(&admin_url(), &name))
                .unwrap_or_else(|e| panic!("migrate the template database {name}: {e:#}"));
            admin
                .batch_execute(&format!(
                    "ALTER DATABASE {name} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"
                ))
                .expect("mark the template database as complete");
        }
    }
    diesel::sql_query("SELECT pg_advisory_unlock($1)")
        .bind::<BigInt, _>(TEMPLATE_LOCK_KEY)
        .execute(&mut admin)
        .expect("release the template advisory lock");
    name
}

/// FNV-1a over every file of `migrations_pg/` (relative path and contents, in path order):
/// stable across Rust versions, unlike `DefaultHasher`.
fn migrations_hash() -> u64 {
    fn files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read migrations_pg/") {
            let path = entry.expect("read migrations_pg/ entry").path();
            if path.is_dir() {
                files(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let root = migrations_dir();
    let mut paths = Vec::new();
    files(&root, &mut paths);
    paths.sort();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for byte in bytes {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for path in paths {
        let relative = path.strip_prefix(&root).expect("path under migrations_pg/");
        feed(relative.to_string_lossy().as_bytes());
        feed(&[0]);
        feed(&std::fs::read(&path).expect("read a migration file"));
        feed(&[0]);
    }
    hash
}
