//! `OracleStore`: the Oracle 11g state database behind an r2d2 pool, and the transaction
//! guard that rolls back in `Drop`.

use std::time::Duration;

use r2d2::{Pool, PooledConnection};

use super::conn::{OracleManager, OracleUrl};
use super::tx::OracleTx;
use crate::FailureKind;
use crate::store::PoolCount;
use crate::store::pool_log::PoolErrorLog;
use crate::store::{Store, StoreError, Timeouts};

/// The Oracle 11g state database.
#[derive(Clone)]
pub struct OracleStore {
    pool: Pool<OracleManager>,
    /// The id-list type as the sessions name it (owner-qualified for an application user).
    id_list_type: std::sync::Arc<str>,
}

impl std::fmt::Debug for OracleStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The manager holds the password.
        f.debug_struct("OracleStore").finish_non_exhaustive()
    }
}

impl OracleStore {
    /// Opens a pool of at most `pool_size` sessions to `database_url`
    /// (`oracle://user:password@host:port/service_name`); a thread waits at most
    /// `connection_timeout` for one. The Oracle client library (Instant Client 11.2 or later)
    /// is loaded on the first connection, not before.
    ///
    /// # Errors
    ///
    /// A [`StoreError`] of kind `Other` for a malformed URL or a missing client library, or
    /// `ConnectionLost` when the server cannot be reached.
    pub fn connect(
        database_url: &str,
        pool_size: u32,
        connection_timeout: Duration,
    ) -> Result<OracleStore, StoreError> {
        Self::connect_with(
            database_url,
            pool_size,
            connection_timeout,
            &Timeouts::default(),
        )
    }

    /// [`OracleStore::connect`] with `timeouts`: every round trip of a session is bounded by
    /// the client's call timeout (see [`OracleManager::new`]).
    ///
    /// # Errors
    ///
    /// As [`OracleStore::connect`].
    pub fn connect_with(
        database_url: &str,
        pool_size: u32,
        connection_timeout: Duration,
        timeouts: &Timeouts,
    ) -> Result<OracleStore, StoreError> {
        let url = OracleUrl::parse(database_url)?;
        let manager = OracleManager::new(url, Some(timeouts));
        let id_list_type = std::sync::Arc::from(manager.id_list_type());
        // Open one session first: r2d2 would only say "timed out" for a wrong password or a
        // missing client library; the driver's own error says which.
        let probe = manager
            .open()
            .map_err(|e| super::errors::query("connect to the Oracle state database", e))?;
        drop(probe);
        let pool = Pool::builder()
            .max_size(pool_size)
            .min_idle(Some(0))
            .connection_timeout(connection_timeout)
            .test_on_check_out(true)
            .error_handler(Box::new(PoolErrorLog::new("state database")))
            .build(manager)
            .map_err(|e| {
                StoreError::new(FailureKind::ConnectionLost, "open the connection pool", e)
            })?;
        Ok(OracleStore { pool, id_list_type })
    }

    fn checkout(&self) -> Result<PooledConnection<OracleManager>, StoreError> {
        self.pool.get().map_err(|e| {
            StoreError::new(
                FailureKind::ConnectionLost,
                "get a pooled connection (server down, or pool exhausted: raise `database.pool_size`)",
                e,
            )
        })
    }
}

/// A pooled session with a transaction open. `oracle` has no transaction type (autocommit
/// is off; work is committed or rolled back explicitly), so this guard rolls back in `Drop`
/// unless [`TxGuard::commit`] ran: neither `?` nor a panic can return open work to the pool.
pub(super) struct TxGuard {
    conn: PooledConnection<OracleManager>,
    done: bool,
}

impl TxGuard {
    pub(super) fn new(conn: PooledConnection<OracleManager>) -> TxGuard {
        TxGuard { conn, done: false }
    }

    pub(super) fn conn(&self) -> &oracle::Connection {
        &self.conn
    }

    /// Commits the work.
    pub(super) fn commit(mut self) -> Result<(), StoreError> {
        self.done = true;
        self.conn
            .commit()
            .map_err(super::errors::at("commit the transaction"))
    }
}

impl Drop for TxGuard {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        if let Err(e) = self.conn.rollback() {
            // The session is then most likely dead, and r2d2's `has_broken` drops it.
            tracing::warn!(error = %e, "rollback of an abandoned Oracle transaction failed");
        }
    }
}

impl Store for OracleStore {
    type Tx<'c> = OracleTx<'c>;

    fn transaction<T, E, F>(&self, work: F) -> Result<T, E>
    where
        E: From<StoreError>,
        F: FnOnce(&mut OracleTx<'_>) -> Result<T, E>,
    {
        let guard = TxGuard::new(self.checkout()?);
        let value = {
            let mut tx = OracleTx::new(guard.conn(), &self.id_list_type);
            work(&mut tx)?
        };
        guard.commit()?;
        Ok(value)
    }

    fn pool_count(&self) -> Option<PoolCount> {
        Some(PoolCount::of(&self.pool))
    }
}
