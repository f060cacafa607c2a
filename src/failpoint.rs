//! Named failure points: places in the pipeline where a test can make the
//! process fail on cue — return an error (to prove a rollback) or abort (to
//! prove crash recovery).
//!
//! Compiled only with the cargo feature `failpoints`; without it
//! [`failpoint!`](crate::failpoint!) expands to nothing, so production
//! builds carry no trace of them. A point is armed either for the current
//! thread ([`arm`], in-process tests) or for the whole process through the
//! environment variable `FLIGHTSTATE_FAILPOINTS=name=abort,other=error`
//! (child-process crash tests; `name=park` for the freeze tests).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;

/// What an armed failure point does when reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Returns [`Injected`] from the point, as a fault of the infrastructure
    /// would.
    Error,
    /// Returns [`Injected`] with the kind `Conflict`, as a lost CAS would.
    Conflict,
    /// Ends the process at once, without unwinding or running destructors,
    /// as a power cut would.
    Abort,
    /// Says so on stderr, then kills the process with SIGKILL, as an
    /// operator's `kill -9` or the OOM killer would: nothing of the process
    /// runs after the line.
    Kill,
    /// Says so on stderr (`failpoint `name`: parked`), then waits where it
    /// is until the process was stopped and continued (`SIGSTOP`,
    /// `SIGCONT`), and goes on: a test freezes the process at that place,
    /// with whatever it holds there. A stop shows as one short sleep that
    /// took far longer. Parks once per process (a later hit goes on), and at
    /// most [`PARK_LIMIT`].
    Park,
}

/// The longest a [`Action::Park`] waits for the stop and the continue.
pub const PARK_LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

/// The error a failure point returns.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("failure injected at failpoint `{name}`")]
pub struct Injected {
    /// The point.
    pub name: &'static str,
    /// Error or Conflict.
    pub action: Action,
}

thread_local! {
    static ARMED: RefCell<HashMap<&'static str, (Action, u32)>> = RefCell::new(HashMap::new());
    static FIRED: RefCell<HashMap<&'static str, u32>> = RefCell::new(HashMap::new());
}

fn from_environment() -> &'static HashMap<String, Action> {
    static POINTS: OnceLock<HashMap<String, Action>> = OnceLock::new();
    POINTS.get_or_init(|| {
        let Ok(spec) = std::env::var("FLIGHTSTATE_FAILPOINTS") else {
            return HashMap::new();
        };
        spec.split(',')
            .filter_map(|item| item.split_once('='))
            .filter_map(|(name, action)| {
                let action = match action.trim() {
                    "abort" => Action::Abort,
                    "kill" => Action::Kill,
                    "error" => Action::Error,
                    "conflict" => Action::Conflict,
                    "park" => Action::Park,
                    _ => return None,
                };
                Some((name.trim().to_owned(), action))
            })
            .collect()
    })
}

/// Arms `name` on the current thread for its next `times` hits.
pub fn arm(name: &'static str, action: Action, times: u32) {
    ARMED.with(|armed| armed.borrow_mut().insert(name, (action, times)));
}

/// How often `name` did what it was armed to do on the current thread: a
/// test that arms a point asserts that it fired, so that it cannot pass
/// without its fault.
pub fn fired(name: &'static str) -> u32 {
    FIRED.with(|fired| fired.borrow().get(name).copied().unwrap_or(0))
}

/// Disarms every point of the current thread.
pub fn disarm_all() {
    ARMED.with(|armed| armed.borrow_mut().clear());
}

/// Reached a point: does what it is armed to do.
///
/// # Errors
///
/// [`Injected`] when the point is armed with `Error` or `Conflict`.
pub fn hit(name: &'static str) -> Result<(), Injected> {
    let on_thread = ARMED.with(|armed| {
        let mut armed = armed.borrow_mut();
        let entry = armed.get_mut(name)?;
        let action = entry.0;
        entry.1 = entry.1.saturating_sub(1);
        if entry.1 == 0 {
            armed.remove(name);
        }
        Some(action)
    });
    if on_thread.is_some() {
        FIRED.with(|fired| *fired.borrow_mut().entry(name).or_default() += 1);
    }
    match on_thread.or_else(|| from_environment().get(name).copied()) {
        None => Ok(()),
        Some(Action::Abort) => {
            eprintln!("flightstate: failpoint `{name}`: aborting");
            std::process::abort()
        }
        Some(Action::Kill) => {
            eprintln!("flightstate: failpoint `{name}`: killed");
            // SAFETY: kill(2) on our own pid with a valid signal number.
            unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
            // SIGKILL cannot be caught; it lands before kill(2) returns.
            std::process::abort()
        }
        Some(Action::Park) => {
            park(name);
            Ok(())
        }
        Some(action) => Err(Injected { name, action }),
    }
}

/// [`Action::Park`] at `name`.
fn park(name: &'static str) {
    use std::time::{Duration, Instant};
    static PARKED: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    {
        let mut parked = PARKED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if parked.contains(&name) {
            return;
        }
        parked.push(name);
    }
    eprintln!("flightstate: failpoint `{name}`: parked");
    let start = Instant::now();
    // 20 ms sleeps: one that takes a second or more was a stop (a loaded
    // machine delays a sleep by milliseconds, not by a second).
    while start.elapsed() < PARK_LIMIT {
        let before = Instant::now();
        std::thread::sleep(Duration::from_millis(20));
        if before.elapsed() >= Duration::from_secs(1) {
            eprintln!("flightstate: failpoint `{name}`: continued");
            return;
        }
    }
    eprintln!("flightstate: failpoint `{name}`: not stopped within the park limit; going on");
}

/// Marks a failure point; `?` applies to the injected error, so the
/// enclosing function's error type needs `From<Injected>`.
#[macro_export]
macro_rules! failpoint {
    ($name:literal) => {
        $crate::failpoint::hit($name)?
    };
}
