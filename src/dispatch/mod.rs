//! The Kafka dispatcher: sends the transactional outbox (`KAFKA_SCHD`,
//! `KAFKA_MSG`) to Kafka (DESIGN §5, `docs/kafka.md`).
//!
//! One pass per outbox, each in one transaction (STYLE §4.4): claim due
//! rows `FOR UPDATE SKIP LOCKED`, build the messages, produce them with an
//! idempotent producer (`acks=all`), wait for every delivery report, then
//! delete the confirmed rows (done) and keep the others pending with their
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
//! The outbox is worked on `lanes` lanes side by side (`lane.rs`), each on
//! its own thread, connection and producer; a flight always belongs to the
//! same lane, so its messages keep their order.
//!
//! A producer the broker no longer accepts (fenced after an outage, or
//! failed fatally) is replaced before its lane's next pass, with every other
//! lane's (`producer.rs`); an outage is logged once, whichever of librdkafka's
//! reports and lanes hears of it first (`link.rs`). `flightstate run` starts
//! passes only while its pump holds the lease (a [`Gate`], `gate.rs`).
//! Beside the lanes, a heartbeat tells consumers how far the pipeline has
//! come, every interval (`heartbeat.rs`). Before the first pass the topics
//! are made ready (`topics.rs`).
//!
//! This module owns no SQL (the store's [`OutboxOps`] does) and never reads
//! the environment: it takes [`DispatchSettings`] and [`KafkaSettings`].

mod error;
mod freshness;
mod gate;
mod heartbeat;
mod lane;
mod link;
mod payload;
mod producer;
mod topics;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chrono::{NaiveDateTime, Utc};
use rdkafka::ClientConfig;

pub use error::OutboxError;
pub use freshness::{Freshness, PUBLISH_FRESHNESS};
use gate::GateLog;
pub use gate::{Always, Gate};
use heartbeat::Heartbeat;
pub use heartbeat::{Beat, HEARTBEAT_KIND, HeartbeatSettings};
use lane::Lane;
use link::Link;
pub use payload::{notice_value, tombstone_value};
use producer::Producer;

use crate::doorbell::Doorbell;
use crate::kafka::KafkaClient;
use crate::mailbox::Mailbox;
use crate::store::{self, OutboxOps, PendingCounts, Store};

/// The header carrying the outbox row's id, for consumer dedupe.
pub const EVENT_ID_HEADER: &str = "event-id";
/// The header saying `STATE`, `TOMBSTONE` or the change kind.
pub const EVENT_KIND_HEADER: &str = "event-kind";
/// The header naming the version of the topics' JSON Schema
/// (`schema/flight-state.schema.json`, `schema/flight-change.schema.json`)
/// that the value follows.
pub const SCHEMA_VERSION_HEADER: &str = "schema-version";
/// The schema version of every value this build sends: the version in the
/// schemas' `$id`. A new key (optional) is a minor version; anything a
/// consumer of the old version would misread is a major one, on new topics
/// (`docs/kafka.md`).
pub const SCHEMA_VERSION: &str = "1.0";

/// How long a topic request (create, describe) may take.
const TOPIC_WAIT: Duration = Duration::from_secs(10);

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
    /// Lanes working through the outbox side by side, each on its own
    /// connection with its own producer; a flight always goes through the
    /// same lane ([`store::Lane`]), so its messages keep their order.
    pub lanes: u32,
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
            lanes: 3,
        }
    }
}

/// The Kafka producer's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct KafkaSettings {
    /// The brokers and how to reach them (TLS, SASL, the site's librdkafka
    /// properties). Its properties override everything below except
    /// idempotence and `acks`.
    pub client: KafkaClient,
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
    /// Dispatch to a state topic that is not compacted (`compact` alone),
    /// with a warning, instead of refusing to start.
    pub allow_uncompacted_state_topic: bool,
}

impl KafkaSettings {
    /// Settings for plaintext `brokers` with the defaults of `[kafka]`.
    pub fn new(brokers: impl Into<String>) -> KafkaSettings {
        KafkaSettings::of(KafkaClient::new(brokers))
    }

    /// Settings for `client` with the defaults of `[kafka]`.
    pub fn of(client: KafkaClient) -> KafkaSettings {
        KafkaSettings {
            client,
            linger: Duration::from_millis(5),
            delivery_timeout: Duration::from_secs(30),
            create_topics: true,
            topic_partitions: 1,
            topic_replication: 1,
            allow_uncompacted_state_topic: false,
        }
    }

    /// The producer's client configuration.
    fn producer_config(&self) -> ClientConfig {
        let mut config = ClientConfig::new();
        config
            .set("client.id", "flightstate-dispatch")
            .set("linger.ms", self.linger.as_millis().to_string())
            .set(
                "message.timeout.ms",
                self.delivery_timeout.as_millis().to_string(),
            );
        self.client.configure(&mut config);
        // DESIGN §5: never overridable.
        config.set("enable.idempotence", "true").set("acks", "all");
        config
    }
}

/// What one pass over an outbox did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassReport {
    /// Rows claimed.
    pub claimed: usize,
    /// Messages produced.
    pub produced: usize,
    /// Rows done (delivered, or made redundant) and deleted.
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

    pub(crate) fn add(&mut self, other: DispatchReport) {
        self.state.add(other.state);
        self.change.add(other.change);
    }
}

/// The outbox → Kafka relay.
pub struct Dispatcher<S: Store> {
    store: S,
    kafka: KafkaSettings,
    settings: DispatchSettings,
    lanes: Vec<Lane>,
    /// What every lane's producer knows of the link: a refusal met while
    /// the topics are prepared is told once with theirs.
    link: Arc<Link>,
    /// Rung by the pump of the same process when it commits.
    doorbell: Doorbell,
    /// Sends heartbeats beside the lanes, when configured.
    heartbeat: Option<Heartbeat>,
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
        let wait = report_wait(&kafka);
        let count = settings.lanes.max(1);
        let link = Arc::new(Link::new(kafka.client.security()));
        let lanes = (0..count)
            .map(|number| {
                Ok(Lane {
                    share: store::Lane {
                        number: i64::from(number),
                        count: i64::from(count),
                    },
                    producer: Producer::create(kafka.producer_config(), wait, Arc::clone(&link))
                        .map_err(OutboxError::Producer)?,
                })
            })
            .collect::<Result<_, OutboxError>>()?;
        Ok(Dispatcher {
            store,
            kafka,
            settings,
            lanes,
            link,
            doorbell: Doorbell::new(),
            heartbeat: None,
        })
    }

    /// The dispatcher sending heartbeats by `settings` (none when its
    /// interval is zero), with the backlog of `mailbox` in them.
    ///
    /// # Errors
    ///
    /// [`OutboxError::Producer`] when the heartbeat's producer is refused.
    pub fn with_heartbeat(
        self,
        settings: HeartbeatSettings,
        mailbox: Option<Arc<Mailbox>>,
    ) -> Result<Dispatcher<S>, OutboxError> {
        if !settings.enabled() {
            return Ok(Dispatcher {
                heartbeat: None,
                ..self
            });
        }
        let producer = Producer::create(
            self.kafka.producer_config(),
            report_wait(&self.kafka),
            Arc::clone(&self.link),
        )
        .map_err(OutboxError::Producer)?;
        Ok(Dispatcher {
            heartbeat: Some(Heartbeat::new(settings, producer, mailbox)),
            ..self
        })
    }

    /// Sends one heartbeat now (tests and `dispatch --until-idle` use it);
    /// `None` when heartbeats are off.
    ///
    /// # Errors
    ///
    /// Why the heartbeat was not sent.
    pub fn heartbeat_once(&mut self) -> Option<Result<Beat, String>> {
        let Dispatcher {
            store, heartbeat, ..
        } = self;
        heartbeat.as_mut().map(|h| h.beat(store))
    }

    /// The dispatcher with its idle lanes woken by `doorbell` (the pump of
    /// the same `run` rings it when it commits) instead of only at the end
    /// of `idle_poll`.
    pub fn with_doorbell(self, doorbell: Doorbell) -> Dispatcher<S> {
        Dispatcher { doorbell, ..self }
    }

    /// The store the dispatcher reads.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// One pass over each outbox on every lane, one lane after the other:
    /// at most `batch_size` due rows of each outbox per lane (plus the other
    /// pending rows of the same flights), sent and settled.
    ///
    /// # Errors
    ///
    /// [`OutboxError::Store`] when the database fails; every row of the
    /// failed pass stays pending.
    pub fn dispatch_once(&mut self) -> Result<DispatchReport, OutboxError> {
        let mut total = DispatchReport::default();
        for lane in &mut self.lanes {
            total.add(lane.dispatch_once(&self.store, &self.settings)?);
        }
        Ok(total)
    }

    /// Rows still to send, per outbox.
    ///
    /// # Errors
    ///
    /// [`OutboxError::Store`] when the database fails.
    pub fn pending(&self) -> Result<PendingCounts, OutboxError> {
        Ok(self.store.transaction(|tx| tx.count_pending_events())?)
    }

    /// Dispatches on every lane, each on a thread of its own, until `stop`
    /// is set, or — with `until_idle` — until each lane's pass finds nothing
    /// due (rows waiting for their retry time are left pending;
    /// [`Dispatcher::pending`] counts them). Database faults are logged and
    /// retried after `backoff_initial`.
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
        self.run_while(stop, until_idle, &Always)
    }

    /// [`Dispatcher::run`], starting passes only while `gate` is open (the
    /// closing and the opening are logged once each, with why); with
    /// `until_idle` a closed gate ends the run.
    ///
    /// # Errors
    ///
    /// As [`Dispatcher::run`].
    pub fn run_while(
        &mut self,
        stop: &AtomicBool,
        until_idle: bool,
        gate: &dyn Gate,
    ) -> Result<DispatchReport, OutboxError> {
        if !self.wait_for_topics(stop, until_idle)? {
            return Ok(DispatchReport::default());
        }
        let Dispatcher {
            store,
            settings,
            lanes,
            doorbell,
            heartbeat,
            ..
        } = self;
        // A lane that fails for good stops the others.
        let halt = AtomicBool::new(false);
        // Set once every lane has ended: the heartbeat ends with them.
        let lanes_done = AtomicBool::new(false);
        let gate_log = GateLog::default();
        let outcomes: Vec<Result<DispatchReport, OutboxError>> = std::thread::scope(|scope| {
            let beating = heartbeat.as_mut().filter(|_| !until_idle).map(|heartbeat| {
                let (store, halt, lanes_done) = (&*store, &halt, &lanes_done);
                let open = || gate.is_open();
                std::thread::Builder::new()
                    .name("dispatch-heartbeat".to_owned())
                    .spawn_scoped(scope, move || {
                        heartbeat.run(store, &[stop, halt, lanes_done], &open);
                    })
                    .unwrap_or_else(|e| panic!("cannot start the dispatcher's heartbeat: {e}"))
            });
            let workers: Vec<_> = lanes
                .iter_mut()
                .map(|lane| {
                    let halt = &halt;
                    let gate = (gate, &gate_log);
                    let store = &*store;
                    let settings = &*settings;
                    let doorbell = &*doorbell;
                    let number = lane.share.number;
                    // Named, so that `top -H` and a profiler tell the lanes apart.
                    std::thread::Builder::new()
                        .name(format!("dispatch-lane-{number}"))
                        .spawn_scoped(scope, move || {
                            let outcome = lane.run(
                                store,
                                settings,
                                &[stop, halt],
                                until_idle,
                                gate,
                                doorbell,
                            );
                            if outcome.is_err() {
                                halt.store(true, Ordering::SeqCst);
                            }
                            outcome
                        })
                        // As `scope.spawn` does: the OS refusing a thread is
                        // not a state the dispatcher can work in.
                        .unwrap_or_else(|e| panic!("cannot start dispatcher lane {number}: {e}"))
                })
                .collect();
            let outcomes = workers
                .into_iter()
                .map(|worker| {
                    worker
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect();
            lanes_done.store(true, Ordering::SeqCst);
            if let Some(beating) = beating {
                beating
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            }
            outcomes
        });
        // A dispatcher that stops once idle says where it left the topics.
        if let Some(heartbeat) = heartbeat.as_mut().filter(|_| until_idle && gate.is_open()) {
            let _ = heartbeat.beat(&*store);
        }
        let mut total = DispatchReport::default();
        for outcome in outcomes {
            total.add(outcome?);
        }
        tracing::info!(
            state_sent = total.state.sent,
            state_messages = total.state.produced,
            notices_sent = total.change.sent,
            "dispatcher stopped"
        );
        Ok(total)
    }
}

/// How long a pass waits for its delivery reports: a little longer than
/// librdkafka tries, so that a message's final report (delivered or timed
/// out) normally arrives before the pass gives up on it.
fn report_wait(kafka: &KafkaSettings) -> Duration {
    kafka.delivery_timeout + kafka.linger + Duration::from_secs(5)
}

/// Whether any of `flags` is set.
fn stopped(flags: &[&AtomicBool]) -> bool {
    flags.iter().any(|f| f.load(Ordering::SeqCst))
}

/// Sleeps `total`, waking early when one of `stop` is set.
fn sleep_unless(stop: &[&AtomicBool], total: Duration) {
    let step = Duration::from_millis(50);
    let mut slept = Duration::ZERO;
    while slept < total && !stopped(stop) {
        std::thread::sleep(step.min(total - slept));
        slept += step;
    }
}
