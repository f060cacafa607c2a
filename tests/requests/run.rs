//! A request through `flightstate run` (the binary of this test run, a
//! child process) against real PostgreSQL, MariaDB and tansu: the effect
//! worker thread writes the registered request into `COUTMSGS` once, and
//! the answer the pump thread applies completes it; an overdue request is
//! timed out by the worker without anyone asking.

use std::time::Duration;

use flightstate::request::RequestSettings;
use flightstate::store::pg::PgStore;
use flightstate::store::{CallStatus, RequestStatus};

use crate::common::sis::{at, flight, sep, snapshot};
use crate::common::{TestDatabase, eventually};
use crate::dispatching::{tansu, topics};
use crate::pumping::MailboxDatabase;
use crate::requesting::{coutmsgs, register, request, request_settings};
use crate::running::{RunChild, RunSetup};

#[test]
fn run_sends_a_request_once_completes_it_by_its_answer_and_times_out_the_unanswered() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("req_run");
    let store = PgStore::connect(db.url(), 2, Duration::from_secs(2)).expect("pool");
    let asked = register(&store, &request_settings(), sep(27));
    let run = RunChild::start(&RunSetup {
        database_url: db.url().to_owned(),
        mailbox_url: mb.url(),
        brokers: tansu(),
        topics: topics("requests-run"),
        holder: "req-run".to_owned(),
        env: vec![(
            "FLIGHTSTATE_PROTOCOL_OPERATION_DAY_ELEMENT".to_owned(),
            crate::common::sis::DAY_ELEMENT.to_owned(),
        )],
    });
    assert!(
        eventually(Duration::from_secs(90), || request(&store, asked.req_id)
            .call_status
            == Some(CallStatus::Accepted)),
        "the request was not written in 90 s\n{}",
        run.text()
    );
    let rows = coutmsgs(&mb);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(
        request(&store, asked.req_id).remote_ref,
        Some(rows[0].id.to_string())
    );

    let answer = mb.insert(&snapshot(sep(27), vec![flight(501, at(27, 8, 0))]));
    assert!(
        eventually(Duration::from_secs(90), || request(&store, asked.req_id)
            .status
            == RequestStatus::Completed),
        "the answer did not complete the request in 90 s\n{}",
        run.text()
    );
    assert_eq!(
        request(&store, asked.req_id).completed_by_message_id,
        Some(answer)
    );

    // A request due at once is timed out by the running worker.
    let hurried = register(
        &store,
        &RequestSettings {
            answer_timeout: Duration::from_secs(1),
            ..request_settings()
        },
        sep(28),
    );
    assert!(
        eventually(Duration::from_secs(90), || request(&store, hurried.req_id)
            .status
            == RequestStatus::TimedOut),
        "the overdue request was not timed out in 90 s\n{}",
        run.text()
    );
    // Each request is written at most once: the first for certain, the
    // hurried one if the worker made its call before it was due.
    let written = |seqn: &str| {
        coutmsgs(&mb)
            .iter()
            .filter(|row| row.message.contains(&format!("<SEQN>{seqn}</SEQN>")))
            .count()
    };
    assert_eq!(written(&asked.seqn), 1);
    let hurried_call = request(&store, hurried.req_id).call_status;
    assert_eq!(
        written(&hurried.seqn),
        usize::from(hurried_call == Some(CallStatus::Accepted)),
        "{hurried_call:?}"
    );
    run.stop();
}
