//! The state of the dispatcher's link to Kafka, shared by every lane's
//! producer, so that an outage is logged once with its cause, not once per
//! lane, per reconnect attempt or per failed batch.
//!
//! Three places hear of the same outage: librdkafka's own log, the client's
//! error callback and the lanes' delivery reports. The first of them to
//! report a fault while the link is known good logs it at `warn`; the rest,
//! until a delivery succeeds again, log at `debug`. The recovery is logged
//! once at `info`, and only of an outage that was logged at `warn`: a fault
//! in the quiet time after a replacement belongs to the incident already
//! told, and so does its end. A producer replaced during an outage is
//! logged once too.
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
    /// How the link is secured (`KafkaClient::security`), for messages.
    security: String,
}

#[derive(Debug, Default)]
struct State {
    /// Since when, and why, deliveries fail; `None` while they succeed.
    down: Option<(Instant, String)>,
    /// Whether the outage in `down` was logged at `warn` (its end is then
    /// logged at `info`).
    announced: bool,
    /// When deliveries last succeeded again after an outage. A fault of
    /// messages sent before then (another lane's pass still waiting out
    /// the outage) belongs to that outage: it is not news.
    up_since: Option<Instant>,
    /// Whether a producer was replaced during this outage (logged once).
    replaced: bool,
    /// Whether a broker's refusal of the client was told during this
    /// outage (logged once, at `error`).
    refusal_told: bool,
    /// When a producer was last replaced. The other lanes' producers follow
    /// within moments, and a broker may fence a fresh producer once more
    /// while the lanes settle: faults and replacements in the quiet time
    /// after one belong to the same incident and are not news.
    last_replacement: Option<Instant>,
}

/// How long after a replacement its incident is still going on.
const QUIET_AFTER_REPLACEMENT: std::time::Duration = std::time::Duration::from_secs(30);

impl State {
    /// Whether a fault of messages sent at `sent` is the tail of an outage
    /// already over.
    fn stale(&self, sent: Instant) -> bool {
        self.down.is_none() && self.up_since.is_some_and(|up| sent < up)
    }

    /// Whether a producer was replaced a moment ago.
    fn settling(&self) -> bool {
        self.last_replacement
            .is_some_and(|at| at.elapsed() < QUIET_AFTER_REPLACEMENT)
    }
}

impl Link {
    /// The link of producers secured as `security` says.
    pub(crate) fn new(security: String) -> Link {
        Link {
            security,
            ..Link::default()
        }
    }

    /// How the link is secured.
    pub(crate) fn security(&self) -> &str {
        &self.security
    }

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
        state.announced = !state.settling();
        state.announced
    }

    /// Records a confirmed delivery; logs the recovery after an outage.
    /// Returns whether the recovery is news (logged at `info`): the end of
    /// an outage that was logged at `warn`.
    pub(crate) fn delivered(&self) -> bool {
        if !self.down.load(Ordering::Relaxed) {
            return false;
        }
        let mut state = self.state();
        self.down.store(false, Ordering::SeqCst);
        let Some((since, cause)) = state.down.take() else {
            return false;
        };
        state.replaced = false;
        state.refusal_told = false;
        state.up_since = Some(Instant::now());
        let announced = std::mem::take(&mut state.announced);
        drop(state);
        let down_for_ms = u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX);
        if announced {
            tracing::info!(down_for_ms, cause, "kafka deliveries succeed again");
        } else {
            tracing::debug!(down_for_ms, cause, "kafka deliveries succeed again");
        }
        announced
    }

    /// Records a broker's refusal of the client (credentials, TLS): a
    /// fault like any other, and news once per outage even when the outage
    /// was told already, since it says what a person must fix. Returns
    /// whether it is news (logged at `error`).
    pub(crate) fn refused(&self, cause: &str) -> bool {
        let mut state = self.state();
        if state.down.is_none() {
            state.down = Some((Instant::now(), cause.to_owned()));
            self.down.store(true, Ordering::SeqCst);
            state.announced = true;
        }
        !std::mem::replace(&mut state.refusal_told, true)
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
        let settling = state.settling();
        let news = !std::mem::replace(&mut state.replaced, true) && !settling;
        if state.down.is_none() {
            state.down = Some((Instant::now(), cause.to_owned()));
            self.down.store(true, Ordering::SeqCst);
            state.announced = news;
        }
        state.last_replacement = Some(Instant::now());
        news
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
        assert!(link.delivered(), "the end of an outage told at warn");
        assert!(!link.delivered(), "already up");
        // Another lane's messages of the same outage, reported late.
        assert!(!link.failed("message timed out", before));
        assert!(!link.replaced("producer fenced", before));
        // Moments after a replacement, a fault of the lanes still settling
        // (a broker may fence a fresh producer once more) is the same
        // incident.
        let after = Instant::now();
        assert!(!link.failed("producer fenced", after));
        assert!(!link.replaced("producer fenced", after));
        assert!(!link.delivered(), "the end of a fault not told is not news");
        // Once the quiet time is over, an outage is news again.
        link.state().last_replacement = Instant::now().checked_sub(QUIET_AFTER_REPLACEMENT * 2);
        let later = Instant::now();
        assert!(link.failed("all brokers down", later));
        assert!(link.replaced("producer fenced", later));
        assert!(link.delivered());
    }

    #[test]
    fn a_refusal_is_news_once_per_outage_even_after_its_warning() {
        let link = Link::new("SASL_SSL, PLAIN as fs".to_owned());
        assert!(link.failed("all brokers down", Instant::now()));
        assert!(link.refused("authentication failed"));
        assert!(!link.refused("authentication failed"));
        assert!(link.delivered(), "the outage was told");
        assert!(link.refused("authentication failed"), "a new outage");
        assert_eq!(link.security(), "SASL_SSL, PLAIN as fs");
    }
}
