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
    /// `connection_timeout` for one. The Oracle client library (Instant Client 19c or 18c, the last
    /// that connect to an 11.2 server: `docs/oracle.md`) is loaded on the first connection, not
    /// before.
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

/// What the transaction guard needs of a session: `oracle::Connection`'s calls, named apart
/// so that a commit that fails can be tested without a server.
pub(super) trait Session {
    fn commit(&self) -> oracle::Result<()>;
    fn rollback(&self) -> oracle::Result<()>;
    /// Closes the session: the pool's `has_broken` then sees it closed and drops it.
    fn close(&self) -> oracle::Result<()>;
}

impl Session for PooledConnection<OracleManager> {
    fn commit(&self) -> oracle::Result<()> {
        oracle::Connection::commit(self)
    }

    fn rollback(&self) -> oracle::Result<()> {
        oracle::Connection::rollback(self)
    }

    fn close(&self) -> oracle::Result<()> {
        oracle::Connection::close(self)
    }
}

/// A pooled session with a transaction open. `oracle` has no transaction type (autocommit
/// is off; work is committed or rolled back explicitly), so this guard rolls back in `Drop`
/// unless [`TxGuard::commit`] succeeded: neither `?`, a panic nor a commit that fails can
/// return open work to the pool.
pub(super) struct TxGuard<S: Session = PooledConnection<OracleManager>> {
    conn: S,
    done: bool,
}

impl<S: Session> TxGuard<S> {
    pub(super) fn new(conn: S) -> TxGuard<S> {
        TxGuard { conn, done: false }
    }

    /// Commits the work. The transaction counts as done only once the commit succeeded: a
    /// commit that fails (a deferred constraint, ORA-02091; a lost link; a call timeout)
    /// leaves it to `Drop`, which rolls back, or closes the session when even that fails.
    pub(super) fn commit(mut self) -> Result<(), StoreError> {
        self.conn
            .commit()
            .map_err(super::errors::at("commit the transaction"))?;
        self.done = true;
        Ok(())
    }
}

impl TxGuard {
    pub(super) fn conn(&self) -> &oracle::Connection {
        &self.conn
    }
}

impl<S: Session> Drop for TxGuard<S> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let Err(e) = self.conn.rollback() else {
            return;
        };
        // Whether the session still holds the work is then unknown: closed, it is dropped by
        // the pool (`has_broken` reads a closed status) instead of handed to the next caller.
        // Should the close fail too, the ping on the next check-out still drops it.
        tracing::warn!(error = %e, "rollback of an abandoned Oracle transaction failed; closing the session");
        if let Err(e) = self.conn.close() {
            tracing::warn!(error = %e, "closing the Oracle session after a failed rollback failed");
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

#[cfg(test)]
mod tests {
    //! The guard over an in-process session whose commit fails: no Oracle server can run
    //! where this is built, so the failing commit is simulated here; on a real server,
    //! `tests/oracle_first_contact.rs` makes a deferred constraint fail at commit.
    use std::cell::RefCell;

    use super::*;

    /// A session that records the calls it gets, failing those it is told to.
    #[derive(Default)]
    struct Recorded {
        calls: RefCell<Vec<&'static str>>,
        failing: Vec<&'static str>,
    }

    impl Recorded {
        fn failing(calls: &[&'static str]) -> Recorded {
            Recorded {
                failing: calls.to_vec(),
                ..Recorded::default()
            }
        }

        fn call(&self, name: &'static str) -> oracle::Result<()> {
            self.calls.borrow_mut().push(name);
            if self.failing.contains(&name) {
                #[allow(deprecated)] // the only public way to build an OCI error without a server
                return Err(oracle::Error::OciError(oracle::DbError::new(
                    2091,
                    0,
                    "ORA-02091: transaction rolled back",
                    "dpiConn_commit",
                    name,
                )));
            }
            Ok(())
        }
    }

    impl Session for &Recorded {
        fn commit(&self) -> oracle::Result<()> {
            self.call("commit")
        }
        fn rollback(&self) -> oracle::Result<()> {
            self.call("rollback")
        }
        fn close(&self) -> oracle::Result<()> {
            self.call("close")
        }
    }

    #[test]
    fn a_commit_that_succeeds_is_all_the_session_sees() {
        let session = Recorded::default();
        TxGuard::new(&session).commit().expect("commit");
        assert_eq!(*session.calls.borrow(), ["commit"]);
    }

    #[test]
    fn a_commit_that_fails_is_rolled_back_before_the_session_returns_to_the_pool() {
        let session = Recorded::failing(&["commit"]);
        let err = TxGuard::new(&session)
            .commit()
            .expect_err("the commit fails");
        assert_eq!(err.op(), "commit the transaction");
        assert_eq!(*session.calls.borrow(), ["commit", "rollback"]);
    }

    #[test]
    fn a_session_that_cannot_roll_back_is_closed_so_the_pool_drops_it() {
        let session = Recorded::failing(&["commit", "rollback"]);
        TxGuard::new(&session)
            .commit()
            .expect_err("the commit fails");
        assert_eq!(*session.calls.borrow(), ["commit", "rollback", "close"]);
    }

    #[test]
    fn abandoned_work_is_rolled_back() {
        let session = Recorded::default();
        drop(TxGuard::new(&session));
        assert_eq!(*session.calls.borrow(), ["rollback"]);
    }
}
