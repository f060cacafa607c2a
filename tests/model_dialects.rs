//! Model-based test: random sequences of snapshots (DNLD), ad-hoc flights
//! (ADFT) and flight events (FLOP) over a few FLIDs and two days, applied to
//! PostgreSQL, leave exactly the flights that the pure `state` rules compute
//! in memory — content, operation day, version and last message, after
//! every message.
//!
//! The model keeps its own bookkeeping (versions, days, the days' lists and
//! the set-difference delete); only the content of a flight comes from the
//! `state` functions (`state_from_record`, `merge_adft`, `prepare_event` /
//! `merge_event`).
//!
//! Run for both dialects as `tests/snapshot_dialects.rs`: the property is a generic
//! fn over `ScenarioDb`, run as `pg::<name>` on a PostgreSQL database and as
//! `oracle::<name>` on the schema of `FLIGHTSTATE_ORACLE_URL` (skipped, with
//! one plain line, without it). Every case, shrinking ones too, starts on an
//! emptied database. Nothing here is PostgreSQL-only: the flights are read
//! back through `Store`.
#![cfg(feature = "postgres")]

mod common;

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDate;
use common::dialects::ScenarioDb;
use common::sis::{at, flight, schedule_message, sep, snapshot};
use flightstate::pipeline::{Applied, Rules, apply_message};
use flightstate::protocol::{
    Body, Delay, Field, FlightRecord, Group, Minutes, ScheduleSubtype, parse_slice,
};
use flightstate::state::{
    AbsentFields, FlightState, merge_adft, merge_event, prepare_event, state_from_record,
};
use flightstate::store::{StateTx, Store};
use proptest::prelude::*;
use proptest::test_runner::TestRunner;

dialect_tests! {
    the_database_holds_what_the_state_rules_compute,
}

const FLIDS: [i64; 4] = [1, 2, 3, 4];
const DAYS: [u32; 2] = [9, 10];

#[derive(Clone, Debug)]
enum Step {
    /// A snapshot of `day` listing some FLIDs, each with a variant.
    Dnld { day: u32, flights: Vec<(i64, u8)> },
    /// One ad-hoc flight.
    Adft { flid: i64, day: u32, variant: u8 },
    /// One flight event.
    Flop { flid: i64, op: u8, value: u8 },
}

fn step() -> impl Strategy<Value = Step> {
    let flid = prop::sample::select(FLIDS.to_vec());
    let day = prop::sample::select(DAYS.to_vec());
    prop_oneof![
        1 => (day.clone(), prop::collection::btree_map(flid.clone(), any::<u8>(), 0..=4))
            .prop_map(|(day, flights)| Step::Dnld { day, flights: flights.into_iter().collect() }),
        1 => (flid.clone(), day, any::<u8>())
            .prop_map(|(flid, day, variant)| Step::Adft { flid, day, variant }),
        4 => (flid, 0u8..11, any::<u8>()).prop_map(|(flid, op, value)| Step::Flop { flid, op, value }),
    ]
}

/// A full record of `flid` on `day`; `variant` moves its time, changes its
/// registration and drops or adds collections.
fn record(flid: i64, day: u32, variant: u8) -> FlightRecord {
    let mut record = flight(flid, at(day, 6 + u32::from(variant % 3), 0));
    record.reno = Field::Value(format!("B{}", variant % 5));
    if variant & 0x10 != 0 {
        record.gtdt = Group::Absent;
    }
    if variant & 0x20 != 0 {
        record.dely = Group::Items(vec![Delay {
            code: Field::Value("D1".into()),
            dura: Field::Value(Minutes(u32::from(variant % 7))),
            ..Delay::default()
        }]);
    }
    record
}

/// The FLOP message of a step.
fn flop(flid: i64, op: u8, value: u8) -> String {
    let v = value % 4;
    let (styp, inner) = match op {
        0 => ("RENO", format!("<RENO>R{v}</RENO>")),
        1 => ("RENO", "<RENO></RENO>".to_owned()),
        2 => ("CTOT", format!("<CTOT>09SEP26080{v}</CTOT>")),
        3 => (
            "DELY",
            format!("<DELY CODE=\"D{}\" DURA=\"000{v}\">c{v}</DELY>", v % 2),
        ),
        4 => ("DELY", "<DELY></DELY>".to_owned()),
        5 => (
            "GTDT",
            format!("<GTDT GTNO=\"{}\"><GATE>G{v}</GATE></GTDT>", v % 2 + 1),
        ),
        6 => (
            "ERUT",
            format!("<ERUT RTNO=\"{}\"><APCD>A{v}</APCD></ERUT>", v % 3 + 1),
        ),
        7 => ("FDEL", "<FDEL></FDEL>".to_owned()),
        8 => (
            "PSHT",
            format!(
                "<PSHT PSHN=\"1\"><PSTM>09SEP26081{v}</PSTM><PUST>S{}</PUST></PSHT>",
                v % 2
            ),
        ),
        9 => (
            "PSDT",
            format!("<PSDT PSNO=\"1\"><PSST>S{}</PSST></PSDT>", v % 2),
        ),
        _ => ("TOBT", String::new()),
    };
    format!(
        "<MSG><META><SNDR>AODB</SNDR><SEQN>1</SEQN><DTTM>20260909080000</DTTM>\
         <TYPE>FLOP</TYPE><STYP>{styp}</STYP></META><FLOP><FLID>{flid}</FLID>{inner}</FLOP></MSG>"
    )
}

/// A flight as the model holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Held {
    state: FlightState,
    day: Option<NaiveDate>,
    version: i64,
    last_message_id: i64,
}

#[derive(Default)]
struct Model {
    flights: BTreeMap<i64, Held>,
    lists: HashMap<NaiveDate, Vec<i64>>,
    /// The tombstone version of each deleted flight: created again, a flight
    /// continues above it.
    floors: HashMap<i64, i64>,
}

impl Model {
    /// The version a flight created now starts at.
    fn first_version(&self, flid: i64) -> i64 {
        self.floors.get(&flid).map_or(1, |floor| floor + 1)
    }

    /// Writes `state` for `flid` as a message other than a snapshot does.
    fn put(&mut self, flid: i64, state: Option<FlightState>, message_id: i64) {
        match (self.flights.get(&flid).cloned(), state) {
            (None, None) => {}
            (Some(old), None) => {
                self.flights.remove(&flid);
                self.floors.insert(flid, old.version + 1);
            }
            (Some(old), Some(state)) if old.state == state => {}
            (old, Some(state)) => {
                let held = Held {
                    state,
                    day: old.as_ref().and_then(|o| o.day),
                    version: old.map_or_else(|| self.first_version(flid), |o| o.version + 1),
                    last_message_id: message_id,
                };
                self.flights.insert(flid, held);
            }
        }
    }

    fn apply(&mut self, step: &Step, message_id: i64, settings: &Rules) -> Vec<u8> {
        match step {
            Step::Dnld { day, flights } => {
                let day_date = sep(*day);
                let records: Vec<FlightRecord> = flights
                    .iter()
                    .map(|(flid, variant)| record(*flid, *day, *variant))
                    .collect();
                // The snapshot's rules (DESIGN §4): every listed flight gets
                // the record's full state and the day (version + 1 unless
                // state and day are already so); the old list's flights that
                // the new one lacks go, while their day is still this day.
                // Forward only (`station.day_moves`, the default): a flight
                // of a later day is listed but neither moved back nor
                // written.
                let mut list = Vec::new();
                for record in &records {
                    let state = state_from_record(record).expect("fits");
                    let flid = state.flid;
                    list.push(flid);
                    match self.flights.get(&flid) {
                        Some(held) if held.day.is_some_and(|d| d > day_date) => {}
                        Some(held) if held.state == state && held.day == Some(day_date) => {}
                        held => {
                            let version =
                                held.map_or_else(|| self.first_version(flid), |h| h.version + 1);
                            self.flights.insert(
                                flid,
                                Held {
                                    state,
                                    day: Some(day_date),
                                    version,
                                    last_message_id: message_id,
                                },
                            );
                        }
                    }
                }
                let old_list = self.lists.get(&day_date).cloned().unwrap_or_default();
                for flid in old_list.iter().filter(|f| !list.contains(f)) {
                    if self
                        .flights
                        .get(flid)
                        .is_some_and(|h| h.day == Some(day_date))
                        && let Some(held) = self.flights.remove(flid)
                    {
                        self.floors.insert(*flid, held.version + 1);
                    }
                }
                self.lists.insert(day_date, list);
                snapshot(day_date, records)
            }
            Step::Adft { flid, day, variant } => {
                let record = record(*flid, *day, *variant);
                let current = self.flights.get(flid).map(|h| &h.state);
                let next = merge_adft(current, &record, AbsentFields::Clear).expect("fits");
                self.put(*flid, Some(next), message_id);
                schedule_message(ScheduleSubtype::Adft, None, Field::Value(1), vec![record])
            }
            Step::Flop { flid, op, value } => {
                let xml = flop(*flid, *op, *value);
                let message =
                    parse_slice(xml.as_bytes(), &settings.parse).expect("our FLOP parses");
                let Body::FlightOperation(operation) = message.body else {
                    panic!("not a FLOP");
                };
                let rules = &settings.merge.collections;
                for body in &operation.flights {
                    // An event that cannot apply changes nothing (DEAD).
                    if let Ok(event) = prepare_event(operation.subtype, body, rules) {
                        let current = self.flights.get(flid).map(|h| &h.state);
                        let next = merge_event(current, &event, rules);
                        self.put(*flid, next, message_id);
                    }
                }
                xml.into_bytes()
            }
        }
    }
}

fn stored<S: Store>(store: &S) -> BTreeMap<i64, Held> {
    store
        .transaction(|tx| tx.load_flights(&FLIDS))
        .expect("load flights")
        .into_iter()
        .map(|(flid, s)| {
            (
                flid,
                Held {
                    state: s.state,
                    day: s.operation_day,
                    version: s.state_version,
                    last_message_id: s.last_message_id,
                },
            )
        })
        .collect()
}

/// Every random sequence of steps, applied to the emptied database one message at a time,
/// leaves the flights the model holds after every message.
fn the_database_holds_what_the_state_rules_compute<D: ScenarioDb>(db: &D) {
    let store = db.store();
    let settings = Rules {
        parse: common::sis::parse_options(),
        ..Rules::default()
    };
    let mut runner = TestRunner::new(ProptestConfig {
        cases: 24,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let result = runner.run(&prop::collection::vec(step(), 1..30), |steps| {
        db.empty();
        let mut model = Model::default();
        for (i, step) in steps.iter().enumerate() {
            let message_id = i64::try_from(i).expect("small") + 1;
            let body = model.apply(step, message_id, &settings);
            let applied =
                apply_message(&store, &settings, message_id, &body, at(9, 12, 0)).expect("applied");
            prop_assert!(
                !matches!(applied, Applied::Unsupported { .. }),
                "step {i}: {applied:?}"
            );
            prop_assert_eq!(
                &stored(&store),
                &model.flights,
                "after step {} ({:?})",
                i,
                step
            );
        }
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{}: {failure}", db.dialect());
    }
}
