//! The shared AODB mailbox (MySQL / MariaDB, the `mysql` crate, behind an
//! r2d2 pool like the state database's): reads the head of `CMINMSGS` and
//! writes each message's outcome back, as a journaled effect
//! ([`WriteBack`]); writes request messages into `COUTMSGS`, as another
//! ([`Outbound`]).
//!
//! Owns every statement run against the mailbox (`sql/mailbox/`, values
//! always bound) and the one mapping from MySQL failures to
//! [`FailureKind`]. It never touches the state database and never decides
//! an outcome: the pump does. The write-back's intent, recorded in the
//! state transaction, is the journal's (`journal::record_write_back`); the
//! mailbox only makes the call.

mod error;
mod outbound;
mod pool;
mod preflight;
mod requeue;
mod statements;
mod tls;
mod write_back;
mod written_back;

pub use error::MailboxError;
use error::{NoConnection, TooLarge, leaves_connection_usable};
pub use outbound::Outbound;
pub use preflight::MailboxFacts;
pub use requeue::StoredMessage;
pub use write_back::WriteBack;
pub use written_back::{CaughtUpRow, WrittenBack};

use std::os::fd::{AsRawFd, RawFd};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{NaiveDateTime, Utc};
use mysql::prelude::Queryable;
use mysql::{Opts, OptsBuilder, TxOpts};

use self::pool::{Attempt, Failures, Manager, discard};
use crate::FailureKind;
use crate::journal::{CallResult, WriteBackStatuses};
use crate::store::{PoolCount, PoolErrorLog};

/// Every mailbox statement as `(file name, text)`, for DBA review and the
/// snapshot tests.
pub fn statements() -> &'static [(&'static str, &'static str)] {
    statements::ALL
}

/// How the mailbox is reached and which status values the site uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MailboxSettings {
    /// `mysql://…`.
    pub url: String,
    /// `CMINMSGS_STATUS` of rows waiting to be read (AODB's `VALID`).
    pub pending_status: String,
    /// `CMINMSGS_STATUS` written back for a message applied (SUCCEEDED).
    pub succeeded_status: String,
    /// `CMINMSGS_STATUS` written back for a dead letter (DEAD).
    pub dead_status: String,
    /// Connections in the mailbox pool.
    pub pool_size: usize,
    /// How long to wait for a connection: for a pooled one (r2d2's
    /// `connection_timeout`) and for a TCP connect.
    pub connect_timeout: Duration,
    /// How long one read or write on a connection may block, so that a
    /// server that vanished mid-call is noticed; also how long a connection
    /// may go without a sign of life (TCP keepalive, unacknowledged data).
    pub io_timeout: Duration,
    /// How long a mailbox transaction may wait for this process between two
    /// statements before the server ends it, and the row locks of a
    /// write-back with it (MariaDB's `idle_transaction_timeout`; a server
    /// without it keeps its own rules, `docs/pump.md`, "A frozen holder").
    /// `None` leaves the server's setting.
    pub idle_in_transaction: Option<Duration>,
}

/// The largest body `CMINMSGS_CLOB_MSG` holds: AODB's column is a
/// `MEDIUMTEXT` (`sql/mailbox/aodb_mailbox.sql`), at most 2^24 - 1 bytes.
pub const MAX_BODY_BYTES: usize = 16_777_215;

/// One inbound message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InboundMessage {
    /// `CMINMSGS_ID`: the message id.
    pub id: i64,
    /// `CMINMSGS_CLOB_MSG`, as bytes.
    pub body: Vec<u8>,
    /// When the mailbox received it (`CMINMSGS_DATE_RECEIVED`), on this
    /// process's clock (UTC): the time of the read less the row's age by
    /// the mailbox server's clock. `None` when the row has no receive date.
    pub received_at: Option<NaiveDateTime>,
}

/// The receipt of a row read at `read_at` (this process's clock, UTC)
/// whose age the mailbox server told as `age_micros`, by its own clock:
/// the server's time zone and the skew between the two clocks cancel out,
/// which a `CMINMSGS_DATE_RECEIVED` read as it is would not. AODB's
/// `DATETIME` keeps whole seconds, so the receipt may seem up to a second
/// earlier than it was.
fn received_at(read_at: NaiveDateTime, age_micros: Option<i64>) -> Option<NaiveDateTime> {
    age_micros.map(|age| read_at - chrono::Duration::microseconds(age))
}

/// A row as read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowState {
    /// `CMINMSGS_STATUS`.
    pub status: Option<String>,
    /// Whether `CMINMSGS_DATE_PROCESSED` is set.
    pub processed: bool,
}

/// How far behind the pump is (`select_backlog`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Backlog {
    /// Rows still pending.
    pub pending: i64,
    /// The id at the head of the queue, if any row is pending.
    pub head_id: Option<i64>,
    /// How long the oldest pending row has waited, in seconds, by the
    /// mailbox server's clock.
    pub oldest_age_secs: Option<i64>,
}

/// A mailbox connection from the pool.
type Link = r2d2::PooledConnection<Manager>;

/// The mailbox behind its pool.
pub struct Mailbox {
    pool: r2d2::Pool<Manager>,
    /// What the pool's connects and pings last met, shared with its manager.
    failures: Arc<Failures>,
    settings: MailboxSettings,
    /// What its rows are written back with: the settings' two final
    /// statuses, shared with every attempt of a pump that seals a message.
    statuses: Arc<WriteBackStatuses>,
}

impl std::fmt::Debug for Mailbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The settings hold the URL, which may carry a password.
        f.debug_struct("Mailbox").finish_non_exhaustive()
    }
}

impl Mailbox {
    /// A pool on the mailbox. No connection is made until one is needed, so
    /// a mailbox that is down at start-up is a retry, not a failure.
    ///
    /// The pool is r2d2's, as the state database's: each connection is
    /// pinged at checkout (`test_on_check_out`) and one that fails is
    /// dropped and another taken or opened; a thread waits at most
    /// `connect_timeout` for one; a connection that failed on the wire, or
    /// comes back with anything unread, is dropped on its return. Failures
    /// to open or revive a connection are logged as they happen, with
    /// backoff.
    ///
    /// # Errors
    ///
    /// A [`MailboxError`] when the URL cannot be used, or names a TLS file
    /// (`root_cert_path`, `pkcs12_path`) that cannot be read.
    pub fn connect(settings: MailboxSettings) -> Result<Mailbox, MailboxError> {
        let opts = Opts::from_url(&settings.url)
            .map_err(|e| MailboxError::new("read `mailbox.url`", e.into()))?;
        tls::check_files(&opts).map_err(|e| MailboxError {
            kind: FailureKind::BadInput,
            op: "read `mailbox.url`",
            source: Box::new(e),
        })?;
        // Keepalive and user timeout find a dead link under an idle pooled
        // connection (or unacknowledged writes) within about `io_timeout`;
        // the read and write timeouts bound every wait for an answer. A
        // URL's own `tcp_keepalive_*` / `tcp_user_timeout_ms` win.
        let io = u32::try_from(settings.io_timeout.as_secs())
            .unwrap_or(u32::MAX)
            .max(1);
        let idle = (io / 2).max(1);
        let interval = (io / 10).max(1);
        let keepalive_time = opts
            .get_tcp_keepalive_time_ms()
            .or(Some(idle.saturating_mul(1000)));
        let probe_interval = opts
            .get_tcp_keepalive_probe_interval_secs()
            .or(Some(interval));
        let probe_count = opts
            .get_tcp_keepalive_probe_count()
            .or(Some(((io - idle) / interval).max(1)));
        let user_timeout = opts
            .get_tcp_user_timeout_ms()
            .or(Some(io.saturating_mul(1000)));
        let opts = OptsBuilder::from_opts(opts)
            .tcp_connect_timeout(Some(settings.connect_timeout))
            .read_timeout(Some(settings.io_timeout))
            .write_timeout(Some(settings.io_timeout))
            .tcp_keepalive_time_ms(keepalive_time)
            .tcp_keepalive_probe_interval_secs(probe_interval)
            .tcp_keepalive_probe_count(probe_count)
            .tcp_user_timeout_ms(user_timeout);
        let failures = Arc::new(Failures::default());
        let pool = r2d2::Pool::builder()
            .max_size(u32::try_from(settings.pool_size.max(1)).unwrap_or(u32::MAX))
            .min_idle(Some(0))
            // r2d2 refuses a zero wait; the configuration refuses it too.
            .connection_timeout(settings.connect_timeout.max(Duration::from_millis(1)))
            .test_on_check_out(true)
            .error_handler(Box::new(PoolErrorLog::new("mailbox")))
            .build(Manager::new(
                opts.into(),
                Arc::clone(&failures),
                settings.idle_in_transaction,
            ))
            .map_err(|e| MailboxError {
                kind: FailureKind::ConnectionLost,
                op: "open the mailbox pool",
                source: Box::new(e),
            })?;
        let statuses = Arc::new(WriteBackStatuses {
            succeeded: settings.succeeded_status.clone(),
            dead: settings.dead_status.clone(),
        });
        Ok(Mailbox {
            pool,
            failures,
            settings,
            statuses,
        })
    }

    /// The settings it was opened with.
    pub fn settings(&self) -> &MailboxSettings {
        &self.settings
    }

    /// The statuses a final outcome is written back with: what a
    /// transaction that seals a message needs of the mailbox, and no more.
    pub fn write_back_statuses(&self) -> Arc<WriteBackStatuses> {
        Arc::clone(&self.statuses)
    }

    /// How many connections the pool holds, for `/metrics`.
    pub fn pool_count(&self) -> PoolCount {
        PoolCount::of(&self.pool)
    }

    /// A live connection: a pooled one that answers a ping, or a new one.
    ///
    /// A pooled connection that fails its ping (the server closed it while
    /// it was idle, or the link went silent) is dropped and the next one
    /// tried, then a new one opened, within `connect_timeout`. When none
    /// comes, the error is the last failure met meanwhile, classified as a
    /// statement's (which limit ran out, TLS refused), not r2d2's text.
    fn conn(&self) -> Result<Link, MailboxError> {
        const OP: &str = "get a mailbox connection (server down, or raise `mailbox.pool_size`)";
        let asked_at = Instant::now();
        self.pool
            .get()
            .map_err(|timed_out| match self.failures.since(asked_at) {
                Some(failure) => {
                    let op = match failure.attempt {
                        Attempt::Connect => OP,
                        Attempt::Ping => "ping a pooled mailbox connection",
                    };
                    MailboxError::on_link(op, failure.error, &self.settings)
                }
                None => {
                    let count = self.pool_count();
                    MailboxError {
                        kind: FailureKind::Timeout,
                        op: OP,
                        source: Box::new(NoConnection {
                            limit: self.settings.connect_timeout,
                            in_use: count.in_use(),
                            size: count.max,
                            source: timed_out,
                        }),
                    }
                }
            })
    }

    /// `err` of `op` on `conn`: a connection that failed on the wire is
    /// discarded before it goes back to the pool.
    fn failed(&self, conn: RawFd, op: &'static str, err: mysql::Error) -> MailboxError {
        if !leaves_connection_usable(&err) {
            discard(conn);
        }
        MailboxError::on_link(op, err, &self.settings)
    }

    /// The head of the queue: at most `limit` pending rows, lowest id first.
    ///
    /// # Errors
    ///
    /// A [`MailboxError`] when the mailbox cannot be read.
    #[tracing::instrument(name = "mailbox.select_pending_messages", skip_all)]
    pub fn read_head(&self, limit: usize) -> Result<Vec<InboundMessage>, MailboxError> {
        let mut conn = self.conn()?;
        let fd = conn.as_raw_fd();
        // Taken just before the statement, whose NOW(6) the ages count to.
        let read_at = Utc::now().naive_utc();
        let rows: Vec<(i64, Vec<u8>, Option<i64>)> = conn
            .exec(
                statements::SELECT_PENDING_MESSAGES,
                (&self.settings.pending_status, limit as u64),
            )
            .map_err(|e| self.failed(fd, "select_pending_messages", e))?;
        Ok(rows
            .into_iter()
            .map(|(id, body, age)| InboundMessage {
                id,
                body,
                received_at: received_at(read_at, age),
            })
            .collect())
    }

    /// The highest `CMINMSGS_ID` (`None` for an empty table): a cheap look
    /// that tells whether a row arrived since the last.
    ///
    /// # Errors
    ///
    /// A [`MailboxError`] when the mailbox cannot be read.
    pub fn last_message_id(&self) -> Result<Option<i64>, MailboxError> {
        let mut conn = self.conn()?;
        let fd = conn.as_raw_fd();
        let last: Option<Option<i64>> = conn
            .exec_first(statements::SELECT_LAST_MESSAGE_ID, ())
            .map_err(|e| self.failed(fd, "select_last_message_id", e))?;
        Ok(last.flatten())
    }

    /// Puts `body` at the tail of the inbound queue as a pending row and
    /// returns its `CMINMSGS_ID`; `msg_type`/`subtype` fill AODB's subsystem
    /// columns when known.
    ///
    /// # Errors
    ///
    /// A [`MailboxError`] of kind `BadInput`, before anything is sent, when
    /// `body` is larger than [`MAX_BODY_BYTES`] (the server would drop the
    /// connection, or cut the text); another when the row cannot be
    /// inserted.
    pub fn enqueue(
        &self,
        body: &str,
        msg_type: Option<&str>,
        subtype: Option<&str>,
    ) -> Result<i64, MailboxError> {
        if body.len() > MAX_BODY_BYTES {
            return Err(MailboxError {
                kind: FailureKind::BadInput,
                op: "insert_message",
                source: Box::new(TooLarge { size: body.len() }),
            });
        }
        let mut conn = self.conn()?;
        let fd = conn.as_raw_fd();
        conn.exec_drop(
            statements::INSERT_MESSAGE,
            (body, &self.settings.pending_status, msg_type, subtype),
        )
        .map_err(|e| self.failed(fd, "insert_message", e))?;
        // CMINMSGS_ID is a signed BIGINT, so its insert id fits an i64.
        Ok(conn.last_insert_id() as i64)
    }

    /// Creates AODB's mailbox tables if they are missing, for a demo or test
    /// mailbox. A site's mailbox belongs to AODB and is never created here.
    ///
    /// # Errors
    ///
    /// A [`MailboxError`] when a statement fails.
    pub fn create_tables(&self) -> Result<(), MailboxError> {
        let mut conn = self.conn()?;
        let fd = conn.as_raw_fd();
        for statement in statements::AODB_MAILBOX_DDL.split(';').filter(|s| {
            s.lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with("--"))
        }) {
            conn.query_drop(statement)
                .map_err(|e| self.failed(fd, "create the mailbox tables", e))?;
        }
        Ok(())
    }

    /// Reads one row back.
    ///
    /// # Errors
    ///
    /// A [`MailboxError`] when the mailbox cannot be read.
    pub fn message_state(&self, id: i64) -> Result<Option<RowState>, MailboxError> {
        let mut conn = self.conn()?;
        let fd = conn.as_raw_fd();
        let row: Option<(Option<String>, i64)> = conn
            .exec_first(statements::SELECT_MESSAGE_STATE, (id,))
            .map_err(|e| self.failed(fd, "select_message_state", e))?;
        Ok(row.map(|(status, processed)| RowState {
            status,
            processed: processed != 0,
        }))
    }

    /// The pending rows of the inbound queue: how many, the head, and how
    /// long the oldest has waited. A read for people; never picks work.
    ///
    /// # Errors
    ///
    /// A [`MailboxError`] when the mailbox cannot be read.
    #[tracing::instrument(name = "mailbox.select_backlog", skip_all)]
    pub fn backlog(&self) -> Result<Backlog, MailboxError> {
        let mut conn = self.conn()?;
        let row: Option<(i64, Option<i64>, Option<i64>)> = conn
            .exec_first(statements::SELECT_BACKLOG, (&self.settings.pending_status,))
            .map_err(|e| MailboxError::new("select_backlog", e))?;
        Ok(
            row.map_or_else(Backlog::default, |(pending, head_id, oldest_age_secs)| {
                Backlog {
                    pending,
                    head_id,
                    oldest_age_secs,
                }
            }),
        )
    }

    /// Writes back `(id, status)` pairs in one mailbox transaction, returning
    /// one result per pair. Before the commit nothing is visible, so a
    /// failure there is certainly `NotSent` for all; a failed commit is
    /// `Unknown` for all.
    pub fn write_back(&self, items: &[(i64, &str)]) -> Vec<CallResult> {
        let all = |r: CallResult| vec![r; items.len()];
        let mut conn = match self.conn() {
            Ok(conn) => conn,
            Err(e) => {
                tracing::warn!(error = %format!("{e:#}"), "write-back not sent");
                return all(CallResult::NotSent);
            }
        };
        let fd = conn.as_raw_fd();
        let mut tx = match conn.start_transaction(TxOpts::default()) {
            Ok(tx) => tx,
            Err(e) => {
                let e = self.failed(fd, "begin the write-back", e);
                tracing::warn!(error = %format!("{e:#}"), "write-back not sent: cannot begin");
                return all(CallResult::NotSent);
            }
        };
        let mut results = Vec::with_capacity(items.len());
        for (id, status) in items {
            if let Err(e) = tx.exec_drop(statements::WRITE_BACK_MESSAGE, (status, id)) {
                // Dropping the transaction rolls it back; a lost connection
                // is rolled back by the server: nothing of it can commit.
                let e = self.failed(fd, "write_back_message", e);
                tracing::warn!(error = %format!("{e:#}"), "write-back not sent: rolled back");
                return all(CallResult::NotSent);
            }
            results.push(if tx.affected_rows() == 1 {
                CallResult::Accepted {
                    remote_ref: Some(id.to_string()),
                }
            } else {
                CallResult::Conflict
            });
        }
        #[cfg(feature = "failpoints")]
        if crate::failpoint::hit("write_back.before_commit").is_err() {
            return all(CallResult::NotSent);
        }
        // A COMMIT whose answer never comes is rolled back by the
        // transaction's drop inside `commit`, before the connection can be
        // discarded: that one path waits out `io_timeout` twice.
        match tx.commit() {
            Ok(()) => results,
            Err(e) => {
                let e = self.failed(fd, "commit the write-back", e);
                tracing::warn!(error = %format!("{e:#}"), "write-back commit failed: outcome unknown");
                all(CallResult::Unknown)
            }
        }
    }
}
