//! `flightstate dispatch [--until-idle]`: the Kafka dispatcher alone —
//! sends the outbox (`KAFKA_SCHD`, `KAFKA_MSG`) to the state and change
//! topics. Stops on SIGTERM or Ctrl-C after the pass in hand. Waits while
//! `flightstate resync` holds the pump lease.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use flightstate::config::Config;
use flightstate::dispatch::{DispatchSettings, Dispatcher, KafkaSettings};
use flightstate::mailbox::Mailbox;
use flightstate::resync::NotDuringResync;
use flightstate::store::Store;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::pump::stop_on_signals;

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Stop once nothing is due. Exits 0 when the outbox is empty, 1 when
    /// rows wait for a retry (e.g. the broker is down).
    #[arg(long)]
    until_idle: bool,
}

pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    super::open_store::check_before_start(config.database_url()?, config)?;
    let stop = stop_on_signals()?;
    super::open_store::with_store(
        config,
        config.database.pool_size,
        DispatchAlone {
            config,
            stop,
            until_idle: opts.until_idle,
        },
    )
}

/// The dispatcher alone, over whichever state database is configured.
struct DispatchAlone<'a> {
    config: &'a Config,
    stop: Arc<AtomicBool>,
    until_idle: bool,
}

impl super::open_store::StoreWork for DispatchAlone<'_> {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        dispatch_alone(self, store)
    }
}

fn dispatch_alone<S: Store + Clone>(work: DispatchAlone<'_>, store: S) -> anyhow::Result<ExitCode> {
    let DispatchAlone {
        config,
        stop,
        until_idle,
    } = work;
    let opts = Opts { until_idle };
    // A resync reads the state topic and raises versions above it: nothing
    // may reach the topic meanwhile (docs/operations.md, "After a restore").
    let gate = NotDuringResync::new(store.clone());
    // The heartbeat reports the mailbox's backlog when one is configured.
    let mailbox = super::serve::optional_mailbox(config)?;
    let mut dispatcher = open(config, store, mailbox)?;
    let report = dispatcher
        .run_while(&stop, opts.until_idle, &gate)
        .context("the dispatcher stopped")?;
    let pending = dispatcher.pending()?;
    println!(
        "dispatched: {} state events as {} messages, {} change notices; pending: {} state events, {} change notices",
        report.state.sent,
        report.state.produced,
        report.change.sent,
        pending.state_events,
        pending.change_notices
    );
    if opts.until_idle && (pending.state_events > 0 || pending.change_notices > 0) {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// A dispatcher over `store` with the configuration's `[kafka]` settings,
/// its heartbeats reporting the backlog of `mailbox`.
pub(super) fn open<S: Store>(
    config: &Config,
    store: S,
    mailbox: Option<Arc<Mailbox>>,
) -> anyhow::Result<Dispatcher<S>> {
    let k = &config.kafka;
    let kafka = KafkaSettings {
        linger: Duration::from_millis(k.linger_ms),
        delivery_timeout: Duration::from_millis(k.delivery_timeout_ms),
        create_topics: k.create_topics,
        topic_partitions: i32::try_from(k.topic_partitions).unwrap_or(i32::MAX),
        topic_replication: i32::try_from(k.topic_replication).unwrap_or(i32::MAX),
        allow_uncompacted_state_topic: k.allow_uncompacted_state_topic,
        ..KafkaSettings::of(config.kafka_client()?)
    };
    let settings = DispatchSettings {
        state_topic: k.state_topic.clone(),
        change_topic: k.change_topic.clone(),
        batch_size: i64::from(k.batch_size),
        lanes: k.lanes,
        backoff_initial: Duration::from_millis(k.backoff_initial_ms),
        backoff_max: Duration::from_millis(k.backoff_max_ms),
        idle_poll: Duration::from_millis(k.idle_poll_ms),
    };
    let heartbeat = k.heartbeat(config.station.home_airport.as_deref());
    Dispatcher::new(store, kafka, settings)
        .and_then(|dispatcher| dispatcher.with_heartbeat(heartbeat, mailbox))
        .context("cannot start the dispatcher")
}
