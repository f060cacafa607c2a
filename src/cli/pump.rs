//! `flightstate pump [--until-idle]`: the main pump alone, making its own
//! write-backs after each batch. Stops gracefully on SIGTERM or Ctrl-C: the
//! message in hand is finished (or rolled back), then the lease is released.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use flightstate::config::Config;
use flightstate::mailbox::{Mailbox, MailboxSettings};
use flightstate::pipeline::Rules;
use flightstate::pump::{Pump, PumpSettings};
use flightstate::store::Store;

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Stop (exit 0) once no message is pending and every write-back is made.
    #[arg(long)]
    until_idle: bool,
}

pub fn run(opts: Opts, config: &Config) -> anyhow::Result<ExitCode> {
    super::state_db::check_before_start(config.database_url()?, config)?;
    let stop = stop_on_signals()?;
    super::state_db::with_store(
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

impl super::state_db::StoreWork for PumpAlone<'_> {
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

/// Everything a pump needs, opened from the configuration.
pub(super) struct Parts<S> {
    pub(super) store: S,
    pub(super) mailbox: Arc<Mailbox>,
    pub(super) pipeline: Rules,
    pub(super) pump: PumpSettings,
}

impl<S> Parts<S> {
    pub(super) fn open(
        config: &Config,
        store: S,
        inline_effects: bool,
    ) -> anyhow::Result<Parts<S>> {
        let mailbox =
            Mailbox::connect(mailbox_settings(config)?).context("cannot open the mailbox pool")?;
        Ok(Parts {
            store,
            mailbox: Arc::new(mailbox),
            pipeline: config.pipeline_rules(),
            pump: config.pump.pump_settings(inline_effects),
        })
    }
}

pub(super) fn mailbox_settings(config: &Config) -> anyhow::Result<MailboxSettings> {
    let m = &config.mailbox;
    Ok(MailboxSettings {
        url: config.mailbox_url()?.to_owned(),
        pending_status: m.pending_status.clone(),
        succeeded_status: m.succeeded_status.clone(),
        dead_status: m.dead_status.clone(),
        pool_size: m.pool_size as usize,
        connect_timeout: Duration::from_secs(m.connect_timeout_secs),
        io_timeout: Duration::from_secs(m.io_timeout_secs),
        // A frozen process's write-back gives up its rows within the
        // lease, as its state transactions do (docs/pump.md, "A frozen
        // holder").
        idle_in_transaction: Some(Duration::from_secs(config.pump.lease_secs)),
    })
}
