//! `GET /search?q=…[&day=YYYY-MM-DD]`: finds flights by FLID or by flight
//! number, as a duty engineer types either, and lists them linking to each
//! flight's page.
//!
//! A query of digits only is a FLID; anything else is a flight number,
//! compared upper-cased and without spaces (`ca 1234` finds `CA1234`). The
//! days searched are the one asked for, or the station's today and the day
//! on either side: the flights a person asks about at a desk. Every value
//! is bound; what the person typed is only ever shown escaped.

use std::fmt::Write as _;

use chrono::{Duration, NaiveDate};

use super::chrome;
use super::html::escape;
use super::reply::Reply;
use super::{Api, ApiSettings};
use crate::state::day_of;
use crate::store::{BrowseOps, FlightMatch, HeldDays, ReadOps, StateTx, Store, StoreError};

/// Flights a search lists at most: a number flies once or twice a day, so
/// more than this is a query too loose to be useful, and the page stays
/// small.
pub(super) const MATCHES_LISTED: i64 = 50;

/// The longest flight number a person could mean (`FLNO` is a code, 16).
const NUMBER_CHARS: usize = 16;

/// What was asked for.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Wanted {
    /// One flight by its FLID.
    Flid(i64),
    /// A flight number (upper-cased, no spaces) on days `first..=last`.
    Number {
        number: String,
        first: NaiveDate,
        last: NaiveDate,
    },
}

/// Reads the query `q` (and `day`) against the station's `today`.
///
/// # Errors
///
/// Why the query is not a FLID or flight number, or the day not a date.
pub(super) fn wanted(q: &str, day: Option<&str>, today: NaiveDate) -> Result<Wanted, String> {
    let compact: String = q
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_uppercase)
        .collect();
    if compact.is_empty() {
        return Err("type a FLID or a flight number (CA1234)".to_owned());
    }
    if compact.chars().all(|c| c.is_ascii_digit()) {
        return match compact.parse::<i64>() {
            Ok(flid) if flid > 0 => Ok(Wanted::Flid(flid)),
            _ => Err(format!("{q:?} is not a FLID (a positive integer)")),
        };
    }
    if compact.chars().count() > NUMBER_CHARS || !compact.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return Err(format!(
            "{q:?} is not a flight number (letters and digits, like CA1234)"
        ));
    }
    let (first, last) = match day.filter(|d| !d.trim().is_empty()) {
        Some(text) => match NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d") {
            Ok(day) => (day, day),
            Err(_) => return Err(format!("day {text:?} is not a date (YYYY-MM-DD)")),
        },
        None => (today - Duration::days(1), today + Duration::days(1)),
    };
    Ok(Wanted::Number {
        number: compact,
        first,
        last,
    })
}

/// The station's operation day now.
pub(super) fn today(settings: &ApiSettings) -> NaiveDate {
    day_of(settings.station.now(), settings.day_boundary)
}

fn find<S: Store>(store: &S, wanted: &Wanted) -> Result<Vec<FlightMatch>, StoreError> {
    store.transaction(|tx| {
        tx.set_read_only_snapshot()?;
        match wanted {
            Wanted::Flid(flid) => Ok(tx
                .load_flights(&[*flid])?
                .into_values()
                .map(|f| FlightMatch {
                    flid: f.state.flid,
                    flno: f.state.fields.flno.clone(),
                    mvin: f.state.fields.mvin.clone(),
                    operation_day: f.operation_day,
                    sodt: f.state.fields.sodt,
                    state_version: f.state_version,
                })
                .collect()),
            Wanted::Number {
                number,
                first,
                last,
            } => tx.select_flight_matches(number, *first, *last, MATCHES_LISTED),
        }
    })
}

/// What a search found, and where it looked.
struct Found {
    /// What was asked for, as it was last searched.
    wanted: Wanted,
    /// The flights found.
    matches: Vec<FlightMatch>,
    /// When nothing was found around today and no day was named: the
    /// operation days the state holds, searched instead.
    widened: Option<HeldDays>,
}

/// Searches as asked; a flight number found on none of the days around
/// today, with no day named, is searched on every day the state holds (a
/// person looking up yesterday's demo or last week's flight), and the
/// page says so.
fn find_or_widen<S: Store>(
    store: &S,
    wanted: Wanted,
    day_named: bool,
) -> Result<Found, StoreError> {
    let matches = find(store, &wanted)?;
    let Wanted::Number { number, .. } = &wanted else {
        return Ok(Found {
            wanted,
            matches,
            widened: None,
        });
    };
    if !matches.is_empty() || day_named {
        return Ok(Found {
            wanted,
            matches,
            widened: None,
        });
    }
    let held = store.transaction(|tx| {
        tx.set_read_only_snapshot()?;
        tx.select_held_days()
    })?;
    let (Some(first), Some(last)) = (held.first_day, held.last_day) else {
        return Ok(Found {
            wanted,
            matches,
            widened: Some(held),
        });
    };
    let wider = Wanted::Number {
        number: number.clone(),
        first,
        last,
    };
    let matches = find(store, &wider)?;
    Ok(Found {
        wanted: wider,
        matches,
        widened: Some(held),
    })
}

/// The answer to `GET /search?…`.
pub(super) fn get<S: Store + Clone>(api: &Api<S>, query: &str) -> Reply {
    let Some(parameters) = chrome::form_parameters(query) else {
        return chrome::error(400, "the query is not UTF-8 once decoded");
    };
    let mut q = None;
    let mut day = None;
    for (key, value) in parameters {
        match key.as_str() {
            "q" => q = Some(value),
            "day" => day = Some(value),
            other => return chrome::error(400, &format!("unknown parameter {other:?}")),
        }
    }
    let q = q.unwrap_or_default();
    let wanted = match wanted(&q, day.as_deref(), today(&api.settings)) {
        Ok(wanted) => wanted,
        Err(why) => return chrome::error(400, &why),
    };
    let day_named = day.as_deref().is_some_and(|d| !d.trim().is_empty());
    match find_or_widen(&api.store, wanted, day_named) {
        Ok(found) => chrome::html(200, render(&q, &found)),
        Err(e) => {
            tracing::warn!(error = format!("{e:#}"), "a search failed");
            chrome::error(503, &format!("state database unavailable: {e:#}"))
        }
    }
}

fn render(q: &str, found: &Found) -> String {
    let (wanted, matches) = (&found.wanted, &found.matches);
    let mut out = String::with_capacity(4096);
    chrome::open(&mut out, "flightstate: search", None, q);
    let asked = match wanted {
        Wanted::Flid(flid) => format!("FLID {flid}"),
        Wanted::Number {
            number,
            first,
            last,
        } if first == last => format!("{} on {first}", escape(number)),
        Wanted::Number {
            number,
            first,
            last,
        } => format!("{} from {first} to {last}", escape(number)),
    };
    let _ = write!(
        out,
        "<h1>Flights: {asked}</h1><div class=\"wrap\"><table id=\"matches\"><tr><th>FLID</th>\
         <th>Number</th><th>Direction</th><th>Day</th><th>Scheduled</th><th>State version</th>\
         </tr>"
    );
    for m in matches {
        let _ = write!(
            out,
            "<tr><td><a href=\"/flight/{flid}\">{flid}</a></td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td></tr>",
            escape(m.flno.as_deref().unwrap_or("–")),
            escape(direction(m.mvin.as_deref())),
            m.operation_day
                .map_or_else(|| "–".to_owned(), |d| d.to_string()),
            m.sodt.map_or_else(
                || "–".to_owned(),
                |t| t.format("%Y-%m-%d %H:%M").to_string()
            ),
            m.state_version,
            flid = m.flid,
        );
    }
    if matches.is_empty() {
        out.push_str("<tr><td colspan=\"6\" class=\"none\">none</td></tr>");
    }
    out.push_str("</table></div>");
    if let Some(held) = &found.widened {
        let _ = write!(
            out,
            "<p id=\"searched-days\">None around the station's today; the state holds the \
             operation days {held}{}.</p>",
            if held.first_day.is_some() {
                ", searched above"
            } else {
                ""
            }
        );
    }
    if i64::try_from(matches.len()).is_ok_and(|n| n >= MATCHES_LISTED) {
        let _ = write!(
            out,
            "<p>The first {MATCHES_LISTED} only: name a day to see fewer.</p>"
        );
    }
    out.push_str("<p>Times are the station's wall clock, as the AODB sends them.</p>");
    chrome::close(&mut out);
    out
}

/// `MVIN` as people say it.
pub(super) fn direction(mvin: Option<&str>) -> &str {
    match mvin {
        Some("A") => "arrival",
        Some("D") => "departure",
        Some(other) => other,
        None => "–",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").expect("test date")
    }

    #[test]
    fn numbers_are_read_as_people_type_them() {
        let today = day("2025-06-01");
        let around = |number: &str| Wanted::Number {
            number: number.to_owned(),
            first: day("2025-05-31"),
            last: day("2025-06-02"),
        };
        assert_eq!(wanted("CA1234", None, today), Ok(around("CA1234")));
        assert_eq!(wanted(" ca 1234 ", Some(""), today), Ok(around("CA1234")));
        assert_eq!(
            wanted("ca1234", Some("2025-06-03"), today),
            Ok(Wanted::Number {
                number: "CA1234".to_owned(),
                first: day("2025-06-03"),
                last: day("2025-06-03"),
            })
        );
        assert_eq!(wanted("1000001", None, today), Ok(Wanted::Flid(1_000_001)));
        for bad in [
            "",
            "  ",
            "0",
            "CA-1234",
            "<script>",
            "CA1234CA1234CA1234",
            "北京1",
        ] {
            assert!(wanted(bad, None, today).is_err(), "{bad:?}");
        }
        assert!(wanted("CA1", Some("2025-13-01"), today).is_err());
    }
}
