//! The request write as a journaled effect (DESIGN §6): the call that puts
//! a request message into AODB's `COUTMSGS`, and the read-back that
//! resolves one whose outcome is open.
//!
//! The insert is guarded (nothing is written when our row is there
//! already), so a late duplicate is impossible: a call found not written
//! may be granted again without ever leaving two rows.

use std::os::fd::AsRawFd;

use mysql::TxOpts;
use mysql::prelude::Queryable;

use super::{Mailbox, MailboxError, statements};
use crate::journal::{CallResult, Effect, ReadBack};
use crate::request::{REQUEST_CALL_KIND, routing_id_of};
use crate::store::StoredCall;

impl Mailbox {
    /// Writes request `message` into `COUTMSGS` under `routing_id`, in a
    /// mailbox transaction of its own, unless the row is there already.
    /// Before the commit nothing is visible, so a failure there is certainly
    /// `NotSent`; a failed commit is `Unknown`.
    pub fn insert_request_message(&self, routing_id: &str, message: &str) -> CallResult {
        let mut conn = match self.conn() {
            Ok(conn) => conn,
            Err(e) => {
                tracing::warn!(error = %format!("{e:#}"), "request not sent");
                return CallResult::NotSent;
            }
        };
        let fd = conn.as_raw_fd();
        let mut tx = match conn.start_transaction(TxOpts::default()) {
            Ok(tx) => tx,
            Err(e) => {
                let e = self.failed(fd, "begin the request write", e);
                tracing::warn!(error = %format!("{e:#}"), "request not sent: cannot begin");
                return CallResult::NotSent;
            }
        };
        let written = tx
            .exec_drop(
                statements::INSERT_REQUEST_MESSAGE,
                (message, routing_id, routing_id, message),
            )
            .and_then(|()| {
                let inserted = tx.affected_rows() == 1;
                let id = tx.last_insert_id();
                tx.exec_first::<Option<i64>, _, _>(
                    statements::SELECT_REQUEST_MESSAGE,
                    (routing_id, message),
                )
                .map(|found| (inserted, id, found.flatten()))
            });
        let (inserted, id, found) = match written {
            Ok(written) => written,
            Err(e) => {
                // Dropping the transaction rolls it back; a lost connection
                // is rolled back by the server: nothing of it can commit.
                let e = self.failed(fd, "insert_request_message", e);
                tracing::warn!(error = %format!("{e:#}"), "request not sent: rolled back");
                return CallResult::NotSent;
            }
        };
        if let Err(e) = tx.commit() {
            let e = self.failed(fd, "commit the request write", e);
            tracing::warn!(error = %format!("{e:#}"), "request commit failed: outcome unknown");
            return CallResult::Unknown;
        }
        // COUTMSGS_ID is a signed BIGINT: the insert id fits an i64.
        let remote = match (inserted, id) {
            (true, Some(id)) => Some(id as i64),
            _ => found,
        };
        if !inserted {
            tracing::info!(
                coutmsgs.id = remote,
                "the request row was there already; not written twice"
            );
        }
        CallResult::Accepted {
            remote_ref: remote.map(|id| id.to_string()),
        }
    }

    /// The `COUTMSGS_ID` of request `message` under `routing_id`, if the
    /// row is there.
    ///
    /// # Errors
    ///
    /// A [`MailboxError`] when the mailbox cannot be read.
    pub fn find_request_message(
        &self,
        routing_id: &str,
        message: &str,
    ) -> Result<Option<i64>, MailboxError> {
        let mut conn = self.conn()?;
        let fd = conn.as_raw_fd();
        let row: Option<Option<i64>> = conn
            .exec_first(statements::SELECT_REQUEST_MESSAGE, (routing_id, message))
            .map_err(|e| self.failed(fd, "select_request_message", e))?;
        Ok(row.flatten())
    }
}

/// The request write as a journaled [`Effect`].
pub struct Outbound<'m> {
    mailbox: &'m Mailbox,
}

impl<'m> Outbound<'m> {
    /// The request-write effect on `mailbox`.
    pub fn new(mailbox: &'m Mailbox) -> Outbound<'m> {
        Outbound { mailbox }
    }
}

impl Effect for Outbound<'_> {
    fn call_kind(&self) -> &'static str {
        REQUEST_CALL_KIND
    }

    fn call(&self, calls: &[&StoredCall]) -> Vec<CallResult> {
        calls
            .iter()
            .map(|call| match routing_id_of(&call.target) {
                Some(routing) => self.mailbox.insert_request_message(routing, &call.payload),
                // A target that is not ours is refused without a call.
                None => CallResult::Rejected,
            })
            .collect()
    }

    /// The guarded insert makes a late duplicate impossible, so a message
    /// not in `COUTMSGS` is `NotApplied` and may be written in a later
    /// attempt, never twice.
    fn read_back(
        &self,
        call: &StoredCall,
    ) -> Result<ReadBack, Box<dyn std::error::Error + Send + Sync>> {
        let Some(routing) = routing_id_of(&call.target) else {
            return Ok(ReadBack::Rejected);
        };
        Ok(
            match self.mailbox.find_request_message(routing, &call.payload)? {
                Some(id) => ReadBack::Done {
                    remote_ref: Some(id.to_string()),
                },
                None => ReadBack::NotApplied,
            },
        )
    }
}
