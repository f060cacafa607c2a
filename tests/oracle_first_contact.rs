//! First contact with a real Oracle 11g server: what the dialect has never been able to run
//! where it was written (`docs/oracle.md`, "What was and was not executed"). Every test is
//! ignored unless asked for; `scripts/test` asks (`--ignored oracle`) when
//! `FLIGHTSTATE_ORACLE_URL` names a schema the tests may empty and migrate again. Tests take
//! one process-wide lock: they drop and recreate the schema's objects.
#![cfg(feature = "oracle")]

mod common;

use std::sync::{Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use chrono::{NaiveDateTime, Utc};
use flightstate::FailureKind;
use flightstate::store::oracle::{OracleStore, run_pending_migrations, script_statements};
use flightstate::store::{
    DeadOps, EventKind, JournalOps, Lane, NewCall, OutboxOps, Outcome, ProcStatus, StateEvent,
    StateTx, Store, StoreError,
};

const URL_VAR: &str = "FLIGHTSTATE_ORACLE_URL";

static EXCLUSIVE: Mutex<()> = Mutex::new(());

/// The URL, and the schema to oneself. Asked for without the URL, a test fails: it never
/// passes having run nothing.
fn schema() -> (String, MutexGuard<'static, ()>) {
    let url = std::env::var(URL_VAR).unwrap_or_else(|_| panic!("{URL_VAR} is not set"));
    let guard = EXCLUSIVE.lock().unwrap_or_else(|p| p.into_inner());
    (url, guard)
}

/// A raw session for setting up what the store never does (dropping objects).
fn raw(url: &str) -> oracle::Connection {
    let rest = url.strip_prefix("oracle://").expect("an oracle:// URL");
    let rest = rest.split_once('?').map_or(rest, |(r, _)| r);
    let (credentials, target) = rest.rsplit_once('@').expect("user:password@host");
    let (user, password) = credentials.split_once(':').expect("user:password");
    let target = if target.contains('/') || target.contains(':') {
        format!("//{target}")
    } else {
        target.to_owned()
    };
    oracle::Connection::connect(user, password, target).expect("connect to the test schema")
}

/// Runs every `U` script in reverse order, statement by statement, ignoring what is not
/// there: the schema ends empty of flightstate's objects.
fn undo_everything(url: &str) {
    let conn = raw(url);
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/migrations_oracle");
    let mut undo: Vec<_> = std::fs::read_dir(dir)
        .expect("read migrations_oracle/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('U'))
        })
        .collect();
    undo.sort();
    undo.reverse();
    for path in undo {
        let text = std::fs::read_to_string(&path).expect("read an undo script");
        for statement in script_statements(&text) {
            // ORA-00942 / ORA-02289 / ORA-04043: not there, which is what undo wants.
            let _ = conn.execute(&statement, &[]);
        }
    }
    let _ = conn.commit();
}

fn now() -> NaiveDateTime {
    Utc::now().naive_utc()
}

fn store(url: &str) -> OracleStore {
    OracleStore::connect(url, 4, Duration::from_secs(30)).expect("open the Oracle store")
}

#[test]
#[ignore = "needs an Oracle 11g server: scripts/test runs it when FLIGHTSTATE_ORACLE_URL is set"]
fn oracle_migrates_an_empty_schema_twice_and_resumes_after_a_failure() {
    let (url, _guard) = schema();
    undo_everything(&url);

    // A sequence in the way makes V004 fail half-way (ORA-00955 at its CREATE SEQUENCE).
    let conn = raw(&url);
    conn.execute("CREATE SEQUENCE KAFKA_MSG_SEQ", &[])
        .expect("create the blocking sequence");
    let err = run_pending_migrations(&url).expect_err("V004 stops at the taken name");
    assert_eq!(err.kind(), FailureKind::Other);
    assert!(format!("{err:#}").contains("V004__outbox"), "{err:#}");
    let (status, error): (String, Option<String>) = conn
        .query_row_as(
            "SELECT STATUS, LAST_ERROR FROM FLIGHTSTATE_MIGRATION WHERE VERSION = 4",
            &[],
        )
        .expect("V004's history row");
    assert_eq!(status, "APPLYING");
    assert!(error.is_some_and(|e| e.contains("ORA-00955")));

    // The DBA fixes it by hand: drops the sequence in the way and runs the failed statement
    // itself. The next run finds it in the dictionary (no ORA-00955), records it, resumes
    // V004 after it and completes.
    conn.execute("DROP SEQUENCE KAFKA_MSG_SEQ", &[])
        .expect("drop the blocking sequence");
    let v004 = flightstate::store::oracle::migration_scripts()
        .iter()
        .find(|(version, _, _)| *version == 4)
        .expect("V004");
    let create = script_statements(v004.2)
        .into_iter()
        .find(|s| s.starts_with("CREATE SEQUENCE KAFKA_MSG_SEQ"))
        .expect("V004 creates KAFKA_MSG_SEQ");
    conn.execute(&create, &[])
        .expect("the DBA's own CREATE SEQUENCE");
    let applied = run_pending_migrations(&url).expect("resume");
    assert_eq!(applied.first().map(String::as_str), Some("V004__outbox"));
    assert!(run_pending_migrations(&url).expect("again").is_empty());

    // A run stopped after a DDL statement committed and before its step was recorded: the
    // resumed run finds the column in the dictionary and does not add it again.
    conn.execute(
        "UPDATE FLIGHTSTATE_MIGRATION SET STATUS = 'APPLYING', STEPS_DONE = 0, FINISHED_AT = NULL \
         WHERE VERSION = 9",
        &[],
    )
    .expect("mark V009 half-applied");
    conn.commit().expect("commit");
    assert_eq!(
        run_pending_migrations(&url).expect("resume over a committed DDL statement"),
        vec!["V009__state_document".to_owned()]
    );
    assert!(run_pending_migrations(&url).expect("up to date").is_empty());

    // V009's LOB storage: BasicFile, CACHE, RETENTION (no PCTVERSION).
    let (cache, securefile, pctversion): (String, String, Option<i64>) = conn
        .query_row_as(
            "SELECT CACHE, SECUREFILE, PCTVERSION FROM USER_LOBS \
             WHERE TABLE_NAME = 'FLIGHT_SCHD' AND COLUMN_NAME = 'STATE_DOCUMENT'",
            &[],
        )
        .expect("the document's LOB");
    assert_eq!(
        (cache.trim(), securefile.trim(), pctversion),
        ("YES", "NO", None)
    );
}

/// What `flightstate doctor` reads of a session: `OPEN_CURSORS` (when this user may read
/// `V$PARAMETER`) with the cache fitted under it, and the `DBMS_LOCK` grant the test schema
/// was given (docs/oracle.md, step 2).
#[test]
#[ignore = "needs an Oracle 11g server: scripts/test runs it when FLIGHTSTATE_ORACLE_URL is set"]
fn oracle_reads_its_session_limits() {
    let (url, _guard) = schema();
    let limits = flightstate::store::oracle::session_limits(&url).expect("the session limits");
    assert!(
        limits.dbms_lock,
        "the test schema needs EXECUTE ON SYS.DBMS_LOCK"
    );
    if let Some(open_cursors) = limits.open_cursors {
        assert!(limits.cached_statements + 16 <= open_cursors, "{limits:?}");
    }
    assert!(
        limits.cached_statements <= limits.every_statement,
        "{limits:?}"
    );
}

/// Flights with only the main-row columns the schema requires, written directly (the test is
/// about the binds of the reads and deletes, not the writers).
fn seed_flights(url: &str, flids: &[i64]) {
    let conn = raw(url);
    for flid in flids {
        conn.execute(
            "INSERT INTO FLIGHT_SCHD (FLID, STATE_VERSION, LAST_MESSAGE_ID, UPDATED_AT) \
             VALUES (:1, 3, 1, SYSDATE)",
            &[flid],
        )
        .expect("seed a flight");
    }
    conn.commit().expect("commit the flights");
}

/// The id-list collection in reads and in the lock reads that replaced `DELETE … RETURNING`
/// (no collection bind beside `RETURNING`, docs/oracle.md): flights read, locked and deleted
/// by key, and DEAD messages locked and requeued by key, 1,500 of each.
#[test]
#[ignore = "needs an Oracle 11g server: scripts/test runs it when FLIGHTSTATE_ORACLE_URL is set"]
fn oracle_binds_a_collection_and_deletes_and_requeues_many_locked_rows() {
    let (url, _guard) = schema();
    run_pending_migrations(&url).expect("migrate");
    let flids: Vec<i64> = (9_000_001..=9_001_500).collect(); // over 1000: no IN list could
    seed_flights(&url, &flids);
    let store = store(&url);
    let digests = store
        .transaction(|tx| tx.flight_digests(&flids))
        .expect("read through FLIGHTSTATE_ID_LIST");
    assert_eq!(digests.len(), flids.len());
    let deleted = store
        .transaction(|tx| tx.delete_flights(&flids))
        .expect("lock_flights, then delete_flights by key");
    assert_eq!(deleted.len(), flids.len());
    assert!(deleted.iter().all(|&(_, version)| version == 3));
    let left = store
        .transaction(|tx| tx.flight_digests(&flids))
        .expect("read again");
    assert!(left.is_empty(), "{} flights left", left.len());

    let ids: Vec<i64> = (8_100_001..=8_101_500).collect();
    let dead: Vec<Outcome> = ids
        .iter()
        .map(|&message_id| Outcome {
            message_id,
            identity_key: "first-contact",
            status: ProcStatus::Dead,
            error_kind: Some("Malformed"),
            error_text: Some("first contact"),
            msg_type: None,
            msg_subtype: None,
            next_attempt_at: None,
            now: now(),
            received_at: None,
        })
        .collect();
    store
        .transaction(|tx| tx.record_outcomes(&dead))
        .expect("record 1,500 DEAD outcomes");
    let requeued = store
        .transaction(|tx| tx.requeue_dead_letters(&ids, "first-contact", now()))
        .expect("lock_dead_letters, then requeue_dead_letters by key");
    assert_eq!(requeued.len(), ids.len());
    assert!(requeued.iter().all(|&(_, count)| count == 1));
    let again = store
        .transaction(|tx| tx.requeue_dead_letters(&ids, "first-contact", now()))
        .expect("requeue again");
    assert!(again.is_empty(), "FAILED messages are not DEAD: {again:?}");
}

/// Drops the test's deferred constraint however the test ends.
struct DeferredConstraint(oracle::Connection);

impl Drop for DeferredConstraint {
    fn drop(&mut self) {
        let _ = self.0.execute(
            "ALTER TABLE PROC_STATE DROP CONSTRAINT FS_TEST_TYPE_UK",
            &[],
        );
    }
}

/// A commit the server refuses (a deferred constraint, ORA-02091 at COMMIT): the store
/// reports it, the work is gone, and the pool's one session serves the next transaction
/// (rolled back, or dropped and replaced), never handing on the failed work.
#[test]
#[ignore = "needs an Oracle 11g server: scripts/test runs it when FLIGHTSTATE_ORACLE_URL is set"]
fn oracle_returns_a_session_whose_commit_failed_to_the_pool_clean() {
    let (url, _guard) = schema();
    run_pending_migrations(&url).expect("migrate");
    let conn = raw(&url);
    conn.execute(
        "ALTER TABLE PROC_STATE ADD CONSTRAINT FS_TEST_TYPE_UK UNIQUE (MSG_TYPE) \
         DEFERRABLE INITIALLY DEFERRED",
        &[],
    )
    .expect("add the deferred constraint");
    let _constraint = DeferredConstraint(conn);
    let store = OracleStore::connect(&url, 1, Duration::from_secs(30)).expect("a one-session pool");
    let outcome = |message_id: i64, key: &'static str, msg_type: &'static str| Outcome {
        message_id,
        identity_key: key,
        status: ProcStatus::Succeeded,
        error_kind: None,
        error_text: None,
        msg_type: Some(msg_type),
        msg_subtype: None,
        next_attempt_at: None,
        now: now(),
        received_at: None,
    };
    let err = store
        .transaction(|tx| {
            tx.record_outcomes(&[
                outcome(8_200_001, "deferred-1", "SCHD"),
                outcome(8_200_002, "deferred-2", "SCHD"),
            ])
        })
        .expect_err("the deferred constraint fails the commit");
    assert_eq!(err.op(), "commit the transaction", "{err:#}");
    store
        .transaction(|tx| tx.record_outcomes(&[outcome(8_200_003, "deferred-3", "FLOP")]))
        .expect("the next transaction commits");
    for (id, present) in [(8_200_001, false), (8_200_002, false), (8_200_003, true)] {
        let stored = store
            .transaction(|tx| tx.proc_state(id))
            .expect("read an outcome");
        assert_eq!(stored.is_some(), present, "message {id}");
    }
}

#[test]
#[ignore = "needs an Oracle 11g server: scripts/test runs it when FLIGHTSTATE_ORACLE_URL is set"]
fn oracle_records_a_2000_character_error_text() {
    let (url, _guard) = schema();
    run_pending_migrations(&url).expect("migrate");
    let store = store(&url);
    // 2,000 characters of two bytes each: 4,000 bytes, the most a VARCHAR2 holds.
    let wide = "é".repeat(2_000);
    let ascii = "x".repeat(2_500);
    for (id, text) in [(8_000_001_i64, wide.as_str()), (8_000_002, ascii.as_str())] {
        let outcome = Outcome {
            message_id: id,
            identity_key: "first-contact",
            status: ProcStatus::Failed,
            error_kind: Some("Other"),
            error_text: Some(text),
            msg_type: None,
            msg_subtype: None,
            next_attempt_at: None,
            now: now(),
            received_at: None,
        };
        store
            .transaction(|tx| tx.record_outcomes(std::slice::from_ref(&outcome)))
            .expect("record_outcomes with a long error text (no ORA-01461)");
        // The second attempt goes through the MERGE's UPDATE branch.
        store
            .transaction(|tx| tx.record_outcomes(std::slice::from_ref(&outcome)))
            .expect("record the second attempt");
        let stored = store
            .transaction(|tx| tx.proc_state(id))
            .expect("read it back")
            .expect("the row");
        assert_eq!(stored.attempts, 2);
        assert!(
            stored
                .error_text
                .is_some_and(|t| t.chars().count() == 2_000)
        );
    }
}

#[test]
#[ignore = "needs an Oracle 11g server: scripts/test runs it when FLIGHTSTATE_ORACLE_URL is set"]
fn oracle_journals_a_clob_over_32_kb() {
    let (url, _guard) = schema();
    run_pending_migrations(&url).expect("migrate");
    let store = store(&url);
    let payload = format!("{{\"blob\":\"{}\"}}", "a".repeat(40_000));
    let key = "f".repeat(64);
    let call = NewCall {
        idempotency_key: &key,
        scope: "first-contact",
        step: "clob",
        sub_key: "one",
        call_kind: "test",
        target: "nowhere",
        payload: &payload,
        payload_digest: &key,
        deadline_at: None,
    };
    let id = store
        .transaction(|tx| tx.insert_effect_intent(&call, now()))
        .expect("insert_effect_intent with a 40 KB CLOB")
        .expect("a new call id");
    let again = store
        .transaction(|tx| tx.insert_effect_intent(&call, now()))
        .expect("the same key again");
    assert_eq!(again, None);
    let stored = store
        .transaction(|tx| tx.select_effect_call(&key))
        .expect("read it back")
        .expect("the call");
    assert_eq!(stored.call_id, id);
    assert_eq!(stored.payload, payload);
    let empty = NewCall { target: "", ..call };
    let err = store
        .transaction(|tx| tx.insert_effect_intent(&empty, now()))
        .expect_err("an empty target is refused before Oracle turns it into NULL");
    assert_eq!(err.kind(), FailureKind::DataRejected);
}

#[test]
#[ignore = "needs an Oracle 11g server: scripts/test runs it when FLIGHTSTATE_ORACLE_URL is set"]
fn oracle_dispatcher_claims_while_a_pump_commits() {
    let (url, _guard) = schema();
    run_pending_migrations(&url).expect("migrate");
    let store = store(&url);
    let until = Instant::now() + Duration::from_secs(20);
    let writer = {
        let store = store.clone();
        thread::spawn(move || -> Result<i64, StoreError> {
            let mut written = 0;
            let mut message_id = 7_000_000;
            while Instant::now() < until {
                message_id += 1;
                let events: Vec<StateEvent> = (0..20)
                    .map(|i| StateEvent {
                        message_id,
                        flid: 6_000_000 + (message_id * 20 + i) % 500,
                        state_version: message_id,
                        kind: EventKind::State,
                    })
                    .collect();
                store.transaction(|tx| tx.append_state_events(&events, now()))?;
                written += 20;
            }
            Ok(written)
        })
    };
    let mut claimed = 0;
    let mut conflicts: Vec<String> = Vec::new();
    let lane = Lane::ALL;
    while Instant::now() < until || claimed == 0 {
        let pass = store.transaction(|tx| {
            tx.set_repeatable_read()?;
            let rows = tx.claim_state_events(now(), 200, lane)?;
            let ids: Vec<i64> = rows.iter().map(|r| r.event_id).collect();
            tx.delete_sent_state_events(&ids)?;
            Ok::<_, StoreError>(ids.len())
        });
        match pass {
            Ok(n) => claimed += n,
            Err(e) if e.kind() == FailureKind::Conflict => conflicts.push(format!("{e:#}")),
            Err(e) => panic!("a dispatcher pass failed: {e:#}"),
        }
    }
    let written = writer.join().expect("the writer").expect("the writes");
    assert!(claimed > 0 && written > 0);
    // None expected, from Oracle's documented behaviour: a serializable transaction may
    // change a row unless another transaction changed it after this one began (11.2
    // Concepts, "Serializable Isolation Level"); the writer only inserts, the one dispatcher
    // changes only rows it locked, and ROWDEPENDENCIES (a change SCN per row) with INITRANS 8
    // (an interested-transaction slot per concurrent transaction in every block, the
    // Concepts' advice of at least 3 for serializable work) remove the block-level checks that
    // could otherwise fail it. An empty claim with due rows needs a second dispatcher. So any
    // ORA-08177 here is the design not holding, and each one is printed for the report.
    assert!(
        conflicts.is_empty(),
        "{} conflicts for {claimed} claimed rows (ORA-08177 on hot blocks?):\n{}",
        conflicts.len(),
        conflicts.join("\n")
    );
}

/// A table's rows in key order, each as column (lower case) → value in the form both dialects
/// give ([`day_rows::neutral`]); `None` is NULL.
#[cfg(feature = "postgres")]
type Rows = Vec<std::collections::BTreeMap<String, Option<String>>>;

/// Reading the same table out of both dialects in one form, for
/// `oracle_applies_a_whole_airport_day_as_postgres_does`. The scenarios' dumps
/// (`ScenarioDb::dump`) do not fit: PostgreSQL's is JSON, Oracle's `column=value` text, and
/// they write numbers and times each their own way.
#[cfg(feature = "postgres")]
mod day_rows {
    use std::collections::BTreeMap;

    use chrono::NaiveDateTime;
    use diesel::sql_types::Text;
    use diesel::{QueryableByName, RunQueryDsl};

    use super::Rows;
    use crate::common::dialects::PgDb;

    /// Columns the comparison leaves out, each with why. Every other column is compared,
    /// times included: both dialects apply each message at the same whole-second `now`, and
    /// every time a row holds is bound from it or from the messages.
    pub const NOT_COMPARED: &[(&str, &str, &str)] = &[
        (
            "kafka_schd",
            "event_id",
            "generated: an identity on PostgreSQL, KAFKA_SCHD_SEQ (cached, never reset) on \
             Oracle; the rows are still compared in event_id order",
        ),
        (
            "kafka_msg",
            "event_id",
            "generated: an identity on PostgreSQL, KAFKA_MSG_SEQ (cached, never reset) on \
             Oracle; the rows are still compared in event_id order",
        ),
    ];

    /// A value as both dialects can give it (Oracle's in the `oracle` crate's own text forms,
    /// not the session's NLS formats: a `DATE` or `TIMESTAMP` as `YYYY-MM-DD HH:MM:SS[.ffffff]`,
    /// a `NUMBER` as ODPI-C's decimal text): a date or time as `YYYY-MM-DD HH:MM:SS[.f]` with no
    /// trailing zero (PostgreSQL's JSON writes a `T` and no zero fraction, Oracle's
    /// `TIMESTAMP(6)` six digits), a decimal number with no trailing fractional zero and a
    /// leading `0` (PostgreSQL's JSON keeps `NUMERIC`'s scale, `12.50`; Oracle gives `12.5`).
    /// The same text is the same value in both forms.
    pub fn neutral(text: &str) -> String {
        if let Ok(time) =
            NaiveDateTime::parse_from_str(&text.replacen('T', " ", 1), "%Y-%m-%d %H:%M:%S%.f")
        {
            return time.format("%Y-%m-%d %H:%M:%S%.f").to_string();
        }
        // A PostgreSQL DATE: Oracle's DATE always has a time of day.
        if let Ok(date) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
            return format!("{} 00:00:00", date.format("%Y-%m-%d"));
        }
        let digits = text.strip_prefix('-').unwrap_or(text);
        let decimal = digits.contains('.')
            && digits.chars().filter(|c| *c == '.').count() == 1
            && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
            && digits.chars().any(|c| c.is_ascii_digit());
        if !decimal {
            return text.to_owned();
        }
        let trimmed = text.trim_end_matches('0').trim_end_matches('.');
        match trimmed.strip_prefix('-') {
            Some(rest) if rest.starts_with('.') => format!("-0{rest}"),
            None if trimmed.starts_with('.') => format!("0{trimmed}"),
            _ => trimmed.to_owned(),
        }
    }

    fn compared(table: &str, column: &str) -> bool {
        !NOT_COMPARED
            .iter()
            .any(|(t, c, _)| *t == table && *c == column)
    }

    #[derive(QueryableByName)]
    struct JsonRow {
        #[diesel(sql_type = Text)]
        row: String,
    }

    /// `table`'s rows on PostgreSQL, in `order`. Test-only SQL: names are constants.
    pub fn postgres(db: &PgDb, table: &str, order: &str) -> Rows {
        diesel::sql_query(format!(
            "SELECT to_jsonb(t)::text AS row FROM {table} t ORDER BY {order}"
        ))
        .load::<JsonRow>(&mut db.0.connect())
        .unwrap_or_else(|e| panic!("read {table} on PostgreSQL: {e}"))
        .into_iter()
        .map(|r| {
            let object: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&r.row).expect("a row as a JSON object");
            object
                .into_iter()
                .filter(|(column, _)| compared(table, column))
                .map(|(column, value)| {
                    let text = match value {
                        serde_json::Value::Null => None,
                        serde_json::Value::String(s) => Some(neutral(&s)),
                        other => Some(neutral(&other.to_string())),
                    };
                    (column, text)
                })
                .collect::<BTreeMap<_, _>>()
        })
        .collect()
    }

    /// `table`'s rows on Oracle, in `order`. Test-only SQL: names are constants.
    pub fn oracle(conn: &oracle::Connection, table: &str, order: &str) -> Rows {
        conn.query(&format!("SELECT * FROM {table} ORDER BY {order}"), &[])
            .unwrap_or_else(|e| panic!("read {table} on Oracle: {e}"))
            .map(|row| {
                let row = row.unwrap_or_else(|e| panic!("a row of {table}: {e}"));
                row.column_info()
                    .iter()
                    .zip(row.sql_values())
                    .map(|(info, value)| (info.name().to_ascii_lowercase(), value))
                    .filter(|(column, _)| compared(table, column))
                    .map(|(column, value)| {
                        let text = value
                            .get::<Option<String>>()
                            .unwrap_or_else(|e| panic!("{table}.{column} as text: {e}"));
                        (column, text.as_deref().map(neutral))
                    })
                    .collect::<BTreeMap<_, _>>()
            })
            .collect()
    }

    /// The first row that differs, named by its place in key order, then the counts.
    #[track_caller]
    pub fn assert_same(table: &str, on_oracle: &Rows, on_postgres: &Rows) {
        for (i, (o, p)) in on_oracle.iter().zip(on_postgres).enumerate() {
            assert_eq!(
                o, p,
                "{table}: row {i} in key order differs (left Oracle, right PostgreSQL)"
            );
        }
        assert_eq!(
            on_oracle.len(),
            on_postgres.len(),
            "{table}: rows (left Oracle, right PostgreSQL)"
        );
    }

    #[test]
    fn both_dialects_forms_of_a_value_are_one() {
        for (postgres, oracle) in [
            ("2025-06-01T12:00:00", "2025-06-01 12:00:00"),
            ("2025-06-01T12:00:00", "2025-06-01 12:00:00.000000"),
            ("2025-06-01T12:00:00.25", "2025-06-01 12:00:00.250000"),
            ("2025-06-01", "2025-06-01 00:00:00"),
            ("12.50", "12.5"),
            ("0.50", ".5"),
            ("-0.50", "-.5"),
            ("3.00", "3"),
        ] {
            assert_eq!(neutral(postgres), neutral(oracle), "{postgres} vs {oracle}");
        }
        for text in ["1000000", "007", "CTU", "{\"a\":1.50}", "1.2.3", "."] {
            assert_eq!(neutral(text), text);
        }
        // Oracle stores a zero-length VARCHAR2 as NULL (11.2 SQL Reference, "Nulls"); the
        // state layer never writes an empty text, so PostgreSQL never holds one either. An
        // empty text on PostgreSQL against NULL on Oracle is therefore a real difference.
        let (postgres, oracle): (Option<String>, Option<String>) = (Some(neutral("")), None);
        assert_ne!(postgres, oracle);
    }
}

/// A whole generated airport day — its snapshot, then every event — applied message by
/// message to the Oracle schema and to a fresh PostgreSQL database: every message has the
/// same outcome in both, and every table the scenarios dump (and the version floors) holds
/// the same rows, column for column, but for [`day_rows::NOT_COMPARED`].
#[cfg(feature = "postgres")]
#[test]
#[ignore = "needs an Oracle 11g server: scripts/test runs it when FLIGHTSTATE_ORACLE_URL is set"]
fn oracle_applies_a_whole_airport_day_as_postgres_does() {
    use common::dialects::{DUMPED_TABLES, PgDb, ScenarioDb};
    use flightstate::pipeline::{Rules, apply_message};
    use flightstate::protocol::to_xml;
    use flightstate::synth::{DayOptions, airport_day};

    let (url, _guard) = schema();
    run_pending_migrations(&url).expect("migrate");
    // Empties every table now and when dropped (the other tests here leave rows behind).
    let on_oracle = common::dialects::oracle().expect("the Oracle schema");
    let on_postgres = PgDb::migrated();
    let (oracle_store, postgres_store) = (on_oracle.store(), on_postgres.store());

    let options = DayOptions::default();
    let day = airport_day(&options);
    let bodies: Vec<String> = std::iter::once(&day.snapshot)
        .chain(&day.events)
        .map(to_xml)
        .chain(longest_values())
        .collect();
    let settings = Rules::default();
    // Whole seconds, the same in both: a DATE keeps no fraction.
    let start = options
        .day
        .and_hms_opt(0, 0, 0)
        .expect("midnight of the day");
    for (message_id, body) in (1_i64..).zip(&bodies) {
        let now = start + chrono::Duration::seconds(message_id);
        let postgres = apply_message(&postgres_store, &settings, message_id, body.as_bytes(), now)
            .unwrap_or_else(|e| panic!("message {message_id} on PostgreSQL: {e:#}"));
        let oracle = apply_message(&oracle_store, &settings, message_id, body.as_bytes(), now)
            .unwrap_or_else(|e| panic!("message {message_id} on Oracle: {e:#}"));
        assert_eq!(oracle, postgres, "message {message_id}: outcome");
    }

    let conn = raw(&url);
    let tables = DUMPED_TABLES
        .iter()
        .copied()
        .chain([("flight_version_floor", "flid")]);
    for (table, order) in tables {
        let postgres = day_rows::postgres(&on_postgres, table, order);
        let oracle = day_rows::oracle(&conn, table, order);
        day_rows::assert_same(table, &oracle, &postgres);
    }
    // The day did write: every message has its outcome, every flight its main row.
    assert_eq!(
        on_oracle.count("proc_state", "1 = 1"),
        i64::try_from(bodies.len()).expect("a count")
    );
    assert!(on_oracle.count("flight_schd", "1 = 1") > 0);
    // The longest values reached both databases (the tables are equal, so PostgreSQL's
    // byte counts are Oracle's): the 3,999- and 4,000-byte remarks, the 750 CJK characters,
    // state documents over 4 KB, and the 4,001-byte remark refused before either database.
    for (condition, rows) in [
        ("flid = 990001 AND octet_length(remc) = 3999", 1),
        ("flid = 990002 AND octet_length(remc) = 4000", 1),
        ("flid = 990003 AND char_length(remc) = 750", 1),
        ("flid = 990004", 0),
        (
            "flid IN (990001, 990002) AND octet_length(state_document) > 4001",
            2,
        ),
    ] {
        assert_eq!(
            on_postgres.count("flight_schd", condition),
            rows,
            "{condition}"
        );
    }
}

/// Remarks (`REMC`, `VARCHAR2(1000 CHAR)`) at the edges of 11g's 4,000 bytes, each a FLOP that
/// creates its own flight: 3,999 and 4,000 bytes (whose state documents pass 4 KB), 750 CJK
/// characters (2,250 bytes: the range a batch buffer grown to the next power of two would
/// send as a `LONG`), and 4,001 bytes in 1,001 characters, which the protocol refuses.
#[cfg(feature = "postgres")]
fn longest_values() -> Vec<String> {
    let four_bytes = '\u{20000}'; // 𠀀, CJK Extension B
    let remarks = [
        (
            990001,
            format!("{}\u{5ef6}", four_bytes.to_string().repeat(999)),
        ),
        (990002, four_bytes.to_string().repeat(1_000)),
        (990003, "\u{5ef6}".repeat(750)),
        (990004, format!("{}a", four_bytes.to_string().repeat(1_000))),
    ];
    remarks
        .iter()
        .map(|(flid, remark)| {
            let body = common::sis::flop("REMC", &[(*flid, &format!("<REMC>{remark}</REMC>"))]);
            String::from_utf8(body).expect("a message is UTF-8")
        })
        .collect()
}
