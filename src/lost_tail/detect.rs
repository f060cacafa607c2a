//! The lost tail as an observer sees it (`doctor`, `status`, the status
//! page, a process that starts): read while a pump may be committing.

use crate::mailbox::{Mailbox, MailboxError};
use crate::pump::LostTail;
use crate::store::{Store, StoreError, TailOps};

/// How many times the database's last final message is read again when it
/// moved during the look at the mailbox (a pump committing).
const LOOKS: usize = 5;

/// Why the lost tail could not be looked for.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DetectError {
    /// The state database failed.
    #[error("cannot read the last final message of the state database")]
    Store(#[from] StoreError),
    /// The mailbox failed.
    #[error("cannot read the mailbox's written-back rows")]
    Mailbox(#[from] MailboxError),
}

/// The lost tail of `store` against `mailbox`, or `None`.
///
/// The database is read before and after the mailbox: a row written back
/// when the mailbox was read was committed before the second read (the
/// write-back follows the commit), so when the last final message did not
/// move in between, every row counted is truly missing. When it moved, a
/// pump is committing, and the look is made again from the new last
/// message; a pump that keeps committing guards the tail itself (it applies
/// nothing above a lost row), so after a few looks there is none.
///
/// # Errors
///
/// A [`DetectError`] when either side cannot be read.
pub fn detect<S: Store>(store: &S, mailbox: &Mailbox) -> Result<Option<LostTail>, DetectError> {
    let mut last_final = store.transaction(|tx| tx.select_last_final_message())?;
    for _ in 0..LOOKS {
        // Nothing final yet: a new database has no tail, whatever the
        // mailbox's history.
        let Some(after) = last_final else {
            return Ok(None);
        };
        let written = mailbox.written_back(after, i64::MAX)?;
        let again = store.transaction(|tx| tx.select_last_final_message())?;
        if again == last_final {
            return Ok(written.map(|w| LostTail {
                after,
                written_back: w.count,
                first: w.first,
                last: w.last,
            }));
        }
        last_final = again;
    }
    Ok(None)
}
