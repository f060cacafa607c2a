//! FDIV, FRET and FLAB: the irregular operations, each one element whose attribute says
//! what happened and whose text says why.
//!
//! Each is "set" (a value), "clear" (empty) or not sent. The closed code of each is checked
//! here because the protocol defines it; nothing else about the flight is decided here.

use serde::Serialize;

use super::fields::{Notes, Path, leaf_text};
use crate::protocol::errors::ProtocolError;
use crate::protocol::reader::Element;
use crate::protocol::values::{AbortKind, DiversionDirection, Field, ReturnKind, SisValue};
use crate::protocol::xml_text::XmlOut;

/// FDIV: the flight is diverted to or from another airport.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub struct Diversion {
    /// `@DDES`: the other airport; never empty (an empty DDES clears the diversion).
    pub ddes: String,
    /// `@DDIR`: to or from that airport.
    pub ddir: DiversionDirection,
    /// The reason, possibly empty.
    #[serde(rename = "text")]
    pub text: String,
}

/// FRET: the flight returned to the stand or to the airport.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub struct FlightReturn {
    /// `@REID`: air or ground return.
    pub reid: ReturnKind,
    /// The reason, possibly empty (the peer's sample FRET_2 sends none).
    #[serde(rename = "text")]
    pub text: String,
}

/// FLAB: the landing was aborted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub struct LandingAbort {
    /// `@ARES`: overshoot or go-around.
    pub ares: AbortKind,
    /// The reason, possibly empty.
    #[serde(rename = "text")]
    pub text: String,
}

fn code<T: SisValue>(value: &str, path: &Path, attribute: &str) -> Result<T, ProtocolError> {
    T::parse_sis(value).ok_or_else(|| ProtocolError::BadValue {
        path: format!("{path}/@{attribute}"),
        value: value.to_owned(),
        expected: T::EXPECTED,
    })
}

fn not_twice<T>(slot: &Field<T>, path: &Path) -> Result<(), ProtocolError> {
    match slot {
        Field::Absent => Ok(()),
        _ => Err(ProtocolError::Duplicate {
            path: path.to_string(),
        }),
    }
}

/// FDIV: an empty or missing DDES clears the diversion (sample FDIV_2 sends `DDES=""` with a
/// reason); a DDIR other than TO/FROM is refused whenever it is given, and a set DDES needs one.
pub(crate) fn put_diversion(
    slot: &mut Field<Diversion>,
    element: &Element,
    path: &Path,
    notes: &mut Notes,
) -> Result<(), ProtocolError> {
    not_twice(slot, path)?;
    notes.unknown_attributes(element, &["DDES", "DDIR"], Some("FDIV"));
    let text = leaf_text(element, path)?;
    let ddes = element.attribute("DDES").unwrap_or_default();
    let ddir = element.attribute("DDIR").unwrap_or_default();
    let direction = if ddir.is_empty() {
        None
    } else {
        Some(code::<DiversionDirection>(ddir, path, "DDIR")?)
    };
    *slot = match (ddes.is_empty(), direction) {
        (true, _) => Field::Empty,
        (false, Some(ddir)) => Field::Value(Diversion {
            ddes: ddes.to_owned(),
            ddir,
            text: text.to_owned(),
        }),
        (false, None) => {
            return Err(ProtocolError::BadValue {
                path: format!("{path}/@DDIR"),
                value: String::new(),
                expected: "TO or FROM when DDES names an airport",
            });
        }
    };
    Ok(())
}

/// Reads the code-plus-reason shape of FRET and FLAB: no code and no reason clears; a reason
/// without a code cannot be stored anywhere and is refused.
fn code_and_reason<T: SisValue>(
    element: &Element,
    path: &Path,
    attribute: &str,
    expected_when_reason: &'static str,
) -> Result<Option<(T, String)>, ProtocolError> {
    let text = leaf_text(element, path)?;
    let value = element.attribute(attribute).unwrap_or_default();
    if value.is_empty() {
        if text.is_empty() {
            return Ok(None);
        }
        return Err(ProtocolError::BadValue {
            path: format!("{path}/@{attribute}"),
            value: String::new(),
            expected: expected_when_reason,
        });
    }
    Ok(Some((code::<T>(value, path, attribute)?, text.to_owned())))
}

/// FRET: `<FRET></FRET>` or `<FRET REID=""></FRET>` clears; REID must be A or G otherwise.
pub(crate) fn put_return(
    slot: &mut Field<FlightReturn>,
    element: &Element,
    path: &Path,
    notes: &mut Notes,
) -> Result<(), ProtocolError> {
    not_twice(slot, path)?;
    notes.unknown_attributes(element, &["REID"], Some("FRET"));
    *slot = match code_and_reason(element, path, "REID", "A or G when a reason is given")? {
        None => Field::Empty,
        Some((reid, text)) => Field::Value(FlightReturn { reid, text }),
    };
    Ok(())
}

/// FLAB: `<FLAB></FLAB>` or `<FLAB ARES=""></FLAB>` clears; ARES must be O or G otherwise.
pub(crate) fn put_landing_abort(
    slot: &mut Field<LandingAbort>,
    element: &Element,
    path: &Path,
    notes: &mut Notes,
) -> Result<(), ProtocolError> {
    not_twice(slot, path)?;
    notes.unknown_attributes(element, &["ARES"], Some("FLAB"));
    *slot = match code_and_reason(element, path, "ARES", "O or G when a reason is given")? {
        None => Field::Empty,
        Some((ares, text)) => Field::Value(LandingAbort { ares, text }),
    };
    Ok(())
}

/// Writes FDIV, FRET and FLAB back: empty as `<X></X>`, a value with its attribute and text.
pub(crate) fn write_irregularities(
    out: &mut XmlOut,
    fdiv: &Field<Diversion>,
    fret: &Field<FlightReturn>,
    flab: &Field<LandingAbort>,
) {
    match fdiv {
        Field::Absent => {}
        Field::Empty => out.text_element("FDIV", &[], ""),
        Field::Value(d) => out.text_element(
            "FDIV",
            &[
                ("DDES", Some(d.ddes.clone())),
                ("DDIR", Some(d.ddir.code().to_owned())),
            ],
            &d.text,
        ),
    }
    match fret {
        Field::Absent => {}
        Field::Empty => out.text_element("FRET", &[], ""),
        Field::Value(r) => {
            out.text_element("FRET", &[("REID", Some(r.reid.code().to_owned()))], &r.text)
        }
    }
    match flab {
        Field::Absent => {}
        Field::Empty => out.text_element("FLAB", &[], ""),
        Field::Value(a) => {
            out.text_element("FLAB", &[("ARES", Some(a.ares.code().to_owned()))], &a.text)
        }
    }
}
