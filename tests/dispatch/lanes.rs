//! Dispatcher lanes (`kafka.lanes`): the outbox split by flight between
//! lanes that run side by side, against real PostgreSQL and tansu.
//!
//! A flight's rows always go through one lane, so its messages leave
//! through one producer in order: on the state topic a flight's versions
//! only ever rise, however many lanes send at once.

use std::collections::{BTreeSet, HashMap};

use flightstate::store::pg::PgStore;
use flightstate::store::{
    ChangeNotice, EventKind, Lane, OutboxOps, StateEvent, StateTx, Store, StoreError,
};

use crate::common::TestDatabase;
use crate::common::sis::{at, day_messages};
use crate::dispatching::{
    apply_in_stages, pending, read_all, rebuild, stored, tansu, tansu_dispatcher_with,
};

const LANES: i64 = 3;

fn lane(number: i64) -> Lane {
    Lane {
        number,
        count: LANES,
    }
}

#[test]
fn lanes_claim_disjoint_shares_of_the_outbox_by_flight() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let flids: Vec<i64> = (101..=130).collect();
    store
        .transaction(|tx| {
            // Two state rows for every other flight: a flight's rows travel
            // together.
            let events: Vec<StateEvent> = flids
                .iter()
                .flat_map(|&flid| {
                    let versions = if flid % 2 == 0 { 1..=2 } else { 1..=1 };
                    versions.map(move |state_version| StateEvent {
                        message_id: 1,
                        flid,
                        state_version,
                        kind: EventKind::State,
                    })
                })
                .collect();
            tx.append_state_events(&events, at(9, 8, 0))?;
            let notices: Vec<ChangeNotice> = flids
                .iter()
                .map(|&flid| Some(flid))
                .chain([None])
                .map(|flid| ChangeNotice {
                    message_id: 1,
                    flid,
                    change_kind: if flid.is_some() {
                        "UPDATED"
                    } else {
                        "SNAPSHOT"
                    },
                    payload: "{}".to_owned(),
                })
                .collect();
            tx.append_change_notices(&notices, at(9, 8, 0))
        })
        .expect("outbox filled");

    // Three transactions hold their claims at once, each on its own
    // connection, as three lanes do.
    let now = at(9, 9, 0);
    let claims = store
        .transaction(|a| {
            let first = (
                a.claim_state_events(now, 1000, lane(0))?,
                a.claim_change_notices(now, 1000, lane(0))?,
            );
            store.transaction(|b| {
                let second = (
                    b.claim_state_events(now, 1000, lane(1))?,
                    b.claim_change_notices(now, 1000, lane(1))?,
                );
                store.transaction(|c| {
                    let third = (
                        c.claim_state_events(now, 1000, lane(2))?,
                        c.claim_change_notices(now, 1000, lane(2))?,
                    );
                    Ok::<_, StoreError>(vec![first.clone(), second.clone(), third])
                })
            })
        })
        .expect("three claims at once");

    let mut state_ids = BTreeSet::new();
    let mut notice_ids = BTreeSet::new();
    let mut flightless_lane = None;
    for (number, (events, notices)) in claims.iter().enumerate() {
        let number = i64::try_from(number).expect("small");
        assert!(!events.is_empty(), "lane {number} claimed no state row");
        for event in events {
            assert_eq!(event.flid % LANES, number, "{event:?} on lane {number}");
            assert!(state_ids.insert(event.event_id), "{event:?} claimed twice");
        }
        for notice in notices {
            match notice.flid {
                Some(flid) => assert_eq!(flid % LANES, number, "{notice:?} on lane {number}"),
                None => flightless_lane = Some(number),
            }
            assert!(
                notice_ids.insert(notice.event_id),
                "{notice:?} claimed twice"
            );
        }
    }
    assert_eq!(
        flightless_lane,
        Some(0),
        "a notice without a flight goes to lane 0"
    );
    let mut conn = db.connect();
    // Together the lanes claimed every row, each exactly once.
    assert_eq!(state_ids.len(), 45);
    assert_eq!(
        i64::try_from(state_ids.len()).expect("small"),
        pending(&mut conn, "kafka_schd")
    );
    assert_eq!(
        i64::try_from(notice_ids.len()).expect("small"),
        pending(&mut conn, "kafka_msg")
    );
}

#[test]
fn a_lane_claims_its_own_oldest_rows_whatever_another_lane_left_pending() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    // Lane 0's flights (multiples of 3) first: the twenty oldest rows are
    // all lane 0's, claimed by a slow lane 0 or not claimed at all.
    let flids: Vec<i64> = (1..=20)
        .map(|n| n * LANES)
        .chain((1..=5).map(|n| n * LANES + 1))
        .collect();
    store
        .transaction(|tx| {
            let events: Vec<StateEvent> = flids
                .iter()
                .map(|&flid| StateEvent {
                    message_id: 1,
                    flid,
                    state_version: 1,
                    kind: EventKind::State,
                })
                .collect();
            tx.append_state_events(&events, at(9, 8, 0))?;
            let notices: Vec<ChangeNotice> = flids
                .iter()
                .map(|&flid| ChangeNotice {
                    message_id: 1,
                    flid: Some(flid),
                    change_kind: "UPDATED",
                    payload: "{}".to_owned(),
                })
                .collect();
            tx.append_change_notices(&notices, at(9, 8, 0))
        })
        .expect("outbox filled");
    let now = at(9, 9, 0);
    let lane_one = |tx: &mut <PgStore as Store>::Tx<'_>| {
        Ok::<_, StoreError>((
            tx.claim_state_events(now, 2, lane(1))?,
            tx.claim_change_notices(now, 2, lane(1))?,
        ))
    };
    // Lane 0 pending but idle, then lane 0 holding ten flights' rows.
    let idle = store.transaction(lane_one).expect("lane 1 claims");
    let busy = store
        .transaction(|a| {
            let held = a.claim_state_events(now, 10, lane(0))?;
            assert_eq!(held.len(), 10);
            a.claim_change_notices(now, 10, lane(0))?;
            store.transaction(lane_one)
        })
        .expect("lane 1 claims beside lane 0");
    for (events, notices) in [idle, busy] {
        let event_flids: Vec<i64> = events.iter().map(|e| e.flid).collect();
        let notice_flids: Vec<Option<i64>> = notices.iter().map(|n| n.flid).collect();
        assert_eq!(event_flids, [LANES + 1, 2 * LANES + 1]);
        assert_eq!(notice_flids, [Some(LANES + 1), Some(2 * LANES + 1)]);
    }
}

#[test]
fn a_day_sent_through_three_lanes_at_once_keeps_each_flights_versions_in_order() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let (mut dispatcher, (state_topic, _)) =
        tansu_dispatcher_with(store.clone(), "lanes", u32::try_from(LANES).expect("small"));
    let messages = day_messages(60);
    // Dispatch (all lanes at once, each on its thread) after the snapshot
    // and four times during the day: flights are sent several times.
    let stages = [1, messages.len() / 4, messages.len() / 2, messages.len()];
    apply_in_stages(&store, &mut dispatcher, &messages, &stages, at(9, 12, 0));
    let mut conn = db.connect();
    assert_eq!(pending(&mut conn, "kafka_schd"), 0);
    assert_eq!(pending(&mut conn, "kafka_msg"), 0);

    let records = read_all(&tansu(), &state_topic);
    let mut last: HashMap<i64, i64> = HashMap::new();
    let mut sent_again = 0;
    for record in &records {
        let json = record.json();
        let flid = json["FLID"].as_i64().expect("FLID");
        let version = json["STATE_VERSION"].as_i64().expect("STATE_VERSION");
        if let Some(before) = last.insert(flid, version) {
            assert!(
                version > before,
                "flight {flid}: version {version} arrived after {before}"
            );
            sent_again += 1;
        }
    }
    assert!(sent_again > 0, "some flights were sent more than once");
    assert_eq!(rebuild(&records), stored(&store, &mut conn));
}
