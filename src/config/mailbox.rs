//! The `[mailbox]` section: the shared AODB mailbox (MySQL / MariaDB), its
//! statuses, pool and time limits, and the mailbox settings every command
//! that reaches it is given.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{Config, ConfigError, redact_url};
use crate::mailbox::MailboxSettings;

/// The shared AODB mailbox.
#[derive(Clone, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct MailboxConfig {
    /// `mysql://…`; env `FLIGHTSTATE_MAILBOX_URL`.
    pub url: Option<String>,
    /// The `CMINMSGS_STATUS` value of rows waiting to be read.
    pub pending_status: String,
    /// The `CMINMSGS_STATUS` written back for a message applied (SUCCEEDED).
    pub succeeded_status: String,
    /// The `CMINMSGS_STATUS` written back for a dead letter (DEAD).
    pub dead_status: String,
    /// Connections in the mailbox pool (its own, separate from the state
    /// database's).
    pub pool_size: u32,
    /// How long to wait for a mailbox connection.
    pub connect_timeout_secs: u64,
    /// How long one read or write on a mailbox connection may block.
    pub io_timeout_secs: u64,
}

impl std::fmt::Debug for MailboxConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A URL's password stays out of logs.
        f.debug_struct("MailboxConfig")
            .field("url", &self.url.as_deref().map(redact_url))
            .field("pending_status", &self.pending_status)
            .field("succeeded_status", &self.succeeded_status)
            .field("dead_status", &self.dead_status)
            .field("pool_size", &self.pool_size)
            .field("connect_timeout_secs", &self.connect_timeout_secs)
            .field("io_timeout_secs", &self.io_timeout_secs)
            .finish()
    }
}

impl Default for MailboxConfig {
    fn default() -> Self {
        MailboxConfig {
            url: None,
            pending_status: "VALID".to_owned(),
            succeeded_status: "PROCESSED".to_owned(),
            dead_status: "DEAD".to_owned(),
            pool_size: 2,
            connect_timeout_secs: 5,
            io_timeout_secs: 30,
        }
    }
}

impl MailboxConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        super::database::refuse_zero_timeouts([
            ("mailbox.connect_timeout_secs", self.connect_timeout_secs),
            ("mailbox.io_timeout_secs", self.io_timeout_secs),
        ])
    }
}

impl Config {
    /// The mailbox URL.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Missing`] when it is not set.
    pub fn mailbox_url(&self) -> Result<&str, ConfigError> {
        self.mailbox.url.as_deref().ok_or(ConfigError::Missing {
            setting: "mailbox.url",
            env: "FLIGHTSTATE_MAILBOX_URL",
        })
    }

    /// The settings of the mailbox pool: `[mailbox]`, and `pump.lease_secs`
    /// as the longest a mailbox transaction may sit idle.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Missing`] when `mailbox.url` is not set.
    pub fn mailbox_settings(&self) -> Result<MailboxSettings, ConfigError> {
        let m = &self.mailbox;
        Ok(MailboxSettings {
            url: self.mailbox_url()?.to_owned(),
            pending_status: m.pending_status.clone(),
            succeeded_status: m.succeeded_status.clone(),
            dead_status: m.dead_status.clone(),
            pool_size: m.pool_size as usize,
            connect_timeout: Duration::from_secs(m.connect_timeout_secs),
            io_timeout: Duration::from_secs(m.io_timeout_secs),
            // A frozen process's write-back gives up its rows within the
            // lease, as its state transactions do (docs/pump.md, "A frozen
            // holder").
            idle_in_transaction: Some(Duration::from_secs(self.pump.lease_secs)),
        })
    }
}
