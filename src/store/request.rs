//! The request tracker's operations on the state database (`REQ_TRACK`,
//! DESIGN §4 "Requests"): register a request (expiring the live one of its
//! kind), complete one with an answer, time out the unanswered, list them.
//!
//! The rules that keep one live request per kind and complete only a
//! PENDING request live in the statements (a status compare-and-set and
//! the `REQ_TRACK_ONE_PENDING_UX` index), so that an answer and a timeout
//! racing for the same request can never both win.

use chrono::{NaiveDate, NaiveDateTime};

use super::{CallStatus, StoreError};

/// The status of a request (`REQ_TRACK.STATUS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RequestStatus {
    /// Waiting for its answer: the live request of its kind.
    Pending,
    /// Answered.
    Completed,
    /// Replaced by a newer request of the same kind before an answer came.
    Expired,
    /// No answer before its answer was due.
    TimedOut,
}

impl RequestStatus {
    /// The `STATUS` value.
    pub fn code(self) -> &'static str {
        match self {
            RequestStatus::Pending => "PENDING",
            RequestStatus::Completed => "COMPLETED",
            RequestStatus::Expired => "EXPIRED",
            RequestStatus::TimedOut => "TIMED_OUT",
        }
    }

    /// Reads a `STATUS` value.
    pub fn from_code(code: &str) -> Option<RequestStatus> {
        [
            RequestStatus::Pending,
            RequestStatus::Completed,
            RequestStatus::Expired,
            RequestStatus::TimedOut,
        ]
        .into_iter()
        .find(|s| s.code() == code)
    }
}

/// A request to register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewRequest<'a> {
    /// Its id, from [`RequestOps::next_request_id`].
    pub req_id: i64,
    /// The SIS type of the request (`RQFD`).
    pub req_kind: &'a str,
    /// The operation day asked for, if the request is about one.
    pub operation_day: Option<NaiveDate>,
    /// The `SNDR` expected in the answer.
    pub sender: &'a str,
    /// The outbound `SEQN` of its message.
    pub seqn: &'a str,
    /// The journaled call that writes its message.
    pub call_id: i64,
    /// When a request still PENDING becomes TIMED_OUT (UTC).
    pub answer_due_at: NaiveDateTime,
}

/// A request as listed, with its call.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RequestEntry {
    /// Its id.
    pub req_id: i64,
    /// The SIS type of the request.
    pub req_kind: String,
    /// The operation day asked for.
    pub operation_day: Option<NaiveDate>,
    /// The `SNDR` expected in the answer.
    pub sender: Option<String>,
    /// Where it stands.
    pub status: RequestStatus,
    /// When it was registered (UTC).
    pub created_at: NaiveDateTime,
    /// When it times out unless answered (UTC).
    pub answer_due_at: Option<NaiveDateTime>,
    /// When it was answered, expired or timed out (UTC).
    pub completed_at: Option<NaiveDateTime>,
    /// The message whose answer completed it.
    pub completed_by_message_id: Option<i64>,
    /// The newer request that expired it.
    pub expired_by_req_id: Option<i64>,
    /// The outbound `SEQN` of its message.
    pub seqn: Option<String>,
    /// Its journaled call.
    pub call_id: Option<i64>,
    /// Where the call stands (`None`: the call's row is gone).
    pub call_status: Option<CallStatus>,
    /// The `COUTMSGS_ID` of the row the call wrote.
    pub remote_ref: Option<String>,
    /// How many times the call was granted.
    pub attempts: Option<i32>,
}

/// Request operations. Method names are the names of the SQL files that
/// run them.
pub trait RequestOps {
    /// A fresh request id.
    fn next_request_id(&mut self) -> Result<i64, StoreError>;

    /// The next value of the outbound `SEQN` counter (never wraps; the
    /// caller takes it modulo 1,000,000).
    fn next_outbound_seqn(&mut self) -> Result<i64, StoreError>;

    /// Expires the live request of `req_kind`, naming `new_req_id`; returns
    /// each expired request's id and call.
    fn expire_requests(
        &mut self,
        req_kind: &str,
        new_req_id: i64,
        now: NaiveDateTime,
    ) -> Result<Vec<(i64, Option<i64>)>, StoreError>;

    /// Withdraws the calls `call_ids` that were never granted (or are
    /// certainly not sent): they are not made any more. Returns those
    /// withdrawn.
    fn withdraw_request_calls(
        &mut self,
        call_ids: &[i64],
        now: NaiveDateTime,
    ) -> Result<Vec<i64>, StoreError>;

    /// Registers `request` as PENDING.
    fn insert_request(
        &mut self,
        request: &NewRequest<'_>,
        now: NaiveDateTime,
    ) -> Result<(), StoreError>;

    /// Completes the newest PENDING request of (`day`, `sender`,
    /// `req_kind`) by message `message_id`; returns its id, or `None` when
    /// no request was live for them.
    fn complete_request(
        &mut self,
        day: NaiveDate,
        sender: &str,
        req_kind: &str,
        message_id: i64,
        now: NaiveDateTime,
    ) -> Result<Option<i64>, StoreError>;

    /// The operation day of the newest PENDING request of `req_kind` whose
    /// answer is expected from `sender`.
    fn select_request_day(
        &mut self,
        sender: &str,
        req_kind: &str,
    ) -> Result<Option<NaiveDate>, StoreError>;

    /// Marks TIMED_OUT every PENDING request whose answer was due by `now`;
    /// returns their ids.
    fn time_out_requests(&mut self, now: NaiveDateTime) -> Result<Vec<i64>, StoreError>;

    /// The live requests, then the most recent others, at most `limit`.
    fn select_requests(&mut self, limit: i64) -> Result<Vec<RequestEntry>, StoreError>;
}
