//! A request's call survives a crash of the process making it: the pump
//! (`flightstate pump --until-idle`, built with the features of this test
//! run) is killed (SIGKILL) after the call is DISPATCHED and before the
//! insert, or after the insert and before the receipt; restarted, it
//! resolves the open call by reading `COUTMSGS` back, and exactly one row
//! holds the request, which is tracked with that row's id.
#![cfg(feature = "failpoints")]

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::Duration;

use flightstate::store::pg::PgStore;
use flightstate::store::{CallStatus, RequestStatus};

use crate::common::TestDatabase;
use crate::common::child::run_to_end;
use crate::common::sis::sep;
use crate::pumping::{MailboxDatabase, pump_command};
use crate::requesting::{coutmsgs, register, request, request_settings};

/// Runs `flightstate pump --until-idle` to its end (at most 120 s) with
/// `failpoint` armed to kill; returns how it ended and what it said.
fn pump(db: &TestDatabase, mb: &MailboxDatabase, failpoint: Option<&str>) -> (ExitStatus, String) {
    run_to_end(
        pump_command(db.url(), mb),
        &mb.name,
        failpoint,
        Duration::from_secs(120),
    )
}

/// Registers a request, kills the pump at `point`, checks what the crash
/// left (`rows_after_crash` rows), restarts it, and checks the outcome:
/// one row, the request tracked with it, granted `attempts` times.
fn crash_and_restart(point: &str, tag: &str, rows_after_crash: usize, attempts: i32) {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create(tag);
    let store = PgStore::connect(db.url(), 2, Duration::from_secs(2)).expect("pool");
    let asked = register(&store, &request_settings(), sep(21));

    let (status, said) = pump(&db, &mb, Some(point));
    assert_eq!(status.signal(), Some(9), "killed at {point}: {said}");
    assert!(
        said.contains(&format!("failpoint `{point}`: killed")),
        "{point}: {said}"
    );
    assert_eq!(
        coutmsgs(&mb).len(),
        rows_after_crash,
        "after the crash at {point}"
    );
    let open = request(&store, asked.req_id);
    assert_eq!(open.call_status, Some(CallStatus::Dispatched), "{open:?}");

    let (status, said) = pump(&db, &mb, None);
    assert!(status.success(), "the restarted pump: {said}");
    let rows = coutmsgs(&mb);
    assert_eq!(rows.len(), 1, "after the restart from {point}: {rows:?}");
    let tracked = request(&store, asked.req_id);
    assert_eq!(tracked.status, RequestStatus::Pending);
    assert_eq!(tracked.call_status, Some(CallStatus::Accepted));
    assert_eq!(tracked.remote_ref, Some(rows[0].id.to_string()));
    assert_eq!(tracked.attempts, Some(attempts), "{tracked:?}");
    assert!(
        rows[0]
            .message
            .contains(&format!("<SEQN>{}</SEQN>", asked.seqn))
    );
}

#[test]
fn a_crash_after_dispatch_before_the_insert_writes_the_row_once_after_restart() {
    // The row is certainly not there: the call is granted again (attempt 2).
    crash_and_restart("journal.after_dispatch", "req_crash_dispatch", 0, 2);
}

#[test]
fn a_crash_after_the_insert_before_the_receipt_is_resolved_by_reading_back() {
    // The row is there: read back, never written again (attempt 1).
    crash_and_restart("journal.after_call", "req_crash_call", 1, 1);
}
