//! The flight record: one FLTR of an SCHD, or one FLOP body — the same elements, typed once.
//!
//! Owns the element table of PROTOCOL §4.2–4.3 and the mandatory elements of an FLTR. It
//! reads the whole record whatever the FLOP subtype; deciding what a subtype changes is the
//! state layer's job.

use chrono::NaiveDateTime;
use serde::Serialize;

use super::fields::{Notes, Path, no_text, push_group, put, write_group};
use super::irregularities::{
    Diversion, FlightReturn, LandingAbort, put_diversion, put_landing_abort, put_return,
    write_irregularities,
};
use super::resources::{
    BridgeEvent, CarouselAllocation, ChockEvent, ChuteAllocation, CounterAllocation, Delay,
    GateAllocation, PortEvent, PushEvent, RoutePoint, StandAllocation, TractorEvent,
};
use crate::protocol::errors::ProtocolError;
use crate::protocol::reader::Element;
use crate::protocol::values::{Field, FlightIndicator, Group, Movement, NoValue};
use crate::protocol::xml_text::XmlOut;

/// Declares the scalar elements of the flight record once: the struct fields, the parser's
/// dispatch and the writer's order all come from this table.
macro_rules! flight_record {
    ($( $(#[$doc:meta])* $field:ident : $ty:ty = $element:literal, )+) => {
        /// One flight as SIS sends it, every optional element tri-state (see [`Field`]).
        ///
        /// Field names are the SIS element names in lower case, so that a record, its JSON
        /// (upper case keys) and the state tables' columns can be grepped against each other.
        #[derive(Clone, Debug, Default, PartialEq, Serialize)]
        #[serde(rename_all = "UPPERCASE")]
        pub struct FlightRecord {
            /// AODB's flight id: the only key of a flight, mandatory everywhere.
            pub flid: i64,
            $(
                $(#[$doc])*
                #[serde(skip_serializing_if = "Field::is_absent")]
                pub $field: Field<$ty>,
            )+
            /// Diversion (FDIV).
            #[serde(skip_serializing_if = "Field::is_absent")]
            pub fdiv: Field<Diversion>,
            /// Return (FRET).
            #[serde(skip_serializing_if = "Field::is_absent")]
            pub fret: Field<FlightReturn>,
            /// Landing abort (FLAB).
            #[serde(skip_serializing_if = "Field::is_absent")]
            pub flab: Field<LandingAbort>,
            /// Aircraft door open/close times (PORT; may repeat in an FLTR).
            #[serde(skip_serializing_if = "Group::is_absent")]
            pub port: Group<PortEvent>,
            /// Gate allocations (GTDT).
            #[serde(skip_serializing_if = "Group::is_absent")]
            pub gtdt: Group<GateAllocation>,
            /// Check-in counter allocations (CKDT).
            #[serde(skip_serializing_if = "Group::is_absent")]
            pub ckdt: Group<CounterAllocation>,
            /// Baggage carousel allocations (CLDT).
            #[serde(skip_serializing_if = "Group::is_absent")]
            pub cldt: Group<CarouselAllocation>,
            /// Planned stand allocations (PSDT).
            #[serde(skip_serializing_if = "Group::is_absent")]
            pub psdt: Group<StandAllocation>,
            /// Chute allocations (CHDT).
            #[serde(skip_serializing_if = "Group::is_absent")]
            pub chdt: Group<ChuteAllocation>,
            /// Chocks on/off (CHOT).
            #[serde(skip_serializing_if = "Group::is_absent")]
            pub chot: Group<ChockEvent>,
            /// Airbridge dock/undock (ABTM).
            #[serde(skip_serializing_if = "Group::is_absent")]
            pub abtm: Group<BridgeEvent>,
            /// Delays (DELY).
            #[serde(skip_serializing_if = "Group::is_absent")]
            pub dely: Group<Delay>,
            /// Route relative to this airport (ROUT).
            #[serde(skip_serializing_if = "Group::is_absent")]
            pub rout: Group<RoutePoint>,
            /// Entire route (ERUT).
            #[serde(skip_serializing_if = "Group::is_absent")]
            pub erut: Group<RoutePoint>,
            /// Pushbacks (PSHT).
            #[serde(skip_serializing_if = "Group::is_absent")]
            pub psht: Group<PushEvent>,
            /// Tractors in place (TIPT).
            #[serde(skip_serializing_if = "Group::is_absent")]
            pub tipt: Group<TractorEvent>,
            /// Elements SIS defines that flightstate leaves out (SRVT, VIPF), named so that
            /// their arrival is never silent.
            #[serde(rename = "ignored", skip_serializing_if = "Vec::is_empty")]
            pub ignored: Vec<String>,
            /// Elements and attributes SIS does not define here, by name relative to the
            /// record (`XYZ`, `GTDT/XYZ`, `FDIV/@XYZ`); their content is not kept.
            #[serde(rename = "unknown", skip_serializing_if = "Vec::is_empty")]
            pub unknown: Vec<String>,
        }

        impl FlightRecord {
            /// Fills the scalar named like `element`; `false` if it is not a scalar.
            fn put_scalar(&mut self, element: &Element, path: &Path) -> Result<bool, ProtocolError> {
                match &*element.name {
                    $( $element => put(&mut self.$field, element, path)?, )+
                    _ => return Ok(false),
                }
                Ok(true)
            }

            fn write_scalars(&self, out: &mut XmlOut) {
                $( out.leaf($element, &self.$field); )+
            }
        }
    };
}

flight_record! {
    /// Readable flight key `ALCD-FLNO-MVIN-SODT-FLIN` (FLOP only in practice; logs only).
    ffid: String = "FFID",
    /// Airline IATA code. Mandatory in an FLTR.
    alcd: String = "ALCD",
    /// Airline subcompany code.
    alsc: String = "ALSC",
    /// Flight number including the airline (YG9028). Mandatory in an FLTR.
    flno: String = "FLNO",
    /// Arrival or departure. Mandatory in an FLTR.
    mvin: Movement = "MVIN",
    /// Scheduled time (STA or STD), station-local. Mandatory in an FLTR.
    sodt: NaiveDateTime = "SODT",
    /// Flight type (FLTL code). Mandatory in an FLTR.
    flty: char = "FLTY",
    /// Domestic, international or mixed. Mandatory in an FLTR.
    flin: FlightIndicator = "FLIN",
    /// Aircraft IATA type. Mandatory in an FLTR.
    acft: String = "ACFT",
    /// Registration (tail number).
    reno: String = "RENO",
    /// Turnaround (linked) flight's airline.
    taop: String = "TAOP",
    /// Turnaround flight's number.
    tafl: String = "TAFL",
    /// Turnaround flight's FLID.
    taid: i64 = "TAID",
    /// Terminal.
    trml: String = "TRML",
    /// Maximum passengers.
    maxp: u32 = "MAXP",
    /// Codeshare master's airline.
    csop: String = "CSOP",
    /// Codeshare master's flight number.
    csft: String = "CSFT",
    /// Codeshare master's FLID.
    maid: i64 = "MAID",
    /// Estimated time (ETA/ETD).
    estt: NaiveDateTime = "ESTT",
    /// Actual time (ATA/ATD).
    actt: NaiveDateTime = "ACTT",
    /// Current (actual) stand.
    stnd: String = "STND",
    /// Passenger handling agent (ORGN id).
    phag: u32 = "PHAG",
    /// Field handling agent (ORGN id).
    fhag: u32 = "FHAG",
    /// Maintenance handling agent (ORGN id).
    mhag: u32 = "MHAG",
    /// Cancellation time; present means cancelled, empty undoes it.
    cncl: NaiveDateTime = "CNCL",
    /// Remarks.
    remc: String = "REMC",
    /// Boarding open.
    botm: NaiveDateTime = "BOTM",
    /// Last call.
    lacl: NaiveDateTime = "LACL",
    /// Final call.
    fint: NaiveDateTime = "FINT",
    /// Approved time.
    appt: NaiveDateTime = "APPT",
    /// Engine start requested.
    egsr: NaiveDateTime = "EGSR",
    /// Engine start.
    egst: NaiveDateTime = "EGST",
    /// Number of VIPs.
    vipp: u32 = "VIPP",
    /// VIP ranking.
    vipr: u8 = "VIPR",
    /// Local bag count.
    lbno: u32 = "LBNO",
    /// Local bag weight.
    lbwt: f64 = "LBWT",
    /// Total passenger count.
    paxc: u32 = "PAXC",
    /// External status code.
    exsc: String = "EXSC",
    /// External status remark.
    exsr: String = "EXSR",
    /// Flight status code (STTS).
    ftss: String = "FTSS",
    /// Previous station's estimated departure.
    pedt: NaiveDateTime = "PEDT",
    /// Next station's estimated arrival.
    neat: NaiveDateTime = "NEAT",
    /// Previous station's actual departure.
    padt: NaiveDateTime = "PADT",
    /// Next station's actual arrival.
    naat: NaiveDateTime = "NAAT",
    /// Calculated off-block time.
    cobt: NaiveDateTime = "COBT",
    /// Target off-block time.
    tobt: NaiveDateTime = "TOBT",
    /// Estimated off-block time.
    eobt: NaiveDateTime = "EOBT",
    /// Internal estimated time.
    iest: NaiveDateTime = "IEST",
    /// Calculated take-off time (FLOP only in the peer).
    ctot: NaiveDateTime = "CTOT",
    /// Logical runway.
    runw: String = "RUNW",
    /// Delete marker: present (and empty) in a FLOP FDEL.
    fdel: NoValue = "FDEL",
}

/// Where a record comes from, which decides its mandatory elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RecordKind {
    /// An FLTR of an SCHD: a full record.
    ScheduleRecord,
    /// A FLOP body: FLID plus whatever the subtype carries.
    FlightOperation,
}

/// The mandatory elements of an FLTR besides FLID (PROTOCOL §4.2, column M).
const FLTR_MANDATORY: &[&str] = &["ALCD", "FLNO", "MVIN", "SODT", "FLTY", "FLIN", "ACFT"];

/// Reads one record at `path`.
///
/// # Errors
///
/// A bad value, a duplicated element, stray text, or a missing or empty mandatory element.
pub(crate) fn parse_flight_record(
    element: &Element,
    path: &Path,
    kind: RecordKind,
) -> Result<FlightRecord, ProtocolError> {
    no_text(element, path)?;
    let mut record = FlightRecord::default();
    let mut flid = Field::<i64>::Absent;
    let mut notes = Notes::default();
    notes.unknown_attributes(element, &[], None);
    for child in &element.children {
        let path = &path.child(child);
        let notes = &mut notes;
        match &*child.name {
            "FLID" => {
                put(&mut flid, child, path)?;
                notes.unknown_attributes(child, &[], Some("FLID"));
            }
            "FDIV" => put_diversion(&mut record.fdiv, child, path, notes)?,
            "FRET" => put_return(&mut record.fret, child, path, notes)?,
            "FLAB" => put_landing_abort(&mut record.flab, child, path, notes)?,
            "PORT" => push_group(&mut record.port, child, path, notes)?,
            "GTDT" => push_group(&mut record.gtdt, child, path, notes)?,
            "CKDT" => push_group(&mut record.ckdt, child, path, notes)?,
            "CLDT" => push_group(&mut record.cldt, child, path, notes)?,
            "PSDT" => push_group(&mut record.psdt, child, path, notes)?,
            "CHDT" => push_group(&mut record.chdt, child, path, notes)?,
            "CHOT" => push_group(&mut record.chot, child, path, notes)?,
            "ABTM" => push_group(&mut record.abtm, child, path, notes)?,
            "DELY" => push_group(&mut record.dely, child, path, notes)?,
            "ROUT" => push_group(&mut record.rout, child, path, notes)?,
            "ERUT" => push_group(&mut record.erut, child, path, notes)?,
            "PSHT" => push_group(&mut record.psht, child, path, notes)?,
            "TIPT" => push_group(&mut record.tipt, child, path, notes)?,
            "SRVT" | "VIPF" => notes.ignored(&child.name),
            name => {
                if record.put_scalar(child, path)? {
                    notes.unknown_attributes(child, &[], Some(name));
                } else {
                    notes.unknown(name.to_owned());
                }
            }
        }
    }
    record.flid = match flid {
        Field::Value(id) => id,
        Field::Absent => return Err(missing(path, "FLID")),
        Field::Empty => return Err(empty(path, "FLID")),
    };
    if kind == RecordKind::ScheduleRecord {
        check_mandatory(&record, path)?;
    }
    record.ignored = notes.ignored;
    record.unknown = notes.unknown;
    Ok(record)
}

fn missing(path: &Path, name: &str) -> ProtocolError {
    ProtocolError::Missing {
        path: format!("{path}/{name}"),
    }
}

fn empty(path: &Path, name: &str) -> ProtocolError {
    ProtocolError::Empty {
        path: format!("{path}/{name}"),
    }
}

fn check_mandatory(record: &FlightRecord, path: &Path) -> Result<(), ProtocolError> {
    for &name in FLTR_MANDATORY {
        let (absent, empty_value) = match name {
            "ALCD" => state(&record.alcd),
            "FLNO" => state(&record.flno),
            "MVIN" => state(&record.mvin),
            "SODT" => state(&record.sodt),
            "FLTY" => state(&record.flty),
            "FLIN" => state(&record.flin),
            _ => state(&record.acft),
        };
        if absent {
            return Err(missing(path, name));
        }
        if empty_value {
            return Err(empty(path, name));
        }
    }
    Ok(())
}

fn state<T>(field: &Field<T>) -> (bool, bool) {
    (
        matches!(field, Field::Absent),
        matches!(field, Field::Empty),
    )
}

/// Writes a record back as an element named `name` (FLTR or FLOP).
pub(crate) fn write_flight_record(record: &FlightRecord, name: &str, out: &mut XmlOut) {
    out.open(name, &[]);
    out.leaf("FLID", &Field::Value(record.flid));
    record.write_scalars(out);
    write_irregularities(out, &record.fdiv, &record.fret, &record.flab);
    write_group(out, "PORT", &record.port);
    write_group(out, "GTDT", &record.gtdt);
    write_group(out, "CKDT", &record.ckdt);
    write_group(out, "CLDT", &record.cldt);
    write_group(out, "PSDT", &record.psdt);
    write_group(out, "CHDT", &record.chdt);
    write_group(out, "CHOT", &record.chot);
    write_group(out, "ABTM", &record.abtm);
    write_group(out, "DELY", &record.dely);
    write_group(out, "ROUT", &record.rout);
    write_group(out, "ERUT", &record.erut);
    write_group(out, "PSHT", &record.psht);
    write_group(out, "TIPT", &record.tipt);
    out.close(name);
}
