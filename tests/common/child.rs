//! A `flightstate` subcommand run as a child process to its end, with a
//! failpoint armed to kill it (or none): the crash tests' one way to run the
//! binary.

use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

/// Runs `command` with `failpoint` armed to kill (`None`: disarmed), its
/// stderr in a log file named after `tag`; returns how it ended and what it
/// wrote on stderr.
///
/// # Panics
///
/// When it runs longer than `limit` (it is killed first).
#[track_caller]
pub fn run_to_end(
    mut command: Command,
    tag: &str,
    failpoint: Option<&str>,
    limit: Duration,
) -> (ExitStatus, String) {
    let log = std::env::temp_dir().join(format!(
        "fs_{tag}_{}_{}.log",
        std::process::id(),
        failpoint.unwrap_or("clean")
    ));
    command
        .env_remove("FLIGHTSTATE_FAILPOINTS")
        .stderr(std::fs::File::create(&log).expect("a log file"));
    if let Some(point) = failpoint {
        command.env("FLIGHTSTATE_FAILPOINTS", format!("{point}=kill"));
    }
    let mut child = command.spawn().expect("start flightstate");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for flightstate") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("flightstate ({tag}) did not finish in {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let said = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    (status, said)
}
