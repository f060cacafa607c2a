//! Which way a snapshot may move a flight between operation days (seed
//! ACM2-31#9). AODB sends a late snapshot of an older day after a newer
//! day's snapshot took some of its flights over (a flight that slipped past
//! midnight); applied as it is, the late one would move those flights back
//! and overwrite the newer state with an older one.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

/// How a snapshot treats a flight that is stored with another day
/// (`station.day_moves`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DayMoves {
    /// A snapshot never takes a flight back from a later day, nor
    /// overwrites its state: the later day's snapshot is the newer word.
    #[default]
    ForwardOnly,
    /// A snapshot takes every flight it lists, whatever day it is stored
    /// with (the seed's original rule).
    Any,
}

impl DayMoves {
    /// The setting's value as written in the configuration.
    pub fn code(self) -> &'static str {
        match self {
            DayMoves::ForwardOnly => "forward_only",
            DayMoves::Any => "any",
        }
    }

    /// Whether a snapshot of `day` may write a flight stored with
    /// `stored_day` (`None`: no day yet, or no flight).
    pub fn allows(self, day: NaiveDate, stored_day: Option<NaiveDate>) -> bool {
        match self {
            DayMoves::Any => true,
            DayMoves::ForwardOnly => stored_day.is_none_or(|stored| stored <= day),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sep(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 9, d).expect("test day")
    }

    #[test]
    fn forward_only_keeps_flights_of_later_days() {
        let rule = DayMoves::ForwardOnly;
        assert!(rule.allows(sep(9), None));
        assert!(rule.allows(sep(9), Some(sep(8))));
        assert!(rule.allows(sep(9), Some(sep(9))));
        assert!(!rule.allows(sep(9), Some(sep(10))));
        assert!(DayMoves::Any.allows(sep(9), Some(sep(10))));
    }

    #[test]
    fn the_setting_reads_as_written() {
        let any: DayMoves = serde_json::from_str("\"any\"").expect("any");
        assert_eq!(any, DayMoves::Any);
        assert!(serde_json::from_str::<DayMoves>("\"backward\"").is_err());
        assert_eq!(DayMoves::default().code(), "forward_only");
    }
}
