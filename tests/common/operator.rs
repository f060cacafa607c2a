//! An operator's command (`flightstate dead`, `flightstate replay`, …) run
//! as a child process on a test's state database and mailbox, and its
//! output checked.

use std::path::Path;
use std::process::{Command, Output};

/// `flightstate SUBCOMMAND` (the binary of this test run) on the state
/// database at `db_url` and the mailbox at `mailbox_url`, read with the
/// tests' site's day element, as operator `$USER=night-shift`; the caller
/// adds the arguments and runs it.
pub fn operator_command(subcommand: &str, db_url: &str, mailbox_url: &str) -> Command {
    operator_command_of(
        Path::new(env!("CARGO_BIN_EXE_flightstate")),
        subcommand,
        db_url,
        mailbox_url,
    )
}

/// Like [`operator_command`], with the flightstate binary at `program`
/// (the release build's, say).
pub fn operator_command_of(
    program: &Path,
    subcommand: &str,
    db_url: &str,
    mailbox_url: &str,
) -> Command {
    let mut command = super::child::flightstate_at(program);
    command
        .arg(subcommand)
        .env("FLIGHTSTATE_DATABASE_URL", db_url)
        .env("FLIGHTSTATE_MAILBOX_URL", mailbox_url)
        .env(
            "FLIGHTSTATE_PROTOCOL_OPERATION_DAY_ELEMENT",
            super::sis::DAY_ELEMENT,
        )
        .env("USER", "night-shift")
        .env("RUST_LOG", "warn");
    command
}

/// Stdout of `output`, which must have exited with `code` (else both
/// streams are shown).
#[track_caller]
pub fn stdout_of(output: &Output, code: i32) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(
        output.status.code(),
        Some(code),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Everything `out` printed, stdout then stderr.
pub fn printed(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// One row of the operator's record (`OPERATOR_ACTION`) as the tests compare
/// it: who, via, action, message, day, result.
pub type ActionRow = (
    String,
    String,
    String,
    Option<i64>,
    Option<chrono::NaiveDate>,
    String,
);

#[derive(diesel::QueryableByName)]
struct ActionLine {
    #[diesel(sql_type = diesel::sql_types::Text)]
    taken_by: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    via: String,
    #[diesel(sql_type = diesel::sql_types::Text)]
    action: String,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::BigInt>)]
    message_id: Option<i64>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Date>)]
    operation_day: Option<chrono::NaiveDate>,
    #[diesel(sql_type = diesel::sql_types::Text)]
    result: String,
}

/// The operator's record, oldest first.
pub fn operator_actions(conn: &mut diesel::PgConnection) -> Vec<ActionRow> {
    use diesel::RunQueryDsl;
    let rows: Vec<ActionLine> = diesel::sql_query(
        "SELECT taken_by, via, action, message_id, operation_day, result \
         FROM operator_action ORDER BY action_id",
    )
    .load(conn)
    .expect("read OPERATOR_ACTION");
    rows.into_iter()
        .map(|r| {
            (
                r.taken_by,
                r.via,
                r.action,
                r.message_id,
                r.operation_day,
                r.result,
            )
        })
        .collect()
}

/// The operator's record's row as [`operator_actions`] reads it, done via
/// the command line.
pub fn cli_action(
    by: &str,
    action: &str,
    message_id: Option<i64>,
    day: Option<chrono::NaiveDate>,
    result: &str,
) -> ActionRow {
    (
        by.to_owned(),
        "CLI".to_owned(),
        action.to_owned(),
        message_id,
        day,
        result.to_owned(),
    )
}
