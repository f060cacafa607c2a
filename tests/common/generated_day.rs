//! A generated airport day's flights, as the tests that write a whole day
//! at once (`COPY`, or the insert statements) start from.

use chrono::{NaiveDate, NaiveDateTime};
use flightstate::protocol::Body;
use flightstate::state::{FlightState, state_from_record};
use flightstate::synth::{DayOptions, Moment, snapshot_of};

/// The flights of the generated end-of-day snapshot of `day` (120 of them),
/// each as the state its record gives, and the time they were last updated
/// (the day's last second).
pub fn closing_flights(day: NaiveDate) -> (Vec<FlightState>, NaiveDateTime) {
    let options = DayOptions {
        flights: 120,
        day,
        ..DayOptions::default()
    };
    let Body::Schedule(schedule) = snapshot_of(&options, Moment::Closing).body else {
        panic!("the generator gives a snapshot");
    };
    let states = schedule
        .flights
        .iter()
        .map(|record| state_from_record(record).expect("a generated flight is valid"))
        .collect();
    (states, day.and_hms_opt(23, 59, 59).expect("time"))
}
