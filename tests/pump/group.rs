//! Group commit against real MariaDB and PostgreSQL, in process: the pump
//! applies runs of consecutive flight-level messages in one transaction,
//! and the result — state, versions, outbox rows, `PROC_STATE`, write-backs
//! — is exactly that of committing every message on its own.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use diesel::RunQueryDsl;
use diesel::sql_types::BigInt;
use flightstate::mailbox::Mailbox;
use flightstate::pipeline::Rules;
use flightstate::protocol::{Field, ScheduleSubtype};
use flightstate::pump::{Pump, PumpSettings};
use flightstate::store::pg::PgStore;

use crate::common::TestDatabase;
use crate::common::sis::{at, flight, flop, parse_options, schedule_message, sep, snapshot};
use crate::pumping::pg::drain;
use crate::pumping::{MailboxDatabase, mailbox_settings, proc_states, state_dump};

fn pump(db: &TestDatabase, mb: &MailboxDatabase, group_commit: usize) -> Pump<PgStore> {
    let store = PgStore::connect(db.url(), 4, Duration::from_secs(2)).expect("pool");
    let mailbox = Arc::new(Mailbox::connect(mailbox_settings(mb.url())).expect("mailbox pool"));
    let pipeline = Rules {
        parse: parse_options(),
        ..Rules::default()
    };
    Pump::new(
        store,
        mailbox,
        pipeline,
        PumpSettings {
            holder: format!("group-{group_commit}"),
            lease_ttl: Duration::from_secs(60),
            unsupported_threshold: 1,
            backoff_initial: Duration::from_millis(20),
            backoff_max: Duration::from_millis(200),
            idle_poll: Duration::from_millis(20),
            group_commit,
            ..PumpSettings::default()
        },
    )
}

/// Every way flight-level messages interact inside one group: several
/// messages on one flight, a deletion then a re-creation (versions continue
/// above the tombstone), an ad-hoc flight then an event on it, a deletion
/// list, a message that changes nothing, and messages that cannot join a
/// group (a malformed one, a snapshot) between runs of ones that can.
fn stream() -> Vec<Vec<u8>> {
    vec![
        snapshot(
            sep(9),
            vec![
                flight(1, at(9, 8, 0)),
                flight(2, at(9, 9, 0)),
                flight(3, at(9, 10, 0)),
            ],
        ),
        flop("RENO", &[(1, "<RENO>B1</RENO>")]),
        flop("RENO", &[(1, "<RENO>B2</RENO>"), (2, "<RENO>B3</RENO>")]),
        flop("FDEL", &[(1, "<FDEL/>")]),
        flop("RENO", &[(1, "<RENO>B4</RENO>")]),
        flop("RENO", &[(2, "<RENO>B3</RENO>")]),
        schedule_message(
            ScheduleSubtype::Adft,
            None,
            Field::Value(1),
            vec![flight(4, at(9, 11, 0))],
        ),
        flop("DELY", &[(4, "<DELY CODE=\"93\"></DELY>")]),
        b"<MSG><META><TYPE>FLOP</TYPE>".to_vec(),
        schedule_message(
            ScheduleSubtype::Del,
            None,
            Field::Value(1),
            vec![flight(3, at(9, 10, 0))],
        ),
        flop("RENO", &[(3, "<RENO>B5</RENO>")]),
        snapshot(sep(9), vec![flight(1, at(9, 8, 0)), flight(2, at(9, 9, 0))]),
        flop("RENO", &[(2, "<RENO>B6</RENO>")]),
        flop("FDEL", &[(2, "<FDEL/>")]),
    ]
}

#[derive(diesel::QueryableByName)]
struct Xid {
    #[diesel(sql_type = BigInt)]
    message_id: i64,
    #[diesel(sql_type = BigInt)]
    xid: i64,
}

/// The transaction that wrote each message's `PROC_STATE` row.
fn transactions(db: &TestDatabase) -> Vec<(i64, i64)> {
    let mut conn = db.connect();
    diesel::sql_query(
        "SELECT message_id, xmin::text::bigint AS xid FROM proc_state ORDER BY message_id",
    )
    .load::<Xid>(&mut conn)
    .expect("read PROC_STATE transactions")
    .into_iter()
    .map(|r| (r.message_id, r.xid))
    .collect()
}

fn run(tag: &str, group_commit: usize) -> (TestDatabase, MailboxDatabase) {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create(tag);
    for message in stream() {
        mb.insert(&message);
    }
    drain(&mut pump(&db, &mb, group_commit));
    mb.assert_each_written_back_once();
    (db, mb)
}

#[test]
fn a_group_commit_equals_one_commit_per_message() {
    let (alone_db, alone_mb) = run("group_one", 1);
    let (group_db, group_mb) = run("group_many", 50);

    let alone = state_dump(&mut alone_db.connect());
    let grouped = state_dump(&mut group_db.connect());
    assert_eq!(grouped, alone, "state, versions, outbox and PROC_STATE");
    assert_eq!(
        group_mb
            .rows()
            .iter()
            .map(|r| r.1.clone())
            .collect::<Vec<_>>(),
        alone_mb
            .rows()
            .iter()
            .map(|r| r.1.clone())
            .collect::<Vec<_>>(),
        "each mailbox row written back with the same status"
    );
    let statuses = proc_states(&mut group_db.connect());
    assert_eq!(statuses.len(), stream().len());
    assert_eq!(statuses[8].1, "DEAD", "the malformed message");
    assert!(
        statuses
            .iter()
            .enumerate()
            .all(|(i, s)| i == 8 || s.1 == "SUCCEEDED"),
        "{statuses:?}"
    );

    // Alone, every message commits on its own; grouped, the runs between
    // the messages that cannot join a group share one transaction each:
    // 2–8 (ids 2..=8), then 10–11, then 13–14.
    let alone_xids: BTreeSet<i64> = transactions(&alone_db).iter().map(|t| t.1).collect();
    assert_eq!(alone_xids.len(), stream().len());
    let grouped = transactions(&group_db);
    let xid_of = |id: i64| grouped.iter().find(|t| t.0 == id).map(|t| t.1);
    let first = grouped[0].0;
    for run in [1..=7, 9..=10, 12..=13] {
        let ids: BTreeSet<Option<i64>> = run.map(|i| xid_of(first + i)).collect();
        assert_eq!(ids.len(), 1, "one transaction for each run: {grouped:?}");
    }
    let distinct: BTreeSet<i64> = grouped.iter().map(|t| t.1).collect();
    assert_eq!(distinct.len(), 6, "{grouped:?}");
}

/// The fault is injected in process (failpoint `event.before_write`, once):
/// a real server cannot be made to fail inside exactly one group.
#[cfg(feature = "failpoints")]
#[test]
fn a_group_that_fails_is_rolled_back_and_applied_one_message_at_a_time() {
    use flightstate::failpoint::{Action, arm, disarm_all};

    let (alone_db, _alone_mb) = run("group_ref", 1);
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("group_fail");
    for message in stream() {
        mb.insert(&message);
    }
    arm("event.before_write", Action::Error, 1);
    drain(&mut pump(&db, &mb, 50));
    disarm_all();
    assert_eq!(
        flightstate::failpoint::fired("event.before_write"),
        1,
        "the fault was injected"
    );
    mb.assert_each_written_back_once();
    assert_eq!(
        state_dump(&mut db.connect()),
        state_dump(&mut alone_db.connect()),
        "the failed group left no trace; its messages were applied one by one"
    );
    // The run the failure hit went one message at a time: no two of its
    // messages share a transaction.
    let xids = transactions(&db);
    let first = xids[0].0;
    let failed_run: BTreeSet<i64> = xids
        .iter()
        .filter(|t| (first + 1..=first + 7).contains(&t.0))
        .map(|t| t.1)
        .collect();
    assert_eq!(failed_run.len(), 7, "{xids:?}");
}
