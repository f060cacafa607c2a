//! The Kafka side of the dispatcher: an idempotent producer whose delivery
//! reports are collected per message, so that the dispatcher can tell, for
//! every message it produced, whether the broker confirmed it.
//!
//! Synchronous: [`Producer::deliver`] enqueues a batch and sleeps until
//! every message has its report or the deadline passes; a message without
//! a report is *uncertain* and counts as failed, so its rows are sent again.
//! The reports are served by the producer's own polling thread
//! (`ThreadedProducer`), which wakes the waiting lane. Polling from the lane
//! itself meant short `poll` slices, and rdkafka's `poll` spins through the
//! last millisecond of each slice: waiting lanes burned a core that
//! PostgreSQL needed.
//!
//! A producer the broker no longer accepts (fenced, or a fatal error) is
//! replaced before the next pass ([`Producer::replace_if_unusable`]).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rdkafka::ClientConfig;
use rdkafka::client::ClientContext;
use rdkafka::config::RDKafkaLogLevel;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{
    BaseRecord, DeliveryResult, Producer as _, ProducerContext, ThreadedProducer,
};

use super::link::Link;
use crate::kafka::Refusal;

/// One message to produce.
#[derive(Clone, Debug)]
pub(crate) struct Outgoing {
    /// Index into the dispatcher's topic names: the state or change topic.
    pub(crate) topic: String,
    /// The Kafka key (the FLID as decimal text), if any.
    pub(crate) key: Option<String>,
    /// The JSON value.
    pub(crate) value: Vec<u8>,
    /// Headers, in order.
    pub(crate) headers: Vec<(&'static str, String)>,
}

/// Why a message was not confirmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Failure {
    /// librdkafka's code, when it gave one.
    pub(crate) code: Option<RDKafkaErrorCode>,
    /// For `LAST_ERROR` and the logs.
    pub(crate) text: String,
}

impl Failure {
    fn from_kafka(error: &KafkaError) -> Failure {
        Failure {
            code: error.rdkafka_error_code(),
            text: error.to_string(),
        }
    }

    /// Whether sending the same message again can succeed without someone
    /// changing something first (configuration, ACLs, the message's size).
    /// Both kinds keep their rows pending; this only decides how loudly the
    /// failure is logged (DESIGN §5: nothing is ever dropped).
    pub(crate) fn retriable(&self) -> bool {
        !matches!(
            self.code,
            Some(
                RDKafkaErrorCode::MessageSizeTooLarge
                    | RDKafkaErrorCode::InvalidMessageSize
                    | RDKafkaErrorCode::MessageBatchTooLarge
                    | RDKafkaErrorCode::InvalidMessage
                    | RDKafkaErrorCode::InvalidRecord
                    | RDKafkaErrorCode::InvalidTopic
                    | RDKafkaErrorCode::InvalidRequiredAcks
                    | RDKafkaErrorCode::TopicAuthorizationFailed
                    | RDKafkaErrorCode::ClusterAuthorizationFailed
                    | RDKafkaErrorCode::UnsupportedVersion
                    | RDKafkaErrorCode::InvalidArgument
            )
        )
    }

    /// Whether the failure means the broker no longer accepts this
    /// producer, whatever the message: its producer id, epoch or sequence
    /// numbers are refused (`ProducerFenced`, `InvalidProducerEpoch`,
    /// `UnknownProducerId`, `InvalidProducerIdMapping`,
    /// `OutOfOrderSequenceNumber`; the broker's words), or librdkafka gave it
    /// up (`Fatal`, `Fenced`; its own). Every one of them fails each later
    /// message of the same producer too: a broker outage longer than
    /// `message.timeout.ms` leaves an idempotent producer with messages
    /// whose sequence numbers the broker never saw, and after the link
    /// returns the broker refuses the producer's next ones. Only a new
    /// producer (a new producer id, sequences from 0) sends again. Other
    /// errors are about one message or the link, and the same producer
    /// recovers from them.
    pub(crate) fn fences_producer(&self) -> bool {
        matches!(
            self.code,
            Some(
                RDKafkaErrorCode::ProducerFenced
                    | RDKafkaErrorCode::InvalidProducerEpoch
                    | RDKafkaErrorCode::UnknownProducerId
                    | RDKafkaErrorCode::InvalidProducerIdMapping
                    | RDKafkaErrorCode::OutOfOrderSequenceNumber
                    | RDKafkaErrorCode::Fatal
                    | RDKafkaErrorCode::Fenced
            )
        )
    }
}

/// Collects the delivery report of each message by its opaque number, and
/// routes librdkafka's own logs to `tracing`.
pub(crate) struct DeliveryContext {
    reports: Mutex<Reports>,
    /// Signalled when the batch has every report it waits for.
    arrived: Condvar,
    /// The link state every lane's producer shares (logging an outage once).
    link: Arc<Link>,
}

/// The reports of the batch being delivered.
#[derive(Default)]
struct Reports {
    /// Outcomes by opaque number, of the batch's messages only: a late
    /// report of an earlier batch is no longer wanted (its message counted
    /// as uncertain, and its rows are sent again).
    outcomes: HashMap<usize, Result<(), Failure>>,
    /// The opaque numbers of the batch.
    batch: Range<usize>,
    /// How many reports the waiting lane wants before it wakes: the batch's
    /// enqueued messages, unknown (`usize::MAX`) while it is enqueueing.
    /// The lane is woken once per batch, not once per report.
    wanted: usize,
}

impl DeliveryContext {
    fn new(link: Arc<Link>) -> DeliveryContext {
        DeliveryContext {
            reports: Mutex::default(),
            arrived: Condvar::new(),
            link,
        }
    }

    fn reports(&self) -> MutexGuard<'_, Reports> {
        // The map holds plain data; a panic elsewhere cannot leave it half
        // updated in a way that matters.
        self.reports.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits at most `timeout` for the batch's reports.
    fn wait<'g>(
        &self,
        reports: MutexGuard<'g, Reports>,
        timeout: Duration,
    ) -> MutexGuard<'g, Reports> {
        match self.arrived.wait_timeout(reports, timeout) {
            Ok((reports, _)) => reports,
            Err(poisoned) => poisoned.into_inner().0,
        }
    }
}

impl ClientContext for DeliveryContext {
    /// librdkafka's own log. Its errors and warnings are the same faults
    /// the error callback (below) and the delivery reports carry, each
    /// repeated per broker connection attempt: at `debug` here, logged once
    /// with their cause there. Only what librdkafka rates worse than an
    /// error stays loud.
    fn log(&self, level: RDKafkaLogLevel, fac: &str, log_message: &str) {
        match level {
            RDKafkaLogLevel::Emerg | RDKafkaLogLevel::Alert | RDKafkaLogLevel::Critical => {
                tracing::error!(facility = fac, "librdkafka: {log_message}")
            }
            RDKafkaLogLevel::Error
            | RDKafkaLogLevel::Warning
            | RDKafkaLogLevel::Notice
            | RDKafkaLogLevel::Info
            | RDKafkaLogLevel::Debug => {
                tracing::debug!(facility = fac, "librdkafka: {log_message}")
            }
        }
    }

    /// Client errors: broker connections going down (every reconnect
    /// attempt), all of them down, fatal errors, a broker refusing the
    /// client. The first fault while the link is good is logged at `warn`,
    /// a refusal once per outage at `error` (a person must act); the rest
    /// of the outage at `debug`.
    /// One connection closing is not a fault by itself (brokers close idle
    /// connections, and librdkafka reconnects): an outage shows as all
    /// brokers down or as failed deliveries.
    fn error(&self, error: KafkaError, reason: &str) {
        let code = error.rdkafka_error_code();
        if let Some(refusal) = Refusal::of(code, reason, self.link.security()) {
            if self.link.refused(reason) {
                tracing::error!(broker = %refusal.broker, "{refusal}; rows wait in the outbox");
            } else {
                tracing::debug!(broker = %refusal.broker, "{refusal}");
            }
        } else if code == Some(RDKafkaErrorCode::BrokerTransportFailure) {
            tracing::debug!(error = %error, reason, "kafka connection closed");
        } else if self.link.failed(reason, Instant::now()) {
            tracing::warn!(error = %error, reason, "kafka unreachable or failing; rows wait in the outbox");
        } else {
            tracing::debug!(error = %error, reason, "kafka client error");
        }
    }
}

impl ProducerContext for DeliveryContext {
    type DeliveryOpaque = usize;

    fn delivery(&self, result: &DeliveryResult<'_>, opaque: usize) {
        let outcome = match result {
            Ok(_) => {
                self.link.delivered();
                Ok(())
            }
            Err((error, _)) => Err(Failure::from_kafka(error)),
        };
        let mut reports = self.reports();
        if reports.batch.contains(&opaque) {
            reports.outcomes.insert(opaque, outcome);
            if reports.outcomes.len() >= reports.wanted {
                self.arrived.notify_one();
            }
        }
    }
}

/// The dispatcher's producer.
pub(crate) struct Producer {
    /// The librdkafka producer, made before the lane's first pass: made
    /// earlier, it would connect (and, to a broker that refuses it,
    /// reconnect) while the dispatcher still waits for the topics.
    inner: Option<ThreadedProducer<DeliveryContext>>,
    config: ClientConfig,
    /// The longest wait for a batch's reports.
    wait: Duration,
    next_opaque: usize,
    /// Why the broker no longer accepts this producer, once a message
    /// failed so ([`Failure::fences_producer`]), and when that message's
    /// batch was sent.
    fenced: Option<(Failure, Instant)>,
    /// When the last batch was sent.
    batch_sent: Instant,
    link: Arc<Link>,
    /// The link's [`Link::generation`] when this producer was created.
    generation: u64,
}

impl Producer {
    /// The producer of `config` (checked now, connected before its first
    /// pass); `link` is shared by the dispatcher's producers.
    pub(crate) fn create(
        config: ClientConfig,
        wait: Duration,
        link: Arc<Link>,
    ) -> Result<Producer, KafkaError> {
        config.create_native_config()?;
        Ok(Producer {
            inner: None,
            config,
            wait,
            next_opaque: 0,
            fenced: None,
            batch_sent: Instant::now(),
            generation: link.generation(),
            link,
        })
    }

    fn connect(&self) -> Result<ThreadedProducer<DeliveryContext>, KafkaError> {
        self.config
            .create_with_context(DeliveryContext::new(Arc::clone(&self.link)))
    }

    /// The link state the producer reports to.
    pub(crate) fn link(&self) -> &Link {
        &self.link
    }

    /// When the last batch was sent: its failures are news only if the link
    /// did not recover since.
    pub(crate) fn batch_sent(&self) -> Instant {
        self.batch_sent
    }

    /// Replaces a producer the broker no longer accepts: one that hit a
    /// fatal error (librdkafka's `fatal_error`), or whose messages failed
    /// with a fencing error ([`Failure::fences_producer`]; librdkafka does
    /// not make those fatal when they answer a Produce request, and the
    /// same producer then fails every message for good). A producer created
    /// before another lane's was refused is replaced too: the same outage
    /// left it in the same state. The rows the old producer failed are
    /// pending anyway and go out through the new one.
    pub(crate) fn replace_if_unusable(&mut self) -> Result<(), KafkaError> {
        let Some(inner) = &self.inner else {
            self.inner = Some(self.connect()?);
            self.generation = self.link.generation();
            return Ok(());
        };
        let refused = match inner.client().fatal_error() {
            Some((code, reason)) => {
                Some((format!("fatal error {code:?}: {reason}"), self.batch_sent))
            }
            None => self
                .fenced
                .take()
                .map(|(failure, sent)| (failure.text, sent)),
        };
        if refused.is_none() && self.generation == self.link.generation() {
            return Ok(());
        }
        self.inner = Some(self.connect()?);
        match refused {
            Some((cause, sent)) if self.link.replaced(&cause, sent) => tracing::warn!(
                cause,
                "the kafka producer was fenced or failed fatally; replaced it with a new one, \
                 the pending rows go out through it"
            ),
            Some((cause, _)) => tracing::debug!(cause, "kafka producer replaced"),
            None => tracing::debug!("kafka producer replaced, as another lane's was refused"),
        }
        self.generation = self.link.generation();
        Ok(())
    }

    /// The last moment a pass whose last statement ended at `claimed` may
    /// hand a message to librdkafka: one report wait later. A pass that
    /// comes to produce after that stood still in between (a frozen or
    /// starved process); if the server ended its transaction meanwhile (a
    /// paused VM's sessions end by keepalive), another dispatcher may have
    /// sent newer versions of its flights, so it produces nothing.
    pub(crate) fn enqueue_until(&self, claimed: Instant) -> Instant {
        claimed + self.wait
    }

    /// Produces `messages` in order, none after `enqueue_until`, and waits
    /// for their delivery reports. Returns one outcome per message, in
    /// order.
    pub(crate) fn deliver(
        &mut self,
        messages: &[Outgoing],
        enqueue_until: Instant,
    ) -> Vec<Result<(), Failure>> {
        let first = self.next_opaque;
        self.next_opaque = self.next_opaque.wrapping_add(messages.len());
        let Some(inner) = self.inner.as_ref() else {
            // `replace_if_unusable` comes first in every pass.
            return messages
                .iter()
                .map(|_| {
                    Err(Failure {
                        code: None,
                        text: "not produced: no producer yet".to_owned(),
                    })
                })
                .collect();
        };
        let context = inner.context();
        {
            let mut reports = context.reports();
            reports.outcomes.clear();
            reports.batch = first..first.wrapping_add(messages.len());
            reports.wanted = usize::MAX;
        }
        self.batch_sent = Instant::now();
        let deadline = self.batch_sent + self.wait;
        let mut outcomes: Vec<Option<Result<(), Failure>>> = vec![None; messages.len()];
        let mut expected = Vec::with_capacity(messages.len());
        for (i, message) in messages.iter().enumerate() {
            let opaque = first.wrapping_add(i);
            match enqueue(inner, message, opaque, deadline.min(enqueue_until)) {
                Ok(()) => expected.push((i, opaque)),
                Err(failure) => outcomes[i] = Some(Err(failure)),
            }
        }
        // Sleep until every message of the batch has its report or the time
        // is up; a message still without one then is uncertain.
        let mut reports = context.reports();
        reports.wanted = expected.len();
        loop {
            let now = Instant::now();
            if reports.outcomes.len() >= reports.wanted || now >= deadline {
                break;
            }
            reports = context.wait(reports, deadline - now);
        }
        for (i, opaque) in expected {
            outcomes[i] = Some(reports.outcomes.remove(&opaque).unwrap_or_else(|| {
                Err(Failure {
                    code: None,
                    text: format!(
                        "no delivery report within {} ms: outcome uncertain, sent again",
                        self.wait.as_millis()
                    ),
                })
            }));
        }
        // Reports arriving from now on are late: no batch wants them.
        reports.outcomes.clear();
        reports.batch = 0..0;
        drop(reports);
        let outcomes: Vec<Result<(), Failure>> = outcomes
            .into_iter()
            .map(|o| {
                o.unwrap_or_else(|| {
                    Err(Failure {
                        code: None,
                        text: "not produced".to_owned(),
                    })
                })
            })
            .collect();
        if self.fenced.is_none() {
            self.fenced = outcomes
                .iter()
                .filter_map(|o| o.as_ref().err())
                .find(|f| f.fences_producer())
                .map(|f| (f.clone(), self.batch_sent));
        }
        outcomes
    }
}

/// Enqueues one message on `producer` before `deadline`, waiting while its
/// local queue is full.
fn enqueue(
    producer: &ThreadedProducer<DeliveryContext>,
    message: &Outgoing,
    opaque: usize,
    deadline: Instant,
) -> Result<(), Failure> {
    if Instant::now() >= deadline {
        return Err(Failure {
            code: None,
            text: "not produced: the pass's time to produce ran out".to_owned(),
        });
    }
    let mut headers = OwnedHeaders::new_with_capacity(message.headers.len());
    for (key, value) in &message.headers {
        headers = headers.insert(Header {
            key,
            value: Some(value.as_bytes()),
        });
    }
    let mut record = BaseRecord::with_opaque_to(&message.topic, opaque)
        .payload(&message.value)
        .headers(headers);
    if let Some(key) = &message.key {
        record = record.key(key);
    }
    loop {
        match producer.send(record) {
            Ok(()) => return Ok(()),
            Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back))
                if Instant::now() < deadline =>
            {
                record = back;
                // The polling thread frees the queue as reports come.
                std::thread::sleep(Duration::from_millis(5));
            }
            Err((error, _)) => return Err(Failure::from_kafka(&error)),
        }
    }
}
