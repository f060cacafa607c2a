//! The mass-delete guard against real PostgreSQL and MariaDB, through the
//! pump: a day of 200 flights followed by a snapshot of 20 is HELD — nothing
//! of it applied, the head of the queue waits, the alert shows in the
//! status and the metrics — until an operator releases it (`flightstate
//! release`: applied as it is) or rejects it (`flightstate reject`: DEAD,
//! the queue moves on), both recorded with who and when; a normal day's
//! churn passes.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/pumping/mod.rs"]
mod pumping;
#[path = "helpers/reading/mod.rs"]
mod reading;

use std::process::Output;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::TestDatabase;
use common::operator::{cli_action, operator_actions, operator_command, stdout_of};
use common::sis::{at, count, flight, flop, parse_options, sep, snapshot};
use diesel::sql_types::{BigInt, Nullable, Text, Timestamp};
use diesel::{PgConnection, QueryableByName, RunQueryDsl};
use flightstate::mailbox::Mailbox;
use flightstate::pipeline::Rules;
use flightstate::pump::{Pump, Step};
use flightstate::store::pg::PgStore;
use pumping::pg::drain;
use pumping::{MailboxDatabase, mailbox_settings, proc_reasons, proc_states, pump_settings};
use reading::{TestApi, get, parse_prometheus, value};

/// A pump over `db` and `mb`; `streamed` reads every message by parts (the
/// other read path of a snapshot).
fn pump(db: &TestDatabase, mb: &MailboxDatabase, streamed: bool) -> Pump<PgStore> {
    let store = PgStore::connect(db.url(), 2, Duration::from_secs(2)).expect("pool");
    let mailbox = Arc::new(Mailbox::connect(mailbox_settings(mb.url())).expect("mailbox pool"));
    let mut pipeline = Rules {
        parse: parse_options(),
        ..Rules::default()
    };
    if streamed {
        pipeline.stream_from_bytes = 1;
        pipeline.stream_part_flights = 16;
    }
    Pump::new(store, mailbox, pipeline, pump_settings("held-snapshots"))
}

/// Steps `pump` until it has waited at head `held` three looks in a row.
#[track_caller]
fn until_waiting_at(pump: &mut Pump<PgStore>, held: i64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut waits = 0;
    while waits < 3 {
        match pump.step().expect("no failpoint armed") {
            Step::Blocked {
                message_id: Some(id),
                until,
            } if id == held => {
                waits += 1;
                std::thread::sleep(until.saturating_duration_since(Instant::now()));
            }
            Step::Blocked { until, .. } => {
                std::thread::sleep(until.saturating_duration_since(Instant::now()))
            }
            Step::Progress { .. } => {}
            other => panic!("the pump should wait at message {held}: {other:?}"),
        }
        assert!(Instant::now() < deadline, "the pump never waited at {held}");
    }
}

/// `flightstate ARGS…` (the binary of this test run) on `db` and `mb`, as
/// operator `$USER=night-shift`.
fn flightstate(db: &TestDatabase, mb: &MailboxDatabase, args: &[&str]) -> Output {
    let (subcommand, rest) = args.split_first().expect("a subcommand");
    operator_command(subcommand, db.url(), &mb.url())
        .args(rest)
        .output()
        .expect("run flightstate")
}

#[derive(QueryableByName, Debug, PartialEq)]
struct Decision {
    #[diesel(sql_type = Nullable<Text>)]
    hold_decision: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    hold_decided_by: Option<String>,
    #[diesel(sql_type = Nullable<Timestamp>)]
    hold_decided_at: Option<chrono::NaiveDateTime>,
}

fn decision_of(conn: &mut PgConnection, id: i64) -> Decision {
    diesel::sql_query(
        "SELECT hold_decision, hold_decided_by, hold_decided_at FROM proc_state \
         WHERE message_id = $1",
    )
    .bind::<BigInt, _>(id)
    .get_result(conn)
    .expect("the message's PROC_STATE row")
}

#[derive(QueryableByName)]
struct Version {
    #[diesel(sql_type = BigInt)]
    version: i64,
}

fn day_version(conn: &mut PgConnection, day: chrono::NaiveDate) -> i64 {
    diesel::sql_query("SELECT version FROM schd_gen WHERE operation_day = $1")
        .bind::<diesel::sql_types::Date, _>(day)
        .get_result::<Version>(conn)
        .expect("the day's ledger")
        .version
}

fn flights_of(conn: &mut PgConnection, day: u32) -> i64 {
    count(
        conn,
        "flight_schd",
        &format!("operation_day = DATE '2026-09-{day:02}'"),
    )
}

/// A day of 200 flights applied, then a snapshot of 20 of them (`held`)
/// and a flight event behind it (`behind`), queued.
fn a_day_of_200_then_a_snapshot_of_20(
    tag: &str,
    streamed: bool,
) -> (TestDatabase, MailboxDatabase, Pump<PgStore>, i64, i64) {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create(tag);
    let mut pump = pump(&db, &mb, streamed);
    mb.insert(&snapshot(
        sep(9),
        (1..=200).map(|f| flight(f, at(9, 6, 0))).collect(),
    ));
    drain(&mut pump);
    let held = mb.insert(&snapshot(
        sep(9),
        (1..=20).map(|f| flight(f, at(9, 6, 0))).collect(),
    ));
    let behind = mb.insert(&flop("RENO", &[(7, "<RENO>B7777</RENO>")]));
    (db, mb, pump, held, behind)
}

#[test]
fn a_truncated_day_is_held_until_released_and_then_applied_as_it_is() {
    let (db, mb, mut pump, held, behind) =
        a_day_of_200_then_a_snapshot_of_20("held_release", false);
    let mut conn = db.connect();
    let before = day_version(&mut conn, sep(9));
    let log = common::log::Captured::default();
    log.during(|| until_waiting_at(&mut pump, held));
    // The alert in the log: one ERROR, however many looks the head waited.
    let alerts = log.lines_with("snapshot HELD by the mass-delete guard");
    assert_eq!(alerts.len(), 1, "{}", log.text());
    assert!(
        alerts[0].contains("ERROR") && alerts[0].contains(&format!("flightstate reject {held}")),
        "{}",
        alerts[0]
    );

    // HELD with its reason; nothing changed; the head waits.
    let states = proc_states(&mut conn);
    assert_eq!(
        states[1..],
        [(held, "HELD".into(), Some("MASS_DELETE".into()), 1)],
        "the message behind the held one is not applied: {states:?}"
    );
    let reasons = proc_reasons(&mut conn);
    let reason = reasons[1].1.clone().unwrap_or_default();
    assert!(
        reason.contains("would delete 180 of the 200 flights")
            && reason.contains("flightstate release"),
        "{reason}"
    );
    assert_eq!(flights_of(&mut conn, 9), 200);
    assert_eq!(day_version(&mut conn, sep(9)), before);
    assert_eq!(count(&mut conn, "schd_gen_flid", "true"), 200);
    assert_eq!(
        count(&mut conn, "kafka_msg", &format!("message_id = {held}")),
        0
    );
    let pending: Vec<_> = mb.rows().into_iter().filter(|r| !r.2).collect();
    assert_eq!(
        pending.iter().map(|r| r.0).collect::<Vec<_>>(),
        vec![held, behind],
        "the held row is not written back"
    );

    // The alert: status and metrics.
    let status = stdout_of(&flightstate(&db, &mb, &["status"]), 0);
    assert!(status.contains("0 unsupported, 1 held"), "{status}");
    assert!(
        status.contains(&format!("HELD {held}  SCHD DNLD  MASS_DELETE"))
            && status.contains(&format!("flightstate release {held}")),
        "{status}"
    );
    let store = PgStore::connect(db.url(), 2, Duration::from_secs(2)).expect("pool");
    let api = TestApi::start(store, None, reading::settings(None, None));
    let metrics = parse_prometheus(&get(api.addr, "/metrics").text()).expect("metrics");
    assert_eq!(value(&metrics, "flightstate_messages_held", &[]), 1.0);
    let page = get(api.addr, "/").text();
    assert!(page.contains(&format!("id=\"held-{held}\"")), "{page}");

    // Released: applied as it is, recorded with who and when; the queue
    // moves on.
    let released = stdout_of(&flightstate(&db, &mb, &["release", &held.to_string()]), 0);
    assert!(
        released.starts_with(&format!("{held}: RELEASED by night-shift")),
        "{released}"
    );
    drain(&mut pump);
    let states = proc_states(&mut conn);
    assert_eq!(
        states[1..],
        [
            (held, "SUCCEEDED".into(), None, 2),
            (behind, "SUCCEEDED".into(), None, 1),
        ]
    );
    assert_eq!(flights_of(&mut conn, 9), 20);
    assert_eq!(day_version(&mut conn, sep(9)), before + 1);
    assert_eq!(
        count(
            &mut conn,
            "kafka_schd",
            &format!("message_id = {held} AND event_kind = 'TOMBSTONE'")
        ),
        180
    );
    let decision = decision_of(&mut conn, held);
    assert_eq!(decision.hold_decision.as_deref(), Some("RELEASED"));
    assert_eq!(decision.hold_decided_by.as_deref(), Some("night-shift"));
    assert!(decision.hold_decided_at.is_some());
    assert!(mb.rows().iter().all(|r| r.2), "every row is written back");
    mb.assert_each_written_back_once();
    let metrics = parse_prometheus(&get(api.addr, "/metrics").text()).expect("metrics");
    assert_eq!(value(&metrics, "flightstate_messages_held", &[]), 0.0);

    // Nothing held is left to release.
    let again = stdout_of(
        &flightstate(&db, &mb, &["release", &held.to_string(), "--by", "dora"]),
        1,
    );
    assert!(again.contains("it is SUCCEEDED"), "{again}");
    assert_eq!(
        operator_actions(&mut conn),
        vec![
            cli_action("night-shift", "RELEASE", Some(held), None, "RELEASED"),
            cli_action("dora", "RELEASE", Some(held), None, "NOT_HELD"),
        ],
        "the answer and the refused one, each recorded"
    );
    pump.release();
}

#[test]
fn a_streamed_empty_snapshot_of_a_full_day_is_held_and_rejected_dead() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("held_reject");
    let mut pump = pump(&db, &mb, true);
    mb.insert(&snapshot(
        sep(9),
        (1..=200).map(|f| flight(f, at(9, 6, 0))).collect(),
    ));
    drain(&mut pump);
    let mut conn = db.connect();
    // A snapshot of one new flight: read by parts, it writes that flight
    // before it knows that it deletes the 200 others.
    let held = mb.insert(&snapshot(sep(9), vec![flight(250, at(9, 7, 0))]));
    let behind = mb.insert(&flop("RENO", &[(7, "<RENO>B7777</RENO>")]));
    until_waiting_at(&mut pump, held);
    let states = proc_states(&mut conn);
    assert_eq!(
        states[1..],
        [(held, "HELD".into(), Some("MASS_DELETE".into()), 1)]
    );
    assert_eq!(count(&mut conn, "flight_schd", "flid = 250"), 0);
    assert_eq!(flights_of(&mut conn, 9), 200);

    // A second answer before the pump acted says so; the first stands.
    let rejected = stdout_of(&flightstate(&db, &mb, &["reject", &held.to_string()]), 0);
    assert!(
        rejected.starts_with(&format!("{held}: REJECTED by night-shift")),
        "{rejected}"
    );
    let twice = stdout_of(&flightstate(&db, &mb, &["release", &held.to_string()]), 1);
    assert!(twice.contains("already decided it (REJECTED)"), "{twice}");
    assert_eq!(
        operator_actions(&mut conn),
        vec![
            cli_action("night-shift", "REJECT", Some(held), None, "REJECTED"),
            cli_action(
                "night-shift",
                "RELEASE",
                Some(held),
                None,
                "ALREADY_DECIDED"
            ),
        ]
    );

    drain(&mut pump);
    let states = proc_states(&mut conn);
    assert_eq!(
        states[1..],
        [
            (held, "DEAD".into(), Some("REJECTED".into()), 2),
            (behind, "SUCCEEDED".into(), None, 1),
        ]
    );
    let reason = proc_reasons(&mut conn)[1].1.clone().unwrap_or_default();
    assert!(
        reason.starts_with("rejected by an operator")
            && reason.contains("would delete 200 of the 200 flights"),
        "{reason}"
    );
    assert_eq!(flights_of(&mut conn, 9), 200);
    assert_eq!(count(&mut conn, "flight_schd", "flid = 250"), 0);
    let decision = decision_of(&mut conn, held);
    assert_eq!(decision.hold_decision.as_deref(), Some("REJECTED"));
    assert_eq!(decision.hold_decided_by.as_deref(), Some("night-shift"));
    // The flight event behind it was applied.
    assert_eq!(
        count(&mut conn, "flight_schd", "flid = 7 AND reno = 'B7777'"),
        1
    );
    let rows = mb.rows();
    assert_eq!(
        rows.iter().find(|r| r.0 == held).map(|r| r.1.as_deref()),
        Some(Some("DEAD")),
        "{rows:?}"
    );
    mb.assert_each_written_back_once();
    let shown = stdout_of(&flightstate(&db, &mb, &["dead", "list"]), 0);
    assert!(
        shown.contains(&format!("{held}  SCHD/DNLD  REJECTED")),
        "{shown}"
    );
    pump.release();
}

#[test]
fn a_normal_days_churn_passes_the_guard() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("held_churn");
    let mut pump = pump(&db, &mb, false);
    mb.insert(&snapshot(
        sep(9),
        (1..=200).map(|f| flight(f, at(9, 6, 0))).collect(),
    ));
    // Twelve cancellations and five new flights.
    let churn = mb.insert(&snapshot(
        sep(9),
        (13..=205).map(|f| flight(f, at(9, 6, 0))).collect(),
    ));
    // A small day may lose up to 20 flights, whatever the share.
    mb.insert(&snapshot(
        sep(10),
        (1001..=1030).map(|f| flight(f, at(10, 6, 0))).collect(),
    ));
    let small = mb.insert(&snapshot(
        sep(10),
        (1021..=1030).map(|f| flight(f, at(10, 6, 0))).collect(),
    ));
    drain(&mut pump);
    let mut conn = db.connect();
    assert!(
        proc_states(&mut conn)
            .iter()
            .all(|s| s.1 == "SUCCEEDED" && s.3 == 1),
        "{:?}",
        proc_states(&mut conn)
    );
    assert_eq!(flights_of(&mut conn, 9), 193);
    assert_eq!(flights_of(&mut conn, 10), 10);
    for (id, deleted) in [(churn, 12), (small, 20)] {
        assert_eq!(
            count(
                &mut conn,
                "kafka_schd",
                &format!("message_id = {id} AND event_kind = 'TOMBSTONE'")
            ),
            deleted
        );
    }
    let status = stdout_of(&flightstate(&db, &mb, &["status"]), 0);
    assert!(status.contains(", 0 held"), "{status}");
    pump.release();
}

/// An operator's replay is the operator's answer already: its dry run shows
/// what it deletes, so the guard does not hold it. A day of 5 flights grows
/// to 30; replaying the first snapshot over the newer one deletes 25 of the
/// 30 (more than 30 % and more than 20), and is applied.
#[test]
fn an_operators_replay_is_not_held_by_the_guard() {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create("held_replay");
    let mut pump = pump(&db, &mb, false);
    let small = mb.insert(&snapshot(
        sep(9),
        (1..=5).map(|f| flight(f, at(9, 6, 0))).collect(),
    ));
    mb.insert(&snapshot(
        sep(9),
        (1..=30).map(|f| flight(f, at(9, 6, 0))).collect(),
    ));
    drain(&mut pump);
    pump.release();
    let mut conn = db.connect();
    assert_eq!(flights_of(&mut conn, 9), 30);
    let id = small.to_string();
    let replay = flightstate(
        &db,
        &mb,
        &["replay", &id, "--day", "2026-09-09", "--version", "force"],
    );
    let out = stdout_of(&replay, 0);
    assert!(out.contains("deleted 25:"), "{out}");
    assert_eq!(flights_of(&mut conn, 9), 5);
    let states = proc_states(&mut conn);
    assert!(
        states.iter().all(|s| s.1 == "SUCCEEDED" && s.2.is_none()),
        "{states:?}"
    );
    assert_eq!(decision_of(&mut conn, small).hold_decision, None);
}
