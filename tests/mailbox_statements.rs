//! Every mailbox statement (`sql/mailbox/`) is pinned by a snapshot, carries
//! the header a DBA reads, binds every value, and runs against MariaDB's
//! AODB tables (each is prepared by the server).

#[path = "helpers/pumping/mod.rs"]
mod pumping;

use flightstate::mailbox::statements;
use mysql::prelude::Queryable;

#[test]
fn every_mailbox_statement_is_pinned() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/sql/mailbox");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for (name, text) in statements() {
            insta::assert_snapshot!(*name, text.replace("\r\n", "\n"));
        }
    });
}

#[test]
fn every_mailbox_statement_documents_itself_and_binds_its_values() {
    let files: Vec<String> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/sql/mailbox"))
        .expect("sql/mailbox")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name != "aodb_mailbox.sql")
        .collect();
    assert_eq!(files.len(), statements().len(), "a file is not compiled in");
    for (name, text) in statements() {
        assert!(files.contains(&format!("{name}.sql")), "{name}");
        assert!(
            text.starts_with(&format!("-- name: {name}\n")),
            "{name}: header"
        );
        for key in ["-- binds:", "-- returns:", "-- locks:"] {
            assert!(text.contains(key), "{name}: no `{key}` line");
        }
        let body: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("--"))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(!body.contains('\''), "{name}: a quoted literal");
        assert!(!body.contains(';'), "{name}: one statement, no terminator");
    }
}

#[test]
fn every_mailbox_statement_prepares_on_mariadb() {
    let db = pumping::MailboxDatabase::create("prepare");
    let mut conn = db.conn();
    for (name, text) in statements() {
        conn.prep(*text)
            .unwrap_or_else(|e| panic!("{name} does not prepare: {e}"));
    }
}
