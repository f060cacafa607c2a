//! The flight-level rules — flight events (FLOP), ad-hoc flights (SCHD
//! ADFT) and deletion lists (SCHD DEL) — over a run of messages inside one
//! transaction: one message when applied alone, a group when the pump
//! commits several together. Both go through [`apply_flight_messages`], so
//! a message means the same whichever way it is committed.

use super::PipelineError;
use super::message_ref::MessageRef;
use super::order_evidence;
use super::report::EventReport;
use super::settings::{Settings, check_fence};
use super::working::Working;
use crate::protocol::{Field, Schedule};
use crate::state::{AbsentFields, CollectionRules, FlightEvent, merge_adft, merge_event};
use crate::store::{Outcome, StateTx, Store};

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
    /// The message and its bookkeeping.
    pub(super) message: MessageRef<'a>,
    /// What it does.
    pub(super) work: FlightWork<'a>,
}

/// Refuses an ADFT or DEL whose RECS, when sent, is not its record count.
/// RECS is optional here: it guards a snapshot's completeness, and these
/// messages complete nothing.
pub(super) fn check_recs(schedule: &Schedule) -> Result<(), PipelineError> {
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
        settled.push(working.settle(&m.message)?);
    }
    working.flush(tx, last.message.now)?;
    order_evidence::count_flight_messages(tx, &days)?;
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

/// Applies one flight-level message in a transaction of its own, under
/// `PIPELINE_LOCK` and the pump's epoch.
pub(super) fn apply_alone<S: Store>(
    store: &S,
    settings: &Settings,
    message: FlightMessage<'_>,
) -> Result<EventReport, PipelineError> {
    store.transaction(|tx| {
        let lease = tx.lock_pipeline()?;
        check_fence(settings.fence, &lease)?;
        let mut reports = apply_flight_messages(
            tx,
            &settings.merge.collections,
            settings.merge.adft_absent,
            &[message],
        )?;
        Ok(reports.pop().unwrap_or_default())
    })
}
