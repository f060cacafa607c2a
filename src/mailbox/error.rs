//! How a mailbox operation fails, and what each failure means to the pump:
//! the server's codes and the link's silences, each of a [`FailureKind`].

use std::error::Error as StdError;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::{MAX_BODY_BYTES, MailboxSettings, tls};
use crate::FailureKind;

/// A mailbox operation failed.
///
/// Happens when the server cannot be reached or does not answer in time, the
/// link's TLS is refused, a statement fails, or a message cannot fit the
/// mailbox. Decide by
/// [`MailboxError::kind`]: the pump retries every kind while blocking the
/// head, since the mailbox is infrastructure. `{:#}` prints the causes too.
#[derive(Debug)]
pub struct MailboxError {
    pub(super) kind: FailureKind,
    pub(super) op: &'static str,
    pub(super) source: Box<dyn StdError + Send + Sync>,
}

/// No answer from the mailbox in time: the link or the server went silent.
#[derive(Debug, thiserror::Error)]
#[error("timed out: no answer from the mailbox within {limit:?} (`{setting}`)")]
struct Silent {
    limit: Duration,
    setting: &'static str,
    #[source]
    source: Arc<mysql::Error>,
}

/// No connection came free or was opened in time, and none failed
/// meanwhile: every connection was in use, or a connect is still waiting
/// for its answer.
#[derive(Debug, thiserror::Error)]
#[error(
    "no connection within {limit:?} (`mailbox.connect_timeout_secs`), {in_use} of {size} in use"
)]
pub(super) struct NoConnection {
    pub(super) limit: Duration,
    pub(super) in_use: u32,
    pub(super) size: u32,
    #[source]
    pub(super) source: r2d2::Error,
}

impl MailboxError {
    pub(super) fn new(op: &'static str, source: mysql::Error) -> MailboxError {
        MailboxError {
            kind: failure_kind(&source),
            op,
            source: Box::new(source),
        }
    }

    /// `source` of an operation on a connection opened with `settings`: a
    /// connect, read or write that ran out of its time says which limit,
    /// and a link refused at its TLS handshake says that it was TLS.
    pub(super) fn on_link(
        op: &'static str,
        source: impl Into<Arc<mysql::Error>>,
        settings: &MailboxSettings,
    ) -> MailboxError {
        let source = source.into();
        let (limit, setting) = match &*source {
            mysql::Error::DriverError(mysql::DriverError::ConnectTimeout) => {
                (settings.connect_timeout, "mailbox.connect_timeout_secs")
            }
            _ => (settings.io_timeout, "mailbox.io_timeout_secs"),
        };
        if is_silence(&source) {
            return MailboxError {
                kind: FailureKind::Timeout,
                op,
                source: Box::new(Silent {
                    limit,
                    setting,
                    source,
                }),
            };
        }
        let kind = failure_kind(&source);
        match tls::refusal(source) {
            // Whatever `op` wanted, the link itself was refused: saying so
            // beats a hint about a server down or a pool too small.
            Ok(refused) => MailboxError {
                kind,
                op: "connect to the mailbox over TLS",
                source: Box::new(refused),
            },
            Err(source) => MailboxError {
                kind,
                op,
                source: Box::new(source),
            },
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> FailureKind {
        self.kind
    }
}

impl fmt::Display for MailboxError {
    /// `{}` is this error's own line; `{:#}` adds every cause, `: `-separated
    /// (as anyhow prints a chain), so that a log line says why.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            return write!(f, "{}", crate::failure::Causes(self));
        }
        write!(f, "mailbox: {} failed", self.op)
    }
}

impl StdError for MailboxError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        Some(&*self.source)
    }
}

/// A message larger than the mailbox column.
#[derive(Debug, thiserror::Error)]
#[error(
    "the message is {size} bytes; the mailbox holds at most {MAX_BODY_BYTES} bytes (MEDIUMTEXT)"
)]
pub(super) struct TooLarge {
    pub(super) size: usize,
}

/// Whether `err` is a read or write that ran out of its socket timeout
/// (`SO_RCVTIMEO` / `SO_SNDTIMEO` report `EAGAIN`) or a connection the
/// kernel gave up for silence (keepalive, user timeout: `ETIMEDOUT`).
pub(super) fn is_silence(err: &mysql::Error) -> bool {
    let silent = |e: &std::io::Error| {
        matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        )
    };
    match err {
        mysql::Error::IoError(e) => silent(e),
        // A read of a packet fails as the codec's error, wrapping the I/O.
        mysql::Error::CodecError(e) => e
            .source()
            .and_then(|cause| cause.downcast_ref::<std::io::Error>())
            .is_some_and(silent),
        mysql::Error::DriverError(mysql::DriverError::ConnectTimeout) => true,
        _ => false,
    }
}

/// Whether the connection that returned `err` may be used again. After a
/// lost or timed-out read its state on the wire is unknown (a late answer
/// may still arrive and be taken for the next one's); only an error the
/// server sent cleanly leaves it usable.
pub(super) fn leaves_connection_usable(err: &mysql::Error) -> bool {
    matches!(err, mysql::Error::MySqlError(_))
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
pub(super) fn failure_kind(err: &mysql::Error) -> FailureKind {
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
    fn a_read_that_ran_out_of_time_is_a_timeout_naming_its_setting() {
        let settings = MailboxSettings {
            url: "mysql://x".into(),
            pending_status: "VALID".into(),
            succeeded_status: "PROCESSED".into(),
            dead_status: "DEAD".into(),
            pool_size: 1,
            connect_timeout: Duration::from_secs(5),
            io_timeout: Duration::from_secs(30),
            idle_in_transaction: None,
        };
        let silent = mysql::Error::IoError(std::io::Error::from(std::io::ErrorKind::WouldBlock));
        assert!(is_silence(&silent));
        let e = MailboxError::on_link("select_pending_messages", silent, &settings);
        assert_eq!(e.kind(), FailureKind::Timeout);
        assert_eq!(e.to_string(), "mailbox: select_pending_messages failed");
        let chain = format!("{e:#}");
        assert!(
            chain.starts_with(
                "mailbox: select_pending_messages failed: timed out: no answer from the mailbox \
                 within 30s (`mailbox.io_timeout_secs`): "
            ),
            "{chain}"
        );
        let connect = mysql::Error::DriverError(mysql::DriverError::ConnectTimeout);
        let chain = format!("{:#}", MailboxError::on_link("connect", connect, &settings));
        assert!(
            chain.contains("within 5s (`mailbox.connect_timeout_secs`)"),
            "{chain}"
        );
        let reset =
            mysql::Error::IoError(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
        assert!(!is_silence(&reset));
        assert_eq!(
            MailboxError::on_link("x", reset, &settings).kind(),
            FailureKind::ConnectionLost
        );
        assert!(!leaves_connection_usable(&mysql::Error::IoError(
            std::io::Error::from(std::io::ErrorKind::WouldBlock)
        )));
    }
}
