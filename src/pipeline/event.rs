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

use serde::Serialize;

use super::PipelineError;
use super::apply::{Settings, check_fence};
use super::flights::{FlightMessage, FlightWork, apply_flight_messages};
use super::snapshot::MessageRef;
use crate::protocol::FlightOperation;
use crate::state::{FlightEvent, prepare_event};
use crate::store::{StateTx, Store};

/// What applying a flight event, an ad-hoc flight or an SCHD DEL did, by
/// FLID in the order the message named them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct EventReport {
    /// `TYPE/STYP` of the message.
    pub event: String,
    /// Flights created (operation day not known yet).
    pub created: Vec<i64>,
    /// Flights whose state changed.
    pub updated: Vec<i64>,
    /// Flights deleted (with tombstones).
    pub deleted: Vec<i64>,
    /// Flights named whose state the message left as it was.
    pub unchanged: Vec<i64>,
}

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

/// Applies one flight-level message in a transaction of its own, under
/// `PIPELINE_LOCK` and the pump's epoch.
pub(super) fn apply_alone<S: Store>(
    store: &S,
    settings: &Settings,
    message: FlightMessage<'_>,
) -> Result<EventReport, PipelineError> {
    store.transaction(|tx| {
        let lease = tx.lock_pipeline()?;
        check_fence(settings, &lease)?;
        let mut reports = apply_flight_messages(
            tx,
            &settings.merge.collections,
            settings.merge.adft_absent,
            &[message],
        )?;
        Ok(reports.pop().unwrap_or_default())
    })
}
