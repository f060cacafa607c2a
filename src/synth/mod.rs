//! Synthetic airport days: the SIS messages flightstate's own tests, demo and benchmarks
//! feed it, generated here so that no peer's sample message is ever copied into the project.
//!
//! A day is a morning snapshot (SCHD DNLD of every flight of the operation day) followed by
//! the day's updates in time order (FLOPs of many subtypes, and two SCHD ADFT ad-hoc
//! flights). Everything is typed [`Message`] values; writing them out is the caller's job
//! (`to_xml`), so this module does no I/O.
//!
//! Determinism is the contract: the same [`DayOptions`] give the same messages, byte for
//! byte once written, on every machine and build. All chance comes from a small PRNG kept
//! in this module, never from a dependency whose stream could change under an update.
//!
//! What the generator must not do: read or imitate the peer samples, depend on the clock or
//! the environment, or produce messages the parser would refuse (every message round-trips
//! through `to_xml` and `parse_slice`).

mod catalog;
mod events;
mod plan;
mod rng;

use chrono::{Duration, NaiveDate, NaiveDateTime, NaiveTime};

use self::events::{Update, play_day};
use self::plan::{Plan, plan_ad_hoc, plan_day};
use self::rng::Rng;
use crate::protocol::{
    Body, Field, FlightOperation, FlightRecord, Message, Meta, Movement, Schedule, ScheduleSubtype,
};

/// What day to generate. Every field changes the output; nothing else does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DayOptions {
    /// Decides every choice the generator makes; another seed is another day.
    pub seed: u64,
    /// The operation day: every scheduled time (SODT) falls in it, 00:00–23:55. Times
    /// around it (the snapshot's DTTM the evening before, late events after midnight) must
    /// stay in 2000–2099, the years SIS can write.
    pub day: NaiveDate,
    /// Flights in the snapshot (the two ad-hoc flights come on top).
    pub flights: usize,
    /// IATA code of the airport the day is seen from; it is on every ERUT.
    pub home_airport: String,
    /// FLID of the first flight; the others follow one by one, ad-hoc flights last.
    pub first_flid: i64,
}

impl Default for DayOptions {
    fn default() -> Self {
        DayOptions {
            seed: 1,
            day: NaiveDate::from_ymd_opt(2025, 6, 1).unwrap_or_default(),
            flights: 600,
            home_airport: "CTU".to_owned(),
            first_flid: 1_000_000,
        }
    }
}

/// One generated operation day, as AODB would send it.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntheticDay {
    /// The SCHD DNLD sent the evening before: every flight of the day as planned, RECS equal
    /// to the number of FLTRs.
    pub snapshot: Message,
    /// The day's updates after the snapshot, in the order AODB sends them (META DTTM never
    /// goes backwards): FLOPs carrying FLID and FFID, and the SCHD ADFT of two ad-hoc flights
    /// before any FLOP about them.
    pub events: Vec<Message>,
}

/// Which full download of the day [`snapshot_of`] gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    /// The evening before: the plan, as in [`SyntheticDay::snapshot`].
    Opening,
    /// After the day: every flight as the day's events left it (actual times, chocks,
    /// bridges, changed gates and stands), ad-hoc flights included, deleted flights gone.
    /// The heaviest snapshot of a day, for benchmarks.
    Closing,
}

/// The "AODB sent it the evening before" time of the snapshot: 23:30 the day before.
fn opening_time(day: NaiveDate) -> NaiveDateTime {
    day.and_time(NaiveTime::MIN) - Duration::minutes(30)
}

/// Generates one airport day.
///
/// Memory grows with `flights`: about 14 updates per flight are held at once, so a day of
/// thousands of flights is better asked of [`snapshot_of`] when only the snapshot is needed.
pub fn airport_day(opts: &DayOptions) -> SyntheticDay {
    let generated = generate(opts, true);
    let mut seqn = 1u64;
    let snapshot = schedule_message(
        ScheduleSubtype::Dnld,
        opening_time(opts.day),
        seqn,
        generated.opening,
    );
    let events = generated
        .events
        .into_iter()
        .map(|event| {
            seqn += 1;
            match event.update {
                Update::AdHoc(record) => {
                    schedule_message(ScheduleSubtype::Adft, event.dttm, seqn, vec![record])
                }
                Update::Flop(subtype, record) => Message {
                    meta: meta("FLOP", subtype.code(), event.dttm, seqn),
                    body: Body::FlightOperation(FlightOperation {
                        subtype,
                        flights: vec![record],
                    }),
                    unknown: Vec::new(),
                },
            }
        })
        .collect();
    SyntheticDay { snapshot, events }
}

/// One full download of the day alone, without holding the day's updates: what a benchmark
/// of the snapshot path needs (9,999 flights, the protocol's largest RECS, is fine).
pub fn snapshot_of(opts: &DayOptions, moment: Moment) -> Message {
    match moment {
        Moment::Opening => {
            let plan = plan_for(opts);
            schedule_message(
                ScheduleSubtype::Dnld,
                opening_time(opts.day),
                1,
                sorted_records(&plan),
            )
        }
        Moment::Closing => {
            let generated = generate(opts, false);
            schedule_message(
                ScheduleSubtype::Dnld,
                generated.closing_time,
                1,
                generated.closing,
            )
        }
    }
}

/// Rows a message puts into the detail tables (DESIGN §3): the entries of GTDT, CKDT, CLDT,
/// PSDT, CHDT, CHOT, ABTM, DELY, ROUT and ERUT over all its records. PSHT, TIPT and PORT
/// are not counted: they land on stand rows and flight columns, not rows of their own.
pub fn detail_rows(message: &Message) -> usize {
    let records: &[FlightRecord] = match &message.body {
        Body::Schedule(schedule) => &schedule.flights,
        Body::FlightOperation(operation) => &operation.flights,
        Body::Unsupported { .. } => &[],
    };
    records.iter().map(record_detail_rows).sum()
}

fn record_detail_rows(r: &FlightRecord) -> usize {
    r.gtdt.items().len()
        + r.ckdt.items().len()
        + r.cldt.items().len()
        + r.psdt.items().len()
        + r.chdt.items().len()
        + r.chot.items().len()
        + r.abtm.items().len()
        + r.dely.items().len()
        + r.rout.items().len()
        + r.erut.items().len()
}

struct Generated {
    opening: Vec<FlightRecord>,
    events: Vec<events::Event>,
    closing: Vec<FlightRecord>,
    closing_time: NaiveDateTime,
}

/// Independent streams per stage, so that a change in how events are drawn does not
/// reshuffle the plan.
const PLAN_STREAM: u64 = 1;
const AD_HOC_STREAM: u64 = 2;
const EVENT_STREAM: u64 = 3;

fn plan_for(opts: &DayOptions) -> Plan {
    let mut root = Rng::new(opts.seed);
    plan_day(
        root.fork(PLAN_STREAM),
        opts.day,
        &opts.home_airport,
        opts.flights,
        opts.first_flid,
    )
}

fn generate(opts: &DayOptions, keep_events: bool) -> Generated {
    let mut root = Rng::new(opts.seed);
    let mut plan = plan_day(
        root.fork(PLAN_STREAM),
        opts.day,
        &opts.home_airport,
        opts.flights,
        opts.first_flid,
    );
    let opening = sorted_records(&plan);
    let mut ad_hoc = root.fork(AD_HOC_STREAM);
    let day_start = opts.day.and_time(NaiveTime::MIN);
    let next_flid = opts.first_flid + opts.flights as i64;
    for (k, (mvin, earliest, latest)) in [
        (Movement::Departure, 12 * 60, 20 * 60),
        (Movement::Arrival, 9 * 60, 16 * 60),
    ]
    .into_iter()
    .enumerate()
    {
        let minute = ad_hoc.range(earliest / 5, latest / 5) * 5;
        let mut extra = plan_ad_hoc(
            ad_hoc.fork(k as u64),
            opts.day,
            &opts.home_airport,
            next_flid + k as i64,
            mvin,
            minute,
        );
        // Announced a few hours ahead, never before the day's snapshot.
        let announced = day_start + Duration::minutes(minute - ad_hoc.range(150, 300));
        for flight in &mut extra.flights {
            flight.announced = Some(announced.max(day_start + Duration::minutes(5)));
        }
        plan.absorb(extra);
    }
    let not_before = opening_time(opts.day) + Duration::minutes(1);
    let events = play_day(&mut plan, root.fork(EVENT_STREAM), not_before, keep_events);
    let last = events.last().map_or(day_start, |e| e.dttm);
    let closing_time = last.max(day_start + Duration::hours(24)) + Duration::minutes(30);
    let mut closing_plan = plan;
    closing_plan.flights.retain(|f| !f.deleted);
    Generated {
        opening,
        events,
        closing: sorted_records(&closing_plan),
        closing_time,
    }
}

/// The plan's records in the order AODB lists a day: by scheduled time, then FLID.
fn sorted_records(plan: &Plan) -> Vec<FlightRecord> {
    let mut records: Vec<FlightRecord> = plan.flights.iter().map(|f| f.record.clone()).collect();
    records.sort_by_key(|r| (r.sodt.value().copied(), r.flid));
    records
}

fn meta(msg_type: &str, styp: &str, dttm: NaiveDateTime, seqn: u64) -> Meta {
    Meta {
        sndr: "AODB".to_owned(),
        seqn: seqn.to_string(),
        dttm,
        msg_type: msg_type.to_owned(),
        styp: styp.to_owned(),
        unknown: Vec::new(),
    }
}

fn schedule_message(
    subtype: ScheduleSubtype,
    dttm: NaiveDateTime,
    seqn: u64,
    flights: Vec<FlightRecord>,
) -> Message {
    Message {
        meta: meta("SCHD", subtype.code(), dttm, seqn),
        body: Body::Schedule(Schedule {
            subtype,
            recs: Field::Value(flights.len() as u32),
            operation_day: None,
            flights,
            unknown: Vec::new(),
        }),
        unknown: Vec::new(),
    }
}
