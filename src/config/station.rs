//! The station's wall clock: `station.time_zone`, an IANA zone name.
//!
//! AODB reads every local time it is sent (an RQFD's DTTM) as the station's
//! wall clock, whatever the zone of the host or container flightstate runs
//! on, so "now" as the station sees it comes from the configured zone and
//! never from the process's `TZ` by accident.

use chrono::{NaiveDateTime, Utc};
use chrono_tz::Tz;

use super::ConfigError;

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

/// Parses `station.time_zone`.
pub(super) fn parse_time_zone(value: &str) -> Result<Tz, ConfigError> {
    value.parse::<Tz>().map_err(|_| ConfigError::BadValue {
        setting: "station.time_zone",
        value: value.to_owned(),
        reason: "not an IANA time zone name (e.g. \"Asia/Shanghai\", \"Europe/Berlin\")",
    })
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;

    use super::*;

    fn at(day: (i32, u32, u32), hms: (u32, u32, u32)) -> NaiveDateTime {
        NaiveDate::from_ymd_opt(day.0, day.1, day.2)
            .and_then(|d| d.and_hms_opt(hms.0, hms.1, hms.2))
            .expect("valid test time")
    }

    #[test]
    fn shanghai_is_eight_hours_ahead_all_year() {
        let clock = StationClock::new(Some(parse_time_zone("Asia/Shanghai").expect("zone")));
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
        let clock = StationClock::new(Some(parse_time_zone("Europe/Berlin").expect("zone")));
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

    #[test]
    fn a_name_that_is_no_zone_is_refused_with_the_setting() {
        let err = parse_time_zone("Asia/Chengdu").expect_err("no such zone");
        assert!(err.to_string().contains("station.time_zone"), "{err}");
    }
}
