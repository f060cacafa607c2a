//! The mailbox's r2d2 pool: a [`r2d2::ManageConnection`] for `mysql::Conn`,
//! so that the mailbox has the same pool as the state database — one
//! health check (`test_on_check_out`: a ping), one wait
//! (`connection_timeout`), one count (`Pool::state`).
//!
//! r2d2 opens connections and checks them on its own terms and keeps only
//! the text of a failure; the mailbox must still say which limit ran out
//! or that TLS was refused (`MailboxError::on_link`), so the manager keeps
//! the last failure whole for the caller that waited through it
//! ([`Failures`]). It never decides what a failure means.

use std::os::fd::{AsRawFd, RawFd};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::{Conn, Opts};

use super::statements;

/// What a failure happened at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Attempt {
    /// Opening a connection.
    Connect,
    /// The ping of a pooled connection at checkout.
    Ping,
}

/// A failure to open or revive a connection, as the driver said it.
#[derive(Clone, Debug)]
pub(super) struct Failure {
    pub(super) at: Instant,
    pub(super) attempt: Attempt,
    pub(super) error: Arc<mysql::Error>,
}

/// The last failure of the pool's connects and pings, until a connect
/// succeeds again.
#[derive(Debug, Default)]
pub(super) struct Failures(Mutex<Option<Failure>>);

impl Failures {
    fn record(&self, attempt: Attempt, error: mysql::Error) -> Arc<mysql::Error> {
        let error = Arc::new(error);
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(Failure {
            at: Instant::now(),
            attempt,
            error: Arc::clone(&error),
        });
        error
    }

    fn clear(&self) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// The last failure, if it happened at or after `start`: what a caller
    /// that has waited since `start` met.
    pub(super) fn since(&self, start: Instant) -> Option<Failure> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .filter(|failure| failure.at >= start)
            .cloned()
    }
}

/// Opens mailbox connections with the options `Mailbox::connect` built
/// (timeouts, keepalive, TLS).
#[derive(Debug)]
pub(super) struct Manager {
    opts: Opts,
    failures: Arc<Failures>,
    /// `MailboxSettings::idle_in_transaction`, set on every new connection.
    idle_in_transaction: Option<Duration>,
}

impl Manager {
    pub(super) fn new(
        opts: Opts,
        failures: Arc<Failures>,
        idle_in_transaction: Option<Duration>,
    ) -> Manager {
        Manager {
            opts,
            failures,
            idle_in_transaction,
        }
    }

    /// Limits how long a transaction of `conn` may wait for us, where the
    /// server can (MariaDB); a server without the variable (MySQL, error
    /// 1193) keeps its own rules.
    fn limit_idle_transactions(&self, conn: &mut Conn) -> Result<(), mysql::Error> {
        let Some(limit) = self.idle_in_transaction else {
            return Ok(());
        };
        let secs = limit.as_secs().max(1);
        match conn.exec_drop(statements::SET_IDLE_TRANSACTION_LIMIT, (secs,)) {
            Err(mysql::Error::MySqlError(e)) if e.code == UNKNOWN_SYSTEM_VARIABLE => {
                tracing::debug!(
                    "the mailbox server has no idle_transaction_timeout (MySQL): a frozen \
                     write-back keeps its rows locked until the process wakes or is killed"
                );
                Ok(())
            }
            other => other,
        }
    }
}

/// `ER_UNKNOWN_SYSTEM_VARIABLE`.
const UNKNOWN_SYSTEM_VARIABLE: u16 = 1193;

impl r2d2::ManageConnection for Manager {
    type Connection = Conn;
    type Error = Arc<mysql::Error>;

    fn connect(&self) -> Result<Conn, Self::Error> {
        let opened = Conn::new(self.opts.clone()).and_then(|mut conn| {
            self.limit_idle_transactions(&mut conn)?;
            Ok(conn)
        });
        match opened {
            Ok(conn) => {
                self.failures.clear();
                Ok(conn)
            }
            Err(e) => Err(self.failures.record(Attempt::Connect, e)),
        }
    }

    /// A ping: it fails at once on a connection the server closed while it
    /// was idle, and within `io_timeout` on a silent link (the read timeout,
    /// or keepalive, which has usually given up the other idle connections
    /// of that link by then, so that their pings fail at once too).
    fn is_valid(&self, conn: &mut Conn) -> Result<(), Self::Error> {
        conn.ping().map_err(|e| {
            discard(conn.as_raw_fd());
            self.failures.record(Attempt::Ping, e)
        })
    }

    fn has_broken(&self, conn: &mut Conn) -> bool {
        !at_rest(conn.as_raw_fd())
    }
}

/// Makes sure a connection that failed on the wire never serves again: its
/// socket is shut down, so that a transaction's rollback on drop and the
/// goodbye of the connection's own drop fail at once instead of waiting out
/// the write timeout again on a silent link, and the pool, finding it not
/// at rest, drops it.
pub(super) fn discard(fd: RawFd) {
    // SAFETY: `shutdown` only changes the state of the socket behind `fd`,
    // which the connection that owns it keeps open until it is dropped; it
    // touches no memory of ours.
    unsafe {
        libc::shutdown(fd, libc::SHUT_RDWR);
    }
}

/// Whether the socket `fd` is open with nothing waiting to be read: how a
/// connection goes back to the pool after a complete answer. Anything else
/// — end of stream (the server closed it, or [`discard`] shut it down), an
/// error the kernel holds (keepalive gave up), bytes nobody asked for (a
/// late answer to a read that timed out, which the next caller would take
/// for its own) — leaves it broken. Asked without waiting: r2d2 calls this
/// on every return, and it must not block.
fn at_rest(fd: RawFd) -> bool {
    let mut byte = 0u8;
    // SAFETY: `recv` writes at most one byte into `byte`, which outlives the
    // call; MSG_PEEK leaves it in the socket and MSG_DONTWAIT keeps the call
    // from blocking.
    let read = unsafe {
        libc::recv(
            fd,
            (&raw mut byte).cast(),
            1,
            libc::MSG_PEEK | libc::MSG_DONTWAIT,
        )
    };
    read < 0
        && matches!(
            std::io::Error::last_os_error().kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
        )
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};

    use super::*;

    #[test]
    fn a_socket_is_at_rest_until_bytes_wait_or_it_is_shut_down() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a listener");
        let client =
            TcpStream::connect(listener.local_addr().expect("its address")).expect("connect");
        let (mut server, _) = listener.accept().expect("accept");
        assert!(at_rest(client.as_raw_fd()), "an open, quiet socket");

        server.write_all(b"x").expect("send a byte");
        server.flush().expect("flush");
        let waited = Instant::now();
        while at_rest(client.as_raw_fd()) {
            assert!(
                waited.elapsed() < std::time::Duration::from_secs(5),
                "the byte never arrived"
            );
            std::thread::yield_now();
        }

        let other =
            TcpStream::connect(listener.local_addr().expect("its address")).expect("connect");
        let (_server, _) = listener.accept().expect("accept");
        assert!(at_rest(other.as_raw_fd()));
        discard(other.as_raw_fd());
        assert!(!at_rest(other.as_raw_fd()), "shut down by discard");
    }

    #[test]
    fn a_failure_is_told_to_the_callers_that_waited_through_it() {
        let failures = Failures::default();
        let before = Instant::now();
        failures.record(
            Attempt::Connect,
            mysql::Error::DriverError(mysql::DriverError::ConnectTimeout),
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
        let after = Instant::now();
        let seen = failures.since(before).expect("recorded after `before`");
        assert_eq!(seen.attempt, Attempt::Connect);
        assert!(failures.since(after).is_none(), "older than `after`");
        failures.clear();
        assert!(
            failures.since(before).is_none(),
            "a connect succeeded since"
        );
    }
}
