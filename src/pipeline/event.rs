//! Applying flight events (FLOP): DESIGN §4 "Flight event", in one
//! transaction.
//!
//! Every `<FLOP>` body is checked and converted before the transaction
//! (a body that cannot apply makes the message DEAD). Then, under
//! `PIPELINE_LOCK` and the pump's epoch: read the full state of the flights
//! named, apply the bodies in order with the `state` merge rules (computed
//! once, here), and settle: write each changed flight (main row + only the
//! detail tables that changed), delete the deleted ones, register one
//! `KAFKA_SCHD` row and one `KAFKA_MSG` row per changed flight and the
//! outcome. A message that changes nothing writes nothing but its outcome.
//!
//! The work itself is `flights::apply_flight_messages`, shared with ad-hoc
//! flights, SCHD DEL and the pump's group commits.

use super::PipelineError;
use super::flights::{FlightMessage, FlightWork, apply_alone};
use super::message_ref::MessageRef;
use super::report::EventReport;
use super::settings::Settings;
use crate::protocol::FlightOperation;
use crate::state::{FlightEvent, prepare_event};
use crate::store::Store;

/// Applies a FLOP message's bodies, in order, in one transaction.
pub(super) fn apply_event<S: Store>(
    store: &S,
    settings: &Settings,
    message: &MessageRef<'_>,
    operation: &FlightOperation,
) -> Result<EventReport, PipelineError> {
    let events = prepare_events(settings, operation)?;
    apply_alone(
        store,
        settings,
        FlightMessage {
            message: *message,
            work: FlightWork::Events(&events),
        },
    )
}

/// Checks and converts every `<FLOP>` body of a message; one that cannot
/// apply makes the whole message bad input.
pub(super) fn prepare_events(
    settings: &Settings,
    operation: &FlightOperation,
) -> Result<Vec<FlightEvent>, PipelineError> {
    operation
        .flights
        .iter()
        .map(|record| prepare_event(operation.subtype, record, &settings.merge.collections))
        .collect::<Result<Vec<FlightEvent>, _>>()
        .map_err(|e| PipelineError::BadInput(e.to_string()))
}
