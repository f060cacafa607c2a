//! The day's plan: which aircraft fly which rotations, and each flight's full record as
//! AODB knows it before the day starts (schedule, links, resources, planned times).
//!
//! Based aircraft fly out and back all day, so an arrival and the next departure of the
//! same registration form a turnaround (TAOP/TAFL/TAID both ways); visiting aircraft come
//! in, turn and leave. The first departure of a based aircraft and the last arrival of any
//! aircraft stay unlinked (night stops), as at a real airport.

use chrono::{Duration, NaiveDate, NaiveDateTime, NaiveTime};

mod fates;
mod resources;

use super::catalog::{
    AIRCRAFT, AIRLINES, AIRPORTS, Airline, Airport, MAINTENANCE_AGENTS, REMOTE_STANDS, T1, T2,
    TerminalResources,
};
use super::rng::Rng;
use crate::protocol::{
    CarouselAllocation, ChuteAllocation, CounterAllocation, Delay, Field, FlightIndicator,
    FlightRecord, GateAllocation, Group, Minutes, Movement, RoutePoint, StandAllocation,
    format_date_time,
};

/// What happens to a flight during the day beyond the ordinary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    /// Operates, early or late.
    Normal,
    /// Cancelled during the day (CNCL).
    Cancelled,
    /// Deleted from AODB during the day (FDEL): a flight entered by mistake.
    Deleted,
    /// An arrival diverted to another airport (FDIV); it never reaches the stand.
    Diverted,
    /// An arrival that goes around once before landing (FLAB).
    GoAround,
    /// A departure that returns to the stand after pushback (FRET).
    Returned,
}

/// One aircraft's stay on the ground here: the arrival and/or the departure it links, and
/// the stands both flights of a turnaround share.
#[derive(Clone, Debug)]
pub(crate) struct Visit {
    /// Planned stands, in order of use (a long stay is towed to a remote stand and back).
    pub stands: Vec<String>,
    /// Airbridges of the first stand; empty for a remote stand.
    pub bridges: Vec<String>,
    /// A stand change announced during the day: when, and the new first stand.
    pub stand_change: Option<(NaiveDateTime, String)>,
    /// The visit's arrival and departure (indices into the plan's flights).
    pub arrival: Option<usize>,
    pub departure: Option<usize>,
}

/// A planned flight: its record (which the day then changes) and the facts the day's
/// events are derived from.
#[derive(Clone, Debug)]
pub(crate) struct Flight {
    /// The record as AODB holds it; the events change it in place.
    pub record: FlightRecord,
    /// `ALCD-FLNO-MVIN-SODT-FLIN`, carried by every FLOP.
    pub ffid: String,
    pub mvin: Movement,
    pub sodt: NaiveDateTime,
    pub wide: bool,
    pub international: bool,
    /// Scheduled block time of the leg to or from here, minutes.
    pub block: i64,
    /// Minutes late (negative: early) at the block.
    pub delay: i64,
    pub fate: Fate,
    /// Index into the plan's visits.
    pub visit: usize,
    pub terminal: &'static TerminalResources,
    /// For an ad-hoc flight: when AODB announces it (SCHD ADFT); `None` for the flights of
    /// the snapshot.
    pub announced: Option<NaiveDateTime>,
    /// Deleted during the day (FDEL applied): not in the closing snapshot.
    pub deleted: bool,
}

/// The day before any event: flights in creation order (FLIDs ascending) and their visits.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub flights: Vec<Flight>,
    pub visits: Vec<Visit>,
}

impl Plan {
    /// Adds another plan's flights (an ad-hoc flight) after this plan's.
    pub(crate) fn absorb(&mut self, other: Plan) {
        let offset = self.visits.len();
        let flights = self.flights.len();
        self.visits.extend(other.visits.into_iter().map(|mut v| {
            v.arrival = v.arrival.map(|i| i + flights);
            v.departure = v.departure.map(|i| i + flights);
            v
        }));
        self.flights.extend(other.flights.into_iter().map(|mut f| {
            f.visit += offset;
            f
        }));
    }
}

/// Share of the day's traffic per hour of the day, for visiting arrivals.
const HOURLY: [u32; 24] = [
    2, 1, 0, 0, 0, 1, 4, 8, 9, 9, 8, 7, 7, 7, 7, 8, 8, 9, 9, 9, 8, 6, 4, 3,
];

/// The last minute of the day a scheduled time may take (23:55, on the 5-minute grid).
const LAST_SLOT: i64 = 23 * 60 + 55;

struct Planner<'o> {
    rng: Rng,
    day: NaiveDate,
    home: &'o str,
    domestic: Vec<&'static Airport>,
    international: Vec<&'static Airport>,
    numbers: Vec<u32>,
    registrations: Vec<(&'static str, u64)>,
    next_flid: i64,
    target: usize,
    plan: Plan,
}

/// Plans `count` flights of `day`, FLIDs from `first_flid`, with `rng` as the only chance.
pub(crate) fn plan_day(
    rng: Rng,
    day: NaiveDate,
    home: &str,
    count: usize,
    first_flid: i64,
) -> Plan {
    let others = |international: bool| -> Vec<&'static Airport> {
        AIRPORTS
            .iter()
            .filter(|a| a.international == international && a.code != home)
            .collect()
    };
    let mut planner = Planner {
        rng,
        day,
        home,
        domestic: others(false),
        international: others(true),
        numbers: AIRLINES.iter().map(|a| a.first_number).collect(),
        registrations: Vec::new(),
        next_flid: first_flid,
        target: count,
        plan: Plan {
            flights: Vec::with_capacity(count),
            visits: Vec::new(),
        },
    };
    let weights: Vec<(usize, u32)> = AIRLINES
        .iter()
        .enumerate()
        .map(|(i, a)| (i, a.weight))
        .collect();
    while planner.plan.flights.len() < count {
        let airline = *planner.rng.weighted(&weights);
        if AIRLINES[airline].based {
            planner.based_aircraft(airline);
        } else {
            planner.visiting_aircraft(airline);
        }
    }
    planner.plan_stands();
    planner.assign_fates();
    planner.plan
}

/// Plans one ad-hoc flight (SCHD ADFT): a charter departure or a positioning arrival that
/// was not in the morning's snapshot.
pub(crate) fn plan_ad_hoc(
    rng: Rng,
    day: NaiveDate,
    home: &str,
    flid: i64,
    mvin: Movement,
    minute_of_day: i64,
) -> Plan {
    let mut planner = Planner {
        rng,
        day,
        home,
        domestic: AIRPORTS
            .iter()
            .filter(|a| !a.international && a.code != home)
            .collect(),
        international: Vec::new(),
        numbers: AIRLINES.iter().map(|_| 9101).collect(),
        // Far from the codes the day's fleet draws first, so an ad-hoc aircraft is another.
        registrations: vec![("B", 9_000 + flid.rem_euclid(100) as u64)],
        next_flid: flid,
        target: 1,
        plan: Plan {
            flights: Vec::new(),
            visits: Vec::new(),
        },
    };
    let at = planner.clock(minute_of_day);
    let visit = planner.new_visit(false);
    let airline = 0;
    let aircraft = planner.rng.pick(AIRLINES[airline].fleet);
    let reno = planner.registration(&AIRLINES[airline]);
    let number = planner.number(airline);
    let (flty, number) = match mvin {
        Movement::Departure => ('C', number),
        Movement::Arrival => ('P', number + 1),
    };
    let index = planner.add_flight(airline, number, mvin, at, *aircraft, &reno, visit);
    planner.plan.flights[index].record.flty = Field::Value(flty);
    planner.plan_stands();
    planner.plan
}

impl Planner<'_> {
    fn full(&self) -> bool {
        self.plan.flights.len() >= self.target
    }

    fn clock(&self, minute_of_day: i64) -> NaiveDateTime {
        self.day.and_time(NaiveTime::MIN) + Duration::minutes(minute_of_day)
    }

    /// A time on the 5-minute grid between `lo` and `hi` minutes of the day.
    fn slot(&mut self, lo: i64, hi: i64) -> i64 {
        self.rng.range(lo / 5, hi / 5) * 5
    }

    fn turn(&mut self, wide: bool) -> i64 {
        if wide {
            self.slot(90, 180)
        } else {
            self.slot(45, 100)
        }
    }

    fn number(&mut self, airline: usize) -> u32 {
        let n = self.numbers[airline];
        // Four digits at most: wrap into 1001..=9999 when a huge day runs out of numbers.
        self.numbers[airline] = if n + 2 > 9998 { 1001 } else { n + 2 };
        n
    }

    fn registration(&mut self, airline: &Airline) -> String {
        let prefix = airline.registration;
        let k = match self.registrations.iter_mut().find(|(p, _)| *p == prefix) {
            Some((_, k)) => {
                *k += 1;
                *k
            }
            None => {
                self.registrations.push((prefix, 0));
                0
            }
        };
        // Steps coprime with the code space walk through every code before repeating one.
        if prefix == "B" || prefix == "HL" {
            format!("{prefix}{:04}", (1000 + k * 7919) % 10_000)
        } else {
            let mut n = (k * 7919) % 17_576;
            let mut letters = String::new();
            for _ in 0..3 {
                letters.insert(0, char::from(b'A' + (n % 26) as u8));
                n /= 26;
            }
            format!("{prefix}{letters}")
        }
    }

    fn destination(&mut self, airline: &Airline) -> &'static Airport {
        if !airline.hub.is_empty()
            && let Some(hub) = AIRPORTS
                .iter()
                .find(|a| a.code == airline.hub && a.code != self.home)
        {
            return hub;
        }
        let international = !self.international.is_empty()
            && (self.domestic.is_empty() || self.rng.chance(airline.international));
        if international {
            self.international[self.rng.index(self.international.len())]
        } else {
            self.domestic[self.rng.index(self.domestic.len())]
        }
    }

    /// A based aircraft's day: out and back until the evening.
    fn based_aircraft(&mut self, airline: usize) {
        let al = &AIRLINES[airline];
        let aircraft = *self.rng.pick(al.fleet);
        let wide = AIRCRAFT[aircraft].wide;
        let reno = self.registration(al);
        let mut pending: Option<usize> = None;
        let mut t = if self.rng.chance(0.3) {
            // Back from a night stop elsewhere: the day starts with an arrival.
            let at = self.slot(6 * 60, 11 * 60);
            let number = self.number(airline) + 1;
            let visit = self.new_visit(wide);
            self.add_flight(
                airline,
                number,
                Movement::Arrival,
                self.clock(at),
                aircraft,
                &reno,
                visit,
            );
            pending = Some(self.plan.flights.len() - 1);
            at + self.turn(wide)
        } else if self.rng.chance(0.8) {
            self.slot(6 * 60, 9 * 60 + 30)
        } else {
            self.slot(9 * 60 + 30, 15 * 60)
        };
        loop {
            if t > 23 * 60 + 30 || self.full() {
                break;
            }
            let number = self.number(airline);
            let visit = match pending {
                Some(arrival) => self.plan.flights[arrival].visit,
                None => self.new_visit(wide),
            };
            let dep = self.add_flight(
                airline,
                number,
                Movement::Departure,
                self.clock(t),
                aircraft,
                &reno,
                visit,
            );
            if let Some(arrival) = pending.take() {
                self.link(arrival, dep);
            }
            let away = self.plan.flights[dep].block * 2 + self.slot(35, 70);
            let back = t + away;
            if back > LAST_SLOT || self.full() {
                break;
            }
            let visit = self.new_visit(wide);
            let arr = self.add_flight(
                airline,
                number + 1,
                Movement::Arrival,
                self.clock(back),
                aircraft,
                &reno,
                visit,
            );
            pending = Some(arr);
            t = back + self.turn(wide);
        }
    }

    /// A visiting aircraft: in, turn, out (or a night stop either side).
    fn visiting_aircraft(&mut self, airline: usize) {
        let al = &AIRLINES[airline];
        let aircraft = *self.rng.pick(al.fleet);
        let wide = AIRCRAFT[aircraft].wide;
        let reno = self.registration(al);
        let number = self.number(airline);
        if self.rng.chance(0.08) {
            // Night-stopped here: only the morning departure is today's.
            let at = self.slot(6 * 60, 9 * 60);
            let visit = self.new_visit(wide);
            self.add_flight(
                airline,
                number + 1,
                Movement::Departure,
                self.clock(at),
                aircraft,
                &reno,
                visit,
            );
            return;
        }
        let hours: Vec<(i64, u32)> = HOURLY
            .iter()
            .enumerate()
            .map(|(h, w)| (h as i64, *w))
            .collect();
        let hour = *self.rng.weighted(&hours);
        let at = self.slot(hour * 60, hour * 60 + 55);
        let visit = self.new_visit(wide);
        let arr = self.add_flight(
            airline,
            number,
            Movement::Arrival,
            self.clock(at),
            aircraft,
            &reno,
            visit,
        );
        let out = at + self.turn(wide);
        if out > LAST_SLOT || self.full() {
            return;
        }
        let dep = self.add_flight(
            airline,
            number + 1,
            Movement::Departure,
            self.clock(out),
            aircraft,
            &reno,
            visit,
        );
        self.link(arr, dep);
    }

    /// A ground stay: a contact stand with its bridges (and gate of the same number) or a
    /// remote stand.
    fn new_visit(&mut self, wide: bool) -> usize {
        let contact = self.rng.chance(0.72);
        let mut stands = Vec::new();
        let mut bridges = Vec::new();
        if contact {
            let terminal = if self.rng.chance(0.5) { &T1 } else { &T2 };
            let stand = self.pick_in(&terminal.contact_gates);
            stands.push(stand.to_string());
            bridges.push(format!("{stand}A"));
            if wide || self.rng.chance(0.15) {
                bridges.push(format!("{stand}B"));
            }
        } else {
            stands.push(self.pick_in(&REMOTE_STANDS).to_string());
        }
        self.plan.visits.push(Visit {
            stands,
            bridges,
            stand_change: None,
            arrival: None,
            departure: None,
        });
        self.plan.visits.len() - 1
    }

    fn pick_in(&mut self, range: &std::ops::RangeInclusive<u32>) -> u32 {
        self.rng
            .range(i64::from(*range.start()), i64::from(*range.end())) as u32
    }

    #[allow(clippy::too_many_arguments)]
    fn add_flight(
        &mut self,
        airline: usize,
        number: u32,
        mvin: Movement,
        sodt: NaiveDateTime,
        aircraft: usize,
        reno: &str,
        visit: usize,
    ) -> usize {
        let al = &AIRLINES[airline];
        let ac = &AIRCRAFT[aircraft];
        let flid = self.next_flid;
        self.next_flid += 1;
        let first = self.destination(al);
        let route = self.route(first, mvin, sodt);
        let international = route.iter().any(|(a, _, _)| a.international);
        let mixed = international && route.iter().any(|(a, _, _)| !a.international);
        let flin = if mixed {
            FlightIndicator::Mixed
        } else if international {
            FlightIndicator::International
        } else {
            FlightIndicator::Domestic
        };
        let terminal = if international || al.terminal == "T1" {
            &T1
        } else {
            &T2
        };
        let flno = format!("{}{number}", al.code);
        let ffid = format!(
            "{}-{flno}-{}-{}-{}",
            al.code,
            mvin.code(),
            format_date_time(&sodt),
            flin.code()
        );
        let mut record = FlightRecord {
            flid,
            alcd: Field::Value(al.code.to_owned()),
            flno: Field::Value(flno),
            mvin: Field::Value(mvin),
            sodt: Field::Value(sodt),
            flty: Field::Value(if self.rng.chance(0.05) { 'C' } else { 'W' }),
            flin: Field::Value(flin),
            acft: Field::Value(ac.code.to_owned()),
            reno: Field::Value(reno.to_owned()),
            trml: Field::Value(terminal.code.to_owned()),
            maxp: Field::Value(ac.seats - self.rng.range(0, 2) as u32 * 4),
            phag: Field::Value(al.agent),
            fhag: Field::Value(al.agent),
            ftss: Field::Value("SCH".to_owned()),
            ..FlightRecord::default()
        };
        if self.rng.chance(0.5) {
            record.mhag = Field::Value(*self.rng.pick(MAINTENANCE_AGENTS));
        }
        self.write_route(&mut record, &route, mvin, sodt);
        let block = first.block;
        let delay = self.delay();
        let international = international || mixed;
        let mut flight = Flight {
            record,
            ffid,
            mvin,
            sodt,
            wide: ac.wide,
            international,
            block,
            delay,
            fate: Fate::Normal,
            visit,
            terminal,
            announced: None,
            deleted: false,
        };
        self.resources(&mut flight);
        self.plan.flights.push(flight);
        self.plan.flights.len() - 1
    }

    /// Minutes late at the block: mostly on time, a tail of long delays.
    fn delay(&mut self) -> i64 {
        let roll = self.rng.range(0, 99);
        match roll {
            0..=64 => self.rng.range(-10, 10),
            65..=89 => self.rng.range(15, 60),
            _ => self.rng.range(61, 180),
        }
    }
}
