//! The mailbox side of `flightstate dead` and `flightstate replay`: an
//! inbound row read whole for an operator (or its body's bytes for a
//! replay), and a row written back set pending again by a requeue.

use std::os::fd::AsRawFd;

use chrono::NaiveDateTime;
use mysql::prelude::Queryable;

use super::{Mailbox, MailboxError, statements};

/// An inbound row as an operator sees it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct StoredMessage {
    /// `CMINMSGS_CLOB_MSG`, as text (lossy where it is not UTF-8).
    pub body: String,
    /// `CMINMSGS_STATUS`.
    pub status: Option<String>,
    /// `CMINMSGS_DATE_RECEIVED` (the mailbox server's clock).
    pub received_at: Option<NaiveDateTime>,
    /// `CMINMSGS_DATE_PROCESSED` (the mailbox server's clock); `None` while
    /// it is pending.
    pub processed_at: Option<NaiveDateTime>,
}

/// `select_message`'s row: body, status, received, processed.
type SelectedRow = (Vec<u8>, Option<String>, mysql::Value, mysql::Value);

/// A `DATETIME` value (the driver is built without its chrono conversions).
fn date_time(value: &mysql::Value) -> Option<NaiveDateTime> {
    match *value {
        mysql::Value::Date(year, month, day, hour, minute, second, micros) => {
            chrono::NaiveDate::from_ymd_opt(year.into(), month.into(), day.into())?
                .and_hms_micro_opt(hour.into(), minute.into(), second.into(), micros)
        }
        _ => None,
    }
}

impl Mailbox {
    /// Row `id`, or `None` when it is gone.
    ///
    /// # Errors
    ///
    /// A [`MailboxError`] when the mailbox cannot be read.
    pub fn stored_message(&self, id: i64) -> Result<Option<StoredMessage>, MailboxError> {
        Ok(self
            .select_message(id)?
            .map(|(body, status, received_at, processed_at)| StoredMessage {
                body: String::from_utf8_lossy(&body).into_owned(),
                status,
                received_at: date_time(&received_at),
                processed_at: date_time(&processed_at),
            }))
    }

    /// The body of row `id` as its bytes (what the pump applied and its
    /// identity key digests), or `None` when the row is gone.
    ///
    /// # Errors
    ///
    /// A [`MailboxError`] when the mailbox cannot be read.
    pub fn message_body(&self, id: i64) -> Result<Option<Vec<u8>>, MailboxError> {
        Ok(self.select_message(id)?.map(|(body, ..)| body))
    }

    fn select_message(&self, id: i64) -> Result<Option<SelectedRow>, MailboxError> {
        let mut conn = self.conn()?;
        let fd = conn.as_raw_fd();
        conn.exec_first(statements::SELECT_MESSAGE, (id,))
            .map_err(|e| self.failed(fd, "select_message", e))
    }

    /// Sets row `id` pending again after it was written back; `false` when
    /// it is still pending (its write-back is not made yet) or gone.
    ///
    /// # Errors
    ///
    /// A [`MailboxError`] when the row cannot be updated.
    pub fn requeue_message(&self, id: i64) -> Result<bool, MailboxError> {
        let mut conn = self.conn()?;
        let fd = conn.as_raw_fd();
        conn.exec_drop(
            statements::REQUEUE_MESSAGE,
            (&self.settings.pending_status, id),
        )
        .map_err(|e| self.failed(fd, "requeue_message", e))?;
        Ok(conn.affected_rows() == 1)
    }
}
