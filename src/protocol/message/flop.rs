//! FLOP: a flight event — one or more flight records carrying what a subtype changes.
//!
//! Owns the closed list of FLOP subtypes flightstate handles (PROTOCOL §3.3 minus SRVT and
//! VIPF). Each body is read whole and generically; which elements a subtype may change, and
//! how (replace, merge, clear), is decided by the state layer, not here.

use serde::Serialize;

use super::flight_record::{FlightRecord, write_flight_record};
use crate::protocol::xml_text::XmlOut;

/// Declares the FLOP subtypes with their SIS codes.
macro_rules! flop_subtypes {
    ($( $(#[$doc:meta])* $variant:ident = $code:literal, )+) => {
        /// A FLOP subtype flightstate applies (SRVT, VIPF and unknown ones are unsupported).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        pub enum FlopSubtype {
            $( $(#[$doc])* #[serde(rename = $code)] $variant, )+
        }

        impl FlopSubtype {
            /// Every supported subtype, for tables keyed by subtype (merge rules, metrics).
            pub const ALL: &'static [FlopSubtype] = &[$(FlopSubtype::$variant),+];

            /// Reads the META STYP of a FLOP.
            pub fn from_code(code: &str) -> Option<FlopSubtype> {
                match code {
                    $( $code => Some(FlopSubtype::$variant), )+
                    _ => None,
                }
            }

            /// The STYP as SIS writes it.
            pub fn code(self) -> &'static str {
                match self {
                    $( FlopSubtype::$variant => $code, )+
                }
            }
        }
    };
}

flop_subtypes! {
    /// Airbridge dock/undock events (ABTM).
    Abtm = "ABTM",
    /// Aircraft type (ACFT).
    Acft = "ACFT",
    /// Approved time (APPT).
    Appt = "APPT",
    /// Boarding open (BOTM).
    Botm = "BOTM",
    /// Chute allocations (CHDT).
    Chdt = "CHDT",
    /// Chocks on/off (CHOT).
    Chot = "CHOT",
    /// Check-in counter allocations (CKDT).
    Ckdt = "CKDT",
    /// Carousel allocations (CLDT).
    Cldt = "CLDT",
    /// Cancellation or its undoing (CNCL).
    Cncl = "CNCL",
    /// Calculated off-block time (COBT).
    Cobt = "COBT",
    /// Calculated take-off time (CTOT).
    Ctot = "CTOT",
    /// Delays (DELY).
    Dely = "DELY",
    /// Engine start request (EGSR).
    Egsr = "EGSR",
    /// Engine start (EGST).
    Egst = "EGST",
    /// Estimated off-block time (EOBT).
    Eobt = "EOBT",
    /// Entire route (ERUT).
    Erut = "ERUT",
    /// External status, EXSC + EXSR (EXSS).
    Exss = "EXSS",
    /// Delete the flight (FDEL).
    Fdel = "FDEL",
    /// Diversion (FDIV).
    Fdiv = "FDIV",
    /// Final call (FINT).
    Fint = "FINT",
    /// Landing abort (FLAB).
    Flab = "FLAB",
    /// Flight indicator (FLIN).
    Flin = "FLIN",
    /// Flight type (FLTY).
    Flty = "FLTY",
    /// Return (FRET).
    Fret = "FRET",
    /// Flight status (FTSS).
    Ftss = "FTSS",
    /// Gate allocations (GTDT).
    Gtdt = "GTDT",
    /// Handling agents, FHAG + PHAG + MHAG (HNAG).
    Hnag = "HNAG",
    /// Internal estimated time (IEST).
    Iest = "IEST",
    /// Last call (LACL).
    Lacl = "LACL",
    /// Maximum passengers (MAXP).
    Maxp = "MAXP",
    /// Next station's actual arrival (NAAT).
    Naat = "NAAT",
    /// Next station's estimated arrival (NEAT).
    Neat = "NEAT",
    /// Previous station's actual departure (PADT).
    Padt = "PADT",
    /// Previous station's estimated departure (PEDT).
    Pedt = "PEDT",
    /// Door open/close (PORT).
    Port = "PORT",
    /// Planned stand allocations (PSDT).
    Psdt = "PSDT",
    /// Pushbacks (PSHT).
    Psht = "PSHT",
    /// Remarks (REMC).
    Remc = "REMC",
    /// Registration (RENO).
    Reno = "RENO",
    /// Logical runway (RUNW).
    Runw = "RUNW",
    /// Current stand (STND).
    Stnd = "STND",
    /// Turnaround link, TAOP + TAFL + TAID (TAOP).
    Taop = "TAOP",
    /// Tractors in place (TIPT).
    Tipt = "TIPT",
    /// Target off-block time (TOBT).
    Tobt = "TOBT",
    /// Terminal (TRML).
    Trml = "TRML",
    /// VIP count and ranking, VIPP + VIPR (VIPP).
    Vipp = "VIPP",
}

/// A FLOP message's body: its subtype and every `<FLOP>` record, in input order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlightOperation {
    /// What the event is about.
    pub subtype: FlopSubtype,
    /// One record per `<FLOP>` element; FLID is the only element each must carry.
    pub flights: Vec<FlightRecord>,
}

/// Writes the FLOP bodies back.
pub(crate) fn write_flight_operation(operation: &FlightOperation, out: &mut XmlOut) {
    for flight in &operation.flights {
        write_flight_record(flight, "FLOP", out);
    }
}
