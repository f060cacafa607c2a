//! The time limits every state-database connection is opened with, in one
//! dialect-neutral shape; each dialect applies them where its driver allows
//! (`pg::PgStore::connect_with`, `oracle::OracleStore::connect_with`).

use std::time::Duration;

/// How long the state database may keep a caller waiting.
///
/// Two different things are bounded: a *silent link* (the server or the
/// network stopped answering; nothing will ever come) by `io`, and a
/// *statement* that works for long by `statement`. They are kept apart so
/// that a lock wait or a large snapshot's COPY may take its time while a
/// dead link is still noticed within `io`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// Opening one connection (TCP, TLS, authentication).
    pub connect: Duration,
    /// A connection without any sign of life from the other side for this
    /// long is given up (TCP keepalive and user timeout, on both ends).
    pub io: Duration,
    /// The longest a statement may run on the server; `None` leaves the
    /// server's setting.
    pub statement: Option<Duration>,
    /// The longest a transaction may wait for its client between two
    /// statements before the server ends the session, and its locks with
    /// it; `None` leaves the server's setting. Keepalive cannot do this: a
    /// frozen client's kernel still answers for it (`docs/pump.md`, "A
    /// frozen holder").
    pub idle_in_transaction: Option<Duration>,
}

impl Default for Timeouts {
    /// The defaults of `[database]` (`docs/configuration.md`).
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(5),
            io: Duration::from_secs(30),
            statement: Some(Duration::from_secs(60)),
            idle_in_transaction: None,
        }
    }
}
