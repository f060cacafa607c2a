//! The `[station]` section: facts about the airport itself — its code, the
//! local time at which its operation day turns, and the IANA zone of its
//! wall clock (`crate::station`).

use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use super::{Config, ConfigError, StationClock};
use crate::state::DayMoves;

/// Facts about the airport.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct StationConfig {
    /// IATA code of the home airport.
    pub home_airport: Option<String>,
    /// Local time at which one operation day ends and the next begins,
    /// `HH:MM`.
    pub day_boundary: String,
    /// The IANA zone of the station's wall clock (`Asia/Shanghai`): the
    /// zone of every local time flightstate sends or reads as "today".
    /// Unset: the host's zone, with a warning at start.
    pub time_zone: Option<String>,
    /// Whether a late snapshot of an older day may take a flight back from
    /// a later day: `forward_only` (never) or `any`.
    pub day_moves: DayMoves,
}

impl Default for StationConfig {
    fn default() -> Self {
        StationConfig {
            home_airport: None,
            day_boundary: "00:00".to_owned(),
            time_zone: None,
            day_moves: DayMoves::default(),
        }
    }
}

impl StationConfig {
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        parse_day_boundary(&self.day_boundary)?;
        if let Some(zone) = &self.time_zone {
            parse_time_zone(zone)?;
        }
        Ok(())
    }
}

impl Config {
    /// The station's wall clock (`station.time_zone`, else the host's zone).
    pub fn station_clock(&self) -> StationClock {
        // Validated in `load`, like the day boundary.
        StationClock::new(
            self.station
                .time_zone
                .as_deref()
                .and_then(|zone| parse_time_zone(zone).ok()),
        )
    }

    /// The station's day boundary as a time of day.
    pub fn day_boundary(&self) -> chrono::NaiveTime {
        // Validated in `load`; a hand-built config with a bad value falls
        // back to midnight, the protocol's own day boundary.
        parse_day_boundary(&self.station.day_boundary).unwrap_or(chrono::NaiveTime::MIN)
    }
}

fn parse_day_boundary(value: &str) -> Result<chrono::NaiveTime, ConfigError> {
    chrono::NaiveTime::parse_from_str(value, "%H:%M").map_err(|_| ConfigError::BadValue {
        setting: "station.day_boundary",
        value: value.to_owned(),
        reason: "must be a local time of day, HH:MM",
    })
}

/// Parses `station.time_zone`, an IANA zone name.
fn parse_time_zone(value: &str) -> Result<Tz, ConfigError> {
    value.parse::<Tz>().map_err(|_| ConfigError::BadValue {
        setting: "station.time_zone",
        value: value.to_owned(),
        reason: "not an IANA time zone name (e.g. \"Asia/Shanghai\", \"Europe/Berlin\")",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_that_is_no_zone_is_refused_with_the_setting() {
        let err = parse_time_zone("Asia/Chengdu").expect_err("no such zone");
        assert!(err.to_string().contains("station.time_zone"), "{err}");
    }
}
