//! The flight-level rules — flight events (FLOP), ad-hoc flights (SCHD
//! ADFT) and deletion lists (SCHD DEL) — over a run of messages inside one
//! transaction: one message when applied alone, a group when the pump
//! commits several together (`group`). Both go through
//! [`apply_flight_messages`], so a message means the same whichever way it
//! is committed.
//!
//! **Flight event** (FLOP, DESIGN §4): every `<FLOP>` body is checked and
//! converted before the transaction (a body that cannot apply makes the
//! message DEAD). Then, under `PIPELINE_LOCK` and the pump's epoch: read
//! the full state of the flights named, apply the bodies in order with the
//! `state` merge rules, and settle (`working`): write each changed flight
//! (main row + only the detail tables that changed), delete the deleted
//! ones, register one `KAFKA_SCHD` row and one `KAFKA_MSG` row per changed
//! flight and the outcome. A message that changes nothing writes nothing
//! but its outcome.
//!
//! **Ad-hoc flights and deletion lists** (SCHD ADFT / DEL, DESIGN §4): not
//! snapshots — they never touch `SCHD_GEN` or the day's flight list, never
//! delete a flight they do not name, and never complete a request. ADFT
//! writes each FLTR (absent elements per
//! [`AbsentFields`](crate::state::AbsentFields)); a new flight has no
//! operation day until a snapshot names it, an existing one keeps its day.
//! DEL deletes each listed flight with its details and a tombstone
//! (PROTOCOL §3.1); the rest of its FLTRs is not read.

mod group;
mod working;

pub use group::{GROUP_MAX_BODY, Grouped, apply_group, prepare_grouped};

use super::PipelineError;
use super::attempt::Attempt;
use super::evidence::order;
use super::outcome::EventReport;
use super::rules::Rules;
use crate::protocol::{Field, FlightOperation, Schedule, ScheduleSubtype};
use crate::state::{
    AbsentFields, CollectionRules, FlightEvent, merge_adft, merge_event, prepare_event,
    state_from_record,
};
use crate::store::{Outcome, ProcStatus, StateTx, Store};
use working::Working;

/// What a flight-level message does, checked before any transaction.
#[derive(Clone, Copy)]
pub(super) enum FlightWork<'a> {
    /// FLOP: the bodies, in order.
    Events(&'a [FlightEvent]),
    /// SCHD ADFT: every FLTR, in order.
    Adft(&'a Schedule),
    /// SCHD DEL: deletes every listed flight that exists.
    Delete(&'a Schedule),
}

impl FlightWork<'_> {
    /// The FLIDs the message names, in order (repeats allowed).
    fn flids(&self) -> Vec<i64> {
        match self {
            FlightWork::Events(events) => events.iter().map(FlightEvent::flid).collect(),
            FlightWork::Adft(schedule) | FlightWork::Delete(schedule) => {
                schedule.flights.iter().map(|r| r.flid).collect()
            }
        }
    }

    /// Merges the message into `working`, with the site's rules.
    fn merge(
        &self,
        working: &mut Working,
        collections: &CollectionRules,
        absent: AbsentFields,
    ) -> Result<(), PipelineError> {
        match self {
            FlightWork::Events(events) => {
                for event in *events {
                    let next = merge_event(working.current(event.flid()), event, collections);
                    working.set(event.flid(), next);
                }
                crate::failpoint!("event.before_write");
            }
            FlightWork::Adft(schedule) => {
                for record in &schedule.flights {
                    let next = merge_adft(working.current(record.flid), record, absent)
                        .map_err(|e| PipelineError::BadInput(e.to_string()))?;
                    working.set(record.flid, Some(next));
                }
                crate::failpoint!("adft.before_write");
            }
            FlightWork::Delete(schedule) => {
                for record in &schedule.flights {
                    working.set(record.flid, None);
                }
            }
        }
        Ok(())
    }
}

/// A flight-level message ready to apply.
#[derive(Clone, Copy)]
pub(super) struct FlightMessage<'a> {
    /// The attempt at the message, its META read.
    pub(super) message: &'a Attempt<'a>,
    /// What it does.
    pub(super) work: FlightWork<'a>,
}

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

/// Applies `messages`, in order, inside the caller's transaction (which
/// holds `PIPELINE_LOCK` and has checked the fence): reads every flight
/// they name once, merges and settles each message in memory, writes each
/// changed flight once, then registers each message's `KAFKA_SCHD` and
/// `KAFKA_MSG` rows and records it SUCCEEDED. Returns each message's
/// report.
///
/// # Errors
///
/// A database fault, or [`PipelineError::BadInput`] for an ADFT record
/// that cannot merge; the caller rolls the whole run back.
pub(super) fn apply_flight_messages<T: StateTx>(
    tx: &mut T,
    collections: &CollectionRules,
    absent: AbsentFields,
    messages: &[FlightMessage<'_>],
) -> Result<Vec<EventReport>, PipelineError> {
    let Some(last) = messages.last() else {
        return Ok(Vec::new());
    };
    let flids: Vec<i64> = messages.iter().flat_map(|m| m.work.flids()).collect();
    let mut working = Working::load(tx, &flids)?;
    let mut settled = Vec::with_capacity(messages.len());
    let mut days = Vec::with_capacity(messages.len());
    for m in messages {
        days.push((m.message, working.days_of(&m.work.flids())));
        working.begin(&m.work.flids());
        m.work.merge(&mut working, collections, absent)?;
        settled.push(working.settle(m.message)?);
    }
    working.flush(tx, last.message.now)?;
    order::count_flight_messages(tx, &days)?;
    let mut reports = Vec::with_capacity(messages.len());
    let mut events = Vec::new();
    let mut notices = Vec::new();
    for s in settled {
        events.extend(s.events);
        notices.extend(s.notices);
        reports.push(s.report);
    }
    let now = last.message.now;
    tx.append_state_events(&events, now)?;
    tx.append_change_notices(&notices, now)?;
    let outcomes: Vec<Outcome<'_>> = messages.iter().map(|m| m.message.succeeded()).collect();
    tx.record_outcomes(&outcomes)?;
    Ok(reports)
}

/// Applies one flight-level message in a transaction of its own.
fn apply_alone<S: Store>(
    store: &S,
    rules: &Rules,
    attempt: &Attempt<'_>,
    work: FlightWork<'_>,
) -> Result<EventReport, PipelineError> {
    let message = FlightMessage {
        message: attempt,
        work,
    };
    attempt.transaction(store, |tx| {
        let mut reports = apply_flight_messages(
            tx,
            &rules.merge.collections,
            rules.merge.adft_absent,
            &[message],
        )?;
        Ok((reports.pop().unwrap_or_default(), ProcStatus::Succeeded))
    })
}

/// Applies a FLOP message's bodies, in order, in one transaction.
pub(super) fn apply_event<S: Store>(
    store: &S,
    rules: &Rules,
    attempt: &Attempt<'_>,
    operation: &FlightOperation,
) -> Result<EventReport, PipelineError> {
    let events = prepare_events(rules, operation)?;
    let work = FlightWork::Events(&events);
    apply_alone(store, rules, attempt, work)
}

/// Checks and converts every `<FLOP>` body of a message; one that cannot
/// apply makes the whole message bad input.
fn prepare_events(
    rules: &Rules,
    operation: &FlightOperation,
) -> Result<Vec<FlightEvent>, PipelineError> {
    operation
        .flights
        .iter()
        .map(|record| prepare_event(operation.subtype, record, &rules.merge.collections))
        .collect::<Result<Vec<FlightEvent>, _>>()
        .map_err(|e| PipelineError::BadInput(e.to_string()))
}

/// Checks an SCHD ADFT before any transaction: RECS, and every value of
/// every FLTR.
fn check_adft(schedule: &Schedule) -> Result<(), PipelineError> {
    check_recs(schedule)?;
    for record in &schedule.flights {
        state_from_record(record).map_err(|e| PipelineError::BadInput(e.to_string()))?;
    }
    Ok(())
}

/// Applies an SCHD ADFT (every FLTR, in order) or an SCHD DEL (deletes
/// every listed flight that exists), each checked first.
pub(super) fn apply_schedule<S: Store>(
    store: &S,
    rules: &Rules,
    attempt: &Attempt<'_>,
    schedule: &Schedule,
) -> Result<EventReport, PipelineError> {
    let work = if schedule.subtype == ScheduleSubtype::Del {
        check_recs(schedule)?;
        FlightWork::Delete(schedule)
    } else {
        check_adft(schedule)?;
        FlightWork::Adft(schedule)
    };
    apply_alone(store, rules, attempt, work)
}
