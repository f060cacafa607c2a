//! Refuses an empty text for a `NOT NULL` text column before the statement runs, the same in
//! both dialects.
//!
//! Oracle stores `''` as NULL, so an empty value for a `NOT NULL` column fails there with
//! ORA-01400 where PostgreSQL stores it. Checking here, before either dialect's statement,
//! gives one answer everywhere: the value is refused as `DataRejected`, naming the column.
//! The state tables need no check: the state layer never holds an empty string (an empty SIS
//! element is "no value").

use crate::FailureKind;
use crate::store::{ChangeNotice, NewAction, NewCall, StoreError};

/// Fails with `DataRejected` on the first of `fields` (column name, value) that is empty.
///
/// # Errors
///
/// A [`StoreError`] of kind `DataRejected` for `op`, naming the column.
pub(crate) fn refuse_empty(op: &'static str, fields: &[(&str, &str)]) -> Result<(), StoreError> {
    match fields.iter().find(|(_, value)| value.is_empty()) {
        Some((column, _)) => Err(StoreError::new(
            FailureKind::DataRejected,
            op,
            format!(
                "{column} is empty: the column is NOT NULL and Oracle stores an empty text as NULL"
            ),
        )),
        None => Ok(()),
    }
}

/// The `NOT NULL` texts of an `EFFECT_CALL` row.
///
/// # Errors
///
/// As [`refuse_empty`].
pub(crate) fn refuse_empty_call(call: &NewCall<'_>) -> Result<(), StoreError> {
    refuse_empty(
        "insert_effect_intent",
        &[
            ("IDEMPOTENCY_KEY", call.idempotency_key),
            ("SCOPE", call.scope),
            ("STEP", call.step),
            ("SUB_KEY", call.sub_key),
            ("CALL_KIND", call.call_kind),
            ("TARGET", call.target),
            ("PAYLOAD", call.payload),
            ("PAYLOAD_DIGEST", call.payload_digest),
        ],
    )
}

/// The `NOT NULL` texts of `KAFKA_MSG` rows.
///
/// # Errors
///
/// As [`refuse_empty`].
pub(crate) fn refuse_empty_notices(notices: &[ChangeNotice]) -> Result<(), StoreError> {
    notices.iter().try_for_each(|notice| {
        refuse_empty(
            "insert_change_notices",
            &[
                ("CHANGE_KIND", notice.change_kind),
                ("PAYLOAD", &notice.payload),
            ],
        )
    })
}

/// The `NOT NULL` text of an `OPERATOR_ACTION` row that comes from outside: who took it (the
/// codes are Rust constants).
///
/// # Errors
///
/// As [`refuse_empty`].
pub(crate) fn refuse_empty_action(action: &NewAction<'_>) -> Result<(), StoreError> {
    refuse_empty("insert_operator_action", &[("TAKEN_BY", action.taken_by)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call<'a>(target: &'a str, sub_key: &'a str, payload: &'a str) -> NewCall<'a> {
        NewCall {
            idempotency_key: "k",
            scope: "s",
            step: "t",
            sub_key,
            call_kind: "c",
            target,
            payload,
            payload_digest: "d",
            deadline_at: None,
        }
    }

    #[test]
    fn empty_texts_of_not_null_columns_are_refused_by_name() {
        assert!(refuse_empty_call(&call("x", "y", "{}")).is_ok());
        for (c, column) in [
            (call("", "y", "{}"), "TARGET"),
            (call("x", "", "{}"), "SUB_KEY"),
            (call("x", "y", ""), "PAYLOAD"),
        ] {
            let err = refuse_empty_call(&c).expect_err(column);
            assert_eq!(err.kind(), FailureKind::DataRejected);
            assert!(format!("{err:#}").contains(column), "{err:#}");
        }
        let notice = |payload: &str| ChangeNotice {
            message_id: 1,
            flid: None,
            change_kind: "UPDATED",
            payload: payload.to_owned(),
        };
        assert!(refuse_empty_notices(&[notice("{}")]).is_ok());
        let err = refuse_empty_notices(&[notice("{}"), notice("")]).expect_err("empty payload");
        assert_eq!(err.kind(), FailureKind::DataRejected);
        assert!(format!("{err:#}").contains("PAYLOAD"));
    }
}
