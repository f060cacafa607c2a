//! The typed messages: envelope, the supported bodies, and the dispatch on TYPE/STYP.
//!
//! One file per message kind. Unsupported kinds are a value, not an error: the pipeline
//! records them as UNSUPPORTED, while their envelope must still be sound.

mod fields;
pub(crate) mod flight_record;
mod flop;
mod irregularities;
mod meta;
mod resources;
mod schedule;

use serde::Serialize;

pub use self::flight_record::FlightRecord;
pub use self::flop::{FlightOperation, FlopSubtype};
pub use self::irregularities::{Diversion, FlightReturn, LandingAbort};
pub use self::meta::Meta;
pub use self::resources::{
    BridgeEvent, CarouselAllocation, ChockEvent, ChuteAllocation, CounterAllocation, Delay,
    GateAllocation, PortEvent, PushEvent, RoutePoint, StandAllocation, TractorEvent,
};
pub use self::schedule::{Schedule, ScheduleSubtype};

pub(crate) use self::schedule::{EarlyRecords, RECORD, RECORDS_AT};

pub(crate) use self::flop::write_flight_operation;
pub(crate) use self::meta::write_meta;
pub(crate) use self::schedule::write_schedule;

use self::fields::{Notes, Path, no_text};
use self::flight_record::{RecordKind, parse_flight_record};
use super::ParseOptions;
use super::errors::ProtocolError;
use super::reader::Element;

/// One SIS message.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Message {
    /// The envelope.
    pub meta: Meta,
    /// What the message says, by TYPE/STYP.
    pub body: Body,
    /// Children of MSG that the body's kind does not define, by name (not looked for in an
    /// unsupported message).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<String>,
}

/// The body of a message, chosen by META TYPE and STYP.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Body {
    /// TYPE SCHD with STYP DNLD, RESP, ADFT or DEL.
    Schedule(Schedule),
    /// TYPE FLOP with a supported subtype.
    FlightOperation(FlightOperation),
    /// Any other TYPE/STYP (reference data, SCHS, RQRD, RQFD, FLOP SRVT/VIPF, unknown):
    /// flightstate does not apply it, and says so instead of failing.
    Unsupported {
        /// META TYPE.
        #[serde(rename = "TYPE")]
        msg_type: String,
        /// META STYP.
        #[serde(rename = "STYP")]
        subtype: String,
    },
}

/// Turns the document's root element into a message; `early` holds the FLTRs read while
/// the document was.
pub(crate) fn parse_message(
    root: &Element,
    opts: &ParseOptions,
    mut early: EarlyRecords<'_>,
) -> Result<Message, ProtocolError> {
    if root.name != "MSG" {
        return Err(ProtocolError::WrongRoot {
            found: root.name.to_string(),
        });
    }
    let path = &Path::root(root);
    no_text(root, path)?;
    let meta = single(root, "META", path)?;
    let meta = meta::parse_meta(meta, &path.child(meta))?;
    let mut notes = Notes::default();
    let body = if meta.msg_type == "SCHD"
        && let Some(subtype) = ScheduleSubtype::from_code(&meta.styp)
    {
        let schd = single(root, "SCHD", path)?;
        let schedule =
            schedule::parse_schedule(schd, &path.child(schd), subtype, opts, &mut early)?;
        note_siblings(root, &["META", "SCHD"], &mut notes);
        Body::Schedule(schedule)
    } else if meta.msg_type == "FLOP"
        && let Some(subtype) = FlopSubtype::from_code(&meta.styp)
    {
        let mut flights = Vec::new();
        for child in root.children.iter().filter(|c| c.name == "FLOP") {
            let path = path.child(child);
            flights.push(parse_flight_record(
                child,
                &path,
                RecordKind::FlightOperation,
            )?);
        }
        if flights.is_empty() {
            return Err(ProtocolError::Missing {
                path: "MSG/FLOP".into(),
            });
        }
        note_siblings(root, &["META", "FLOP"], &mut notes);
        Body::FlightOperation(FlightOperation { subtype, flights })
    } else {
        Body::Unsupported {
            msg_type: meta.msg_type.clone(),
            subtype: meta.styp.clone(),
        }
    };
    Ok(Message {
        meta,
        body,
        unknown: notes.unknown,
    })
}

/// The one child named `name`: missing and repeated are both errors.
fn single<'e, 'a>(
    parent: &'e Element<'a>,
    name: &str,
    path: &Path,
) -> Result<&'e Element<'a>, ProtocolError> {
    let mut found = parent.children.iter().filter(|c| c.name == name);
    let first = found.next().ok_or_else(|| ProtocolError::Missing {
        path: format!("{path}/{name}"),
    })?;
    if let Some(second) = found.next() {
        return Err(ProtocolError::Duplicate {
            path: path.child(second).to_string(),
        });
    }
    Ok(first)
}

fn note_siblings(root: &Element, known: &[&str], notes: &mut Notes) {
    for child in &root.children {
        if !known.contains(&&*child.name) {
            notes.unknown(child.name.to_string());
        }
    }
}
