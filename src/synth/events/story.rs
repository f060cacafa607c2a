//! Each flight's story through the day: when it is retimed, boards,
//! lands or leaves, and which FLOP says so, in time order.
//!
//! Each step below draws from the flight's random stream in a fixed order;
//! the order is part of what a seed means (the same seed, the same day), so
//! a new step goes after the others, never between them.

use super::*;
use crate::synth::plan::Visit;

/// A flight's updates with the time each is sent, unordered.
type Updates = Vec<(NaiveDateTime, Change)>;

/// Where the aircraft stands through the turnaround, after any stand change.
struct Parking<'a> {
    stand: String,
    /// At a contact stand: the bridges dock and undock.
    contact: bool,
    bridges: &'a [String],
}

/// The updates one flight receives, unordered.
pub(super) fn story(plan: &Plan, index: usize, rng: &mut Rng) -> Updates {
    let flight = &plan.flights[index];
    let visit = &plan.visits[flight.visit];
    let mut out = Updates::new();
    if let Some(at) = flight.announced {
        out.push((at, Change::Announce));
    }
    if flight.record.cncl.value().is_some() {
        // Cancelled before the day began: nothing more happens to it.
        return out;
    }
    let parking = parking(visit, &mut out);
    incidents(flight, index, rng, &mut out);
    if ends_before_operating(flight, rng, &mut out) {
        return out;
    }
    delays(flight, rng, &mut out);
    match flight.mvin {
        Movement::Arrival => arrival(flight, &parking, rng, &mut out),
        Movement::Departure => departure(flight, &parking, rng, &mut out),
    }
    partner_ground_events(plan, flight, &parking, &mut out);
    out
}

/// The stand the aircraft really uses, and the stand change that moves it there.
fn parking<'a>(visit: &'a Visit, out: &mut Updates) -> Parking<'a> {
    let planned_stand = visit.stands[0].clone();
    let (stand, contact) = match &visit.stand_change {
        Some((at, to)) => {
            out.push((*at, Change::StandPlan(planned_stand, to.clone())));
            (to.clone(), false)
        }
        None => (planned_stand, !visit.bridges.is_empty()),
    };
    Parking {
        stand,
        contact,
        bridges: &visit.bridges,
    }
}

/// What may happen to any flight hours before it operates: a remark, new
/// handling agents, an aircraft swap, a bus gate, VIPs.
fn incidents(flight: &Flight, index: usize, rng: &mut Rng, out: &mut Updates) {
    let s = flight.sodt;
    if rng.chance(0.05) {
        out.push((
            s - minutes(rng.range(120, 300)),
            Change::Remark(REMARKS[rng.index(REMARKS.len())]),
        ));
    }
    if rng.chance(0.02) {
        let agent = flight.record.phag.value().copied().unwrap_or(110001) + 1;
        out.push((
            s - minutes(rng.range(150, 300)),
            Change::Agents(agent, agent),
        ));
    }
    if rng.chance(0.02) {
        // An aircraft swap: type, seats and registration follow one another.
        let at = s - minutes(rng.range(150, 240));
        let (code, seats) = if flight.wide {
            ("333", 300)
        } else {
            ("321", 194)
        };
        out.push((at, Change::Aircraft(code.to_owned())));
        out.push((at + minutes(1), Change::Seats(seats)));
        out.push((
            at + minutes(2),
            Change::Registration(format!("B{}", 3000 + index % 7000)),
        ));
    }
    if rng.chance(0.08) {
        let gates = &flight.terminal.bus_gates;
        let gate = rng.range(i64::from(*gates.start()), i64::from(*gates.end()));
        out.push((
            s - minutes(rng.range(60, 120)),
            Change::Gate(gate.to_string()),
        ));
    }
    if rng.chance(0.02) {
        out.push((
            s - minutes(rng.range(60, 200)),
            Change::Vip(rng.range(1, 4) as u32, rng.range(1, 3) as u8),
        ));
    }
}

/// A flight cancelled or deleted during the day: its last updates, and true.
fn ends_before_operating(flight: &Flight, rng: &mut Rng, out: &mut Updates) -> bool {
    let s = flight.sodt;
    match flight.fate {
        Fate::Cancelled => {
            let at = s - minutes(rng.range(30, 240));
            out.push((at, Change::Cancel(at)));
            out.push((at + minutes(1), Change::Status("CNL")));
            true
        }
        Fate::Deleted => {
            out.push((s - minutes(rng.range(60, 300)), Change::Delete));
            true
        }
        _ => false,
    }
}

/// A delay of a quarter of an hour or more: its codes, and at times an
/// external status.
fn delays(flight: &Flight, rng: &mut Rng, out: &mut Updates) {
    let s = flight.sodt;
    let late = flight.delay;
    if late < 15 {
        return;
    }
    let (code, text) = *rng.pick(DELAY_CODES);
    let at = s - minutes(rng.range(20, 60));
    if late > 30 && rng.chance(0.5) {
        // A long delay is often split between a knock-on and its own cause.
        let (second, why) = *rng.pick(DELAY_CODES);
        let part = late / 2;
        out.push((at, Change::Delay(code, s, part as u32, text)));
        if second != code {
            out.push((
                at + minutes(1),
                Change::Delay(second, s + minutes(part), (late - part) as u32, why),
            ));
        }
    } else {
        out.push((at, Change::Delay(code, s, late as u32, text)));
    }
    if rng.chance(0.5) {
        let (code, text) = EXTERNAL_STATUSES[rng.index(4)];
        out.push((at + minutes(1), Change::External(code, text)));
    }
}

/// AODB keeps the ground events of a turnaround on both of its flights: the
/// arrival also gets the off-blocks and undocking, the departure the
/// in-blocks and docking.
fn partner_ground_events(plan: &Plan, flight: &Flight, parking: &Parking, out: &mut Updates) {
    let visit = &plan.visits[flight.visit];
    let partner = match flight.mvin {
        Movement::Arrival => visit.departure,
        Movement::Departure => visit.arrival,
    };
    let Some(partner) = partner.map(|p| &plan.flights[p]) else {
        return;
    };
    if !operates(partner) || flight.fate == Fate::Diverted || flight.fate == Fate::Returned {
        return;
    }
    let block = partner.sodt + minutes(partner.delay);
    let stand = &parking.stand;
    match flight.mvin {
        Movement::Arrival => {
            out.push((
                block - minutes(1),
                Change::Chocks(ChockState::Off, block - minutes(1), stand.clone()),
            ));
            if parking.contact {
                for bridge in parking.bridges {
                    out.push((
                        block - minutes(4),
                        Change::Bridge('D', block - minutes(4), bridge.clone()),
                    ));
                }
            }
        }
        Movement::Departure => {
            out.push((block, Change::Chocks(ChockState::On, block, stand.clone())));
            if parking.contact {
                for bridge in parking.bridges {
                    out.push((
                        block + minutes(2),
                        Change::Bridge('A', block + minutes(2), bridge.clone()),
                    ));
                }
            }
        }
    }
}

/// Whether a flight reaches its block here: not cancelled, deleted or diverted.
pub(super) fn operates(flight: &Flight) -> bool {
    flight.record.cncl.value().is_none()
        && matches!(flight.fate, Fate::Normal | Fate::GoAround | Fate::Returned)
}

fn arrival(flight: &Flight, parking: &Parking, rng: &mut Rng, out: &mut Updates) {
    let s = flight.sodt;
    let in_block = s + minutes(flight.delay);
    let off_origin = in_block - minutes(flight.block);
    if rng.chance(0.35) {
        out.push((
            off_origin - minutes(60),
            Change::Time(FlopSubtype::Pedt, off_origin),
        ));
    }
    if rng.chance(0.6) {
        out.push((
            off_origin + minutes(2),
            Change::Time(FlopSubtype::Padt, off_origin),
        ));
    }
    out.push((off_origin + minutes(3), Change::Status("AIR")));
    if rng.chance(0.4) {
        out.push((
            in_block - minutes(60),
            Change::Time(FlopSubtype::Iest, in_block),
        ));
    }
    if flight.fate == Fate::Diverted {
        let to = if flight.international { "CKG" } else { "KWE" };
        out.push((in_block - minutes(20), Change::Divert(to.to_owned())));
        out.push((in_block - minutes(19), Change::Status("DIV")));
        return;
    }
    if flight.fate == Fate::GoAround {
        out.push((
            in_block - minutes(12),
            Change::Abort(AbortKind::GoAround, "unstable approach"),
        ));
    }
    let stand = &parking.stand;
    out.push((in_block - minutes(25), Change::Stand(stand.clone())));
    if rng.chance(0.3) {
        out.push((
            in_block - minutes(8),
            Change::Runway(RUNWAYS[rng.index(RUNWAYS.len())]),
        ));
    }
    out.push((
        in_block,
        Change::Chocks(ChockState::On, in_block, stand.clone()),
    ));
    out.push((in_block, Change::Status("ARR")));
    if parking.contact {
        for bridge in parking.bridges {
            out.push((
                in_block + minutes(2),
                Change::Bridge('A', in_block + minutes(2), bridge.clone()),
            ));
        }
    }
    if rng.chance(0.25) {
        out.push((
            in_block + minutes(3),
            Change::Door(PortAction::Open, in_block + minutes(3)),
        ));
    }
    let first = in_block + minutes(rng.range(8, 15));
    let last = first + minutes(if flight.wide { 40 } else { 25 });
    out.push((first, Change::FirstBag(first)));
    out.push((last, Change::LastBag(last)));
}

/// A departure from its counters opening to its next estimate: check-in,
/// the off-block estimates, boarding, the push-back, and the departure (or
/// its return).
fn departure(flight: &Flight, parking: &Parking, rng: &mut Rng, out: &mut Updates) {
    let off_block = flight.sodt + minutes(flight.delay);
    check_in(flight, rng, out);
    off_block_estimates(flight, off_block, rng, out);
    boarding(flight, off_block, &parking.stand, rng, out);
    push_back(off_block, parking, rng, out);
    if flight.fate == Fate::Returned {
        let (kind, why) = if rng.chance(0.5) {
            (ReturnKind::Ground, "passenger unwell")
        } else {
            (ReturnKind::Air, "cabin pressure warning")
        };
        out.push((off_block + minutes(20), Change::Return(kind, why)));
        out.push((off_block + minutes(21), Change::Status("RTN")));
        return;
    }
    departed(flight, off_block, rng, out);
}

/// The check-in counters and baggage chutes opening and closing, the
/// closing moved by the delay.
fn check_in(flight: &Flight, rng: &mut Rng, out: &mut Updates) {
    let late = minutes(flight.delay.max(0));
    if let Some(c) = flight.record.ckdt.items().first()
        && rng.chance(0.5)
        && let (Some(open), Some(close)) = (c.pcot.value(), c.pcct.value())
    {
        out.push((*open, Change::CountersOpen(*open)));
        out.push((*close + late, Change::CountersClose(*close + late)));
    }
    if let Some(c) = flight.record.chdt.items().first()
        && rng.chance(0.3)
        && let (Some(begin), Some(end)) = (c.pcbt.value(), c.pcet.value())
    {
        out.push((*begin, Change::ChutesBegin(*begin)));
        out.push((*end + late, Change::ChutesEnd(*end + late)));
    }
}

/// EOBT, TOBT, COBT and CTOT, sent hours before the flight.
fn off_block_estimates(
    flight: &Flight,
    off_block: NaiveDateTime,
    rng: &mut Rng,
    out: &mut Updates,
) {
    let s = flight.sodt;
    if rng.chance(0.4) {
        out.push((s - minutes(180), Change::Time(FlopSubtype::Eobt, off_block)));
    }
    if rng.chance(0.7) {
        out.push((s - minutes(60), Change::Time(FlopSubtype::Tobt, off_block)));
    }
    if flight.delay >= 10 && rng.chance(0.5) {
        out.push((s - minutes(90), Change::Time(FlopSubtype::Cobt, off_block)));
    }
    if rng.chance(0.15) {
        out.push((
            s - minutes(60),
            Change::Time(FlopSubtype::Ctot, off_block + minutes(15)),
        ));
    }
}

/// The stand, the gates opening and closing, boarding, the load sheet, the
/// final call and the door closing.
fn boarding(
    flight: &Flight,
    off_block: NaiveDateTime,
    stand: &str,
    rng: &mut Rng,
    out: &mut Updates,
) {
    if rng.chance(0.6) {
        out.push((off_block - minutes(70), Change::Stand(stand.to_owned())));
    }
    let boarding = off_block - minutes(if flight.wide { 50 } else { 40 });
    if rng.chance(0.6) {
        out.push((
            boarding - minutes(5),
            Change::GatesOpen(boarding - minutes(5)),
        ));
        out.push((
            off_block - minutes(8),
            Change::GatesClose(off_block - minutes(8)),
        ));
    }
    if rng.chance(0.9) {
        out.push((boarding, Change::Time(FlopSubtype::Botm, boarding)));
        out.push((boarding, Change::Status("BRD")));
    }
    if rng.chance(0.8) {
        out.push((
            off_block - minutes(20),
            Change::Time(FlopSubtype::Lacl, off_block - minutes(20)),
        ));
    }
    if rng.chance(0.7) {
        out.push((
            off_block - minutes(10),
            Change::Time(FlopSubtype::Fint, off_block - minutes(10)),
        ));
        out.push((off_block - minutes(10), Change::Status("GCL")));
    }
    if rng.chance(0.25) {
        out.push((
            off_block - minutes(6),
            Change::Door(PortAction::Close, off_block - minutes(6)),
        ));
    }
}

/// Undocking, the tractor, engine start, off-blocks, the push and the runway.
fn push_back(off_block: NaiveDateTime, parking: &Parking, rng: &mut Rng, out: &mut Updates) {
    let stand = &parking.stand;
    if parking.contact {
        for bridge in parking.bridges {
            out.push((
                off_block - minutes(4),
                Change::Bridge('D', off_block - minutes(4), bridge.clone()),
            ));
        }
        if rng.chance(0.5) {
            out.push((
                off_block - minutes(8),
                Change::Tractor(off_block - minutes(8), stand.clone()),
            ));
        }
    }
    if rng.chance(0.2) {
        out.push((
            off_block - minutes(2),
            Change::Time(FlopSubtype::Egsr, off_block - minutes(2)),
        ));
        out.push((
            off_block + minutes(1),
            Change::Time(FlopSubtype::Egst, off_block + minutes(1)),
        ));
    }
    out.push((
        off_block - minutes(1),
        Change::Chocks(ChockState::Off, off_block - minutes(1), stand.clone()),
    ));
    if parking.contact {
        out.push((off_block, Change::Push(off_block, stand.clone())));
    }
    if rng.chance(0.3) {
        out.push((
            off_block + minutes(5),
            Change::Runway(RUNWAYS[rng.index(RUNWAYS.len())]),
        ));
    }
}

/// Departed: the status, and the next station's estimate and arrival.
fn departed(flight: &Flight, off_block: NaiveDateTime, rng: &mut Rng, out: &mut Updates) {
    out.push((off_block + minutes(12), Change::Status("DEP")));
    let next = off_block + minutes(flight.block + 10);
    if rng.chance(0.2) {
        out.push((
            off_block + minutes(30),
            Change::Time(FlopSubtype::Neat, next),
        ));
    }
    if rng.chance(0.2) {
        out.push((next + minutes(2), Change::Time(FlopSubtype::Naat, next)));
    }
    if rng.chance(0.05) {
        out.push((
            off_block + minutes(15),
            Change::Time(FlopSubtype::Appt, off_block + minutes(12)),
        ));
    }
}
