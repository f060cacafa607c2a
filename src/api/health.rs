//! `GET /healthz`: the three servers the pipeline needs — state database,
//! mailbox, Kafka broker — each asked one cheap question on its own thread
//! and given at most the check timeout to answer, so a server that hangs
//! makes the check fail on time instead of hanging the probe. A server the
//! process is not configured to use is reported as such, never as down.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;

use crate::kafka::KafkaClient;
use crate::mailbox::Mailbox;
use crate::store::{ReadOps, Store};

/// The answer of one server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Check {
    /// `state_db`, `mailbox` or `broker`.
    pub name: &'static str,
    /// Whether the process uses that server.
    pub configured: bool,
    /// Whether it answered in time.
    pub ok: bool,
    /// Why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The answers of all three.
#[derive(Clone, Debug, Serialize)]
pub struct Health {
    /// `ok` or `down`.
    pub status: &'static str,
    /// The servers that did not answer.
    pub down: Vec<&'static str>,
    /// Each server's answer.
    pub checks: Vec<Check>,
}

impl Health {
    /// Whether every configured server answered.
    pub fn ok(&self) -> bool {
        self.down.is_empty()
    }
}

/// Checks of one server that may still be running, unanswered, at once. A
/// hung server keeps each check's thread until the server's own timeouts
/// end it; past this many, a probe is answered at once without a thread, so
/// a monitor polling a hung server never piles up threads.
const MAX_UNANSWERED: usize = 4;

/// How many checks of each server are running now.
static RUNNING: Mutex<Vec<(&'static str, usize)>> = Mutex::new(Vec::new());

/// One running check of a server, counted in [`RUNNING`] until dropped
/// (also when its question panics).
struct Running(&'static str);

impl Running {
    /// Counts a new check of `name`, unless [`MAX_UNANSWERED`] are running.
    fn start(name: &'static str) -> Option<Running> {
        let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        let index = match running.iter().position(|(n, _)| *n == name) {
            Some(index) => index,
            None => {
                running.push((name, 0));
                running.len() - 1
            }
        };
        if running[index].1 >= MAX_UNANSWERED {
            return None;
        }
        running[index].1 += 1;
        Some(Running(name))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(entry) = running.iter_mut().find(|(n, _)| *n == self.0) {
            entry.1 = entry.1.saturating_sub(1);
        }
    }
}

/// Runs `question` on its own thread and waits at most `timeout` for it.
fn within<F>(name: &'static str, timeout: Duration, question: F) -> Check
where
    F: FnOnce() -> Result<(), String> + Send + 'static,
{
    let answer = match Running::start(name) {
        None => Err(format!(
            "{MAX_UNANSWERED} earlier checks have not answered yet"
        )),
        Some(running) => ask(name, timeout, running, question),
    };
    Check {
        name,
        configured: true,
        ok: answer.is_ok(),
        error: answer.err(),
    }
}

/// The answer of `question`, asked on a thread that holds `running`.
fn ask<F>(
    name: &'static str,
    timeout: Duration,
    running: Running,
    question: F,
) -> Result<(), String>
where
    F: FnOnce() -> Result<(), String> + Send + 'static,
{
    let (tx, rx) = mpsc::sync_channel(1);
    let spawned = std::thread::Builder::new()
        .name(format!("healthz-{name}"))
        .spawn(move || {
            let _running = running;
            // The receiver is gone when the answer came too late.
            let _ = tx.send(question());
        });
    match spawned {
        Err(e) => Err(format!("cannot start the check: {e}")),
        Ok(_) => match rx.recv_timeout(timeout) {
            Ok(answer) => answer,
            Err(_) => Err(format!("no answer within {} ms", timeout.as_millis())),
        },
    }
}

fn unconfigured(name: &'static str) -> Check {
    Check {
        name,
        configured: false,
        ok: true,
        error: None,
    }
}

/// Asks the three servers, side by side.
pub fn check<S: Store + Clone>(
    store: &S,
    mailbox: Option<&Arc<Mailbox>>,
    kafka: Option<&KafkaClient>,
    timeout: Duration,
) -> Health {
    let state_store = store.clone();
    let state = within("state_db", timeout, move || {
        state_store
            .transaction(|tx| {
                tx.set_read_only_snapshot()?;
                tx.pipeline_lease()
            })
            .map(drop)
            .map_err(|e: crate::store::StoreError| format!("{e:#}"))
    });
    let mailbox = match mailbox {
        None => unconfigured("mailbox"),
        Some(mailbox) => {
            let mailbox = Arc::clone(mailbox);
            within("mailbox", timeout, move || {
                mailbox.backlog().map(drop).map_err(|e| format!("{e:#}"))
            })
        }
    };
    let broker = match kafka {
        None => unconfigured("broker"),
        Some(kafka) => {
            let kafka = kafka.clone();
            within("broker", timeout, move || {
                kafka
                    .metadata(None, timeout)
                    .map(drop)
                    .map_err(|e| crate::failure::Causes(&e).to_string())
            })
        }
    };
    let checks = vec![state, mailbox, broker];
    let down: Vec<&'static str> = checks.iter().filter(|c| !c.ok).map(|c| c.name).collect();
    Health {
        status: if down.is_empty() { "ok" } else { "down" },
        down,
        checks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server that hangs holds at most [`MAX_UNANSWERED`] threads: the
    /// checks past them are answered at once, and a check runs again once
    /// the hung ones end. (An in-process question stands for the server:
    /// the bound is this module's, whatever hangs.)
    #[test]
    fn a_hung_server_holds_a_bounded_number_of_checks() {
        let (release, hung) = mpsc::channel::<()>();
        let hung = Arc::new(Mutex::new(hung));
        let hang = || {
            let hung = Arc::clone(&hung);
            move || {
                let _ = hung.lock().map(|h| h.recv());
                Ok(())
            }
        };
        let timeout = Duration::from_millis(20);
        for _ in 0..MAX_UNANSWERED {
            let check = within("test-hung", timeout, hang());
            assert_eq!(check.error.as_deref(), Some("no answer within 20 ms"));
        }
        let refused = within("test-hung", timeout, || Ok(()));
        assert!(!refused.ok);
        assert_eq!(
            refused.error.as_deref(),
            Some("4 earlier checks have not answered yet")
        );
        // The hung checks end: checks run again.
        for _ in 0..MAX_UNANSWERED {
            release.send(()).expect("a hung check waits");
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let check = within("test-hung", Duration::from_secs(1), || Ok(()));
            if check.ok {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "{check:?}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
