//! The `flightstate` binary as an operator runs it: `--help`, `parse` (JSON
//! or one rejection line with exit 65), `migrate` against a real
//! PostgreSQL database, and `enqueue` refusing a message the MariaDB
//! mailbox cannot hold.

mod common;
#[path = "helpers/pumping/mod.rs"]
mod pumping;

use std::process::Output;

use common::TestDatabase;

fn flightstate(args: &[&str], envs: &[(&str, &str)]) -> Output {
    let mut command = common::child::flightstate_at(std::path::Path::new(common::child::BIN));
    command.args(args);
    for (key, value) in envs {
        command.env(key, value);
    }
    command.output().expect("run the flightstate binary")
}

fn message(name: &str) -> String {
    format!("{}/tests/messages/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn help_lists_the_subcommands() {
    let out = flightstate(&["--help"], &[]);
    assert!(out.status.success());
    let help = text(&out.stdout);
    for subcommand in ["apply", "migrate", "parse", "serve", "sql", "status"] {
        assert!(
            help.contains(subcommand),
            "{subcommand} missing from:\n{help}"
        );
    }
}

#[test]
fn parse_prints_json_of_a_good_message() {
    let out = flightstate(&["parse", &message("schd_dnld_turnaround.xml")], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(json["meta"]["TYPE"], "SCHD");
    assert_eq!(json["body"]["subtype"], "DNLD");
}

#[test]
fn parse_rejects_with_one_line_and_exit_65() {
    let out = flightstate(
        &[
            "parse",
            &message("flop_botm_value.xml"),
            &message("not_well_formed.xml"),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(65));
    let stderr = text(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].contains("not_well_formed.xml: rejected: "),
        "{stderr}"
    );
    // The good file before it is still printed.
    assert!(serde_json::from_slice::<serde_json::Value>(&out.stdout).is_ok());
}

#[test]
fn parse_honours_the_configured_size_limit() {
    let out = flightstate(
        &["parse", &message("schd_dnld_turnaround.xml")],
        &[("FLIGHTSTATE_PROTOCOL_MAX_MESSAGE_BYTES", "1024")],
    );
    assert_eq!(out.status.code(), Some(65));
    assert!(text(&out.stderr).contains("1024"), "{}", text(&out.stderr));
}

#[test]
fn migrate_creates_the_schema_and_then_does_nothing() {
    let db = TestDatabase::empty();
    let env = [("FLIGHTSTATE_DATABASE_URL", db.url())];
    let first = flightstate(&["migrate"], &env);
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert!(
        text(&first.stderr).contains("applied"),
        "{}",
        text(&first.stderr)
    );
    let second = flightstate(&["migrate"], &env);
    assert!(second.status.success(), "{}", text(&second.stderr));
    assert!(
        text(&second.stderr).contains("up to date"),
        "{}",
        text(&second.stderr)
    );
    // The log went to a pipe, not a terminal: no colour escape sequences.
    for out in [&first, &second] {
        assert!(
            !out.stderr.contains(&0x1b),
            "escape sequences in a log written to a pipe: {:?}",
            text(&out.stderr)
        );
    }
}

#[test]
fn migrate_without_a_database_url_names_the_setting() {
    let out = flightstate(&["migrate"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("FLIGHTSTATE_DATABASE_URL"),
        "{}",
        text(&out.stderr)
    );
}

/// Each statement the `--dialect` listing must hold: the line naming it,
/// then its text as the library runs it (the text itself is pinned by
/// `sql_statements.rs`, `oracle_sql.rs` and `mailbox_statements.rs`).
fn catalogued(dialect: &str) -> Vec<(String, String)> {
    let files = |dir: &str, all: &[(&str, &str)]| -> Vec<(String, String)> {
        all.iter()
            .map(|(name, text)| (format!("-- file: {dir}/{name}.sql"), (*text).to_owned()))
            .collect()
    };
    match dialect {
        "pg" => {
            let mut all = files("sql/pg", flightstate::store::pg::statements());
            all.extend(
                flightstate::store::pg::copy_statements()
                    .into_iter()
                    .map(|(op, text)| (format!("-- built: {op}"), text)),
            );
            all
        }
        #[cfg(feature = "oracle")]
        "oracle" => files("sql/oracle", flightstate::store::oracle::statements()),
        "mailbox" => files("sql/mailbox", flightstate::mailbox::statements()),
        _ => Vec::new(),
    }
}

#[test]
fn sql_prints_every_statement_of_every_database_grouped() {
    let out = flightstate(&["sql"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listing = text(&out.stdout);
    let mut expected = 0;
    for dialect in ["pg", "oracle", "mailbox"] {
        let one = flightstate(&["sql", "--dialect", dialect], &[]);
        let statements = catalogued(dialect);
        if statements.is_empty() {
            assert!(!one.status.success(), "{dialect} is not in this build");
            continue;
        }
        assert!(one.status.success(), "{}", text(&one.stderr));
        let one = text(&one.stdout);
        assert!(
            listing.contains(&one),
            "{dialect}: its listing is part of the whole"
        );
        for (label, statement) in &statements {
            assert!(
                one.contains(&format!("{label}\n{}\n", statement.trim_end())),
                "{label} missing from --dialect {dialect}"
            );
        }
        expected += statements.len();
    }
    // The contents, pinned: every statement the binary can run, by database
    // and source, and nothing else.
    let contents: Vec<&str> = listing
        .lines()
        .filter(|l| {
            l.starts_with("-- file: ")
                || l.starts_with("-- built: ")
                || (l.starts_with("-- ") && l.ends_with(" statements)"))
        })
        .collect();
    assert_eq!(
        contents
            .iter()
            .filter(|l| l.starts_with("-- file: ") || l.starts_with("-- built: "))
            .count(),
        expected,
        "a statement the listing names twice, or one no library runs"
    );
    #[cfg(all(feature = "postgres", feature = "oracle"))]
    insta::assert_snapshot!("sql_catalogue_contents", contents.join("\n"));
}

#[test]
fn apply_applies_a_snapshot_then_recognises_it() {
    let db = TestDatabase::migrated();
    let dir = std::env::temp_dir().join(format!("flightstate-cli-apply-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("dnld.xml");
    let body = common::sis::snapshot(
        common::sis::sep(9),
        vec![common::sis::flight(7, common::sis::at(9, 8, 0))],
    );
    std::fs::write(&file, body).expect("write message");
    let file = file.to_string_lossy().into_owned();
    let env = [
        ("FLIGHTSTATE_DATABASE_URL", db.url()),
        (
            "FLIGHTSTATE_PROTOCOL_OPERATION_DAY_ELEMENT",
            common::sis::DAY_ELEMENT,
        ),
    ];
    let first = flightstate(&["apply", &file, "--message-id", "41"], &env);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    let report: serde_json::Value = serde_json::from_slice(&first.stdout).expect("JSON");
    assert_eq!(report["outcome"], "snapshot");
    assert_eq!(report["created"], 1);
    assert_eq!(report["operation_day"], "2026-09-09");

    let again = flightstate(&["apply", &file, "--message-id", "41"], &env);
    assert_eq!(again.status.code(), Some(0));
    let report: serde_json::Value = serde_json::from_slice(&again.stdout).expect("JSON");
    assert_eq!(report["outcome"], "already_processed");

    std::fs::write(dir.join("bad.xml"), "<MSG>").expect("write bad message");
    let bad = dir.join("bad.xml").to_string_lossy().into_owned();
    let dead = flightstate(&["apply", &bad, "--message-id", "42"], &env);
    assert_eq!(dead.status.code(), Some(65));
    let report: serde_json::Value = serde_json::from_slice(&dead.stdout).expect("JSON");
    assert_eq!(report["outcome"], "dead");
    std::fs::remove_dir_all(&dir).ok();
}

#[cfg(feature = "oracle")]
#[test]
fn every_state_command_takes_an_oracle_url_to_the_oracle_driver() {
    // No Oracle server or client library exists here: each command must get
    // as far as the Oracle driver (and report its failure), never refuse the
    // dialect, and never echo the password.
    let env = [(
        "FLIGHTSTATE_DATABASE_URL",
        "oracle://flightstate:s3cret@127.0.0.1:1/XEPDB1",
    )];
    let file = message("flop_botm_value.xml");
    for args in [
        vec!["apply", file.as_str(), "--message-id", "1"],
        vec!["pump", "--until-idle"],
        vec!["dispatch", "--until-idle"],
        vec!["migrate"],
    ] {
        let out = flightstate(&args, &env);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.to_lowercase().contains("oracle"),
            "{args:?}: {stderr}"
        );
        assert!(
            !stderr.contains("yet"),
            "{args:?} refused the dialect: {stderr}"
        );
        assert!(
            !stderr.contains("s3cret"),
            "{args:?} printed the password: {stderr}"
        );
    }
}

#[test]
fn enqueue_refuses_a_message_larger_than_the_mailbox_column() {
    let mb = pumping::MailboxDatabase::create("cli_big");
    let dir = std::env::temp_dir().join(format!("fs_enqueue_big_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let small = dir.join("small.xml");
    std::fs::copy(message("schd_dnld_turnaround.xml"), &small).expect("copy a message");
    // 17 MiB of well-formed XML: one byte past the column's limit is enough,
    // a mebibyte more makes it plain.
    let huge = dir.join("huge.xml");
    let size = 17 * 1024 * 1024;
    let (head, tail) = ("<MSG><META><TYPE>FLOP</TYPE></META><X>", "</X></MSG>");
    let mut body = String::with_capacity(size);
    body.push_str(head);
    body.push_str(&"A".repeat(size - head.len() - tail.len()));
    body.push_str(tail);
    std::fs::write(&huge, &body).expect("write the large message");

    let out = flightstate(
        &[
            "enqueue",
            &small.display().to_string(),
            &huge.display().to_string(),
        ],
        &[("FLIGHTSTATE_MAILBOX_URL", &mb.url())],
    );
    let stderr = text(&out.stderr);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(65), "{stderr}");
    for needle in [
        huge.display().to_string(),
        size.to_string(),
        "16777215".to_owned(),
    ] {
        assert!(stderr.contains(&needle), "{needle} missing from: {stderr}");
    }
    assert!(
        mb.rows().is_empty(),
        "nothing is queued, not even the file before it"
    );
}

#[test]
fn status_prints_the_facts_of_the_status_page() {
    let db = TestDatabase::migrated();
    let out = flightstate(
        &["status", "--json"],
        &[("FLIGHTSTATE_DATABASE_URL", db.url())],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(json["state"]["lease"]["epoch"], 0);
    assert_eq!(json["state"]["lease"]["held"], false);
    assert_eq!(json["state"]["outbox"]["state_events"], 0);
    assert_eq!(json["mailbox_configured"], false);

    let out = flightstate(&["status"], &[("FLIGHTSTATE_DATABASE_URL", db.url())]);
    assert_eq!(out.status.code(), Some(0));
    let printed = text(&out.stdout);
    assert!(printed.contains("lease: not held,"), "{printed}");
    assert!(printed.contains("outbox: 0 state events"), "{printed}");

    // A state database that cannot be read: printed, and exit 1.
    let out = flightstate(
        &["status"],
        &[
            (
                "FLIGHTSTATE_DATABASE_URL",
                "postgres://postgres@127.0.0.1:1/none",
            ),
            ("FLIGHTSTATE_DATABASE_CONNECTION_TIMEOUT_SECS", "1"),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("state database: unavailable"));
}
