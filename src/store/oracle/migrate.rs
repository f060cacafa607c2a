//! Applies `migrations_oracle/`, compiled into the binary, to an Oracle 11g schema.
//!
//! The scripts are SQL*Plus scripts a DBA may run by hand; this runner reads the same files
//! with the same rules ([`script_statements`]). Oracle DDL commits as it goes, so a script
//! cannot be applied all-or-nothing: the runner records each script in
//! `FLIGHTSTATE_MIGRATION` before its first statement (`APPLYING`), counts every statement it
//! completes, keeps the error of a failed one, and on the next run resumes right after the
//! last completed statement — if the script is unchanged (checksum). A half-applied script is
//! therefore always visible, and never silently skipped or run twice.

use oracle::Connection;
use oracle::sql_type::OracleType;
use sha2::{Digest, Sha256};

use super::binds::{AsTimestamp, Text, clip};
use super::conn::{OracleManager, OracleUrl};
use super::ddl_trace::already_done;
use super::errors::{at, query};
use super::limits::SessionLimits;
use super::statements as sql;
use crate::FailureKind;
use crate::store::preflight::ORACLE_MIN_VERSION;
use crate::store::{DatabaseFacts, SchemaLevel, StoreError};

macro_rules! script {
    ($version:literal, $name:literal, $file:literal) => {
        (
            $version,
            $name,
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/migrations_oracle/",
                $file
            )),
        )
    };
}

/// Every `V` script of `migrations_oracle/` as `(version, name, text)`, in order. A test holds
/// this list equal to the directory.
pub(super) const SCRIPTS: &[(u16, &str, &str)] = &[
    script!(0, "migration_history", "V000__migration_history.sql"),
    script!(1, "flight_state", "V001__flight_state.sql"),
    script!(2, "snapshot_ledger", "V002__snapshot_ledger.sql"),
    script!(3, "pipeline", "V003__pipeline.sql"),
    script!(4, "outbox", "V004__outbox.sql"),
    script!(5, "effect_journal", "V005__effect_journal.sql"),
    script!(6, "version_floor", "V006__version_floor.sql"),
    script!(7, "state_digest", "V007__state_digest.sql"),
    script!(8, "outbox_backoff", "V008__outbox_backoff.sql"),
    script!(9, "state_document", "V009__state_document.sql"),
    script!(10, "requests", "V010__requests.sql"),
    script!(11, "requeue", "V011__requeue.sql"),
    script!(12, "held_snapshots", "V012__held_snapshots.sql"),
    script!(13, "upstream_evidence", "V013__upstream_evidence.sql"),
    script!(14, "replay", "V014__replay.sql"),
    script!(15, "cleanup", "V015__cleanup.sql"),
    script!(16, "outbox_key_slots", "V016__outbox_key_slots.sql"),
    script!(17, "proc_state_minutes", "V017__proc_state_minutes.sql"),
    script!(18, "proc_state_received", "V018__proc_state_received.sql"),
    script!(19, "operator_action", "V019__operator_action.sql"),
];

/// The history table V000 creates.
const HISTORY_TABLE: &str = "FLIGHTSTATE_MIGRATION";

/// The DBMS_LOCK lock name serialising `flightstate migrate` runs, followed by `.` and the
/// schema. A name, not a number: `ALLOCATE_UNIQUE` maps it to an id of its own range, so it
/// cannot collide with another application's numbered user locks (0 to 1073741823), and two
/// schemas of one database never wait for each other.
const MIGRATION_LOCK_NAME: &str = "FLIGHTSTATE_MIGRATE";

/// How long a second `migrate` waits for the first one, in seconds.
const MIGRATION_LOCK_WAIT_SECS: i64 = 600;

/// How a script line is read when it starts a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Start {
    /// A SQL*Plus command (`WHENEVER …`, `SET DEFINE OFF`, …): SQL*Plus obeys it, the runner
    /// skips it.
    SqlPlus,
    /// PL/SQL (a block, or the `CREATE` of a stored unit): runs up to a line holding only `/`.
    Block,
    /// A SQL statement: ends at a `;` that ends a line outside a quoted literal.
    Sql,
}

/// The SQL statements that start with `SET`; any other `SET …` line is a SQL*Plus setting.
const SQL_SET: [&str; 4] = ["TRANSACTION", "ROLE", "CONSTRAINT", "CONSTRAINTS"];

/// What can follow `CREATE [OR REPLACE] [EDITIONABLE | NONEDITIONABLE]` in a PL/SQL unit.
const PLSQL_UNITS: [&str; 5] = ["TYPE", "PROCEDURE", "FUNCTION", "PACKAGE", "TRIGGER"];

fn classify(first_line: &str) -> Start {
    let upper = first_line.trim().to_ascii_uppercase();
    let words: Vec<&str> = upper
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    match words.as_slice() {
        ["WHENEVER", ..] => Start::SqlPlus,
        ["SET", next, ..] if !SQL_SET.contains(next) => Start::SqlPlus,
        ["SET"] => Start::SqlPlus,
        ["BEGIN", ..] | ["DECLARE", ..] => Start::Block,
        ["CREATE", rest @ ..] => {
            let rest = match rest {
                ["OR", "REPLACE", more @ ..] => more,
                more => more,
            };
            let rest = match rest {
                ["EDITIONABLE" | "NONEDITIONABLE", more @ ..] => more,
                more => more,
            };
            match rest.first() {
                Some(unit) if PLSQL_UNITS.contains(unit) => Start::Block,
                _ => Start::Sql,
            }
        }
        _ => Start::Sql,
    }
}

/// Where a scan of SQL text stands with respect to literals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Quote {
    /// Outside any literal.
    None,
    /// Inside `'…'` (a doubled `''` reads as leaving and entering again, which is the same).
    Plain,
    /// Inside `q'X…X'`, which ends at the closing delimiter followed by `'`.
    Alternative(char),
}

/// Scans one line from `state`, returning the state at its end.
fn scan_quotes(line: &str, mut state: Quote) -> Quote {
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match state {
            Quote::None => {
                if c == '-' && chars.get(i + 1) == Some(&'-') {
                    return state;
                }
                let starts_q = (c == 'q' || c == 'Q')
                    && chars.get(i + 1) == Some(&'\'')
                    && (i == 0
                        || !(chars[i - 1].is_ascii_alphanumeric() || chars[i - 1] == '_')
                        || chars[i - 1] == 'n'
                        || chars[i - 1] == 'N');
                if starts_q && let Some(&open) = chars.get(i + 2) {
                    let close = match open {
                        '[' => ']',
                        '{' => '}',
                        '(' => ')',
                        '<' => '>',
                        other => other,
                    };
                    state = Quote::Alternative(close);
                    i += 3;
                    continue;
                }
                if c == '\'' {
                    state = Quote::Plain;
                }
            }
            Quote::Plain => {
                if c == '\'' {
                    state = Quote::None;
                }
            }
            Quote::Alternative(close) => {
                if c == close && chars.get(i + 1) == Some(&'\'') {
                    state = Quote::None;
                    i += 2;
                    continue;
                }
            }
        }
        i += 1;
    }
    state
}

/// The statements of a SQL*Plus script, as the runner sends them, in order.
///
/// Rules (`migrations_oracle/README.md`): full-line `--` comments and blank lines between
/// statements are dropped; `WHENEVER …` and `SET …` lines are SQL*Plus settings, skipped —
/// except the SQL statements `SET TRANSACTION`, `SET ROLE` and `SET CONSTRAINT(S)`; a PL/SQL
/// block (`BEGIN`, `DECLARE`) or the `CREATE [OR REPLACE]` of a type, procedure, function,
/// package or trigger runs up to a line holding only `/` and is sent whole (it keeps its
/// `;`); any other statement ends at a `;` that ends a line outside a quoted literal (`'…'`
/// or `q'[…]'`), and is sent without it (OCI refuses a trailing `;`).
pub fn script_statements(text: &str) -> Vec<String> {
    let mut statements = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut block = false;
    let mut quote = Quote::None;
    for line in text.lines() {
        let trimmed = line.trim();
        if current.is_empty() {
            if trimmed.is_empty() || trimmed.starts_with("--") {
                continue;
            }
            match classify(trimmed) {
                Start::SqlPlus => continue,
                Start::Block => block = true,
                Start::Sql => block = false,
            }
        }
        if block {
            if trimmed == "/" {
                statements.push(current.join("\n").trim_end().to_owned());
                current.clear();
            } else {
                current.push(line);
            }
            continue;
        }
        if trimmed.starts_with("--") && quote == Quote::None {
            continue;
        }
        quote = scan_quotes(line, quote);
        if quote == Quote::None && trimmed.ends_with(';') {
            let body = line.trim_end();
            current.push(&body[..body.len() - 1]);
            statements.push(current.join("\n"));
            current.clear();
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        statements.push(current.join("\n"));
    }
    statements
}

fn checksum(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

fn migration_error(op: &'static str, why: String) -> StoreError {
    StoreError::new(FailureKind::Other, op, why)
}

/// One row of the history.
struct Applied {
    version: i64,
    status: String,
    steps_done: Option<i64>,
    checksum: Option<String>,
    last_error: Option<String>,
}

/// Applies every script of `migrations_oracle/` the schema has not completed, resuming a
/// half-applied one, and returns the names of those applied (`V001__flight_state`, …; empty
/// when the schema was up to date).
///
/// A concurrent run waits for this one (a DBMS_LOCK user lock: the schema owner needs
/// `EXECUTE` on `SYS.DBMS_LOCK`). The URL is never logged or put in an error.
///
/// # Errors
///
/// A [`StoreError`] of kind `ConnectionLost` when the server cannot be reached, `Other` when
/// a statement fails (the history row keeps which statement and why, and the next run resumes
/// there), when a half-applied script was changed since, or when the lock cannot be taken.
pub fn run_pending_migrations(database_url: &str) -> Result<Vec<String>, StoreError> {
    let url = OracleUrl::parse(database_url)?;
    if let Some(owner) = url.schema.as_deref()
        && !owner.eq_ignore_ascii_case(&url.user)
    {
        return Err(migration_error(
            "apply migrations_oracle/",
            format!(
                "the URL names schema {owner} but connects as another user: run migrate as the \
                 schema owner (DDL creates objects in the connected user's schema)"
            ),
        ));
    }
    let lock_name = format!("{MIGRATION_LOCK_NAME}.{}", url.user.to_ascii_uppercase());
    let manager = OracleManager::new(url, None);
    let conn = manager
        .open()
        .map_err(|e| query("connect to the Oracle state database", e))?;
    // A DDL statement beside a running pump's transaction waits for it instead of failing
    // at once with ORA-00054.
    conn.execute(sql::SET_DDL_LOCK_TIMEOUT, &[])
        .map_err(at("set_ddl_lock_timeout"))?;
    lock(
        &conn,
        sql::TAKE_MIGRATION_LOCK,
        "take_migration_lock",
        &lock_name,
    )?;
    let applied = apply_all(&conn);
    let unlocked = lock(
        &conn,
        sql::RELEASE_MIGRATION_LOCK,
        "release_migration_lock",
        &lock_name,
    );
    let applied = applied?;
    unlocked?;
    Ok(applied)
}

fn lock(
    conn: &Connection,
    text: &'static str,
    op: &'static str,
    lock_name: &str,
) -> Result<(), StoreError> {
    let status_type = OracleType::Int64;
    let name = Text(Some(lock_name));
    let stmt = if op == "take_migration_lock" {
        conn.execute_named(
            text,
            &[
                ("lock_name", &name),
                ("status", &status_type),
                ("wait_secs", &MIGRATION_LOCK_WAIT_SECS),
            ],
        )
    } else {
        conn.execute_named(text, &[("lock_name", &name), ("status", &status_type)])
    }
    .map_err(|e| {
        let err = query(op, e);
        if err.kind() == FailureKind::Other {
            migration_error(
                op,
                format!(
                    "{err:#} (grant EXECUTE ON SYS.DBMS_LOCK to the schema owner, or run migrations_oracle/ by hand)"
                ),
            )
        } else {
            err
        }
    })?;
    let status: i64 = stmt.bind_value("status").map_err(at(op))?;
    // 0 = done; 4 = already held (take) or not held (release): harmless either way.
    match status {
        0 | 4 => Ok(()),
        1 => Err(migration_error(
            op,
            format!("another flightstate migrate held the lock for {MIGRATION_LOCK_WAIT_SECS} s"),
        )),
        other => Err(migration_error(op, format!("DBMS_LOCK answered {other}"))),
    }
}

fn history(conn: &Connection) -> Result<Vec<Applied>, StoreError> {
    let op = "select_migrations";
    let rows = conn
        .query_named(sql::SELECT_MIGRATIONS, &[])
        .map_err(at(op))?;
    rows.map(|row| {
        let row = row.map_err(at(op))?;
        Ok(Applied {
            version: row.get("version").map_err(at(op))?,
            status: row.get("status").map_err(at(op))?,
            steps_done: row.get("steps_done").map_err(at(op))?,
            checksum: row.get("checksum").map_err(at(op))?,
            last_error: row.get("last_error").map_err(at(op))?,
        })
    })
    .collect()
}

/// The history, or nothing on a schema V000 has not created it in yet.
fn recorded_history(conn: &Connection) -> Result<Vec<Applied>, StoreError> {
    let op = "select_migration_table";
    let has_history: i64 = conn
        .query_row_as_named(
            sql::SELECT_MIGRATION_TABLE,
            &[("table_name", &Text(Some(HISTORY_TABLE)))],
        )
        .map_err(at(op))?;
    if has_history == 0 {
        Ok(Vec::new())
    } else {
        history(conn)
    }
}

fn apply_all(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let mut applied = Vec::new();
    let done = recorded_history(conn)?;
    if !done.iter().any(|a| a.version == 0 && a.status == "APPLIED") {
        // V000 creates the history: it cannot be tracked statement by statement, so each of
        // its statements asks the dictionary whether it already ran (a run stopped half-way).
        let (version, name, text) = SCRIPTS[0];
        run_untracked(conn, version, text)?;
        applied.push(format!("V{version:03}__{name}"));
    }
    for &(version, name, text) in &SCRIPTS[1..] {
        let row = done.iter().find(|a| a.version == i64::from(version));
        let (start, resumed) = match row {
            Some(a) if a.status == "APPLIED" => continue,
            Some(a) => (
                resume_point(version, name, text, a)?,
                Some(resumed_after(a)),
            ),
            None => {
                start(conn, version, name, text)?;
                (0, None)
            }
        };
        run_tracked(conn, version, name, text, start, resumed)?;
        applied.push(format!("V{version:03}__{name}"));
    }
    Ok(applied)
}

/// Why a half-applied script stopped, for its resumed first statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StoppedAt {
    /// The run stopped between a statement and its step (killed, connection lost): the DDL
    /// may have committed without its step.
    Unrecorded,
    /// The statement failed and its error was recorded: a DBA may since have done its work
    /// by hand (or removed what was in its way).
    RecordedError,
}

/// How a resumed script's first statement is checked: always against the dictionary, a
/// recorded error or not. Without an error the run stopped between a statement and its step;
/// with one, the DBA who read it may have run the statement by hand, and running it again
/// would fail with ORA-00955 where the schema is already right.
fn resumed_after(row: &Applied) -> StoppedAt {
    if row.last_error.is_some() {
        StoppedAt::RecordedError
    } else {
        StoppedAt::Unrecorded
    }
}

/// Whether statement `i` of a script run from `start` asks the dictionary first: the first
/// statement of a resumed run, however the last run stopped.
fn asks_dictionary(i: usize, start: usize, resumed: Option<StoppedAt>) -> bool {
    i == start && resumed.is_some()
}

/// Where a half-applied script resumes: after its last completed statement, if the script is
/// the one that was started.
fn resume_point(version: u16, name: &str, text: &str, row: &Applied) -> Result<usize, StoreError> {
    let op = "resume a half-applied migration";
    match (&row.checksum, row.steps_done) {
        (Some(sum), Some(steps)) if *sum == checksum(text) => {
            Ok(usize::try_from(steps).unwrap_or(0))
        }
        _ => Err(migration_error(
            op,
            format!(
                "V{version:03}__{name} is half-applied ({} statements done) by another script \
                 version or by hand: finish or undo it by hand (see FLIGHTSTATE_MIGRATION.LAST_ERROR), \
                 then mark its row APPLIED or delete it",
                row.steps_done
                    .map_or_else(|| "unknown".to_owned(), |s| s.to_string())
            ),
        )),
    }
}

fn start(conn: &Connection, version: u16, name: &str, text: &str) -> Result<(), StoreError> {
    let op = "insert_migration";
    let steps = i64::try_from(script_statements(text).len()).unwrap_or(i64::MAX);
    conn.execute_named(
        sql::INSERT_MIGRATION,
        &[
            ("version", &i64::from(version)),
            ("name", &Text(Some(name))),
            ("applying", &Text(Some("APPLYING"))),
            ("steps_total", &steps),
            ("checksum", &Text(Some(&checksum(text)))),
            ("now", &AsTimestamp(Some(chrono::Utc::now().naive_utc()))),
        ],
    )
    .map_err(at(op))?;
    conn.commit().map_err(at(op))
}

fn run_untracked(conn: &Connection, version: u16, text: &str) -> Result<(), StoreError> {
    let op = "apply V000__migration_history";
    for (i, statement) in script_statements(text).iter().enumerate() {
        if already_done(conn, statement)? {
            continue;
        }
        conn.execute(statement, &[]).map_err(|e| {
            migration_error(
                op,
                format!(
                    "statement {} of V{version:03} failed: {:#} (fix the cause and run migrate again)",
                    i + 1,
                    query("migration statement", e)
                ),
            )
        })?;
    }
    conn.commit().map_err(at(op))
}

/// Records why statement `i` of `script` failed in its history row (best effort: the error
/// is returned whether or not it could be recorded), and returns it.
fn record_failure(
    conn: &Connection,
    script: &str,
    i: usize,
    total: usize,
    version: i64,
    e: oracle::Error,
) -> StoreError {
    let cause = query("migration statement", e);
    let why = format!(
        "statement {} of {total} of {script} failed: {cause:#}; fix the cause and run migrate \
         again: it resumes at that statement",
        i + 1
    );
    let _ = conn.rollback();
    let recorded = conn
        .execute_named(
            sql::RECORD_MIGRATION_ERROR,
            &[
                ("version", &version),
                ("error", &Text(Some(clip(&why, 2000)))),
            ],
        )
        .and_then(|_| conn.commit());
    if let Err(e) = recorded {
        tracing::warn!(error = %e, "could not record the migration error");
    }
    migration_error("apply migrations_oracle/", why)
}

fn run_tracked(
    conn: &Connection,
    version: u16,
    name: &str,
    text: &str,
    start: usize,
    resumed: Option<StoppedAt>,
) -> Result<(), StoreError> {
    let statements = script_statements(text);
    let total = statements.len();
    let version_bind = i64::from(version);
    for (i, statement) in statements.iter().enumerate().skip(start) {
        // Only the first statement of a resumed run can have been done without its step
        // being recorded: by the run that stopped (DDL commits before the step's own commit;
        // DML commits with its step), or by hand after a recorded error.
        let skip = asks_dictionary(i, start, resumed) && already_done(conn, statement)?;
        let script = format!("V{version:03}__{name}");
        match (skip, resumed) {
            (true, Some(StoppedAt::RecordedError)) => tracing::warn!(
                %script,
                statement = i + 1,
                "the statement that failed last time is found done in the dictionary (by hand, \
                 after its error); recording it done: check that the object is the script's"
            ),
            (true, _) => tracing::info!(
                %script,
                statement = i + 1,
                "statement already applied before the run stopped; recording it"
            ),
            (false, _) => {
                if let Err(e) = conn.execute(statement, &[]) {
                    return Err(record_failure(conn, &script, i, total, version_bind, e));
                }
            }
        }
        let steps = i64::try_from(i + 1).unwrap_or(i64::MAX);
        conn.execute_named(
            sql::RECORD_MIGRATION_STEP,
            &[("version", &version_bind), ("steps_done", &steps)],
        )
        .map_err(at("record_migration_step"))?;
        conn.commit().map_err(at("record_migration_step"))?;
    }
    let steps = i64::try_from(total).unwrap_or(i64::MAX);
    conn.execute_named(
        sql::FINISH_MIGRATION,
        &[
            ("version", &version_bind),
            ("applied", &Text(Some("APPLIED"))),
            ("steps_done", &steps),
            ("now", &AsTimestamp(Some(chrono::Utc::now().naive_utc()))),
        ],
    )
    .map_err(at("finish_migration"))?;
    conn.commit().map_err(at("finish_migration"))
}

/// The scripts this binary carries and those the schema at `database_url` has completed, read
/// without writing (a schema never migrated has completed none).
///
/// # Errors
///
/// A [`StoreError`] of kind `ConnectionLost` when the server cannot be reached, or the kind
/// of the failing statement.
pub fn schema_level(database_url: &str) -> Result<SchemaLevel, StoreError> {
    let conn = open_for_inspection(database_url)?;
    read_schema_level(&conn)
}

/// What the schema at `database_url` is: server and client versions, the database character
/// set and the scripts applied against this binary's, for `flightstate doctor`.
///
/// # Errors
///
/// As [`schema_level`].
pub fn inspect(database_url: &str) -> Result<DatabaseFacts, StoreError> {
    let conn = open_for_inspection(database_url)?;
    let (server, banner) = conn
        .server_version()
        .map_err(|e| query("read the server version", e))?;
    let client = oracle::Version::client()
        .map(|v| format!("Oracle client {v}"))
        .map_err(|e| query("read the client version", e))?;
    let op = "select_character_set";
    let charset: String = conn
        .query_row_as_named(
            sql::SELECT_CHARACTER_SET,
            &[("parameter", &Text(Some("NLS_CHARACTERSET")))],
        )
        .map_err(at(op))?;
    let charset_problem = (charset != "AL32UTF8").then(|| {
        "flightstate needs the AL32UTF8 database character set (CHAR-sized columns, CJK text)"
            .to_owned()
    });
    let (major, minor) = ORACLE_MIN_VERSION;
    Ok(DatabaseFacts {
        server: format!("{banner} ({server})"),
        server_too_old: ((server.major(), server.minor()) < (major, minor))
            .then(|| format!("flightstate needs Oracle {major}.{minor} or later")),
        client: Some(client),
        character_set: Some((charset, charset_problem)),
        schema: read_schema_level(&conn)?,
        missing_privileges: None,
    })
}

/// What a session of the state database at `database_url` may hold (`OPEN_CURSORS` and the
/// statement cache under it) and whether its user may call `SYS.DBMS_LOCK`, for
/// `flightstate doctor`; nothing is written.
///
/// # Errors
///
/// As [`schema_level`].
pub fn session_limits(database_url: &str) -> Result<SessionLimits, StoreError> {
    let url = OracleUrl::parse(database_url)?;
    let is_owner = url
        .schema
        .as_deref()
        .is_none_or(|owner| owner.eq_ignore_ascii_case(&url.user));
    let conn = open_for_inspection(database_url)?;
    super::limits::read(&conn, is_owner)
}

fn open_for_inspection(database_url: &str) -> Result<Connection, StoreError> {
    let url = OracleUrl::parse(database_url)?;
    OracleManager::new(url, None)
        .open()
        .map_err(|e| query("connect to the Oracle state database", e))
}

fn read_schema_level(conn: &Connection) -> Result<SchemaLevel, StoreError> {
    let database = recorded_history(conn)?
        .iter()
        .filter(|a| a.status == "APPLIED")
        .map(|a| format!("V{:03}", a.version))
        .collect();
    Ok(SchemaLevel {
        binary: SCRIPTS
            .iter()
            .map(|(version, _, _)| format!("V{version:03}"))
            .collect(),
        database,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn half_applied(last_error: Option<&str>) -> Applied {
        Applied {
            version: 4,
            status: "APPLYING".to_owned(),
            steps_done: Some(3),
            checksum: None,
            last_error: last_error.map(str::to_owned),
        }
    }

    #[test]
    fn a_resumed_first_statement_asks_the_dictionary_even_after_a_recorded_error() {
        let failed = resumed_after(&half_applied(Some("statement 4 of 9 … ORA-00955")));
        assert_eq!(failed, StoppedAt::RecordedError);
        assert!(asks_dictionary(3, 3, Some(failed)));
        let stopped = resumed_after(&half_applied(None));
        assert_eq!(stopped, StoppedAt::Unrecorded);
        assert!(asks_dictionary(3, 3, Some(stopped)));
        // Only the first statement of the resumed run, and never in a fresh run.
        assert!(!asks_dictionary(4, 3, Some(failed)));
        assert!(!asks_dictionary(0, 0, None));
    }

    #[test]
    fn statements_end_at_a_line_ending_semicolon_outside_quotes() {
        let script = "WHENEVER SQLERROR EXIT FAILURE\nSET DEFINE OFF\n\n-- a comment\n\
            CREATE TABLE T (\n    A NUMBER(5)\n);\n\nCOMMENT ON TABLE T IS 'one; two''s\nthree;';\n\
            CREATE TYPE L AS TABLE OF NUMBER(19)\n/\nCOMMIT;\n";
        assert_eq!(
            script_statements(script),
            vec![
                "CREATE TABLE T (\n    A NUMBER(5)\n)".to_owned(),
                "COMMENT ON TABLE T IS 'one; two''s\nthree;'".to_owned(),
                "CREATE TYPE L AS TABLE OF NUMBER(19)".to_owned(),
                "COMMIT".to_owned(),
            ]
        );
    }

    #[test]
    fn stored_units_without_or_replace_run_to_the_slash() {
        for unit in [
            "CREATE PROCEDURE P AS\nBEGIN\n    NULL;\nEND;",
            "CREATE FUNCTION F RETURN NUMBER AS\nBEGIN\n    RETURN 1;\nEND;",
            "CREATE PACKAGE K AS\n    PROCEDURE P;\nEND;",
            "CREATE PACKAGE BODY K AS\n    PROCEDURE P IS BEGIN NULL; END;\nEND;",
            "CREATE TRIGGER T_BI BEFORE INSERT ON T FOR EACH ROW\nBEGIN\n    NULL;\nEND;",
            "CREATE OR REPLACE EDITIONABLE PROCEDURE P AS\nBEGIN\n    NULL;\nEND;",
            "DECLARE\n    x NUMBER;\nBEGIN\n    x := 1;\nEND;",
        ] {
            let script = format!("{unit}\n/\nCOMMIT;\n");
            assert_eq!(
                script_statements(&script),
                vec![unit.to_owned(), "COMMIT".to_owned()],
                "{unit}"
            );
        }
        // A view is SQL, not PL/SQL, even with OR REPLACE: it ends at its `;`.
        assert_eq!(
            script_statements("CREATE OR REPLACE VIEW V AS SELECT 1 AS A FROM DUAL;\nCOMMIT;\n"),
            vec![
                "CREATE OR REPLACE VIEW V AS SELECT 1 AS A FROM DUAL",
                "COMMIT"
            ]
        );
    }

    #[test]
    fn alternative_quoting_hides_semicolons_and_quotes() {
        let script = "COMMENT ON TABLE T IS q'[it's; done;\nstill; in]';\n\
            COMMENT ON COLUMN T.A IS Q'{a '; b}';\n\
            COMMENT ON COLUMN T.B IS q'!x;!';\n\
            COMMENT ON COLUMN T.C IS nq'<y;>';\n\
            COMMIT;\n";
        assert_eq!(
            script_statements(script),
            vec![
                "COMMENT ON TABLE T IS q'[it's; done;\nstill; in]'",
                "COMMENT ON COLUMN T.A IS Q'{a '; b}'",
                "COMMENT ON COLUMN T.B IS q'!x;!'",
                "COMMENT ON COLUMN T.C IS nq'<y;>'",
                "COMMIT",
            ]
        );
    }

    #[test]
    fn sql_statements_starting_with_set_are_kept() {
        let script = "SET DEFINE OFF\nSET SERVEROUTPUT ON\nset echo off\n\
            SET TRANSACTION READ WRITE;\nSET ROLE NONE;\nSET CONSTRAINTS ALL DEFERRED;\n\
            WHENEVER SQLERROR EXIT FAILURE\nCOMMIT;\n";
        assert_eq!(
            script_statements(script),
            vec![
                "SET TRANSACTION READ WRITE",
                "SET ROLE NONE",
                "SET CONSTRAINTS ALL DEFERRED",
                "COMMIT",
            ]
        );
    }

    #[test]
    fn every_ddl_statement_of_the_scripts_names_what_it_leaves() {
        use super::super::ddl_trace::leaves;
        // Every DDL statement of the scripts that creates something is recognised; an index
        // rebuild leaves what was there and runs again harmlessly.
        for (_, _, text) in SCRIPTS {
            for statement in script_statements(text) {
                let rebuild =
                    statement.starts_with("ALTER INDEX") && statement.contains(" REBUILD");
                if (statement.starts_with("CREATE") || statement.starts_with("ALTER")) && !rebuild {
                    assert!(leaves(&statement).is_some(), "{statement}");
                }
            }
        }
    }

    #[test]
    fn every_script_splits_into_statements_without_terminators() {
        for (version, name, text) in SCRIPTS {
            let statements = script_statements(text);
            // DDL, then the history MERGE and COMMIT; a script that only
            // keeps the two histories in step says so.
            assert!(
                statements.len() > 2 || text.contains("Nothing to create on Oracle"),
                "V{version:03}__{name}"
            );
            for statement in &statements {
                assert!(!statement.trim_end().ends_with(';'), "{statement}");
                assert!(!statement.starts_with("WHENEVER") && !statement.starts_with("SET "));
            }
            assert_eq!(statements.last().map(String::as_str), Some("COMMIT"));
        }
    }
}
