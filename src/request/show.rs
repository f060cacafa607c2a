//! One line per request, for people: `flightstate requests` and the status
//! text print the same.

use crate::store::RequestEntry;

fn or_dash<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

/// `entry` on one line: id, kind and day, status, SEQN, its call, and what
/// completed or expired it.
pub fn summary(entry: &RequestEntry) -> String {
    let by = match (entry.completed_by_message_id, entry.expired_by_req_id) {
        (Some(message), _) => format!(", by message {message}"),
        (None, Some(request)) => format!(", by request {request}"),
        (None, None) => String::new(),
    };
    format!(
        "{}  {} {}  {}{}  seqn {}  call {} (COUTMSGS {}, {} attempts)",
        entry.req_id,
        entry.req_kind,
        or_dash(entry.operation_day),
        entry.status.code(),
        by,
        or_dash(entry.seqn.as_deref()),
        or_dash(entry.call_status.map(|c| c.code())),
        or_dash(entry.remote_ref.as_deref()),
        or_dash(entry.attempts),
    )
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;

    use super::*;
    use crate::store::{CallStatus, RequestStatus};

    #[test]
    fn a_line_says_what_became_of_the_request_and_its_call() {
        let entry = RequestEntry {
            req_id: 2,
            req_kind: "RQFD".into(),
            operation_day: NaiveDate::from_ymd_opt(2026, 9, 12),
            sender: Some("AODB".into()),
            status: RequestStatus::Completed,
            created_at: NaiveDate::from_ymd_opt(2026, 9, 9)
                .and_then(|d| d.and_hms_opt(2, 10, 1))
                .expect("a time"),
            answer_due_at: None,
            completed_at: None,
            completed_by_message_id: Some(17),
            expired_by_req_id: None,
            seqn: Some("000002".into()),
            call_id: Some(5),
            call_status: Some(CallStatus::Accepted),
            remote_ref: Some("40".into()),
            attempts: Some(1),
        };
        assert_eq!(
            summary(&entry),
            "2  RQFD 2026-09-12  COMPLETED, by message 17  seqn 000002  call ACCEPTED (COUTMSGS 40, 1 attempts)"
        );
    }
}
