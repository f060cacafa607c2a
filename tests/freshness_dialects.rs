//! `PROC_STATE.RECEIVED_AT` through each dialect's repository: the pump's
//! attempts record when the mailbox received their message — alone, in a
//! group commit, a snapshot — and a later attempt keeps the first time; a
//! message `flightstate apply` applies has none; and the dispatcher's read
//! (`select_received_times`) finds exactly the messages that have one — on
//! PostgreSQL here, on Oracle 11g where `FLIGHTSTATE_ORACLE_URL` names a
//! schema (`docs/oracle.md`).
#![cfg(feature = "postgres")]

mod common;

use std::collections::HashMap;
use std::time::Duration;

use chrono::NaiveDateTime;
use common::dialects::ScenarioDb;
use common::sis::{at, flop_sent, parse_options, sep, snapshot_sent, unsupported_sent};
use flightstate::mailbox::{InboundMessage, MailboxSettings};
use flightstate::pipeline::{
    Applied, Attempt, Leased, Rules, apply_attempt, apply_group, apply_message, prepare_grouped,
};
use flightstate::store::{OutboxOps, Store, StoreError};

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

/// The site's mailbox as the write-back intents name it (never reached).
fn mailbox() -> MailboxSettings {
    MailboxSettings {
        url: "mysql://127.0.0.1:1/unused".to_owned(),
        pending_status: "VALID".to_owned(),
        succeeded_status: "SUCCEEDED".to_owned(),
        dead_status: "DEAD".to_owned(),
        pool_size: 1,
        connect_timeout: Duration::from_secs(1),
        io_timeout: Duration::from_secs(1),
        idle_in_transaction: None,
    }
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
    let mailbox = mailbox();
    // The seeded lease: epoch 0, which the attempts are fenced by.
    let leased = Leased {
        epoch: 0,
        mailbox: &mailbox,
        unsupported_threshold: 5,
    };
    let pump = |message: &InboundMessage| {
        apply_attempt(
            &store,
            &rules,
            &Attempt::from_mailbox(message, now(), leased),
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
        .map(|m| prepare_grouped(&rules, m).expect("a flight-level message"))
        .collect();
    let applied = store
        .transaction(|tx| apply_group(tx, &rules, leased, &group, now()))
        .expect("the group commits");
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

    let times = store
        .transaction(|tx| tx.select_received_times(&[1, 2, 3, 4, 5, 6, 7]))
        .map_err(|e: StoreError| format!("{e:#}"))
        .expect("read the receipts");
    assert_eq!(
        times,
        HashMap::from([
            (1, received(40)),
            (2, received(30)),
            (3, received(29)),
            (4, received(20)),
        ]),
        "{}",
        db.dialect()
    );
    assert_eq!(
        db.count("proc_state", "received_at IS NULL"),
        2,
        "messages 5 and 6 have none"
    );
}
