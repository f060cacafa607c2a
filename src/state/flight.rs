//! The full state of one flight: the main row and every collection, exactly
//! what the state database holds for a FLID (DESIGN §3).

use chrono::{NaiveDate, NaiveDateTime, Timelike};
use serde::{Deserialize, Serialize};

use super::columns::columns_struct;

/// Calls `$callback!` once for each table of a flight's state, with the
/// struct's doc, name and columns (`name: Kind`, in table order).
///
/// This list is the one declaration of the flight tables' columns on the
/// Rust side: the state structs and each dialect's row readers are generated
/// from it, and a test holds it equal to the migrations.
macro_rules! flight_tables {
    ($callback:ident) => {
        $callback! {
            /// Every scalar of the flight record: the columns of `FLIGHT_SCHD`
            /// other than the key and the bookkeeping. Names are the SIS
            /// elements' (attributes as `ELEMENT_ATTR`); `None` means "no such
            /// data".
            pub struct FlightFields {
                alcd: Code, alsc: Code, flno: Code, mvin: Code, sodt: Time, flty: Code,
                flin: Code, acft: Code, reno: Code, taop: Code, tafl: Code, taid: Id,
                trml: Code, maxp: Count, csop: Code, csft: Code, maid: Id, estt: Time,
                actt: Time, stnd: Code, phag: Id, fhag: Id, mhag: Id, cncl: Time,
                remc: Text, botm: Time, lacl: Time, fint: Time, appt: Time, egsr: Time,
                egst: Time, vipp: Count, vipr: Count, lbno: Count, lbwt: Decimal,
                paxc: Count, exsc: Code, exsr: Text, ftss: Code, pedt: Time, neat: Time,
                padt: Time, naat: Time, cobt: Time, tobt: Time, eobt: Time, iest: Time,
                ctot: Time, runw: Code, ffid: Key, fdiv_ddes: Code, fdiv_ddir: Code,
                fdiv: Text, fret_reid: Code, fret: Text, flab_ares: Code, flab: Text,
                port_open_potm: Time, port_close_potm: Time,
            }
        }
        $callback! {
            /// A gate allocation (GTDT), a row of `FLIGHT_GATE`.
            pub struct Gate {
                source_seq: Count, gate: Code, pgot: Time, pgct: Time, gotm: Time,
                gctm: Time, gtyp: Code,
            }
        }
        $callback! {
            /// A check-in counter allocation (CKDT), a row of `FLIGHT_COUNTER`.
            pub struct Counter {
                source_seq: Count, chkc: Code, ccls: Code, pcot: Time, pcct: Time,
                cotm: Time, cctm: Time, ctyp: Code,
            }
        }
        $callback! {
            /// A baggage carousel allocation (CLDT), a row of `FLIGHT_CAROUSEL`.
            pub struct Carousel {
                source_seq: Count, belt: Code, bcls: Code, pcot: Time, pcct: Time,
                fbag: Time, lbag: Time, btyp: Code,
            }
        }
        $callback! {
            /// A planned stand (PSDT) with the push (PSHT) and tractor (TIPT)
            /// data reported for it, a row of `FLIGHT_STAND`.
            pub struct Stand {
                source_seq: Count, psst: Code, stst: Time, stet: Time, pshn: Count,
                pstm: Time, psid: Code, trtm: Time,
            }
        }
        $callback! {
            /// A chute allocation (CHDT), a row of `FLIGHT_CHUTE`.
            pub struct Chute {
                source_seq: Count, chut: Code, ccls: Code, pcbt: Time, pcet: Time,
                cbtm: Time, cetm: Time, ctyp: Code,
            }
        }
        $callback! {
            /// A delay (DELY; duration in minutes), a row of `FLIGHT_DELAY`.
            pub struct Delay {
                source_seq: Count, dely_code: Code, dely_strt: Time, dely_dura: Count,
                dely: Text,
            }
        }
        $callback! {
            /// An airbridge dock or undock (ABTM), a row of `FLIGHT_BRIDGE`.
            pub struct Bridge { source_seq: Count, abdg: Code, abop: Code, aotm: Time }
        }
        $callback! {
            /// A chocks-on or chocks-off record (CHOT), a row of `FLIGHT_CHOCK`.
            pub struct Chock { source_seq: Count, chtm: Time, chid: Code, chst: Code }
        }
        $callback! {
            /// A stop of the route (ROUT or ERUT), a row of
            /// `FLIGHT_ROUTE_POINT`.
            pub struct RoutePoint { source_seq: Count, apcd: Code, scat: Time, scdt: Time }
        }
    };
}
#[cfg(any(feature = "postgres", feature = "oracle"))]
pub(crate) use flight_tables;

flight_tables!(columns_struct);

/// The complete current state of one flight, without bookkeeping.
///
/// Two states are equal exactly when the database rows they stand for are
/// equal, which is how an unchanged flight is recognised and left unwritten.
/// Collections keep input order (`ORDINAL` is the position).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlightState {
    /// The AODB flight id.
    #[serde(rename = "FLID")]
    pub flid: i64,
    /// The scalars.
    #[serde(flatten)]
    pub fields: FlightFields,
    /// GTDT.
    #[serde(rename = "GTDT", skip_serializing_if = "Vec::is_empty", default)]
    pub gates: Vec<Gate>,
    /// CKDT.
    #[serde(rename = "CKDT", skip_serializing_if = "Vec::is_empty", default)]
    pub counters: Vec<Counter>,
    /// CLDT.
    #[serde(rename = "CLDT", skip_serializing_if = "Vec::is_empty", default)]
    pub carousels: Vec<Carousel>,
    /// PSDT (+ PSHT/TIPT).
    #[serde(rename = "PSDT", skip_serializing_if = "Vec::is_empty", default)]
    pub stands: Vec<Stand>,
    /// CHDT.
    #[serde(rename = "CHDT", skip_serializing_if = "Vec::is_empty", default)]
    pub chutes: Vec<Chute>,
    /// DELY.
    #[serde(rename = "DELY", skip_serializing_if = "Vec::is_empty", default)]
    pub delays: Vec<Delay>,
    /// ABTM.
    #[serde(rename = "ABTM", skip_serializing_if = "Vec::is_empty", default)]
    pub bridges: Vec<Bridge>,
    /// CHOT.
    #[serde(rename = "CHOT", skip_serializing_if = "Vec::is_empty", default)]
    pub chocks: Vec<Chock>,
    /// ROUT: the other end(s) of the flight relative to the home airport.
    #[serde(rename = "ROUT", skip_serializing_if = "Vec::is_empty", default)]
    pub route: Vec<RoutePoint>,
    /// ERUT: the entire route, home airport included.
    #[serde(rename = "ERUT", skip_serializing_if = "Vec::is_empty", default)]
    pub entire_route: Vec<RoutePoint>,
}

impl FlightState {
    /// An empty flight: what a FLID is before any message said anything.
    pub fn new(flid: i64) -> FlightState {
        FlightState {
            flid,
            ..FlightState::default()
        }
    }

    /// The digest stored with the state (`STATE_DIGEST`): equal digests mean
    /// equal states, so a snapshot recognises an unchanged flight from its
    /// main row alone instead of reading every detail table back.
    pub fn digest(&self) -> String {
        // Serialising these plain structs cannot fail; were it ever to, the
        // empty digest input matches no stored digest and the flight is
        // simply rewritten.
        let canonical = serde_json::to_vec(self).unwrap_or_default();
        crate::digest::sha256_hex([canonical.as_slice()])
    }
}

/// A flight as stored: its state plus the bookkeeping columns of
/// `FLIGHT_SCHD`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredFlight {
    /// The state.
    #[serde(flatten)]
    pub state: FlightState,
    /// The operation day; `None` until a snapshot names it.
    #[serde(rename = "OPERATION_DAY")]
    pub operation_day: Option<NaiveDate>,
    /// Bumped by one for every effective change.
    #[serde(rename = "STATE_VERSION")]
    pub state_version: i64,
    /// The message that made the last change.
    #[serde(rename = "LAST_MESSAGE_ID")]
    pub last_message_id: i64,
    /// When the last change was committed (UTC).
    #[serde(rename = "UPDATED_AT")]
    pub updated_at: NaiveDateTime,
}

impl StoredFlight {
    /// `time` as `FLIGHT_SCHD.UPDATED_AT` keeps it: to the nearest second,
    /// half up, as PostgreSQL's `TIMESTAMP(0)` rounds (the Oracle binds of
    /// `DATE` columns round the same way). The state document shows its
    /// `UPDATED_AT` so, and then agrees with one built later from the row.
    pub fn row_time(time: NaiveDateTime) -> NaiveDateTime {
        let whole = time.with_nanosecond(0).unwrap_or(time);
        if time.nanosecond() >= 500_000_000 {
            whole + chrono::Duration::seconds(1)
        } else {
            whole
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::columns::{ColumnKind, ColumnValues, TableRow};

    #[test]
    fn row_times_round_like_postgres_timestamp0() {
        let t =
            |s: &str| NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.f").expect("test time");
        assert_eq!(
            StoredFlight::row_time(t("2026-09-09 08:00:00.499999")),
            t("2026-09-09 08:00:00")
        );
        assert_eq!(
            StoredFlight::row_time(t("2026-09-09 23:59:59.5")),
            t("2026-09-10 00:00:00")
        );
    }

    #[test]
    fn columns_follow_declaration_order() {
        assert_eq!(FlightFields::COLUMNS.len(), 59);
        assert_eq!(
            FlightFields::COLUMNS[0],
            ("alcd", ColumnKind::Text(crate::state::CODE_CHARS))
        );
        assert_eq!(FlightFields::COLUMNS[4], ("sodt", ColumnKind::Time));
        assert_eq!(FlightFields::COLUMNS[34], ("lbwt", ColumnKind::Decimal));
    }

    #[test]
    fn columnar_view_keeps_row_order() {
        let rows = [
            Gate {
                gate: Some("G28".into()),
                ..Gate::default()
            },
            Gate::default(),
        ];
        let columns = Gate::columns(rows.iter());
        assert_eq!(columns.len(), Gate::COLUMNS.len());
        assert_eq!(
            columns[1],
            ColumnValues::Text(vec![Some("G28".to_owned()), None])
        );
    }
}
