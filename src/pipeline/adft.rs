//! Applying SCHD ADFT (ad-hoc flights) and SCHD DEL (flights deleted by
//! list): DESIGN §4 "Ad-hoc flight", in one transaction each.
//!
//! Neither is a snapshot: they never touch `SCHD_GEN` or the day's flight
//! list, never delete a flight they do not name, and never complete a
//! request. ADFT writes each FLTR (absent elements per
//! [`AbsentFields`](crate::state::AbsentFields)); a new flight has no
//! operation day until a snapshot names it, an existing one keeps its day.
//! DEL deletes each listed flight with its details and a tombstone
//! (PROTOCOL §3.1); the rest of its FLTRs is not read.

use super::PipelineError;
use super::apply::{Settings, check_fence};
use super::event::{EventReport, Working, settle};
use super::snapshot::MessageRef;
use crate::protocol::{Field, Schedule};
use crate::state::{merge_adft, state_from_record};
use crate::store::{StateTx, Store};

/// Refuses an ADFT or DEL whose RECS, when sent, is not its record count.
/// RECS is optional here: it guards a snapshot's completeness, and these
/// messages complete nothing.
fn check_recs(schedule: &Schedule) -> Result<(), PipelineError> {
    match schedule.recs {
        Field::Value(recs) if recs as usize != schedule.flights.len() => {
            Err(PipelineError::BadInput(format!(
                "RECS = {recs} but the message carries {} FLTR records",
                schedule.flights.len()
            )))
        }
        _ => Ok(()),
    }
}

/// Applies an SCHD ADFT: every FLTR, in order.
pub(super) fn apply_adft<S: Store>(
    store: &S,
    settings: &Settings,
    message: &MessageRef<'_>,
    schedule: &Schedule,
) -> Result<EventReport, PipelineError> {
    check_recs(schedule)?;
    // Every value is checked before the transaction starts.
    for record in &schedule.flights {
        state_from_record(record).map_err(|e| PipelineError::BadInput(e.to_string()))?;
    }
    let absent = settings.merge.adft_absent;
    store.transaction(|tx| {
        let lease = tx.lock_pipeline()?;
        check_fence(settings, &lease)?;
        let flids: Vec<i64> = schedule.flights.iter().map(|r| r.flid).collect();
        let mut working = Working::load(tx, &flids)?;
        for record in &schedule.flights {
            let next = merge_adft(working.current(record.flid), record, absent)
                .map_err(|e| PipelineError::BadInput(e.to_string()))?;
            working.set(record.flid, Some(next));
        }
        crate::failpoint!("adft.before_write");
        settle(tx, message, working)
    })
}

/// Applies an SCHD DEL: deletes every listed flight that exists.
pub(super) fn apply_delete<S: Store>(
    store: &S,
    settings: &Settings,
    message: &MessageRef<'_>,
    schedule: &Schedule,
) -> Result<EventReport, PipelineError> {
    check_recs(schedule)?;
    store.transaction(|tx| {
        let lease = tx.lock_pipeline()?;
        check_fence(settings, &lease)?;
        let flids: Vec<i64> = schedule.flights.iter().map(|r| r.flid).collect();
        let mut working = Working::load(tx, &flids)?;
        for flid in &flids {
            working.set(*flid, None);
        }
        settle(tx, message, working)
    })
}
