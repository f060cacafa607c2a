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

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rdkafka::ClientConfig;
use rdkafka::client::ClientContext;
use rdkafka::config::RDKafkaLogLevel;
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{
    BaseRecord, DeliveryResult, Producer as _, ProducerContext, ThreadedProducer,
};

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
                    | RDKafkaErrorCode::Fatal
            )
        )
    }
}

/// Collects the delivery report of each message by its opaque number, and
/// routes librdkafka's own logs to `tracing`.
#[derive(Default)]
pub(crate) struct DeliveryContext {
    reports: Mutex<Reports>,
    /// Signalled when the batch has every report it waits for.
    arrived: Condvar,
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
    fn log(&self, level: RDKafkaLogLevel, fac: &str, log_message: &str) {
        match level {
            RDKafkaLogLevel::Emerg
            | RDKafkaLogLevel::Alert
            | RDKafkaLogLevel::Critical
            | RDKafkaLogLevel::Error => {
                tracing::error!(facility = fac, "librdkafka: {log_message}")
            }
            RDKafkaLogLevel::Warning => tracing::warn!(facility = fac, "librdkafka: {log_message}"),
            RDKafkaLogLevel::Notice | RDKafkaLogLevel::Info => {
                tracing::info!(facility = fac, "librdkafka: {log_message}");
            }
            RDKafkaLogLevel::Debug => tracing::debug!(facility = fac, "librdkafka: {log_message}"),
        }
    }

    fn error(&self, error: KafkaError, reason: &str) {
        // Broker connections going down and coming back are reported here;
        // the delivery reports say what it meant for our messages.
        tracing::warn!(error = %error, reason, "kafka client error");
    }
}

impl ProducerContext for DeliveryContext {
    type DeliveryOpaque = usize;

    fn delivery(&self, result: &DeliveryResult<'_>, opaque: usize) {
        let outcome = match result {
            Ok(_) => Ok(()),
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
    inner: ThreadedProducer<DeliveryContext>,
    config: ClientConfig,
    /// The longest wait for a batch's reports.
    wait: Duration,
    next_opaque: usize,
}

impl Producer {
    /// Creates the producer from its full client configuration.
    pub(crate) fn create(config: ClientConfig, wait: Duration) -> Result<Producer, KafkaError> {
        let inner = config.create_with_context(DeliveryContext::default())?;
        Ok(Producer {
            inner,
            config,
            wait,
            next_opaque: 0,
        })
    }

    /// Replaces a producer that hit a fatal error (an idempotent producer
    /// can, e.g. after a sequence gap): a fatal producer never delivers
    /// again, and the rows it failed are pending anyway.
    pub(crate) fn recreate_if_fatal(&mut self) -> Result<(), KafkaError> {
        if let Some((code, reason)) = self.inner.client().fatal_error() {
            tracing::error!(
                ?code,
                reason,
                "the kafka producer hit a fatal error; recreating it"
            );
            self.inner = self
                .config
                .create_with_context(DeliveryContext::default())?;
        }
        Ok(())
    }

    /// Produces `messages` in order and waits for their delivery reports.
    /// Returns one outcome per message, in order.
    pub(crate) fn deliver(&mut self, messages: &[Outgoing]) -> Vec<Result<(), Failure>> {
        let first = self.next_opaque;
        self.next_opaque = self.next_opaque.wrapping_add(messages.len());
        let context = self.inner.context();
        {
            let mut reports = context.reports();
            reports.outcomes.clear();
            reports.batch = first..first.wrapping_add(messages.len());
            reports.wanted = usize::MAX;
        }
        let deadline = Instant::now() + self.wait;
        let mut outcomes: Vec<Option<Result<(), Failure>>> = vec![None; messages.len()];
        let mut expected = Vec::with_capacity(messages.len());
        for (i, message) in messages.iter().enumerate() {
            let opaque = first.wrapping_add(i);
            match self.enqueue(message, opaque, deadline) {
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
        outcomes
            .into_iter()
            .map(|o| {
                o.unwrap_or_else(|| {
                    Err(Failure {
                        code: None,
                        text: "not produced".to_owned(),
                    })
                })
            })
            .collect()
    }

    /// Enqueues one message, waiting while the local queue is full.
    fn enqueue(&self, message: &Outgoing, opaque: usize, deadline: Instant) -> Result<(), Failure> {
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
            match self.inner.send(record) {
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
}
