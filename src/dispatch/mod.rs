//! The Kafka dispatcher: sends the transactional outbox (`KAFKA_SCHD`,
//! `KAFKA_MSG`) to Kafka (DESIGN §5, `docs/kafka.md`).
//!
//! One pass per outbox, each in one transaction (STYLE §4.4): claim due
//! rows `FOR UPDATE SKIP LOCKED`, build the messages, produce them with an
//! idempotent producer (`acks=all`), wait for every delivery report, then
//! mark the confirmed rows sent and keep the others pending with their
//! error and a back-off computed in SQL. A crash or a rollback anywhere
//! leaves every claimed row pending, so it is sent again: delivery is at
//! least once, and consumers order a flight's messages by
//! `(FLID, STATE_VERSION, UPDATED_AT)` and dedupe notifications on the
//! `event-id` header.
//!
//! State events are coalesced per flight: the dispatcher claims every
//! pending row of a flight together, reads the flight's current state (one
//! consistent snapshot, one statement per table for the whole batch) and
//! sends it once, at its latest version; a pending tombstone goes first.
//! A flight whose row waits for its retry time is skipped whole, so that
//! nothing newer of it overtakes it.
//!
//! This module owns no SQL (the store's [`OutboxOps`] does) and never reads
//! the environment: it takes [`DispatchSettings`] and [`KafkaSettings`].

mod payload;
mod producer;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chrono::{NaiveDateTime, Utc};
use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};

pub use payload::{notice_value, state_value, tombstone_value};
use producer::{Failure, Outgoing, Producer};

use crate::FailureKind;
use crate::state::StoredFlight;
use crate::store::{
    Backoff, ClaimedNotice, ClaimedStateEvent, EventKind, FailedRow, OutboxOps, PendingCounts,
    StateTx, Store, StoreError,
};

/// The header carrying the outbox row's id, for consumer dedupe.
pub const EVENT_ID_HEADER: &str = "event-id";
/// The header saying `STATE`, `TOMBSTONE` or the change kind.
pub const EVENT_KIND_HEADER: &str = "event-kind";

/// How the dispatcher works through the outbox.
#[derive(Clone, Debug, PartialEq)]
pub struct DispatchSettings {
    /// Topic of whole-flight states and tombstones (`KAFKA_SCHD`).
    pub state_topic: String,
    /// Topic of change notifications (`KAFKA_MSG`).
    pub change_topic: String,
    /// Due rows one pass starts from, per outbox (the state pass adds the
    /// other pending rows of the same flights).
    pub batch_size: i64,
    /// Wait after a row's first failed delivery; doubled per failure.
    pub backoff_initial: Duration,
    /// Longest wait between two tries of a row.
    pub backoff_max: Duration,
    /// Sleep when nothing is due.
    pub idle_poll: Duration,
}

impl Default for DispatchSettings {
    fn default() -> Self {
        DispatchSettings {
            state_topic: "flight.state".to_owned(),
            change_topic: "flight.change".to_owned(),
            batch_size: 1000,
            backoff_initial: Duration::from_secs(1),
            backoff_max: Duration::from_secs(60),
            idle_poll: Duration::from_millis(500),
        }
    }
}

/// The Kafka producer's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct KafkaSettings {
    /// `host:port,…`.
    pub brokers: String,
    /// `linger.ms`: how long the producer waits to fill a request.
    pub linger: Duration,
    /// `message.timeout.ms`: how long librdkafka tries to deliver a message
    /// (retrying internally) before it reports it failed. A pass waits this
    /// long at most, plus a margin, with its rows claimed.
    pub delivery_timeout: Duration,
    /// Create missing topics at start (`create_topics`), with
    /// `topic_partitions` and `topic_replication`.
    pub create_topics: bool,
    /// Partitions of a topic the dispatcher creates.
    pub topic_partitions: i32,
    /// Replication factor of a topic the dispatcher creates.
    pub topic_replication: i32,
    /// Further librdkafka properties (tests, site tuning); they override
    /// everything above except idempotence and `acks`.
    pub extra: Vec<(String, String)>,
}

impl KafkaSettings {
    /// Settings for `brokers` with the defaults of `[kafka]`.
    pub fn new(brokers: impl Into<String>) -> KafkaSettings {
        KafkaSettings {
            brokers: brokers.into(),
            linger: Duration::from_millis(5),
            delivery_timeout: Duration::from_secs(30),
            create_topics: true,
            topic_partitions: 1,
            topic_replication: 1,
            extra: Vec::new(),
        }
    }

    /// The producer's client configuration.
    fn producer_config(&self) -> ClientConfig {
        let mut config = self.client_config();
        config
            .set("client.id", "flightstate-dispatch")
            .set("linger.ms", self.linger.as_millis().to_string())
            .set(
                "message.timeout.ms",
                self.delivery_timeout.as_millis().to_string(),
            );
        for (key, value) in &self.extra {
            config.set(key, value);
        }
        // DESIGN §5: never overridable.
        config.set("enable.idempotence", "true").set("acks", "all");
        config
    }

    fn client_config(&self) -> ClientConfig {
        let mut config = ClientConfig::new();
        config.set("bootstrap.servers", &self.brokers);
        config
    }
}

/// Why the dispatcher could not go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutboxError {
    /// The state database failed (down, pool exhausted, a conflict with a
    /// second dispatcher). Retried by [`Dispatcher::run`] after a pause;
    /// rows stay pending.
    #[error("outbox")]
    Store(#[from] StoreError),
    /// The Kafka client could not be created: a bad property in `[kafka]`
    /// or `extra`. Fix the configuration.
    #[error("cannot create the kafka producer; check the [kafka] settings")]
    Producer(#[source] KafkaError),
    /// A topic could not be created (broker down, or no right to create
    /// topics: then create them yourself and set `kafka.create_topics =
    /// false`).
    #[error("cannot create topic `{topic}`")]
    Topic {
        /// The topic.
        topic: String,
        /// Kafka's answer.
        #[source]
        source: KafkaError,
    },
    /// A test's failure point fired.
    #[cfg(feature = "failpoints")]
    #[error(transparent)]
    Injected(#[from] crate::failpoint::Injected),
}

impl OutboxError {
    /// What went wrong, for the retry decision.
    pub fn kind(&self) -> FailureKind {
        match self {
            OutboxError::Store(e) => e.kind(),
            OutboxError::Producer(_) => FailureKind::BadInput,
            OutboxError::Topic { .. } => FailureKind::ConnectionLost,
            #[cfg(feature = "failpoints")]
            OutboxError::Injected(_) => FailureKind::Other,
        }
    }
}

/// What one pass over an outbox did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassReport {
    /// Rows claimed.
    pub claimed: usize,
    /// Messages produced.
    pub produced: usize,
    /// Rows marked sent.
    pub sent: usize,
    /// Rows kept pending for a later try.
    pub failed: usize,
}

impl PassReport {
    fn add(&mut self, other: PassReport) {
        self.claimed += other.claimed;
        self.produced += other.produced;
        self.sent += other.sent;
        self.failed += other.failed;
    }
}

/// What [`Dispatcher::dispatch_once`] did, per outbox.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DispatchReport {
    /// `KAFKA_SCHD` → state topic.
    pub state: PassReport,
    /// `KAFKA_MSG` → change topic.
    pub change: PassReport,
}

impl DispatchReport {
    /// Whether the pass found nothing due.
    pub fn idle(&self) -> bool {
        self.state.claimed == 0 && self.change.claimed == 0
    }

    fn add(&mut self, other: DispatchReport) {
        self.state.add(other.state);
        self.change.add(other.change);
    }
}

/// The outbox → Kafka relay.
pub struct Dispatcher<S: Store> {
    store: S,
    kafka: KafkaSettings,
    settings: DispatchSettings,
    producer: Producer,
}

impl<S: Store> std::fmt::Debug for Dispatcher<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dispatcher")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

fn now() -> NaiveDateTime {
    Utc::now().naive_utc()
}

impl<S: Store> Dispatcher<S> {
    /// A dispatcher over `store`'s outbox; connects to Kafka lazily.
    ///
    /// # Errors
    ///
    /// [`OutboxError::Producer`] when the producer's configuration is
    /// refused.
    pub fn new(
        store: S,
        kafka: KafkaSettings,
        settings: DispatchSettings,
    ) -> Result<Dispatcher<S>, OutboxError> {
        // A pass waits for its reports a little longer than librdkafka
        // tries, so that a message's final report (delivered or timed out)
        // normally arrives before the pass gives up on it.
        let wait = kafka.delivery_timeout + kafka.linger + Duration::from_secs(5);
        let producer =
            Producer::create(kafka.producer_config(), wait).map_err(OutboxError::Producer)?;
        Ok(Dispatcher {
            store,
            kafka,
            settings,
            producer,
        })
    }

    /// The store the dispatcher reads.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Creates the two topics if they do not exist (when
    /// `create_topics` is set; otherwise does nothing).
    ///
    /// # Errors
    ///
    /// [`OutboxError::Topic`] when the broker cannot be reached or refuses.
    pub fn ensure_topics(&self) -> Result<(), OutboxError> {
        if !self.kafka.create_topics {
            return Ok(());
        }
        let mut config = self.kafka.client_config();
        for (key, value) in &self.kafka.extra {
            config.set(key, value);
        }
        let admin: AdminClient<DefaultClientContext> =
            config.create().map_err(OutboxError::Producer)?;
        let topics: Vec<NewTopic<'_>> = [&self.settings.state_topic, &self.settings.change_topic]
            .into_iter()
            .map(|name| {
                NewTopic::new(
                    name,
                    self.kafka.topic_partitions,
                    TopicReplication::Fixed(self.kafka.topic_replication),
                )
            })
            .collect();
        let options = AdminOptions::new().operation_timeout(Some(Duration::from_secs(10)));
        let results = futures_executor::block_on(admin.create_topics(&topics, &options)).map_err(
            |source| OutboxError::Topic {
                topic: self.settings.state_topic.clone(),
                source,
            },
        )?;
        for result in results {
            match result {
                Ok(topic) => tracing::info!(topic, "created topic"),
                Err((_, RDKafkaErrorCode::TopicAlreadyExists)) => {}
                Err((topic, code)) => {
                    return Err(OutboxError::Topic {
                        topic,
                        source: KafkaError::AdminOp(code),
                    });
                }
            }
        }
        Ok(())
    }

    /// One pass over each outbox: at most `batch_size` due rows of each
    /// (plus the other pending rows of the same flights), sent and settled.
    ///
    /// # Errors
    ///
    /// [`OutboxError::Store`] when the database fails; every row of the
    /// failed pass stays pending.
    pub fn dispatch_once(&mut self) -> Result<DispatchReport, OutboxError> {
        self.producer
            .recreate_if_fatal()
            .map_err(OutboxError::Producer)?;
        let state = self.state_pass()?;
        let change = self.change_pass()?;
        Ok(DispatchReport { state, change })
    }

    /// Rows still to send, per outbox.
    ///
    /// # Errors
    ///
    /// [`OutboxError::Store`] when the database fails.
    pub fn pending(&self) -> Result<PendingCounts, OutboxError> {
        Ok(self.store.transaction(|tx| tx.count_pending_events())?)
    }

    /// Dispatches until `stop` is set, or — with `until_idle` — until a
    /// pass finds nothing due (rows waiting for their retry time are left
    /// pending; [`Dispatcher::pending`] counts them). Database faults are
    /// logged and retried after `backoff_initial`.
    ///
    /// # Errors
    ///
    /// An [`OutboxError`] that retrying cannot fix (configuration), or a
    /// topic that cannot be created with `until_idle`.
    pub fn run(
        &mut self,
        stop: &AtomicBool,
        until_idle: bool,
    ) -> Result<DispatchReport, OutboxError> {
        let mut total = DispatchReport::default();
        loop {
            if stop.load(Ordering::SeqCst) {
                return Ok(total);
            }
            match self.ensure_topics() {
                Ok(()) => break,
                Err(e) if until_idle || !e.kind().retryable() => return Err(e),
                Err(e) => {
                    tracing::warn!(error = format!("{e:#}"), "topics not ready; will retry");
                    sleep_unless(stop, self.settings.backoff_initial);
                }
            }
        }
        while !stop.load(Ordering::SeqCst) {
            match self.dispatch_once() {
                Ok(report) if report.idle() => {
                    if until_idle {
                        break;
                    }
                    sleep_unless(stop, self.settings.idle_poll);
                }
                Ok(report) => total.add(report),
                Err(e) if e.kind().retryable() => {
                    tracing::warn!(error = format!("{e:#}"), "dispatch pass failed; will retry");
                    sleep_unless(stop, self.settings.backoff_initial);
                }
                Err(e) => return Err(e),
            }
        }
        tracing::info!(
            state_sent = total.state.sent,
            state_messages = total.state.produced,
            notices_sent = total.change.sent,
            "dispatcher stopped"
        );
        Ok(total)
    }

    fn backoff(&self) -> Backoff {
        Backoff {
            initial_secs: self.settings.backoff_initial.as_secs_f64(),
            max_secs: self.settings.backoff_max.as_secs_f64(),
        }
    }

    /// `KAFKA_SCHD` → state topic, coalesced per flight.
    fn state_pass(&mut self) -> Result<PassReport, OutboxError> {
        let Dispatcher {
            store,
            settings,
            producer,
            ..
        } = self;
        let backoff = Backoff {
            initial_secs: settings.backoff_initial.as_secs_f64(),
            max_secs: settings.backoff_max.as_secs_f64(),
        };
        store.transaction(|tx| {
            tx.set_repeatable_read()?;
            let rows = tx.claim_state_events(now(), settings.batch_size)?;
            if rows.is_empty() {
                return Ok(PassReport::default());
            }
            let span = tracing::info_span!(
                "outbox.event",
                event.id = %id_range(rows.iter().map(|r| r.event_id)),
                topic = %settings.state_topic,
            );
            let _enter = span.enter();
            let flights = group_by_flight(&rows);
            let flids: Vec<i64> = flights.iter().map(|(flid, _)| *flid).collect();
            let current = tx.load_flights(&flids)?;
            let mut messages = Vec::with_capacity(flights.len());
            // Which flight each message is about, to settle its rows.
            let mut owner = Vec::with_capacity(flights.len());
            for (index, (flid, group)) in flights.iter().enumerate() {
                for message in flight_messages(&settings.state_topic, group, current.get(flid)) {
                    messages.push(message);
                    owner.push(index);
                }
            }
            let outcomes = producer.deliver(&messages);
            crate::failpoint!("dispatch.after_produce");
            // A flight is done only when every one of its messages is.
            let mut failure: HashMap<usize, Failure> = HashMap::new();
            for (index, outcome) in owner.iter().zip(outcomes) {
                if let Err(f) = outcome {
                    failure.entry(*index).or_insert(f);
                }
            }
            let mut sent = Vec::with_capacity(rows.len());
            let mut failed = Vec::new();
            for (index, (flid, group)) in flights.iter().enumerate() {
                match failure.get(&index) {
                    None => sent.extend(group.iter().map(|r| r.event_id)),
                    Some(f) => {
                        log_failure(*flid, group.iter().map(|r| r.event_id), f);
                        failed.extend(group.iter().map(|r| FailedRow {
                            event_id: r.event_id,
                            error: f.text.clone(),
                        }));
                    }
                }
            }
            let done = now();
            tx.mark_state_events_sent(&sent, done)?;
            tx.retry_state_events(&failed, done, backoff)?;
            let report = PassReport {
                claimed: rows.len(),
                produced: messages.len(),
                sent: sent.len(),
                failed: failed.len(),
            };
            tracing::info!(
                rows = report.claimed,
                messages = report.produced,
                sent = report.sent,
                failed = report.failed,
                "state events dispatched"
            );
            Ok(report)
        })
    }

    /// `KAFKA_MSG` → change topic, one message per row.
    fn change_pass(&mut self) -> Result<PassReport, OutboxError> {
        let backoff = self.backoff();
        let Dispatcher {
            store,
            settings,
            producer,
            ..
        } = self;
        store.transaction(|tx| {
            let rows = tx.claim_change_notices(now(), settings.batch_size)?;
            if rows.is_empty() {
                return Ok(PassReport::default());
            }
            let span = tracing::info_span!(
                "outbox.event",
                event.id = %id_range(rows.iter().map(|r| r.event_id)),
                topic = %settings.change_topic,
            );
            let _enter = span.enter();
            let messages: Vec<Outgoing> = rows
                .iter()
                .map(|row| notice_message(&settings.change_topic, row))
                .collect();
            let outcomes = producer.deliver(&messages);
            crate::failpoint!("dispatch.after_produce");
            let mut sent = Vec::with_capacity(rows.len());
            let mut failed = Vec::new();
            // Once a flight's notice failed, its later ones in the batch are
            // kept back too (even if delivered: they are sent again, and
            // consumers dedupe on the event id), so that they never overtake it.
            let mut blocked: HashMap<Option<i64>, String> = HashMap::new();
            for (row, outcome) in rows.iter().zip(outcomes) {
                let earlier = row.flid.and_then(|_| blocked.get(&row.flid).cloned());
                match (earlier, outcome) {
                    (None, Ok(())) => sent.push(row.event_id),
                    (Some(text), _) => failed.push(FailedRow {
                        event_id: row.event_id,
                        error: format!("an earlier notice of the flight failed: {text}"),
                    }),
                    (None, Err(f)) => {
                        log_notice_failure(row, &f);
                        blocked.insert(row.flid, f.text.clone());
                        failed.push(FailedRow {
                            event_id: row.event_id,
                            error: f.text,
                        });
                    }
                }
            }
            let done = now();
            tx.mark_change_notices_sent(&sent, done)?;
            tx.retry_change_notices(&failed, done, backoff)?;
            let report = PassReport {
                claimed: rows.len(),
                produced: messages.len(),
                sent: sent.len(),
                failed: failed.len(),
            };
            tracing::info!(
                rows = report.claimed,
                sent = report.sent,
                failed = report.failed,
                "change notices dispatched"
            );
            Ok(report)
        })
    }
}

/// Sleeps `total`, waking early when `stop` is set.
fn sleep_unless(stop: &AtomicBool, total: Duration) {
    let step = Duration::from_millis(50);
    let mut slept = Duration::ZERO;
    while slept < total && !stop.load(Ordering::SeqCst) {
        std::thread::sleep(step.min(total - slept));
        slept += step;
    }
}

/// `first..last` of a pass's event ids, for its span.
fn id_range(ids: impl Iterator<Item = i64>) -> String {
    let (min, max) = ids.fold((i64::MAX, i64::MIN), |(lo, hi), id| {
        (lo.min(id), hi.max(id))
    });
    if min == max {
        min.to_string()
    } else {
        format!("{min}..{max}")
    }
}

/// The claimed rows by flight, each flight's rows in event order (the claim
/// returns them by FLID, then event id).
fn group_by_flight(rows: &[ClaimedStateEvent]) -> Vec<(i64, Vec<&ClaimedStateEvent>)> {
    let mut groups: Vec<(i64, Vec<&ClaimedStateEvent>)> = Vec::new();
    for row in rows {
        match groups.last_mut() {
            Some((flid, group)) if *flid == row.flid => group.push(row),
            _ => groups.push((row.flid, vec![row])),
        }
    }
    for (_, group) in &mut groups {
        group.sort_by_key(|r| r.event_id);
    }
    groups
}

/// The messages that bring a consumer from whatever it saw last to the
/// flight's current state: the latest pending tombstone (if the flight was
/// deleted since), then the current state (if it exists now). Nothing when
/// the flight is gone and no tombstone is pending: the state rows are
/// redundant (a tombstone of theirs was already sent).
fn flight_messages(
    topic: &str,
    rows: &[&ClaimedStateEvent],
    current: Option<&StoredFlight>,
) -> Vec<Outgoing> {
    let mut messages = Vec::with_capacity(2);
    let tombstone = rows.iter().rev().find(|r| r.kind == EventKind::Tombstone);
    let last_event = rows.iter().map(|r| r.event_id).max().unwrap_or_default();
    if let Some(t) = tombstone {
        let stale = current.is_some_and(|f| f.state_version <= t.state_version);
        if stale {
            // Only for flights recreated before version floors existed: the
            // state cannot sort after its tombstone, so the tombstone (an
            // older fact) is left out.
            tracing::warn!(
                flid = t.flid,
                tombstone_version = t.state_version,
                "flight recreated below its tombstone; sending its state only"
            );
        } else {
            messages.push(Outgoing {
                topic: topic.to_owned(),
                key: Some(t.flid.to_string()),
                value: tombstone_value(t.flid, t.state_version, t.created_at),
                headers: vec![
                    (EVENT_ID_HEADER, t.event_id.to_string()),
                    (EVENT_KIND_HEADER, EventKind::Tombstone.code().to_owned()),
                ],
            });
        }
    }
    if let Some(flight) = current {
        messages.push(Outgoing {
            topic: topic.to_owned(),
            key: Some(flight.state.flid.to_string()),
            value: state_value(flight),
            headers: vec![
                (EVENT_ID_HEADER, last_event.to_string()),
                (EVENT_KIND_HEADER, EventKind::State.code().to_owned()),
            ],
        });
    }
    messages
}

fn notice_message(topic: &str, row: &ClaimedNotice) -> Outgoing {
    Outgoing {
        topic: topic.to_owned(),
        key: row.flid.map(|f| f.to_string()),
        value: notice_value(
            row.event_id,
            row.flid,
            &row.change_kind,
            row.message_id,
            row.created_at,
            &row.payload,
        ),
        headers: vec![
            (EVENT_ID_HEADER, row.event_id.to_string()),
            (EVENT_KIND_HEADER, row.change_kind.clone()),
        ],
    }
}

fn log_failure(flid: i64, event_ids: impl Iterator<Item = i64>, failure: &Failure) {
    let events = id_range(event_ids);
    if failure.retriable() {
        tracing::warn!(
            flid,
            event.id = %events,
            error = %failure.text,
            "state delivery failed; kept pending, will retry"
        );
    } else {
        tracing::error!(
            flid,
            event.id = %events,
            error = %failure.text,
            "state delivery refused; kept pending until someone fixes the cause"
        );
    }
}

fn log_notice_failure(row: &ClaimedNotice, failure: &Failure) {
    if failure.retriable() {
        tracing::warn!(
            flid = row.flid,
            event.id = row.event_id,
            error = %failure.text,
            "notice delivery failed; kept pending, will retry"
        );
    } else {
        tracing::error!(
            flid = row.flid,
            event.id = row.event_id,
            error = %failure.text,
            "notice delivery refused; kept pending until someone fixes the cause"
        );
    }
}
