//! The JSON values the dispatcher builds (DESIGN §5, `docs/kafka.md`): a
//! flight's tombstone and a change notification. A flight's whole state is
//! its stored [`StateDocument`](crate::state::StateDocument).
//!
//! Pure: no Kafka, no database. Element names are the SIS ones, upper case;
//! a key that is missing means "no such data", never `null`.

use chrono::NaiveDateTime;
use serde::Serialize;
use serde_json::Value;

/// The state topic's value for a deleted flight. Never a null value:
/// compaction must not drop it before consumers have seen it.
#[derive(Serialize)]
struct TombstoneValue {
    #[serde(rename = "FLID")]
    flid: i64,
    #[serde(rename = "DELETED")]
    deleted: bool,
    #[serde(rename = "STATE_VERSION")]
    state_version: i64,
    #[serde(rename = "UPDATED_AT")]
    updated_at: NaiveDateTime,
}

/// The change topic's value.
#[derive(Serialize)]
struct NoticeValue<'a> {
    #[serde(rename = "EVENT_ID")]
    event_id: i64,
    #[serde(rename = "FLID", skip_serializing_if = "Option::is_none")]
    flid: Option<i64>,
    #[serde(rename = "CHANGE_KIND")]
    change_kind: &'a str,
    #[serde(rename = "MESSAGE_ID")]
    message_id: i64,
    #[serde(rename = "CREATED_AT")]
    created_at: NaiveDateTime,
    #[serde(rename = "CHANGE")]
    change: Value,
}

/// Serialises plain values of our own; serde_json fails only on maps with
/// non-string keys or failing `Serialize` impls, which these do not have.
fn to_vec(value: &impl Serialize) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_else(|e| {
        // A broken invariant: the derive above cannot fail.
        panic!("a dispatcher value failed to serialise: {e}")
    })
}

/// The tombstone of flight `flid`, deleted at `deleted_at` (UTC) with the
/// tombstone version `state_version` (its last version + 1).
pub fn tombstone_value(flid: i64, state_version: i64, deleted_at: NaiveDateTime) -> Vec<u8> {
    to_vec(&TombstoneValue {
        flid,
        deleted: true,
        state_version,
        updated_at: deleted_at,
    })
}

/// A change notification: the outbox row's identity and what changed
/// (`payload`, the JSON the pipeline registered, embedded as `CHANGE`).
/// A payload that is not JSON (it always is; the pipeline writes it) is
/// embedded as a JSON string rather than dropped.
pub fn notice_value(
    event_id: i64,
    flid: Option<i64>,
    change_kind: &str,
    message_id: i64,
    created_at: NaiveDateTime,
    payload: &str,
) -> Vec<u8> {
    let change = serde_json::from_str::<Value>(payload)
        .unwrap_or_else(|_| Value::String(payload.to_owned()));
    to_vec(&NoticeValue {
        event_id,
        flid,
        change_kind,
        message_id,
        created_at,
        change,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn at() -> NaiveDateTime {
        NaiveDate::from_ymd_opt(2026, 9, 9)
            .and_then(|d| d.and_hms_opt(8, 0, 0))
            .expect("valid")
    }

    #[test]
    fn a_payload_that_is_not_json_is_kept_as_a_string() {
        let value = notice_value(1, None, "SNAPSHOT", 2, at(), "not json");
        let text = String::from_utf8(value).expect("utf-8");
        assert!(text.ends_with(r#""CHANGE":"not json"}"#), "{text}");
    }
}
