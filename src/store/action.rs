//! The operator's record (`OPERATOR_ACTION`, docs/operations.md): one row
//! per action an operator took — a requeue, a release or reject of a held
//! snapshot, a request for a day — written by the action's own state
//! transaction, read back newest first, and removed by the clean-up once
//! older than `cleanup.action_days`.
//!
//! The codes (via, action, result) are chosen by `operator`; this layer
//! stores them as given.

use chrono::{NaiveDate, NaiveDateTime};
use serde::Serialize;

use super::StoreError;

/// The longest `DETAIL` the table keeps, in characters: a longer text is
/// cut (an error chain can be long).
pub const ACTION_DETAIL_CHARS: usize = 1_000;

/// The longest `TAKEN_BY`, in characters.
pub const ACTION_BY_CHARS: usize = 128;

/// One action to record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewAction<'a> {
    /// When it was taken (UTC).
    pub taken_at: NaiveDateTime,
    /// Who took it (at most [`ACTION_BY_CHARS`]; never empty).
    pub taken_by: &'a str,
    /// Where it was taken (`CLI`, `PAGE`).
    pub via: &'a str,
    /// What it was (`REQUEUE`, `RELEASE`, `REJECT`, `REQUEST_DAY`).
    pub action: &'a str,
    /// The message acted on.
    pub message_id: Option<i64>,
    /// The operation day acted on.
    pub operation_day: Option<NaiveDate>,
    /// The flight acted on.
    pub flid: Option<i64>,
    /// What became of it, as a code (`REQUEUED`, `NOT_DEAD`, …).
    pub result: &'a str,
    /// What became of it, for people (cut to [`ACTION_DETAIL_CHARS`]; an
    /// empty text is stored as none).
    pub detail: &'a str,
}

/// One recorded action, as the status and the page show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ActionRecord {
    /// The action's id, given by the database.
    pub action_id: i64,
    /// When it was taken (UTC).
    pub taken_at: NaiveDateTime,
    /// Who took it.
    pub taken_by: String,
    /// Where it was taken (`CLI`, `PAGE`).
    pub via: String,
    /// What it was (`REQUEUE`, `RELEASE`, `REJECT`, `REQUEST_DAY`).
    pub action: String,
    /// The message acted on.
    pub message_id: Option<i64>,
    /// The operation day acted on.
    pub operation_day: Option<NaiveDate>,
    /// The flight acted on.
    pub flid: Option<i64>,
    /// What became of it, as a code.
    pub result: String,
    /// What became of it, for people.
    pub detail: Option<String>,
}

/// Operations on the operator's record. Method names are the names of the
/// SQL files that run them.
pub trait ActionOps {
    /// Records `action` in this transaction.
    fn insert_operator_action(&mut self, action: &NewAction<'_>) -> Result<(), StoreError>;

    /// The latest actions, newest first, at most `limit`.
    fn select_operator_actions(&mut self, limit: i64) -> Result<Vec<ActionRecord>, StoreError>;

    /// Actions taken before `cutoff` (UTC); ids above `after`, ascending,
    /// at most `limit`.
    fn select_old_operator_actions(
        &mut self,
        cutoff: NaiveDateTime,
        after: i64,
        limit: i64,
    ) -> Result<Vec<i64>, StoreError>;

    /// Removes the actions among `action_ids` still taken before `cutoff`.
    /// Returns how many.
    fn delete_operator_actions(
        &mut self,
        action_ids: &[i64],
        cutoff: NaiveDateTime,
    ) -> Result<usize, StoreError>;
}

/// `text` cut to at most `chars` characters (a whole character never split).
pub(crate) fn cut(text: &str, chars: usize) -> &str {
    text.char_indices()
        .nth(chars)
        .map_or(text, |(at, _)| &text[..at])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_text_is_cut_at_a_character() {
        assert_eq!(cut("abc", 5), "abc");
        assert_eq!(cut("abcdef", 3), "abc");
        assert_eq!(cut("ééé", 2), "éé");
    }
}
