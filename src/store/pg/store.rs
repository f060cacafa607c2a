//! `PgStore`: the PostgreSQL state database behind an r2d2 pool, and its
//! transactions.
//!
//! Every connection is opened with the time limits of [`Timeouts`], written
//! into the libpq URL here and nowhere else (see [`with_timeouts`]).

use std::fmt::Write as _;
use std::time::Duration;

use diesel::PgConnection;
use diesel::connection::Connection;
use diesel::r2d2::{ConnectionManager, Pool, PooledConnection};

use super::copy::{DetailRows, NewFlights};
use super::errors;
use super::tx::PgTx;
use crate::FailureKind;
use crate::store::PoolCount;
use crate::store::pool_log::PoolErrorLog;
use crate::store::{Store, StoreError, Timeouts};

/// The PostgreSQL state database.
#[derive(Clone)]
pub struct PgStore {
    pool: Pool<ConnectionManager<PgConnection>>,
    new_flights: NewFlights,
    detail_rows: DetailRows,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The pool's manager holds the URL, which may carry a password.
        f.debug_struct("PgStore").finish_non_exhaustive()
    }
}

impl PgStore {
    /// Opens a pool of at most `pool_size` connections with the default
    /// [`Timeouts`]; a thread waits at most `connection_timeout` for one.
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
        Self::connect_with(
            database_url,
            pool_size,
            connection_timeout,
            &Timeouts::default(),
        )
    }

    /// Opens a pool of at most `pool_size` connections, each opened with
    /// `timeouts`; a thread waits at most `connection_timeout` for one.
    ///
    /// A connection is tested before each use (a cheap `SELECT 1`, bounded
    /// by `timeouts.io` like any statement) and one left broken by a failed
    /// transaction is dropped, so after a lost link the pool refills with
    /// fresh connections by itself. Failures to open or revive a connection
    /// are logged as they happen, with backoff.
    ///
    /// # Errors
    ///
    /// A [`StoreError`] of kind `ConnectionLost` when the server cannot be
    /// reached.
    pub fn connect_with(
        database_url: &str,
        pool_size: u32,
        connection_timeout: Duration,
        timeouts: &Timeouts,
    ) -> Result<PgStore, StoreError> {
        let pool = Pool::builder()
            .max_size(pool_size)
            .min_idle(Some(0))
            .connection_timeout(connection_timeout)
            .test_on_check_out(true)
            .error_handler(Box::new(PoolErrorLog::new("state database")))
            .build(ConnectionManager::new(with_timeouts(
                database_url,
                timeouts,
            )))
            .map_err(|e| {
                StoreError::new(FailureKind::ConnectionLost, "open the connection pool", e)
            })?;
        Ok(PgStore::from_pool(pool))
    }

    /// Wraps a pool built elsewhere (tests size theirs).
    pub fn from_pool(pool: Pool<ConnectionManager<PgConnection>>) -> PgStore {
        PgStore {
            pool,
            new_flights: NewFlights::default(),
            detail_rows: DetailRows::default(),
        }
    }

    /// This store, writing new flights' main rows as `how` says.
    #[must_use]
    pub fn with_new_flights(self, how: NewFlights) -> PgStore {
        PgStore {
            new_flights: how,
            ..self
        }
    }

    /// This store, writing a snapshot's detail rows as `how` says.
    #[must_use]
    pub fn with_detail_rows(self, how: DetailRows) -> PgStore {
        PgStore {
            detail_rows: how,
            ..self
        }
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

/// How a transaction failed: its body (whose error is kept aside, so that a
/// rollback that fails too when the connection is gone does not hide it),
/// or diesel itself at begin, commit or rollback.
enum TxError {
    Work,
    Diesel(diesel::result::Error),
}

impl From<diesel::result::Error> for TxError {
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
        let mut failed = None;
        let outcome = conn.transaction::<T, TxError, _>(|conn| {
            work(&mut PgTx::new(conn, self.new_flights, self.detail_rows)).map_err(|e| {
                failed = Some(e);
                TxError::Work
            })
        });
        match (outcome, failed) {
            (Ok(value), _) => Ok(value),
            // The body's error says why (a lost link, a timeout); a failed
            // rollback after it only says the connection is unusable, and
            // the pool drops the connection for that.
            (Err(TxError::Diesel(rollback)), Some(e)) => {
                tracing::debug!(error = %rollback, "the rollback after a failure failed too");
                Err(e)
            }
            (Err(TxError::Work), Some(e)) => Err(e),
            (Err(TxError::Diesel(e)), None) => {
                Err(errors::query("begin or commit the transaction", e).into())
            }
            (Err(TxError::Work), None) => Err(StoreError::new(
                FailureKind::Other,
                "run the transaction",
                "the transaction body failed without an error",
            )
            .into()),
        }
    }

    fn pool_count(&self) -> Option<PoolCount> {
        Some(PoolCount::of(&self.pool))
    }
}

/// `url` with `timeouts` added as libpq connection parameters, both for the
/// client and, through `options`, for the server's end of the connection.
///
/// - `connect_timeout`: opening a connection (libpq counts at least 2 s).
/// - TCP keepalive (`keepalives_idle` half of `io`, probes until `io`) and
///   `tcp_user_timeout` = `io`: a silent link is given up after `io`, both
///   when the client waits for an answer to a statement it sent (only
///   keepalive sees that: nothing is unacknowledged) and when what it sent
///   stays unacknowledged. A server that is merely busy answers keepalive
///   probes from its kernel, so a long statement or lock wait is not cut.
/// - server side, the same keepalive and user timeout (`tcp_keepalives_*`,
///   `tcp_user_timeout`, PostgreSQL 12 or later), so that a backend whose
///   client vanished behind a frozen link ends and lets go of its locks
///   (`PIPELINE_LOCK`) instead of holding them until the server's own
///   two-hour keepalive; `statement_timeout` when set; and
///   `idle_in_transaction_session_timeout` when set, so that a client that
///   froze inside a transaction (a paused VM, `SIGSTOP`) loses it, and the
///   locks it holds, within that time: its kernel still answers keepalive.
///
/// A parameter the URL gives itself wins: a libpq key already there is not
/// added, and the URL's own `options` come after these, so that a `-c` of
/// its own overrides the same setting here.
pub(crate) fn with_timeouts(url: &str, timeouts: &Timeouts) -> String {
    let io = timeouts.io.as_secs().max(1);
    let idle = (io / 2).max(1);
    let interval = (io / 10).max(1);
    let count = (io.saturating_sub(idle) / interval).max(1);
    let io_ms = timeouts.io.as_millis().max(1000);
    let connect = timeouts.connect.as_secs().max(1);

    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let given: Vec<(&str, &str)> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
        .collect();
    let has = |key: &str| given.iter().any(|(k, _)| *k == key);

    let mut params: Vec<String> = Vec::new();
    for (key, value) in [
        ("connect_timeout", connect.to_string()),
        ("keepalives", "1".to_owned()),
        ("keepalives_idle", idle.to_string()),
        ("keepalives_interval", interval.to_string()),
        ("keepalives_count", count.to_string()),
        ("tcp_user_timeout", io_ms.to_string()),
    ] {
        if !has(key) {
            params.push(format!("{key}={value}"));
        }
    }
    let mut options = format!(
        "-c tcp_keepalives_idle={idle} -c tcp_keepalives_interval={interval} \
         -c tcp_keepalives_count={count} -c tcp_user_timeout={io_ms}"
    );
    if let Some(statement) = timeouts.statement {
        let _ = write!(
            options,
            " -c statement_timeout={}",
            statement.as_millis().max(1)
        );
    }
    if let Some(idle) = timeouts.idle_in_transaction {
        let _ = write!(
            options,
            " -c idle_in_transaction_session_timeout={}",
            idle.as_millis().max(1)
        );
    }
    for (key, value) in &given {
        if *key == "options" {
            options.push(' ');
            options.push_str(&percent_decode(value));
        } else {
            params.push(format!("{key}={value}"));
        }
    }
    params.push(format!("options={}", percent_encode(&options)));
    format!("{base}?{}", params.join("&"))
}

/// `%XX` escapes decoded (as libpq decodes a URI's values); a malformed
/// escape is kept as written.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                let value = hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0);
                out.push(u8::try_from(value).unwrap_or(b'?'));
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Every byte but RFC 3986's unreserved ones as `%XX`.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 3);
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timeouts(io: u64, statement: Option<u64>) -> Timeouts {
        Timeouts {
            connect: Duration::from_secs(5),
            io: Duration::from_secs(io),
            statement: statement.map(Duration::from_secs),
            idle_in_transaction: None,
        }
    }

    #[test]
    fn timeouts_become_libpq_parameters() {
        let url = with_timeouts("postgres://u:pw@db:5432/fs", &timeouts(30, Some(60)));
        let (base, query) = url.split_once('?').expect("a query");
        assert_eq!(base, "postgres://u:pw@db:5432/fs");
        let params: Vec<&str> = query.split('&').collect();
        assert_eq!(
            params[..6],
            [
                "connect_timeout=5",
                "keepalives=1",
                "keepalives_idle=15",
                "keepalives_interval=3",
                "keepalives_count=5",
                "tcp_user_timeout=30000",
            ]
        );
        let options = params[6].strip_prefix("options=").expect("options last");
        assert_eq!(
            percent_decode(options),
            "-c tcp_keepalives_idle=15 -c tcp_keepalives_interval=3 \
             -c tcp_keepalives_count=5 -c tcp_user_timeout=30000 -c statement_timeout=60000"
        );
    }

    #[test]
    fn the_urls_own_parameters_win() {
        let url = with_timeouts(
            "postgres://db/fs?sslmode=require&connect_timeout=20&options=-c%20statement_timeout%3D0",
            &timeouts(3, Some(60)),
        );
        let (_, query) = url.split_once('?').expect("a query");
        let params: Vec<&str> = query.split('&').collect();
        assert!(params.contains(&"connect_timeout=20"), "{url}");
        assert!(!params.contains(&"connect_timeout=5"), "{url}");
        assert!(params.contains(&"sslmode=require"), "{url}");
        assert!(params.contains(&"keepalives_idle=1"), "{url}");
        assert!(params.contains(&"keepalives_count=2"), "{url}");
        let options = params
            .iter()
            .find_map(|p| p.strip_prefix("options="))
            .expect("one options");
        // The URL's `-c statement_timeout=0` comes last, so the server keeps it.
        assert!(
            percent_decode(options).ends_with("-c statement_timeout=60000 -c statement_timeout=0"),
            "{}",
            percent_decode(options)
        );
        assert_eq!(
            params.iter().filter(|p| p.starts_with("options=")).count(),
            1
        );
    }

    #[test]
    fn an_idle_transaction_limit_goes_to_the_server() {
        let limited = Timeouts {
            idle_in_transaction: Some(Duration::from_secs(15)),
            ..timeouts(30, Some(60))
        };
        let url = percent_decode(&with_timeouts("postgres://db/fs", &limited));
        assert!(
            url.ends_with(
                "-c statement_timeout=60000 -c idle_in_transaction_session_timeout=15000"
            ),
            "{url}"
        );
        let unlimited = percent_decode(&with_timeouts("postgres://db/fs", &timeouts(30, None)));
        assert!(!unlimited.contains("idle_in_transaction"), "{unlimited}");
    }

    #[test]
    fn no_statement_timeout_leaves_the_servers() {
        let url = with_timeouts("postgres://db/fs", &timeouts(30, None));
        assert!(!percent_decode(&url).contains("statement_timeout"), "{url}");
    }
}
