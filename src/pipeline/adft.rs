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
use super::flights::{FlightMessage, FlightWork, apply_alone, check_recs};
use super::message_ref::MessageRef;
use super::report::EventReport;
use super::settings::Settings;
use crate::protocol::Schedule;
use crate::state::state_from_record;
use crate::store::Store;

/// Checks an SCHD ADFT before any transaction: RECS, and every value of
/// every FLTR.
pub(super) fn check_adft(schedule: &Schedule) -> Result<(), PipelineError> {
    check_recs(schedule)?;
    for record in &schedule.flights {
        state_from_record(record).map_err(|e| PipelineError::BadInput(e.to_string()))?;
    }
    Ok(())
}

/// Applies an SCHD ADFT: every FLTR, in order.
pub(super) fn apply_adft<S: Store>(
    store: &S,
    settings: &Settings,
    message: &MessageRef<'_>,
    schedule: &Schedule,
) -> Result<EventReport, PipelineError> {
    check_adft(schedule)?;
    apply_alone(
        store,
        settings,
        FlightMessage {
            message: *message,
            work: FlightWork::Adft(schedule),
        },
    )
}

/// Applies an SCHD DEL: deletes every listed flight that exists.
pub(super) fn apply_delete<S: Store>(
    store: &S,
    settings: &Settings,
    message: &MessageRef<'_>,
    schedule: &Schedule,
) -> Result<EventReport, PipelineError> {
    check_recs(schedule)?;
    apply_alone(
        store,
        settings,
        FlightMessage {
            message: *message,
            work: FlightWork::Delete(schedule),
        },
    )
}
