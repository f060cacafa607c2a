//! The message a transaction records its outcome and notices for. Every
//! rule writes through these, so they live apart from the rules that use
//! them.

use chrono::NaiveDateTime;
use serde::Serialize;

use crate::store::{Outcome, ProcStatus};

/// The parts of a message the transaction records.
#[derive(Clone, Copy)]
pub(super) struct MessageRef<'a> {
    pub(super) id: i64,
    pub(super) identity_key: &'a str,
    pub(super) msg_type: &'a str,
    pub(super) subtype: &'a str,
    /// `META/SNDR`: matched against the requests a snapshot may answer.
    pub(super) sender: &'a str,
    pub(super) now: NaiveDateTime,
}

impl MessageRef<'_> {
    pub(super) fn succeeded(&self) -> Outcome<'_> {
        Outcome {
            message_id: self.id,
            identity_key: self.identity_key,
            status: ProcStatus::Succeeded,
            error_kind: None,
            error_text: None,
            msg_type: Some(self.msg_type),
            msg_subtype: Some(self.subtype),
            next_attempt_at: None,
            now: self.now,
        }
    }
}

/// Serialises a notice payload; our own plain values always serialise.
pub(super) fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}
