//! The effect-call journal's operations on the state database
//! (`EFFECT_CALL`, DESIGN §6): record an intent inside the business
//! transaction, grant calls (`DISPATCHED` with a one-time send token) in a
//! short transaction, store receipts guarded by the token.
//!
//! The rules that decide what may be granted live in the statements (a
//! status and attempt compare-and-set), so that two workers can never grant
//! the same call twice within one attempt.

use chrono::NaiveDateTime;

use super::StoreError;

/// The status of a journaled call (`EFFECT_CALL.STATUS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CallStatus {
    /// The intent is recorded; never granted.
    Pending,
    /// Granted: the call may have been made.
    Dispatched,
    /// The client is certain the call was not made; a later attempt may be
    /// granted.
    NotSent,
    /// The outcome is not known; resolved by reading the target back.
    Unknown,
    /// The target took the call.
    Accepted,
    /// The target refused the call.
    Rejected,
    /// The target was not in the state the call expects (e.g. the mailbox
    /// row was already written back).
    Conflict,
}

impl CallStatus {
    /// The `STATUS` value.
    pub fn code(self) -> &'static str {
        match self {
            CallStatus::Pending => "PENDING",
            CallStatus::Dispatched => "DISPATCHED",
            CallStatus::NotSent => "NOT_SENT",
            CallStatus::Unknown => "UNKNOWN",
            CallStatus::Accepted => "ACCEPTED",
            CallStatus::Rejected => "REJECTED",
            CallStatus::Conflict => "CONFLICT",
        }
    }

    /// Reads a `STATUS` value.
    pub fn from_code(code: &str) -> Option<CallStatus> {
        [
            CallStatus::Pending,
            CallStatus::Dispatched,
            CallStatus::NotSent,
            CallStatus::Unknown,
            CallStatus::Accepted,
            CallStatus::Rejected,
            CallStatus::Conflict,
        ]
        .into_iter()
        .find(|s| s.code() == code)
    }

    /// Whether a grant may be given in this status: never granted, or
    /// certainly not sent by the last grant.
    pub fn grantable(self) -> bool {
        matches!(self, CallStatus::Pending | CallStatus::NotSent)
    }

    /// Whether the call was granted and its outcome is still open: it must be
    /// resolved by reading the target back, never sent again.
    pub fn unresolved(self) -> bool {
        matches!(self, CallStatus::Dispatched | CallStatus::Unknown)
    }

    /// Whether the call is settled for good.
    pub fn settled(self) -> bool {
        matches!(
            self,
            CallStatus::Accepted | CallStatus::Rejected | CallStatus::Conflict
        )
    }
}

/// An intent to record, with its key and digest already computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewCall<'a> {
    /// SHA-256 of (scope, step, sub-key), lower-case hex.
    pub idempotency_key: &'a str,
    /// Which part of flightstate owns the call.
    pub scope: &'a str,
    /// Which step of that part makes it.
    pub step: &'a str,
    /// The stable name of the logical action.
    pub sub_key: &'a str,
    /// What the call does.
    pub call_kind: &'a str,
    /// Where it goes.
    pub target: &'a str,
    /// What it needs (never secrets).
    pub payload: &'a str,
    /// SHA-256 of target and payload, lower-case hex.
    pub payload_digest: &'a str,
    /// Latest time the call may still be made, if any.
    pub deadline_at: Option<NaiveDateTime>,
}

/// A journaled call as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredCall {
    /// Its id.
    pub call_id: i64,
    /// Its idempotency key.
    pub idempotency_key: String,
    /// What the call does.
    pub call_kind: String,
    /// Where it goes.
    pub target: String,
    /// What it needs.
    pub payload: String,
    /// Digest of target and payload.
    pub payload_digest: String,
    /// Where it stands.
    pub status: CallStatus,
    /// Token of the current grant.
    pub send_token: Option<String>,
    /// Number of the current grant (0 = never granted).
    pub attempt: i32,
    /// Latest time the call may be made.
    pub deadline_at: Option<NaiveDateTime>,
}

/// A grant: the call may be made once, under this token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    /// The call.
    pub call_id: i64,
    /// The one-time token of this grant.
    pub send_token: String,
    /// The attempt this grant is.
    pub attempt: i32,
}

/// Journal operations. Method names are the names of the SQL files that run
/// them.
pub trait JournalOps {
    /// Records an intent unless its key is already journaled. Returns the new
    /// call's id, or `None` when the key existed (read it with
    /// [`JournalOps::select_effect_call`] to compare the digest).
    fn insert_effect_intent(
        &mut self,
        call: &NewCall<'_>,
        now: NaiveDateTime,
    ) -> Result<Option<i64>, StoreError>;

    /// The call journaled under `idempotency_key`.
    fn select_effect_call(
        &mut self,
        idempotency_key: &str,
    ) -> Result<Option<StoredCall>, StoreError>;

    /// Calls that still need work, oldest first, at most `limit`: grantable
    /// ones whose deadline has not passed at `now`, and granted ones whose
    /// outcome is open.
    fn select_open_effect_calls(
        &mut self,
        limit: i64,
        now: NaiveDateTime,
    ) -> Result<Vec<StoredCall>, StoreError>;

    /// Grants each `(call_id, seen_attempt)` that is still grantable at that
    /// attempt and within its deadline: `DISPATCHED`, attempt + 1, a fresh
    /// send token, under lease `epoch`. Returns the grants given (a call
    /// another worker granted first is simply missing).
    fn grant_effect_calls(
        &mut self,
        calls: &[(i64, i32)],
        epoch: i64,
        now: NaiveDateTime,
    ) -> Result<Vec<Grant>, StoreError>;

    /// Stores the outcome of the grant `send_token` of `call_id`, if that
    /// grant is still the current one and its outcome is open. Returns
    /// whether it was stored.
    fn record_effect_receipt(
        &mut self,
        call_id: i64,
        send_token: &str,
        status: CallStatus,
        remote_ref: Option<&str>,
        now: NaiveDateTime,
    ) -> Result<bool, StoreError>;
}
