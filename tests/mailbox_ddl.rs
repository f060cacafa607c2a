//! The AODB mailbox tables that tests and the demo create
//! (`sql/mailbox/aodb_mailbox.sql`) against a real MariaDB: they apply
//! cleanly (twice), keep AODB's column shape, and carry a whole UTF-8
//! message through; `flightstate enqueue` queues files the way AODB does.

use mysql::prelude::Queryable;

const MAILBOX_DDL: &str = include_str!("../sql/mailbox/aodb_mailbox.sql");

/// A MariaDB database of this test's own, dropped when the guard goes.
struct MariaDbDatabase {
    server: mysql::Pool,
    name: String,
}

impl MariaDbDatabase {
    fn create(tag: &str) -> MariaDbDatabase {
        let url = std::env::var("FLIGHTSTATE_TEST_MARIADB_URL")
            .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306".to_owned());
        let server =
            mysql::Pool::new(url.as_str()).expect("MariaDB must be running (scripts/services)");
        let name = format!("fs_test_{tag}_{}", std::process::id());
        let mut conn = server.get_conn().expect("connect to MariaDB");
        // Test database names are the one place identifiers are formatted.
        conn.query_drop(format!("DROP DATABASE IF EXISTS {name}"))
            .expect("drop stale database");
        conn.query_drop(format!("CREATE DATABASE {name} CHARACTER SET utf8mb4"))
            .expect("create database");
        MariaDbDatabase { server, name }
    }

    fn conn(&self) -> mysql::PooledConn {
        let mut conn = self.server.get_conn().expect("connect to MariaDB");
        conn.query_drop(format!("USE {}", self.name))
            .expect("use test database");
        conn
    }

    fn apply(&self, script: &str) {
        let mut conn = self.conn();
        for statement in script.split(';').filter(|s| s.lines().any(is_sql_line)) {
            conn.query_drop(statement).expect("mailbox DDL applies");
        }
    }
}

fn is_sql_line(line: &str) -> bool {
    let line = line.trim();
    !line.is_empty() && !line.starts_with("--")
}

impl Drop for MariaDbDatabase {
    fn drop(&mut self) {
        if let Ok(mut conn) = self.server.get_conn() {
            let _ = conn.query_drop(format!("DROP DATABASE IF EXISTS {}", self.name));
        }
    }
}

#[test]
fn mailbox_tables_have_aodb_shape_and_apply_twice() {
    let db = MariaDbDatabase::create("ddl");
    db.apply(MAILBOX_DDL);
    db.apply(MAILBOX_DDL);
    let mut conn = db.conn();
    let columns: Vec<(String, String, String)> = conn
        .exec(
            "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'cminmsgs' ORDER BY ORDINAL_POSITION",
            (&db.name,),
        )
        .expect("read columns");
    let expected = [
        ("CMINMSGS_ID", "bigint(20)", "NO"),
        ("CMINMSGS_CLOB_MSG", "mediumtext", "NO"),
        ("CMINMSGS_DATE_RECEIVED", "datetime", "YES"),
        ("CMINMSGS_DATE_PROCESSED", "datetime", "YES"),
        ("CMINMSGS_SUBSYSTEM_NAME", "varchar(4)", "YES"),
        ("CMINMSGS_SUBSYSTEM_SEQUENCE", "mediumint(9)", "YES"),
        ("CMINMSGS_SUBSYSTEM_DATE_SENT", "datetime", "YES"),
        ("CMINMSGS_SUBSYSTEM_SUBTYPE", "varchar(4)", "YES"),
        ("CMINMSGS_SUBSYSTEM_TYPE", "varchar(4)", "YES"),
        ("CMINMSGS_STATUS", "varchar(20)", "YES"),
    ];
    let got: Vec<(&str, &str, &str)> = columns
        .iter()
        .map(|(n, t, null)| (n.as_str(), t.as_str(), null.as_str()))
        .collect();
    assert_eq!(got, expected);

    let out_columns: Vec<String> = conn
        .exec(
            "SELECT COLUMN_NAME FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'coutmsgs' ORDER BY ORDINAL_POSITION",
            (&db.name,),
        )
        .expect("read columns");
    assert_eq!(out_columns.len(), 15);
    assert_eq!(out_columns[4], "ROUTINGID");
}

#[test]
fn a_whole_utf8_message_round_trips() {
    let db = MariaDbDatabase::create("utf8");
    db.apply(MAILBOX_DDL);
    let mut conn = db.conn();
    let body = "<MSG><FLOP><FLID>7</FLID><REMC>航班延误 — 天气</REMC></FLOP></MSG>";
    conn.exec_drop(
        "INSERT INTO cminmsgs (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED, CMINMSGS_STATUS) \
         VALUES (?, NOW(), 'VALID')",
        (body,),
    )
    .expect("insert a message");
    let id = conn.last_insert_id();
    let row: Option<(String, Option<String>, String)> = conn
        .exec_first(
            "SELECT CMINMSGS_CLOB_MSG, CAST(CMINMSGS_DATE_PROCESSED AS CHAR), CMINMSGS_STATUS \
             FROM cminmsgs WHERE CMINMSGS_ID = ?",
            (id,),
        )
        .expect("read it back");
    assert_eq!(row, Some((body.to_owned(), None, "VALID".to_owned())));
}

#[test]
fn enqueue_creates_the_tables_and_queues_files_in_order() {
    let db = MariaDbDatabase::create("enqueue");
    let dir = std::env::temp_dir().join(format!("flightstate-enqueue-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let first = dir.join("b.xml");
    let second = dir.join("a.xml");
    std::fs::write(
        &first,
        "<MSG><META><TYPE>FLOP</TYPE><STYP>STND</STYP></META></MSG>",
    )
    .expect("write");
    std::fs::write(&second, "not even XML").expect("write");
    let url = std::env::var("FLIGHTSTATE_TEST_MARIADB_URL")
        .unwrap_or_else(|_| "mysql://root@127.0.0.1:3306".to_owned());
    // The log and the progress go to a file, as a site's service manager
    // writes them.
    let log_path = dir.join("enqueue.log");
    let log_file = std::fs::File::create(&log_path).expect("create the log file");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flightstate"))
        .args([
            "--config",
            "/nonexistent/flightstate.toml",
            "enqueue",
            "--create-tables",
        ])
        .arg(&first)
        .arg(&second)
        .env("FLIGHTSTATE_MAILBOX_URL", format!("{url}/{}", db.name))
        .env("RUST_LOG", "info")
        .stderr(log_file)
        .output()
        .expect("run flightstate");
    let log = std::fs::read_to_string(&log_path).expect("read the log file");
    std::fs::remove_dir_all(&dir).ok();
    assert!(out.status.success(), "{log}");
    // Plain progress lines and no colour escape sequences in a file.
    assert!(log.lines().any(|l| l == "queued 2 of 2"), "{log}");
    assert!(!log.contains('\u{1b}') && !log.contains('\r'), "{log:?}");
    /// CMINMSGS_ID, body, status, subsystem type and subtype, still pending.
    type QueuedRow = (
        i64,
        String,
        Option<String>,
        Option<String>,
        Option<String>,
        bool,
    );
    let rows: Vec<QueuedRow> = db
        .conn()
        .query(
            "SELECT CMINMSGS_ID, CMINMSGS_CLOB_MSG, CMINMSGS_STATUS, CMINMSGS_SUBSYSTEM_TYPE, \
             CMINMSGS_SUBSYSTEM_SUBTYPE, CMINMSGS_DATE_PROCESSED IS NULL FROM cminmsgs ORDER BY CMINMSGS_ID",
        )
        .expect("read the mailbox");
    assert_eq!(rows.len(), 2);
    // Queued in the order given, pending, with META TYPE/STYP where readable.
    assert!(rows[0].0 < rows[1].0);
    assert!(rows[0].1.contains("<STYP>STND</STYP>"));
    assert_eq!(
        (
            rows[0].2.as_deref(),
            rows[0].3.as_deref(),
            rows[0].4.as_deref(),
            rows[0].5
        ),
        (Some("VALID"), Some("FLOP"), Some("STND"), true)
    );
    assert_eq!(
        (rows[1].1.as_str(), rows[1].3.as_deref()),
        ("not even XML", None)
    );
}
