//! Outbound requests against real MariaDB (the mailbox, `COUTMSGS`) and
//! PostgreSQL (`REQ_TRACK`, `EFFECT_CALL`), in process, the call made by
//! the pump's inline effects: the message written once in the protocol's
//! shape, the answers that complete a request and those that do not, one
//! live request per kind, the journal's rules for the call, the SEQN wrap
//! and the timeout.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use diesel::RunQueryDsl;
use flightstate::journal::CallResult;
use flightstate::journal::{Recorded, record_intent};
use flightstate::mailbox::Mailbox;
use flightstate::pipeline::{Applied, Rules, STREAM_FROM_BYTES, apply_message};
use flightstate::protocol::{Body, Field, ScheduleSubtype, parse_slice};
use flightstate::pump::{Pump, Step};
use flightstate::request::{RequestSettings, request_intent};
use flightstate::state::DaySource;
use flightstate::station::utc_now;
use flightstate::store::pg::PgStore;
use flightstate::store::{CallStatus, JournalOps, RequestOps, RequestStatus, Store};

use crate::common::TestDatabase;
use crate::common::sis::{at, flight, parse_options, schedule_message, sep, snapshot};
use crate::pumping::{MailboxDatabase, mailbox_settings, proc_states, pump_settings};
use crate::requesting::{asked_bounds, coutmsgs, register, request, request_settings, requests};

struct Site {
    db: TestDatabase,
    mb: MailboxDatabase,
    store: PgStore,
    mailbox: Arc<Mailbox>,
    /// One pump for the whole test: it keeps its lease between drains.
    pump: RefCell<Option<Pump<PgStore>>>,
}

impl Site {
    fn new(tag: &str) -> Site {
        let db = TestDatabase::migrated();
        let mb = MailboxDatabase::create(tag);
        let store = PgStore::connect(db.url(), 4, Duration::from_secs(2))
            .expect("pool on the test database");
        let mailbox = Arc::new(Mailbox::connect(mailbox_settings(mb.url())).expect("mailbox pool"));
        Site {
            db,
            mb,
            store,
            mailbox,
            pump: RefCell::new(None),
        }
    }

    /// A pump over the site with the tests' pipeline settings.
    fn pump(&self) -> Pump<PgStore> {
        Pump::new(
            self.store.clone(),
            self.mailbox.clone(),
            Rules {
                parse: parse_options(),
                ..Rules::default()
            },
            pump_settings("requests-test"),
        )
    }

    /// Runs a pump until every message is applied and every call made.
    #[track_caller]
    fn drain(&self) {
        let mut held = self.pump.borrow_mut();
        let pump = held.get_or_insert_with(|| self.pump());
        for _ in 0..500 {
            match pump.step().expect("no failpoint armed") {
                Step::Idle => return,
                Step::Blocked { until, .. } => {
                    std::thread::sleep(until.saturating_duration_since(Instant::now()))
                }
                Step::Standby | Step::LeaseLost => panic!("the pump lost its lease"),
                Step::Progress { .. } => {}
            }
        }
        panic!("the pump never became idle");
    }

    /// `(operation_day, version, last_message_id)` of every snapshot day.
    fn ledger(&self) -> Vec<(NaiveDate, i64, i64)> {
        self.store
            .transaction(|tx| flightstate::store::ReadOps::snapshot_days(tx, 100))
            .expect("read the ledger")
            .into_iter()
            .map(|d| (d.operation_day, d.version, d.last_message_id))
            .collect()
    }
}

/// An SCHD RESP of `flights`, naming no operation day.
fn resp(flights: Vec<flightstate::protocol::FlightRecord>) -> Vec<u8> {
    let recs = Field::Value(u32::try_from(flights.len()).expect("test size"));
    schedule_message(ScheduleSubtype::Resp, None, recs, flights)
}

#[test]
fn a_request_writes_one_row_of_the_protocols_shape_and_its_resp_completes_it() {
    let site = Site::new("req_resp");
    let settings = request_settings();
    let asked = register(&site.store, &settings, sep(10));
    assert_eq!(asked.seqn.len(), 6, "{asked:?}");
    let pending = request(&site.store, asked.req_id);
    assert_eq!(pending.status, RequestStatus::Pending);
    assert_eq!(pending.call_status, Some(CallStatus::Pending));
    assert!(
        coutmsgs(&site.mb).is_empty(),
        "the command itself writes nothing"
    );

    site.drain();
    let rows = coutmsgs(&site.mb);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(row.routing_id, "VIEWRQFD");
    let message =
        parse_slice(row.message.as_bytes(), &parse_options()).expect("our reader reads it");
    assert_eq!(message.meta.sndr, "VIEW");
    assert_eq!(message.meta.seqn, asked.seqn);
    assert_eq!(
        message.body,
        Body::Unsupported {
            msg_type: "RQFD".into(),
            subtype: "NONE".into()
        }
    );
    assert_eq!(asked_bounds(&row.message), (at(10, 0, 0), at(10, 23, 59)));
    let sent = request(&site.store, asked.req_id);
    assert_eq!(sent.call_status, Some(CallStatus::Accepted));
    assert_eq!(sent.remote_ref, Some(row.id.to_string()));
    assert_eq!(sent.attempts, Some(1));
    assert_eq!(sent.seqn.as_deref(), Some(asked.seqn.as_str()));

    // The answer names no day and its flights fall in two days: only the
    // request's day can be its day.
    let answer = site.mb.insert(&resp(vec![
        flight(101, at(10, 8, 0)),
        flight(102, at(11, 1, 30)),
    ]));
    site.drain();
    assert_eq!(site.ledger(), vec![(sep(10), 1, answer)]);
    let done = request(&site.store, asked.req_id);
    assert_eq!(done.status, RequestStatus::Completed);
    assert_eq!(done.completed_by_message_id, Some(answer));

    // A repeated answer (of the day, by its times) changes the state and
    // completes nothing.
    let again = site.mb.insert(&resp(vec![flight(101, at(10, 9, 0))]));
    site.drain();
    assert_eq!(site.ledger(), vec![(sep(10), 2, again)]);
    let still = request(&site.store, asked.req_id);
    assert_eq!(still.completed_by_message_id, Some(answer));
    assert_eq!(requests(&site.store).len(), 1);
    assert_eq!(coutmsgs(&site.mb).len(), 1, "nothing is sent again");
}

#[test]
fn a_new_request_expires_the_old_one_and_a_dnld_completes_only_its_own_day() {
    let site = Site::new("req_expire");
    let settings = request_settings();
    let old = register(&site.store, &settings, sep(11));
    let new = register(&site.store, &settings, sep(12));
    assert_eq!(new.expired, vec![old.req_id]);
    let expired = request(&site.store, old.req_id);
    assert_eq!(expired.status, RequestStatus::Expired);
    assert_eq!(expired.expired_by_req_id, Some(new.req_id));
    assert_eq!(
        request(&site.store, new.req_id).status,
        RequestStatus::Pending
    );

    site.drain();
    // The expired request's message was never written, and is not now.
    let rows = coutmsgs(&site.mb);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(
        asked_bounds(&rows[0].message),
        (at(12, 0, 0), at(12, 23, 59))
    );
    assert_eq!(
        request(&site.store, old.req_id).call_status,
        Some(CallStatus::Pending)
    );

    // A DNLD of another day is applied and completes nothing.
    let other = site
        .mb
        .insert(&snapshot(sep(13), vec![flight(201, at(13, 8, 0))]));
    site.drain();
    assert_eq!(site.ledger(), vec![(sep(13), 1, other)]);
    assert_eq!(
        request(&site.store, new.req_id).status,
        RequestStatus::Pending
    );

    // A DNLD of the asked day completes it.
    let own = site
        .mb
        .insert(&snapshot(sep(12), vec![flight(202, at(12, 8, 0))]));
    site.drain();
    let done = request(&site.store, new.req_id);
    assert_eq!(done.status, RequestStatus::Completed);
    assert_eq!(done.completed_by_message_id, Some(own));
    assert_eq!(
        request(&site.store, old.req_id).status,
        RequestStatus::Expired
    );
}

#[test]
fn the_same_call_asked_twice_is_made_once_and_another_payload_under_its_key_is_refused() {
    let site = Site::new("req_once");
    let settings = request_settings();
    let asked = register(&site.store, &settings, sep(14));
    let stored = site
        .store
        .transaction(|tx| {
            let key =
                request_intent(&settings.routing_id, asked.req_id, "", None).idempotency_key();
            tx.select_effect_call(&key)
        })
        .expect("read the journal")
        .expect("the request's call is journaled");
    assert_eq!(stored.call_id, asked.call_id);

    let same = request_intent(
        &settings.routing_id,
        asked.req_id,
        &stored.payload,
        stored.deadline_at,
    );
    let other = request_intent(
        &settings.routing_id,
        asked.req_id,
        &stored
            .payload
            .replace("<SNDR>VIEW</SNDR>", "<SNDR>EVIL</SNDR>"),
        stored.deadline_at,
    );
    let (again, refused) = site
        .store
        .transaction(|tx| {
            let now = utc_now();
            Ok::<_, flightstate::store::StoreError>((
                record_intent(tx, &same, now)?,
                record_intent(tx, &other, now)?,
            ))
        })
        .expect("record the intents");
    assert_eq!(again, Recorded::Existing(asked.call_id));
    assert_eq!(refused, Recorded::DigestMismatch(asked.call_id));

    site.drain();
    site.drain();
    let rows = coutmsgs(&site.mb);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(rows[0].message.contains("<SNDR>VIEW</SNDR>"));
    assert_eq!(request(&site.store, asked.req_id).attempts, Some(1));

    // The write itself is guarded: made again by hand, it finds its row.
    let twice = site
        .mailbox
        .insert_request_message(&settings.routing_id, &stored.payload);
    assert_eq!(
        twice,
        CallResult::Accepted {
            remote_ref: Some(rows[0].id.to_string())
        }
    );
    assert_eq!(coutmsgs(&site.mb).len(), 1);
}

#[test]
fn seqn_wraps_from_999999_to_000000_then_000001() {
    let site = Site::new("req_seqn");
    let mut conn = site.db.connect();
    diesel::sql_query("SELECT setval('outbound_seqn_seq', 999998)")
        .execute(&mut conn)
        .expect("move the counter near its wrap");
    let settings = request_settings();
    let seqns: Vec<String> = (15..=17)
        .map(|day| register(&site.store, &settings, sep(day)).seqn)
        .collect();
    assert_eq!(seqns, ["999999", "000000", "000001"]);
    let listed: Vec<Option<String>> = requests(&site.store).into_iter().map(|r| r.seqn).collect();
    assert_eq!(
        listed,
        [
            Some("000001".into()),
            Some("000000".into()),
            Some("999999".into())
        ]
    );
    site.drain();
    let rows = coutmsgs(&site.mb);
    assert_eq!(rows.len(), 1, "only the live request is sent: {rows:?}");
    assert!(
        rows[0].message.contains("<SEQN>000001</SEQN>"),
        "{}",
        rows[0].message
    );
}

#[test]
fn an_unanswered_request_times_out_and_its_late_answer_completes_nothing() {
    let site = Site::new("req_timeout");
    let settings = RequestSettings {
        answer_timeout: Duration::from_secs(1),
        ..request_settings()
    };
    let asked = register(&site.store, &settings, sep(18));
    let not_yet = site
        .store
        .transaction(|tx| tx.time_out_requests(utc_now()))
        .expect("sweep");
    assert!(not_yet.is_empty());
    let later = utc_now() + chrono::Duration::seconds(2);
    let timed_out = site
        .store
        .transaction(|tx| tx.time_out_requests(later))
        .expect("sweep");
    assert_eq!(timed_out, vec![asked.req_id]);
    let entry = request(&site.store, asked.req_id);
    assert_eq!(entry.status, RequestStatus::TimedOut);

    // The late answer is applied by the usual day rule and completes nothing.
    let late = site.mb.insert(&resp(vec![flight(301, at(18, 8, 0))]));
    site.drain();
    assert_eq!(site.ledger(), vec![(sep(18), 1, late)]);
    assert_eq!(
        request(&site.store, asked.req_id).status,
        RequestStatus::TimedOut
    );
}

#[test]
fn a_resp_without_a_live_request_and_without_a_day_is_dead() {
    let site = Site::new("req_dead");
    let answer = site.mb.insert(&resp(vec![
        flight(401, at(19, 8, 0)),
        flight(402, at(20, 8, 0)),
    ]));
    site.drain();
    let mut conn = site.db.connect();
    let states = proc_states(&mut conn);
    assert_eq!(states.len(), 1);
    assert_eq!((states[0].0, states[0].1.as_str()), (answer, "DEAD"));
    assert!(site.ledger().is_empty());
}

/// A RESP large enough to be applied while it is read (by parts), of
/// `flights` departures at `sodt`'s day.
fn large_resp(first_flid: i64, sodt: chrono::NaiveDateTime) -> Vec<u8> {
    let mut flights = Vec::new();
    let mut body = Vec::new();
    while body.len() < STREAM_FROM_BYTES {
        flights.push(flight(first_flid + flights.len() as i64, sodt));
        if flights.len() % 50 == 0 {
            body = resp(flights.clone());
        }
    }
    resp(flights)
}

#[test]
fn a_large_resp_read_by_parts_takes_the_day_of_the_request_it_answers() {
    let site = Site::new("req_streamed");
    let settings = request_settings();
    let pipeline = Rules {
        parse: parse_options(),
        ..Rules::default()
    };
    let applied =
        |id: i64, body: &[u8]| match apply_message(&site.store, &pipeline, id, body, utc_now())
            .expect("applied")
        {
            Applied::Snapshot(report) => report,
            other => panic!("not a snapshot: {other:?}"),
        };

    // The request's day is the one its flights fall in: the streamed path
    // commits it, taking the request's day.
    let same = register(&site.store, &settings, sep(22));
    let report = applied(9_001, &large_resp(10_000, at(22, 8, 0)));
    assert!(report.streamed_parts > 0, "{report:?}");
    assert_eq!(
        (report.operation_day, report.day_source),
        (sep(22), DaySource::Request)
    );
    assert_eq!(
        request(&site.store, same.req_id).completed_by_message_id,
        Some(9_001)
    );

    // The request is for another day than its flights': the transaction
    // begun for the first flight's day rolls back, and the message is read
    // again by parts for the request's day (one rule for both read paths).
    let other = register(&site.store, &settings, sep(23));
    let report = applied(9_002, &large_resp(20_000, at(24, 8, 0)));
    assert!(report.streamed_parts > 0, "{report:?}");
    assert_eq!(
        (report.operation_day, report.day_source),
        (sep(23), DaySource::Request)
    );
    let done = request(&site.store, other.req_id);
    assert_eq!(done.status, RequestStatus::Completed);
    assert_eq!(done.completed_by_message_id, Some(9_002));
}

#[test]
fn a_late_receipt_of_an_older_grant_never_overwrites_the_newer_attempts() {
    let site = Site::new("req_late_receipt");
    let asked = register(&site.store, &request_settings(), sep(26));
    let grant = |seen: i32| {
        site.store
            .transaction(|tx| tx.grant_effect_calls(&[(asked.call_id, seen)], 1, utc_now()))
            .expect("grant")
    };
    let receipt = |token: &str, status: CallStatus, remote: Option<&str>| {
        site.store
            .transaction(|tx| {
                tx.record_effect_receipt(asked.call_id, token, status, remote, utc_now())
            })
            .expect("store a receipt")
    };
    let first = grant(0);
    assert_eq!(first.len(), 1);
    assert!(grant(0).is_empty(), "the same attempt is granted once");
    // The first grant's client was certain it sent nothing: a later attempt
    // may be granted, with a fresh token.
    assert!(receipt(&first[0].send_token, CallStatus::NotSent, None));
    let second = grant(first[0].attempt);
    assert_eq!(second.len(), 1);
    assert_ne!(second[0].send_token, first[0].send_token);
    // A receipt under the first token arrives late: not stored.
    assert!(!receipt(
        &first[0].send_token,
        CallStatus::Accepted,
        Some("999")
    ));
    assert_eq!(
        request(&site.store, asked.req_id).call_status,
        Some(CallStatus::Dispatched)
    );
    assert!(receipt(
        &second[0].send_token,
        CallStatus::Accepted,
        Some("7")
    ));
    let entry = request(&site.store, asked.req_id);
    assert_eq!(entry.call_status, Some(CallStatus::Accepted));
    assert_eq!(entry.remote_ref.as_deref(), Some("7"));
    assert_eq!(entry.attempts, Some(2));
}
