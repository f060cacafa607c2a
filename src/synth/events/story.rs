//! Each flight's story through the day: when it is retimed, boards,
//! lands or leaves, and which FLOP says so, in time order.

use super::*;

/// The updates one flight receives, unordered.
pub(super) fn story(plan: &Plan, index: usize, rng: &mut Rng) -> Vec<(NaiveDateTime, Change)> {
    let flight = &plan.flights[index];
    let visit = &plan.visits[flight.visit];
    let mut out: Vec<(NaiveDateTime, Change)> = Vec::new();
    let s = flight.sodt;
    if let Some(at) = flight.announced {
        out.push((at, Change::Announce));
    }
    if flight.record.cncl.value().is_some() {
        // Cancelled before the day began: nothing more happens to it.
        return out;
    }
    // The stand the aircraft really uses, after a stand change.
    let planned_stand = visit.stands[0].clone();
    let (stand, contact) = match &visit.stand_change {
        Some((at, to)) => {
            out.push((*at, Change::StandPlan(planned_stand.clone(), to.clone())));
            (to.clone(), false)
        }
        None => (planned_stand, !visit.bridges.is_empty()),
    };
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
    match flight.fate {
        Fate::Cancelled => {
            let at = s - minutes(rng.range(30, 240));
            out.push((at, Change::Cancel(at)));
            out.push((at + minutes(1), Change::Status("CNL")));
            return out;
        }
        Fate::Deleted => {
            out.push((s - minutes(rng.range(60, 300)), Change::Delete));
            return out;
        }
        _ => {}
    }
    let late = flight.delay;
    if late >= 15 {
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
    match flight.mvin {
        Movement::Arrival => arrival(flight, &stand, contact, &visit.bridges, rng, &mut out),
        Movement::Departure => departure(flight, &stand, contact, &visit.bridges, rng, &mut out),
    }
    // AODB keeps the ground events of a turnaround on both of its flights: the arrival
    // also gets the off-blocks and undocking, the departure the in-blocks and docking.
    let partner = match flight.mvin {
        Movement::Arrival => visit.departure,
        Movement::Departure => visit.arrival,
    };
    if let Some(partner) = partner.map(|p| &plan.flights[p])
        && operates(partner)
        && flight.fate != Fate::Diverted
        && flight.fate != Fate::Returned
    {
        match flight.mvin {
            Movement::Arrival => {
                let off_block = partner.sodt + minutes(partner.delay);
                out.push((
                    off_block - minutes(1),
                    Change::Chocks(ChockState::Off, off_block - minutes(1), stand.clone()),
                ));
                if contact {
                    for bridge in &visit.bridges {
                        out.push((
                            off_block - minutes(4),
                            Change::Bridge('D', off_block - minutes(4), bridge.clone()),
                        ));
                    }
                }
            }
            Movement::Departure => {
                let in_block = partner.sodt + minutes(partner.delay);
                out.push((
                    in_block,
                    Change::Chocks(ChockState::On, in_block, stand.clone()),
                ));
                if contact {
                    for bridge in &visit.bridges {
                        out.push((
                            in_block + minutes(2),
                            Change::Bridge('A', in_block + minutes(2), bridge.clone()),
                        ));
                    }
                }
            }
        }
    }
    out
}

/// Whether a flight reaches its block here: not cancelled, deleted or diverted.
pub(super) fn operates(flight: &Flight) -> bool {
    flight.record.cncl.value().is_none()
        && matches!(flight.fate, Fate::Normal | Fate::GoAround | Fate::Returned)
}

pub(super) fn arrival(
    flight: &Flight,
    stand: &str,
    contact: bool,
    bridges: &[String],
    rng: &mut Rng,
    out: &mut Vec<(NaiveDateTime, Change)>,
) {
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
    out.push((in_block - minutes(25), Change::Stand(stand.to_owned())));
    if rng.chance(0.3) {
        out.push((
            in_block - minutes(8),
            Change::Runway(RUNWAYS[rng.index(RUNWAYS.len())]),
        ));
    }
    out.push((
        in_block,
        Change::Chocks(ChockState::On, in_block, stand.to_owned()),
    ));
    out.push((in_block, Change::Status("ARR")));
    if contact {
        for bridge in bridges {
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

pub(super) fn departure(
    flight: &Flight,
    stand: &str,
    contact: bool,
    bridges: &[String],
    rng: &mut Rng,
    out: &mut Vec<(NaiveDateTime, Change)>,
) {
    let s = flight.sodt;
    let off_block = s + minutes(flight.delay);
    let counters = flight.record.ckdt.items().first();
    if let Some(c) = counters
        && rng.chance(0.5)
        && let (Some(open), Some(close)) = (c.pcot.value(), c.pcct.value())
    {
        out.push((*open, Change::CountersOpen(*open)));
        out.push((
            *close + minutes(flight.delay.max(0)),
            Change::CountersClose(*close + minutes(flight.delay.max(0))),
        ));
    }
    if let Some(c) = flight.record.chdt.items().first()
        && rng.chance(0.3)
        && let (Some(begin), Some(end)) = (c.pcbt.value(), c.pcet.value())
    {
        out.push((*begin, Change::ChutesBegin(*begin)));
        out.push((
            *end + minutes(flight.delay.max(0)),
            Change::ChutesEnd(*end + minutes(flight.delay.max(0))),
        ));
    }
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
    if contact {
        for bridge in bridges {
            out.push((
                off_block - minutes(4),
                Change::Bridge('D', off_block - minutes(4), bridge.clone()),
            ));
        }
        if rng.chance(0.5) {
            out.push((
                off_block - minutes(8),
                Change::Tractor(off_block - minutes(8), stand.to_owned()),
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
        Change::Chocks(ChockState::Off, off_block - minutes(1), stand.to_owned()),
    ));
    if contact {
        out.push((off_block, Change::Push(off_block, stand.to_owned())));
    }
    if rng.chance(0.3) {
        out.push((
            off_block + minutes(5),
            Change::Runway(RUNWAYS[rng.index(RUNWAYS.len())]),
        ));
    }
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
