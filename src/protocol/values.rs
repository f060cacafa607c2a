//! The value types of SIS: tri-state fields, repeating groups, dates and closed code sets.
//!
//! Owns the text ⇄ value rules (strict dates, durations, ids, codes). It knows nothing about
//! where a value sits in a message; callers attach the element path to a failure.

use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use serde::{Serialize, Serializer};

/// An optional element (or attribute) as sent: the merge rules of FLOP tell "not sent"
/// (leave the stored value alone) from "sent empty" (clear it), so both are kept apart.
///
/// `<X/>` and `<X></X>` are the same XML and both give [`Field::Empty`]; so does text that
/// is only whitespace. In JSON an absent field has no key, an empty one is `null`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Field<T> {
    /// The element is not in the record.
    #[default]
    Absent,
    /// The element is there with no value.
    Empty,
    /// The element carries this value.
    Value(T),
}

impl<T> Field<T> {
    /// Whether the element was left out; used to skip the key when serializing.
    pub fn is_absent(&self) -> bool {
        matches!(self, Field::Absent)
    }

    /// The value, if one was sent; for callers that treat absent and empty alike.
    pub fn value(&self) -> Option<&T> {
        match self {
            Field::Value(v) => Some(v),
            _ => None,
        }
    }
}

impl<T: Serialize> Serialize for Field<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Value(v) => v.serialize(s),
            Field::Absent | Field::Empty => s.serialize_none(),
        }
    }
}

/// A repeating group of a flight record (GTDT, DELY, …) as sent.
///
/// An empty group element (`<DELY></DELY>`: no child element, no text, no attribute with a
/// value) means "clear the collection" in FLOP, so it is kept apart from a group that is not
/// sent. In JSON: no key, `null`, or the list.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Group<T> {
    /// No element of the group is in the record.
    #[default]
    Absent,
    /// The group is sent as an empty element.
    Empty,
    /// The entries, in input order; never empty.
    Items(Vec<T>),
}

impl<T> Group<T> {
    /// Whether the group was left out; used to skip the key when serializing.
    pub fn is_absent(&self) -> bool {
        matches!(self, Group::Absent)
    }

    /// The entries, none for an absent or empty group.
    pub fn items(&self) -> &[T] {
        match self {
            Group::Items(items) => items,
            _ => &[],
        }
    }
}

impl<T: Serialize> Serialize for Group<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Group::Items(items) => items.serialize(s),
            Group::Absent | Group::Empty => s.serialize_none(),
        }
    }
}

/// The value of an element that must be empty when present (FDEL): `Field<NoValue>` can
/// only be absent or empty, so a non-empty FDEL cannot be represented and is rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum NoValue {}

impl SisValue for NoValue {
    const EXPECTED: &'static str = "nothing: the element must be empty";
    fn parse_sis(_: &str) -> Option<Self> {
        None
    }
    fn to_sis(&self) -> String {
        match *self {}
    }
}

/// A value as SIS writes it in element text or an attribute.
pub(crate) trait SisValue: Sized {
    /// What a sender must write, for the error message.
    const EXPECTED: &'static str;
    /// Reads a trimmed, non-empty text; `None` if it does not fit.
    fn parse_sis(text: &str) -> Option<Self>;
    /// Writes the value the way [`SisValue::parse_sis`] reads it back.
    fn to_sis(&self) -> String;
}

impl SisValue for String {
    const EXPECTED: &'static str = "text";
    fn parse_sis(text: &str) -> Option<Self> {
        Some(text.to_owned())
    }
    fn to_sis(&self) -> String {
        self.clone()
    }
}

/// Flight ids (FLID, TAID, MAID): AODB's `bigint(12)`, numbered from 1; 0
/// names no flight.
impl SisValue for i64 {
    const EXPECTED: &'static str = "a flight id of 1 to 12 digits, not 0";
    fn parse_sis(text: &str) -> Option<Self> {
        if text.is_empty() || text.len() > 12 || !text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        text.parse().ok().filter(|&id| id > 0)
    }
    fn to_sis(&self) -> String {
        self.to_string()
    }
}

/// Counts, agent ids and sequence numbers: unsigned decimal digits.
impl SisValue for u32 {
    const EXPECTED: &'static str = "an unsigned whole number";
    fn parse_sis(text: &str) -> Option<Self> {
        if !text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        text.parse().ok()
    }
    fn to_sis(&self) -> String {
        self.to_string()
    }
}

/// The VIP ranking (VIPR): one digit in the peer's data model, a small number here.
impl SisValue for u8 {
    const EXPECTED: &'static str = "a number from 0 to 255";
    fn parse_sis(text: &str) -> Option<Self> {
        if !text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        text.parse().ok()
    }
    fn to_sis(&self) -> String {
        self.to_string()
    }
}

/// Weights (LBWT): digits with an optional decimal part; no sign, no exponent.
impl SisValue for f64 {
    const EXPECTED: &'static str = "a decimal number such as 33.8";
    fn parse_sis(text: &str) -> Option<Self> {
        let (whole, fraction) = match text.split_once('.') {
            Some((w, f)) => (w, Some(f)),
            None => (text, None),
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(whole) || fraction.is_some_and(|f| !digits(f)) {
            return None;
        }
        text.parse().ok().filter(|v: &f64| v.is_finite())
    }
    fn to_sis(&self) -> String {
        self.to_string()
    }
}

/// Single-character codes (FLTY, GTYP, CTYP, BTYP, CCLS, BCLS, ABOP): the protocol does not
/// close their sets (the peer's own sample sends CTYP `E`), so any one letter or digit.
impl SisValue for char {
    const EXPECTED: &'static str = "one letter or digit";
    fn parse_sis(text: &str) -> Option<Self> {
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_alphanumeric() => Some(c),
            _ => None,
        }
    }
    fn to_sis(&self) -> String {
        self.to_string()
    }
}

/// A station-local date-time `ddMMMyyHHmm` (SODT, PGOT, STRT, …).
impl SisValue for NaiveDateTime {
    const EXPECTED: &'static str = "a date-time ddMMMyyHHmm such as 23JAN210535";
    fn parse_sis(text: &str) -> Option<Self> {
        parse_date_time(text)
    }
    fn to_sis(&self) -> String {
        format_date_time(self)
    }
}

/// A delay duration in whole minutes, sent as `HHMM` (DELY/@DURA `0200` = 120).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Minutes(pub u32);

impl SisValue for Minutes {
    const EXPECTED: &'static str = "a duration HHMM such as 0200";
    fn parse_sis(text: &str) -> Option<Self> {
        let b = text.as_bytes();
        if b.len() != 4 || !b.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let hours = two_digits(&b[0..2])?;
        let minutes = two_digits(&b[2..4])?;
        (minutes < 60).then_some(Minutes(hours * 60 + minutes))
    }
    fn to_sis(&self) -> String {
        format!("{:02}{:02}", self.0 / 60, self.0 % 60)
    }
}

const MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];

/// The 2-digit years of SIS are 2000 + yy: AODB messages are about flights around now,
/// and a fixed rule (unlike the peer's sliding 80/20 window) gives the same answer every day.
const CENTURY: i32 = 2000;

fn two_digits(b: &[u8]) -> Option<u32> {
    match b {
        [h, l] if h.is_ascii_digit() && l.is_ascii_digit() => {
            Some(u32::from(h - b'0') * 10 + u32::from(l - b'0'))
        }
        _ => None,
    }
}

/// Parses `ddMMMyy` strictly: 7 characters, month in any case, no rolling over of days.
pub fn parse_date(text: &str) -> Option<NaiveDate> {
    let b = text.as_bytes();
    if b.len() != 7 {
        return None;
    }
    let day = two_digits(&b[0..2])?;
    let month_text = std::str::from_utf8(&b[2..5]).ok()?;
    let month = MONTHS
        .iter()
        .position(|m| m.eq_ignore_ascii_case(month_text))?;
    let year = two_digits(&b[5..7])?;
    NaiveDate::from_ymd_opt(CENTURY + year as i32, month as u32 + 1, day)
}

/// Parses `ddMMMyyHHmm` strictly: 11 characters, month in any case, every field in range.
pub fn parse_date_time(text: &str) -> Option<NaiveDateTime> {
    let b = text.as_bytes();
    if b.len() != 11 {
        return None;
    }
    let date = parse_date(std::str::from_utf8(&b[0..7]).ok()?)?;
    let time = NaiveTime::from_hms_opt(two_digits(&b[7..9])?, two_digits(&b[9..11])?, 0)?;
    Some(date.and_time(time))
}

/// Parses the envelope's `yyyyMMddHHmmss` (META/DTTM) strictly: 14 digits, every field in range.
pub fn parse_message_time(text: &str) -> Option<NaiveDateTime> {
    let b = text.as_bytes();
    if b.len() != 14 || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let year = two_digits(&b[0..2])? * 100 + two_digits(&b[2..4])?;
    let date = NaiveDate::from_ymd_opt(year as i32, two_digits(&b[4..6])?, two_digits(&b[6..8])?)?;
    let time = NaiveTime::from_hms_opt(
        two_digits(&b[8..10])?,
        two_digits(&b[10..12])?,
        two_digits(&b[12..14])?,
    )?;
    Some(date.and_time(time))
}

/// Writes `ddMMMyy`; only years 2000–2099 can be read back.
pub fn format_date(date: &NaiveDate) -> String {
    format!(
        "{:02}{}{:02}",
        date.day(),
        MONTHS[date.month0() as usize],
        date.year().rem_euclid(100)
    )
}

/// Writes `ddMMMyyHHmm`; only years 2000–2099 and whole minutes can be read back.
pub fn format_date_time(at: &NaiveDateTime) -> String {
    format!(
        "{}{:02}{:02}",
        format_date(&at.date()),
        at.hour(),
        at.minute()
    )
}

/// Writes the envelope's `yyyyMMddHHmmss`.
pub fn format_message_time(at: &NaiveDateTime) -> String {
    at.format("%Y%m%d%H%M%S").to_string()
}

/// Declares a closed code set of the protocol: the enum, its SIS codes and its JSON names.
macro_rules! code_set {
    ($(#[$doc:meta])* $name:ident, $expected:literal { $($(#[$vdoc:meta])* $variant:ident = $code:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
        pub enum $name {
            $($(#[$vdoc])* #[serde(rename = $code)] $variant),+
        }

        impl $name {
            /// The code as SIS writes it.
            pub fn code(self) -> &'static str {
                match self { $($name::$variant => $code),+ }
            }
        }

        impl SisValue for $name {
            const EXPECTED: &'static str = $expected;
            fn parse_sis(text: &str) -> Option<Self> {
                match text { $($code => Some($name::$variant),)+ _ => None }
            }
            fn to_sis(&self) -> String {
                self.code().to_owned()
            }
        }
    };
}

code_set! {
    /// MVIN: whether SODT is a scheduled arrival or departure.
    Movement, "A or D" {
        /// `A`: the flight arrives here.
        Arrival = "A",
        /// `D`: the flight departs from here.
        Departure = "D",
    }
}

code_set! {
    /// FLIN: which border rules apply, deciding gates, counters and belts.
    FlightIndicator, "D, I or M" {
        /// `D`: domestic.
        Domestic = "D",
        /// `I`: international.
        International = "I",
        /// `M`: mixed.
        Mixed = "M",
    }
}

code_set! {
    /// FDIV/@DDIR: whether the flight is diverted to DDES or comes from it.
    DiversionDirection, "TO or FROM" {
        /// `TO`: diverted to the airport DDES.
        To = "TO",
        /// `FROM`: diverted from the airport DDES.
        From = "FROM",
    }
}

code_set! {
    /// FRET/@REID: how the flight returned.
    ReturnKind, "A or G" {
        /// `A`: air return.
        Air = "A",
        /// `G`: ground return.
        Ground = "G",
    }
}

code_set! {
    /// FLAB/@ARES: how the landing was aborted.
    AbortKind, "O or G" {
        /// `O`: overshoot.
        Overshoot = "O",
        /// `G`: go-around.
        GoAround = "G",
    }
}

code_set! {
    /// PORT/POID: which door time POTM is.
    PortAction, "O or C" {
        /// `O`: the aircraft door opened.
        Open = "O",
        /// `C`: the aircraft door closed.
        Close = "C",
    }
}

code_set! {
    /// CHOT/CHID: whether the chocks went on or off.
    ChockState, "ON or OFF" {
        /// `ON`: chocks on (in-blocks).
        On = "ON",
        /// `OFF`: chocks off (off-blocks).
        Off = "OFF",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> NaiveDateTime {
        NaiveDate::from_ymd_opt(y, mo, d)
            .and_then(|date| date.and_hms_opt(h, mi, 0))
            .unwrap()
    }

    #[test]
    fn date_time_reads_upper_and_mixed_case_months() {
        assert_eq!(parse_date_time("23JAN210535"), Some(at(2021, 1, 23, 5, 35)));
        assert_eq!(
            parse_date_time("16Nov200535"),
            Some(at(2020, 11, 16, 5, 35))
        );
        assert_eq!(parse_date_time("01dec991200"), Some(at(2099, 12, 1, 12, 0)));
    }

    #[test]
    fn date_time_rejects_out_of_range_fields() {
        for text in [
            "32JAN210535",
            "00JAN210535",
            "29FEB210535",
            "23JAN212400",
            "23JAN210560",
            "23XYZ210535",
        ] {
            assert_eq!(parse_date_time(text), None, "{text}");
        }
        assert_eq!(parse_date_time("29FEB240000"), Some(at(2024, 2, 29, 0, 0)));
    }

    #[test]
    fn date_time_rejects_other_lengths_and_signs() {
        for text in [
            "",
            "23JAN21053",
            "23JAN2105350",
            "23JAN21",
            "+3JAN210535",
            "23JAN21-535",
            "2３JAN21053",
        ] {
            assert_eq!(parse_date_time(text), None, "{text}");
        }
    }

    #[test]
    fn date_round_trips_through_text() {
        let d = NaiveDate::from_ymd_opt(2021, 3, 14).unwrap();
        assert_eq!(format_date(&d), "14MAR21");
        assert_eq!(parse_date("14mar21"), Some(d));
        assert_eq!(parse_date("31APR21"), None);
        let t = at(2003, 12, 15, 9, 3);
        assert_eq!(parse_date_time(&format_date_time(&t)), Some(t));
    }

    #[test]
    fn message_time_is_strict() {
        let t = parse_message_time("20021010090311");
        assert_eq!(
            t.map(|t| format_message_time(&t)),
            Some("20021010090311".into())
        );
        for text in [
            "2002101009031",
            "20021310090311",
            "20021010250311",
            "2002101009031x",
        ] {
            assert_eq!(parse_message_time(text), None, "{text}");
        }
    }

    #[test]
    fn flight_ids_are_1_to_12_digits_and_never_0() {
        assert_eq!(i64::parse_sis("1"), Some(1));
        assert_eq!(i64::parse_sis("999999999999"), Some(999_999_999_999));
        for text in ["0", "000", "", "1234567890123", "-1", "+1", "1.0"] {
            assert_eq!(i64::parse_sis(text), None, "{text:?}");
        }
    }

    #[test]
    fn duration_is_hours_and_minutes() {
        assert_eq!(Minutes::parse_sis("0200"), Some(Minutes(120)));
        assert_eq!(Minutes::parse_sis("0201"), Some(Minutes(121)));
        assert_eq!(Minutes::parse_sis("0060"), None);
        assert_eq!(Minutes::parse_sis("200"), None);
        assert_eq!(Minutes(125).to_sis(), "0205");
    }

    #[test]
    fn flight_ids_have_at_most_twelve_digits() {
        assert_eq!(i64::parse_sis("121112312"), Some(121_112_312));
        assert_eq!(i64::parse_sis("999999999999"), Some(999_999_999_999));
        assert_eq!(i64::parse_sis("1000000000000"), None);
        assert_eq!(i64::parse_sis("-5"), None);
        assert_eq!(i64::parse_sis("+5"), None);
    }

    #[test]
    fn numbers_and_codes_are_strict() {
        assert_eq!(u32::parse_sis("+1"), None);
        assert_eq!(f64::parse_sis("33.8"), Some(33.8));
        assert_eq!(f64::parse_sis("1e3"), None);
        assert_eq!(f64::parse_sis(".5"), None);
        assert_eq!(char::parse_sis("E"), Some('E'));
        assert_eq!(char::parse_sis("DD"), None);
        assert_eq!(Movement::parse_sis("a"), None);
        assert_eq!(DiversionDirection::parse_sis("TOO"), None);
        assert_eq!(ChockState::parse_sis("OFF"), Some(ChockState::Off));
    }
}
