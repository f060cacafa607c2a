//! What a database server a test starts itself needs, whichever server it
//! is: a folder of its own under the system's temporary folder (not under
//! `CARGO_TARGET_TMPDIR`, which sits in root's home where a server running
//! as its own account cannot go), a free port, and the process, stopped
//! when the test is done.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// A folder of the test's own, removed when dropped.
pub struct Folder {
    path: PathBuf,
}

impl Folder {
    /// A new, empty folder named after `tag`, the process and a counter.
    #[track_caller]
    pub fn new(tag: &str) -> Folder {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let path = std::env::temp_dir().join(format!(
            "fs_{tag}_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        // Left by a crashed run of a process with the same id: no live
        // process owns it.
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("a folder for the test");
        Folder { path }
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Runs `command` (a server's set-up: `initdb`, `mariadb-install-db`) to
/// its end.
///
/// # Panics
///
/// When it fails, with what it printed.
#[track_caller]
pub fn set_up(mut command: Command, what: &str) {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("run {what}: {e}"));
    assert!(
        out.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The URL of `database` on 127.0.0.1:`port` (`scheme://user:password@…`),
/// with the driver's query `params` (`a=b&c=d`; empty: none).
pub fn tcp_url(
    scheme: &str,
    (user, password): (&str, &str),
    port: u16,
    database: &str,
    params: &str,
) -> String {
    let url = format!("{scheme}://{user}:{password}@127.0.0.1:{port}/{database}");
    if params.is_empty() {
        url
    } else {
        format!("{url}?{params}")
    }
}

/// A TCP port on 127.0.0.1 that nobody listened on a moment ago.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free port")
}

/// A server process the test started, stopped (with `stop_signal`, then
/// killed if it lingers) when dropped.
pub struct ServerProcess {
    child: Child,
    name: &'static str,
    log: PathBuf,
    stop_signal: libc::c_int,
}

impl ServerProcess {
    /// Starts `command`, its stdout and stderr going to the file `log`;
    /// `stop_signal` (`libc::SIGINT`, `libc::SIGTERM`) is the one that
    /// shuts it down cleanly.
    #[track_caller]
    pub fn start(
        mut command: Command,
        name: &'static str,
        log: PathBuf,
        stop_signal: libc::c_int,
    ) -> ServerProcess {
        let file = std::fs::File::create(&log).expect("the server's log file");
        command
            .stdout(file.try_clone().expect("the log file twice"))
            .stderr(file);
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("start {name}: {e}"));
        ServerProcess {
            child,
            name,
            log,
            stop_signal,
        }
    }

    /// Waits until `ready` holds, for at most a minute.
    ///
    /// # Panics
    ///
    /// When the server exits first or does not get ready in time, with
    /// its log.
    #[track_caller]
    pub fn wait_until_ready(&mut self, mut ready: impl FnMut() -> bool) {
        let start = Instant::now();
        while !ready() {
            if let Some(status) = self.child.try_wait().expect("wait for the server") {
                panic!(
                    "{} ended ({status}) before it was ready:\n{}",
                    self.name,
                    self.log()
                );
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "{} was not ready within a minute:\n{}",
                self.name,
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// What the server wrote so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // Never panic here: the test may be unwinding already.
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: `kill` only sends a signal, to our own child, which
            // has not been waited for, so the id is still its own.
            unsafe {
                libc::kill(pid, self.stop_signal);
            }
        }
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(30) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        eprintln!("warning: {} did not stop within 30 s; killed", self.name);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A password no output could hold by chance.
pub fn password() -> String {
    format!("pw-{:016x}", fastrand::u64(..))
}
