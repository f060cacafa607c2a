//! The state database and the mailbox over TLS, as a site turns it on
//! (`docs/install.md`, "TLS to the databases"): the binary run against
//! servers the tests start themselves, each with a certificate of the
//! tests' own CA.
//!
//! - PostgreSQL, `sslmode=verify-full&sslrootcert=CA`: `migrate` and
//!   `apply` work, and the server's log says every session was TLS; a
//!   server signed by another CA is refused (exit 2, the certificate
//!   named) with nothing written; `sslmode=require` against a server
//!   without TLS is refused, and the same URL without it works as before.
//! - MariaDB, `root_cert_path=CA`: `enqueue` and the pump work, every
//!   session TLS by the server's general log; another CA is refused
//!   (exit 2) with the queue untouched; a server without TLS is refused,
//!   and the plain URL works as before.
//!
//! Every account has a password, and no command may print it.
//!
//! The tests' binary links the host's libpq; the shipped one has libpq and
//! OpenSSL built in. When `FLIGHTSTATE_TEST_RELEASE_BINARY` names the
//! release build's binary, every case runs it too; CI must set it (with
//! `CI=true` an unset variable fails), elsewhere its absence is said on
//! stderr.
#![cfg(feature = "postgres")]

mod common;

use std::process::Output;

use common::TestDatabase;
use common::binaries::{Binary, binaries};
use common::operator::{operator_command_of, printed};
use common::private_mariadb::PrivateMariaDb;
use common::private_pg::PrivatePostgres;
use common::server::Folder;
use common::sis;
use common::tls::TestCa;
use mysql::prelude::Queryable;

/// A mailbox URL for commands that never open the mailbox.
const NO_MAILBOX: &str = "mysql://unused@127.0.0.1:1/unused";
/// A state database URL for commands that never open it.
const NO_STATE_DATABASE: &str = "postgres://unused@127.0.0.1:1/unused";

/// `flightstate ARGS` by `binary` on the state database at `db_url` and the
/// mailbox at `mailbox_url`, run to its end.
fn run(binary: &Binary, args: &[&str], db_url: &str, mailbox_url: &str) -> Output {
    operator_command_of(&binary.path, args[0], db_url, mailbox_url)
        .args(&args[1..])
        // The pool retries a connection it cannot open for this long: a
        // refused certificate is refused again, and the servers are local.
        .env("FLIGHTSTATE_DATABASE_CONNECTION_TIMEOUT_SECS", "3")
        .output()
        .expect("run flightstate")
}

/// `out` ended with exit 0 and printed no `password`; returns its stdout.
#[track_caller]
fn assert_ran(binary: &Binary, what: &str, out: &Output, password: &str) -> String {
    let said = printed(out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{what} by {}: {said}",
        binary.what
    );
    assert!(
        !said.contains(password),
        "{what} by {} printed the password: {said}",
        binary.what
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `out` ended with exit 2, saying each of `because` (lowercase), and
/// printed no `password`.
#[track_caller]
fn assert_refused(binary: &Binary, what: &str, out: &Output, because: &[&str], password: &str) {
    let said = printed(out);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{what} by {}: {said}",
        binary.what
    );
    for words in because {
        assert!(
            said.to_lowercase().contains(words),
            "{what} by {} does not say {words:?}: {said}",
            binary.what
        );
    }
    assert!(
        !said.contains(password),
        "{what} by {} printed the password: {said}",
        binary.what
    );
}

/// `sessions`, as a server logged them, are at least `at_least`, and each
/// says `tls`: the server's words for a session over TLS (`log` shows all
/// it said).
#[track_caller]
fn assert_every_session_tls(
    binary: &Binary,
    sessions: &[String],
    at_least: usize,
    tls: &str,
    log: &str,
) {
    assert!(
        sessions.len() >= at_least,
        "{}: {} sessions logged, not {at_least}: {sessions:#?}\n{log}",
        binary.what,
        sessions.len()
    );
    for session in sessions {
        assert!(
            session.contains(tls),
            "{}: a session without TLS: {session}",
            binary.what
        );
    }
}

/// A snapshot of 9 September with one flight, in a file in `folder`.
fn message_file(folder: &Folder) -> String {
    let file = folder.path().join("dnld.xml");
    let body = sis::snapshot(sis::sep(9), vec![sis::flight(7, sis::at(9, 8, 0))]);
    std::fs::write(&file, body).expect("write the message");
    file.display().to_string()
}

/// `sslmode=verify-full` with `ca` as the root certificate.
fn verify_full(ca: &TestCa) -> String {
    format!("sslmode=verify-full&sslrootcert={}", ca.ca_pem().display())
}

/// How many tables the private server's `database` holds.
fn tables_in(pg: &PrivatePostgres, database: &str) -> i64 {
    sis::count(
        &mut pg.admin(database),
        "pg_tables",
        "schemaname NOT IN ('pg_catalog', 'information_schema')",
    )
}

#[test]
fn the_state_database_verified_by_its_ca_migrates_and_applies_over_tls() {
    let ca = TestCa::new("state-db-ca");
    let pg = PrivatePostgres::start(Some(&ca.server_cert("postgres")));
    let folder = Folder::new("tls_state_ok");
    let file = message_file(&folder);
    for (i, binary) in binaries().iter().enumerate() {
        let database = format!("verified_{i}");
        pg.create_database(&database);
        let url = pg.url(&database, &verify_full(&ca));

        let migrated = run(binary, &["migrate"], &url, NO_MAILBOX);
        assert_ran(binary, "migrate", &migrated, pg.password());
        let applied = run(
            binary,
            &["apply", &file, "--message-id", "1"],
            &url,
            NO_MAILBOX,
        );
        let report = assert_ran(binary, "apply", &applied, pg.password());
        let report: serde_json::Value = serde_json::from_str(&report).expect("apply's JSON");
        assert_eq!(report["outcome"], "snapshot", "{report}");
        assert_eq!(report["created"], 1, "{report}");
        assert_eq!(
            sis::reno(&mut pg.admin(&database), 7).as_deref(),
            Some("B0007")
        );

        // migrate and apply open one session each, at least.
        assert_every_session_tls(
            binary,
            &pg.sessions_of(&database),
            2,
            "SSL enabled (protocol=TLS",
            &pg.log(),
        );
    }
}

#[test]
fn a_state_database_signed_by_another_ca_is_refused_and_nothing_is_written() {
    let ca = TestCa::new("state-db-ca");
    let another = TestCa::new("another-ca");
    let pg = PrivatePostgres::start(Some(&ca.server_cert("postgres")));
    let folder = Folder::new("tls_state_refused");
    let file = message_file(&folder);
    for (i, binary) in binaries().iter().enumerate() {
        let database = format!("refused_{i}");
        pg.create_database(&database);
        let wrong = pg.url(&database, &verify_full(&another));
        let right = pg.url(&database, &verify_full(&ca));

        let migrated = run(binary, &["migrate"], &wrong, NO_MAILBOX);
        assert_refused(
            binary,
            "migrate",
            &migrated,
            &["certificate verify failed"],
            pg.password(),
        );
        assert_eq!(
            tables_in(&pg, &database),
            0,
            "{}: migrate wrote",
            binary.what
        );

        assert_ran(
            binary,
            "migrate",
            &run(binary, &["migrate"], &right, NO_MAILBOX),
            pg.password(),
        );
        let before = sis::dump_database(&mut pg.admin(&database));
        let applied = run(
            binary,
            &["apply", &file, "--message-id", "1"],
            &wrong,
            NO_MAILBOX,
        );
        assert_refused(
            binary,
            "apply",
            &applied,
            &["certificate verify failed"],
            pg.password(),
        );
        assert_eq!(
            sis::dump_database(&mut pg.admin(&database)),
            before,
            "{}: apply wrote",
            binary.what
        );
    }
}

#[test]
fn sslmode_require_is_refused_by_a_server_without_tls_and_the_plain_url_still_works() {
    let pg = PrivatePostgres::start(None);
    for (i, binary) in binaries().iter().enumerate() {
        let database = format!("plain_{i}");
        pg.create_database(&database);

        let refused = run(
            binary,
            &["migrate"],
            &pg.url(&database, "sslmode=require"),
            NO_MAILBOX,
        );
        assert_refused(
            binary,
            "migrate with sslmode=require",
            &refused,
            &["server does not support ssl, but ssl was required"],
            pg.password(),
        );
        assert_eq!(
            tables_in(&pg, &database),
            0,
            "{}: migrate wrote",
            binary.what
        );

        let plain = run(binary, &["migrate"], &pg.url(&database, ""), NO_MAILBOX);
        assert_ran(binary, "migrate with a plain URL", &plain, pg.password());
        assert!(
            tables_in(&pg, &database) > 0,
            "{}: not migrated",
            binary.what
        );
    }
}

/// `(status, processed)` of every row of `database`'s inbound queue, by id.
fn queue(maria: &PrivateMariaDb, database: &str) -> Vec<(Option<String>, bool)> {
    maria
        .admin()
        .query_map(
            format!(
                "SELECT CMINMSGS_STATUS, CMINMSGS_DATE_PROCESSED IS NOT NULL \
                 FROM {database}.cminmsgs ORDER BY CMINMSGS_ID"
            ),
            |(status, processed): (Option<String>, i64)| (status, processed != 0),
        )
        .expect("read the queue")
}

/// The mailbox settings of a site that sets none, its statuses among them.
fn mailbox_status() -> flightstate::config::MailboxConfig {
    flightstate::config::Config::default().mailbox
}

/// `root_cert_path=CA`, over TCP even to 127.0.0.1 (`prefer_socket=false`:
/// otherwise the driver moves to the server's Unix socket, where TLS does
/// not apply).
fn mailbox_tls(ca: &TestCa) -> String {
    format!(
        "root_cert_path={}&prefer_socket=false",
        ca.ca_pem().display()
    )
}

#[test]
fn the_mailbox_verified_by_its_ca_is_read_and_written_over_tls() {
    let ca = TestCa::new("mailbox-ca");
    let maria = PrivateMariaDb::start(Some(&ca.server_cert("mariadb")));
    let folder = Folder::new("tls_mailbox_ok");
    let file = message_file(&folder);
    for (i, binary) in binaries().iter().enumerate() {
        let database = format!("aodb_{i}");
        maria.create_database(&database);
        let state = TestDatabase::migrated();
        let url = maria.url(&database, &mailbox_tls(&ca));

        let queued = run(
            binary,
            &["enqueue", "--create-tables", &file],
            state.url(),
            &url,
        );
        assert_ran(binary, "enqueue", &queued, maria.password());
        let pumped = run(binary, &["pump", "--until-idle"], state.url(), &url);
        assert_ran(binary, "pump", &pumped, maria.password());

        assert_eq!(
            queue(&maria, &database),
            vec![(Some(mailbox_status().succeeded_status), true)],
            "{}: the message is read and written back",
            binary.what
        );
        assert_eq!(
            sis::count(&mut state.connect(), "flight_schd", "true"),
            1,
            "{}: the flight is applied",
            binary.what
        );

        assert_every_session_tls(
            binary,
            &maria.sessions_of(&database),
            2,
            "using SSL/TLS",
            &maria.log(),
        );
    }
}

#[test]
fn a_mailbox_signed_by_another_ca_is_refused_and_the_queue_untouched() {
    let ca = TestCa::new("mailbox-ca");
    let another = TestCa::new("another-ca");
    let maria = PrivateMariaDb::start(Some(&ca.server_cert("mariadb")));
    let folder = Folder::new("tls_mailbox_refused");
    let file = message_file(&folder);
    for (i, binary) in binaries().iter().enumerate() {
        let database = format!("aodb_{i}");
        maria.create_database(&database);
        let queued = run(
            binary,
            &["enqueue", "--create-tables", &file],
            NO_STATE_DATABASE,
            &maria.url(&database, &mailbox_tls(&ca)),
        );
        assert_ran(binary, "enqueue", &queued, maria.password());
        let before = queue(&maria, &database);

        let refused = run(
            binary,
            &["enqueue", &file],
            NO_STATE_DATABASE,
            &maria.url(&database, &mailbox_tls(&another)),
        );
        assert_refused(
            binary,
            "enqueue",
            &refused,
            &[
                "connect to the mailbox over tls",
                "certificate verify failed",
            ],
            maria.password(),
        );
        assert_eq!(queue(&maria, &database), before, "{}", binary.what);
    }
}

#[test]
fn a_tls_mailbox_url_is_refused_by_a_server_without_tls_and_the_plain_url_still_works() {
    let ca = TestCa::new("mailbox-ca");
    let maria = PrivateMariaDb::start(None);
    let folder = Folder::new("tls_mailbox_plain");
    let file = message_file(&folder);
    for (i, binary) in binaries().iter().enumerate() {
        let database = format!("aodb_{i}");
        maria.create_database(&database);

        let refused = run(
            binary,
            &["enqueue", "--create-tables", &file],
            NO_STATE_DATABASE,
            &maria.url(&database, &mailbox_tls(&ca)),
        );
        assert_refused(
            binary,
            "enqueue",
            &refused,
            &["the mailbox server offers no tls"],
            maria.password(),
        );
        let tables: Vec<String> = maria
            .admin()
            .exec(
                "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?",
                (&database,),
            )
            .expect("list the tables");
        assert!(tables.is_empty(), "{}: {tables:?}", binary.what);

        let plain = run(
            binary,
            &["enqueue", "--create-tables", &file],
            NO_STATE_DATABASE,
            &maria.url(&database, ""),
        );
        assert_ran(binary, "enqueue with a plain URL", &plain, maria.password());
        assert_eq!(
            queue(&maria, &database),
            vec![(Some(mailbox_status().pending_status), false)],
            "{}",
            binary.what
        );
    }
}
