//! The state document: a flight's whole state as the JSON the state topic
//! carries (DESIGN §5, `docs/kafka.md`).
//!
//! It is built where the state is written, in the same transaction, and
//! stored with the main row (`FLIGHT_SCHD.STATE_DOCUMENT`), so that the
//! dispatcher publishes a flight by reading one column instead of ten
//! tables. Pure: no database, no Kafka. Element names are the SIS ones,
//! upper case; a key that is missing means "no such data", never `null`.

use chrono::{NaiveDate, NaiveDateTime};
use serde::Serialize;

use super::{FlightState, StoredFlight};

/// A flight's published state at one version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateDocument {
    /// The `STATE_VERSION` the document is of.
    pub state_version: i64,
    /// The JSON text.
    pub json: String,
}

impl StateDocument {
    /// The document of `flight` at its version.
    pub fn of(flight: &StoredFlight) -> StateDocument {
        StateDocument {
            state_version: flight.state_version,
            json: state_document(flight),
        }
    }
}

#[derive(Serialize)]
struct Document<'a> {
    #[serde(flatten)]
    state: &'a FlightState,
    #[serde(rename = "OPERATION_DAY", skip_serializing_if = "Option::is_none")]
    operation_day: Option<NaiveDate>,
    #[serde(rename = "STATE_VERSION")]
    state_version: i64,
    #[serde(rename = "LAST_MESSAGE_ID")]
    last_message_id: i64,
    #[serde(rename = "UPDATED_AT")]
    updated_at: NaiveDateTime,
}

/// The whole state of `flight` at its version: every element it holds,
/// its collections, and the bookkeeping `OPERATION_DAY` (when known),
/// `STATE_VERSION`, `LAST_MESSAGE_ID` and `UPDATED_AT` (UTC, to the second
/// as the row keeps it: [`StoredFlight::row_time`]).
pub fn state_document(flight: &StoredFlight) -> String {
    let document = Document {
        state: &flight.state,
        operation_day: flight.operation_day,
        state_version: flight.state_version,
        last_message_id: flight.last_message_id,
        updated_at: StoredFlight::row_time(flight.updated_at),
    };
    serde_json::to_string(&document).unwrap_or_else(|e| {
        // A broken invariant: plain values with string keys cannot fail.
        panic!("a state document failed to serialise: {e}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_without_a_day_has_no_operation_day_key() {
        let flight = StoredFlight {
            state: FlightState::new(7),
            operation_day: None,
            state_version: 2,
            last_message_id: 5,
            updated_at: NaiveDate::from_ymd_opt(2026, 9, 9)
                .and_then(|d| d.and_hms_opt(8, 0, 0))
                .expect("valid"),
        };
        assert_eq!(
            state_document(&flight),
            r#"{"FLID":7,"STATE_VERSION":2,"LAST_MESSAGE_ID":5,"UPDATED_AT":"2026-09-09T08:00:00"}"#
        );
    }
}
