//! The dispatcher against a real Kafka-protocol broker (tansu, started by
//! `scripts/services`): messages applied to PostgreSQL, dispatched, and
//! consumed back. Each test has its own database and topics.
//!
//! DESIGN §5 is the contract checked here: a consumer that keeps, per FLID,
//! the message with the highest `(STATE_VERSION, UPDATED_AT)` rebuilds every
//! flight exactly as the database holds it, from the state topic alone.

use chrono::NaiveDateTime;
use flightstate::store::pg::PgStore;

use crate::common::TestDatabase;
use crate::common::sis::{at, day_messages};
use crate::dispatching::{
    apply, apply_in_stages, day_of, drain, pending, read_all, rebuild, stored, tansu,
    tansu_dispatcher, tansu_dispatcher_with,
};

fn now() -> NaiveDateTime {
    at(9, 12, 0)
}

fn flop(styp: &str, flid: i64, inner: &str) -> Vec<u8> {
    crate::common::sis::flop(styp, &[(flid, inner)])
}

/// The records of `topic` about `flid`, in order.
fn of_flight(records: &[crate::dispatching::Record], flid: i64) -> Vec<serde_json::Value> {
    records
        .iter()
        .filter(|r| r.key.as_deref() == Some(flid.to_string().as_str()))
        .map(crate::dispatching::Record::json)
        .collect()
}

#[test]
fn a_generated_day_dispatched_in_stages_rebuilds_every_flight_on_the_consumer() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let (mut dispatcher, (state_topic, change_topic)) = tansu_dispatcher(store.clone(), "day");
    let messages = day_messages(40);
    // Dispatch after the snapshot, twice during the day and at its end, so
    // that some flights are coalesced and some sent several times.
    let stages = [
        1,
        messages.len() / 3,
        2 * messages.len() / 3,
        messages.len(),
    ];
    let (dispatched_rows, dispatched_notices) =
        apply_in_stages(&store, &mut dispatcher, &messages, &stages, now());
    let mut conn = db.connect();
    assert_eq!(pending(&mut conn, "kafka_schd"), 0);
    assert_eq!(pending(&mut conn, "kafka_msg"), 0);

    let states = read_all(&tansu(), &state_topic);
    assert!(
        states.len() < dispatched_rows,
        "coalescing sends fewer messages ({}) than state rows ({dispatched_rows})",
        states.len()
    );
    let rebuilt = rebuild(&states);
    let database = stored(&store, &mut conn);
    assert!(database.len() >= 40, "the day's flights are stored");
    assert_eq!(rebuilt, database);

    // Every change notice arrived once, with its event id as the header.
    let notices = read_all(&tansu(), &change_topic);
    let mut ids: Vec<i64> = notices
        .iter()
        .map(|r| {
            let header: i64 = r
                .event_id
                .as_deref()
                .expect("event-id")
                .parse()
                .expect("id");
            assert_eq!(r.json()["EVENT_ID"].as_i64(), Some(header));
            header
        })
        .collect();
    let total = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), total, "an event id came twice");
    // Nothing is pending, and a row leaves the outbox only once its
    // delivery is confirmed: every notice registered was sent, once.
    assert_eq!(total, dispatched_notices);
}

#[test]
fn three_flops_before_a_dispatch_give_one_state_message_at_the_latest_version() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let (mut dispatcher, (state_topic, _)) = tansu_dispatcher(store.clone(), "three");
    apply(&store, 1, &day_of(&[1, 2]));
    drain(&mut dispatcher);
    apply(&store, 2, &flop("RENO", 1, "<RENO>B1</RENO>"));
    apply(&store, 3, &flop("STND", 1, "<STND>201</STND>"));
    apply(&store, 4, &flop("RENO", 1, "<RENO>B2</RENO>"));
    let report = drain(&mut dispatcher);
    assert_eq!(
        (
            report.state.claimed,
            report.state.produced,
            report.state.sent
        ),
        (3, 1, 3)
    );
    let records = read_all(&tansu(), &state_topic);
    let flight1 = of_flight(&records, 1);
    assert_eq!(flight1.len(), 2, "the snapshot's state, then one more");
    assert_eq!(flight1[1]["STATE_VERSION"], 4);
    assert_eq!(flight1[1]["RENO"], "B2");
    assert_eq!(flight1[1]["STND"], "201");
    assert_eq!(of_flight(&records, 2).len(), 1, "flight 2 did not change");
    let mut conn = db.connect();
    assert_eq!(rebuild(&records), stored(&store, &mut conn));
}

#[test]
fn flights_a_snapshot_deletes_get_tombstones() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let (mut dispatcher, (state_topic, _)) = tansu_dispatcher(store.clone(), "deletes");
    apply(&store, 1, &day_of(&[1, 2, 3]));
    drain(&mut dispatcher);
    apply(&store, 2, &day_of(&[1]));
    let report = drain(&mut dispatcher);
    assert_eq!(report.state.produced, 2, "two tombstones: {report:?}");
    let records = read_all(&tansu(), &state_topic);
    for flid in [2, 3] {
        let seen = of_flight(&records, flid);
        assert_eq!(seen.len(), 2);
        assert_eq!(
            seen[1],
            serde_json::json!({
                "FLID": flid,
                "DELETED": true,
                "STATE_VERSION": 2,
                "UPDATED_AT": "2026-09-09T12:00:00",
            })
        );
        assert_eq!(
            records
                .iter()
                .rfind(|r| r.key.as_deref() == Some(flid.to_string().as_str()))
                .and_then(|r| r.kind.as_deref()),
            Some("TOMBSTONE")
        );
    }
    let mut conn = db.connect();
    let rebuilt = rebuild(&records);
    assert_eq!(rebuilt.keys().copied().collect::<Vec<_>>(), vec![1]);
    assert_eq!(rebuilt, stored(&store, &mut conn));
}

#[test]
fn a_flight_deleted_and_created_again_between_two_runs_gives_its_tombstone_then_its_state() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let (mut dispatcher, (state_topic, _)) = tansu_dispatcher(store.clone(), "recreate");
    apply(&store, 1, &day_of(&[1, 2]));
    apply(&store, 2, &flop("RENO", 1, "<RENO>B9</RENO>"));
    drain(&mut dispatcher);
    // Between two runs: FDEL (tombstone at 3), then a FLOP creates it again.
    apply(&store, 3, &flop("FDEL", 1, "<FDEL/>"));
    apply(&store, 4, &flop("RENO", 1, "<RENO>B1</RENO>"));
    // And flight 2 through the snapshot: deleted by a day without it, then
    // listed again.
    apply(&store, 5, &day_of(&[1]));
    apply(&store, 6, &day_of(&[1, 2]));
    let report = drain(&mut dispatcher);
    assert_eq!(report.state.failed, 0);

    let records = read_all(&tansu(), &state_topic);
    let flight1 = of_flight(&records, 1);
    let shape: Vec<(i64, bool)> = flight1
        .iter()
        .map(|v| {
            (
                v["STATE_VERSION"].as_i64().expect("version"),
                v.get("DELETED").is_some(),
            )
        })
        .collect();
    // v2 from the first run; then the tombstone (3) and the recreated flight
    // above it (4, and 5 once the snapshot gave it its day back).
    assert_eq!(shape, vec![(2, false), (3, true), (5, false)]);
    assert_eq!(flight1[2]["RENO"], "B0001");
    let flight2 = of_flight(&records, 2);
    let shape: Vec<(i64, bool)> = flight2
        .iter()
        .map(|v| {
            (
                v["STATE_VERSION"].as_i64().expect("v"),
                v.get("DELETED").is_some(),
            )
        })
        .collect();
    assert_eq!(shape, vec![(1, false), (2, true), (3, false)]);

    let mut conn = db.connect();
    let database = stored(&store, &mut conn);
    assert_eq!(database[&1].state_version, 5);
    assert_eq!(database[&2].state_version, 3);
    assert_eq!(rebuild(&records), database);
}

/// The values and headers of both topics for one flight's life, pinned
/// (docs/kafka.md shows them): every kind of state and change message.
#[test]
fn the_json_of_every_event_kind_is_pinned() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    // One lane: the two flights' messages then come in the order pinned
    // (there is no order across flights; lanes would interleave them).
    let (mut dispatcher, (state_topic, change_topic)) =
        tansu_dispatcher_with(store.clone(), "shape", 1);
    // Dispatch after each message so that no state is coalesced away.
    let steps: Vec<Vec<u8>> = vec![
        day_of(&[1, 2]),
        flop("STND", 1, "<STND>201</STND>"),
        day_of(&[1]),
        flop("FDEL", 1, "<FDEL/>"),
        flop("RENO", 1, "<RENO>B7</RENO>"),
    ];
    for (i, body) in steps.iter().enumerate() {
        apply(&store, i64::try_from(i).expect("small") + 1, body);
        drain(&mut dispatcher);
    }
    let show = |records: Vec<crate::dispatching::Record>| {
        records
            .iter()
            .map(|r| {
                format!(
                    "key={} event-kind={} event-id={}\n{}",
                    r.key.as_deref().unwrap_or("-"),
                    r.kind.as_deref().unwrap_or("-"),
                    r.event_id.as_deref().unwrap_or("-"),
                    r.value
                )
            })
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots/dispatch");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        insta::assert_snapshot!("state_topic", show(read_all(&tansu(), &state_topic)));
        insta::assert_snapshot!("change_topic", show(read_all(&tansu(), &change_topic)));
    });
}
