//! `GET /healthz`: the three servers the pipeline needs — state database,
//! mailbox, Kafka broker — each asked one cheap question on its own thread
//! and given at most the check timeout to answer, so a server that hangs
//! makes the check fail on time instead of hanging the probe. A server the
//! process is not configured to use is reported as such, never as down.

use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use serde::Serialize;

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

/// Runs `question` on its own thread and waits at most `timeout` for it.
fn within<F>(name: &'static str, timeout: Duration, question: F) -> Check
where
    F: FnOnce() -> Result<(), String> + Send + 'static,
{
    let (tx, rx) = mpsc::sync_channel(1);
    let spawned = std::thread::Builder::new()
        .name(format!("healthz-{name}"))
        .spawn(move || {
            // The receiver is gone when the answer came too late.
            let _ = tx.send(question());
        });
    let answer = match spawned {
        Err(e) => Err(format!("cannot start the check: {e}")),
        Ok(_) => match rx.recv_timeout(timeout) {
            Ok(answer) => answer,
            Err(_) => Err(format!("no answer within {} ms", timeout.as_millis())),
        },
    };
    Check {
        name,
        configured: true,
        ok: answer.is_ok(),
        error: answer.err(),
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
    brokers: Option<&str>,
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
    let broker = match brokers {
        None => unconfigured("broker"),
        Some(brokers) => {
            let brokers = brokers.to_owned();
            within("broker", timeout, move || broker_answers(&brokers, timeout))
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

/// Whether a broker of `brokers` answers a metadata request.
fn broker_answers(brokers: &str, timeout: Duration) -> Result<(), String> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", brokers)
        .set("socket.timeout.ms", timeout.as_millis().max(10).to_string())
        .set("log_level", "3")
        .create()
        .map_err(|e| format!("{e}"))?;
    consumer
        .fetch_metadata(None, timeout)
        .map(drop)
        .map_err(|e| format!("{e}"))
}
