//! The state of the dispatcher's link to Kafka, shared by every lane's
//! producer, so that an outage is logged once with its cause, not once per
//! lane, per reconnect attempt or per failed batch.
//!
//! Three places hear of the same outage: librdkafka's own log, the client's
//! error callback and the lanes' delivery reports. The first of them to
//! report a fault while the link is known good logs it at `warn`; the rest,
//! until a delivery succeeds again, log at `debug`. The recovery is logged
//! once at `info`. A producer replaced during an outage is logged once too.
//!
//! A producer fenced by an outage is seldom alone: every lane's producer had
//! messages time out in it. The link counts replacements, and each lane
//! replaces its own producer before its next pass once another lane had to
//! ([`Link::generation`]), rather than find out by failing a pass.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

/// What the dispatcher knows of its link to Kafka.
#[derive(Debug, Default)]
pub(crate) struct Link {
    state: Mutex<State>,
    /// Whether `state.down` is set: read on every delivery report, so that
    /// a good link costs no lock.
    down: AtomicBool,
    /// How many producers were replaced because the broker refused them.
    generation: AtomicU64,
}

#[derive(Debug, Default)]
struct State {
    /// Since when, and why, deliveries fail; `None` while they succeed.
    down: Option<(Instant, String)>,
    /// When deliveries last succeeded again after an outage. A fault of
    /// messages sent before then (another lane's pass still waiting out
    /// the outage) belongs to that outage: it is not news.
    up_since: Option<Instant>,
    /// Whether a producer was replaced during this outage (logged once).
    replaced: bool,
}

impl State {
    /// Whether a fault of messages sent at `sent` is the tail of an outage
    /// already over.
    fn stale(&self, sent: Instant) -> bool {
        self.down.is_none() && self.up_since.is_some_and(|up| sent < up)
    }
}

impl Link {
    fn state(&self) -> MutexGuard<'_, State> {
        // Plain flags; a panic elsewhere cannot leave them inconsistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records a fault of messages sent at `sent` (or of the client, now);
    /// returns whether it is news (the link was good): only then does the
    /// caller log it at `warn`.
    pub(crate) fn failed(&self, cause: &str, sent: Instant) -> bool {
        let mut state = self.state();
        if state.down.is_some() || state.stale(sent) {
            return false;
        }
        state.down = Some((Instant::now(), cause.to_owned()));
        self.down.store(true, Ordering::SeqCst);
        true
    }

    /// Records a confirmed delivery; logs the recovery after an outage.
    pub(crate) fn delivered(&self) {
        if !self.down.load(Ordering::Relaxed) {
            return;
        }
        let mut state = self.state();
        self.down.store(false, Ordering::SeqCst);
        if let Some((since, cause)) = state.down.take() {
            state.replaced = false;
            state.up_since = Some(Instant::now());
            drop(state);
            tracing::info!(
                down_for_ms = u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX),
                cause,
                "kafka deliveries succeed again"
            );
        }
    }

    /// How many producers the broker refused so far: a producer created
    /// before the last of them is replaced too.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Records the replacement of a producer fenced by messages sent at
    /// `sent` (every other producer follows); returns whether it is the
    /// first of this outage (logged at `warn`; later ones at `debug`).
    pub(crate) fn replaced(&self, cause: &str, sent: Instant) -> bool {
        self.generation.fetch_add(1, Ordering::SeqCst);
        let mut state = self.state();
        if state.stale(sent) {
            return false;
        }
        if state.down.is_none() {
            state.down = Some((Instant::now(), cause.to_owned()));
            self.down.store(true, Ordering::SeqCst);
        }
        !std::mem::replace(&mut state.replaced, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outage_is_news_once_until_a_delivery_succeeds() {
        let link = Link::default();
        let before = Instant::now();
        assert!(link.failed("all brokers down", before));
        assert!(!link.failed("message timed out", before));
        assert!(link.replaced("producer fenced", before));
        assert!(!link.replaced("producer fenced", before));
        assert_eq!(link.generation(), 2);
        link.delivered();
        // Another lane's messages of the same outage, reported late.
        assert!(!link.failed("message timed out", before));
        assert!(!link.replaced("producer fenced", before));
        let after = Instant::now();
        assert!(link.failed("all brokers down", after));
        assert!(link.replaced("producer fenced", after));
    }
}
