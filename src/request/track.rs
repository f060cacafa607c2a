//! What a request does to the state database: one transaction registers it
//! (expiring the live one of its kind, journaling its call), an answer's
//! transaction completes it, a sweep times out the unanswered.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use chrono::{NaiveDate, NaiveDateTime};

use super::{RQFD, RequestSettings, Rqfd, Seqn, request_intent};
use crate::failure::Causes;
use crate::journal::{Recorded, record_intent};
use crate::protocol::Meta;
use crate::store::{JournalOps, NewRequest, RequestOps, StateTx, Store, StoreError};

/// Why a request was not registered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// The state database failed; nothing was registered. Try again.
    #[error("cannot register the request")]
    Store(#[from] StoreError),
    /// The request's call key is journaled already with another message
    /// (DESIGN §6.1: a key's digest never changes). Nothing was registered;
    /// the journaled call stands.
    #[error(
        "the call key of request {req_id} is journaled already (call {call_id}) with another message; refused"
    )]
    DigestMismatch {
        /// The request.
        req_id: i64,
        /// The journaled call.
        call_id: i64,
    },
}

/// What one registration did.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Registered {
    /// The new request.
    pub req_id: i64,
    /// The SEQN of its message.
    pub seqn: String,
    /// Its journaled call.
    pub call_id: i64,
    /// The older live requests of its kind that it expired.
    pub expired: Vec<i64>,
    /// When it times out unless answered (UTC).
    pub answer_due_at: NaiveDateTime,
}

/// Registers an RQFD request for `day`, in the caller's transaction: takes
/// `PIPELINE_LOCK` (so that it is ordered with the pump's answers), expires
/// the live RQFD request, journals the call that writes the message into
/// `COUTMSGS`, and records the request as PENDING. `now` is UTC, `local_now`
/// the station's wall clock (the message's DTTM).
///
/// # Errors
///
/// [`RequestError`]; the caller's transaction must then roll back.
pub fn register_day_request<T: StateTx + RequestOps + JournalOps>(
    tx: &mut T,
    settings: &RequestSettings,
    day: NaiveDate,
    now: NaiveDateTime,
    local_now: NaiveDateTime,
) -> Result<Registered, RequestError> {
    tx.lock_pipeline()?;
    let req_id = tx.next_request_id()?;
    let seqn = Seqn::of_counter(tx.next_outbound_seqn()?);
    let expired = tx.expire_requests(RQFD, req_id, now)?;
    // The older request's message, if not written yet, is not wanted any
    // more: its answer would be taken for the new one's.
    let calls: Vec<i64> = expired.iter().filter_map(|(_, call)| *call).collect();
    tx.withdraw_request_calls(&calls, now)?;
    let expired: Vec<i64> = expired.into_iter().map(|(req_id, _)| req_id).collect();
    let message = Rqfd::for_day(
        &settings.sender,
        seqn,
        local_now,
        day,
        settings.day_boundary,
    );
    let answer_due_at = now
        + chrono::Duration::from_std(settings.answer_timeout).unwrap_or(chrono::Duration::MAX / 2);
    // A message not written before its answer is due asks too late: the
    // call is not made any more, and the request times out visibly.
    let intent = request_intent(
        &settings.routing_id,
        req_id,
        &message.to_xml(),
        Some(answer_due_at),
    );
    let call_id = match record_intent(tx, &intent, now)? {
        Recorded::New(id) | Recorded::Existing(id) => id,
        Recorded::DigestMismatch(call_id) => {
            return Err(RequestError::DigestMismatch { req_id, call_id });
        }
    };
    tx.insert_request(
        &NewRequest {
            req_id,
            req_kind: RQFD,
            operation_day: Some(day),
            sender: &settings.answer_sender,
            seqn: &seqn.to_string(),
            call_id,
            answer_due_at,
        },
        now,
    )?;
    Ok(Registered {
        req_id,
        seqn: seqn.to_string(),
        call_id,
        expired,
        answer_due_at,
    })
}

/// The request kind a message answers: an SCHD RESP or DNLD answers RQFD.
fn answered_kind(msg_type: &str, subtype: &str) -> Option<&'static str> {
    (msg_type == "SCHD" && matches!(subtype, "RESP" | "DNLD")).then_some(RQFD)
}

/// Completes the request a snapshot answers, in the snapshot's own
/// transaction (seed §7.1): the snapshot whose META is `answer`, applied to
/// `day` as message `message_id` at `now` (UTC), completes the newest
/// PENDING request of (day, sender, kind). A RESP took the live request's day when it named none
/// ([`request_day`]), so it matches; a DNLD matches only a request of its
/// day; a late or repeated answer finds nothing PENDING and completes
/// nothing. Returns the completed request.
///
/// # Errors
///
/// A [`StoreError`]; the snapshot's transaction then rolls back.
pub fn complete_by_answer<T: RequestOps + ?Sized>(
    tx: &mut T,
    answer: &Meta,
    day: NaiveDate,
    (message_id, now): (i64, NaiveDateTime),
) -> Result<Option<i64>, StoreError> {
    let Some(kind) = answered_kind(&answer.msg_type, &answer.styp) else {
        return Ok(None);
    };
    let completed = tx.complete_request(day, &answer.sndr, kind, message_id, now)?;
    if let Some(req_id) = completed {
        tracing::info!(
            msg.id = message_id,
            request.id = req_id,
            operation_day = %day,
            "the answer completes request {req_id}"
        );
    }
    Ok(completed)
}

/// Whether a snapshot that names no day takes the day of the request it
/// answers (DESIGN §4): an SCHD RESP does; a DNLD never does.
pub fn takes_request_day(msg_type: &str, subtype: &str) -> bool {
    msg_type == "SCHD" && subtype == "RESP"
}

/// The day of the request a RESP from `sender` answers: the newest live
/// RQFD request's, if any.
///
/// # Errors
///
/// A [`StoreError`] when the state database cannot be read.
pub fn request_day<T: RequestOps + ?Sized>(
    tx: &mut T,
    sender: &str,
) -> Result<Option<NaiveDate>, StoreError> {
    tx.select_request_day(sender, RQFD)
}

/// How often the effect workers look for overdue requests: a timeout is
/// configured in minutes, so seconds of delay do not matter, and the look is
/// one statement on a table of a few rows a day.
const SWEEP_EVERY: Duration = Duration::from_secs(5);

/// When this process last looked for overdue requests. Process-wide, so
/// that the pump's inline effects and the effect worker of `run` share it.
static LAST_SWEEP: Mutex<Option<Instant>> = Mutex::new(None);

/// Marks TIMED_OUT the requests whose answer is overdue at `now` (UTC), at
/// most once per few seconds per process: the effect workers call it
/// between their passes. Returns the requests timed out; a failure is
/// logged and tried again at a later turn.
pub fn sweep_overdue<S: Store>(store: &S, now: NaiveDateTime) -> Vec<i64> {
    {
        let Ok(mut last) = LAST_SWEEP.lock() else {
            return Vec::new();
        };
        if last.is_some_and(|at| at.elapsed() < SWEEP_EVERY) {
            return Vec::new();
        }
        *last = Some(Instant::now());
    }
    match store.transaction(|tx| tx.time_out_requests(now)) {
        Ok(timed_out) => {
            for req_id in &timed_out {
                tracing::warn!(
                    request.id = req_id,
                    "request {req_id} saw no answer in time: TIMED_OUT"
                );
            }
            timed_out
        }
        Err(e) => {
            tracing::warn!(error = %Causes(&e), "cannot time out overdue requests; trying again later");
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_answer_day_requests_and_nothing_else_does() {
        assert_eq!(answered_kind("SCHD", "RESP"), Some(RQFD));
        assert_eq!(answered_kind("SCHD", "DNLD"), Some(RQFD));
        assert_eq!(answered_kind("SCHD", "ADFT"), None);
        assert_eq!(answered_kind("FLOP", "GTDT"), None);
        assert_eq!(answered_kind("AIRL", "RESP"), None);
    }
}
