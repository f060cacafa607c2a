//! `PROC_STATE.RECEIVED_AT` through each dialect's repository: the pump's
//! attempts record when the mailbox received their message — alone, in a
//! group commit, a snapshot — and a later attempt keeps the first time; a
//! message `flightstate apply` applies has none; the dispatcher's read
//! (`select_received_times`) finds exactly the messages that have one, with
//! the time their outcome was recorded, which is the `CREATED_AT` of every
//! outbox row their transaction registered; and an operator's replay takes
//! its message out — on PostgreSQL here, on Oracle 11g where
//! `FLIGHTSTATE_ORACLE_URL` names a schema (`docs/oracle.md`).
#![cfg(feature = "postgres")]

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use chrono::NaiveDateTime;
use common::dialects::ScenarioDb;
use common::sis::{at, flop_sent, parse_options, sep, snapshot_sent, unsupported_sent};
use flightstate::journal::WriteBackStatuses;
use flightstate::mailbox::InboundMessage;
use flightstate::pipeline::{
    Applied, Attempt, Leased, ReplayPolicy, Rules, VersionPolicy, apply_attempt, apply_group,
    apply_message, prepare_grouped, replay_snapshot,
};
use flightstate::store::{Lane, OutboxOps, Receipt, Store, StoreError};

dialect_tests! {
    the_pump_records_each_receipt_once_and_the_dispatcher_reads_them_back,
}

fn now() -> NaiveDateTime {
    at(9, 12, 0)
}

/// A receipt `secs` seconds and some microseconds before [`now`]: the
/// column keeps microseconds in both dialects.
fn received(secs: i64) -> NaiveDateTime {
    now() - chrono::Duration::seconds(secs) + chrono::Duration::microseconds(123_456)
}

fn rules() -> Rules {
    Rules {
        parse: parse_options(),
        ..Rules::default()
    }
}

/// The statuses the write-back intents name.
fn statuses() -> Arc<WriteBackStatuses> {
    Arc::new(WriteBackStatuses {
        succeeded: "SUCCEEDED".to_owned(),
        dead: "DEAD".to_owned(),
    })
}

fn row(id: i64, body: Vec<u8>, received_at: Option<NaiveDateTime>) -> InboundMessage {
    InboundMessage {
        id,
        body,
        received_at,
    }
}

fn the_pump_records_each_receipt_once_and_the_dispatcher_reads_them_back(db: &impl ScenarioDb) {
    let store = db.store();
    let rules = rules();
    // The seeded lease: epoch 0, which the attempts are fenced by.
    let leased = Leased {
        epoch: 0,
        statuses: statuses(),
        unsupported_threshold: 5,
    };
    let pump = |message: &InboundMessage| {
        apply_attempt(
            &store,
            &rules,
            &Attempt::from_mailbox(message, now(), leased.clone()),
        )
        .expect("applied")
    };

    // 1: a snapshot, alone.
    let snapshot = row(
        1,
        snapshot_sent(sep(9), &[10, 11], "000001", at(9, 9, 0)),
        Some(received(40)),
    );
    assert!(matches!(pump(&snapshot), Applied::Snapshot(_)));
    // 2, 3: flight events in one group commit.
    let events = [
        row(
            2,
            flop_sent("AODB", "000002", at(9, 9, 1), 10),
            Some(received(30)),
        ),
        row(
            3,
            flop_sent("AODB", "000003", at(9, 9, 2), 11),
            Some(received(29)),
        ),
    ];
    let group: Vec<_> = events
        .iter()
        .map(|m| Attempt::from_mailbox(m, now(), leased.clone()))
        .map(|attempt| prepare_grouped(&rules, attempt).expect("a flight-level message"))
        .collect();
    let applied = apply_group(&store, &rules, &group).expect("the group commits");
    assert_eq!(applied.len(), 2);
    // 4: unsupported, tried twice; the second read of its row told another
    // time (a clock stepped), which is not recorded.
    let unsupported = unsupported_sent("AODB", "000004", at(9, 9, 3));
    assert!(matches!(
        pump(&row(4, unsupported.clone(), Some(received(20)))),
        Applied::Unsupported { .. }
    ));
    assert!(matches!(
        pump(&row(4, unsupported, Some(received(5)))),
        Applied::Unsupported { .. }
    ));
    // 5: a row without a receive date.
    pump(&row(5, flop_sent("AODB", "000005", at(9, 9, 4), 10), None));
    // 6: `flightstate apply`, which has no mailbox row.
    let tool = apply_message(
        &store,
        &rules,
        6,
        &flop_sent("AODB", "000006", at(9, 9, 5), 11),
        now(),
    )
    .expect("applied by the tool");
    assert!(matches!(tool, Applied::Flights(_)));

    let receipts = |ids: &[i64]| {
        store
            .transaction(|tx| tx.select_received_times(ids))
            .map_err(|e: StoreError| format!("{e:#}"))
            .expect("read the receipts")
    };
    let receipt = |secs| Receipt {
        received_at: received(secs),
        recorded_at: now(),
    };
    let times = receipts(&[1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(
        times,
        HashMap::from([
            (1, receipt(40)),
            (2, receipt(30)),
            (3, receipt(29)),
            (4, receipt(20)),
        ]),
        "{}",
        db.dialect()
    );
    assert_eq!(
        db.count("proc_state", "received_at IS NULL"),
        2,
        "messages 5 and 6 have none"
    );
    // Every outbox row the messages' own transactions registered carries
    // the time their outcome was recorded, which is how the dispatcher
    // tells them from rows registered later in their name.
    let (states, notices) = store
        .transaction(|tx| {
            Ok::<_, StoreError>((
                tx.claim_state_events(now(), 1_000, Lane::ALL)?,
                tx.claim_change_notices(now(), 1_000, Lane::ALL)?,
            ))
        })
        .expect("claim the outbox");
    let rows: Vec<(i64, NaiveDateTime)> = states
        .iter()
        .map(|r| (r.message_id, r.created_at))
        .chain(notices.iter().map(|r| (r.message_id, r.created_at)))
        .collect();
    for id in [1, 2, 3] {
        assert!(rows.iter().any(|(m, _)| *m == id), "message {id} made rows");
    }
    for (id, created_at) in &rows {
        if let Some(r) = times.get(id) {
            assert_eq!(r.recorded_at, *created_at, "a row of message {id}");
        }
    }

    // An operator's replay of the snapshot: its rows are the replay's.
    let policy = ReplayPolicy {
        day: sep(9),
        other_day: false,
        version: VersionPolicy::Latest,
        move_flights: false,
        dry_run: false,
        by: "tester".to_owned(),
    };
    let later = now() + chrono::Duration::seconds(60);
    replay_snapshot(&store, &rules, 1, &snapshot.body, &policy, later).expect("replayed");
    let after = receipts(&[1, 2]);
    assert_eq!(
        after,
        HashMap::from([(2, receipt(30))]),
        "{}: a replayed message's rows are not counted",
        db.dialect()
    );
}
