//! One scenario suite for every dialect: a scenario is a generic fn over [`ScenarioDb`], and
//! [`dialect_tests!`] turns it into one `#[test]` per dialect (`pg::name`, `oracle::name`)
//! that runs the same code against each.
//!
//! PostgreSQL: a fresh migrated database per test ([`TestDatabase`]). Oracle: the schema of
//! `FLIGHTSTATE_ORACLE_URL` (`oracle://user:password@host:port/service`), migrated once per
//! process with `flightstate::store::oracle::run_pending_migrations`; the scenarios commit, so
//! they take a process-wide lock and empty every table before and after (STYLE §5.3). The
//! Oracle tests are ignored unless asked for (`--ignored`); one asked for without the variable,
//! or in a build without the `oracle` feature, fails, after the process printed one plain line
//! `skipped: no Oracle …` on stderr, past the test harness's capture: never a silent pass.
//!
//! Conditions handed to [`ScenarioDb::count`] are written in the SQL both dialects share:
//! `DATE '2026-09-09'`, `1 = 1`, unquoted table names.

use flightstate::store::Store;

use super::TestDatabase;
use super::sis::dump_database;

/// The variable naming the Oracle schema the Oracle scenarios run in.
pub const ORACLE_URL_VAR: &str = "FLIGHTSTATE_ORACLE_URL";

/// A migrated state database of one dialect, with the few inspection helpers scenarios need.
pub trait ScenarioDb {
    /// The repository of the dialect.
    type Store: Store + Sync;

    /// `pg` or `oracle`, for messages.
    fn dialect(&self) -> &'static str;

    /// A store on the database (a pool of its own).
    fn store(&self) -> Self::Store;

    /// How many rows of `table` match the dialect-neutral `condition`.
    fn count(&self, table: &str, condition: &str) -> i64;

    /// Every state table as text, rows in key order: equal dumps mean nothing changed.
    fn dump(&self) -> String;

    /// Runs one dialect-neutral statement and commits (test set-up only).
    fn execute(&self, sql: &str);

    /// Empties every table the scenarios write and frees the lease, as a freshly migrated
    /// database has them (sequences aside, which no scenario reads): for a scenario that
    /// starts over, such as each case of a property test.
    fn empty(&self);
}

/// The tables a dump shows, with their key order.
pub const DUMPED_TABLES: [(&str, &str); 15] = [
    ("flight_schd", "flid"),
    ("flight_gate", "flid, ordinal"),
    ("flight_counter", "flid, ordinal"),
    ("flight_carousel", "flid, ordinal"),
    ("flight_stand", "flid, ordinal"),
    ("flight_chute", "flid, ordinal"),
    ("flight_delay", "flid, ordinal"),
    ("flight_bridge", "flid, ordinal"),
    ("flight_chock", "flid, ordinal"),
    ("flight_route_point", "flid, route_kind, ordinal"),
    ("schd_gen", "operation_day"),
    ("schd_gen_flid", "operation_day, flid"),
    ("proc_state", "message_id"),
    ("kafka_schd", "event_id"),
    ("kafka_msg", "event_id"),
];

/// The tables the scenarios may write that a dump leaves out.
const UNDUMPED_TABLES: [&str; 5] = [
    "flight_version_floor",
    "effect_call",
    "req_track",
    "order_evidence",
    "seqn_evidence",
];

/// The dialect-neutral statements that empty a database ([`ScenarioDb::empty`]), to run in
/// one transaction. Test-only SQL: table names are constants of this module.
fn emptying_statements() -> impl Iterator<Item = String> {
    DUMPED_TABLES
        .iter()
        .map(|(table, _)| *table)
        .chain(UNDUMPED_TABLES)
        .map(|table| format!("DELETE FROM {table}"))
        .chain(std::iter::once(
            "UPDATE pipeline_lock SET lease_holder = NULL, lease_epoch = 0, lease_expires_at = NULL"
                .to_owned(),
        ))
}

/// A fresh migrated PostgreSQL database.
pub struct PgDb(pub TestDatabase);

impl PgDb {
    /// A database of its own, migrated.
    #[track_caller]
    pub fn migrated() -> PgDb {
        PgDb(TestDatabase::migrated())
    }
}

impl ScenarioDb for PgDb {
    type Store = flightstate::store::pg::PgStore;

    fn dialect(&self) -> &'static str {
        "pg"
    }

    fn store(&self) -> Self::Store {
        flightstate::store::pg::PgStore::from_pool(self.0.pool())
    }

    fn count(&self, table: &str, condition: &str) -> i64 {
        super::sis::count(&mut self.0.connect(), table, condition)
    }

    fn dump(&self) -> String {
        dump_database(&mut self.0.connect())
    }

    fn execute(&self, sql: &str) {
        diesel::RunQueryDsl::execute(diesel::sql_query(sql), &mut self.0.connect())
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    fn empty(&self) {
        use diesel::Connection;
        self.0
            .connect()
            .transaction(|conn| {
                for sql in emptying_statements() {
                    diesel::RunQueryDsl::execute(diesel::sql_query(&sql), conn)
                        .unwrap_or_else(|e| panic!("{sql}: {e}"));
                }
                diesel::QueryResult::Ok(())
            })
            .expect("commit the emptying");
    }
}

/// Says once per process that the Oracle scenarios did not run, on stderr directly (the
/// harness captures `eprintln!`, not the stream).
pub fn report_oracle_skipped() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "skipped: no Oracle ({ORACLE_URL_VAR} is not set): the oracle:: scenarios of this suite ran nothing"
        );
    });
}

#[cfg(feature = "oracle")]
#[allow(unused_imports)] // used by the suites that run scenarios
pub use oracle_db::oracle;

#[cfg(feature = "oracle")]
mod oracle_db {
    use std::sync::{Mutex, MutexGuard, OnceLock};

    use super::{
        DUMPED_TABLES, ORACLE_URL_VAR, ScenarioDb, emptying_statements, report_oracle_skipped,
    };

    /// The Oracle schema of `FLIGHTSTATE_ORACLE_URL`, emptied, held by one test at a time.
    pub struct OracleDb {
        url: String,
        _exclusive: MutexGuard<'static, ()>,
    }

    /// The Oracle schema of `FLIGHTSTATE_ORACLE_URL`. The `oracle::` tests are ignored unless
    /// asked for (`--ignored`), and one asked for without the URL fails: it never passes
    /// having run nothing.
    #[track_caller]
    pub fn oracle() -> Option<OracleDb> {
        let Ok(url) = std::env::var(ORACLE_URL_VAR) else {
            report_oracle_skipped();
            panic!("{ORACLE_URL_VAR} is not set: this Oracle scenario cannot run");
        };
        static MIGRATED: OnceLock<()> = OnceLock::new();
        MIGRATED.get_or_init(|| {
            let applied = flightstate::store::oracle::run_pending_migrations(&url)
                .unwrap_or_else(|e| panic!("migrate the Oracle test schema: {e:#}"));
            eprintln!("oracle test schema: applied {applied:?}");
        });
        static EXCLUSIVE: Mutex<()> = Mutex::new(());
        // A test that panicked while holding the lock left the schema to the next one, which
        // empties it anyway.
        let guard = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
        let db = OracleDb {
            url,
            _exclusive: guard,
        };
        db.empty();
        Some(db)
    }

    impl OracleDb {
        fn connect(&self) -> oracle::Connection {
            let rest = self
                .url
                .strip_prefix("oracle://")
                .expect("an oracle:// URL");
            let (credentials, target) = rest.rsplit_once('@').expect("user:password@host");
            let (user, password) = credentials.split_once(':').expect("user:password");
            let target = if target.contains('/') || target.contains(':') {
                format!("//{target}")
            } else {
                target.to_owned()
            };
            oracle::Connection::connect(user, password, target)
                .unwrap_or_else(|e| panic!("connect to {ORACLE_URL_VAR}: {e}"))
        }
    }

    impl Drop for OracleDb {
        fn drop(&mut self) {
            if !std::thread::panicking() {
                self.empty();
            }
        }
    }

    impl ScenarioDb for OracleDb {
        type Store = flightstate::store::oracle::OracleStore;

        fn dialect(&self) -> &'static str {
            "oracle"
        }

        fn store(&self) -> Self::Store {
            flightstate::store::oracle::OracleStore::connect(
                &self.url,
                4,
                std::time::Duration::from_secs(10),
            )
            .unwrap_or_else(|e| panic!("open an OracleStore: {e:#}"))
        }

        fn count(&self, table: &str, condition: &str) -> i64 {
            self.connect()
                .query_row_as::<i64>(
                    &format!("SELECT COUNT(*) FROM {table} WHERE {condition}"),
                    &[],
                )
                .unwrap_or_else(|e| panic!("count {table} where {condition}: {e}"))
        }

        fn dump(&self) -> String {
            let conn = self.connect();
            DUMPED_TABLES
                .iter()
                .map(|(table, order)| {
                    let rows = conn
                        .query(&format!("SELECT * FROM {table} ORDER BY {order}"), &[])
                        .unwrap_or_else(|e| panic!("dump {table}: {e}"));
                    let rows: Vec<String> = rows
                        .map(|row| {
                            let row = row.expect("a row");
                            row.column_info()
                                .iter()
                                .zip(row.sql_values())
                                .map(|(info, value)| {
                                    let text = value
                                        .get::<Option<String>>()
                                        .map(|v| v.unwrap_or_else(|| "NULL".to_owned()))
                                        .unwrap_or_else(|_| value.to_string());
                                    format!("{}={text}", info.name().to_ascii_lowercase())
                                })
                                .collect::<Vec<_>>()
                                .join(",")
                        })
                        .collect();
                    format!("{table}: [{}]", rows.join("; "))
                })
                .collect::<Vec<_>>()
                .join("\n")
        }

        fn execute(&self, sql: &str) {
            let conn = self.connect();
            conn.execute(sql, &[])
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
            conn.commit().expect("commit");
        }

        fn empty(&self) {
            let conn = self.connect();
            for sql in emptying_statements() {
                conn.execute(&sql, &[])
                    .unwrap_or_else(|e| panic!("{sql}: {e}"));
            }
            conn.commit().expect("commit the emptying");
        }
    }
}

/// `dialect_tests! { scenario_a, scenario_b }` makes `pg::scenario_a` (a fresh PostgreSQL
/// database) and `oracle::scenario_a` (the Oracle schema, or the skip line) for each generic
/// scenario `fn scenario_a<D: ScenarioDb>(db: &D)` of the calling test file.
#[macro_export]
macro_rules! dialect_tests {
    ($($name:ident),* $(,)?) => {
        mod pg {
            $(
                #[test]
                fn $name() {
                    super::$name(&$crate::common::dialects::PgDb::migrated());
                }
            )*
        }

        mod oracle {
            $(
                #[test]
                #[ignore = "needs an Oracle 11g server: scripts/test runs it when FLIGHTSTATE_ORACLE_URL is set"]
                fn $name() {
                    #[cfg(feature = "oracle")]
                    if let Some(db) = $crate::common::dialects::oracle() {
                        super::$name(&db);
                    }
                    #[cfg(not(feature = "oracle"))]
                    {
                        $crate::common::dialects::report_oracle_skipped();
                        panic!("built without the `oracle` feature: this Oracle scenario cannot run");
                    }
                }
            )*
        }
    };
}
