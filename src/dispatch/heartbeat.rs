//! Heartbeats: a record on a topic of its own, every `interval`, that tells
//! a consumer how far the pipeline has come (docs/kafka.md, "Heartbeats").
//! Between 01:00 and 05:00 an airport may send nothing for an hour; without
//! a heartbeat a consumer cannot tell that quiet from a stalled pipeline.
//!
//! The dispatcher sends it, after reading the watermark, the outbox's
//! backlog and the lease in one read-only snapshot: a row leaves the outbox
//! only once the broker confirmed it, so every record of every message up to
//! the watermark is on the topics before the heartbeat that names it. A
//! stalled dispatcher sends none (its `SENT_AT` grows old); a stalled pump
//! shows in it (the lease not held, the mailbox's backlog growing older).
//! A heartbeat never holds the outbox back: one that cannot be sent is
//! logged and the next one tries again.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use chrono::NaiveDateTime;
use serde::Serialize;

use super::producer::{Outgoing, Producer};
use super::{EVENT_KIND_HEADER, SCHEMA_VERSION, SCHEMA_VERSION_HEADER, now, sleep_unless};
use crate::mailbox::{Backlog, Mailbox};
use crate::store::{OutboxBacklog, ReadOps, Store, StoreError, Watermark};

/// The `event-kind` header of a heartbeat.
pub const HEARTBEAT_KIND: &str = "HEARTBEAT";

/// Where and how often heartbeats go.
#[derive(Clone, Debug, PartialEq)]
pub struct HeartbeatSettings {
    /// The heartbeat topic (compacted: one record per station is kept).
    pub topic: String,
    /// Time between two heartbeats; zero sends none.
    pub interval: Duration,
    /// The record's key: the station (`station.home_airport`).
    pub station: String,
}

impl Default for HeartbeatSettings {
    fn default() -> Self {
        HeartbeatSettings {
            topic: "flight.heartbeat".to_owned(),
            interval: Duration::from_secs(30),
            station: "flightstate".to_owned(),
        }
    }
}

impl HeartbeatSettings {
    /// Whether heartbeats are sent at all.
    pub fn enabled(&self) -> bool {
        !self.interval.is_zero()
    }
}

/// One heartbeat's value, as the schema
/// `schema/flight-heartbeat.schema.json` names its keys: absent means
/// unknown or none, never null.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct Beat {
    /// The station the pipeline serves.
    pub station: String,
    /// When the facts were read (UTC, flightstate's clock).
    #[serde(serialize_with = "seconds")]
    pub sent_at: NaiveDateTime,
    /// The configured interval: a consumer calls a heartbeat stale after
    /// three of them.
    pub interval_secs: u64,
    /// The highest mailbox id the state database holds as applied or dead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_message_id: Option<i64>,
    /// When that message got its status (UTC).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "optional_seconds"
    )]
    pub last_applied_at: Option<NaiveDateTime>,
    /// Every change of every message up to this id is on the topics.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published_through_message_id: Option<i64>,
    /// Outbox rows (state and change) still to send.
    pub outbox_pending: i64,
    /// How long the oldest of them has waited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outbox_oldest_age_secs: Option<i64>,
    /// Mailbox rows waiting for the pump; absent when the mailbox could not
    /// be read (or none is configured).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mailbox_pending: Option<i64>,
    /// How long the oldest of them has waited, by the mailbox's clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mailbox_oldest_age_secs: Option<i64>,
    /// Whether a pump holds the lease.
    pub lease_held: bool,
}

fn seconds<S: serde::Serializer>(at: &NaiveDateTime, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&at.format("%Y-%m-%dT%H:%M:%S"))
}

fn optional_seconds<S: serde::Serializer>(
    at: &Option<NaiveDateTime>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match at {
        Some(at) => seconds(at, s),
        None => s.serialize_none(),
    }
}

/// What the state database says, from one snapshot.
struct StateReading {
    watermark: Watermark,
    outbox: OutboxBacklog,
    lease_held: bool,
}

impl Beat {
    /// The heartbeat of `settings` from what the state database and the
    /// mailbox say at `at`.
    fn of(
        settings: &HeartbeatSettings,
        state: StateReading,
        mailbox: Option<Backlog>,
        at: NaiveDateTime,
    ) -> Beat {
        let StateReading {
            watermark,
            outbox,
            lease_held,
        } = state;
        let oldest = outbox
            .state_oldest
            .into_iter()
            .chain(outbox.change_oldest)
            .min();
        Beat {
            station: settings.station.clone(),
            sent_at: at,
            interval_secs: settings.interval.as_secs(),
            last_message_id: watermark.last_message_id,
            last_applied_at: watermark.last_applied_at,
            published_through_message_id: watermark.published_through(),
            outbox_pending: outbox.state_events + outbox.change_notices,
            outbox_oldest_age_secs: oldest.map(|t| (at - t).num_seconds().max(0)),
            mailbox_pending: mailbox.map(|b| b.pending),
            mailbox_oldest_age_secs: mailbox.and_then(|b| b.oldest_age_secs),
            lease_held,
        }
    }
}

/// Reads the state database's part of a heartbeat in one read-only
/// snapshot.
fn read_state<S: Store>(store: &S, at: NaiveDateTime) -> Result<StateReading, StoreError> {
    store.transaction(|tx| {
        tx.set_read_only_snapshot()?;
        Ok(StateReading {
            watermark: tx.select_watermark()?,
            outbox: tx.outbox_backlog()?,
            lease_held: tx.pipeline_lease()?.held_at(at),
        })
    })
}

/// The dispatcher's heartbeat: its settings, its own producer (a heartbeat
/// never waits behind a lane's batch), and the mailbox whose backlog it
/// reports.
pub(super) struct Heartbeat {
    pub(super) settings: HeartbeatSettings,
    pub(super) producer: Producer,
    pub(super) mailbox: Option<Arc<Mailbox>>,
    /// Whether the last heartbeat failed: the next failure is logged at
    /// `debug`, the recovery at `info`.
    failing: bool,
}

impl Heartbeat {
    pub(super) fn new(
        settings: HeartbeatSettings,
        producer: Producer,
        mailbox: Option<Arc<Mailbox>>,
    ) -> Heartbeat {
        Heartbeat {
            settings,
            producer,
            mailbox,
            failing: false,
        }
    }

    /// Sends one heartbeat and waits for its delivery report; a failure is
    /// logged (once per spell) and returned.
    pub(super) fn beat<S: Store>(&mut self, store: &S) -> Result<Beat, String> {
        let outcome = self.try_beat(store);
        match (&outcome, self.failing) {
            (Ok(_), true) => tracing::info!(topic = %self.settings.topic, "heartbeats sent again"),
            (Err(error), false) => tracing::warn!(
                topic = %self.settings.topic,
                %error,
                "heartbeat not sent; the outbox goes on, the next heartbeat tries again"
            ),
            (Err(error), true) => tracing::debug!(%error, "heartbeat not sent"),
            (Ok(_), false) => {}
        }
        self.failing = outcome.is_err();
        outcome
    }

    fn try_beat<S: Store>(&mut self, store: &S) -> Result<Beat, String> {
        let at = now();
        let state =
            read_state(store, at).map_err(|e| format!("{:#}", crate::failure::Causes(&e)))?;
        let mailbox = match self.mailbox.as_deref().map(Mailbox::backlog) {
            Some(Ok(backlog)) => Some(backlog),
            Some(Err(e)) => {
                tracing::debug!(error = %crate::failure::Causes(&e), "heartbeat without the mailbox's backlog");
                None
            }
            None => None,
        };
        let beat = Beat::of(&self.settings, state, mailbox, at);
        let value = serde_json::to_vec(&beat).map_err(|e| e.to_string())?;
        let message = Outgoing {
            topic: self.settings.topic.clone(),
            key: Some(self.settings.station.clone()),
            value,
            headers: vec![
                (EVENT_KIND_HEADER, HEARTBEAT_KIND.to_owned()),
                (SCHEMA_VERSION_HEADER, SCHEMA_VERSION.to_owned()),
            ],
        };
        self.producer
            .replace_if_unusable()
            .map_err(|e| e.to_string())?;
        let outcome = self
            .producer
            .deliver(
                std::slice::from_ref(&message),
                Instant::now() + self.settings.interval.max(Duration::from_secs(1)),
            )
            .into_iter()
            .next();
        match outcome {
            Some(Ok(())) => Ok(beat),
            Some(Err(failure)) => Err(failure.text),
            None => Err("not produced".to_owned()),
        }
    }

    /// Sends a heartbeat every interval until one of `stop` is set, while
    /// `open` says the dispatcher dispatches.
    pub(super) fn run<S: Store>(
        &mut self,
        store: &S,
        stop: &[&AtomicBool],
        open: &dyn Fn() -> bool,
    ) {
        while !super::stopped(stop) {
            if open() {
                let _ = self.beat(store);
            }
            sleep_unless(stop, self.settings.interval);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S").expect("a time")
    }

    fn reading(lowest_pending: Option<i64>, pending: i64) -> StateReading {
        StateReading {
            watermark: Watermark {
                last_message_id: Some(40),
                last_applied_at: Some(at("2026-12-06T03:00:00")),
                lowest_pending_message_id: lowest_pending,
            },
            outbox: OutboxBacklog {
                state_events: pending,
                state_oldest: (pending > 0).then(|| at("2026-12-06T03:00:10")),
                change_notices: 0,
                change_oldest: None,
            },
            lease_held: true,
        }
    }

    #[test]
    fn an_empty_outbox_has_published_through_the_last_message() {
        let beat = Beat::of(
            &HeartbeatSettings::default(),
            reading(None, 0),
            Some(Backlog::default()),
            at("2026-12-06T03:01:00"),
        );
        let value = serde_json::to_value(&beat).expect("json");
        assert_eq!(
            value,
            serde_json::json!({
                "STATION": "flightstate",
                "SENT_AT": "2026-12-06T03:01:00",
                "INTERVAL_SECS": 30,
                "LAST_MESSAGE_ID": 40,
                "LAST_APPLIED_AT": "2026-12-06T03:00:00",
                "PUBLISHED_THROUGH_MESSAGE_ID": 40,
                "OUTBOX_PENDING": 0,
                "MAILBOX_PENDING": 0,
                "LEASE_HELD": true,
            })
        );
    }

    #[test]
    fn a_pending_row_holds_the_watermark_below_its_message() {
        let beat = Beat::of(
            &HeartbeatSettings::default(),
            reading(Some(37), 3),
            None,
            at("2026-12-06T03:01:00"),
        );
        assert_eq!(beat.published_through_message_id, Some(36));
        assert_eq!(beat.outbox_oldest_age_secs, Some(50));
        let value = serde_json::to_value(&beat).expect("json");
        assert!(value.get("MAILBOX_PENDING").is_none(), "{value}");
    }
}
