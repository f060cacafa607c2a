//! Group commit: the pump applies a run of consecutive flight-level
//! messages (FLOP, SCHD ADFT, SCHD DEL) in one state transaction.
//!
//! Each message keeps its own meaning: it merges into the state the
//! messages before it left, gets its own versions, outbox rows and
//! `PROC_STATE`, exactly as if it had committed alone (the same code,
//! `flights::apply_flight_messages`, does both). What the group saves is
//! the per-message overhead — one lock, one read of every flight named, one
//! write of each changed flight and one commit (one log flush) for the
//! whole run, which is what bounds a pump that commits every message on its
//! own.
//!
//! Only messages that parse and pass every check before the transaction
//! join a group; anything else (a snapshot, an unsupported or bad message)
//! takes the single-message path, [`apply_attempt`](crate::pipeline::apply_attempt),
//! which records its outcome. A group that fails as a whole is rolled back
//! and its messages are applied one by one by the pump, so a failure is
//! always pinned to one message.
//!
//! Each message of a group is carried by its own [`Attempt`], as a message
//! applied alone is, and the group's transaction is opened by the same
//! code as a message's (`attempt::sealed_transaction`).

use super::{
    FlightMessage, FlightWork, apply_flight_messages, check_adft, check_recs, prepare_events,
};
use crate::pipeline::attempt::{Attempt, sealed_transaction};
use crate::pipeline::outcome::{Applied, RecordedBefore};
use crate::pipeline::{PipelineError, Rules};
use crate::protocol::{self, Body, ScheduleSubtype};
use crate::state::FlightEvent;
use crate::store::{ProcStatus, StateTx, Store};

/// The largest body considered for a group. Flight-level messages are a
/// few KiB; a day's snapshot (tens of MiB) is not parsed twice just to learn
/// that it cannot join one.
pub const GROUP_MAX_BODY: usize = 256 * 1024;

/// A flight-level message parsed and checked, ready to join a group: the
/// attempt at it (its META read), with what it says and does.
pub struct Grouped<'a> {
    attempt: Attempt<'a>,
    /// What the message says.
    body: Body,
    /// The converted bodies of a FLOP (empty otherwise).
    events: Vec<FlightEvent>,
}

impl Grouped<'_> {
    /// The mailbox id.
    pub fn id(&self) -> i64 {
        self.attempt.message_id
    }

    fn work(&self) -> Option<FlightWork<'_>> {
        match &self.body {
            Body::FlightOperation(_) => Some(FlightWork::Events(&self.events)),
            Body::Schedule(s) if s.subtype == ScheduleSubtype::Adft => Some(FlightWork::Adft(s)),
            Body::Schedule(s) if s.subtype == ScheduleSubtype::Del => Some(FlightWork::Delete(s)),
            _ => None,
        }
    }

    /// The message as the group applies it.
    fn to_apply(&self) -> Result<FlightMessage<'_>, PipelineError> {
        let work = self.work().ok_or_else(|| {
            PipelineError::BadInput(format!(
                "message {} is not a flight-level message",
                self.id()
            ))
        })?;
        Ok(FlightMessage {
            message: &self.attempt,
            work,
        })
    }

    /// What becomes of the message when its record says it is not to be
    /// applied: final already, or DEAD for a body that changed under its id.
    fn not_applied<T: StateTx>(
        &self,
        tx: &mut T,
        before: RecordedBefore,
    ) -> Result<Applied, PipelineError> {
        match before {
            RecordedBefore::Final(status) => Ok(Applied::AlreadyProcessed { status }),
            RecordedBefore::ChangedAfterFinal(reason) => Ok(Applied::ChangedBody { reason }),
            RecordedBefore::ChangedBody(reason) => {
                self.attempt
                    .record(tx, ProcStatus::Dead, "BAD_INPUT", &reason)?;
                Ok(Applied::Dead { reason })
            }
            // Only a snapshot is ever held, and a snapshot never joins a
            // group; a message that is, is left to the single-message path.
            RecordedBefore::Held(_) | RecordedBefore::Released | RecordedBefore::Rejected(_) => {
                Err(PipelineError::BadInput(format!(
                    "message {} is a held snapshot, not a flight-level message",
                    self.id()
                )))
            }
            RecordedBefore::ToApply => Err(PipelineError::BadInput(format!(
                "message {} is to be applied, not kept as recorded",
                self.id()
            ))),
        }
    }
}

/// Parses and checks the message of `attempt`: `Some` when it is a
/// flight-level message that can join a group, `None` when it must take the
/// single-message path (too large, malformed, a snapshot, unsupported, or
/// failing a check — that path records why).
pub fn prepare_grouped<'a>(rules: &Rules, attempt: Attempt<'a>) -> Option<Grouped<'a>> {
    if attempt.body.len() > GROUP_MAX_BODY {
        return None;
    }
    let message = protocol::parse_slice(attempt.body, &rules.parse).ok()?;
    let events = match &message.body {
        Body::FlightOperation(operation) => prepare_events(rules, operation).ok()?,
        Body::Schedule(s) if s.subtype == ScheduleSubtype::Adft => {
            check_adft(s).ok()?;
            Vec::new()
        }
        Body::Schedule(s) if s.subtype == ScheduleSubtype::Del => {
            check_recs(s).ok()?;
            Vec::new()
        }
        _ => return None,
    };
    attempt.read(message.meta);
    Some(Grouped {
        attempt,
        body: message.body,
        events,
    })
}

/// Applies `group`, in order, in one transaction (opened as for a message
/// alone, `attempt::sealed_transaction`): takes `PIPELINE_LOCK` and checks the pump's
/// fence, tells from `PROC_STATE` which messages are new (a message already
/// final is not applied again; one whose body changed under its id is
/// DEAD), applies the new ones, records every outcome and seals the group:
/// each message's write-back intent, as for a message alone. Returns what
/// became of each message, in order.
///
/// # Errors
///
/// A database fault, a fenced pump, or bad input found inside the
/// transaction; nothing of the group commits, and the caller applies its
/// messages one by one.
pub fn apply_group<S: Store>(
    store: &S,
    rules: &Rules,
    group: &[Grouped<'_>],
) -> Result<Vec<Applied>, PipelineError> {
    let attempts: Vec<&Attempt<'_>> = group.iter().map(|g| &g.attempt).collect();
    sealed_transaction(store, &attempts, |tx| {
        let mut outcomes: Vec<Option<Applied>> = Vec::with_capacity(group.len());
        let mut to_apply = Vec::new();
        let ids: Vec<i64> = group.iter().map(Grouped::id).collect();
        let mut records = tx.proc_states(&ids)?;
        for grouped in group {
            let identity = grouped.attempt.identity_key();
            let before = RecordedBefore::of(grouped.id(), identity, records.remove(&grouped.id()));
            let outcome = match before {
                RecordedBefore::ToApply => {
                    to_apply.push(grouped.to_apply()?);
                    None
                }
                before => Some(grouped.not_applied(tx, before)?),
            };
            outcomes.push(outcome);
        }
        let mut reports = apply_flight_messages(
            tx,
            &rules.merge.collections,
            rules.merge.adft_absent,
            &to_apply,
        )?
        .into_iter();
        let applied: Vec<Applied> = outcomes
            .into_iter()
            .map(|outcome| {
                outcome.unwrap_or_else(|| Applied::Flights(reports.next().unwrap_or_default()))
            })
            .collect();
        crate::failpoint!("group.before_commit");
        let statuses = (applied.iter())
            .map(|applied| (applied.status(), applied.redelivered()))
            .collect();
        Ok((applied, statuses))
    })
}
