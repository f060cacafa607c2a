//! What a pump needs, opened from the configuration: the mailbox's settings
//! and pool, the pipeline's rules and the pump's settings, beside the
//! state database the command opened. Shared by `pump`, `run` and
//! `catch-up`, and the mailbox settings by every command that reaches the
//! mailbox.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use flightstate::config::Config;
use flightstate::mailbox::{Mailbox, MailboxSettings};
use flightstate::pipeline::Rules;
use flightstate::pump::PumpSettings;

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
