//! The day as it happens: each flight's operational updates (FLOP), derived from its plan,
//! its delay and its fate, and applied to its record as they are sent.
//!
//! Every collection update carries the collection's whole new list and every scalar update
//! the new value, so that the morning snapshot plus the day's events in order leads to the
//! records the closing snapshot holds (DESIGN §4: collections replace, DELY merges by code).

use chrono::{Duration, NaiveDateTime};

mod story;

use super::catalog::{DELAY_CODES, EXTERNAL_STATUSES, REMARKS, RUNWAYS};
use super::plan::{Fate, Flight, Plan};
use super::rng::Rng;
use crate::protocol::{
    AbortKind, BridgeEvent, ChockEvent, ChockState, Delay, Diversion, DiversionDirection, Field,
    FlightRecord, FlightReturn, FlopSubtype, Group, LandingAbort, Minutes, Movement, PortAction,
    PortEvent, PushEvent, ReturnKind, TractorEvent,
};
use story::story;

/// What one update changes.
#[derive(Clone, Debug)]
enum Change {
    /// A date-time scalar named by the subtype (EOBT, BOTM, PADT, …).
    Time(FlopSubtype, NaiveDateTime),
    Stand(String),
    /// The planned stand `from` is replaced by `to` wherever it appears.
    StandPlan(String, String),
    Gate(String),
    GatesOpen(NaiveDateTime),
    GatesClose(NaiveDateTime),
    CountersOpen(NaiveDateTime),
    CountersClose(NaiveDateTime),
    ChutesBegin(NaiveDateTime),
    ChutesEnd(NaiveDateTime),
    FirstBag(NaiveDateTime),
    LastBag(NaiveDateTime),
    Chocks(ChockState, NaiveDateTime, String),
    Bridge(char, NaiveDateTime, String),
    Push(NaiveDateTime, String),
    Tractor(NaiveDateTime, String),
    Door(PortAction, NaiveDateTime),
    Delay(&'static str, NaiveDateTime, u32, &'static str),
    Cancel(NaiveDateTime),
    Delete,
    Aircraft(String),
    Seats(u32),
    Registration(String),
    Remark(&'static str),
    External(&'static str, &'static str),
    Status(&'static str),
    Divert(String),
    Return(ReturnKind, &'static str),
    Abort(AbortKind, &'static str),
    Runway(&'static str),
    Agents(u32, u32),
    Vip(u32, u8),
    /// The flight is announced as a whole (SCHD ADFT).
    Announce,
}

/// What a generated update becomes: a FLOP body, or an ad-hoc flight's full record.
#[derive(Clone, Debug)]
pub(crate) enum Update {
    Flop(FlopSubtype, FlightRecord),
    AdHoc(FlightRecord),
}

/// One update, stamped and ordered.
#[derive(Clone, Debug)]
pub(crate) struct Event {
    pub dttm: NaiveDateTime,
    /// Index of the flight in the plan: ties in time keep one flight's order.
    pub flight: usize,
    pub seq: usize,
    pub update: Update,
}

/// Plays the day: applies every update to the plan's records and, when `keep`, returns
/// them in time order. Updates before `not_before` (the snapshot) are not sent.
pub(crate) fn play_day(
    plan: &mut Plan,
    mut rng: Rng,
    not_before: NaiveDateTime,
    keep: bool,
) -> Vec<Event> {
    let mut events = Vec::new();
    for index in 0..plan.flights.len() {
        let mut story = story(plan, index, &mut rng);
        story.sort_by_key(|(at, _)| *at);
        if let Some(announced) = plan.flights[index].announced {
            // Nothing is said about an ad-hoc flight before AODB announces it.
            story.retain(|(at, change)| *at >= announced || matches!(change, Change::Announce));
        }
        let flight = &mut plan.flights[index];
        let mut last = not_before;
        for (seq, (at, change)) in story.into_iter().enumerate() {
            // Seconds after the minute: AODB stamps a message when it sends it.
            let dttm = at + Duration::seconds(rng.range(0, 59));
            if at < not_before {
                continue;
            }
            let dttm = dttm.max(last);
            last = dttm;
            let deleted = matches!(change, Change::Delete);
            let update = apply(flight, change);
            if keep {
                events.push(Event {
                    dttm,
                    flight: index,
                    seq,
                    update,
                });
            }
            if deleted {
                flight.deleted = true;
                break;
            }
        }
    }
    events.sort_by_key(|e| (e.dttm, e.flight, e.seq));
    events
}

fn minutes(m: i64) -> Duration {
    Duration::minutes(m)
}

/// The date-time scalar a subtype carries, if it carries one.
fn time_field(r: &mut FlightRecord, subtype: FlopSubtype) -> Option<&mut Field<NaiveDateTime>> {
    Some(match subtype {
        FlopSubtype::Eobt => &mut r.eobt,
        FlopSubtype::Tobt => &mut r.tobt,
        FlopSubtype::Cobt => &mut r.cobt,
        FlopSubtype::Ctot => &mut r.ctot,
        FlopSubtype::Botm => &mut r.botm,
        FlopSubtype::Lacl => &mut r.lacl,
        FlopSubtype::Fint => &mut r.fint,
        FlopSubtype::Iest => &mut r.iest,
        FlopSubtype::Pedt => &mut r.pedt,
        FlopSubtype::Padt => &mut r.padt,
        FlopSubtype::Neat => &mut r.neat,
        FlopSubtype::Naat => &mut r.naat,
        FlopSubtype::Egsr => &mut r.egsr,
        FlopSubtype::Egst => &mut r.egst,
        FlopSubtype::Appt => &mut r.appt,
        _ => return None,
    })
}

fn next_seq(count: usize) -> Field<u32> {
    Field::Value(count as u32 + 1)
}

/// Sets each entry's field through `f`, for the "whole list with one time filled in" updates.
fn stamp<T: Clone>(group: &mut Group<T>, f: impl Fn(&mut T)) -> Group<T> {
    if let Group::Items(items) = group {
        items.iter_mut().for_each(f);
    }
    group.clone()
}

fn push<T: Clone>(group: &mut Group<T>, entry: T) -> Group<T> {
    match group {
        Group::Items(items) => items.push(entry),
        _ => *group = Group::Items(vec![entry]),
    }
    group.clone()
}

/// Applies `change` to the flight's record and returns the update that says so.
fn apply(flight: &mut Flight, change: Change) -> Update {
    let r = &mut flight.record;
    let mut body = FlightRecord {
        flid: r.flid,
        ffid: Field::Value(flight.ffid.clone()),
        ..FlightRecord::default()
    };
    let subtype = match change {
        Change::Announce => return Update::AdHoc(r.clone()),
        Change::Time(subtype, at) => {
            if let Some(slot) = time_field(r, subtype) {
                *slot = Field::Value(at);
            }
            if let Some(slot) = time_field(&mut body, subtype) {
                *slot = Field::Value(at);
            }
            subtype
        }
        Change::Stand(stand) => {
            r.stnd = Field::Value(stand);
            body.stnd = r.stnd.clone();
            FlopSubtype::Stnd
        }
        Change::StandPlan(from, to) => {
            body.psdt = stamp(&mut r.psdt, |p| {
                if p.psst.value() == Some(&from) {
                    p.psst = Field::Value(to.clone());
                }
            });
            FlopSubtype::Psdt
        }
        Change::Gate(gate) => {
            if let Group::Items(items) = &mut r.gtdt
                && let Some(first) = items.first_mut()
            {
                first.gate = Field::Value(gate);
            }
            body.gtdt = r.gtdt.clone();
            FlopSubtype::Gtdt
        }
        Change::GatesOpen(at) => {
            body.gtdt = stamp(&mut r.gtdt, |g| g.gotm = Field::Value(at));
            FlopSubtype::Gtdt
        }
        Change::GatesClose(at) => {
            body.gtdt = stamp(&mut r.gtdt, |g| g.gctm = Field::Value(at));
            FlopSubtype::Gtdt
        }
        Change::CountersOpen(at) => {
            body.ckdt = stamp(&mut r.ckdt, |c| c.cotm = Field::Value(at));
            FlopSubtype::Ckdt
        }
        Change::CountersClose(at) => {
            body.ckdt = stamp(&mut r.ckdt, |c| c.cctm = Field::Value(at));
            FlopSubtype::Ckdt
        }
        Change::ChutesBegin(at) => {
            body.chdt = stamp(&mut r.chdt, |c| c.cbtm = Field::Value(at));
            FlopSubtype::Chdt
        }
        Change::ChutesEnd(at) => {
            body.chdt = stamp(&mut r.chdt, |c| c.cetm = Field::Value(at));
            FlopSubtype::Chdt
        }
        Change::FirstBag(at) => {
            body.cldt = stamp(&mut r.cldt, |c| c.fbag = Field::Value(at));
            FlopSubtype::Cldt
        }
        Change::LastBag(at) => {
            body.cldt = stamp(&mut r.cldt, |c| c.lbag = Field::Value(at));
            FlopSubtype::Cldt
        }
        Change::Chocks(chid, at, stand) => {
            let csno = next_seq(r.chot.items().len());
            body.chot = push(
                &mut r.chot,
                ChockEvent {
                    csno,
                    chtm: Field::Value(at),
                    chid: Field::Value(chid),
                    chst: Field::Value(stand),
                },
            );
            FlopSubtype::Chot
        }
        Change::Bridge(abop, at, abdg) => {
            let asno = next_seq(r.abtm.items().len());
            body.abtm = push(
                &mut r.abtm,
                BridgeEvent {
                    asno,
                    abdg: Field::Value(abdg),
                    abop: Field::Value(abop),
                    aotm: Field::Value(at),
                },
            );
            FlopSubtype::Abtm
        }
        Change::Push(at, stand) => {
            let pshn = next_seq(r.psht.items().len());
            body.psht = push(
                &mut r.psht,
                PushEvent {
                    pshn,
                    pstm: Field::Value(at),
                    psid: Field::Value("IN".to_owned()),
                    pust: Field::Value(stand),
                },
            );
            FlopSubtype::Psht
        }
        Change::Tractor(at, stand) => {
            body.tipt = push(
                &mut r.tipt,
                TractorEvent {
                    trtm: Field::Value(at),
                    trst: Field::Value(stand),
                },
            );
            FlopSubtype::Tipt
        }
        Change::Door(poid, at) => {
            // PORT in a FLOP carries one entry (PROTOCOL §4.3); the record keeps both.
            let entry = PortEvent {
                potm: Field::Value(at),
                poid: Field::Value(poid),
            };
            push(&mut r.port, entry.clone());
            body.port = Group::Items(vec![entry]);
            FlopSubtype::Port
        }
        Change::Delay(code, strt, minutes, text) => {
            let delay = Delay {
                code: Field::Value(code.to_owned()),
                strt: Field::Value(strt),
                dura: Field::Value(Minutes(minutes)),
                text: text.to_owned(),
            };
            let mut items = r.dely.items().to_vec();
            match items.iter_mut().find(|d| d.code == delay.code) {
                Some(existing) => *existing = delay,
                None => items.push(delay),
            }
            r.dely = Group::Items(items);
            body.dely = r.dely.clone();
            FlopSubtype::Dely
        }
        Change::Cancel(at) => {
            r.cncl = Field::Value(at);
            body.cncl = r.cncl.clone();
            FlopSubtype::Cncl
        }
        Change::Delete => {
            body.fdel = Field::Empty;
            FlopSubtype::Fdel
        }
        Change::Aircraft(code) => {
            r.acft = Field::Value(code);
            body.acft = r.acft.clone();
            FlopSubtype::Acft
        }
        Change::Seats(maxp) => {
            r.maxp = Field::Value(maxp);
            body.maxp = r.maxp.clone();
            FlopSubtype::Maxp
        }
        Change::Registration(reno) => {
            r.reno = Field::Value(reno);
            body.reno = r.reno.clone();
            FlopSubtype::Reno
        }
        Change::Remark(text) => {
            r.remc = Field::Value(text.to_owned());
            body.remc = r.remc.clone();
            FlopSubtype::Remc
        }
        Change::External(code, text) => {
            r.exsc = Field::Value(code.to_owned());
            r.exsr = Field::Value(text.to_owned());
            body.exsc = r.exsc.clone();
            body.exsr = r.exsr.clone();
            FlopSubtype::Exss
        }
        Change::Status(code) => {
            r.ftss = Field::Value(code.to_owned());
            body.ftss = r.ftss.clone();
            FlopSubtype::Ftss
        }
        Change::Divert(to) => {
            r.fdiv = Field::Value(Diversion {
                ddes: to,
                ddir: DiversionDirection::To,
                text: "weather below minima".to_owned(),
            });
            body.fdiv = r.fdiv.clone();
            FlopSubtype::Fdiv
        }
        Change::Return(reid, text) => {
            r.fret = Field::Value(FlightReturn {
                reid,
                text: text.to_owned(),
            });
            body.fret = r.fret.clone();
            FlopSubtype::Fret
        }
        Change::Abort(ares, text) => {
            r.flab = Field::Value(LandingAbort {
                ares,
                text: text.to_owned(),
            });
            body.flab = r.flab.clone();
            FlopSubtype::Flab
        }
        Change::Runway(runway) => {
            r.runw = Field::Value(runway.to_owned());
            body.runw = r.runw.clone();
            FlopSubtype::Runw
        }
        Change::Agents(phag, fhag) => {
            r.phag = Field::Value(phag);
            r.fhag = Field::Value(fhag);
            body.phag = r.phag.clone();
            body.fhag = r.fhag.clone();
            body.mhag = r.mhag.clone();
            FlopSubtype::Hnag
        }
        Change::Vip(count, rank) => {
            r.vipp = Field::Value(count);
            r.vipr = Field::Value(rank);
            body.vipp = r.vipp.clone();
            body.vipr = r.vipr.clone();
            FlopSubtype::Vipp
        }
    };
    Update::Flop(subtype, body)
}
