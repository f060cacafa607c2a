//! The lifecycle clean-up (`flightstate cleanup`, docs/operations.md) against
//! real PostgreSQL and, for the tombstones, the tansu broker: exactly the
//! flights without an operation day past their retention go, each with a
//! tombstone on the state topic; a dry run changes nothing; removing an old
//! day's ledger never changes what a later snapshot of the day deletes; old
//! processing records and settled calls are purged by retention, and a
//! message delivered again after its record is purged is applied again.
//!
//! The scenarios that need no broker run on both dialects (`dialect_tests!`,
//! as `tests/event_dialects.rs`): `pg::<name>` on a fresh PostgreSQL database,
//! `oracle::<name>` on the schema of `FLIGHTSTATE_ORACLE_URL`.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/dispatching/mod.rs"]
mod dispatching;
#[path = "helpers/pumping/mod.rs"]
mod pumping;
#[path = "helpers/requesting/mod.rs"]
mod requesting;

use chrono::{NaiveDate, NaiveDateTime};
use common::TestDatabase;
use common::dialects::{PgDb, ScenarioDb};
use common::sis::{
    at, dump_database, flight, flop, parse_options, schedule_message, sep, snapshot,
};
use diesel::sql_types::{BigInt, Date, Nullable, Text};
use diesel::{PgConnection, QueryableByName, RunQueryDsl};
use dispatching::{drain, read_all, tansu, tansu_dispatcher};
use flightstate::cleanup::{CleanupReport, CleanupSettings, clean_up};
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::protocol::{Field, ScheduleSubtype};
use flightstate::store::pg::PgStore;
use flightstate::store::{CallStatus, JournalOps, NewCall, ProcStatus, Store, StoreError};
use requesting::{register, request_settings};

dialect_tests! {
    a_later_snapshot_of_a_day_whose_ledger_was_removed_deletes_what_it_must,
    old_processing_records_and_settled_calls_are_purged_and_a_message_delivered_again_is_applied_again,
    a_clean_up_told_to_stop_keeps_the_batches_it_did_and_the_next_one_goes_on,
}

fn settings() -> Rules {
    Rules {
        parse: parse_options(),
        ..Rules::default()
    }
}

/// When the tests clean up: long after September's messages.
fn clean_now() -> NaiveDateTime {
    NaiveDate::from_ymd_opt(2026, 12, 1)
        .and_then(|d| d.and_hms_opt(12, 0, 0))
        .expect("valid")
}

/// Default retentions, in batches of two so that every part takes several.
fn cleanup_settings() -> CleanupSettings {
    CleanupSettings {
        batch: 2,
        ..CleanupSettings::default()
    }
}

#[track_caller]
fn apply<S: Store>(store: &S, message_id: i64, body: &[u8], now: NaiveDateTime) -> Applied {
    let applied = apply_message(store, &settings(), message_id, body, now).expect("applied");
    assert!(
        matches!(applied, Applied::Snapshot(_) | Applied::Flights(_)),
        "message {message_id}: {applied:?}"
    );
    applied
}

#[track_caller]
fn cleanup<S: Store>(store: &S, dry_run: bool) -> CleanupReport {
    let mut batches = Vec::new();
    let report = clean_up(
        store,
        &cleanup_settings(),
        clean_now(),
        dry_run,
        &mut |part, rows| {
            batches.push((part, rows));
            true
        },
    )
    .expect("clean-up");
    // Batches of two at most, and together the report.
    assert!(batches.iter().all(|(_, rows)| *rows <= 2), "{batches:?}");
    assert_eq!(
        batches.iter().map(|(_, rows)| rows).sum::<usize>(),
        report.total()
    );
    report
}

#[derive(QueryableByName, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct FlightDay {
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = Nullable<Date>)]
    operation_day: Option<NaiveDate>,
}

fn flights(conn: &mut PgConnection) -> Vec<(i64, Option<NaiveDate>)> {
    diesel::sql_query("SELECT flid, operation_day FROM flight_schd ORDER BY flid")
        .load::<FlightDay>(conn)
        .expect("flights")
        .into_iter()
        .map(|f| (f.flid, f.operation_day))
        .collect()
}

#[derive(QueryableByName, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Event {
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = BigInt)]
    state_version: i64,
    #[diesel(sql_type = Text)]
    event_kind: String,
}

/// Every state event, in the order registered.
fn events(conn: &mut PgConnection) -> Vec<(i64, i64, String)> {
    diesel::sql_query("SELECT flid, state_version, event_kind FROM kafka_schd ORDER BY event_id")
        .load::<Event>(conn)
        .expect("events")
        .into_iter()
        .map(|e| (e.flid, e.state_version, e.event_kind))
        .collect()
}

#[test]
fn cleanup_removes_exactly_the_stale_flights_without_a_day_each_with_a_tombstone_on_the_topic() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let mut conn = db.connect();
    let september = at(10, 8, 0);
    // Flights 1 and 2 belong to 9 September's snapshot.
    apply(
        &store,
        1,
        &snapshot(sep(9), vec![flight(1, at(9, 8, 0)), flight(2, at(9, 9, 0))]),
        at(9, 12, 0),
    );
    // 101 to 103: created by events, never given a day, unchanged since.
    apply(
        &store,
        2,
        &flop(
            "RENO",
            &[
                (101, "<RENO>B101</RENO>"),
                (102, "<RENO>B102</RENO>"),
                (103, "<RENO>B103</RENO>"),
            ],
        ),
        september,
    );
    // 106: an ad-hoc flight of 20 September, a day a live request asks for.
    let adft = schedule_message(
        ScheduleSubtype::Adft,
        None,
        Field::Value(1),
        vec![flight(106, at(20, 10, 0))],
    );
    apply(&store, 3, &adft, september);
    register(&store, &request_settings(), sep(20));
    // 104: without a day, but changed yesterday.
    apply(
        &store,
        4,
        &flop("RENO", &[(104, "<RENO>B104</RENO>")]),
        clean_now() - chrono::TimeDelta::days(1),
    );
    // 2: listed by 9 September's snapshot; whatever its day column says, a
    // flight a snapshot list names is that day's to delete.
    diesel::sql_query("UPDATE flight_schd SET operation_day = NULL WHERE flid = 2")
        .execute(&mut conn)
        .expect("flight 2 without a day");
    let (mut dispatcher, (state_topic, _)) = tansu_dispatcher(store.clone(), "cleanup");
    drain(&mut dispatcher);

    let before = dump_database(&mut conn);
    let dry = cleanup(&store, true);
    assert!(dry.dry_run);
    assert_eq!(dry.flights, vec![101, 102, 103]);
    assert_eq!(
        dump_database(&mut conn),
        before,
        "a dry run changed something"
    );

    let report = cleanup(&store, false);
    assert!(!report.dry_run);
    assert_eq!(report.flights, vec![101, 102, 103]);
    assert_eq!(
        flights(&mut conn),
        vec![(1, Some(sep(9))), (2, None), (104, None), (106, None)]
    );
    for flid in [101, 102, 103] {
        for table in ["flight_route_point", "flight_gate"] {
            assert_eq!(
                common::sis::count(&mut conn, table, &format!("flid = {flid}")),
                0,
                "{table} keeps rows of {flid}"
            );
        }
    }
    // Each went with a tombstone one above its last version, as an FDEL's.
    let tombstones: Vec<(i64, i64, String)> = events(&mut conn)
        .into_iter()
        .filter(|e| e.2 == "TOMBSTONE")
        .collect();
    assert_eq!(
        tombstones,
        vec![
            (101, 2, "TOMBSTONE".to_owned()),
            (102, 2, "TOMBSTONE".to_owned()),
            (103, 2, "TOMBSTONE".to_owned()),
        ]
    );
    let sent = drain(&mut dispatcher);
    assert_eq!(sent.state.sent, 3, "{sent:?}");
    assert_eq!(sent.change.sent, 3, "{sent:?}");
    let records = read_all(&tansu(), &state_topic);
    for flid in [101, 102, 103] {
        let last = records
            .iter()
            .rev()
            .find(|r| r.key.as_deref() == Some(flid.to_string().as_str()))
            .map(dispatching::Record::json)
            .unwrap_or_else(|| panic!("nothing on the topic for {flid}"));
        assert_eq!(last["DELETED"], serde_json::json!(true), "{last}");
        assert_eq!(last["STATE_VERSION"], serde_json::json!(2), "{last}");
    }
    for kept in [1, 2, 104, 106] {
        let record = records
            .iter()
            .rev()
            .find(|r| r.key.as_deref() == Some(kept.to_string().as_str()))
            .map(dispatching::Record::json)
            .unwrap_or_else(|| panic!("nothing on the topic for {kept}"));
        assert!(record.get("DELETED").is_none(), "{kept}: {record}");
    }

    // Nothing is left to remove; a flight created again under a removed
    // FLID continues above its tombstone.
    assert!(cleanup(&store, false).flights.is_empty());
    apply(
        &store,
        5,
        &flop("RENO", &[(101, "<RENO>B9</RENO>")]),
        clean_now(),
    );
    assert_eq!(
        common::sis::count(&mut conn, "flight_schd", "flid = 101 AND state_version = 3"),
        1
    );
}

/// The messages of the ledger scenario, before and after the clean-up.
fn ledger_history() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let before = vec![
        snapshot(
            sep(1),
            vec![
                flight(1, at(1, 8, 0)),
                flight(2, at(1, 9, 0)),
                flight(3, at(1, 10, 0)),
            ],
        ),
        // Flights 2 and 3 move forward to 2 September.
        snapshot(
            sep(2),
            vec![
                flight(2, at(2, 9, 0)),
                flight(3, at(2, 10, 0)),
                flight(4, at(2, 11, 0)),
            ],
        ),
        // 1 September's last flight is deleted: the day has none left.
        flop("FDEL", &[(1, "<FDEL/>")]),
    ];
    let after = vec![
        // 2 stays with 2 September (operation days move forward only); 5 is new.
        snapshot(sep(1), vec![flight(5, at(1, 7, 0)), flight(2, at(1, 9, 0))]),
        // 5 is absent now: the day's delete must find it.
        snapshot(sep(1), vec![flight(2, at(1, 9, 0))]),
        // 3 and 4 are absent from 2 September, whose ledger was kept.
        snapshot(sep(2), vec![flight(2, at(2, 9, 0))]),
    ];
    (before, after)
}

/// Applies the ledger scenario's messages, with or without a clean-up
/// between its two halves, and checks what the later snapshots deleted:
/// the same either way.
fn ledger_scenario<D: ScenarioDb>(db: &D, clean: bool) {
    let (before, after) = ledger_history();
    let store = db.store();
    let mut id = 0;
    for body in &before {
        id += 1;
        apply(&store, id, body, at(3, 12, 0));
    }
    let ledger = |day: &str| db.count("schd_gen", &format!("operation_day = DATE '{day}'"));
    let listed = |day: &str| db.count("schd_gen_flid", &format!("operation_day = DATE '{day}'"));
    if clean {
        let dry = cleanup(&store, true);
        assert_eq!(dry.days, vec![sep(1)]);
        assert_eq!(ledger("2026-09-01"), 1);
        let report = cleanup(&store, false);
        // 1 September has no flight left: its ledger and list go. 2
        // September still has flights: a later snapshot needs its list.
        assert_eq!(report.days, vec![sep(1)]);
        assert_eq!((ledger("2026-09-01"), listed("2026-09-01")), (0, 0));
        assert_eq!((ledger("2026-09-02"), listed("2026-09-02")), (1, 3));
    }
    for body in &after {
        id += 1;
        apply(&store, id, body, clean_now());
    }
    assert_eq!(db.count("flight_schd", "1 = 1"), 1, "{}", db.dump());
    assert_eq!(
        db.count(
            "flight_schd",
            "flid = 2 AND operation_day = DATE '2026-09-02'"
        ),
        1
    );
    // 1 by its FDEL, 5 by 1 September's later snapshot, 3 and 4 by 2
    // September's: each once.
    assert_eq!(db.count("kafka_schd", "event_kind = 'TOMBSTONE'"), 4);
    for flid in [1, 5, 3, 4] {
        assert_eq!(
            db.count(
                "kafka_schd",
                &format!("flid = {flid} AND event_kind = 'TOMBSTONE'")
            ),
            1,
            "{flid}"
        );
    }
}

fn a_later_snapshot_of_a_day_whose_ledger_was_removed_deletes_what_it_must<D: ScenarioDb>(db: &D) {
    ledger_scenario(db, true);
}

/// The same snapshots without the clean-up delete the same flights: the
/// clean-up changed nothing that the day's snapshots decide.
#[test]
fn without_the_clean_up_the_same_snapshots_delete_the_same_flights() {
    ledger_scenario(&PgDb::migrated(), false);
}

/// Journals a call (kind BACKFILL) to `target` and takes it to `status`,
/// last changed at `at`, as the effect worker would.
fn journal_call<S: Store>(store: &S, n: u32, target: &str, status: CallStatus, at: NaiveDateTime) {
    let key = format!("{n:064x}");
    let digest = format!("{:064x}", n + 1_000);
    let sub_key = format!("call:{n}");
    let call = NewCall {
        idempotency_key: &key,
        scope: "mailbox",
        step: "write-back",
        sub_key: &sub_key,
        call_kind: "BACKFILL",
        target,
        payload: "PROCESSED",
        payload_digest: &digest,
        deadline_at: None,
    };
    store
        .transaction(|tx| {
            let id = tx.insert_effect_intent(&call, at)?.expect("a new intent");
            let grant = tx
                .grant_effect_calls(&[(id, 0)], 0, at)?
                .pop()
                .expect("granted");
            if status != CallStatus::Dispatched {
                assert!(tx.record_effect_receipt(id, &grant.send_token, status, None, at)?);
            }
            Ok::<_, StoreError>(())
        })
        .expect("journal a call");
}

fn old_processing_records_and_settled_calls_are_purged_and_a_message_delivered_again_is_applied_again<
    D: ScenarioDb,
>(
    db: &D,
) {
    let store = db.store();
    let old = at(10, 8, 0);
    let recent = clean_now() - chrono::TimeDelta::days(2);
    let create = flop("RENO", &[(900, "<RENO>B900</RENO>")]);
    let delete = flop("FDEL", &[(900, "<FDEL/>")]);
    // Messages 1 to 4: SUCCEEDED long ago; 5: SUCCEEDED recently.
    apply(&store, 1, &create, old);
    apply(&store, 2, &delete, old);
    for id in [3, 4] {
        apply(&store, id, &flop("RENO", &[(id, "<RENO>B1</RENO>")]), old);
    }
    apply(&store, 5, &flop("RENO", &[(5, "<RENO>B1</RENO>")]), recent);
    // 6: DEAD long ago (an operator's business); 7: FAILED, being retried.
    assert!(matches!(
        apply_message(&store, &settings(), 6, b"<MSG>", old).expect("recorded"),
        Applied::Dead { .. }
    ));
    db.execute(
        "INSERT INTO proc_state (message_id, identity_key, status, error_kind, attempts, \
         first_seen_at, updated_at) VALUES (7, 'key-7', 'FAILED', 'INFRA', 3, \
         TIMESTAMP '2026-09-10 08:00:00', TIMESTAMP '2026-09-10 08:00:00')",
    );
    // Write-backs: 1 and 2 settled long ago, 3 still open, 4 settled
    // recently; and a request's call settled long ago.
    journal_call(&store, 1, "cminmsgs:1", CallStatus::Accepted, old);
    journal_call(&store, 2, "cminmsgs:2", CallStatus::Rejected, old);
    journal_call(&store, 3, "cminmsgs:3", CallStatus::Unknown, old);
    journal_call(&store, 4, "cminmsgs:4", CallStatus::Accepted, recent);
    journal_call(&store, 5, "coutmsgs:VIEWRQFD", CallStatus::Accepted, old);
    // A message seen again before the purge is not applied again.
    assert!(matches!(
        apply_message(&store, &settings(), 1, &create, old).expect("seen"),
        Applied::AlreadyProcessed {
            status: ProcStatus::Succeeded
        }
    ));

    let before = db.dump();
    let dry = cleanup(&store, true);
    assert_eq!((dry.effect_calls, dry.proc_states), (3, 2));
    assert_eq!(db.dump(), before);
    assert_eq!(db.count("effect_call", "1 = 1"), 5);

    let report = cleanup(&store, false);
    assert_eq!((report.effect_calls, report.proc_states), (3, 2));
    assert_eq!(db.count("proc_state", "message_id IN (1, 2)"), 0);
    assert_eq!(db.count("proc_state", "message_id IN (3, 4, 5, 6, 7)"), 5);
    assert_eq!(db.count("effect_call", "1 = 1"), 2);
    assert_eq!(
        db.count("effect_call", "target IN ('cminmsgs:3', 'cminmsgs:4')"),
        2
    );

    // The documented consequence: message 1, delivered again after its
    // record was purged, is applied again and creates flight 900 anew.
    assert_eq!(db.count("flight_schd", "flid = 900"), 0);
    apply(&store, 1, &create, clean_now());
    assert_eq!(db.count("flight_schd", "flid = 900"), 1);
}

fn a_clean_up_told_to_stop_keeps_the_batches_it_did_and_the_next_one_goes_on<D: ScenarioDb>(
    db: &D,
) {
    let store = db.store();
    let bodies: Vec<(i64, &str)> = (1..=5).map(|flid| (flid, "<RENO>B1</RENO>")).collect();
    apply(&store, 1, &flop("RENO", &bodies), at(10, 8, 0));
    let stopped = clean_up(
        &store,
        &cleanup_settings(),
        clean_now(),
        false,
        &mut |_, _| false,
    )
    .expect("clean-up");
    assert_eq!(stopped.flights, vec![1, 2]);
    assert_eq!(db.count("flight_schd", "flid IN (3, 4, 5)"), 3);
    assert_eq!(db.count("flight_schd", "1 = 1"), 3);
    assert_eq!(cleanup(&store, false).flights, vec![3, 4, 5]);
    assert_eq!(db.count("flight_schd", "1 = 1"), 0);
}
