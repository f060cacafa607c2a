//! What a pump needs, opened from the configuration: the mailbox pool, the
//! pipeline's rules and the pump's settings, beside the state database the
//! command opened. Shared by `pump`, `run` and `catch-up`.

use std::sync::Arc;

use anyhow::Context;
use flightstate::config::Config;
use flightstate::mailbox::Mailbox;
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
            Mailbox::connect(config.mailbox_settings()?).context("cannot open the mailbox pool")?;
        Ok(Parts {
            store,
            mailbox: Arc::new(mailbox),
            pipeline: config.pipeline_rules(),
            pump: config.pump.pump_settings(inline_effects),
        })
    }
}
