//! Which operation day a snapshot is of (DESIGN §4): the site's explicit
//! element, else the day of the request it answers, else the single day that
//! all its flights' scheduled times fall in.

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use serde::Serialize;

/// Where a snapshot's operation day came from, recorded for operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum DaySource {
    /// The configured element inside `<SCHD>`.
    Explicit,
    /// The day of the request this RESP answers.
    Request,
    /// The one day all FLTR `SODT`s fall in.
    ScheduledTimes,
}

/// Why a snapshot's operation day cannot be told; such a snapshot is DEAD,
/// since guessing would delete another day's flights.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UndeterminedDay {
    /// No explicit day, no request, and no flight to take a day from.
    #[error("the snapshot names no operation day and carries no flight to take one from")]
    NoFlights,
    /// The flights' scheduled times fall in more than one operation day.
    #[error(
        "the snapshot names no operation day and its flights fall in several days ({first} and {second}); \
         configure `protocol.operation_day_element` if the AODB sends one"
    )]
    SeveralDays {
        /// The first day seen.
        first: NaiveDate,
        /// Another day seen.
        second: NaiveDate,
    },
}

/// The operation day a local scheduled time belongs to: the calendar date of
/// the time shifted back by the day boundary, so that with a 04:00 boundary
/// a 02:30 departure still belongs to the day before.
pub fn day_of(scheduled: NaiveDateTime, boundary: NaiveTime) -> NaiveDate {
    (scheduled - boundary.signed_duration_since(NaiveTime::MIN)).date()
}

/// Decides a snapshot's operation day.
///
/// # Errors
///
/// [`UndeterminedDay`] when neither an explicit day nor a request day is
/// given and the scheduled times do not fall in exactly one day.
pub fn snapshot_day(
    explicit: Option<NaiveDate>,
    request_day: Option<NaiveDate>,
    scheduled_times: impl IntoIterator<Item = NaiveDateTime>,
    boundary: NaiveTime,
) -> Result<(NaiveDate, DaySource), UndeterminedDay> {
    if let Some(day) = explicit {
        return Ok((day, DaySource::Explicit));
    }
    if let Some(day) = request_day {
        return Ok((day, DaySource::Request));
    }
    let mut days = scheduled_times.into_iter().map(|t| day_of(t, boundary));
    let first = days.next().ok_or(UndeterminedDay::NoFlights)?;
    match days.find(|d| *d != first) {
        Some(second) => Err(UndeterminedDay::SeveralDays { first, second }),
        None => Ok((first, DaySource::ScheduledTimes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M").expect("test time")
    }

    fn date(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").expect("test date")
    }

    #[test]
    fn boundary_moves_early_flights_to_the_day_before() {
        let four = NaiveTime::from_hms_opt(4, 0, 0).expect("04:00");
        assert_eq!(day_of(at("2026-09-10 02:30"), four), date("2026-09-09"));
        assert_eq!(day_of(at("2026-09-10 04:00"), four), date("2026-09-10"));
        assert_eq!(
            day_of(at("2026-09-10 00:00"), NaiveTime::MIN),
            date("2026-09-10")
        );
    }

    #[test]
    fn explicit_day_wins_over_request_and_times() {
        let got = snapshot_day(
            Some(date("2026-09-09")),
            Some(date("2026-09-01")),
            [at("2026-09-10 10:00")],
            NaiveTime::MIN,
        );
        assert_eq!(got, Ok((date("2026-09-09"), DaySource::Explicit)));
        let got = snapshot_day(None, Some(date("2026-09-01")), [], NaiveTime::MIN);
        assert_eq!(got, Ok((date("2026-09-01"), DaySource::Request)));
    }

    #[test]
    fn times_must_fall_in_one_day() {
        let one = snapshot_day(
            None,
            None,
            [at("2026-09-09 00:00"), at("2026-09-09 23:59")],
            NaiveTime::MIN,
        );
        assert_eq!(one, Ok((date("2026-09-09"), DaySource::ScheduledTimes)));
        let two = snapshot_day(
            None,
            None,
            [at("2026-09-09 23:59"), at("2026-09-10 00:00")],
            NaiveTime::MIN,
        );
        assert_eq!(
            two,
            Err(UndeterminedDay::SeveralDays {
                first: date("2026-09-09"),
                second: date("2026-09-10")
            })
        );
        assert_eq!(
            snapshot_day(None, None, [], NaiveTime::MIN),
            Err(UndeterminedDay::NoFlights)
        );
    }
}
