//! Outbound requests (DESIGN §4 "Requests", docs/requests.md): asking AODB
//! for an operation day (RQFD) through the mailbox's `COUTMSGS`, tracked in
//! `REQ_TRACK`, sent as a journaled call (DESIGN §6).
//!
//! Owns the rules: the RQFD message and its `SEQN`, what one registration
//! writes, which answer completes which request, when a request times out.
//! It reaches the state database only through the store traits, and never
//! the mailbox: the call that writes the message is
//! [`crate::mailbox::Outbound`], made by the effect worker.

mod rqfd;
mod seqn;
mod show;
mod track;

pub use rqfd::{RQFD, Rqfd, day_bounds};
pub use seqn::Seqn;
pub use show::summary;
pub use track::{
    Registered, RequestError, complete_by_answer, register_day_request, request_day, sweep_overdue,
    takes_request_day,
};

use std::time::Duration;

use chrono::{NaiveDateTime, NaiveTime};

use crate::journal::Intent;

/// The `CALL_KIND` of the call that writes a request message into
/// `COUTMSGS`.
pub const REQUEST_CALL_KIND: &str = "REQUEST";
const REQUEST_SCOPE: &str = "requests";
const REQUEST_STEP: &str = "send";
const TARGET_PREFIX: &str = "coutmsgs:";

/// How requests are made and tracked (`[requests]`, plus the station's day
/// boundary).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestSettings {
    /// `META/SNDR` of our requests.
    pub sender: String,
    /// `COUTMSGS.ROUTINGID` of a flight-data request.
    pub routing_id: String,
    /// `META/SNDR` of the answers (AODB's).
    pub answer_sender: String,
    /// How long a request waits for its answer before it is TIMED_OUT.
    pub answer_timeout: Duration,
    /// Where one operation day ends and the next begins (local time).
    pub day_boundary: NaiveTime,
}

/// The journaled call that writes request `req_id`'s `message` into
/// `COUTMSGS` under `routing_id`. The sub-key names the request and its
/// send (`request:{req id}:1`): a request is sent once; asking again is a
/// new request. A call not made by `deadline_at` is not made any more.
pub fn request_intent(
    routing_id: &str,
    req_id: i64,
    message: &str,
    deadline_at: Option<NaiveDateTime>,
) -> Intent {
    Intent {
        scope: REQUEST_SCOPE.to_owned(),
        step: REQUEST_STEP.to_owned(),
        sub_key: format!("request:{req_id}:1"),
        call_kind: REQUEST_CALL_KIND.to_owned(),
        target: format!("{TARGET_PREFIX}{routing_id}"),
        payload: message.to_owned(),
        deadline_at,
    }
}

/// The `ROUTINGID` a request call's target names, if it is one of ours.
pub fn routing_id_of(target: &str) -> Option<&str> {
    target
        .strip_prefix(TARGET_PREFIX)
        .filter(|routing| !routing.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_call_is_named_after_the_request_and_aimed_at_its_routing_id() {
        let intent = request_intent("VIEWRQFD", 7, "<MSG/>", None);
        assert_eq!(intent.sub_key, "request:7:1");
        assert_eq!(intent.call_kind, REQUEST_CALL_KIND);
        assert_eq!(routing_id_of(&intent.target), Some("VIEWRQFD"));
        assert_eq!(routing_id_of("cminmsgs:7"), None);
        assert_eq!(routing_id_of("coutmsgs:"), None);
        let other = request_intent("VIEWRQFD", 7, "<MSG>other</MSG>", None);
        assert_eq!(intent.idempotency_key(), other.idempotency_key());
        assert_ne!(intent.payload_digest(), other.payload_digest());
        assert_ne!(
            intent.idempotency_key(),
            request_intent("VIEWRQFD", 8, "<MSG/>", None).idempotency_key()
        );
    }
}
