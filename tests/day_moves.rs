//! Operation-day moves (`station.day_moves`) against real PostgreSQL and
//! MariaDB, through the pump: day 10 takes a flight over from day 9, then a
//! late day-9 snapshot arrives. Forward only (the default), the flight stays
//! on day 10 with its state unchanged, the snapshot counts it and a notice
//! says why, and day 9's list still records what the message carried; with
//! `any`, the flight moves back.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/pumping/mod.rs"]
mod pumping;

use common::TestDatabase;
use common::operator::{operator_command, stdout_of};
use common::sis::{at, count, flight, parse_options, sep, snapshot};
use diesel::sql_types::{BigInt, Date, Nullable, Text, Timestamp};
use diesel::{PgConnection, QueryableByName, RunQueryDsl};
use flightstate::pipeline::Rules;
use flightstate::state::DayMoves;
use pumping::{MailboxDatabase, proc_states};

fn pump_until_idle(db: &TestDatabase, mb: &MailboxDatabase, day_moves: DayMoves) {
    let pipeline = Rules {
        parse: parse_options(),
        day_moves,
        ..Rules::default()
    };
    pumping::pg::pump_until_idle(db.url(), mb, pipeline, "day-moves");
}

#[derive(QueryableByName, Debug, PartialEq)]
struct Row {
    #[diesel(sql_type = Nullable<Date>)]
    operation_day: Option<chrono::NaiveDate>,
    #[diesel(sql_type = BigInt)]
    state_version: i64,
    #[diesel(sql_type = BigInt)]
    last_message_id: i64,
    #[diesel(sql_type = Nullable<Timestamp>)]
    sodt: Option<chrono::NaiveDateTime>,
}

fn row(conn: &mut PgConnection, flid: i64) -> Row {
    diesel::sql_query(
        "SELECT operation_day, state_version::bigint AS state_version, \
         last_message_id::bigint AS last_message_id, sodt FROM flight_schd WHERE flid = $1",
    )
    .bind::<BigInt, _>(flid)
    .get_result(conn)
    .expect("the flight's row")
}

/// Flight 3 as the late day-9 snapshot (`late`) writes it over `taken_over`.
fn moved_back(taken_over: &Row, late: i64) -> Row {
    Row {
        operation_day: Some(sep(9)),
        state_version: taken_over.state_version + 1,
        last_message_id: late,
        sodt: Some(at(9, 23, 50)),
    }
}

#[derive(QueryableByName)]
struct Notice {
    #[diesel(sql_type = Text)]
    change_kind: String,
    #[diesel(sql_type = Text)]
    payload: String,
}

/// The change notices message `id` registered, by event id.
fn notices(conn: &mut PgConnection, id: i64) -> Vec<(String, serde_json::Value)> {
    diesel::sql_query(
        "SELECT change_kind, payload::text AS payload FROM kafka_msg \
         WHERE message_id = $1 ORDER BY event_id",
    )
    .bind::<BigInt, _>(id)
    .load::<Notice>(conn)
    .expect("read KAFKA_MSG")
    .into_iter()
    .map(|n| {
        let payload = serde_json::from_str(&n.payload).expect("a JSON payload");
        (n.change_kind, payload)
    })
    .collect()
}

/// 9 Sep: flights 1, 2, 3 (3 late in the evening); 10 Sep takes 3 over
/// (its SODT moved past midnight); then a late 9 Sep snapshot that still
/// lists 3 as it was, queued but not pumped. Returns the late message's id.
fn a_late_snapshot_of_the_older_day(
    tag: &str,
    day_moves: DayMoves,
) -> (TestDatabase, MailboxDatabase, Row, i64) {
    let db = TestDatabase::migrated();
    let mb = MailboxDatabase::create(tag);
    let day_nine = || {
        snapshot(
            sep(9),
            vec![
                flight(1, at(9, 8, 0)),
                flight(2, at(9, 9, 0)),
                flight(3, at(9, 23, 50)),
            ],
        )
    };
    mb.insert(&day_nine());
    mb.insert(&snapshot(sep(10), vec![flight(3, at(10, 0, 20))]));
    pump_until_idle(&db, &mb, day_moves);
    let taken_over = row(&mut db.connect(), 3);
    assert_eq!(taken_over.operation_day, Some(sep(10)));
    let late = mb.insert(&day_nine());
    (db, mb, taken_over, late)
}

#[test]
fn forward_only_a_late_snapshot_leaves_a_flight_on_its_later_day_and_says_why() {
    let (db, mb, taken_over, late) =
        a_late_snapshot_of_the_older_day("day_moves_forward", DayMoves::ForwardOnly);
    pump_until_idle(&db, &mb, DayMoves::ForwardOnly);
    let mut conn = db.connect();
    assert!(
        proc_states(&mut conn).iter().all(|s| s.1 == "SUCCEEDED"),
        "{:?}",
        proc_states(&mut conn)
    );
    // Day, state and version as day 10 left them.
    assert_eq!(row(&mut conn, 3), taken_over);
    assert_eq!(
        count(&mut conn, "kafka_schd", &format!("message_id = {late}")),
        0,
        "no state event: nothing was written"
    );
    // The notice says why; the snapshot's outcome counts it.
    let notices = notices(&mut conn, late);
    let kinds: Vec<&str> = notices.iter().map(|n| n.0.as_str()).collect();
    assert_eq!(kinds, ["KEPT_ON_LATER_DAY", "SNAPSHOT"]);
    let kept = &notices[0].1;
    assert_eq!(kept["operation_day"], "2026-09-10");
    assert_eq!(kept["snapshot_day"], "2026-09-09");
    let reason = kept["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("later operation day 2026-09-10")
            && reason.contains("day_moves = forward_only"),
        "{reason}"
    );
    let summary = &notices[1].1;
    assert_eq!(summary["kept_on_later_day"], serde_json::json!([3]));
    assert_eq!(summary["flights"], 3);
    assert_eq!(summary["unchanged"], 2);
    assert_eq!(summary["updated"], 0);
    assert_eq!(summary["deleted"], serde_json::json!([]));
    // The day's list records what the message carried.
    assert_eq!(
        count(
            &mut conn,
            "schd_gen_flid",
            "operation_day = DATE '2026-09-09'"
        ),
        3
    );
    assert_eq!(
        count(
            &mut conn,
            "flight_schd",
            "operation_day = DATE '2026-09-10'"
        ),
        1
    );
}

#[test]
fn with_any_a_late_snapshot_moves_the_flight_back() {
    let (db, mb, taken_over, late) =
        a_late_snapshot_of_the_older_day("day_moves_any", DayMoves::Any);
    pump_until_idle(&db, &mb, DayMoves::Any);
    let mut conn = db.connect();
    assert_eq!(row(&mut conn, 3), moved_back(&taken_over, late));
    let notices = notices(&mut conn, late);
    let kinds: Vec<&str> = notices.iter().map(|n| n.0.as_str()).collect();
    assert_eq!(kinds, ["UPDATED", "SNAPSHOT"]);
    assert!(notices[1].1.get("kept_on_later_day").is_none());
    assert_eq!(
        count(
            &mut conn,
            "flight_schd",
            "operation_day = DATE '2026-09-10'"
        ),
        0
    );
}

/// The site stays forward only; an operator forces the move back by
/// replaying the late snapshot with `--move-flights`. Without the flag the
/// replay keeps the flight on its later day as the pump did.
#[test]
fn a_replay_with_move_flights_forces_the_move_back() {
    let (db, mb, taken_over, late) =
        a_late_snapshot_of_the_older_day("day_moves_replay", DayMoves::ForwardOnly);
    pump_until_idle(&db, &mb, DayMoves::ForwardOnly);
    let mut conn = db.connect();
    let late_id = late.to_string();
    let replay = |extra: &[&str]| {
        operator_command("replay", db.url(), &mb.url())
            .args([
                late_id.as_str(),
                "--day",
                "2026-09-09",
                "--version",
                "latest",
            ])
            .args(extra)
            .output()
            .expect("run flightstate replay")
    };
    let kept = stdout_of(&replay(&[]), 0);
    assert!(kept.contains("updated 0:"), "{kept}");
    assert_eq!(row(&mut conn, 3), taken_over);
    let moved = stdout_of(&replay(&["--move-flights"]), 0);
    assert!(moved.contains("updated 1: 3"), "{moved}");
    assert_eq!(row(&mut conn, 3), moved_back(&taken_over, late));
}
