//! A transaction whose commit fails, on the real PostgreSQL server: a deferred constraint
//! (added by the test to `proc_state`, checked only at `COMMIT`) refuses the work when the
//! store commits it. The store reports the commit's own failure, by kind; the failed work is
//! gone; and the pool's one connection serves the next transaction as if nothing happened
//! (not left inside an aborted transaction). The Oracle twin of the guard is unit-tested in
//! `src/store/oracle/store.rs` and run against a server in `tests/oracle_first_contact.rs`.
#![cfg(feature = "postgres")]

mod common;

use std::time::Duration;

use chrono::NaiveDateTime;
use common::TestDatabase;
use diesel::RunQueryDsl;
use diesel::connection::SimpleConnection;
use diesel::r2d2::Pool;
use diesel::sql_types::BigInt;
use flightstate::FailureKind;
use flightstate::store::pg::PgStore;
use flightstate::store::{Outcome, ProcStatus, StateTx, Store};

fn outcome(
    message_id: i64,
    identity_key: &'static str,
    msg_type: &'static str,
) -> Outcome<'static> {
    Outcome {
        message_id,
        identity_key,
        status: ProcStatus::Succeeded,
        error_kind: None,
        error_text: None,
        msg_type: Some(msg_type),
        msg_subtype: None,
        next_attempt_at: None,
        now: NaiveDateTime::parse_from_str("2026-06-01 12:00:00", "%Y-%m-%d %H:%M:%S")
            .expect("a time"),
        received_at: None,
    }
}

#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[test]
fn a_commit_that_fails_reports_its_kind_keeps_nothing_and_leaves_the_connection_usable() {
    let db = TestDatabase::migrated();
    // Two messages of one type in one transaction break this only at COMMIT.
    db.connect()
        .batch_execute(
            "ALTER TABLE proc_state ADD CONSTRAINT proc_state_test_type_uq UNIQUE (msg_type) \
             DEFERRABLE INITIALLY DEFERRED",
        )
        .expect("add the deferred constraint");
    // One connection: the transaction after the failed commit gets the same one back, or a
    // fresh one if the pool dropped it; either way it must work.
    let store = PgStore::from_pool(
        db.pool_with(
            Pool::builder()
                .max_size(1)
                .connection_timeout(Duration::from_secs(10)),
        ),
    );

    let err = store
        .transaction(|tx| {
            tx.record_outcomes(&[outcome(1, "key-1", "SCHD"), outcome(2, "key-2", "SCHD")])
        })
        .expect_err("the deferred constraint fails the commit");
    assert_eq!(err.kind(), FailureKind::Duplicate, "{err:#}");
    assert_eq!(err.op(), "begin or commit the transaction", "{err:#}");

    store
        .transaction(|tx| tx.record_outcomes(&[outcome(3, "key-3", "FLOP")]))
        .expect("the next transaction on the pool's connection commits");
    let rows: Vec<Count> =
        diesel::sql_query("SELECT count(*) AS n FROM proc_state WHERE message_id IN (1, 2, 3)")
            .load(&mut db.connect())
            .expect("count the outcomes");
    let stored: Vec<Count> =
        diesel::sql_query("SELECT count(*) AS n FROM proc_state WHERE message_id = 3")
            .load(&mut db.connect())
            .expect("count the later outcome");
    assert_eq!(rows[0].n, 1, "the failed commit kept nothing");
    assert_eq!(stored[0].n, 1, "the later transaction committed");
}
