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
