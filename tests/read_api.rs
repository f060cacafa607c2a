//! Whole flight states read back through the read path (`store::read_states`,
//! `read_flights`) against a real PostgreSQL database: they equal what the
//! pipeline stored and what the dispatcher published, a read costs a fixed
//! number of statements per page whatever the number of flights, and a reader
//! never sees a main row and detail rows of different versions.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/dispatching/mod.rs"]
mod dispatching;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{NaiveDate, NaiveDateTime};
use diesel::PgConnection;
use diesel::connection::{Connection, InstrumentationEvent};
use diesel::r2d2::{CustomizeConnection, Pool};
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::protocol::to_xml;
use flightstate::state::{FlightState, Gate, StateDocument, StoredFlight};
use flightstate::store::pg::PgStore;
use flightstate::store::{
    FlightRows, FlightWrite, Selection, StateTx, Store, StoreError, read_flights, read_states,
};
use flightstate::synth::{DayOptions, airport_day};

use common::TestDatabase;
use common::sis::state_documents;

fn now() -> NaiveDateTime {
    NaiveDate::from_ymd_opt(2025, 6, 1)
        .and_then(|d| d.and_hms_opt(12, 0, 0))
        .expect("valid")
}

/// Everything `selection` reads, page by page, as JSON values by FLID;
/// checks the pages come in FLID order and no page is larger than asked.
#[track_caller]
fn read_all(
    store: &PgStore,
    selection: Selection,
    page_size: usize,
) -> BTreeMap<i64, serde_json::Value> {
    let mut documents = BTreeMap::new();
    let mut last = i64::MIN;
    read_states(store, selection, page_size, |page| {
        assert!(
            !page.is_empty() && page.len() <= page_size,
            "{}",
            page.len()
        );
        for flight in page {
            assert!(flight.state.flid > last, "pages out of FLID order");
            last = flight.state.flid;
            let json = StateDocument::of(&flight).json;
            documents.insert(
                flight.state.flid,
                serde_json::from_str(&json).expect("document JSON"),
            );
        }
        Ok::<(), StoreError>(())
    })
    .expect("read states");
    documents
}

#[test]
fn full_reads_equal_the_stored_documents_and_the_state_topic() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let (mut dispatcher, (state_topic, _)) =
        dispatching::tansu_dispatcher(store.clone(), "read-api-equal");
    let messages = common::sis::day_messages(40);
    dispatching::apply_in_stages(
        &store,
        &mut dispatcher,
        &messages,
        &[1, messages.len()],
        now(),
    );
    let mut conn = db.connect();
    let stored = state_documents(&mut conn);
    assert!(stored.len() >= 40, "{} flights", stored.len());

    // Pages of 7: several pages, the last one short.
    let read = read_all(&store, Selection::All, 7);
    assert_eq!(read, stored, "full read vs stored STATE_DOCUMENT");

    // The state topic's latest value per flight (the dispatcher coalesces,
    // so the latest is the current state).
    let mut published: BTreeMap<i64, serde_json::Value> = BTreeMap::new();
    for record in dispatching::read_all(&dispatching::tansu(), &state_topic) {
        let json = record.json();
        if json.get("DELETED").is_none() {
            let flid = json["FLID"].as_i64().expect("FLID");
            published.insert(flid, json);
        }
    }
    assert_eq!(read, published, "full read vs the state topic");

    // One day: exactly the flights stored with that operation day.
    let day = NaiveDate::from_ymd_opt(2025, 6, 1).expect("day");
    let of_day = read_all(&store, Selection::Day(day), 5);
    let expected: BTreeMap<i64, serde_json::Value> = stored
        .iter()
        .filter(|(_, d)| d["OPERATION_DAY"] == "2025-06-01")
        .map(|(k, v)| (*k, v.clone()))
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(of_day, expected);
    let other = NaiveDate::from_ymd_opt(2025, 6, 2).expect("day");
    assert!(read_all(&store, Selection::Day(other), 5).is_empty());

    // Single flights, and a FLID that is not stored.
    let some: Vec<i64> = stored.keys().copied().take(3).collect();
    let mut asked = some.clone();
    asked.push(1);
    let flights = read_flights(&store, &asked).expect("read flights");
    assert_eq!(
        flights.iter().map(|f| f.state.flid).collect::<Vec<_>>(),
        some
    );
}

/// Counts the statements a connection sends.
#[derive(Debug)]
struct Counting(Arc<Mutex<Vec<String>>>);

impl CustomizeConnection<PgConnection, diesel::r2d2::Error> for Counting {
    fn on_acquire(&self, conn: &mut PgConnection) -> Result<(), diesel::r2d2::Error> {
        let sent = Arc::clone(&self.0);
        conn.set_instrumentation(move |event: InstrumentationEvent<'_>| {
            if let InstrumentationEvent::StartQuery { query, .. } = event {
                sent.lock().expect("log").push(query.to_string());
            }
        });
        Ok(())
    }
}

/// A database holding a generated day of `flights` flights (the snapshot
/// only), and a store on it whose every statement is logged.
fn day_with(flights: usize) -> (TestDatabase, PgStore, Arc<Mutex<Vec<String>>>) {
    let db = TestDatabase::migrated();
    let sent = Arc::new(Mutex::new(Vec::new()));
    let pool = db.pool_with(
        Pool::builder()
            .max_size(1)
            .test_on_check_out(false)
            .connection_customizer(Box::new(Counting(Arc::clone(&sent)))),
    );
    let store = PgStore::from_pool(pool);
    let day = airport_day(&DayOptions {
        flights,
        ..DayOptions::default()
    });
    let applied = apply_message(
        &store,
        &Rules::default(),
        1,
        to_xml(&day.snapshot).as_bytes(),
        now(),
    )
    .expect("apply the snapshot");
    assert!(matches!(applied, Applied::Snapshot(_)), "{applied:?}");
    (db, store, sent)
}

/// The statements one full read sends, and how many flights it read.
fn statements_of_a_read(
    store: &PgStore,
    sent: &Mutex<Vec<String>>,
    page_size: usize,
) -> (Vec<String>, usize) {
    sent.lock().expect("log").clear();
    let read = read_states(store, Selection::All, page_size, |_| {
        Ok::<(), StoreError>(())
    })
    .expect("read");
    (sent.lock().expect("log").clone(), read)
}

#[test]
fn a_read_sends_as_many_statements_for_5000_flights_as_for_10() {
    let (_small_db, small, small_log) = day_with(10);
    let (_large_db, large, large_log) = day_with(5_000);
    let (few, read_few) = statements_of_a_read(&small, &small_log, 5_000);
    let (many, read_many) = statements_of_a_read(&large, &large_log, 5_000);
    assert!(
        read_few >= 10 && read_many >= 5_000,
        "{read_few} {read_many}"
    );
    // BEGIN, the snapshot, one FLID page, the main rows and nine detail
    // tables, COMMIT — and for 5,000 (the page size) one more FLID page that
    // finds the end.
    assert!(
        many.len() <= few.len() + 1,
        "10 flights: {} statements, 5,000: {}\n{many:#?}",
        few.len(),
        many.len()
    );
    assert!(few.len() <= 15, "{few:#?}");
    // Smaller pages: a fixed number of statements per page, not per flight.
    let (paged, _) = statements_of_a_read(&large, &large_log, 1_000);
    let pages = read_many.div_ceil(1_000);
    assert!(
        paged.len() <= few.len() + pages * 11,
        "{} statements for {pages} pages",
        paged.len()
    );
    assert!(paged.len() > few.len() + (pages - 1) * 10, "{paged:#?}");
    // What is counted is what reached the server: the read-only snapshot is
    // among it.
    assert!(
        few.iter().any(|s| s.contains("REPEATABLE READ, READ ONLY")),
        "{few:#?}"
    );
}

/// A flight whose main row (REMC) and gate both name `version`.
fn versioned(flid: i64, version: i64) -> StoredFlight {
    let mut state = FlightState::new(flid);
    state.fields.remc = Some(format!("v{version}"));
    state.gates = vec![Gate {
        gate: Some(format!("G{version}")),
        ..Gate::default()
    }];
    StoredFlight {
        state,
        operation_day: None,
        state_version: version,
        last_message_id: version,
        updated_at: now(),
    }
}

fn write_all(store: &PgStore, flids: &[i64], version: i64) {
    let flights: Vec<StoredFlight> = flids.iter().map(|f| versioned(*f, version)).collect();
    store
        .transaction(|tx| {
            let writes: Vec<FlightWrite> = flights
                .iter()
                .map(|f| FlightWrite::whole(f.clone(), f.state.digest()))
                .collect();
            tx.write_flights(&writes, FlightRows::MayExist)
        })
        .expect("write flights");
}

/// Whether a flight read back is of one version throughout.
#[track_caller]
fn assert_whole(flight: &StoredFlight) {
    let version = flight.state_version;
    assert_eq!(
        flight.state.fields.remc.as_deref(),
        Some(format!("v{version}").as_str()),
        "flight {}: main row of version {version} with another REMC",
        flight.state.flid
    );
    let gates: Vec<Option<&str>> = flight
        .state
        .gates
        .iter()
        .map(|g| g.gate.as_deref())
        .collect();
    assert_eq!(
        gates,
        vec![Some(format!("G{version}").as_str())],
        "flight {}: main row of version {version} with gates of another",
        flight.state.flid
    );
}

#[test]
fn a_read_sees_one_snapshot_even_when_a_writer_commits_between_its_pages() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let flids: Vec<i64> = (1..=20).collect();
    write_all(&store, &flids, 1);
    let writer = store.clone();
    let mut seen = Vec::new();
    let mut pages = 0;
    read_states(&store, Selection::All, 10, |page| {
        pages += 1;
        if pages == 1 {
            // Committed before the second page is read.
            write_all(&writer, &flids, 2);
        }
        seen.extend(page);
        Ok::<(), StoreError>(())
    })
    .expect("read");
    assert_eq!(pages, 2);
    assert_eq!(seen.len(), 20);
    for flight in &seen {
        assert_eq!(flight.state_version, 1, "flight {}", flight.state.flid);
        assert_whole(flight);
    }
    // The writer did commit: a new read sees version 2.
    let after = read_flights(&store, &flids).expect("read");
    assert!(after.iter().all(|f| f.state_version == 2));
}

#[test]
fn readers_never_mix_versions_while_a_writer_applies_changes() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    let flids: Vec<i64> = (1..=300).collect();
    write_all(&store, &flids, 1);
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let store = store.clone();
        let flids = flids.clone();
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut version = 1;
            while !stop.load(Ordering::SeqCst) && version < 10_000 {
                version += 1;
                // Alternately all flights (a snapshot's write) and a few (events).
                let some: Vec<i64> = if version % 2 == 0 {
                    flids.clone()
                } else {
                    flids
                        .iter()
                        .copied()
                        .filter(|f| f % 7 == version % 7)
                        .collect()
                };
                write_all(&store, &some, version);
            }
            version
        })
    };
    let deadline = Instant::now() + Duration::from_secs(6);
    let mut reads = 0;
    let mut versions_seen = std::collections::BTreeSet::new();
    while Instant::now() < deadline {
        // Small pages: a read spans many statements while the writer commits.
        read_states(&store, Selection::All, 50, |page| {
            for flight in &page {
                assert_whole(flight);
                versions_seen.insert(flight.state_version);
            }
            Ok::<(), StoreError>(())
        })
        .expect("read");
        reads += 1;
    }
    stop.store(true, Ordering::SeqCst);
    let written = writer.join().expect("writer");
    assert!(written > 3, "the writer wrote {written} versions");
    assert!(reads > 3, "{reads} reads");
    assert!(
        versions_seen.len() > 2,
        "reads overlapped too few writes: {versions_seen:?}"
    );
}
