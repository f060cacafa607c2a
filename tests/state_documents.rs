//! State documents (`FLIGHT_SCHD.STATE_DOCUMENT`, docs/kafka.md): every
//! write of a flight stores the JSON the state topic carries, and it is
//! always the document of the stored state, against real PostgreSQL.
#![cfg(feature = "postgres")]

mod common;
#[path = "helpers/dispatching/mod.rs"]
mod dispatching;

use common::TestDatabase;
use common::sis::{at, count, day_messages};
use dispatching::stored;
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::state::StateDocument;
use flightstate::store::pg::PgStore;
use flightstate::store::{StateTx, Store};

/// Applies a generated day's snapshot and every event after it (ids from 1),
/// at a time with a fraction of a second, which `FLIGHT_SCHD.UPDATED_AT`
/// does not keep.
fn apply_day(store: &PgStore, flights: usize) {
    let now = at(9, 6, 0) + chrono::TimeDelta::milliseconds(700);
    for (i, body) in day_messages(flights).iter().enumerate() {
        let id = i64::try_from(i).expect("small") + 1;
        let applied = apply_message(store, &Rules::default(), id, body, now).expect("applied");
        assert!(
            matches!(applied, Applied::Snapshot(_) | Applied::Flights(_)),
            "message {id}: {applied:?}"
        );
    }
}

/// Documents by FLID, ascending.
type Documents = Vec<(i64, StateDocument)>;

/// What the dispatcher would publish of every stored flight, and the
/// documents built from the tables.
fn published_and_built(store: &PgStore, db: &TestDatabase) -> (Documents, Documents) {
    let flights = stored(store, &mut db.connect());
    assert!(!flights.is_empty());
    let flids: Vec<i64> = flights.keys().copied().collect();
    let mut published: Documents = store
        .transaction(|tx| tx.load_state_documents(&flids))
        .expect("load documents")
        .into_iter()
        .collect();
    published.sort_by_key(|(flid, _)| *flid);
    let built = flights
        .iter()
        .map(|(flid, f)| (*flid, StateDocument::of(f)))
        .collect();
    (published, built)
}

#[test]
fn every_write_stores_the_document_of_the_state_it_writes() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    apply_day(&store, 60);
    let mut conn = db.connect();
    assert_eq!(count(&mut conn, "flight_schd", "state_document IS NULL"), 0);
    // Events moved flights past their snapshot version: the documents
    // followed every write, not only the snapshot's.
    assert!(count(&mut conn, "flight_schd", "state_version > 1") > 0);
    let (published, built) = published_and_built(&store, &db);
    assert_eq!(published, built);
}

#[test]
fn a_row_without_a_document_is_published_from_the_tables() {
    let db = TestDatabase::migrated();
    let store = PgStore::from_pool(db.pool());
    apply_day(&store, 30);
    let mut conn = db.connect();
    // Test-only SQL: rows as migration 000009 finds them, written before
    // documents were stored.
    diesel::RunQueryDsl::execute(
        diesel::sql_query("UPDATE flight_schd SET state_document = NULL WHERE flid % 2 = 0"),
        &mut conn,
    )
    .expect("forget documents");
    let unstored = count(&mut conn, "flight_schd", "state_document IS NULL");
    assert!(unstored > 0 && unstored < count(&mut conn, "flight_schd", "true"));
    let (published, built) = published_and_built(&store, &db);
    assert_eq!(published, built);
}
