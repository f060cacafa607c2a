//! Snapshots (SCHD DNLD/RESP) applied to a real PostgreSQL database: the
//! day's flight list replaces the old one, in one all-or-nothing
//! transaction, without ever deleting a flight another day has taken over.
#![cfg(feature = "postgres")]

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Barrier};

use chrono::NaiveDateTime;
use common::TestDatabase;
use common::sis::{at, count, dump_database, flight, schedule_message, sep, snapshot};
use flightstate::FailureKind;
use flightstate::pipeline::{Applied, Settings, SnapshotReport, apply_message};
use flightstate::protocol::{Field, Group, ScheduleSubtype};
use flightstate::state::StoredFlight;
use flightstate::store::pg::PgStore;
use flightstate::store::{ProcStatus, StateTx, Store, StoreError};

fn settings() -> Settings {
    Settings {
        parse: common::sis::parse_options(),
        ..Settings::default()
    }
}

fn now() -> NaiveDateTime {
    at(9, 12, 0)
}

fn store(db: &TestDatabase) -> PgStore {
    PgStore::from_pool(db.pool())
}

#[track_caller]
fn apply(store: &PgStore, message_id: i64, body: &[u8]) -> Applied {
    apply_message(store, &settings(), message_id, body, now()).expect("applied")
}

#[track_caller]
fn applied_snapshot(store: &PgStore, message_id: i64, body: &[u8]) -> SnapshotReport {
    match apply(store, message_id, body) {
        Applied::Snapshot(report) => report,
        other => panic!("not a snapshot outcome: {other:?}"),
    }
}

fn load(store: &PgStore, flids: &[i64]) -> HashMap<i64, StoredFlight> {
    store
        .transaction(|tx| tx.load_flights(flids))
        .expect("load flights")
}

fn proc_status(store: &PgStore, message_id: i64) -> (ProcStatus, Option<String>) {
    let record = store
        .transaction(|tx| tx.proc_state(message_id))
        .expect("read PROC_STATE")
        .expect("a PROC_STATE row");
    (record.status, record.error_text)
}

#[test]
fn a_flight_taken_over_by_the_next_day_is_not_deleted() {
    let db = TestDatabase::migrated();
    let store = store(&db);
    // 9 Sep: A, B, C. C departs late in the evening.
    applied_snapshot(
        &store,
        1,
        &snapshot(
            sep(9),
            vec![
                flight(1, at(9, 8, 0)),
                flight(2, at(9, 9, 0)),
                flight(3, at(9, 23, 50)),
            ],
        ),
    );
    // 10 Sep takes C over (its SODT moved past midnight).
    let report = applied_snapshot(
        &store,
        2,
        &snapshot(sep(10), vec![flight(3, at(10, 0, 20))]),
    );
    assert_eq!((report.created, report.updated), (0, 1));
    // A new 9 Sep snapshot lacks both B and C: B is deleted, C is not.
    let report = applied_snapshot(&store, 3, &snapshot(sep(9), vec![flight(1, at(9, 8, 0))]));
    assert_eq!(report.deleted, vec![2]);
    assert_eq!(report.version, 2);

    let flights = load(&store, &[1, 2, 3]);
    assert!(!flights.contains_key(&2));
    assert_eq!(flights[&3].operation_day, Some(sep(10)));
    assert_eq!(flights[&1].operation_day, Some(sep(9)));
    let mut conn = db.connect();
    assert_eq!(
        count(
            &mut conn,
            "kafka_schd",
            "flid = 2 AND event_kind = 'TOMBSTONE' AND message_id = 3"
        ),
        1
    );
    assert_eq!(
        count(
            &mut conn,
            "kafka_schd",
            "flid = 3 AND event_kind = 'TOMBSTONE'"
        ),
        0
    );
    // B's details went with it.
    assert_eq!(count(&mut conn, "flight_gate", "flid = 2"), 0);
    assert_eq!(count(&mut conn, "flight_route_point", "flid = 2"), 0);
    // The 9 Sep list is now A alone; C is on the 10 Sep list.
    assert_eq!(
        count(&mut conn, "schd_gen_flid", "operation_day = '2026-09-09'"),
        1
    );
    assert_eq!(
        count(
            &mut conn,
            "schd_gen_flid",
            "operation_day = '2026-09-10' AND flid = 3"
        ),
        1
    );
}

#[test]
fn replaying_the_latest_snapshot_changes_nothing() {
    let db = TestDatabase::migrated();
    let store = store(&db);
    let body = snapshot(sep(9), vec![flight(1, at(9, 8, 0)), flight(2, at(9, 9, 0))]);
    applied_snapshot(&store, 10, &body);
    let mut conn = db.connect();
    let before = dump_database(&mut conn);
    // The same message again (a retried commit, or a second look at the row):
    // recognised by its identity, not even parsed.
    assert_eq!(
        apply(&store, 10, &body),
        Applied::AlreadyProcessed {
            status: ProcStatus::Succeeded
        }
    );
    assert_eq!(dump_database(&mut conn), before);
}

#[test]
fn the_latest_snapshot_under_its_ledger_id_is_a_replay() {
    let db = TestDatabase::migrated();
    let store = store(&db);
    let body = snapshot(sep(9), vec![flight(1, at(9, 8, 0))]);
    applied_snapshot(&store, 10, &body);
    let mut conn = db.connect();
    // Forget the PROC_STATE row (as after a restore): the ledger alone must
    // recognise the day's latest message.
    diesel::RunQueryDsl::execute(diesel::sql_query("DELETE FROM proc_state"), &mut conn)
        .expect("clear proc_state");
    let flights_before = load(&store, &[1]);
    let report = applied_snapshot(&store, 10, &body);
    assert!(report.replay);
    assert_eq!(report.version, 1);
    assert_eq!(load(&store, &[1]), flights_before);
    assert_eq!(count(&mut conn, "kafka_schd", "true"), 1);
    assert_eq!(proc_status(&store, 10).0, ProcStatus::Succeeded);
}

#[test]
fn an_older_snapshot_is_applied_again() {
    // The seed's boundary (docs/snapshot-ledger.md): the ledger recognises
    // only the day's latest message; an older one is a new application.
    let db = TestDatabase::migrated();
    let store = store(&db);
    let older = snapshot(sep(9), vec![flight(1, at(9, 8, 0)), flight(2, at(9, 9, 0))]);
    let newer = snapshot(sep(9), vec![flight(1, at(9, 8, 0))]);
    applied_snapshot(&store, 1, &older);
    applied_snapshot(&store, 2, &newer);
    let mut conn = db.connect();
    diesel::RunQueryDsl::execute(
        diesel::sql_query("DELETE FROM proc_state WHERE message_id = 1"),
        &mut conn,
    )
    .expect("forget message 1");
    let report = applied_snapshot(&store, 1, &older);
    assert!(!report.replay);
    assert_eq!(report.version, 3);
    assert_eq!(report.created, 1);
    assert!(load(&store, &[2]).contains_key(&2));
}

#[test]
fn bad_snapshots_are_dead_and_change_nothing() {
    let db = TestDatabase::migrated();
    let store = store(&db);
    applied_snapshot(&store, 1, &snapshot(sep(9), vec![flight(1, at(9, 8, 0))]));
    let mut conn = db.connect();
    let before = dump_database(&mut conn);
    let cases: Vec<(i64, Vec<u8>, &str)> = vec![
        (
            2,
            schedule_message(
                ScheduleSubtype::Dnld,
                Some(sep(9)),
                Field::Value(3),
                vec![flight(1, at(9, 8, 0))],
            ),
            "RECS = 3 but the snapshot carries 1 FLTR records",
        ),
        (
            3,
            schedule_message(
                ScheduleSubtype::Dnld,
                Some(sep(9)),
                Field::Value(10_000),
                vec![],
            ),
            "RECS = 10000 is over capacity",
        ),
        (
            4,
            schedule_message(
                ScheduleSubtype::Dnld,
                None,
                Field::Value(2),
                vec![flight(5, at(9, 23, 0)), flight(6, at(10, 1, 0))],
            ),
            "its flights fall in several days (2026-09-09 and 2026-09-10)",
        ),
        (
            5,
            schedule_message(ScheduleSubtype::Dnld, None, Field::Value(0), vec![]),
            "carries no flight to take one from",
        ),
        (
            6,
            schedule_message(
                ScheduleSubtype::Dnld,
                Some(sep(9)),
                Field::Absent,
                vec![flight(1, at(9, 8, 0))],
            ),
            "RECS is missing",
        ),
        (7, b"<MSG><META>".to_vec(), "rejected: "),
    ];
    for (id, body, reason) in cases {
        match apply(&store, id, &body) {
            Applied::Dead { reason: got } => assert!(got.contains(reason), "{id}: {got}"),
            other => panic!("message {id} should be DEAD: {other:?}"),
        }
        let (status, text) = proc_status(&store, id);
        assert_eq!(status, ProcStatus::Dead);
        assert!(text.unwrap_or_default().contains(reason));
    }
    // Nothing but the PROC_STATE rows of the dead messages changed.
    let after = dump_database(&mut conn);
    let without_proc = |dump: &str| {
        dump.lines()
            .filter(|l| !l.starts_with("proc_state"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(without_proc(&after), without_proc(&before));
    assert_eq!(count(&mut conn, "proc_state", "status = 'DEAD'"), 6);
}

#[test]
fn an_empty_snapshot_of_a_named_day_deletes_the_day() {
    let db = TestDatabase::migrated();
    let store = store(&db);
    applied_snapshot(
        &store,
        1,
        &snapshot(sep(9), vec![flight(1, at(9, 8, 0)), flight(2, at(9, 9, 0))]),
    );
    let report = applied_snapshot(&store, 2, &snapshot(sep(9), vec![]));
    assert_eq!(report.deleted, vec![1, 2]);
    assert_eq!(report.version, 2);
    assert!(load(&store, &[1, 2]).is_empty());
    let mut conn = db.connect();
    assert_eq!(count(&mut conn, "schd_gen_flid", "true"), 0);
    assert_eq!(
        count(&mut conn, "kafka_schd", "event_kind = 'TOMBSTONE'"),
        2
    );
}

#[test]
fn what_the_next_snapshot_lacks_is_cleared() {
    let db = TestDatabase::migrated();
    let store = store(&db);
    let mut full = flight(1, at(9, 8, 0));
    full.remc = Field::Value("VIP on board".into());
    applied_snapshot(&store, 1, &snapshot(sep(9), vec![full]));
    let stored = &load(&store, &[1])[&1];
    assert_eq!(stored.state.fields.remc.as_deref(), Some("VIP on board"));
    assert_eq!(stored.state.gates.len(), 1);
    assert_eq!(stored.state.entire_route.len(), 2);

    let mut bare = flight(1, at(9, 8, 0));
    bare.gtdt = Group::Absent;
    bare.erut = Group::Absent;
    let report = applied_snapshot(&store, 2, &snapshot(sep(9), vec![bare]));
    assert_eq!(report.updated, 1);
    let stored = &load(&store, &[1])[&1];
    assert_eq!(stored.state.fields.remc, None);
    assert!(stored.state.gates.is_empty());
    assert!(stored.state.entire_route.is_empty());
    assert_eq!(stored.state_version, 2);
}

#[test]
fn an_unchanged_snapshot_writes_no_flight_and_bumps_only_the_day() {
    let db = TestDatabase::migrated();
    let store = store(&db);
    let flights = || vec![flight(1, at(9, 8, 0)), flight(2, at(9, 9, 0))];
    applied_snapshot(&store, 1, &snapshot(sep(9), flights()));
    let mut conn = db.connect();
    let flight_tables = |conn: &mut diesel::PgConnection| {
        dump_database(conn)
            .lines()
            .filter(|l| l.starts_with("flight_") || l.starts_with("kafka_schd"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let before = flight_tables(&mut conn);
    let report = applied_snapshot(&store, 2, &snapshot(sep(9), flights()));
    assert_eq!(
        (report.created, report.updated, report.unchanged),
        (0, 0, 2)
    );
    assert_eq!(report.version, 2);
    assert_eq!(flight_tables(&mut conn), before);
}

#[test]
fn every_column_and_collection_round_trips() {
    use flightstate::protocol::*;
    let db = TestDatabase::migrated();
    let store = store(&db);
    let t = at(9, 8, 0);
    let mut record = flight(1, t);
    record.ffid = Field::Value("CA-CA1001-D-09SEP260800-D".into());
    record.lbwt = Field::Value(1234.5);
    record.maxp = Field::Value(180);
    record.phag = Field::Value(110009);
    record.taid = Field::Value(2);
    record.cncl = Field::Value(t);
    record.remc = Field::Value("延误 — weather".into());
    record.fdiv = Field::Value(Diversion {
        ddes: "HKG".into(),
        ddir: DiversionDirection::To,
        text: "weather".into(),
    });
    record.ckdt = Group::Items(vec![CounterAllocation {
        ckno: Field::Value(1),
        chkc: Field::Value("01".into()),
        ccls: Field::Value('Y'),
        pcot: Field::Value(t),
        ..CounterAllocation::default()
    }]);
    record.cldt = Group::Items(vec![CarouselAllocation {
        clno: Field::Value(1),
        belt: Field::Value("B3".into()),
        ..CarouselAllocation::default()
    }]);
    record.psdt = Group::Items(vec![StandAllocation {
        psno: Field::Value(1),
        psst: Field::Value("504".into()),
        stst: Field::Value(t),
        stet: Field::Value(t),
    }]);
    record.chdt = Group::Items(vec![ChuteAllocation {
        chno: Field::Value(2),
        chut: Field::Value("CH21".into()),
        ..ChuteAllocation::default()
    }]);
    record.dely = Group::Items(vec![Delay {
        code: Field::Value("93".into()),
        strt: Field::Value(t),
        dura: Field::Value(Minutes(120)),
        text: "late inbound".into(),
    }]);
    record.abtm = Group::Items(vec![BridgeEvent {
        asno: Field::Value(1),
        abdg: Field::Value("212".into()),
        abop: Field::Value('D'),
        aotm: Field::Value(t),
    }]);
    record.chot = Group::Items(vec![ChockEvent {
        csno: Field::Value(1),
        chtm: Field::Value(t),
        chid: Field::Value(ChockState::On),
        chst: Field::Value("504".into()),
    }]);
    record.rout = Group::Items(vec![RoutePoint {
        rtno: Field::Value(1),
        apcd: Field::Value("PEK".into()),
        scat: Field::Value(t),
        ..RoutePoint::default()
    }]);
    let expected = flightstate::state::state_from_record(&record).expect("fits");
    applied_snapshot(&store, 1, &snapshot(sep(9), vec![record]));
    let stored = &load(&store, &[1])[&1];
    assert_eq!(stored.state, expected);
    assert_eq!(stored.state.fields.lbwt.as_deref(), Some("1234.50"));
    assert_eq!(stored.state.delays[0].dely_dura, Some(120));
    assert_eq!((stored.state_version, stored.last_message_id), (1, 1));
    assert_eq!(stored.updated_at, now());
}

#[test]
fn a_stale_version_bump_is_a_conflict() {
    let db = TestDatabase::migrated();
    let store = store(&db);
    applied_snapshot(&store, 1, &snapshot(sep(9), vec![flight(1, at(9, 8, 0))]));
    // Another transaction read version 1 but the ledger moved to 2.
    applied_snapshot(&store, 2, &snapshot(sep(9), vec![flight(1, at(9, 8, 0))]));
    let err: StoreError = store
        .transaction(|tx| tx.bump_snapshot_version(sep(9), Some(1), 3, now()))
        .expect_err("stale CAS");
    assert_eq!(err.kind(), FailureKind::Conflict);
    let err: StoreError = store
        .transaction(|tx| tx.bump_snapshot_version(sep(9), None, 3, now()))
        .expect_err("the day's ledger already exists");
    assert_eq!(err.kind(), FailureKind::Conflict);
    let ledger = store
        .transaction(|tx| tx.snapshot_ledger(sep(9)))
        .expect("read ledger")
        .expect("ledger");
    assert_eq!((ledger.version, ledger.last_message_id), (2, 2));
}

#[test]
fn concurrent_snapshots_of_one_day_get_consecutive_versions() {
    let db = TestDatabase::migrated();
    let store = Arc::new(store(&db));
    let start = Arc::new(Barrier::new(4));
    let handles: Vec<_> = (1..=4)
        .map(|id| {
            let store = Arc::clone(&store);
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                let body = snapshot(sep(9), vec![flight(id, at(9, 8, 0))]);
                start.wait();
                applied_snapshot(&store, id, &body).version
            })
        })
        .collect();
    let mut versions: Vec<i64> = handles
        .into_iter()
        .map(|h| h.join().expect("thread"))
        .collect();
    versions.sort_unstable();
    assert_eq!(versions, vec![1, 2, 3, 4]);
    let ledger = store
        .transaction(|tx| tx.snapshot_ledger(sep(9)))
        .expect("read ledger")
        .expect("ledger");
    assert_eq!(ledger.version, 4);
    // The last committed snapshot's flight is the day's whole list.
    let list = store
        .transaction(|tx| tx.snapshot_list(sep(9)))
        .expect("read list");
    assert_eq!(list, vec![ledger.last_message_id]);
}

#[test]
fn a_full_day_of_9999_flights_applies_in_one_transaction() {
    let db = TestDatabase::migrated();
    let store = store(&db);
    let flights: Vec<_> = (1..=9_999)
        .map(|flid| flight(flid, at(9, (flid % 24) as u32, (flid % 60) as u32)))
        .collect();
    let report = applied_snapshot(&store, 1, &snapshot(sep(9), flights));
    assert_eq!((report.flights, report.created), (9_999, 9_999));
    let mut conn = db.connect();
    assert_eq!(
        count(&mut conn, "flight_schd", "operation_day = '2026-09-09'"),
        9_999
    );
    assert_eq!(count(&mut conn, "flight_route_point", "true"), 19_998);
    assert_eq!(count(&mut conn, "kafka_schd", "message_id = 1"), 9_999);
    // Every row was written by the one transaction.
    assert_eq!(
        count(
            &mut conn,
            "flight_schd",
            "xmin::text::bigint = (SELECT min(xmin::text::bigint) FROM flight_schd)"
        ),
        9_999
    );
}

#[cfg(feature = "failpoints")]
mod injected {
    use super::*;
    use flightstate::failpoint::{self, Action};

    #[test]
    fn a_failure_after_the_deletes_rolls_everything_back() {
        let db = TestDatabase::migrated();
        let store = store(&db);
        applied_snapshot(
            &store,
            1,
            &snapshot(sep(9), vec![flight(1, at(9, 8, 0)), flight(2, at(9, 9, 0))]),
        );
        let mut conn = db.connect();
        let before = dump_database(&mut conn);
        let next = snapshot(
            sep(9),
            vec![flight(1, at(9, 8, 30)), flight(3, at(9, 10, 0))],
        );
        failpoint::arm("snapshot.after_deletes", Action::Error, 1);
        let err = apply_message(&store, &settings(), 2, &next, now()).expect_err("injected");
        assert_eq!(err.kind(), FailureKind::Other);
        // Only the FAILED(INFRA) record of message 2 is new.
        let after = dump_database(&mut conn);
        let without_proc = |dump: &str| {
            dump.lines()
                .filter(|l| !l.starts_with("proc_state"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(without_proc(&after), without_proc(&before));
        assert_eq!(proc_status(&store, 2).0, ProcStatus::Failed);

        // Retrying the same message applies it fully.
        let report = applied_snapshot(&store, 2, &next);
        assert_eq!(report.deleted, vec![2]);
        assert_eq!((report.created, report.updated), (1, 1));
        assert_eq!(proc_status(&store, 2).0, ProcStatus::Succeeded);
        let flights = load(&store, &[1, 2, 3]);
        assert_eq!(
            flights
                .keys()
                .copied()
                .collect::<std::collections::BTreeSet<_>>(),
            [1, 3].into()
        );
    }

    #[test]
    fn a_lost_version_race_is_rolled_back_and_retried() {
        let db = TestDatabase::migrated();
        let store = store(&db);
        failpoint::arm("snapshot.before_bump", Action::Conflict, 2);
        let report = applied_snapshot(&store, 1, &snapshot(sep(9), vec![flight(1, at(9, 8, 0))]));
        assert_eq!(report.version, 1);
        let mut conn = db.connect();
        // Two rolled-back attempts left nothing behind: one set of events.
        assert_eq!(count(&mut conn, "kafka_schd", "true"), 1);
        assert_eq!(count(&mut conn, "flight_schd", "true"), 1);
    }
}
