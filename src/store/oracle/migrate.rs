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
use super::errors::{at, query};
use super::statements as sql;
use crate::FailureKind;
use crate::store::StoreError;

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
];

/// The history table V000 creates.
const HISTORY_TABLE: &str = "FLIGHTSTATE_MIGRATION";

/// DBMS_LOCK user-lock id serialising `flightstate migrate` runs ("fs" + 1); user ids are
/// 0 to 1073741823.
const MIGRATION_LOCK_ID: i64 = 0x6673_0001;

/// How long a second `migrate` waits for the first one, in seconds.
const MIGRATION_LOCK_WAIT_SECS: i64 = 600;

/// SQL*Plus commands a script may hold; SQL*Plus obeys them, the runner skips them.
const SQLPLUS_COMMANDS: [&str; 2] = ["WHENEVER ", "SET "];

/// The statements of a SQL*Plus script, as the runner sends them, in order.
///
/// Rules (`migrations_oracle/README.md`): full-line `--` comments and blank lines between
/// statements are dropped; `WHENEVER …` and `SET …` lines are SQL*Plus settings, skipped; a
/// statement starting with `CREATE TYPE`, `CREATE OR REPLACE`, `BEGIN` or `DECLARE` runs up to
/// a line holding only `/` and is sent whole (a PL/SQL block keeps its `;`); any other
/// statement ends at a `;` that ends a line outside a quoted literal, and is sent without it
/// (OCI refuses a trailing `;`).
pub fn script_statements(text: &str) -> Vec<String> {
    let mut statements = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut block = false;
    let mut in_quote = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if current.is_empty() {
            let upper = trimmed.to_ascii_uppercase();
            if trimmed.is_empty()
                || trimmed.starts_with("--")
                || SQLPLUS_COMMANDS.iter().any(|c| upper.starts_with(c))
            {
                continue;
            }
            block = ["CREATE TYPE", "CREATE OR REPLACE", "BEGIN", "DECLARE"]
                .iter()
                .any(|start| upper.starts_with(start));
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
        if trimmed.starts_with("--") && !in_quote {
            continue;
        }
        for c in line.chars() {
            if c == '\'' {
                in_quote = !in_quote;
            }
        }
        if !in_quote && trimmed.ends_with(';') {
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
    let manager = OracleManager::new(OracleUrl::parse(database_url)?, None);
    let conn = manager
        .open()
        .map_err(|e| query("connect to the Oracle state database", e))?;
    lock(&conn, sql::TAKE_MIGRATION_LOCK, "take_migration_lock")?;
    let applied = apply_all(&conn);
    let unlocked = lock(&conn, sql::RELEASE_MIGRATION_LOCK, "release_migration_lock");
    let applied = applied?;
    unlocked?;
    Ok(applied)
}

fn lock(conn: &Connection, text: &'static str, op: &'static str) -> Result<(), StoreError> {
    let status_type = OracleType::Int64;
    let stmt = if op == "take_migration_lock" {
        conn.execute_named(
            text,
            &[
                ("status", &status_type),
                ("lock_id", &MIGRATION_LOCK_ID),
                ("wait_secs", &MIGRATION_LOCK_WAIT_SECS),
            ],
        )
    } else {
        conn.execute_named(
            text,
            &[("status", &status_type), ("lock_id", &MIGRATION_LOCK_ID)],
        )
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
        })
    })
    .collect()
}

fn apply_all(conn: &Connection) -> Result<Vec<String>, StoreError> {
    let op = "select_migration_table";
    let has_history: i64 = conn
        .query_row_as_named(
            sql::SELECT_MIGRATION_TABLE,
            &[("table_name", &Text(Some(HISTORY_TABLE)))],
        )
        .map_err(at(op))?;
    let mut applied = Vec::new();
    let mut done = Vec::new();
    if has_history == 0 {
        // V000 creates the history: it cannot be tracked statement by statement.
        let (version, name, text) = SCRIPTS[0];
        run_untracked(conn, version, text)?;
        applied.push(format!("V{version:03}__{name}"));
    } else {
        done = history(conn)?;
    }
    for &(version, name, text) in &SCRIPTS[1..] {
        let row = done.iter().find(|a| a.version == i64::from(version));
        let start = match row {
            Some(a) if a.status == "APPLIED" => continue,
            Some(a) => resume_point(version, name, text, a)?,
            None => {
                start(conn, version, name, text)?;
                0
            }
        };
        run_tracked(conn, version, name, text, start)?;
        applied.push(format!("V{version:03}__{name}"));
    }
    Ok(applied)
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
    for (i, statement) in script_statements(text).iter().enumerate() {
        conn.execute(statement, &[]).map_err(|e| {
            migration_error(
                "apply V000__migration_history",
                format!(
                    "statement {} of V{version:03} failed: {:#} (drop FLIGHTSTATE_MIGRATION if it exists, then run migrate again)",
                    i + 1,
                    query("migration statement", e)
                ),
            )
        })?;
    }
    conn.commit().map_err(at("apply V000__migration_history"))
}

fn run_tracked(
    conn: &Connection,
    version: u16,
    name: &str,
    text: &str,
    start: usize,
) -> Result<(), StoreError> {
    let statements = script_statements(text);
    let total = statements.len();
    let version_bind = i64::from(version);
    for (i, statement) in statements.iter().enumerate().skip(start) {
        if let Err(e) = conn.execute(statement, &[]) {
            let cause = query("migration statement", e);
            let why = format!(
                "statement {} of {total} of V{version:03}__{name} failed: {cause:#}; fix the cause \
                 and run migrate again: it resumes at that statement",
                i + 1
            );
            // Best effort: the error is returned whether or not it could be recorded.
            let _ = conn.rollback();
            let recorded = conn
                .execute_named(
                    sql::RECORD_MIGRATION_ERROR,
                    &[
                        ("version", &version_bind),
                        ("error", &Text(Some(clip(&why, 2000)))),
                    ],
                )
                .and_then(|_| conn.commit());
            if let Err(e) = recorded {
                tracing::warn!(error = %e, "could not record the migration error");
            }
            return Err(migration_error("apply migrations_oracle/", why));
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

#[cfg(test)]
mod tests {
    use super::*;

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
