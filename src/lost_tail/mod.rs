//! A state database that lost its last commits (DESIGN §12;
//! docs/operations.md, "After a failover" and "After a restore").
//!
//! The mailbox write-back happens after the state transaction commits. When
//! the state database then loses its last committed transactions (an
//! asynchronous standby promoted, a restore from a backup, a Data Guard
//! switchover in maximum performance mode), the mailbox rows of those
//! messages are already written back: the pump would never read them again.
//! The mailbox is then the durable log, and this module reads it back:
//!
//! - **Detection** (`detect`): the *lost tail* is the mailbox rows written
//!   back with flightstate's own statuses (the site's succeeded and dead
//!   values) whose ids are above the last message the state database holds
//!   as final. What is not a lost tail, and why it is not counted:
//!   - rows another reader processed carry that reader's statuses, and rows
//!     it took between two of flightstate's lie below flightstate's last
//!     final message;
//!   - rows from before flightstate was installed lie below its first
//!     message, and a state database that holds no final message at all
//!     (a new one) has no tail;
//!   - rows AODB purged are gone from the mailbox, and the rule never looks
//!     below the last final message, so neither a purge nor flightstate's
//!     own clean-up of `PROC_STATE` changes it.
//!
//!   The pump guards itself before every batch (`pump::LostTail`); `doctor`,
//!   `status` and the status page ask [`detect`], which reads the database
//!   again after the mailbox so that a pump committing meanwhile is not
//!   mistaken for a tail.
//! - **Catch-up** (`catch_up`): under the pump lease, held by a resync
//!   holder so that every dispatcher waits, the tail's rows are applied
//!   again in mailbox order by a pump (the same rules, groups, failure
//!   policy and dead letters); the journal's write-back of each is settled
//!   by reading its row back rather than by a second call the mailbox would
//!   refuse (`settle`); then the topics are put back in step by the resync
//!   (`crate::resync`), which takes the lease over without letting it go.

mod catch_up;
mod detect;
mod settle;

pub use catch_up::{CatchUpError, CatchUpReport, CatchUpSettings, catch_up, retry_after};
pub use detect::{DetectError, detect};
pub use settle::SettledWriteBack;

pub use crate::pump::LostTail;
