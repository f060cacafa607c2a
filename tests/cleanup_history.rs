//! The history rule (`cleanup.history_days`, docs/open-questions.md "Past
//! operation days") against real databases: the operation days before the
//! first day kept are retired — their flights removed with tombstones (a
//! version floor, a `TOMBSTONE` event, a `DELETED` notice saying why), then
//! their ledgers and lists — while kept days and flights without an
//! operation day are left alone; a dry run lists the days and changes
//! nothing; a snapshot of a retired day is DEAD with its own reason; a flight
//! event for a retired flight creates it anew above its tombstone; and the
//! same later snapshots of kept days give the same flights and tombstones
//! with and without the rule.
//!
//! Both dialects (`dialect_tests!`): `pg::<name>` on a fresh PostgreSQL
//! database, `oracle::<name>` on the schema of `FLIGHTSTATE_ORACLE_URL`.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/dispatching/mod.rs"]
mod dispatching;
#[path = "helpers/pumping/mod.rs"]
mod pumping;
#[path = "helpers/reading/mod.rs"]
mod reading;

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use common::dialects::{PgDb, ScenarioDb};
use common::sis::{at, flight, flop, parse_options, sep, snapshot};
use diesel::sql_types::{BigInt, Date, Text};
use diesel::{PgConnection, QueryableByName, RunQueryDsl};
use flightstate::cleanup::{CleanupReport, CleanupSettings, clean_up};
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::station::{HistoryRule, StationClock};
use flightstate::store::{ProcStatus, Store};

dialect_tests! {
    past_days_are_retired_with_tombstones_and_kept_days_stay,
    a_dry_run_lists_the_days_it_would_retire_and_changes_nothing,
    a_retired_days_snapshot_is_dead_and_a_retired_flights_event_starts_it_anew,
}

/// When the rule runs: 20 October, 12:00 UTC at a UTC station, so that with
/// 30 days kept the first day kept is 20 September.
fn now() -> NaiveDateTime {
    NaiveDate::from_ymd_opt(2026, 10, 20)
        .and_then(|d| d.and_hms_opt(12, 0, 0))
        .expect("valid")
}

fn history() -> HistoryRule {
    HistoryRule {
        days: 30,
        clock: StationClock::new(Some(chrono_tz::UTC)),
        day_boundary: NaiveTime::MIN,
    }
}

fn rules() -> Rules {
    Rules {
        parse: parse_options(),
        history: Some(history()),
        ..Rules::default()
    }
}

/// The rule on, in batches of two so that every part takes several.
fn cleanup_settings() -> CleanupSettings {
    CleanupSettings {
        batch: 2,
        history: Some(history()),
        ..CleanupSettings::default()
    }
}

#[track_caller]
fn apply<S: Store>(store: &S, message_id: i64, body: &[u8], when: NaiveDateTime) -> Applied {
    apply_message(store, &rules(), message_id, body, when).expect("applied")
}

#[track_caller]
fn applied<S: Store>(store: &S, message_id: i64, body: &[u8], when: NaiveDateTime) {
    let applied = apply(store, message_id, body, when);
    assert!(
        matches!(applied, Applied::Snapshot(_) | Applied::Flights(_)),
        "message {message_id}: {applied:?}"
    );
}

fn cleanup<S: Store>(store: &S, dry_run: bool) -> CleanupReport {
    clean_up(store, &cleanup_settings(), now(), dry_run, &mut |_, _| true).expect("clean-up")
}

/// Flights of `day`, FLIDs `first..first + n`, at 08:00 and on.
fn day_snapshot(day: NaiveDate, flids: &[i64]) -> Vec<u8> {
    let records = flids
        .iter()
        .enumerate()
        .map(|(i, flid)| {
            let hour = 8 + u32::try_from(i % 12).expect("small");
            flight(*flid, day.and_hms_opt(hour, 0, 0).expect("time"))
        })
        .collect();
    snapshot(day, records)
}

fn oct(day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 10, day).expect("day")
}

/// Days 1 and 2 of September (retired at [`now`]), 25 September and 10
/// October (kept), and flight 900 without an operation day.
fn a_month<S: Store>(store: &S) {
    applied(
        store,
        1,
        &day_snapshot(sep(1), &[101, 102, 103]),
        at(1, 6, 0),
    );
    applied(
        store,
        2,
        &day_snapshot(sep(2), &[201, 202, 203]),
        at(2, 6, 0),
    );
    applied(
        store,
        3,
        &flop("RENO", &[(102, "<RENO>B102</RENO>")]),
        at(2, 9, 0),
    );
    applied(
        store,
        4,
        &day_snapshot(sep(25), &[2501, 2502]),
        at(25, 6, 0),
    );
    applied(store, 5, &day_snapshot(oct(10), &[1001, 1002]), now());
    applied(
        store,
        6,
        &flop("RENO", &[(900, "<RENO>B900</RENO>")]),
        now(),
    );
}

fn past_days_are_retired_with_tombstones_and_kept_days_stay<D: ScenarioDb>(db: &D) {
    let store = db.store();
    a_month(&store);
    let versions_of_102 = db.count("flight_schd", "flid = 102 AND state_version = 2");
    assert_eq!(versions_of_102, 1, "{}: 102 changed once", db.dialect());

    let report = cleanup(&store, false);

    assert_eq!(report.retired_days, vec![sep(1), sep(2)]);
    assert_eq!(report.retired_flights, vec![101, 102, 103, 201, 202, 203]);
    assert!(report.flights.is_empty(), "900 is recent: {report:?}");
    assert_eq!(report.days, vec![sep(1), sep(2)], "their ledgers go too");
    // Gone from the state, each with its tombstone one above its last
    // version, and its floor.
    assert_eq!(
        db.count("flight_schd", "operation_day < DATE '2026-09-20'"),
        0
    );
    assert_eq!(
        db.count("flight_schd", "flid IN (2501, 2502, 1001, 1002, 900)"),
        5
    );
    assert_eq!(
        db.count(
            "kafka_schd",
            "event_kind = 'TOMBSTONE' AND ((flid = 102 AND state_version = 3) OR (flid IN (101, 103, 201, 202, 203) AND state_version = 2))"
        ),
        6
    );
    assert_eq!(
        db.count(
            "flight_version_floor",
            "flid IN (101, 102, 103, 201, 202, 203)"
        ),
        6
    );
    assert_eq!(
        db.count(
            "kafka_msg",
            "change_kind = 'DELETED' AND flid IN (101, 102, 103, 201, 202, 203) AND payload LIKE '%history clean-up%'"
        ),
        6
    );
    assert_eq!(db.count("schd_gen", "operation_day < DATE '2026-09-20'"), 0);
    assert_eq!(
        db.count("schd_gen_flid", "operation_day < DATE '2026-09-20'"),
        0
    );
    assert_eq!(
        db.count("schd_gen", "operation_day >= DATE '2026-09-20'"),
        2
    );

    // Nothing is left to retire.
    let again = cleanup(&store, false);
    assert!(
        again.retired_days.is_empty() && again.retired_flights.is_empty(),
        "{again:?}"
    );
}

fn a_dry_run_lists_the_days_it_would_retire_and_changes_nothing<D: ScenarioDb>(db: &D) {
    let store = db.store();
    a_month(&store);
    let before = db.dump();
    let report = cleanup(&store, true);
    assert!(report.dry_run);
    assert_eq!(report.retired_days, vec![sep(1), sep(2)]);
    assert_eq!(report.retired_flights, vec![101, 102, 103, 201, 202, 203]);
    assert_eq!(
        db.dump(),
        before,
        "{}: a dry run changes nothing",
        db.dialect()
    );
}

fn a_retired_days_snapshot_is_dead_and_a_retired_flights_event_starts_it_anew<D: ScenarioDb>(
    db: &D,
) {
    let store = db.store();
    a_month(&store);
    cleanup(&store, false);

    // AODB sends 2 September again (or answers a request for it).
    let again = apply(&store, 7, &day_snapshot(sep(2), &[201, 202]), now());
    let Applied::Dead { reason } = again else {
        panic!("a retired day's snapshot is DEAD: {again:?}");
    };
    assert!(
        reason.starts_with(
            "operation day 2026-09-02 is retired: cleanup.history_days = 30 keeps 2026-09-20 on"
        ),
        "{reason}"
    );
    assert_eq!(db.count("flight_schd", "flid IN (201, 202)"), 0);
    assert_eq!(
        db.count("proc_state", "message_id = 7 AND status = 'DEAD'"),
        1
    );
    assert_eq!(
        db.count("flight_schd", "flid < 900"),
        0,
        "{}: nothing of it applied",
        db.dialect()
    );

    // A flight event for a retired flight is applied as for any deleted
    // flight: created anew above its tombstone, without an operation day,
    // so the lifecycle clean-up removes it in time unless a snapshot
    // names it.
    let event = apply(
        &store,
        8,
        &flop("RENO", &[(201, "<RENO>B201</RENO>")]),
        now(),
    );
    assert!(
        matches!(&event, Applied::Flights(report) if report.created == vec![201]),
        "{event:?}"
    );
    assert_eq!(
        db.count(
            "flight_schd",
            "flid = 201 AND state_version = 3 AND operation_day IS NULL"
        ),
        1,
        "{}: above its tombstone at version 2",
        db.dialect()
    );
    assert!(matches!(
        store.transaction(|tx| flightstate::store::StateTx::proc_state(tx, 8)),
        Ok(Some(r)) if r.status == ProcStatus::Succeeded
    ));
}

/// Two equal databases; the rule runs on one. Then the same later
/// snapshots of the kept days (a flight dropped, one added, one taken over
/// from a retired day's list) give the same flights and the same
/// tombstones on both: a flight belongs to one day, and a snapshot deletes
/// only flights of its own day.
#[test]
fn later_snapshots_of_kept_days_do_the_same_with_and_without_the_rule() {
    let dbs = [PgDb::migrated(), PgDb::migrated()];
    let stores: Vec<_> = dbs.iter().map(PgDb::store).collect();
    for store in &stores {
        a_month(store);
    }
    cleanup(&stores[0], false);
    let marks: Vec<i64> = dbs
        .iter()
        .map(|db| last_event(&mut db.0.connect()))
        .collect();

    // 25 September drops 2502 and lists 103 (a flight of a retired day's
    // list); 10 October adds 1003.
    for store in &stores {
        applied(store, 10, &day_snapshot(sep(25), &[2501, 103]), now());
        applied(
            store,
            11,
            &day_snapshot(oct(10), &[1001, 1002, 1003]),
            now(),
        );
    }

    let [with_rule, without_rule] = [0, 1].map(|i| {
        let mut conn = dbs[i].0.connect();
        (
            kept_flights(&mut conn),
            tombstones_after(&mut conn, marks[i]),
        )
    });
    assert_eq!(with_rule, without_rule);
    assert_eq!(
        with_rule.1,
        vec![2502],
        "the later snapshots' own tombstones"
    );
    assert!(
        with_rule
            .0
            .iter()
            .any(|(flid, day, _)| *flid == 103 && *day == sep(25)),
        "{:?}",
        with_rule.0
    );
}

#[derive(QueryableByName)]
struct KeptFlight {
    #[diesel(sql_type = BigInt)]
    flid: i64,
    #[diesel(sql_type = Date)]
    operation_day: NaiveDate,
    #[diesel(sql_type = Text)]
    state_digest: String,
}

/// Every flight of a kept day: FLID, day and state digest, by FLID.
fn kept_flights(conn: &mut PgConnection) -> Vec<(i64, NaiveDate, String)> {
    diesel::sql_query(
        "SELECT flid, operation_day, state_digest FROM flight_schd \
         WHERE operation_day >= DATE '2026-09-20' ORDER BY flid",
    )
    .load::<KeptFlight>(conn)
    .expect("flights")
    .into_iter()
    .map(|f| (f.flid, f.operation_day, f.state_digest))
    .collect()
}

#[derive(QueryableByName)]
struct Id {
    #[diesel(sql_type = BigInt)]
    id: i64,
}

fn last_event(conn: &mut PgConnection) -> i64 {
    diesel::sql_query("SELECT COALESCE(MAX(event_id), 0) AS id FROM kafka_schd")
        .get_result::<Id>(conn)
        .expect("last event")
        .id
}

/// The FLIDs tombstoned after event `mark`, ascending.
fn tombstones_after(conn: &mut PgConnection, mark: i64) -> Vec<i64> {
    diesel::sql_query(
        "SELECT flid AS id FROM kafka_schd WHERE event_kind = 'TOMBSTONE' AND event_id > $1 ORDER BY flid",
    )
    .bind::<BigInt, _>(mark)
    .load::<Id>(conn)
    .expect("tombstones")
    .into_iter()
    .map(|r| r.id)
    .collect()
}

/// The current state reads as current: `GET /all/flights` says which
/// operation days it holds (header `Operation-Days`), and so does the
/// status; a retired flight is gone from the API (its tombstone is in the
/// outbox, above).
#[test]
fn the_api_says_which_days_it_holds_and_retired_flights_are_gone() {
    let db = PgDb::migrated();
    let store = db.store();
    a_month(&store);
    let api = reading::TestApi::start(store.clone(), None, reading::settings(None, None));

    let before = reading::get(api.addr, "/all/flights");
    assert_eq!(before.status, 200, "{}", before.text());
    assert_eq!(
        before.header("Operation-Days"),
        Some("2026-09-01..2026-10-10")
    );
    let flids = |answer: &reading::Answer| -> Vec<i64> {
        answer
            .json()
            .as_array()
            .expect("an array")
            .iter()
            .map(|d| d["FLID"].as_i64().expect("FLID"))
            .collect()
    };
    assert_eq!(
        flids(&before),
        vec![101, 102, 103, 201, 202, 203, 900, 1001, 1002, 2501, 2502]
    );
    let one_day = reading::get(api.addr, "/all/flights?operation_day=2026-09-25");
    assert_eq!(one_day.header("Operation-Days"), Some("2026-09-25"));

    cleanup(&store, false);

    let after = reading::get(api.addr, "/all/flights");
    assert_eq!(
        after.header("Operation-Days"),
        Some("2026-09-25..2026-10-10")
    );
    assert_eq!(flids(&after), vec![900, 1001, 1002, 2501, 2502]);
    assert_eq!(reading::get(api.addr, "/flights/101").status, 404);
    let page = reading::get(api.addr, "/").text();
    assert!(
        page.contains(
            "The state holds the operation days 2026-09-25..2026-10-10 and 1 flights without an operation day."
        ),
        "{page}"
    );
}
