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
fn stamp<T>(group: &mut Group<T>, f: impl Fn(&mut T)) {
    if let Group::Items(items) = group {
        items.iter_mut().for_each(f);
    }
}

fn push<T>(group: &mut Group<T>, entry: T) {
    match group {
        Group::Items(items) => items.push(entry),
        _ => *group = Group::Items(vec![entry]),
    }
}

/// Applies `change` to the flight's record and returns the update that says so: the
/// record takes the change, then the update carries what its subtype carries, read from
/// the changed record. An announcement carries the whole record.
fn apply(flight: &mut Flight, change: Change) -> Update {
    match change_record(&mut flight.record, change) {
        Some(subtype) => Update::Flop(subtype, flop_body(flight, subtype)),
        None => Update::AdHoc(flight.record.clone()),
    }
}

/// Changes the record as `change` says and returns the FLOP subtype that tells it; `None`
/// for an announcement, which changes nothing.
fn change_record(r: &mut FlightRecord, change: Change) -> Option<FlopSubtype> {
    Some(match change {
        Change::Announce => return None,
        Change::Time(subtype, at) => {
            if let Some(slot) = time_field(r, subtype) {
                *slot = Field::Value(at);
            }
            subtype
        }
        Change::Stand(stand) => set(&mut r.stnd, stand, FlopSubtype::Stnd),
        Change::StandPlan(from, to) => {
            stamp(&mut r.psdt, |p| {
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
            FlopSubtype::Gtdt
        }
        Change::GatesOpen(at) => stamped(
            &mut r.gtdt,
            |g| g.gotm = Field::Value(at),
            FlopSubtype::Gtdt,
        ),
        Change::GatesClose(at) => stamped(
            &mut r.gtdt,
            |g| g.gctm = Field::Value(at),
            FlopSubtype::Gtdt,
        ),
        Change::CountersOpen(at) => stamped(
            &mut r.ckdt,
            |c| c.cotm = Field::Value(at),
            FlopSubtype::Ckdt,
        ),
        Change::CountersClose(at) => stamped(
            &mut r.ckdt,
            |c| c.cctm = Field::Value(at),
            FlopSubtype::Ckdt,
        ),
        Change::ChutesBegin(at) => stamped(
            &mut r.chdt,
            |c| c.cbtm = Field::Value(at),
            FlopSubtype::Chdt,
        ),
        Change::ChutesEnd(at) => stamped(
            &mut r.chdt,
            |c| c.cetm = Field::Value(at),
            FlopSubtype::Chdt,
        ),
        Change::FirstBag(at) => stamped(
            &mut r.cldt,
            |c| c.fbag = Field::Value(at),
            FlopSubtype::Cldt,
        ),
        Change::LastBag(at) => stamped(
            &mut r.cldt,
            |c| c.lbag = Field::Value(at),
            FlopSubtype::Cldt,
        ),
        Change::Chocks(chid, at, stand) => {
            add_ground_event(r, GroundEvent::Chocks(chid, at, stand))
        }
        Change::Bridge(abop, at, abdg) => add_ground_event(r, GroundEvent::Bridge(abop, at, abdg)),
        Change::Push(at, stand) => add_ground_event(r, GroundEvent::Push(at, stand)),
        Change::Tractor(at, stand) => add_ground_event(r, GroundEvent::Tractor(at, stand)),
        Change::Door(poid, at) => add_ground_event(r, GroundEvent::Door(poid, at)),
        Change::Delay(code, strt, minutes, text) => {
            merge_delay(r, code, strt, minutes, text);
            FlopSubtype::Dely
        }
        Change::Cancel(at) => set(&mut r.cncl, at, FlopSubtype::Cncl),
        Change::Delete => FlopSubtype::Fdel,
        Change::Aircraft(code) => set(&mut r.acft, code, FlopSubtype::Acft),
        Change::Seats(maxp) => set(&mut r.maxp, maxp, FlopSubtype::Maxp),
        Change::Registration(reno) => set(&mut r.reno, reno, FlopSubtype::Reno),
        Change::Remark(text) => set(&mut r.remc, text.to_owned(), FlopSubtype::Remc),
        Change::External(code, text) => {
            r.exsc = Field::Value(code.to_owned());
            set(&mut r.exsr, text.to_owned(), FlopSubtype::Exss)
        }
        Change::Status(code) => set(&mut r.ftss, code.to_owned(), FlopSubtype::Ftss),
        Change::Divert(to) => {
            let diversion = Diversion {
                ddes: to,
                ddir: DiversionDirection::To,
                text: "weather below minima".to_owned(),
            };
            set(&mut r.fdiv, diversion, FlopSubtype::Fdiv)
        }
        Change::Return(reid, text) => {
            let text = text.to_owned();
            set(&mut r.fret, FlightReturn { reid, text }, FlopSubtype::Fret)
        }
        Change::Abort(ares, text) => {
            let text = text.to_owned();
            set(&mut r.flab, LandingAbort { ares, text }, FlopSubtype::Flab)
        }
        Change::Runway(runway) => set(&mut r.runw, runway.to_owned(), FlopSubtype::Runw),
        Change::Agents(phag, fhag) => {
            r.phag = Field::Value(phag);
            set(&mut r.fhag, fhag, FlopSubtype::Hnag)
        }
        Change::Vip(count, rank) => {
            r.vipp = Field::Value(count);
            set(&mut r.vipr, rank, FlopSubtype::Vipp)
        }
    })
}

/// Sets a scalar to `value`; the update is `subtype`'s.
fn set<T>(field: &mut Field<T>, value: T, subtype: FlopSubtype) -> FlopSubtype {
    *field = Field::Value(value);
    subtype
}

/// Stamps every entry of a collection through `f`; the update is `subtype`'s.
fn stamped<T>(group: &mut Group<T>, f: impl Fn(&mut T), subtype: FlopSubtype) -> FlopSubtype {
    stamp(group, f);
    subtype
}

/// A ground event, added to its list with the next sequence number where the list has one.
enum GroundEvent {
    Chocks(ChockState, NaiveDateTime, String),
    Bridge(char, NaiveDateTime, String),
    Push(NaiveDateTime, String),
    Tractor(NaiveDateTime, String),
    Door(PortAction, NaiveDateTime),
}

fn add_ground_event(r: &mut FlightRecord, event: GroundEvent) -> FlopSubtype {
    match event {
        GroundEvent::Chocks(chid, at, stand) => {
            let csno = next_seq(r.chot.items().len());
            let (chtm, chid, chst) = (Field::Value(at), Field::Value(chid), Field::Value(stand));
            push(
                &mut r.chot,
                ChockEvent {
                    csno,
                    chtm,
                    chid,
                    chst,
                },
            );
            FlopSubtype::Chot
        }
        GroundEvent::Bridge(abop, at, abdg) => {
            let asno = next_seq(r.abtm.items().len());
            let (abdg, abop, aotm) = (Field::Value(abdg), Field::Value(abop), Field::Value(at));
            push(
                &mut r.abtm,
                BridgeEvent {
                    asno,
                    abdg,
                    abop,
                    aotm,
                },
            );
            FlopSubtype::Abtm
        }
        GroundEvent::Push(at, stand) => {
            let pshn = next_seq(r.psht.items().len());
            let (pstm, psid, pust) = (
                Field::Value(at),
                Field::Value("IN".to_owned()),
                Field::Value(stand),
            );
            push(
                &mut r.psht,
                PushEvent {
                    pshn,
                    pstm,
                    psid,
                    pust,
                },
            );
            FlopSubtype::Psht
        }
        GroundEvent::Tractor(at, stand) => {
            let (trtm, trst) = (Field::Value(at), Field::Value(stand));
            push(&mut r.tipt, TractorEvent { trtm, trst });
            FlopSubtype::Tipt
        }
        GroundEvent::Door(poid, at) => {
            let (potm, poid) = (Field::Value(at), Field::Value(poid));
            push(&mut r.port, PortEvent { potm, poid });
            FlopSubtype::Port
        }
    }
}

/// A delay replaces the one with its code, or joins the list (DELY merges by code).
fn merge_delay(
    r: &mut FlightRecord,
    code: &'static str,
    strt: NaiveDateTime,
    minutes: u32,
    text: &'static str,
) {
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
}

/// The FLOP body of `subtype`: the flight's keys and what the subtype carries, as the
/// (changed) record holds it. A collection goes whole, as a FLOP replaces it, except PORT,
/// which carries the one door event just added (PROTOCOL §4.3; the record keeps both).
fn flop_body(flight: &mut Flight, subtype: FlopSubtype) -> FlightRecord {
    let r = &mut flight.record;
    let mut body = FlightRecord {
        flid: r.flid,
        ffid: Field::Value(flight.ffid.clone()),
        ..FlightRecord::default()
    };
    match subtype {
        FlopSubtype::Stnd => body.stnd = r.stnd.clone(),
        FlopSubtype::Psdt => body.psdt = r.psdt.clone(),
        FlopSubtype::Gtdt => body.gtdt = r.gtdt.clone(),
        FlopSubtype::Ckdt => body.ckdt = r.ckdt.clone(),
        FlopSubtype::Chdt => body.chdt = r.chdt.clone(),
        FlopSubtype::Cldt => body.cldt = r.cldt.clone(),
        FlopSubtype::Chot => body.chot = r.chot.clone(),
        FlopSubtype::Abtm => body.abtm = r.abtm.clone(),
        FlopSubtype::Psht => body.psht = r.psht.clone(),
        FlopSubtype::Tipt => body.tipt = r.tipt.clone(),
        FlopSubtype::Port => {
            body.port = Group::Items(r.port.items().last().cloned().into_iter().collect())
        }
        FlopSubtype::Dely => body.dely = r.dely.clone(),
        FlopSubtype::Cncl => body.cncl = r.cncl.clone(),
        FlopSubtype::Fdel => body.fdel = Field::Empty,
        FlopSubtype::Acft => body.acft = r.acft.clone(),
        FlopSubtype::Maxp => body.maxp = r.maxp.clone(),
        FlopSubtype::Reno => body.reno = r.reno.clone(),
        FlopSubtype::Remc => body.remc = r.remc.clone(),
        FlopSubtype::Exss => (body.exsc, body.exsr) = (r.exsc.clone(), r.exsr.clone()),
        FlopSubtype::Ftss => body.ftss = r.ftss.clone(),
        FlopSubtype::Fdiv => body.fdiv = r.fdiv.clone(),
        FlopSubtype::Fret => body.fret = r.fret.clone(),
        FlopSubtype::Flab => body.flab = r.flab.clone(),
        FlopSubtype::Runw => body.runw = r.runw.clone(),
        FlopSubtype::Hnag => {
            (body.phag, body.fhag, body.mhag) = (r.phag.clone(), r.fhag.clone(), r.mhag.clone());
        }
        FlopSubtype::Vipp => (body.vipp, body.vipr) = (r.vipp.clone(), r.vipr.clone()),
        time => {
            if let Some(at) = time_field(r, time).map(|slot| slot.clone())
                && let Some(slot) = time_field(&mut body, time)
            {
                *slot = at;
            }
        }
    }
    body
}
