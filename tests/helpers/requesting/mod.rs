//! Test infrastructure for outbound requests: request settings, a
//! registration, and `COUTMSGS` and `REQ_TRACK` read back.
#![allow(dead_code)]

use std::time::Duration;

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use flightstate::protocol::parse_date_time;
use flightstate::request::{Registered, RequestSettings, register_day_request};
use flightstate::store::{RequestEntry, RequestOps, Store};
use mysql::prelude::Queryable;

use super::pumping::MailboxDatabase;

/// The tests' request settings: midnight day boundary, an hour to answer.
pub fn request_settings() -> RequestSettings {
    RequestSettings {
        sender: "VIEW".to_owned(),
        routing_id: "VIEWRQFD".to_owned(),
        answer_sender: "AODB".to_owned(),
        answer_timeout: Duration::from_secs(3_600),
        day_boundary: NaiveTime::MIN,
    }
}

/// The local wall clock the tests' requests are made at.
pub fn local_now() -> NaiveDateTime {
    chrono::Local::now().naive_local()
}

/// Registers an RQFD request for `day`, as `flightstate request` does.
#[track_caller]
pub fn register<S: Store>(store: &S, settings: &RequestSettings, day: NaiveDate) -> Registered {
    let now = flightstate::station::utc_now();
    store
        .transaction(|tx| register_day_request(tx, settings, day, now, local_now()))
        .expect("the request is registered")
}

/// Every request, live ones first, newest first.
#[track_caller]
pub fn requests<S: Store>(store: &S) -> Vec<RequestEntry> {
    store
        .transaction(|tx| tx.select_requests(1_000))
        .expect("list the requests")
}

/// The request `req_id`.
#[track_caller]
pub fn request<S: Store>(store: &S, req_id: i64) -> RequestEntry {
    requests(store)
        .into_iter()
        .find(|r| r.req_id == req_id)
        .unwrap_or_else(|| panic!("no request {req_id}"))
}

/// A `COUTMSGS` row as read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutRow {
    pub id: i64,
    pub routing_id: String,
    pub message: String,
}

/// Every `COUTMSGS` row, by id.
pub fn coutmsgs(mb: &MailboxDatabase) -> Vec<OutRow> {
    mb.conn()
        .query_map(
            "SELECT COUTMSGS_ID, ROUTINGID, COUTMSGS_CLOB_MSG FROM coutmsgs ORDER BY COUTMSGS_ID",
            |(id, routing_id, message): (i64, String, String)| OutRow {
                id,
                routing_id,
                message,
            },
        )
        .expect("read COUTMSGS")
}

/// The text of the one `<name>` element of `xml` (a leaf element).
#[track_caller]
pub fn element_text(xml: &str, name: &str) -> String {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    assert_eq!(xml.matches(&open).count(), 1, "one <{name}> in {xml}");
    let start = xml
        .find(&open)
        .map(|at| at + open.len())
        .expect("an opening tag");
    let end = xml[start..].find(&close).expect("a closing tag") + start;
    xml[start..end].to_owned()
}

/// `STDB` and `STDE` of an RQFD message.
#[track_caller]
pub fn asked_bounds(xml: &str) -> (NaiveDateTime, NaiveDateTime) {
    let bound = |name| {
        let text = element_text(xml, name);
        parse_date_time(&text).unwrap_or_else(|| panic!("{name} {text:?} is a SIS date-time"))
    };
    (bound("STDB"), bound("STDE"))
}
