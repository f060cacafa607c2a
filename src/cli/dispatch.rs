//! `flightstate dispatch [--until-idle]`: the Kafka dispatcher alone —
//! sends the outbox (`KAFKA_SCHD`, `KAFKA_MSG`) to the state and change
//! topics. Stops on SIGTERM or Ctrl-C after the pass in hand. Waits while
//! `flightstate resync` holds the pump lease.

use std::process::ExitCode;

use anyhow::Context;
use flightstate::config::Config;
use flightstate::dispatch::Dispatcher;
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
    let kafka = config.kafka.producer_settings()?;
    let settings = config.kafka.dispatch_settings();
    let heartbeat = config
        .kafka
        .heartbeat(config.station.home_airport.as_deref());
    Dispatcher::new(store, kafka, settings)
        .and_then(|dispatcher| dispatcher.with_heartbeat(heartbeat, mailbox))
        .context("cannot start the dispatcher")
}
