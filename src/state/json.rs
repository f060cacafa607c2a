//! How a column value is written in JSON: the state topic's values and the
//! state digest both serialise every column of every flight, so a day's
//! worth of them is millions of values.
//!
//! Timestamps are the one kind where that showed: `chrono` writes them
//! through its `Debug` formatting, one character at a time. A whole-second
//! time between years 0 and 9999 (every SIS time) is written here directly,
//! as exactly the text `chrono` writes (`2026-09-09T08:00:00`); anything
//! else still goes through `chrono`, so the JSON, and the stored digests,
//! are unchanged.

use chrono::{Datelike, NaiveDateTime, Timelike};
use serde::{Serialize, Serializer};

/// A column type's JSON writer.
pub(crate) trait ColumnJson {
    fn write<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
}

impl ColumnJson for Option<String> {
    fn write<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.serialize(serializer)
    }
}

impl ColumnJson for Option<i64> {
    fn write<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.serialize(serializer)
    }
}

impl ColumnJson for Option<i32> {
    fn write<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.serialize(serializer)
    }
}

impl ColumnJson for Option<NaiveDateTime> {
    fn write<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Some(time) => timestamp(time, serializer),
            None => serializer.serialize_none(),
        }
    }
}

/// The `serialize_with` of every generated column field.
pub(crate) fn column_json<T: ColumnJson, S: Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    value.write(serializer)
}

/// `time` as `chrono` writes it, without the detour when it is a whole
/// second of a four-digit year.
fn timestamp<S: Serializer>(time: &NaiveDateTime, serializer: S) -> Result<S::Ok, S::Error> {
    let year = time.year();
    if time.nanosecond() != 0 || !(0..=9999).contains(&year) {
        return time.serialize(serializer);
    }
    let mut text = *b"0000-00-00T00:00:00";
    let mut put = |at: usize, width: usize, value: u32| {
        let mut value = value;
        for i in (at..at + width).rev() {
            // A decimal digit: always < 10.
            text[i] = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    put(0, 4, year.unsigned_abs());
    put(5, 2, time.month());
    put(8, 2, time.day());
    put(11, 2, time.hour());
    put(14, 2, time.minute());
    put(17, 2, time.second());
    match std::str::from_utf8(&text) {
        Ok(text) => serializer.serialize_str(text),
        // Digits and separators are ASCII; kept for the type, never taken.
        Err(_) => time.serialize(serializer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{NaiveDate, TimeDelta};
    use proptest::prelude::*;

    #[derive(Serialize)]
    struct Fast(#[serde(serialize_with = "column_json")] Option<NaiveDateTime>);

    fn both(time: NaiveDateTime) -> (String, String) {
        let fast = serde_json::to_string(&Fast(Some(time))).expect("fast");
        let chrono = serde_json::to_string(&time).expect("chrono");
        (fast, chrono)
    }

    proptest! {
        #[test]
        fn a_timestamp_is_written_as_chrono_writes_it(
            seconds in -70_000_000_000i64..300_000_000_000,
            nanos in prop_oneof![Just(0u32), 0u32..1_000_000_000],
        ) {
            let base = NaiveDate::from_ymd_opt(1, 1, 1)
                .and_then(|d| d.and_hms_opt(0, 0, 0))
                .expect("valid");
            let time = base + TimeDelta::seconds(seconds) + TimeDelta::nanoseconds(i64::from(nanos));
            let (fast, chrono) = both(time);
            prop_assert_eq!(fast, chrono);
        }
    }

    #[test]
    fn absent_is_null_and_odd_times_go_through_chrono() {
        assert_eq!(serde_json::to_string(&Fast(None)).expect("none"), "null");
        let odd = [
            NaiveDate::from_ymd_opt(2026, 9, 9).and_then(|d| d.and_hms_milli_opt(8, 0, 0, 250)),
            NaiveDate::from_ymd_opt(12026, 1, 1).and_then(|d| d.and_hms_opt(0, 0, 0)),
            NaiveDate::from_ymd_opt(-5, 1, 1).and_then(|d| d.and_hms_opt(0, 0, 0)),
            NaiveDate::from_ymd_opt(2026, 12, 31).and_then(|d| d.and_hms_opt(23, 59, 59)),
        ];
        for time in odd.into_iter().map(|t| t.expect("valid")) {
            let (fast, chrono) = both(time);
            assert_eq!(fast, chrono);
        }
    }
}
