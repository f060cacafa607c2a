//! The mass-delete guard's step of a snapshot (`[snapshot]`): decided after
//! the set-difference delete ran inside the transaction, when the count of
//! what it deletes is known for both read paths (a streamed message writes
//! its parts before it knows its list). A snapshot that deletes too much
//! fails the transaction with [`PipelineError::Held`]: everything it wrote
//! rolls back, and the message is recorded HELD for an operator.

use chrono::NaiveDate;

use super::PipelineError;
use crate::state::DeleteGuard;
use crate::store::StateTx;

/// Refuses the snapshot of `day` when deleting `deleting` flights is more
/// than `guard` allows of the day's list as it stood (the list is replaced
/// after this step). A snapshot an operator `released` is applied as it is.
pub(super) fn guard_mass_delete<T: StateTx>(
    tx: &mut T,
    guard: DeleteGuard,
    released: bool,
    day: NaiveDate,
    deleting: usize,
) -> Result<(), PipelineError> {
    if released || deleting == 0 {
        return Ok(());
    }
    let listed = tx.snapshot_list(day)?.len();
    guard.check(deleting, listed)?;
    Ok(())
}
