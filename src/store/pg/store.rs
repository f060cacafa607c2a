//! `PgStore`: the PostgreSQL state database behind an r2d2 pool, and its
//! transactions.

use std::time::Duration;

use diesel::PgConnection;
use diesel::connection::Connection;
use diesel::r2d2::{ConnectionManager, Pool, PooledConnection};

use super::errors;
use super::tx::PgTx;
use crate::FailureKind;
use crate::store::{Store, StoreError};

/// The PostgreSQL state database.
#[derive(Clone)]
pub struct PgStore {
    pool: Pool<ConnectionManager<PgConnection>>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The pool's manager holds the URL, which may carry a password.
        f.debug_struct("PgStore").finish_non_exhaustive()
    }
}

impl PgStore {
    /// Opens a pool of at most `pool_size` connections; a thread waits at
    /// most `connection_timeout` for one.
    ///
    /// # Errors
    ///
    /// A [`StoreError`] of kind `ConnectionLost` when the server cannot be
    /// reached.
    pub fn connect(
        database_url: &str,
        pool_size: u32,
        connection_timeout: Duration,
    ) -> Result<PgStore, StoreError> {
        let pool = Pool::builder()
            .max_size(pool_size)
            .min_idle(Some(0))
            .connection_timeout(connection_timeout)
            .test_on_check_out(true)
            .build(ConnectionManager::new(database_url))
            .map_err(|e| {
                StoreError::new(FailureKind::ConnectionLost, "open the connection pool", e)
            })?;
        Ok(PgStore { pool })
    }

    /// Wraps a pool built elsewhere (tests size theirs).
    pub fn from_pool(pool: Pool<ConnectionManager<PgConnection>>) -> PgStore {
        PgStore { pool }
    }

    fn checkout(&self) -> Result<PooledConnection<ConnectionManager<PgConnection>>, StoreError> {
        self.pool.get().map_err(|e| {
            StoreError::new(
                FailureKind::ConnectionLost,
                "get a pooled connection (server down, or pool exhausted: raise `database.pool_size`)",
                e,
            )
        })
    }
}

/// The error of a transaction's body, or diesel's own at begin or commit.
enum TxError<E> {
    Work(E),
    Diesel(diesel::result::Error),
}

impl<E> From<diesel::result::Error> for TxError<E> {
    fn from(e: diesel::result::Error) -> Self {
        TxError::Diesel(e)
    }
}

impl Store for PgStore {
    type Tx<'c> = PgTx<'c>;

    fn transaction<T, E, F>(&self, work: F) -> Result<T, E>
    where
        E: From<StoreError>,
        F: FnOnce(&mut PgTx<'_>) -> Result<T, E>,
    {
        let mut conn = self.checkout()?;
        let outcome = conn.transaction::<T, TxError<E>, _>(|conn| {
            work(&mut PgTx::new(conn)).map_err(TxError::Work)
        });
        match outcome {
            Ok(value) => Ok(value),
            Err(TxError::Work(e)) => Err(e),
            Err(TxError::Diesel(e)) => {
                Err(errors::query("begin or commit the transaction", e).into())
            }
        }
    }
}
