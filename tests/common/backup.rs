//! A database's backup and restore, as an operator makes them: `pg_dump`
//! and `pg_restore` over a database dropped and created again (the resync
//! and the lost tail are proven after one).

use std::path::PathBuf;
use std::process::Command;

use diesel::connection::SimpleConnection;

use super::{TestDatabase, admin_connection};

/// `pg_dump -Fc` of the database into a file of the test's own.
#[track_caller]
pub fn dump(db: &TestDatabase) -> PathBuf {
    let file = std::env::temp_dir().join(format!("{}.dump", db.name()));
    let status = Command::new("pg_dump")
        .args(["--format=custom", "--file"])
        .arg(&file)
        .arg(db.url())
        .status()
        .expect("run pg_dump");
    assert!(status.success(), "pg_dump failed");
    file
}

/// Drops the database and creates it again from `file`, as an operator
/// restores a backup.
#[track_caller]
pub fn restore(db: &TestDatabase, file: &PathBuf) {
    let mut admin = admin_connection();
    // Test-only SQL: the name is the test database's own.
    admin
        .batch_execute(&format!("DROP DATABASE {} WITH (FORCE)", db.name()))
        .expect("drop the database");
    admin
        .batch_execute(&format!("CREATE DATABASE {} TEMPLATE template0", db.name()))
        .expect("create the database again");
    let status = Command::new("pg_restore")
        .args(["--no-owner", "--exit-on-error", "--dbname"])
        .arg(db.url())
        .arg(file)
        .status()
        .expect("run pg_restore");
    assert!(status.success(), "pg_restore failed");
    let _ = std::fs::remove_file(file);
}
