//! The message a transaction records its outcome and notices for. Every
//! rule writes through these, so they live apart from the rules that use
//! them.

use chrono::NaiveDateTime;
use serde::Serialize;

use super::PipelineError;
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
    /// `META/SEQN`, as sent: counted as evidence, never used for order.
    pub(super) seqn: &'a str,
    /// `META/DTTM` (station local): counted as evidence of the upstream's
    /// order, never used for it.
    pub(super) dttm: NaiveDateTime,
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

/// Serialises a notice payload.
///
/// # Errors
///
/// A value that cannot be written as JSON fails the message (DEAD, with the
/// reason): a notice is what the change topic's readers get, and a payload
/// put in its place would reach them as if it were the notice. The same
/// values fail the same way every time, so retrying would not help.
pub(super) fn json(value: &impl Serialize) -> Result<String, PipelineError> {
    serde_json::to_string(value).map_err(|e| {
        PipelineError::BadInput(format!("a change notice cannot be written as JSON: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No notice the rules write can fail to serialise (they are JSON
    /// objects with string keys, and reports of plain values), so no real
    /// input reaches this path: a map with non-string keys stands in for a
    /// payload that serde_json refuses.
    #[test]
    fn a_payload_that_does_not_serialise_is_an_error_not_a_payload() {
        let unserialisable = std::collections::BTreeMap::from([((1, 2), "pair key")]);
        let e = json(&unserialisable).expect_err("serde_json refuses non-string keys");
        assert_eq!(e.kind(), crate::FailureKind::BadInput);
        assert!(
            e.to_string()
                .starts_with("a change notice cannot be written as JSON: "),
            "{e}"
        );
        assert_eq!(
            json(&serde_json::json!({"a": 1})).ok().as_deref(),
            Some(r#"{"a":1}"#)
        );
    }
}
