//! The rows flightstate wrote back in an id range, as the lost tail's
//! detection counts them and its catch-up reads them again
//! (docs/operations.md, "After a failover"): those carrying one of the
//! statuses the journal's write-back intents write
//! ([`WriteBackStatuses`](crate::journal::WriteBackStatuses)).

use std::os::fd::AsRawFd;

use mysql::prelude::Queryable;

use super::{InboundMessage, Mailbox, MailboxError, received_at, statements};

/// Rows of an id range that carry a status flightstate writes back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WrittenBack {
    /// How many.
    pub count: i64,
    /// The lowest id.
    pub first: i64,
    /// The highest id.
    pub last: i64,
}

/// A row a catch-up applies again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaughtUpRow {
    /// Its id and body, as the pump reads them.
    pub message: InboundMessage,
    /// Whether it was written back (else it is still pending).
    pub written_back: bool,
}

impl Mailbox {
    /// The rows with ids in `(after, through]` written back with the
    /// site's succeeded or dead status; `None` when there is none.
    ///
    /// # Errors
    ///
    /// A [`MailboxError`] when the mailbox cannot be read.
    #[tracing::instrument(name = "mailbox.select_written_back", skip_all)]
    pub fn written_back(
        &self,
        after: i64,
        through: i64,
    ) -> Result<Option<WrittenBack>, MailboxError> {
        let mut conn = self.conn()?;
        let fd = conn.as_raw_fd();
        let statuses = &self.statuses;
        let row: Option<(i64, Option<i64>, Option<i64>)> = conn
            .exec_first(
                statements::SELECT_WRITTEN_BACK,
                (after, through, &statuses.succeeded, &statuses.dead),
            )
            .map_err(|e| self.failed(fd, "select_written_back", e))?;
        Ok(match row {
            Some((count, Some(first), Some(last))) if count > 0 => {
                Some(WrittenBack { count, first, last })
            }
            _ => None,
        })
    }

    /// At most `limit` rows with ids in `(after, through]` that a catch-up
    /// applies again, lowest id first: those written back with the site's
    /// succeeded or dead status, and those still pending.
    ///
    /// # Errors
    ///
    /// A [`MailboxError`] when the mailbox cannot be read.
    #[tracing::instrument(name = "mailbox.select_catch_up_messages", skip_all)]
    pub fn catch_up_rows(
        &self,
        after: i64,
        through: i64,
        limit: usize,
    ) -> Result<Vec<CaughtUpRow>, MailboxError> {
        let mut conn = self.conn()?;
        let fd = conn.as_raw_fd();
        let statuses = &self.statuses;
        let read_at = chrono::Utc::now().naive_utc();
        let rows: Vec<(i64, Vec<u8>, i64, Option<i64>)> = conn
            .exec(
                statements::SELECT_CATCH_UP_MESSAGES,
                (
                    after,
                    through,
                    &statuses.succeeded,
                    &statuses.dead,
                    &self.settings.pending_status,
                    limit as u64,
                ),
            )
            .map_err(|e| self.failed(fd, "select_catch_up_messages", e))?;
        Ok(rows
            .into_iter()
            .map(|(id, body, processed, age)| CaughtUpRow {
                message: InboundMessage {
                    id,
                    body,
                    received_at: received_at(read_at, age),
                },
                written_back: processed != 0,
            })
            .collect())
    }
}
