//! The `[database]` section: the state database's link, pool and time
//! limits, and how PostgreSQL loads new flights.

use serde::{Deserialize, Serialize};

use super::{ConfigError, database_dialect, redact_url};

/// The state database.
#[derive(Clone, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct DatabaseConfig {
    /// `postgres://…` or `oracle://…`; env `FLIGHTSTATE_DATABASE_URL`.
    pub url: Option<String>,
    /// Connections in the pool shared by the pump, the dispatcher and the
    /// read API.
    pub pool_size: u32,
    /// How long a thread waits for a pooled connection before it reports the
    /// pool as exhausted.
    pub connection_timeout_secs: u64,
    /// How long opening one connection may take (TCP, TLS, authentication).
    pub connect_timeout_secs: u64,
    /// How long a connection may go without a sign of life from the server
    /// (TCP keepalive, unacknowledged data) before it is given up: a link
    /// that went silent is noticed within this time, however long the
    /// statement in flight is allowed to run.
    pub io_timeout_secs: u64,
    /// How long one statement may run on the server; 0 leaves the server's
    /// own setting.
    pub statement_timeout_secs: u64,
    /// PostgreSQL: new flights' main rows are loaded by `COPY` (hand-encoded
    /// binary rows, the faster way for a day's first snapshot); `false`
    /// writes them with the plain `insert_flights` statement. Either way a
    /// flight that has a row is never overwritten by it.
    pub copy_new_flights: bool,
    /// PostgreSQL: a snapshot's detail rows are loaded by `COPY` (diesel's
    /// binary `COPY`, one per table); `false` inserts them by statement, as
    /// a flight event's few rows always are.
    pub copy_detail_rows: bool,
}

impl Default for DatabaseConfig {
    fn default() -> Self {
        DatabaseConfig {
            url: None,
            pool_size: 8,
            connection_timeout_secs: 10,
            connect_timeout_secs: 5,
            io_timeout_secs: 30,
            statement_timeout_secs: 60,
            copy_new_flights: true,
            copy_detail_rows: true,
        }
    }
}

impl std::fmt::Debug for DatabaseConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A URL's password stays out of logs.
        f.debug_struct("DatabaseConfig")
            .field("url", &self.url.as_deref().map(redact_url))
            .field("pool_size", &self.pool_size)
            .field("connection_timeout_secs", &self.connection_timeout_secs)
            .field("connect_timeout_secs", &self.connect_timeout_secs)
            .field("io_timeout_secs", &self.io_timeout_secs)
            .field("statement_timeout_secs", &self.statement_timeout_secs)
            .field("copy_new_flights", &self.copy_new_flights)
            .field("copy_detail_rows", &self.copy_detail_rows)
            .finish()
    }
}

impl DatabaseConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if self.pool_size == 0 {
            return Err(ConfigError::BadValue {
                setting: "database.pool_size",
                value: "0".to_owned(),
                reason: "a pool needs at least one connection",
            });
        }
        if let Some(url) = &self.url {
            database_dialect(url)?;
        }
        refuse_zero_timeouts([
            ("database.connect_timeout_secs", self.connect_timeout_secs),
            ("database.io_timeout_secs", self.io_timeout_secs),
        ])
    }

    /// The time limits of `[database]` alone, with no limit on an idle
    /// transaction.
    pub fn timeouts(&self) -> crate::store::Timeouts {
        crate::store::Timeouts {
            connect: std::time::Duration::from_secs(self.connect_timeout_secs),
            io: std::time::Duration::from_secs(self.io_timeout_secs),
            statement: (self.statement_timeout_secs > 0)
                .then(|| std::time::Duration::from_secs(self.statement_timeout_secs)),
            idle_in_transaction: None,
        }
    }
}

/// Refuses a link's time limit of 0 (`(setting, seconds)`): a server that
/// went silent would then stall its caller for ever.
pub(super) fn refuse_zero_timeouts<const N: usize>(
    timeouts: [(&'static str, u64); N],
) -> Result<(), ConfigError> {
    match timeouts.into_iter().find(|(_, secs)| *secs == 0) {
        Some((setting, _)) => Err(ConfigError::BadValue {
            setting,
            value: "0".to_owned(),
            reason: "must be at least 1: without it a silent link stalls for ever",
        }),
        None => Ok(()),
    }
}

impl super::Config {
    /// The state database URL.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Missing`] when it is not set.
    pub fn database_url(&self) -> Result<&str, ConfigError> {
        self.database.url.as_deref().ok_or(ConfigError::Missing {
            setting: "database.url",
            env: "FLIGHTSTATE_DATABASE_URL",
        })
    }

    /// The time limits of every state-database connection the commands
    /// open: `[database]`'s, and `pump.lease_secs` as the longest a
    /// transaction may sit idle. A process frozen inside a transaction
    /// (holding `PIPELINE_LOCK`, the lease row, outbox rows) then loses it
    /// within the lease, so a standby takes over within about one lease
    /// (`docs/pump.md`, "A frozen holder"); no transaction of the pipeline
    /// waits that long for its client otherwise.
    pub fn state_database_timeouts(&self) -> crate::store::Timeouts {
        crate::store::Timeouts {
            idle_in_transaction: Some(std::time::Duration::from_secs(self.pump.lease_secs)),
            ..self.database.timeouts()
        }
    }
}
