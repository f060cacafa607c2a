//! `flightstate pump [--until-idle]`: the main pump alone, making its own
//! write-backs after each batch. Stops gracefully on SIGTERM or Ctrl-C: the
//! message in hand is finished (or rolled back), then the lease is released.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use flightstate::config::Config;
use flightstate::pump::Pump;
use flightstate::store::Store;

use super::pump_parts::Parts;

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Stop (exit 0) once no message is pending and every write-back is made.
    #[arg(long)]
    until_idle: bool,
}

pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    super::open_store::check_before_start(config.database_url()?, config)?;
    let stop = stop_on_signals()?;
    super::open_store::with_store(
        config,
        config.database.pool_size,
        PumpAlone {
            config,
            stop,
            until_idle: opts.until_idle,
        },
    )
}

/// The pump alone, over whichever state database is configured.
struct PumpAlone<'a> {
    config: &'a Config,
    stop: Arc<AtomicBool>,
    until_idle: bool,
}

impl super::open_store::StoreWork for PumpAlone<'_> {
    fn run<S: Store + Clone>(self, store: S) -> anyhow::Result<ExitCode> {
        let parts = Parts::open(self.config, store, true)?;
        let catching = super::catch_up::Catching::new(self.config, &parts)?;
        let (store, mailbox) = (parts.store.clone(), Arc::clone(&parts.mailbox));
        let mut pump = Pump::new(parts.store, parts.mailbox, parts.pipeline, parts.pump);
        let summary = catching
            .pump(&mut pump, (&store, &mailbox), &self.stop, self.until_idle)
            .map_err(|e| anyhow::anyhow!("the pump stopped: {e}"))?;
        tracing::info!(messages = summary.messages, "pump stopped");
        Ok(ExitCode::SUCCESS)
    }
}

/// A flag set by SIGTERM or Ctrl-C (SIGINT).
pub(super) fn stop_on_signals() -> anyhow::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || {
        tracing::info!("stop requested; finishing the message in hand");
        flag.store(true, Ordering::SeqCst);
    })
    .context("cannot install the SIGTERM / Ctrl-C handler")?;
    Ok(stop)
}
