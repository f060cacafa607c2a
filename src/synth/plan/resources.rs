//! A planned flight's route and resources: its airports and times on the
//! way, and the stands, gates, counters and belts it is given.

use super::*;

impl Planner<'_> {
    /// The itinerary other than here, in flying order, with the scheduled time at each
    /// stop: `(airport, arrival there, departure from there)`.
    pub(super) fn route(
        &mut self,
        first: &'static Airport,
        mvin: Movement,
        sodt: NaiveDateTime,
    ) -> Vec<(
        &'static Airport,
        Option<NaiveDateTime>,
        Option<NaiveDateTime>,
    )> {
        // A quarter of the flights stop once more beyond the first airport; an international
        // flight may instead stop at a domestic airport first (a mixed flight).
        let mut stops = vec![first];
        if self.rng.chance(0.25) && !self.domestic.is_empty() {
            if first.international && self.rng.chance(0.4) {
                let via = self.domestic[self.rng.index(self.domestic.len())];
                stops.insert(0, via);
            } else {
                let pool = if first.international && !self.international.is_empty() {
                    &self.international
                } else {
                    &self.domestic
                };
                let beyond = pool[self.rng.index(pool.len())];
                if beyond.code != first.code {
                    stops.push(beyond);
                }
            }
        }
        let mut points = Vec::new();
        match mvin {
            Movement::Departure => {
                let mut t = sodt;
                for (i, stop) in stops.iter().enumerate() {
                    let leg = if i == 0 {
                        stop.block
                    } else {
                        self.slot(60, 180)
                    };
                    let arrive = t + Duration::minutes(leg);
                    let leave = (i + 1 < stops.len()).then(|| arrive + Duration::minutes(45));
                    points.push((*stop, Some(arrive), leave));
                    t = leave.unwrap_or(arrive);
                }
            }
            Movement::Arrival => {
                // Walk backwards from here.
                let mut t = sodt;
                for (i, stop) in stops.iter().enumerate() {
                    let leg = if i == 0 {
                        stop.block
                    } else {
                        self.slot(60, 180)
                    };
                    let leave = t - Duration::minutes(leg);
                    let arrive = (i + 1 < stops.len()).then(|| leave - Duration::minutes(45));
                    points.insert(0, (*stop, arrive, Some(leave)));
                    t = arrive.unwrap_or(leave);
                }
            }
        }
        points
    }

    pub(super) fn write_route(
        &self,
        record: &mut FlightRecord,
        route: &[(
            &'static Airport,
            Option<NaiveDateTime>,
            Option<NaiveDateTime>,
        )],
        mvin: Movement,
        sodt: NaiveDateTime,
    ) {
        let point = |rtno: usize,
                     apcd: &str,
                     scat: Option<NaiveDateTime>,
                     scdt: Option<NaiveDateTime>| RoutePoint {
            rtno: Field::Value(rtno as u32),
            apcd: Field::Value(apcd.to_owned()),
            scat: scat.map_or(Field::Absent, Field::Value),
            scdt: scdt.map_or(Field::Absent, Field::Value),
        };
        // ROUT: the other stops seen from here, with the time that matters from here
        // (departure from a previous stop, arrival at a next one).
        let rout = route
            .iter()
            .enumerate()
            .map(|(i, (a, scat, scdt))| match mvin {
                Movement::Arrival => point(i + 1, a.code, None, *scdt),
                Movement::Departure => point(i + 1, a.code, *scat, None),
            })
            .collect();
        let home = match mvin {
            Movement::Arrival => (self.home, Some(sodt), None),
            Movement::Departure => (self.home, None, Some(sodt)),
        };
        let mut erut: Vec<(&str, Option<NaiveDateTime>, Option<NaiveDateTime>)> =
            route.iter().map(|(a, s, d)| (a.code, *s, *d)).collect();
        match mvin {
            Movement::Arrival => erut.push(home),
            Movement::Departure => erut.insert(0, home),
        }
        record.rout = Group::Items(rout);
        record.erut = Group::Items(
            erut.iter()
                .enumerate()
                .map(|(i, (a, s, d))| point(i + 1, a, *s, *d))
                .collect(),
        );
    }

    /// Gates, counters, chutes, belts and stands around the scheduled time, and a delay
    /// already known the evening before for a few flights.
    pub(super) fn resources(&mut self, flight: &mut Flight) {
        let s = flight.sodt;
        let at = |m: i64| s + Duration::minutes(m);
        let kind = if flight.international { 'I' } else { 'D' };
        let terminal = flight.terminal;
        let contact_stand = self
            .plan
            .visits
            .get(flight.visit)
            .filter(|v| !v.bridges.is_empty())
            .map(|v| v.stands[0].clone());
        let (open, close) = match flight.mvin {
            Movement::Arrival => (at(-10), at(20)),
            Movement::Departure => (at(if flight.wide { -60 } else { -50 }), at(-10)),
        };
        let gate_count = if self.rng.chance(0.5) { 2 } else { 1 };
        let mut gates = Vec::new();
        for n in 0..gate_count {
            let gate = match (&contact_stand, n) {
                (Some(stand), 0) => stand.clone(),
                _ => self.pick_in(&terminal.bus_gates).to_string(),
            };
            gates.push(GateAllocation {
                gtno: Field::Value(n + 1),
                gate: Field::Value(gate),
                pgot: Field::Value(open),
                pgct: Field::Value(close),
                gtyp: Field::Value(kind),
                ..GateAllocation::default()
            });
        }
        flight.record.gtdt = Group::Items(gates);
        match flight.mvin {
            Movement::Departure => {
                let (lo, hi) = if flight.wide { (4, 8) } else { (2, 7) };
                let count = self.rng.range(lo, hi) as u32;
                let row = *self.rng.pick(terminal.counter_rows);
                let start = self.rng.range(1, i64::from(24 - count + 1)) as u32;
                let early = if flight.international { -180 } else { -150 };
                let late = if flight.international { -60 } else { -45 };
                let premium = if flight.wide { 2 } else { 1 };
                flight.record.ckdt = Group::Items(
                    (0..count)
                        .map(|i| CounterAllocation {
                            ckno: Field::Value(i + 1),
                            chkc: Field::Value(format!("{row}{:02}", start + i)),
                            ccls: Field::Value(if i < premium { 'C' } else { 'Y' }),
                            pcot: Field::Value(at(early)),
                            pcct: Field::Value(at(late)),
                            ctyp: Field::Value(kind),
                            ..CounterAllocation::default()
                        })
                        .collect(),
                );
                let chutes = if flight.wide || self.rng.chance(0.4) {
                    2
                } else {
                    1
                };
                flight.record.chdt = Group::Items(
                    (0..chutes)
                        .map(|i| ChuteAllocation {
                            chno: Field::Value(i + 1),
                            chut: Field::Value(format!("CH{:02}", self.pick_in(&terminal.chutes))),
                            ccls: Field::Value(if i == 0 { 'Y' } else { 'C' }),
                            pcbt: Field::Value(at(early + 20)),
                            pcet: Field::Value(at(-30)),
                            ctyp: Field::Value(kind),
                            ..ChuteAllocation::default()
                        })
                        .collect(),
                );
            }
            Movement::Arrival => {
                let belts = if flight.wide || self.rng.chance(0.5) {
                    2
                } else {
                    1
                };
                let belt_end = if flight.wide { 60 } else { 45 };
                flight.record.cldt = Group::Items(
                    (0..belts)
                        .map(|i| CarouselAllocation {
                            clno: Field::Value(i + 1),
                            belt: Field::Value(format!("B{:02}", self.pick_in(&terminal.belts))),
                            bcls: Field::Value('Y'),
                            pcot: Field::Value(at(10)),
                            pcct: Field::Value(at(belt_end)),
                            btyp: Field::Value(kind),
                            ..CarouselAllocation::default()
                        })
                        .collect(),
                );
            }
        }
        if flight.delay >= 60 && self.rng.chance(0.5) {
            // Long delays are often known the evening before (rotation, flow control).
            let (code, text) = *self.rng.pick(super::super::catalog::DELAY_CODES);
            flight.record.dely = Group::Items(vec![Delay {
                code: Field::Value(code.to_owned()),
                strt: Field::Value(s),
                dura: Field::Value(Minutes(flight.delay as u32)),
                text: text.to_owned(),
            }]);
        }
    }

    /// Planned stands (PSDT), once every visit knows its flights: a long turnaround is
    /// towed to a remote stand and back, so both flights carry three allocations.
    pub(super) fn plan_stands(&mut self) {
        let mut times: Vec<(Option<NaiveDateTime>, Option<NaiveDateTime>)> =
            vec![(None, None); self.plan.visits.len()];
        for (i, f) in self.plan.flights.iter().enumerate() {
            let visit = &mut self.plan.visits[f.visit];
            match f.mvin {
                Movement::Arrival => {
                    times[f.visit].0 = Some(f.sodt);
                    visit.arrival = Some(i);
                }
                Movement::Departure => {
                    times[f.visit].1 = Some(f.sodt);
                    visit.departure = Some(i);
                }
            }
        }
        let mut allocations = Vec::with_capacity(times.len());
        for (v, (arrival, departure)) in times.into_iter().enumerate() {
            let first = self.plan.visits[v].stands[0].clone();
            let minutes = |m: i64| Duration::minutes(m);
            let start = arrival.map_or_else(
                || departure.map(|d| d - minutes(120)),
                |a| Some(a - minutes(5)),
            );
            let end = departure.map_or_else(
                || arrival.map(|a| a + minutes(120)),
                |d| Some(d + minutes(5)),
            );
            let mut stands: Vec<(String, Option<NaiveDateTime>, Option<NaiveDateTime>)> =
                vec![(first.clone(), start, end)];
            if let (Some(a), Some(d)) = (arrival, departure)
                && (d - a).num_minutes() >= 150
                && self.rng.chance(0.6)
            {
                let remote = self.pick_in(&REMOTE_STANDS).to_string();
                stands = vec![
                    (first.clone(), start, Some(a + minutes(30))),
                    (remote.clone(), Some(a + minutes(30)), Some(d - minutes(60))),
                    (first, Some(d - minutes(60)), end),
                ];
                self.plan.visits[v].stands = vec![stands[0].0.clone(), remote, stands[2].0.clone()];
            }
            allocations.push(Group::Items(
                stands
                    .into_iter()
                    .enumerate()
                    .map(|(i, (psst, stst, stet))| StandAllocation {
                        psno: Field::Value(i as u32 + 1),
                        psst: Field::Value(psst),
                        stst: stst.map_or(Field::Absent, Field::Value),
                        stet: stet.map_or(Field::Absent, Field::Value),
                    })
                    .collect(),
            ));
        }
        for f in &mut self.plan.flights {
            f.record.psdt = allocations[f.visit].clone();
        }
    }
}
