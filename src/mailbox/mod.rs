//! The shared AODB mailbox (MySQL / MariaDB, the `mysql` crate, a pool of
//! its own): reads the head of `CMINMSGS` and writes each message's outcome
//! back, as a journaled effect ([`WriteBack`]).
//!
//! Owns every statement run against the mailbox (`sql/mailbox/`, values
//! always bound) and the one mapping from MySQL failures to
//! [`FailureKind`]. It never touches the state database and never decides
//! an outcome: the pump does.

mod statements;

use std::time::Duration;

use mysql::prelude::Queryable;
use mysql::{Opts, OptsBuilder, Pool, PoolConstraints, PoolOpts, TxOpts};

use crate::FailureKind;
use crate::journal::{CallResult, Effect, Intent, ReadBack};
use crate::store::{ProcStatus, StoredCall};

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
    /// How long to wait for a connection (and for a TCP connect).
    pub connect_timeout: Duration,
    /// How long one read or write on a connection may block, so that a
    /// server that vanished mid-call is noticed.
    pub io_timeout: Duration,
}

/// A mailbox operation failed.
///
/// Happens when the server cannot be reached or a statement fails. Decide by
/// [`MailboxError::kind`]: the pump retries every kind while blocking the
/// head, since the mailbox is infrastructure.
#[derive(Debug, thiserror::Error)]
#[error("mailbox: {op} failed")]
pub struct MailboxError {
    kind: FailureKind,
    op: &'static str,
    #[source]
    source: Box<mysql::Error>,
}

impl MailboxError {
    fn new(op: &'static str, source: mysql::Error) -> MailboxError {
        MailboxError {
            kind: failure_kind(&source),
            op,
            source: Box::new(source),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> FailureKind {
        self.kind
    }
}

/// The MySQL server and client error codes behind each mapping, from
/// <https://mariadb.com/kb/en/mariadb-error-codes/>.
mod error_codes {
    /// `ER_DUP_ENTRY`.
    pub(super) const DUP_ENTRY: u16 = 1062;
    /// `ER_LOCK_DEADLOCK`.
    pub(super) const LOCK_DEADLOCK: u16 = 1213;
    /// `ER_LOCK_WAIT_TIMEOUT`.
    pub(super) const LOCK_WAIT_TIMEOUT: u16 = 1205;
    /// `CR_SERVER_GONE_ERROR`.
    pub(super) const SERVER_GONE: u16 = 2006;
    /// `CR_SERVER_LOST`.
    pub(super) const SERVER_LOST: u16 = 2013;
}

/// The one mapping from MySQL failures to [`FailureKind`]. The client-side
/// codes 2006/2013 reach the `mysql` crate as I/O or driver errors, which
/// are connection losses too.
fn failure_kind(err: &mysql::Error) -> FailureKind {
    match err {
        mysql::Error::MySqlError(e) => match e.code {
            error_codes::DUP_ENTRY => FailureKind::Duplicate,
            error_codes::LOCK_DEADLOCK | error_codes::LOCK_WAIT_TIMEOUT => FailureKind::Conflict,
            error_codes::SERVER_GONE | error_codes::SERVER_LOST => FailureKind::ConnectionLost,
            _ => FailureKind::Other,
        },
        mysql::Error::IoError(_) | mysql::Error::CodecError(_) => FailureKind::ConnectionLost,
        mysql::Error::DriverError(mysql::DriverError::Timeout) => FailureKind::Timeout,
        mysql::Error::DriverError(_) => FailureKind::ConnectionLost,
        _ => FailureKind::Other,
    }
}

/// One inbound message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InboundMessage {
    /// `CMINMSGS_ID`: the message id.
    pub id: i64,
    /// `CMINMSGS_CLOB_MSG`, as bytes.
    pub body: Vec<u8>,
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

/// The mailbox behind its own pool.
pub struct Mailbox {
    pool: Pool,
    settings: MailboxSettings,
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
    /// # Errors
    ///
    /// A [`MailboxError`] when the URL cannot be used.
    pub fn connect(settings: MailboxSettings) -> Result<Mailbox, MailboxError> {
        let opts = Opts::from_url(&settings.url)
            .map_err(|e| MailboxError::new("read `mailbox.url`", e.into()))?;
        let constraints =
            PoolConstraints::new(0, settings.pool_size.max(1)).unwrap_or(PoolConstraints::DEFAULT);
        let opts = OptsBuilder::from_opts(opts)
            .tcp_connect_timeout(Some(settings.connect_timeout))
            .read_timeout(Some(settings.io_timeout))
            .write_timeout(Some(settings.io_timeout))
            .pool_opts(PoolOpts::default().with_constraints(constraints));
        let pool = Pool::new(opts).map_err(|e| MailboxError::new("open the mailbox pool", e))?;
        Ok(Mailbox { pool, settings })
    }

    /// The settings it was opened with.
    pub fn settings(&self) -> &MailboxSettings {
        &self.settings
    }

    fn conn(&self) -> Result<mysql::PooledConn, MailboxError> {
        self.pool
            .try_get_conn(self.settings.connect_timeout)
            .map_err(|e| {
                MailboxError::new(
                    "get a mailbox connection (server down, or raise `mailbox.pool_size`)",
                    e,
                )
            })
    }

    /// The head of the queue: at most `limit` pending rows, lowest id first.
    ///
    /// # Errors
    ///
    /// A [`MailboxError`] when the mailbox cannot be read.
    #[tracing::instrument(name = "mailbox.select_pending_messages", skip_all)]
    pub fn read_head(&self, limit: usize) -> Result<Vec<InboundMessage>, MailboxError> {
        let mut conn = self.conn()?;
        let rows: Vec<(i64, Vec<u8>)> = conn
            .exec(
                statements::SELECT_PENDING_MESSAGES,
                (&self.settings.pending_status, limit as u64),
            )
            .map_err(|e| MailboxError::new("select_pending_messages", e))?;
        Ok(rows
            .into_iter()
            .map(|(id, body)| InboundMessage { id, body })
            .collect())
    }

    /// Puts `body` at the tail of the inbound queue as a pending row and
    /// returns its `CMINMSGS_ID`; `msg_type`/`subtype` fill AODB's subsystem
    /// columns when known.
    ///
    /// # Errors
    ///
    /// A [`MailboxError`] when the row cannot be inserted.
    pub fn enqueue(
        &self,
        body: &str,
        msg_type: Option<&str>,
        subtype: Option<&str>,
    ) -> Result<i64, MailboxError> {
        let mut conn = self.conn()?;
        conn.exec_drop(
            statements::INSERT_MESSAGE,
            (body, &self.settings.pending_status, msg_type, subtype),
        )
        .map_err(|e| MailboxError::new("insert_message", e))?;
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
        for statement in statements::AODB_MAILBOX_DDL.split(';').filter(|s| {
            s.lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with("--"))
        }) {
            conn.query_drop(statement)
                .map_err(|e| MailboxError::new("create the mailbox tables", e))?;
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
        let row: Option<(Option<String>, i64)> = conn
            .exec_first(statements::SELECT_MESSAGE_STATE, (id,))
            .map_err(|e| MailboxError::new("select_message_state", e))?;
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
        let mut tx = match conn.start_transaction(TxOpts::default()) {
            Ok(tx) => tx,
            Err(e) => {
                tracing::warn!(error = %e, "write-back not sent: cannot begin");
                return all(CallResult::NotSent);
            }
        };
        let mut results = Vec::with_capacity(items.len());
        for (id, status) in items {
            if let Err(e) = tx.exec_drop(statements::WRITE_BACK_MESSAGE, (status, id)) {
                // Dropping the transaction rolls it back; a lost connection
                // is rolled back by the server: nothing of it can commit.
                tracing::warn!(error = %e, "write-back not sent: rolled back");
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
        match tx.commit() {
            Ok(()) => results,
            Err(e) => {
                tracing::warn!(error = %e, "write-back commit failed: outcome unknown");
                all(CallResult::Unknown)
            }
        }
    }
}

/// The `CALL_KIND` of a write-back.
pub const WRITE_BACK_KIND: &str = "BACKFILL";
const WRITE_BACK_SCOPE: &str = "mailbox";
const WRITE_BACK_STEP: &str = "write-back";
const TARGET_PREFIX: &str = "cminmsgs:";

/// The write-back intent of message `message_id` whose final status is
/// `status`, or `None` for a status that is not final (FAILED).
pub fn write_back_intent(
    settings: &MailboxSettings,
    message_id: i64,
    status: ProcStatus,
) -> Option<Intent> {
    let value = match status {
        ProcStatus::Succeeded => &settings.succeeded_status,
        ProcStatus::Dead => &settings.dead_status,
        ProcStatus::Failed => return None,
    };
    Some(Intent {
        scope: WRITE_BACK_SCOPE.to_owned(),
        step: WRITE_BACK_STEP.to_owned(),
        sub_key: format!("backfill:{message_id}"),
        call_kind: WRITE_BACK_KIND.to_owned(),
        target: format!("{TARGET_PREFIX}{message_id}"),
        payload: value.clone(),
        deadline_at: None,
    })
}

fn target_id(call: &StoredCall) -> Option<i64> {
    call.target.strip_prefix(TARGET_PREFIX)?.parse().ok()
}

/// The mailbox write-back as a journaled [`Effect`].
pub struct WriteBack<'m> {
    mailbox: &'m Mailbox,
}

impl<'m> WriteBack<'m> {
    /// The write-back effect on `mailbox`.
    pub fn new(mailbox: &'m Mailbox) -> WriteBack<'m> {
        WriteBack { mailbox }
    }
}

impl Effect for WriteBack<'_> {
    fn call_kind(&self) -> &'static str {
        WRITE_BACK_KIND
    }

    fn call(&self, calls: &[&StoredCall]) -> Vec<CallResult> {
        let mut results = vec![CallResult::Rejected; calls.len()];
        let mut items = Vec::with_capacity(calls.len());
        let mut positions = Vec::with_capacity(calls.len());
        for (i, call) in calls.iter().enumerate() {
            // A target that is not ours is refused without a call.
            if let Some(id) = target_id(call) {
                items.push((id, call.payload.as_str()));
                positions.push(i);
            }
        }
        if items.is_empty() {
            return results;
        }
        for (i, result) in positions.into_iter().zip(self.mailbox.write_back(&items)) {
            results[i] = result;
        }
        results
    }

    /// The guarded UPDATE makes a late duplicate harmless, so a row still
    /// pending is `NotApplied` and may be written back in a later attempt.
    fn read_back(
        &self,
        call: &StoredCall,
    ) -> Result<ReadBack, Box<dyn std::error::Error + Send + Sync>> {
        let Some(id) = target_id(call) else {
            return Ok(ReadBack::Rejected);
        };
        Ok(match self.mailbox.message_state(id)? {
            None => ReadBack::Rejected,
            Some(row) if !row.processed => ReadBack::NotApplied,
            Some(row) if row.status.as_deref() == Some(call.payload.as_str()) => ReadBack::Done {
                remote_ref: Some(id.to_string()),
            },
            Some(_) => ReadBack::Conflict,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_codes_map_to_kinds() {
        let err = |code| {
            mysql::Error::MySqlError(mysql::MySqlError {
                state: String::new(),
                message: String::new(),
                code,
            })
        };
        assert_eq!(failure_kind(&err(1062)), FailureKind::Duplicate);
        assert_eq!(failure_kind(&err(1213)), FailureKind::Conflict);
        assert_eq!(failure_kind(&err(1205)), FailureKind::Conflict);
        assert_eq!(failure_kind(&err(2013)), FailureKind::ConnectionLost);
        assert_eq!(failure_kind(&err(1146)), FailureKind::Other);
        let io = mysql::Error::IoError(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
        assert_eq!(failure_kind(&io), FailureKind::ConnectionLost);
    }

    #[test]
    fn final_statuses_get_an_intent() {
        let settings = MailboxSettings {
            url: "mysql://x".into(),
            pending_status: "VALID".into(),
            succeeded_status: "PROCESSED".into(),
            dead_status: "DEAD".into(),
            pool_size: 1,
            connect_timeout: Duration::from_secs(1),
            io_timeout: Duration::from_secs(1),
        };
        let intent = write_back_intent(&settings, 42, ProcStatus::Dead).expect("final");
        assert_eq!(intent.sub_key, "backfill:42");
        assert_eq!(intent.payload, "DEAD");
        assert!(write_back_intent(&settings, 42, ProcStatus::Failed).is_none());
    }
}
