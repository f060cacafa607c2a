//! `flightstate run`: the whole pipeline in one process, each part on its
//! own thread sharing the pools — the pump, the effect worker (mailbox
//! write-backs), the Kafka dispatcher, the read API (unless `api.bind`
//! is empty) and the lifecycle clean-up (when `cleanup.every_secs` is set).
//! SIGTERM or Ctrl-C stops every thread after its unit of work; the pump
//! releases its lease.

use std::process::ExitCode;
use std::sync::Arc;

use flightstate::config::Config;
use flightstate::dispatch::Gate;
use flightstate::doorbell::Doorbell;
use flightstate::pump::{Pump, SharedLease, run_effect_worker};
use flightstate::store::Store;
use std::sync::atomic::AtomicBool;
use std::thread::JoinHandle;

use super::pump::stop_on_signals;
use super::pump_parts::Parts;

#[derive(Debug, clap::Args)]
pub struct Opts {}

pub fn run(_opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    super::open_store::check_before_start(config.database_url()?, config)?;
    let stop = stop_on_signals()?;
    super::open_store::with_store(
        config,
        config.database.pool_size,
        Everything { config, stop },
    )
}

/// The whole pipeline, over whichever state database is configured.
struct Everything<'a> {
    config: &'a Config,
    stop: Arc<AtomicBool>,
}

impl super::open_store::StoreWork for Everything<'_> {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        run_everything(self.config, self.stop, store)
    }
}

fn run_everything<S: Store + Clone>(
    config: &Config,
    stop: Arc<AtomicBool>,
    store: S,
) -> anyhow::Result<ExitCode> {
    let parts = Parts::open(config, store, false)?;
    let catching = super::catch_up::Catching::new(config, &parts)?;
    let (pump_store, pump_mailbox) = (parts.store.clone(), Arc::clone(&parts.mailbox));
    let api_thread = super::serve::spawn(config, &parts.store, &parts.mailbox, &stop)?;
    let worker_store = parts.store.clone();
    // The pump rings it when it commits: the dispatcher sends, and the
    // effect worker writes back, at once instead of at their next look.
    let doorbell = Doorbell::new();
    let mut dispatcher = super::dispatch::open(
        config,
        parts.store.clone(),
        Some(Arc::clone(&parts.mailbox)),
    )?
    .with_doorbell(doorbell.clone());
    let worker_doorbell = doorbell.clone();
    let worker_mailbox = Arc::clone(&parts.mailbox);
    let worker_settings = parts.pump.clone();
    let mut pump =
        Pump::new(parts.store, parts.mailbox, parts.pipeline, parts.pump).with_doorbell(doorbell);
    let lease = pump.shared_lease();
    let dispatch_gate = LeaseHeld(pump.shared_lease());
    let cleanup_thread = spawn_cleanup(config, &worker_store, &pump, &stop)?;
    let pump_stop = Arc::clone(&stop);
    let worker_stop = Arc::clone(&stop);
    let dispatch_stop = Arc::clone(&stop);
    let pump_thread = std::thread::Builder::new()
        .name("pump".to_owned())
        .spawn(move || {
            let span = tracing::info_span!("worker", worker.name = "pump");
            let _enter = span.enter();
            let outcome = catching.pump(&mut pump, (&pump_store, &pump_mailbox), &pump_stop, false);
            // The other threads stop with the pump.
            pump_stop.store(true, std::sync::atomic::Ordering::SeqCst);
            outcome.map_err(|e| anyhow::anyhow!("the pump stopped: {e}"))
        })?;
    let worker_thread = std::thread::Builder::new()
        .name("effects".to_owned())
        .spawn(move || {
            run_effect_worker(
                &worker_store,
                &worker_mailbox,
                &lease,
                &worker_settings,
                &worker_doorbell,
                &worker_stop,
            )
        })?;
    let dispatch_thread = std::thread::Builder::new()
        .name("dispatch".to_owned())
        .spawn(move || {
            let span = tracing::info_span!("worker", worker.name = "dispatch");
            let _enter = span.enter();
            let outcome = dispatcher.run_while(&dispatch_stop, false, &dispatch_gate);
            if outcome.is_err() {
                // Only a fault retrying cannot fix ends the dispatcher:
                // stop the whole process rather than pile up the outbox.
                dispatch_stop.store(true, std::sync::atomic::Ordering::SeqCst);
            }
            outcome
        })?;
    let pumped = pump_thread
        .join()
        .map_err(|_| anyhow::anyhow!("the pump thread panicked"))?;
    worker_thread
        .join()
        .map_err(|_| anyhow::anyhow!("the effect worker thread panicked"))?;
    dispatch_thread
        .join()
        .map_err(|_| anyhow::anyhow!("the dispatcher thread panicked"))?
        .map_err(|e| anyhow::anyhow!("the dispatcher stopped: {e:#}"))?;
    if let Some(cleanup) = cleanup_thread {
        cleanup
            .join()
            .map_err(|_| anyhow::anyhow!("the clean-up thread panicked"))?;
    }
    if let Some(api) = api_thread {
        api.join()
            .map_err(|_| anyhow::anyhow!("the read API thread panicked"))?;
    }
    let summary = pumped?;
    tracing::info!(messages = summary.messages, "stopped");
    Ok(ExitCode::SUCCESS)
}

/// The dispatcher's gate in `run`: open while this process's pump holds the
/// lease. Two `run` processes (active and standby) then never dispatch at
/// the same time, and a flight's versions leave from one process.
struct LeaseHeld(SharedLease);

impl Gate for LeaseHeld {
    fn is_open(&self) -> bool {
        match self.0.lock() {
            Ok(lease) => lease.is_some(),
            // Plain data: a panic elsewhere leaves it whole.
            Err(poisoned) => poisoned.into_inner().is_some(),
        }
    }

    fn why_closed(&self) -> &str {
        "this process's pump does not hold the lease; the dispatcher of the process that \
         holds it sends the outbox"
    }
}

/// Starts the clean-up thread, or nothing when the job is off
/// (`cleanup.every_secs`): it cleans up while this process's pump holds the
/// lease, as the dispatcher sends only then.
fn spawn_cleanup<S: Store + Clone>(
    config: &Config,
    store: &S,
    pump: &Pump<S>,
    stop: &Arc<AtomicBool>,
) -> anyhow::Result<Option<JoinHandle<()>>> {
    let Some(every) = config.cleanup.every() else {
        return Ok(None);
    };
    let settings = config.cleanup_settings();
    let store = store.clone();
    let stop = Arc::clone(stop);
    let lease = LeaseHeld(pump.shared_lease());
    let thread = std::thread::Builder::new()
        .name("cleanup".to_owned())
        .spawn(move || {
            let span = tracing::info_span!("worker", worker.name = "cleanup");
            let _enter = span.enter();
            tracing::info!(every_secs = every.as_secs(), "clean-up job on");
            flightstate::cleanup::run_every(&store, &settings, every, &stop, &|| lease.is_open());
        })?;
    Ok(Some(thread))
}
