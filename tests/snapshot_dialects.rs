//! Snapshots (SCHD DNLD/RESP) applied to a real state database: the day's
//! flight list replaces the old one, in one all-or-nothing transaction,
//! without ever deleting a flight another day has taken over.
//!
//! One scenario suite for both dialects: each scenario is a generic fn over
//! `ScenarioDb`, run as `pg::<name>` on a fresh PostgreSQL database and as
//! `oracle::<name>` on the schema of `FLIGHTSTATE_ORACLE_URL` (skipped, with
//! one plain line, without it). Checks only PostgreSQL can make (its system
//! columns) stay in `pg_only`.
#![cfg(feature = "postgres")]

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Barrier};

use chrono::NaiveDateTime;
use common::dialects::ScenarioDb;
use common::sis::{at, flight, schedule_message, sep, snapshot};
use flightstate::FailureKind;
use flightstate::pipeline::{Applied, Rules, SnapshotReport, apply_message};
use flightstate::protocol::{Field, Group, ParseOptions, ScheduleSubtype};
use flightstate::state::StoredFlight;
use flightstate::store::{ProcStatus, StateTx, Store, StoreError};

/// Calls `$run!` with every scenario.
macro_rules! scenarios {
    ($run:ident) => {
        $run! {
            a_flight_taken_over_by_the_next_day_is_not_deleted,
            replaying_the_latest_snapshot_changes_nothing,
            the_latest_snapshot_under_its_ledger_id_is_a_replay,
            an_older_snapshot_is_applied_again,
            bad_snapshots_are_dead_and_change_nothing,
            an_empty_snapshot_of_a_named_day_deletes_the_day,
            what_the_next_snapshot_lacks_is_cleared,
            an_unchanged_snapshot_writes_no_flight_and_bumps_only_the_day,
            every_column_and_collection_round_trips,
            a_stale_version_bump_is_a_conflict,
            concurrent_snapshots_of_one_day_get_consecutive_versions,
        }
    };
}

/// Every scenario again on PostgreSQL with every message streamed
/// (`Rules::stream_from_bytes` = 0) by parts of two flights: the
/// streamed path must decide exactly what reading the message whole does.
macro_rules! streamed_tests {
    ($($name:ident),* $(,)?) => {
        mod streamed {
            $(
                #[test]
                fn $name() {
                    super::stream_by(2);
                    super::$name(&$crate::common::dialects::PgDb::migrated());
                }
            )*
        }
    };
}

scenarios!(dialect_tests);
scenarios!(streamed_tests);

thread_local! {
    /// Flights per part when this test thread's messages are streamed;
    /// `None` reads them whole.
    static STREAM_PART: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// Streams this test thread's messages by parts of `flights` flights.
fn stream_by(flights: usize) {
    STREAM_PART.with(|part| part.set(Some(flights)));
}

thread_local! {
    /// Whether this test thread reads every message, however small, on two cores.
    static TWO_CORES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn settings() -> Rules {
    let part = STREAM_PART.with(std::cell::Cell::get);
    let two_cores = TWO_CORES.with(std::cell::Cell::get);
    Rules {
        parse: ParseOptions {
            second_reader_from_bytes: two_cores.then_some(0),
            ..common::sis::parse_options()
        },
        stream_from_bytes: if part.is_some() { 0 } else { usize::MAX },
        stream_part_flights: part.unwrap_or(flightstate::pipeline::STREAM_PART_FLIGHTS),
        ..Rules::default()
    }
}

fn now() -> NaiveDateTime {
    at(9, 12, 0)
}

#[track_caller]
fn apply<S: Store>(store: &S, message_id: i64, body: &[u8]) -> Applied {
    apply_message(store, &settings(), message_id, body, now()).expect("applied")
}

#[track_caller]
fn applied_snapshot<S: Store>(store: &S, message_id: i64, body: &[u8]) -> SnapshotReport {
    match apply(store, message_id, body) {
        Applied::Snapshot(report) => report,
        other => panic!("not a snapshot outcome: {other:?}"),
    }
}

fn load<S: Store>(store: &S, flids: &[i64]) -> HashMap<i64, StoredFlight> {
    store
        .transaction(|tx| tx.load_flights(flids))
        .expect("load flights")
}

fn proc_status<S: Store>(store: &S, message_id: i64) -> (ProcStatus, Option<String>) {
    let record = store
        .transaction(|tx| tx.proc_state(message_id))
        .expect("read PROC_STATE")
        .expect("a PROC_STATE row");
    (record.status, record.error_text)
}

fn a_flight_taken_over_by_the_next_day_is_not_deleted<D: ScenarioDb>(db: &D) {
    let store = db.store();
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
    assert_eq!(
        db.count(
            "kafka_schd",
            "flid = 2 AND event_kind = 'TOMBSTONE' AND message_id = 3"
        ),
        1
    );
    assert_eq!(
        db.count("kafka_schd", "flid = 3 AND event_kind = 'TOMBSTONE'"),
        0
    );
    // B's details went with it.
    assert_eq!(db.count("flight_gate", "flid = 2"), 0);
    assert_eq!(db.count("flight_route_point", "flid = 2"), 0);
    // The 9 Sep list is now A alone; C is on the 10 Sep list.
    assert_eq!(
        db.count("schd_gen_flid", "operation_day = DATE '2026-09-09'"),
        1
    );
    assert_eq!(
        db.count(
            "schd_gen_flid",
            "operation_day = DATE '2026-09-10' AND flid = 3"
        ),
        1
    );
}

fn replaying_the_latest_snapshot_changes_nothing<D: ScenarioDb>(db: &D) {
    let store = db.store();
    let body = snapshot(sep(9), vec![flight(1, at(9, 8, 0)), flight(2, at(9, 9, 0))]);
    applied_snapshot(&store, 10, &body);
    let before = db.dump();
    // The same message again (a retried commit, or a second look at the row):
    // recognised by its identity, not even parsed.
    assert_eq!(
        apply(&store, 10, &body),
        Applied::AlreadyProcessed {
            status: ProcStatus::Succeeded
        }
    );
    assert_eq!(db.dump(), before);
}

fn the_latest_snapshot_under_its_ledger_id_is_a_replay<D: ScenarioDb>(db: &D) {
    let store = db.store();
    let body = snapshot(sep(9), vec![flight(1, at(9, 8, 0))]);
    applied_snapshot(&store, 10, &body);
    // Forget the PROC_STATE row (as after a restore): the ledger alone must
    // recognise the day's latest message.
    db.execute("DELETE FROM proc_state");
    let flights_before = load(&store, &[1]);
    let report = applied_snapshot(&store, 10, &body);
    assert!(report.replay);
    assert_eq!(report.version, 1);
    assert_eq!(load(&store, &[1]), flights_before);
    assert_eq!(db.count("kafka_schd", "1 = 1"), 1);
    assert_eq!(proc_status(&store, 10).0, ProcStatus::Succeeded);
}

fn an_older_snapshot_is_applied_again<D: ScenarioDb>(db: &D) {
    // The seed's boundary (docs/snapshot-ledger.md): the ledger recognises
    // only the day's latest message; an older one is a new application.
    let store = db.store();
    let older = snapshot(sep(9), vec![flight(1, at(9, 8, 0)), flight(2, at(9, 9, 0))]);
    let newer = snapshot(sep(9), vec![flight(1, at(9, 8, 0))]);
    applied_snapshot(&store, 1, &older);
    applied_snapshot(&store, 2, &newer);
    db.execute("DELETE FROM proc_state WHERE message_id = 1");
    let report = applied_snapshot(&store, 1, &older);
    assert!(!report.replay);
    assert_eq!(report.version, 3);
    assert_eq!(report.created, 1);
    assert!(load(&store, &[2]).contains_key(&2));
}

fn bad_snapshots_are_dead_and_change_nothing<D: ScenarioDb>(db: &D) {
    let store = db.store();
    applied_snapshot(&store, 1, &snapshot(sep(9), vec![flight(1, at(9, 8, 0))]));
    let before = db.dump();
    let three_flights = snapshot(
        sep(9),
        vec![
            flight(1, at(9, 8, 0)),
            flight(2, at(9, 9, 0)),
            flight(3, at(9, 10, 0)),
        ],
    );
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
        // An FLTR that does not read, first and after others: streamed,
        // the FLTRs before it were read (and perhaps written) already.
        (
            8,
            broken_flid(&three_flights, 0),
            "bad value `X1` in MSG/SCHD/FLTR[1]/FLID",
        ),
        (
            9,
            broken_flid(&three_flights, 2),
            "bad value `X3` in MSG/SCHD/FLTR[3]/FLID",
        ),
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
    let after = db.dump();
    let without_proc = |dump: &str| {
        dump.lines()
            .filter(|l| !l.starts_with("proc_state"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(without_proc(&after), without_proc(&before));
    assert_eq!(db.count("proc_state", "status = 'DEAD'"), 8);
}

/// `body` with an `X` before the FLID of its FLTR number `n` (from 0).
fn broken_flid(body: &[u8], n: usize) -> Vec<u8> {
    let text = String::from_utf8(body.to_vec()).expect("a generated message is UTF-8");
    let at = text.match_indices("<FLID>").nth(n).expect("an FLID").0 + "<FLID>".len();
    format!("{}X{}", &text[..at], &text[at..]).into_bytes()
}

fn an_empty_snapshot_of_a_named_day_deletes_the_day<D: ScenarioDb>(db: &D) {
    let store = db.store();
    applied_snapshot(
        &store,
        1,
        &snapshot(sep(9), vec![flight(1, at(9, 8, 0)), flight(2, at(9, 9, 0))]),
    );
    let report = applied_snapshot(&store, 2, &snapshot(sep(9), vec![]));
    assert_eq!(report.deleted, vec![1, 2]);
    assert_eq!(report.version, 2);
    assert!(load(&store, &[1, 2]).is_empty());
    assert_eq!(db.count("schd_gen_flid", "1 = 1"), 0);
    assert_eq!(db.count("kafka_schd", "event_kind = 'TOMBSTONE'"), 2);
}

fn what_the_next_snapshot_lacks_is_cleared<D: ScenarioDb>(db: &D) {
    let store = db.store();
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

fn an_unchanged_snapshot_writes_no_flight_and_bumps_only_the_day<D: ScenarioDb>(db: &D) {
    let store = db.store();
    let flights = || vec![flight(1, at(9, 8, 0)), flight(2, at(9, 9, 0))];
    applied_snapshot(&store, 1, &snapshot(sep(9), flights()));
    let flight_tables = || {
        db.dump()
            .lines()
            .filter(|l| l.starts_with("flight_") || l.starts_with("kafka_schd"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let before = flight_tables();
    let report = applied_snapshot(&store, 2, &snapshot(sep(9), flights()));
    assert_eq!(
        (report.created, report.updated, report.unchanged),
        (0, 0, 2)
    );
    assert_eq!(report.version, 2);
    assert_eq!(flight_tables(), before);
}

fn every_column_and_collection_round_trips<D: ScenarioDb>(db: &D) {
    use flightstate::protocol::*;
    let store = db.store();
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

fn a_stale_version_bump_is_a_conflict<D: ScenarioDb>(db: &D) {
    let store = db.store();
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

fn concurrent_snapshots_of_one_day_get_consecutive_versions<D: ScenarioDb>(db: &D)
where
    D::Store: 'static,
{
    let store = Arc::new(db.store());
    let start = Arc::new(Barrier::new(4));
    let settings = settings();
    let handles: Vec<_> = (1..=4)
        .map(|id| {
            let store = Arc::clone(&store);
            let start = Arc::clone(&start);
            let settings = settings.clone();
            std::thread::spawn(move || {
                let body = snapshot(sep(9), vec![flight(id, at(9, 8, 0))]);
                start.wait();
                match apply_message(&*store, &settings, id, &body, now()) {
                    Ok(Applied::Snapshot(report)) => report.version,
                    other => panic!("not a snapshot outcome: {other:?}"),
                }
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

fn a_full_day_of_9999_flights_applies_in_one_transaction<D: ScenarioDb>(db: &D) -> SnapshotReport {
    let store = db.store();
    let flights: Vec<_> = (1..=9_999)
        .map(|flid| flight(flid, at(9, (flid % 24) as u32, (flid % 60) as u32)))
        .collect();
    let report = applied_snapshot(&store, 1, &snapshot(sep(9), flights));
    assert_eq!((report.flights, report.created), (9_999, 9_999));
    assert_eq!(
        db.count("flight_schd", "operation_day = DATE '2026-09-09'"),
        9_999
    );
    assert_eq!(db.count("flight_route_point", "1 = 1"), 19_998);
    assert_eq!(db.count("kafka_schd", "message_id = 1"), 9_999);
    report
}

/// The same messages, streamed by parts of two flights into one database
/// (each read on two cores) and read whole on one core into another, have
/// the same outcomes and leave the two databases equal row for row, event
/// for event: across parts (unchanged, changed, new and deleted flights),
/// when the first flight's day is not the snapshot's, and for every kind of
/// bad snapshot.
#[test]
fn a_streamed_day_leaves_what_a_day_read_whole_leaves() {
    let day_of_nine: Vec<_> = (1..=7)
        .map(|flid| flight(flid, at(9, 6 + flid as u32, 0)))
        .collect();
    let mut changed = day_of_nine.clone();
    changed.remove(4);
    changed[3].sodt = Field::Value(at(9, 21, 15));
    changed.push(flight(8, at(9, 22, 0)));
    let mut too_long = flight(41, at(9, 10, 0));
    too_long.reno = Field::Value("B".repeat(200));
    let messages: Vec<Vec<u8>> = vec![
        snapshot(sep(9), day_of_nine.clone()),
        snapshot(sep(9), changed.clone()),
        // 10 Sep takes flight 7 over.
        snapshot(
            sep(10),
            vec![flight(7, at(10, 0, 20)), flight(20, at(10, 8, 0))],
        ),
        // The first flight's day (10 Sep) is not the snapshot's (9 Sep).
        snapshot(
            sep(9),
            vec![
                flight(30, at(10, 0, 30)),
                flight(1, at(9, 7, 0)),
                flight(2, at(9, 8, 0)),
            ],
        ),
        snapshot(sep(9), changed.clone()),
        // Bad: a FLID in two parts; RECS short; a value too long in the
        // third part; several days and none named.
        snapshot(
            sep(9),
            vec![
                flight(1, at(9, 7, 0)),
                flight(2, at(9, 8, 0)),
                flight(3, at(9, 9, 0)),
                flight(1, at(9, 7, 0)),
            ],
        ),
        schedule_message(
            ScheduleSubtype::Dnld,
            Some(sep(9)),
            Field::Value(4),
            day_of_nine.clone(),
        ),
        snapshot(
            sep(9),
            vec![
                flight(1, at(9, 7, 0)),
                flight(2, at(9, 8, 0)),
                flight(3, at(9, 9, 0)),
                flight(4, at(9, 10, 0)),
                too_long,
            ],
        ),
        schedule_message(
            ScheduleSubtype::Dnld,
            None,
            Field::Value(2),
            vec![flight(50, at(9, 23, 0)), flight(51, at(10, 1, 0))],
        ),
        // A day read from its flights alone.
        schedule_message(
            ScheduleSubtype::Dnld,
            None,
            Field::Value(3),
            vec![
                flight(60, at(11, 7, 0)),
                flight(61, at(11, 8, 0)),
                flight(62, at(11, 9, 0)),
            ],
        ),
    ];
    let streamed = common::dialects::PgDb::migrated();
    let whole = common::dialects::PgDb::migrated();
    let mut dead = 0;
    let mut parts = Vec::new();
    for (id, body) in (1..).zip(&messages) {
        stream_by(2);
        TWO_CORES.with(|two| two.set(true));
        let mut by_parts = apply(&streamed.store(), id, body);
        if let Applied::Snapshot(report) = &mut by_parts {
            parts.push((id, std::mem::take(&mut report.streamed_parts)));
        }
        STREAM_PART.with(|part| part.set(None));
        TWO_CORES.with(|two| two.set(false));
        let read_whole = apply(&whole.store(), id, body);
        assert_eq!(by_parts, read_whole, "message {id}");
        dead += usize::from(matches!(read_whole, Applied::Dead { .. }));
    }
    assert_eq!(dead, 4);
    // Each valid snapshot went by parts; the one whose first flight is of
    // another day too, read again for its day.
    assert_eq!(parts, vec![(1, 4), (2, 4), (3, 2), (4, 2), (5, 4), (10, 2)]);
    assert_eq!(streamed.dump(), whole.dump());
}

/// One rule for a replay, whichever way the message is read: the day's
/// latest snapshot again, without its `PROC_STATE` row, is recognised by the
/// ledger in the streamed transaction itself (not rolled back and read
/// again whole), records SUCCEEDED and changes nothing else, and reports
/// what the same replay read whole reports.
#[test]
fn a_streamed_replay_is_recorded_as_one_read_whole_is() {
    let body = snapshot(
        sep(9),
        (1..=9)
            .map(|flid| flight(flid, at(9, 6 + flid as u32, 0)))
            .collect(),
    );
    let mut reports = Vec::new();
    for part in [Some(2), None] {
        STREAM_PART.with(|p| p.set(part));
        let db = common::dialects::PgDb::migrated();
        let store = db.store();
        applied_snapshot(&store, 10, &body);
        db.execute("DELETE FROM proc_state");
        let before = db.dump();
        let mut report = applied_snapshot(&store, 10, &body);
        assert!(report.replay);
        assert_eq!((report.version, report.unchanged), (1, 9));
        assert_eq!(proc_status(&store, 10).0, ProcStatus::Succeeded);
        let without_proc = |dump: &str| {
            dump.lines()
                .filter(|l| !l.starts_with("proc_state"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(without_proc(&db.dump()), without_proc(&before));
        let parts = std::mem::take(&mut report.streamed_parts);
        assert_eq!(
            parts > 0,
            part.is_some(),
            "decided on the path it was read by"
        );
        reports.push(report);
    }
    assert_eq!(reports[0], reports[1]);
}

/// The full day once per dialect (not in `dialect_tests!`: PostgreSQL adds a
/// check of its own on the same data).
mod full_day {
    use super::*;

    #[test]
    fn pg() {
        assert_eq!(full_day_on_pg().streamed_parts, 0);
    }

    /// Streamed by parts of the default size: parts of 250, 500 and 1,000
    /// flights, four of 2,000 and the last 249; one transaction.
    #[test]
    fn pg_streamed() {
        stream_by(flightstate::pipeline::STREAM_PART_FLIGHTS);
        assert_eq!(full_day_on_pg().streamed_parts, 8);
    }

    fn full_day_on_pg() -> SnapshotReport {
        let db = common::dialects::PgDb::migrated();
        let report = a_full_day_of_9999_flights_applies_in_one_transaction(&db);
        // Every row was written by the one transaction (PostgreSQL's xmin).
        assert_eq!(
            db.count(
                "flight_schd",
                "xmin::text::bigint = (SELECT min(xmin::text::bigint) FROM flight_schd)"
            ),
            9_999
        );
        report
    }

    #[test]
    #[ignore = "needs an Oracle 11g server: scripts/test runs it when FLIGHTSTATE_ORACLE_URL is set"]
    fn oracle() {
        #[cfg(feature = "oracle")]
        if let Some(db) = common::dialects::oracle() {
            a_full_day_of_9999_flights_applies_in_one_transaction(&db);
        }
        #[cfg(not(feature = "oracle"))]
        common::dialects::report_oracle_skipped();
    }
}

#[cfg(feature = "failpoints")]
mod injected {
    use super::*;
    use flightstate::failpoint::{self, Action};

    dialect_tests! {
        a_failure_after_the_deletes_rolls_everything_back,
        a_lost_version_race_is_rolled_back_and_retried,
    }

    /// The same faults on the streamed path: a failure of a valid snapshot
    /// is its own (FAILED, retried), a lost race is retried by parts.
    mod streamed {
        #[test]
        fn a_failure_after_the_deletes_rolls_everything_back() {
            crate::stream_by(2);
            super::a_failure_after_the_deletes_rolls_everything_back(
                &crate::common::dialects::PgDb::migrated(),
            );
        }

        /// The retry reads the message by parts again: it is not handed to
        /// the path that reads it whole.
        #[test]
        fn a_lost_version_race_is_rolled_back_and_retried() {
            crate::stream_by(2);
            let report = super::a_lost_version_race_is_rolled_back_and_retried(
                &crate::common::dialects::PgDb::migrated(),
            );
            assert_eq!(report.streamed_parts, 1);
        }
    }

    fn a_failure_after_the_deletes_rolls_everything_back<D: ScenarioDb>(db: &D) {
        let store = db.store();
        applied_snapshot(
            &store,
            1,
            &snapshot(sep(9), vec![flight(1, at(9, 8, 0)), flight(2, at(9, 9, 0))]),
        );
        let before = db.dump();
        let next = snapshot(
            sep(9),
            vec![flight(1, at(9, 8, 30)), flight(3, at(9, 10, 0))],
        );
        failpoint::arm("snapshot.after_deletes", Action::Error, 1);
        let fired = failpoint::fired("snapshot.after_deletes");
        let err = apply_message(&store, &settings(), 2, &next, now()).expect_err("injected");
        assert_eq!(
            failpoint::fired("snapshot.after_deletes"),
            fired + 1,
            "the fault was injected"
        );
        assert_eq!(err.kind(), FailureKind::Other);
        // Only the FAILED(INFRA) record of message 2 is new.
        let after = db.dump();
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

    fn a_lost_version_race_is_rolled_back_and_retried<D: ScenarioDb>(db: &D) -> SnapshotReport {
        let store = db.store();
        failpoint::arm("snapshot.before_bump", Action::Conflict, 2);
        let fired = failpoint::fired("snapshot.before_bump");
        let report = applied_snapshot(&store, 1, &snapshot(sep(9), vec![flight(1, at(9, 8, 0))]));
        assert_eq!(
            failpoint::fired("snapshot.before_bump"),
            fired + 2,
            "both lost races were injected"
        );
        assert_eq!(report.version, 1);
        // Two rolled-back attempts left nothing behind: one set of events.
        assert_eq!(db.count("kafka_schd", "1 = 1"), 1);
        assert_eq!(db.count("flight_schd", "1 = 1"), 1);
        report
    }
}
