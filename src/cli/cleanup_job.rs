//! The clean-up thread of `flightstate run`, when `cleanup.every_secs` is
//! set: it cleans up while this process's pump holds the lease, as the
//! dispatcher sends only then.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::thread::JoinHandle;

use flightstate::config::Config;
use flightstate::dispatch::Gate;
use flightstate::pump::Pump;
use flightstate::store::Store;

use super::run::LeaseHeld;

/// Starts the clean-up thread, or nothing when the job is off.
pub fn spawn<S: Store + Clone>(
    config: &Config,
    store: &S,
    pump: &Pump<S>,
    stop: &Arc<AtomicBool>,
) -> anyhow::Result<Option<JoinHandle<()>>> {
    let Some(every) = config.cleanup.every() else {
        return Ok(None);
    };
    let settings = config.cleanup.settings(config.day_boundary());
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
