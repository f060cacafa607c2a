//! `station.time_zone`, an IANA zone name: the zone of the station's clock
//! (`crate::station`).

use chrono_tz::Tz;

use super::ConfigError;

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
    use super::*;

    #[test]
    fn a_name_that_is_no_zone_is_refused_with_the_setting() {
        let err = parse_time_zone("Asia/Chengdu").expect_err("no such zone");
        assert!(err.to_string().contains("station.time_zone"), "{err}");
    }
}
