//! Flight events (FLOP), ad-hoc flights (SCHD ADFT) and deletion lists
//! (SCHD DEL) applied to a real state database: versions bump once per
//! effective message and never for a no-op, days are kept, collections
//! merge as the site says, and only the detail tables that changed are
//! rewritten.
//!
//! One scenario suite for both dialects, as `tests/snapshot_dialects.rs`: each
//! scenario is a generic fn over `ScenarioDb`, run as `pg::<name>` on a fresh
//! PostgreSQL database and as `oracle::<name>` on the schema of
//! `FLIGHTSTATE_ORACLE_URL` (skipped, with one plain line, without it). The
//! check that reads PostgreSQL's system column `xmin` stays PostgreSQL-only.
#![cfg(feature = "postgres")]

mod common;

use std::collections::HashMap;

use chrono::{NaiveDate, NaiveDateTime};
use common::TestDatabase;
use common::dialects::ScenarioDb;
use common::sis::{at, flight, flop, schedule_message, sep, snapshot};
use diesel::sql_types::BigInt;
use diesel::{PgConnection, QueryableByName, RunQueryDsl};
use flightstate::pipeline::{Applied, EventReport, Rules, apply_message};
use flightstate::protocol::{Field, FlightRecord, ScheduleSubtype};
use flightstate::state::{AbsentFields, Semantics, StoredFlight};
use flightstate::store::pg::PgStore;
use flightstate::store::{ProcStatus, StateTx, Store};

dialect_tests! {
    the_version_bumps_once_per_effective_event_and_a_no_op_writes_nothing,
    an_unknown_flight_is_created_without_a_day_until_a_snapshot_names_it,
    fdel_deletes_with_a_tombstone_and_a_later_flop_recreates,
    a_same_day_snapshot_after_events_overwrites_what_it_carries_and_clears_the_rest,
    delays_merge_by_code_and_an_empty_delay_clears_them,
    the_route_merges_by_rtno_and_gates_are_replaced,
    a_site_that_merges_gates_keeps_the_ones_not_sent,
    adft_clears_absent_fields_by_default_and_keeps_them_when_configured,
    adft_never_bumps_the_snapshot_version_nor_deletes_and_a_new_flight_has_no_day,
    schd_del_deletes_the_listed_flights_with_tombstones,
    unsupported_and_invalid_events_change_nothing,
}

fn settings() -> Rules {
    Rules {
        parse: common::sis::parse_options(),
        ..Rules::default()
    }
}

fn now() -> NaiveDateTime {
    at(9, 12, 0)
}

fn store(db: &TestDatabase) -> PgStore {
    PgStore::from_pool(db.pool())
}

#[track_caller]
fn apply_with<S: Store>(store: &S, settings: &Rules, message_id: i64, body: &[u8]) -> Applied {
    apply_message(store, settings, message_id, body, now()).expect("applied")
}

#[track_caller]
fn apply<S: Store>(store: &S, message_id: i64, body: &[u8]) -> Applied {
    apply_with(store, &settings(), message_id, body)
}

#[track_caller]
fn applied_event<S: Store>(store: &S, message_id: i64, body: &[u8]) -> EventReport {
    match apply(store, message_id, body) {
        Applied::Flights(report) => report,
        other => panic!("not an event outcome: {other:?}"),
    }
}

fn load<S: Store>(store: &S, flids: &[i64]) -> HashMap<i64, StoredFlight> {
    store
        .transaction(|tx| tx.load_flights(flids))
        .expect("load flights")
}

#[track_caller]
fn one<S: Store>(store: &S, flid: i64) -> StoredFlight {
    load(store, &[flid])
        .remove(&flid)
        .unwrap_or_else(|| panic!("flight {flid} is stored"))
}

fn status<S: Store>(store: &S, message_id: i64) -> ProcStatus {
    store
        .transaction(|tx| tx.proc_state(message_id))
        .expect("read PROC_STATE")
        .expect("a PROC_STATE row")
        .status
}

/// A day of September 2026 with one departure per FLID.
fn day_with(day: u32, flids: &[i64]) -> Vec<u8> {
    snapshot(
        sep(day),
        flids.iter().map(|f| flight(*f, at(day, 8, 0))).collect(),
    )
}

#[derive(QueryableByName)]
struct Xmin {
    #[diesel(sql_type = BigInt)]
    x: i64,
}

/// The transaction ids that wrote `table`'s rows of `flid`.
fn writers(conn: &mut PgConnection, table: &str, flid: i64) -> Vec<i64> {
    // Test-only SQL: the table name is a constant of the calling test.
    diesel::sql_query(format!(
        "SELECT xmin::text::bigint AS x FROM {table} WHERE flid = $1 ORDER BY ordinal"
    ))
    .bind::<BigInt, _>(flid)
    .load::<Xmin>(conn)
    .expect("read xmin")
    .into_iter()
    .map(|r| r.x)
    .collect()
}

fn the_version_bumps_once_per_effective_event_and_a_no_op_writes_nothing<D: ScenarioDb>(db: &D) {
    let store = db.store();
    apply(&store, 1, &day_with(9, &[1]));
    assert_eq!(one(&store, 1).state_version, 1);

    let report = applied_event(&store, 2, &flop("RENO", &[(1, "<RENO>B9</RENO>")]));
    assert_eq!(report.updated, vec![1]);
    let stored = one(&store, 1);
    assert_eq!(stored.state_version, 2);
    assert_eq!(stored.operation_day, Some(sep(9)));
    assert_eq!(stored.last_message_id, 2);

    let before = db.dump();
    let report = applied_event(&store, 3, &flop("RENO", &[(1, "<RENO>B9</RENO>")]));
    assert_eq!(report.unchanged, vec![1]);
    assert_eq!(status(&store, 3), ProcStatus::Succeeded);
    assert_eq!(one(&store, 1).state_version, 2);
    assert_eq!(db.count("kafka_schd", "message_id = 3"), 0);
    assert_eq!(db.count("kafka_msg", "message_id = 3"), 0);
    // Only PROC_STATE gained a row.
    let after = db.dump();
    let differing: Vec<_> = before
        .lines()
        .zip(after.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, _)| a.split(':').next().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(differing, vec!["proc_state"]);

    // Two bodies for the flight in one message: one version, the later wins.
    let report = applied_event(
        &store,
        4,
        &flop("RENO", &[(1, "<RENO>B7</RENO>"), (1, "<RENO>B8</RENO>")]),
    );
    assert_eq!(report.updated, vec![1]);
    let stored = one(&store, 1);
    assert_eq!(stored.state_version, 3);
    assert_eq!(stored.state.fields.reno.as_deref(), Some("B8"));
    assert_eq!(
        db.count("kafka_schd", "message_id = 4 AND state_version = 3"),
        1
    );
    assert_eq!(db.count("kafka_msg", "message_id = 4"), 1);
}

fn an_unknown_flight_is_created_without_a_day_until_a_snapshot_names_it<D: ScenarioDb>(db: &D) {
    let store = db.store();
    let report = applied_event(
        &store,
        1,
        &flop("TOBT", &[(50, "<TOBT>09SEP260750</TOBT>")]),
    );
    assert_eq!(report.created, vec![50]);
    let stored = one(&store, 50);
    assert_eq!((stored.operation_day, stored.state_version), (None, 1));
    assert_eq!(stored.state.fields.tobt, Some(at(9, 7, 50)));
    assert_eq!(
        db.count("kafka_msg", "flid = 50 AND change_kind = 'CREATED'"),
        1
    );

    apply(&store, 2, &day_with(9, &[50]));
    let stored = one(&store, 50);
    assert_eq!(
        (stored.operation_day, stored.state_version),
        (Some(sep(9)), 2)
    );
    // The snapshot carries no TOBT: it cleared it.
    assert_eq!(stored.state.fields.tobt, None);
}

fn fdel_deletes_with_a_tombstone_and_a_later_flop_recreates<D: ScenarioDb>(db: &D) {
    let store = db.store();
    apply(&store, 1, &day_with(9, &[1, 2]));
    applied_event(&store, 2, &flop("RENO", &[(1, "<RENO>B9</RENO>")]));
    let report = applied_event(&store, 3, &flop("FDEL", &[(1, "<FDEL></FDEL>")]));
    assert_eq!(report.deleted, vec![1]);
    assert!(load(&store, &[1]).is_empty());
    assert_eq!(
        db.count(
            "kafka_schd",
            "flid = 1 AND event_kind = 'TOMBSTONE' AND state_version = 3 AND message_id = 3"
        ),
        1
    );
    for table in ["flight_gate", "flight_route_point"] {
        assert_eq!(db.count(table, "flid = 1"), 0, "{table}");
    }
    // The other flight is untouched.
    assert_eq!(one(&store, 2).state_version, 1);
    // Deleting it again changes nothing.
    let report = applied_event(&store, 4, &flop("FDEL", &[(1, "<FDEL/>")]));
    assert_eq!(report.unchanged, vec![1]);

    let report = applied_event(&store, 5, &flop("RENO", &[(1, "<RENO>B1</RENO>")]));
    assert_eq!(report.created, vec![1]);
    let stored = one(&store, 1);
    // It continues above its tombstone (version 3), so that consumers
    // ordering by (FLID, STATE_VERSION) see it after the deletion.
    assert_eq!((stored.operation_day, stored.state_version), (None, 4));
    assert_eq!(stored.state.fields.reno.as_deref(), Some("B1"));
    assert_eq!(stored.state.fields.alcd, None);
    assert_eq!(db.count("flight_gate", "flid = 1"), 0);
}

fn a_same_day_snapshot_after_events_overwrites_what_it_carries_and_clears_the_rest<
    D: ScenarioDb,
>(
    db: &D,
) {
    let store = db.store();
    let day = day_with(9, &[1]);
    apply(&store, 1, &day);
    let original = one(&store, 1).state;
    applied_event(&store, 2, &flop("CTOT", &[(1, "<CTOT>09SEP260830</CTOT>")]));
    applied_event(&store, 3, &flop("RENO", &[(1, "<RENO>B9</RENO>")]));
    applied_event(
        &store,
        4,
        &flop(
            "DELY",
            &[(1, "<DELY CODE=\"93\" DURA=\"0015\">late crew</DELY>")],
        ),
    );
    applied_event(
        &store,
        5,
        &flop(
            "PSHT",
            &[(
                1,
                "<PSHT PSHN=\"1\"><PSTM>09SEP260805</PSTM><PUST>504</PUST></PSHT>",
            )],
        ),
    );
    let before = one(&store, 1);
    assert_eq!(before.state_version, 5);
    assert_eq!(before.state.delays.len(), 1);
    assert_eq!(before.state.stands.len(), 1);

    // The same day's schedule again (another message): the flight is exactly
    // the record once more.
    apply(&store, 6, &day);
    let after = one(&store, 1);
    assert_eq!(after.state, original);
    assert_eq!(after.state_version, 6);
    assert_eq!(after.operation_day, Some(sep(9)));
}

fn delays_merge_by_code_and_an_empty_delay_clears_them<D: ScenarioDb>(db: &D) {
    let store = db.store();
    apply(&store, 1, &day_with(9, &[1]));
    applied_event(
        &store,
        2,
        &flop(
            "DELY",
            &[(
                1,
                "<DELY CODE=\"93\" DURA=\"0015\">crew</DELY><DELY CODE=\"81\" DURA=\"0100\"></DELY>",
            )],
        ),
    );
    applied_event(
        &store,
        3,
        &flop(
            "DELY",
            &[(
                1,
                "<DELY CODE=\"81\" DURA=\"0200\">atc</DELY><DELY CODE=\"11\"></DELY>",
            )],
        ),
    );
    let delays: Vec<_> = one(&store, 1)
        .state
        .delays
        .into_iter()
        .map(|d| (d.dely_code.unwrap_or_default(), d.dely_dura, d.dely))
        .collect();
    assert_eq!(
        delays,
        vec![
            ("93".to_owned(), Some(15), Some("crew".to_owned())),
            ("81".to_owned(), Some(120), Some("atc".to_owned())),
            ("11".to_owned(), None, None),
        ]
    );
    applied_event(&store, 4, &flop("DELY", &[(1, "<DELY></DELY>")]));
    assert!(one(&store, 1).state.delays.is_empty());
    assert_eq!(db.count("flight_delay", "flid = 1"), 0);
}

fn the_route_merges_by_rtno_and_gates_are_replaced<D: ScenarioDb>(db: &D) {
    let store = db.store();
    apply(&store, 1, &day_with(9, &[1]));
    applied_event(
        &store,
        2,
        &flop(
            "ERUT",
            &[(
                1,
                "<ERUT RTNO=\"2\"><APCD>SHA</APCD></ERUT><ERUT RTNO=\"3\"><APCD>HRB</APCD></ERUT>",
            )],
        ),
    );
    let route: Vec<_> = one(&store, 1)
        .state
        .entire_route
        .into_iter()
        .map(|r| (r.source_seq, r.apcd.unwrap_or_default()))
        .collect();
    assert_eq!(
        route,
        vec![
            (Some(1), "CTU".to_owned()),
            (Some(2), "SHA".to_owned()),
            (Some(3), "HRB".to_owned()),
        ]
    );

    applied_event(
        &store,
        3,
        &flop("GTDT", &[(1, "<GTDT GTNO=\"2\"><GATE>G7</GATE></GTDT>")]),
    );
    let gates: Vec<_> = one(&store, 1)
        .state
        .gates
        .into_iter()
        .map(|g| (g.source_seq, g.gate.unwrap_or_default()))
        .collect();
    assert_eq!(gates, vec![(Some(2), "G7".to_owned())]);
}

fn a_site_that_merges_gates_keeps_the_ones_not_sent<D: ScenarioDb>(db: &D) {
    let store = db.store();
    apply(&store, 1, &day_with(9, &[1]));
    let mut merging = settings();
    merging.merge.collections.gtdt = Semantics::MergeByKey;
    let message = flop("GTDT", &[(1, "<GTDT GTNO=\"2\"><GATE>G7</GATE></GTDT>")]);
    apply_with(&store, &merging, 2, &message);
    let gates: Vec<_> = one(&store, 1)
        .state
        .gates
        .into_iter()
        .map(|g| (g.source_seq, g.gate.unwrap_or_default()))
        .collect();
    assert_eq!(
        gates,
        vec![(Some(1), "G1".to_owned()), (Some(2), "G7".to_owned())]
    );
    // Merging needs the key: an entry without GTNO is DEAD and changes nothing.
    let before = db.dump();
    let got = apply_with(
        &store,
        &merging,
        3,
        &flop("GTDT", &[(1, "<GTDT><GATE>G9</GATE></GTDT>")]),
    );
    match got {
        Applied::Dead { reason } => assert!(reason.contains("has no GTNO"), "{reason}"),
        other => panic!("not dead: {other:?}"),
    }
    let after = db.dump();
    assert_eq!(
        before
            .lines()
            .filter(|l| !l.starts_with("proc_state"))
            .collect::<Vec<_>>(),
        after
            .lines()
            .filter(|l| !l.starts_with("proc_state"))
            .collect::<Vec<_>>()
    );
}

/// PostgreSQL only: which transaction wrote a row is read from its system column `xmin`;
/// Oracle has no per-row writer id to compare.
#[test]
fn only_the_detail_tables_that_changed_are_rewritten() {
    let db = TestDatabase::migrated();
    let store = store(&db);
    apply(&store, 1, &day_with(9, &[1, 2]));
    let mut conn = db.connect();
    let gates = writers(&mut conn, "flight_gate", 1);
    let route = writers(&mut conn, "flight_route_point", 1);
    let main = writers_of_main(&mut conn, 1);
    assert_eq!(gates.len(), 1);

    applied_event(
        &store,
        2,
        &flop("DELY", &[(1, "<DELY CODE=\"93\"></DELY>")]),
    );
    // The delay rows and the main row were written by the event's
    // transaction; the gate and route rows are the snapshot's still.
    assert_eq!(writers(&mut conn, "flight_gate", 1), gates);
    assert_eq!(writers(&mut conn, "flight_route_point", 1), route);
    let delay = writers(&mut conn, "flight_delay", 1);
    assert_eq!(delay.len(), 1);
    assert_ne!(delay, gates);
    assert_eq!(writers_of_main(&mut conn, 1), delay);
    assert_ne!(main, delay);
    // The other flight was not touched at all.
    assert_eq!(writers_of_main(&mut conn, 2), main);

    // A scalar event rewrites the main row only.
    applied_event(&store, 3, &flop("RENO", &[(1, "<RENO>B9</RENO>")]));
    assert_eq!(writers(&mut conn, "flight_delay", 1), delay);
    assert_eq!(writers(&mut conn, "flight_gate", 1), gates);
    assert_ne!(writers_of_main(&mut conn, 1), delay);
}

fn writers_of_main(conn: &mut PgConnection, flid: i64) -> Vec<i64> {
    diesel::sql_query("SELECT xmin::text::bigint AS x FROM flight_schd WHERE flid = $1")
        .bind::<BigInt, _>(flid)
        .load::<Xmin>(conn)
        .expect("read xmin")
        .into_iter()
        .map(|r| r.x)
        .collect()
}

fn adft(flights: Vec<FlightRecord>) -> Vec<u8> {
    let recs = Field::Value(u32::try_from(flights.len()).expect("test size"));
    schedule_message(ScheduleSubtype::Adft, None, recs, flights)
}

fn adft_clears_absent_fields_by_default_and_keeps_them_when_configured<D: ScenarioDb>(db: &D) {
    let store = db.store();
    apply(&store, 1, &day_with(9, &[1]));
    applied_event(&store, 2, &flop("CTOT", &[(1, "<CTOT>09SEP260830</CTOT>")]));
    applied_event(
        &store,
        3,
        &flop("DELY", &[(1, "<DELY CODE=\"93\"></DELY>")]),
    );

    // keep: the record's absent CTOT, delays and route stay; the gate list it
    // sends replaces the stored one.
    let mut keeping = settings();
    keeping.merge.adft_absent = AbsentFields::Keep;
    let mut record = flight(1, at(9, 8, 30));
    record.erut = flightstate::protocol::Group::Absent;
    record.reno = Field::Value("B7".into());
    apply_with(&store, &keeping, 4, &adft(vec![record.clone()]));
    let kept = one(&store, 1);
    assert_eq!(kept.state_version, 4);
    assert_eq!(kept.operation_day, Some(sep(9)));
    assert_eq!(kept.state.fields.ctot, Some(at(9, 8, 30)));
    assert_eq!(kept.state.fields.sodt, Some(at(9, 8, 30)));
    assert_eq!(kept.state.fields.reno.as_deref(), Some("B7"));
    assert_eq!(kept.state.delays.len(), 1);
    assert_eq!(kept.state.entire_route.len(), 2);

    // clear (default): the flight is exactly the record.
    let report = match apply(&store, 5, &adft(vec![record.clone()])) {
        Applied::Flights(report) => report,
        other => panic!("{other:?}"),
    };
    assert_eq!(report.updated, vec![1]);
    let cleared = one(&store, 1);
    assert_eq!(cleared.state.fields.ctot, None);
    assert!(cleared.state.delays.is_empty());
    assert!(cleared.state.entire_route.is_empty());
    assert_eq!(
        cleared.state,
        flightstate::state::state_from_record(&record).expect("fits")
    );
    assert_eq!(cleared.operation_day, Some(sep(9)));
}

fn adft_never_bumps_the_snapshot_version_nor_deletes_and_a_new_flight_has_no_day<D: ScenarioDb>(
    db: &D,
) {
    let store = db.store();
    apply(&store, 1, &day_with(9, &[1, 2]));
    let ledger = || {
        store
            .transaction(|tx| tx.snapshot_ledger(sep(9)))
            .expect("ledger")
            .expect("a ledger row")
    };
    let before = ledger();
    let report = match apply(
        &store,
        2,
        &adft(vec![flight(3, at(9, 10, 0)), flight(1, at(9, 8, 0))]),
    ) {
        Applied::Flights(report) => report,
        other => panic!("{other:?}"),
    };
    assert_eq!(report.created, vec![3]);
    assert_eq!(report.unchanged, vec![1]);
    assert_eq!(ledger(), before);
    let flights = load(&store, &[1, 2, 3]);
    assert_eq!(flights.len(), 3);
    assert_eq!(flights[&3].operation_day, None::<NaiveDate>);
    assert_eq!(flights[&1].state_version, 1);
    assert_eq!(db.count("schd_gen_flid", "flid = 3"), 0);
    assert_eq!(db.count("kafka_schd", "message_id = 2"), 1);

    // A RECS that does not match is DEAD.
    let bad = schedule_message(
        ScheduleSubtype::Adft,
        None,
        Field::Value(2),
        vec![flight(4, at(9, 10, 0))],
    );
    assert!(matches!(apply(&store, 3, &bad), Applied::Dead { .. }));
}

fn schd_del_deletes_the_listed_flights_with_tombstones<D: ScenarioDb>(db: &D) {
    let store = db.store();
    apply(&store, 1, &day_with(9, &[1, 2]));
    let message = schedule_message(
        ScheduleSubtype::Del,
        None,
        Field::Value(2),
        vec![flight(2, at(9, 8, 0)), flight(77, at(9, 8, 0))],
    );
    let report = match apply(&store, 2, &message) {
        Applied::Flights(report) => report,
        other => panic!("{other:?}"),
    };
    assert_eq!(report.deleted, vec![2]);
    assert_eq!(report.unchanged, vec![77]);
    assert_eq!(load(&store, &[1, 2]).len(), 1);
    assert_eq!(
        db.count("kafka_schd", "flid = 2 AND event_kind = 'TOMBSTONE'"),
        1
    );
    assert_eq!(db.count("flight_gate", "flid = 2"), 0);
}

fn unsupported_and_invalid_events_change_nothing<D: ScenarioDb>(db: &D) {
    let store = db.store();
    apply(&store, 1, &day_with(9, &[1]));
    let before = db.dump();
    let got = apply(&store, 2, &flop("SRVT", &[(1, "<SRVT></SRVT>")]));
    assert_eq!(
        got,
        Applied::Unsupported {
            msg_type: "FLOP".into(),
            subtype: "SRVT".into()
        }
    );
    match apply(&store, 3, &flop("TOBT", &[(1, "")])) {
        Applied::Dead { reason } => {
            assert!(
                reason.contains("FLOP TOBT carries none of its elements"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
    // A bad body among good ones: the whole message is DEAD.
    let got = apply(
        &store,
        4,
        &flop("ACFT", &[(1, "<ACFT>321</ACFT>"), (1, "<ACFT></ACFT>")]),
    );
    assert!(matches!(got, Applied::Dead { .. }), "{got:?}");
    let after = db.dump();
    assert_eq!(
        before
            .lines()
            .filter(|l| !l.starts_with("proc_state"))
            .collect::<Vec<_>>(),
        after
            .lines()
            .filter(|l| !l.starts_with("proc_state"))
            .collect::<Vec<_>>()
    );
    assert_eq!(db.count("proc_state", "error_kind = 'UNSUPPORTED'"), 1);
}
