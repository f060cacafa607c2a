//! Turnarounds linked both ways, and each flight's fate for the day
//! (operated, delayed, cancelled, diverted, …).

use super::*;

impl Planner<'_> {
    /// Links a turnaround both ways.
    pub(super) fn link(&mut self, arrival: usize, departure: usize) {
        let pair = [(arrival, departure), (departure, arrival)];
        for (from, to) in pair {
            let (alcd, flno, flid) = {
                let r = &self.plan.flights[to].record;
                (r.alcd.clone(), r.flno.clone(), r.flid)
            };
            let r = &mut self.plan.flights[from].record;
            r.taop = alcd;
            r.tafl = flno;
            r.taid = Field::Value(flid);
        }
        // A departure leaves no earlier than its aircraft arrived and turned.
        let arrival_delay = self.plan.flights[arrival].delay;
        let slack = (self.plan.flights[departure].sodt - self.plan.flights[arrival].sodt)
            .num_minutes()
            - 40;
        let dep = &mut self.plan.flights[departure];
        dep.delay = dep.delay.max(arrival_delay - slack);
    }

    /// Irregular fates on a few flights: at least one of each on any day of 50 flights or
    /// more, so that every day exercises every irregular message.
    pub(super) fn assign_fates(&mut self) {
        let n = self.plan.flights.len();
        if n < 50 {
            return;
        }
        let quota = |share: f64| ((n as f64 * share).round() as usize).max(1);
        let wanted = [
            (Fate::Cancelled, None, quota(0.01)),
            (Fate::Deleted, None, quota(0.002)),
            (Fate::Diverted, Some(Movement::Arrival), quota(0.003)),
            (Fate::GoAround, Some(Movement::Arrival), quota(0.005)),
            (Fate::Returned, Some(Movement::Departure), quota(0.003)),
        ];
        for (fate, movement, count) in wanted {
            let mut given = 0;
            let mut tries = 0;
            while given < count && tries < n * 4 {
                tries += 1;
                let i = self.rng.index(n);
                let f = &mut self.plan.flights[i];
                if f.fate == Fate::Normal && movement.is_none_or(|m| m == f.mvin) {
                    f.fate = fate;
                    given += 1;
                }
            }
        }
        // A few flights are already cancelled when the day's snapshot is sent.
        for _ in 0..quota(0.003) {
            let i = self.rng.index(n);
            let f = &mut self.plan.flights[i];
            if f.fate == Fate::Normal {
                f.fate = Fate::Cancelled;
                f.record.cncl =
                    Field::Value(self.day.and_time(NaiveTime::MIN) - Duration::hours(3));
                f.record.ftss = Field::Value("CNL".to_owned());
            }
        }
        // Stand changes are decided per visit, so both flights of a turnaround follow them.
        for v in 0..self.plan.visits.len() {
            if self.rng.chance(0.06) {
                let stand = self.pick_in(&REMOTE_STANDS).to_string();
                let first = self
                    .plan
                    .flights
                    .iter()
                    .filter(|f| f.visit == v)
                    .map(|f| f.sodt)
                    .min();
                if let Some(first) = first {
                    let at = first - Duration::minutes(self.rng.range(70, 150));
                    let visit = &mut self.plan.visits[v];
                    visit.stand_change = Some((at, stand));
                }
            }
        }
    }
}
