//! `flightstate` (or another program) as a child process: run to its end
//! with a failpoint armed to kill it (or none), the crash tests' one way to
//! run the binary; or left [`Running`] with its stderr read line by line as
//! it comes, each line with the moment it was read, until the test stops it
//! (SIGTERM, a clean exit asserted), kills it, or drops the guard.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The flightstate binary of this test run.
pub const BIN: &str = env!("CARGO_BIN_EXE_flightstate");

/// `flightstate` (the binary at `program`) as every test starts it: no
/// config file, so defaults and the environment only, and no state database
/// or failpoint inherited from the test's own environment; the caller names
/// the databases, adds the subcommand's arguments and runs it.
pub fn flightstate_at(program: &std::path::Path) -> Command {
    let mut command = Command::new(program);
    command
        .args(["--config", "/nonexistent/flightstate.toml"])
        .env_remove("FLIGHTSTATE_DATABASE_URL")
        .env_remove("FLIGHTSTATE_FAILPOINTS");
    command
}

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
    let status = wait_for_exit(&mut child, limit, &format!("flightstate ({tag})"));
    let said = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    (status, said)
}

/// Waits (at most `limit`) for `child` to end; returns how it ended.
///
/// # Panics
///
/// When it runs longer than `limit` (it is killed first), naming `what`.
#[track_caller]
pub fn wait_for_exit(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish in {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends SIGTERM to `child`: the graceful stop a service manager asks for.
pub fn terminate(child: &Child) {
    let pid = libc::pid_t::try_from(child.id()).expect("pid fits");
    // SAFETY: `kill` has no memory effects; the pid is our own child, not
    // yet waited for.
    unsafe {
        libc::kill(pid, libc::SIGTERM);
    }
}

/// A log line of a child as a test reads it: when it was read, and the
/// event (a JSON log line parsed, any other line as a JSON string).
pub type Logged = (Instant, serde_json::Value);

/// A child process left running, its stderr read line by line as it comes
/// (by a thread of its own, each line with the moment it was read); killed
/// with the guard if still running.
pub struct Running {
    child: Child,
    /// The process, for messages ("flightstate run").
    what: String,
    log: Arc<Mutex<Vec<(Instant, String)>>>,
    /// The thread reading the log, joined by [`Running::stop`] so that the
    /// log is whole once the process ended.
    reader: Option<JoinHandle<()>>,
}

impl Running {
    /// Starts `command` with its stderr piped to the log (stdin and stdout
    /// as the command says); `what` names the process in messages.
    #[track_caller]
    pub fn start(mut command: Command, what: &str) -> Running {
        let mut child = command
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("start {what}: {e}"));
        let stderr = child.stderr.take().expect("the child's stderr");
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&log);
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                sink.lock().expect("log").push((Instant::now(), line));
            }
        });
        Running {
            child,
            what: what.to_owned(),
            log,
            reader: Some(reader),
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process still runs.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Every line read so far, as written.
    pub fn lines(&self) -> Vec<String> {
        self.log
            .lock()
            .expect("log")
            .iter()
            .map(|(_, line)| line.clone())
            .collect()
    }

    /// The lines read so far that contain `needle`.
    pub fn lines_with(&self, needle: &str) -> Vec<String> {
        self.lines()
            .into_iter()
            .filter(|l| l.contains(needle))
            .collect()
    }

    /// The whole log so far, one line a line.
    pub fn text(&self) -> String {
        self.lines().join("\n")
    }

    /// Every line read so far as an event: a JSON log line parsed, any
    /// other line as a JSON string.
    pub fn events(&self) -> Vec<Logged> {
        self.log
            .lock()
            .expect("log")
            .iter()
            .map(|(at, line)| {
                let event = serde_json::from_str(line)
                    .unwrap_or_else(|_| serde_json::Value::String(line.clone()));
                (*at, event)
            })
            .collect()
    }

    /// Events at `WARN` or `ERROR` read in `[from, to]`.
    pub fn loud_between(&self, from: Instant, to: Instant) -> Vec<Logged> {
        self.events()
            .into_iter()
            .filter(|(at, event)| {
                *at >= from
                    && *at <= to
                    && matches!(event["level"].as_str(), Some("WARN" | "ERROR"))
            })
            .collect()
    }

    /// The first event at or after `since` whose message contains `text`.
    pub fn first_saying(&self, since: Instant, text: &str) -> Option<Logged> {
        self.events().into_iter().find(|(at, event)| {
            *at >= since
                && event["fields"]["message"]
                    .as_str()
                    .is_some_and(|m| m.contains(text))
        })
    }

    /// SIGTERM, then the exit (within `limit`), which must be a clean one;
    /// returns the whole log, read to its end.
    #[track_caller]
    pub fn stop(mut self, limit: Duration) -> Vec<Logged> {
        terminate(&self.child);
        let status = wait_for_exit(&mut self.child, limit, &self.what);
        assert!(
            status.success(),
            "{} stops cleanly: {status:?}\n{}",
            self.what,
            self.text()
        );
        if let Some(reader) = self.reader.take() {
            reader.join().expect("the log reader");
        }
        self.events()
    }

    /// SIGKILL, then the exit.
    pub fn kill(&mut self) -> ExitStatus {
        let _ = self.child.kill();
        self.child.wait().expect("wait for the killed process")
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs `flightstate <arguments>` on a terminal (util-linux `script`), on
/// the state database at `database_url`, and asserts that it succeeded and
/// that its progress bar, `verb [###…] n of n`, was drawn full with no plain
/// progress line besides; returns what the terminal showed.
#[track_caller]
pub fn on_a_terminal_draws_a_full_bar(
    database_url: &str,
    arguments: &str,
    verb: &str,
    n: usize,
) -> String {
    let command = format!(
        "FLIGHTSTATE_DATABASE_URL='{database_url}' RUST_LOG=warn {BIN} --config /nonexistent/flightstate.toml {arguments}"
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .expect("run `script` (util-linux)");
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{shown}");
    let full = format!("\r{verb} [{}] {n} of {n}\r\n", "#".repeat(30));
    assert!(shown.contains(&full), "no full bar {full:?} in {shown:?}");
    assert!(
        !shown.contains(&format!("\n{verb} {n} of {n}")),
        "no plain lines on a terminal"
    );
    shown
}
