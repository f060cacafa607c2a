//! What a flight-level message applied alone (`apply_message`: one commit
//! a message, as `flightstate apply` and a message that leaves its group
//! take) sends the state database: its statements and transactions,
//! counted by diesel's instrumentation on the thread that applies it. The
//! single-message path is measured by `benches/pump_throughput.rs`; this
//! test pins the round trips that figure is made of, so that a change that
//! adds one is seen without timing anything.
#![cfg(feature = "postgres")]

mod common;

use std::cell::RefCell;
use std::collections::BTreeMap;

use common::TestDatabase;
use diesel::connection::{Instrumentation, InstrumentationEvent, set_default_instrumentation};
use flightstate::pipeline::{Rules, apply_message};
use flightstate::protocol::to_xml;
use flightstate::store::pg::PgStore;
use flightstate::synth::{DayOptions, airport_day};

thread_local! {
    /// What this thread's connections sent, in order.
    static SENT: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Every statement sent (`BEGIN` and `COMMIT` included: diesel sends them
/// as statements of their own).
fn record_statements() -> Option<Box<dyn Instrumentation>> {
    Some(Box::new(|event: InstrumentationEvent<'_>| {
        if let InstrumentationEvent::StartQuery { query, .. } = event {
            let text = query.to_string();
            SENT.with(|sent| sent.borrow_mut().push(text));
        }
    }))
}

/// The statements sent while `work` ran on this thread.
fn sent_by(work: impl FnOnce()) -> Vec<String> {
    SENT.with(|sent| sent.borrow_mut().clear());
    work();
    SENT.with(|sent| std::mem::take(&mut *sent.borrow_mut()))
}

/// What every flight event applied alone sends, whatever it changes: two
/// transactions (`BEGIN`, `COMMIT`), each on a connection the pool checks
/// out with r2d2's test query (`SELECT 1`); the first reads the message's
/// record (`select_proc_states`); the second takes `PIPELINE_LOCK`, reads
/// the flight (`select_flights` and its nine detail tables), writes its
/// main row, its state event and change notice, the order and SEQN
/// evidence (read and upserted each) and the outcome (`record_outcomes`).
const FIXED_STATEMENTS: usize = 2 * 3 // BEGIN, SELECT 1, COMMIT
    + 1 // select_proc_states
    + 1 // lock_pipeline
    + 10 // select_flights and the nine detail tables
    + 1 // upsert_flights
    + 2 // insert_state_events, insert_change_notices
    + 4 // the order and SEQN evidence
    + 1; // record_outcomes

/// Whether `statement` deletes or inserts a detail table's rows: how many a
/// message sends depends on the collections it changes.
fn rewrites_detail_rows(statement: &str) -> bool {
    let name = head(statement);
    name.starts_with("-- name: delete_")
        || (name.starts_with("-- name: insert_")
            && !name.contains("insert_state_events")
            && !name.contains("insert_change_notices"))
}

/// A statement by its first words, to name it in the tally.
fn head(statement: &str) -> String {
    statement
        .split_whitespace()
        .take(4)
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_flight_event_applied_alone_sends_two_transactions_and_a_fixed_set_of_statements() {
    set_default_instrumentation(record_statements).expect("instrumentation");
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let options = DayOptions {
        flights: 20,
        ..DayOptions::default()
    };
    let day = airport_day(&options);
    let rules = Rules::default();
    let now = chrono::Utc::now().naive_utc();
    apply_message(&store, &rules, 1, to_xml(&day.snapshot).as_bytes(), now).expect("snapshot");
    let mut per_message = Vec::new();
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    let mut body_bytes = 0;
    for (id, message) in (2..).zip(day.events.iter().take(30)) {
        let body = to_xml(message).into_bytes();
        body_bytes += body.len();
        let sent = sent_by(|| {
            apply_message(&store, &rules, id, &body, now).expect("applied");
        });
        for statement in &sent {
            *tally.entry(head(statement)).or_default() += 1;
        }
        per_message.push(sent);
    }
    let messages = per_message.len();
    let statements: usize = per_message.iter().map(Vec::len).sum();
    let commits = tally.get("COMMIT").copied().unwrap_or(0);
    println!(
        "{messages} messages ({body_bytes} bytes), {statements} statements, {commits} commits"
    );
    for (statement, n) in &tally {
        println!("{n:5}  {statement}");
    }
    for (i, sent) in per_message.iter().take(2).enumerate() {
        println!("message {}:\n  {}", i + 2, sent.join("\n  "));
    }
    // Each message: one transaction reads its record, one applies it; the
    // statements besides the detail rows it rewrites (which depend on what
    // it changes) are the same for every message.
    assert_eq!(commits, 2 * messages, "{tally:#?}");
    for (i, sent) in per_message.iter().enumerate() {
        let fixed: Vec<&String> = sent.iter().filter(|s| !rewrites_detail_rows(s)).collect();
        assert_eq!(
            fixed.len(),
            FIXED_STATEMENTS,
            "message {}: {:#?}",
            i + 2,
            fixed.iter().map(|s| head(s)).collect::<Vec<_>>()
        );
    }
}
