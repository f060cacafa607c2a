//! `flightstate doctor` against real servers: a healthy set-up holds every
//! check (exit 0); each fault a site can have — a wrong mailbox password, a
//! mailbox table without a column, a schema one migration behind or ahead
//! of the binary, a table the user may not delete from, an unreachable
//! broker, a missing topic the dispatcher may not create, a taken port — is
//! made for real and fails its own line (exit 1). And the long-running commands refuse a schema that
//! is not their binary's: refused, `migrate`, accepted.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/pumping/mod.rs"]
mod pumping;

use std::net::TcpListener;
use std::process::{Command, Output};

use common::TestDatabase;
use diesel::RunQueryDsl;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};
use mysql::prelude::Queryable;
use pumping::MailboxDatabase;

const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations_pg");

fn brokers() -> String {
    std::env::var("FLIGHTSTATE_TEST_KAFKA_BROKERS").unwrap_or_else(|_| "127.0.0.1:9092".into())
}

/// A port nobody listens on right now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// `flightstate SUBCOMMAND` on the test's servers, with a free API port and
/// the station's zone set; `tweak` changes what the case breaks.
fn flightstate(
    subcommand: &str,
    db: &TestDatabase,
    mb: &MailboxDatabase,
    tweak: impl FnOnce(&mut Command),
) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_flightstate"));
    command
        .args(["--config", "/nonexistent/flightstate.toml", subcommand])
        .env("FLIGHTSTATE_DATABASE_URL", db.url())
        .env("FLIGHTSTATE_MAILBOX_URL", mb.url())
        .env("FLIGHTSTATE_KAFKA_BROKERS", brokers())
        .env("FLIGHTSTATE_API_BIND", format!("127.0.0.1:{}", free_port()))
        .env("FLIGHTSTATE_STATION_TIME_ZONE", "Asia/Shanghai")
        .env("RUST_LOG", "warn")
        .env_remove("FLIGHTSTATE_FAILPOINTS");
    tweak(&mut command);
    command.output().expect("run flightstate")
}

/// The lines of a doctor run that failed, after checking its exit status
/// agrees with them.
#[track_caller]
fn failed_lines(output: &Output) -> Vec<String> {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let failed: Vec<String> = stdout
        .lines()
        .filter(|l| l.starts_with("FAIL"))
        .map(str::to_owned)
        .collect();
    let expected = if failed.is_empty() { 0 } else { 1 };
    assert_eq!(
        output.status.code(),
        Some(expected),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    failed
}

/// Exactly one line failed, and it starts with `check` and says `words`.
#[track_caller]
fn only_failure(output: &Output, check: &str, words: &[&str]) {
    let failed = failed_lines(output);
    assert_eq!(failed.len(), 1, "one failed check: {failed:?}");
    assert!(
        failed[0].starts_with(&format!("FAIL {check}:")),
        "{failed:?}"
    );
    for word in words {
        assert!(failed[0].contains(word), "{word:?} in {failed:?}");
    }
}

#[test]
fn a_healthy_set_up_holds_every_check() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("doctor_ok");
    let output = flightstate("doctor", &db, &mb, |_| {});
    assert_eq!(failed_lines(&output), Vec::<String>::new());
    let stdout = String::from_utf8_lossy(&output.stdout);
    for check in [
        "ok   state database:",
        "ok   server version:",
        "ok   schema:",
        "ok   privileges:",
        "ok   mailbox:",
        "ok   mailbox tables:",
        "ok   mailbox statuses:",
        "ok   brokers:",
        "ok   topic:",
        "ok   station time zone: Asia/Shanghai",
        "ok   read API:",
    ] {
        assert!(stdout.contains(check), "{check:?} in {stdout}");
    }
    assert!(stdout.ends_with("all checks hold\n"), "{stdout}");
}

#[test]
fn a_wrong_mailbox_password_fails_the_mailbox_line_and_is_not_printed() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("doctor_pw");
    let url = mb
        .url()
        .replacen("mysql://root@", "mysql://root:no-such-Secret@", 1);
    let output = flightstate("doctor", &db, &mb, |c| {
        c.env("FLIGHTSTATE_MAILBOX_URL", &url);
    });
    only_failure(&output, "mailbox", &["cannot reach", "mailbox.url"]);
    for stream in [&output.stdout, &output.stderr] {
        assert!(
            !String::from_utf8_lossy(stream).contains("no-such-Secret"),
            "the password is never printed"
        );
    }
}

#[test]
fn a_mailbox_table_without_a_column_is_named() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("doctor_col");
    mb.conn()
        .query_drop("ALTER TABLE cminmsgs DROP COLUMN CMINMSGS_SUBSYSTEM_TYPE")
        .expect("drop a column");
    let output = flightstate("doctor", &db, &mb, |_| {});
    only_failure(
        &output,
        "mailbox tables",
        &["CMINMSGS has no column CMINMSGS_SUBSYSTEM_TYPE"],
    );
}

#[test]
fn rows_with_other_statuses_than_the_configured_ones_are_named() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("doctor_status");
    let id = mb.insert(b"<MSG/>");
    mb.conn()
        .exec_drop(
            "UPDATE cminmsgs SET CMINMSGS_STATUS = 'NEW' WHERE CMINMSGS_ID = ?",
            (id,),
        )
        .expect("a status of another site");
    let output = flightstate("doctor", &db, &mb, |_| {});
    only_failure(&output, "mailbox statuses", &["mailbox.pending_status"]);
}

/// Reverts the newest migration, as a database one release behind has it.
fn one_migration_behind(db: &TestDatabase) {
    db.connect()
        .revert_last_migration(MIGRATIONS)
        .expect("revert the newest migration");
}

#[test]
fn a_schema_one_migration_behind_fails_the_schema_line() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("doctor_schema");
    one_migration_behind(&db);
    let output = flightstate("doctor", &db, &mb, |_| {});
    only_failure(
        &output,
        "schema",
        &["behind", "1 migration(s) to apply", "flightstate migrate"],
    );
}

#[test]
fn an_unreachable_broker_fails_the_brokers_line() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("doctor_kafka");
    let output = flightstate("doctor", &db, &mb, |c| {
        c.env(
            "FLIGHTSTATE_KAFKA_BROKERS",
            format!("127.0.0.1:{}", free_port()),
        );
    });
    only_failure(&output, "brokers", &["no answer from kafka at 127.0.0.1:"]);
}

#[test]
fn a_taken_api_port_fails_the_read_api_line() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("doctor_port");
    let taken = TcpListener::bind("127.0.0.1:0").expect("listen");
    let addr = taken.local_addr().expect("address");
    let output = flightstate("doctor", &db, &mb, |c| {
        c.env("FLIGHTSTATE_API_BIND", addr.to_string());
    });
    only_failure(&output, "read API", &[&addr.to_string()]);
}

#[test]
fn an_unset_station_zone_is_a_warning_not_a_failure() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("doctor_zone");
    let output = flightstate("doctor", &db, &mb, |c| {
        c.env_remove("FLIGHTSTATE_STATION_TIME_ZONE");
    });
    assert_eq!(failed_lines(&output), Vec::<String>::new());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("warn station time zone: `station.time_zone` is not set"),
        "{stdout}"
    );
}

#[test]
fn a_schema_behind_is_refused_at_start_then_accepted_after_migrate() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("doctor_start");
    one_migration_behind(&db);
    let levels: Vec<String> = {
        #[derive(diesel::QueryableByName)]
        struct Version {
            #[diesel(sql_type = diesel::sql_types::Text)]
            version: String,
        }
        diesel::sql_query("SELECT version FROM __diesel_schema_migrations ORDER BY version")
            .load::<Version>(&mut db.connect())
            .expect("the history")
            .into_iter()
            .map(|v| v.version)
            .collect()
    };
    let newest_applied = levels.last().expect("migrations applied").clone();
    for subcommand in ["run", "pump", "dispatch", "serve"] {
        let output = flightstate(subcommand, &db, &mb, |_| {});
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{subcommand}: {stderr}");
        assert!(
            stderr.contains("schema is behind this binary")
                && stderr.contains(&format!("it is at {newest_applied}"))
                && stderr.contains("run `flightstate migrate`"),
            "{subcommand}: {stderr}"
        );
    }
    let migrated = flightstate("migrate", &db, &mb, |_| {});
    assert!(migrated.status.success(), "migrate: {migrated:?}");
    let dispatched = flightstate("dispatch", &db, &mb, |c| {
        c.arg("--until-idle");
    });
    assert!(
        dispatched.status.success(),
        "dispatch --until-idle after migrate: {}",
        String::from_utf8_lossy(&dispatched.stderr)
    );
}

#[test]
fn a_schema_ahead_of_the_binary_fails_the_schema_line() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("doctor_ahead");
    // A newer release migrated the database: its history holds a migration
    // this binary does not carry.
    diesel::sql_query("INSERT INTO __diesel_schema_migrations (version) VALUES ($1)")
        .bind::<diesel::sql_types::Text, _>(NEWER_RELEASE)
        .execute(&mut db.connect())
        .expect("record a newer release's migration");
    let output = flightstate("doctor", &db, &mb, |_| {});
    only_failure(
        &output,
        "schema",
        &["ahead", NEWER_RELEASE, "`migrate` never goes back"],
    );
}

/// A migration version no release has yet.
const NEWER_RELEASE: &str = "99991231000000";

/// A login role of the test's own on the server (trust authentication, as
/// every test connection), dropped with the guard after the grants it was
/// given in `db` are revoked.
struct Role {
    name: String,
}

impl Role {
    fn create(tag: &str) -> Role {
        let name = format!("fs_{tag}_{}", std::process::id());
        // Test role names, like test database names, are formatted.
        diesel::connection::SimpleConnection::batch_execute(
            &mut common::admin_connection(),
            &format!("DROP ROLE IF EXISTS {name}; CREATE ROLE {name} LOGIN"),
        )
        .expect("create a role");
        Role { name }
    }

    /// `db`'s URL, connecting as this role.
    fn url(&self, db: &TestDatabase) -> String {
        let (scheme, rest) = db.url().split_once("://").expect("a URL");
        let (_, host) = rest.split_once('@').expect("a user in the URL");
        format!("{scheme}://{}@{host}", self.name)
    }
}

impl Drop for Role {
    fn drop(&mut self) {
        let _ = diesel::connection::SimpleConnection::batch_execute(
            &mut common::admin_connection(),
            &format!("DROP ROLE IF EXISTS {}", self.name),
        );
    }
}

#[test]
fn a_table_the_user_cannot_delete_from_fails_the_privileges_line() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("doctor_grant");
    let role = Role::create("doctor_grant");
    // A DBA granted the pipeline's user everything but DELETE on one table:
    // the pipeline replaces a flight's gates by a delete-insert, and would
    // fail there at the first message.
    diesel::connection::SimpleConnection::batch_execute(
        &mut db.connect(),
        &format!(
            "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {r}; \
             GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {r}; \
             REVOKE DELETE ON flight_gate FROM {r}",
            r = role.name
        ),
    )
    .expect("grant all but one privilege");
    let url = role.url(&db);
    let output = flightstate("doctor", &db, &mb, |c| {
        c.env("FLIGHTSTATE_DATABASE_URL", &url);
    });
    only_failure(
        &output,
        "privileges",
        &["FLIGHT_GATE", "or grant them to this user"],
    );
    let failed = failed_lines(&output);
    assert!(
        !failed[0].contains("FLIGHT_SCHD"),
        "only the table short of a privilege is named: {failed:?}"
    );
    // The grants go with the database, before the role.
    drop(db);
    drop(role);
}

#[test]
fn a_missing_topic_fails_its_line_when_the_dispatcher_may_not_create_it() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("doctor_topic");
    let stamp = std::process::id();
    let (state, change) = (
        format!("fs-doctor-absent-{stamp}.state"),
        format!("fs-doctor-absent-{stamp}.change"),
    );
    let output = flightstate("doctor", &db, &mb, |c| {
        c.env("FLIGHTSTATE_KAFKA_CREATE_TOPICS", "false")
            .env("FLIGHTSTATE_KAFKA_STATE_TOPIC", &state)
            .env("FLIGHTSTATE_KAFKA_CHANGE_TOPIC", &change);
    });
    let failed = failed_lines(&output);
    assert_eq!(failed.len(), 2, "one line per missing topic: {failed:?}");
    for (line, topic) in failed.iter().zip([&state, &change]) {
        assert!(
            line.starts_with(&format!("FAIL topic: {topic} does not exist"))
                && line.contains("`kafka.create_topics` is off"),
            "{failed:?}"
        );
    }
}
