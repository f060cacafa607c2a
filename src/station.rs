//! Time: the UTC clock of the bookkeeping ([`utc_now`]), the station's wall
//! clock and what follows from it: the operation day it is now, and which
//! past operation days `cleanup.history_days` retires.
//!
//! AODB reads every local time it is sent (an RQFD's DTTM) as the station's
//! wall clock, whatever the zone of the host or container flightstate runs
//! on, so "now" as the station sees it comes from the configured zone
//! (`station.time_zone`) and never from the process's `TZ` by accident.

use chrono::{NaiveDate, NaiveDateTime, NaiveTime, Utc};
use chrono_tz::Tz;

use crate::state::day_of;

/// The current time as the state database stores bookkeeping times (UTC):
/// leases, attempts, outbox rows. Only what AODB reads or sends is on the
/// station's clock ([`StationClock`]).
#[must_use]
pub fn utc_now() -> NaiveDateTime {
    Utc::now().naive_utc()
}

/// Reads the station's local time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StationClock {
    zone: Option<Tz>,
}

impl StationClock {
    /// The clock of `zone`; `None` is the host's zone.
    #[must_use]
    pub fn new(zone: Option<Tz>) -> Self {
        StationClock { zone }
    }

    /// The station's wall-clock time at the UTC instant `utc`.
    #[must_use]
    pub fn local_at(&self, utc: NaiveDateTime) -> NaiveDateTime {
        let instant = utc.and_utc();
        match self.zone {
            Some(zone) => instant.with_timezone(&zone).naive_local(),
            None => instant.with_timezone(&chrono::Local).naive_local(),
        }
    }

    /// The station's wall-clock time now.
    #[must_use]
    pub fn now(&self) -> NaiveDateTime {
        self.local_at(Utc::now().naive_utc())
    }

    /// Whether the zone was configured (`false`: the host's zone stands in).
    #[must_use]
    pub fn is_configured(&self) -> bool {
        self.zone.is_some()
    }

    /// The zone's name, or `host` where none is configured.
    #[must_use]
    pub fn zone_name(&self) -> &str {
        self.zone.as_ref().map_or("host", |zone| zone.name())
    }
}

/// The rule of `cleanup.history_days`: an operation day older than the
/// station's today minus `days` is retired — its flights removed with
/// tombstones, its ledger and list removed, and a snapshot of it refused
/// (`docs/open-questions.md`, "Past operation days").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryRule {
    /// Past operation days kept besides today.
    pub days: u32,
    /// The station's clock, which says what today is.
    pub clock: StationClock,
    /// The station's day boundary: when today begins.
    pub day_boundary: NaiveTime,
}

impl HistoryRule {
    /// The first operation day kept at the UTC instant `now`: every day
    /// before it is retired.
    #[must_use]
    pub fn first_kept_day(&self, now: NaiveDateTime) -> NaiveDate {
        let today = day_of(self.clock.local_at(now), self.day_boundary);
        today - chrono::Days::new(u64::from(self.days))
    }

    /// Whether operation day `day` is retired at the UTC instant `now`.
    #[must_use]
    pub fn retires(&self, day: NaiveDate, now: NaiveDateTime) -> bool {
        day < self.first_kept_day(now)
    }
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;

    use super::*;

    fn zone(name: &str) -> Option<Tz> {
        Some(name.parse().expect("zone"))
    }

    fn at(day: (i32, u32, u32), hms: (u32, u32, u32)) -> NaiveDateTime {
        NaiveDate::from_ymd_opt(day.0, day.1, day.2)
            .and_then(|d| d.and_hms_opt(hms.0, hms.1, hms.2))
            .expect("valid test time")
    }

    #[test]
    fn shanghai_is_eight_hours_ahead_all_year() {
        let clock = StationClock::new(zone("Asia/Shanghai"));
        assert_eq!(
            clock.local_at(at((2026, 1, 15), (20, 30, 0))),
            at((2026, 1, 16), (4, 30, 0))
        );
        assert_eq!(
            clock.local_at(at((2026, 7, 15), (20, 30, 0))),
            at((2026, 7, 16), (4, 30, 0))
        );
    }

    /// Berlin moves its clocks on 2026-03-29 at 01:00 UTC (02:00 → 03:00)
    /// and on 2026-10-25 at 01:00 UTC (03:00 → 02:00).
    #[test]
    fn berlin_follows_summer_time_on_both_change_days() {
        let clock = StationClock::new(zone("Europe/Berlin"));
        assert_eq!(
            clock.local_at(at((2026, 3, 29), (0, 59, 59))),
            at((2026, 3, 29), (1, 59, 59))
        );
        assert_eq!(
            clock.local_at(at((2026, 3, 29), (1, 0, 0))),
            at((2026, 3, 29), (3, 0, 0))
        );
        assert_eq!(
            clock.local_at(at((2026, 10, 25), (0, 59, 59))),
            at((2026, 10, 25), (2, 59, 59))
        );
        assert_eq!(
            clock.local_at(at((2026, 10, 25), (1, 0, 0))),
            at((2026, 10, 25), (2, 0, 0))
        );
    }

    /// Shanghai at 2026-12-05 01:00 UTC is 09:00 on the 5th; with a 04:00
    /// boundary today is the 5th, and 30 days kept make the 5th of November
    /// the first day kept. At 19:30 UTC on the 4th it is 03:30 on the 5th,
    /// still the 4th's operation day.
    #[test]
    fn history_keeps_today_and_the_days_before_it() {
        let rule = HistoryRule {
            days: 30,
            clock: StationClock::new(zone("Asia/Shanghai")),
            day_boundary: NaiveTime::from_hms_opt(4, 0, 0).expect("time"),
        };
        let day = |m, d| NaiveDate::from_ymd_opt(2026, m, d).expect("day");
        assert_eq!(
            rule.first_kept_day(at((2026, 12, 5), (1, 0, 0))),
            day(11, 5)
        );
        assert_eq!(
            rule.first_kept_day(at((2026, 12, 4), (19, 30, 0))),
            day(11, 4)
        );
        assert!(rule.retires(day(11, 4), at((2026, 12, 5), (1, 0, 0))));
        assert!(!rule.retires(day(11, 5), at((2026, 12, 5), (1, 0, 0))));
    }
}
