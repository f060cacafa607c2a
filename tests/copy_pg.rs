//! New flights, written both ways `NewFlights` offers (main rows by the
//! binary `COPY`, or by `insert_flights`) and both ways `DetailRows` offers
//! (a snapshot's detail tables by `COPY`, or by their insert statements),
//! read back exactly as the upsert writes them: every column of `FLIGHT_SCHD`
//! (and of the detail tables), for a generated day's flights with every
//! weight the state allows; and the repository's contract for new flights,
//! through the trait, both ways: a FLID that already has a row is an error,
//! never overwritten.
#![cfg(feature = "postgres")]

mod common;

use chrono::NaiveDate;
use common::dialects::{PgDb, ScenarioDb};
use common::generated_day;
use flightstate::FailureKind;
use flightstate::state::StoredFlight;
use flightstate::store::pg::{DetailRows, NewFlights, PgStore, PgTx};
use flightstate::store::{FlightRows, FlightWrite, StateTx, Store, StoreError};

/// Weights at every place value and boundary a `NUMERIC(11, 2)` weight has.
const WEIGHTS: &[&str] = &[
    "0.00",
    "0.01",
    "0.50",
    "1.00",
    "12.50",
    "100.10",
    "9999.99",
    "10000.00",
    "10000.01",
    "123456789.01",
    "999999999.99",
];

/// A generated end-of-day's flights as stored, a weight (or none) each, some
/// without an operation day.
fn flights() -> Vec<StoredFlight> {
    let day = NaiveDate::from_ymd_opt(2026, 9, 9).expect("day");
    let (states, updated_at) = generated_day::closing_flights(day);
    states
        .into_iter()
        .enumerate()
        .map(|(i, mut state)| {
            state.fields.lbwt = WEIGHTS
                .get(i % (WEIGHTS.len() + 1))
                .map(|w| (*w).to_owned());
            StoredFlight {
                state,
                operation_day: (i % 7 != 0).then_some(day),
                state_version: 1 + i as i64 % 3,
                last_message_id: 40 + i as i64,
                updated_at,
            }
        })
        .collect()
}

/// One way of writing flights in a transaction.
type Write = fn(&mut PgTx<'_>, &[FlightWrite]) -> Result<(), StoreError>;

fn write(db: &PgDb, flights: &[StoredFlight], how: Write) -> Result<(), StoreError> {
    write_new(db, NewFlights::default(), flights, how)
}

/// [`write`], new flights' main rows written as `new` says.
fn write_new(
    db: &PgDb,
    new: NewFlights,
    flights: &[StoredFlight],
    how: Write,
) -> Result<(), StoreError> {
    let store: PgStore = db.store().with_new_flights(new);
    let writes: Vec<FlightWrite> = flights
        .iter()
        .map(|f| FlightWrite::whole(f.clone(), f.state.digest()))
        .collect();
    store.transaction(|tx| how(tx, &writes))
}

const BOTH_WAYS: [(NewFlights, &str); 2] = [
    (NewFlights::Copy, "copy_flights"),
    (NewFlights::Insert, "insert_flights"),
];

#[test]
fn new_flights_inserted_read_back_as_upserted() {
    let flights = flights();
    let upserted = PgDb::migrated();
    write(&upserted, &flights, |tx, f| {
        tx.write_flights(f, FlightRows::MayExist)
    })
    .expect("upsert");
    for (new, op) in BOTH_WAYS {
        let inserted = PgDb::migrated();
        write_new(&inserted, new, &flights, |tx, f| {
            tx.write_flights(f, FlightRows::New)
        })
        .expect(op);
        assert_eq!(
            inserted.count("flight_schd", "lbwt IS NOT NULL"),
            upserted.count("flight_schd", "lbwt IS NOT NULL"),
            "{op}"
        );
        assert_eq!(
            inserted.count(
                "flight_schd",
                "lbwt = 999999999.99 AND state_document IS NOT NULL"
            ),
            i64::try_from(
                flights
                    .iter()
                    .filter(|f| f.state.fields.lbwt.as_deref() == Some("999999999.99"))
                    .count()
            )
            .expect("count"),
            "{op}"
        );
        assert_eq!(inserted.dump(), upserted.dump(), "{op}");
    }
}

#[test]
fn a_new_flight_that_has_a_row_is_an_error_never_overwritten() {
    let flights = flights();
    for (new, op) in BOTH_WAYS {
        let db = PgDb::migrated();
        write_new(&db, new, &flights[..3], |tx, f| {
            tx.write_flights(f, FlightRows::New)
        })
        .expect(op);
        let before = db.dump();
        // flights[2] again, in another state: were it overwritten, the dump
        // would show its new version.
        let mut again = flights[2..6].to_vec();
        again[0].state_version += 10;
        again[0].state.fields.remc = Some("written over".to_owned());
        let err = write_new(&db, new, &again, |tx, f| {
            tx.write_flights(f, FlightRows::New)
        })
        .expect_err("FLID of flights[2] is taken");
        assert_eq!(err.kind(), FailureKind::Duplicate, "{op}: {err}");
        assert_eq!(err.op(), op, "{err}");
        assert_eq!(db.dump(), before, "{op}");
        // The same flights may be written over when the caller says they
        // may exist.
        write_new(&db, new, &again, |tx, f| {
            tx.write_flights(f, FlightRows::MayExist)
        })
        .expect("upsert");
        assert_ne!(db.dump(), before, "{op}");
    }
}

#[test]
fn a_snapshots_detail_rows_read_back_the_same_loaded_or_inserted() {
    let flights = flights();
    let writes: Vec<FlightWrite> = flights
        .iter()
        .map(|f| FlightWrite::whole(f.clone(), f.state.digest()))
        .collect();
    let dumps: Vec<String> = [DetailRows::Copy, DetailRows::Insert]
        .into_iter()
        .map(|how| {
            let db = PgDb::migrated();
            let store: PgStore = db.store().with_detail_rows(how);
            store
                .transaction(|tx| tx.write_flights(&writes, FlightRows::New))
                .unwrap_or_else(|e| panic!("{how:?}: {e}"));
            assert!(
                db.count("flight_stand", "TRUE") > 0 && db.count("flight_delay", "TRUE") > 0,
                "{how:?}: the day's flights have detail rows"
            );
            db.dump()
        })
        .collect();
    assert_eq!(dumps[0], dumps[1]);
}
