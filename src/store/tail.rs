//! What the state database says of the lost tail (docs/operations.md,
//! "After a failover"): the last message it holds as final. The mailbox
//! rows flightstate wrote back above it are messages whose commits the
//! database lost; the rule that names them is `crate::lost_tail`'s.

use super::StoreError;

/// Lost-tail operations. Method names are the names of the SQL files that
/// run them.
pub trait TailOps {
    /// The highest message id `PROC_STATE` holds as SUCCEEDED or DEAD, or
    /// as requeued by an operator (FAILED, `REQUEUED`: final once, its
    /// mailbox row pending again by hand, not lost), or `None` when it
    /// holds none.
    fn select_last_final_message(&mut self) -> Result<Option<i64>, StoreError>;
}
