//! The envelope (META) every message carries: who sent it, when, and what it is.
//!
//! Owns the envelope's strictness: all five fields mandatory, DTTM a real time. SEQN is kept
//! as text because SIS never promises it is numeric or unique; nothing here relies on it.

use chrono::NaiveDateTime;
use serde::Serialize;

use super::fields::{Notes, Path, no_text, put};
use crate::protocol::errors::ProtocolError;
use crate::protocol::reader::Element;
use crate::protocol::values::{Field, format_message_time, parse_message_time};
use crate::protocol::xml_text::XmlOut;

/// The envelope of a message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub struct Meta {
    /// The sending system (`AODB` inbound); matched against requests, never trusted further.
    pub sndr: String,
    /// The sender's sequence number, as text: not numeric, not unique, not used for order.
    pub seqn: String,
    /// When the sender created the message (station-local `yyyyMMddHHmmss`).
    pub dttm: NaiveDateTime,
    /// The message family (SCHD, FLOP, reference data types, …), trimmed.
    #[serde(rename = "TYPE")]
    pub msg_type: String,
    /// The subtype (DNLD, GTDT, …), trimmed.
    pub styp: String,
    /// META children SIS does not define, by name.
    #[serde(rename = "unknown", skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<String>,
}

const EXPECTED_DTTM: &str = "a time yyyyMMddHHmmss such as 20021010090311";

/// Reads `MSG/META`.
///
/// # Errors
///
/// A missing or empty field, a duplicated field, or a DTTM that is not a real time.
pub(crate) fn parse_meta(element: &Element, path: &Path) -> Result<Meta, ProtocolError> {
    no_text(element, path)?;
    let mut notes = Notes::default();
    let (mut sndr, mut seqn, mut dttm, mut msg_type, mut styp) = (
        Field::<String>::Absent,
        Field::<String>::Absent,
        Field::<String>::Absent,
        Field::<String>::Absent,
        Field::<String>::Absent,
    );
    for child in &element.children {
        let path = &path.child(child);
        match &*child.name {
            "SNDR" => put(&mut sndr, child, path)?,
            "SEQN" => put(&mut seqn, child, path)?,
            "DTTM" => put(&mut dttm, child, path)?,
            "TYPE" => put(&mut msg_type, child, path)?,
            "STYP" => put(&mut styp, child, path)?,
            other => notes.unknown(other.to_owned()),
        }
    }
    let sndr = required(sndr, path, "SNDR")?;
    let seqn = required(seqn, path, "SEQN")?;
    let dttm_text = required(dttm, path, "DTTM")?;
    let dttm = parse_message_time(&dttm_text).ok_or_else(|| ProtocolError::BadValue {
        path: format!("{path}/DTTM"),
        value: dttm_text.clone(),
        expected: EXPECTED_DTTM,
    })?;
    Ok(Meta {
        sndr,
        seqn,
        dttm,
        msg_type: required(msg_type, path, "TYPE")?,
        styp: required(styp, path, "STYP")?,
        unknown: notes.unknown,
    })
}

fn required(field: Field<String>, path: &Path, name: &str) -> Result<String, ProtocolError> {
    match field {
        Field::Value(v) => Ok(v),
        Field::Absent => Err(ProtocolError::Missing {
            path: format!("{path}/{name}"),
        }),
        Field::Empty => Err(ProtocolError::Empty {
            path: format!("{path}/{name}"),
        }),
    }
}

/// Writes META back.
pub(crate) fn write_meta(meta: &Meta, out: &mut XmlOut) {
    out.open("META", &[]);
    out.leaf("SNDR", &Field::Value(meta.sndr.clone()));
    out.leaf("SEQN", &Field::Value(meta.seqn.clone()));
    out.leaf("DTTM", &Field::Value(format_message_time(&meta.dttm)));
    out.leaf("TYPE", &Field::Value(meta.msg_type.clone()));
    out.leaf("STYP", &Field::Value(meta.styp.clone()));
    out.close("META");
}
