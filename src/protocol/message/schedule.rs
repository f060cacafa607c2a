//! SCHD: the daily flight schedule — a snapshot (DNLD, RESP), one ad-hoc flight (ADFT) or
//! flights to delete (DEL), each a list of full FLTR records.
//!
//! Owns RECS and the site's optional operation-day element. It does not compare RECS with
//! the number of records, nor find the operation day from the SODTs: the pipeline does both
//! and reports what it finds.

use chrono::NaiveDate;
use serde::Serialize;

use super::fields::{Notes, Path, leaf_text, no_text, put};
use super::flight_record::{FlightRecord, RecordKind, parse_flight_record, write_flight_record};
use super::meta::parse_meta;
use crate::protocol::ParseOptions;
use crate::protocol::errors::ProtocolError;
use crate::protocol::reader::Element;
use crate::protocol::values::{Field, format_date, parse_date};
use crate::protocol::xml_text::XmlOut;

/// The SCHD subtypes flightstate applies; any other is unsupported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum ScheduleSubtype {
    /// A full download: the complete flight list of an operation day.
    Dnld,
    /// The answer to our RQFD request; a full snapshot like DNLD.
    Resp,
    /// One ad-hoc flight, added or updated; never deletes.
    Adft,
    /// The listed flights are deleted.
    Del,
}

impl ScheduleSubtype {
    /// Reads the META STYP of an SCHD.
    pub fn from_code(code: &str) -> Option<ScheduleSubtype> {
        match code {
            "DNLD" => Some(ScheduleSubtype::Dnld),
            "RESP" => Some(ScheduleSubtype::Resp),
            "ADFT" => Some(ScheduleSubtype::Adft),
            "DEL" => Some(ScheduleSubtype::Del),
            _ => None,
        }
    }

    /// Whether the message is a snapshot: a day's complete flight list
    /// (DNLD, or RESP answering a request).
    pub fn is_snapshot(self) -> bool {
        matches!(self, ScheduleSubtype::Dnld | ScheduleSubtype::Resp)
    }

    /// The STYP as SIS writes it.
    pub fn code(self) -> &'static str {
        match self {
            ScheduleSubtype::Dnld => "DNLD",
            ScheduleSubtype::Resp => "RESP",
            ScheduleSubtype::Adft => "ADFT",
            ScheduleSubtype::Del => "DEL",
        }
    }
}

/// An SCHD body.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Schedule {
    /// What the snapshot is for.
    pub subtype: ScheduleSubtype,
    /// The sender's record count, as sent; not checked against `flights` here.
    #[serde(rename = "RECS", skip_serializing_if = "Field::is_absent")]
    pub recs: Field<u32>,
    /// The operation day named by the site's configured element
    /// ([`ParseOptions::operation_day_element`]); `None` when not configured, not sent, or empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation_day: Option<NaiveDate>,
    /// The FLTR records, in input order.
    pub flights: Vec<FlightRecord>,
    /// SCHD children SIS does not define, by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<String>,
}

const EXPECTED_DAY: &str = "a date ddMMMyy such as 23JAN21";

/// Where a schedule's records are.
pub(crate) const RECORDS_AT: &[&str] = &["MSG", "SCHD"];
/// The element of one record.
pub(crate) const RECORD: &str = "FLTR";

/// The FLTRs of `MSG/SCHD`, each read as soon as the reader closes it.
///
/// A snapshot's tree is many times bigger than the cache: reading each FLTR while it is
/// still there, and letting go of its children at once, costs far less than walking the
/// whole tree again afterwards. Records and errors alike wait here until
/// [`parse_schedule`] reaches their FLTR, so what is reported, and in which order, is what
/// a walk of the finished tree reports: a document found malformed further on still fails
/// as malformed, and a message that is no supported SCHD just drops them.
///
/// The records of a snapshot (a META of SCHD DNLD or RESP, read before the SCHD) are instead
/// handed to a caller as they are read, so that it can start on a day's flights
/// while the rest of the day is still being read, and are not kept: the day is never held
/// whole.
#[derive(Default)]
pub(crate) struct EarlyRecords<'o> {
    /// The records of the first FLTRs, in order, up to the first that failed; none of
    /// those handed on.
    records: Vec<FlightRecord>,
    /// How many records were handed on (the first ones).
    handed: usize,
    /// Why the FLTR after `records` failed; no FLTR after it is read, as none is reported.
    failed: Option<ProtocolError>,
    /// Who takes each record of a snapshot as soon as it is read.
    to: Option<&'o mut dyn FnMut(FlightRecord)>,
    /// Whether the META read so far says the message is a snapshot.
    snapshot: bool,
}

impl<'o> EarlyRecords<'o> {
    /// Records read early, each of a snapshot handed to `to`.
    pub fn handed(to: &'o mut dyn FnMut(FlightRecord)) -> Self {
        EarlyRecords {
            to: Some(to),
            ..EarlyRecords::default()
        }
    }

    /// Records of the FLTRs of a snapshot's tail, read by a second reader
    /// (`protocol::tail`): each handed to `to`.
    pub fn of_tail(to: &'o mut dyn FnMut(FlightRecord)) -> Self {
        EarlyRecords {
            to: Some(to),
            snapshot: true,
            ..EarlyRecords::default()
        }
    }

    /// Whether every FLTR read so far read.
    pub fn all_read(&self) -> bool {
        self.failed.is_none()
    }

    /// Takes `records`, of the FLTRs that a second reader read of the rest of the document
    /// with `open` open before them, as if read here; `false`, taking nothing, where they
    /// would not have been read so here: `open` is not the first `MSG/SCHD`, or an FLTR
    /// before them failed.
    pub fn take_tail(&mut self, open: &[Element], records: Vec<FlightRecord>) -> bool {
        let [msg, schd] = open else {
            return false;
        };
        if [&*msg.name, &*schd.name] != RECORDS_AT || schd.index != 1 || self.failed.is_some() {
            return false;
        }
        for record in records {
            self.keep(record);
        }
        true
    }

    fn keep(&mut self, record: FlightRecord) {
        match &mut self.to {
            Some(to) if self.snapshot => {
                to(record);
                self.handed += 1;
            }
            _ => self.records.push(record),
        }
    }

    /// Reads `element` if it is an FLTR of the first `MSG/SCHD` (the only one
    /// [`parse_schedule`] reads; a second is a duplicate), and empties it.
    pub fn closed(&mut self, ancestors: &[Element], element: &mut Element) {
        if let [msg] = ancestors
            && msg.name == "MSG"
            && element.name == "META"
            && element.index == 1
            && self.to.is_some()
        {
            let msg = Path::root(msg);
            self.snapshot = parse_meta(element, &msg.child(element)).is_ok_and(|meta| {
                meta.msg_type == "SCHD"
                    && ScheduleSubtype::from_code(&meta.styp)
                        .is_some_and(ScheduleSubtype::is_snapshot)
            });
            return;
        }
        let [msg, schd] = ancestors else {
            return;
        };
        if element.name != RECORD || [&*msg.name, &*schd.name] != RECORDS_AT || schd.index != 1 {
            return;
        }
        if self.failed.is_none() {
            let msg = Path::root(msg);
            let schd = msg.child(schd);
            let path = schd.child(element);
            match parse_flight_record(element, &path, RecordKind::ScheduleRecord) {
                Ok(record) => self.keep(record),
                Err(e) => self.failed = Some(e),
            }
        }
        element.children = Vec::new();
    }
}

/// Reads `MSG/SCHD`.
///
/// # Errors
///
/// A non-numeric RECS, a bad operation day, or any error of an FLTR.
pub(crate) fn parse_schedule(
    element: &Element,
    path: &Path,
    subtype: ScheduleSubtype,
    opts: &ParseOptions,
    early: &mut EarlyRecords<'_>,
) -> Result<Schedule, ProtocolError> {
    no_text(element, path)?;
    let mut notes = Notes::default();
    let mut recs = Field::Absent;
    let mut day: Option<Field<NaiveDate>> = None;
    let mut fltrs = 0;
    let day_element = opts.operation_day_element.as_deref();
    for child in &element.children {
        let path = &path.child(child);
        match &*child.name {
            "RECS" => put(&mut recs, child, path)?,
            "FLTR" => {
                if fltrs == early.handed + early.records.len() {
                    if let Some(e) = early.failed.take() {
                        return Err(e);
                    }
                    // Not read early (no reader told `early` of it): read it now.
                    let record = parse_flight_record(child, path, RecordKind::ScheduleRecord)?;
                    early.records.push(record);
                }
                fltrs += 1;
            }
            name if Some(name) == day_element => {
                if day.is_some() {
                    return Err(ProtocolError::Duplicate {
                        path: path.to_string(),
                    });
                }
                day = Some(operation_day(child, path)?);
            }
            other => notes.unknown(other.to_owned()),
        }
    }
    Ok(Schedule {
        subtype,
        recs,
        operation_day: day.and_then(|d| d.value().copied()),
        flights: std::mem::take(&mut early.records),
        unknown: notes.unknown,
    })
}

fn operation_day(element: &Element, path: &Path) -> Result<Field<NaiveDate>, ProtocolError> {
    let text = leaf_text(element, path)?;
    if text.is_empty() {
        return Ok(Field::Empty);
    }
    parse_date(text)
        .map(Field::Value)
        .ok_or_else(|| ProtocolError::BadValue {
            path: path.to_string(),
            value: text.to_owned(),
            expected: EXPECTED_DAY,
        })
}

/// Writes SCHD back; the operation day only when `opts` names its element.
pub(crate) fn write_schedule(schedule: &Schedule, opts: &ParseOptions, out: &mut XmlOut) {
    out.open("SCHD", &[]);
    out.leaf("RECS", &schedule.recs);
    if let (Some(name), Some(day)) = (&opts.operation_day_element, &schedule.operation_day) {
        out.text_element(name, &[], &format_date(day));
    }
    for flight in &schedule.flights {
        write_flight_record(flight, "FLTR", out);
    }
    out.close("SCHD");
}
