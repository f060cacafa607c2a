//! Reading one element or attribute into a typed field, with the rules every message kind
//! shares: text-only leaves, duplicates refused, empty kept apart from absent, and nothing
//! unknown dropped without a note.

use crate::protocol::errors::ProtocolError;
use crate::protocol::reader::Element;
use crate::protocol::values::{Field, Group, SisValue};

/// The path of `child` below `base`.
pub(crate) fn child_path(base: &str, child: &Element) -> String {
    format!("{base}/{}", child.segment())
}

/// The trimmed text of an element that may hold only text.
pub(crate) fn leaf_text<'e>(element: &'e Element, path: &str) -> Result<&'e str, ProtocolError> {
    match element.children.first() {
        Some(child) => Err(ProtocolError::UnexpectedChild {
            path: path.to_owned(),
            child: child.name.clone(),
        }),
        None => Ok(element.trimmed_text()),
    }
}

/// Refuses text in an element that may hold only elements (an element whose children are
/// all missing is the one case the reader cannot see as mixed content).
pub(crate) fn no_text(element: &Element, path: &str) -> Result<(), ProtocolError> {
    let text = element.trimmed_text();
    if element.children.is_empty() && !text.is_empty() {
        return Err(ProtocolError::StrayText {
            path: path.to_owned(),
            text: text.to_owned(),
        });
    }
    Ok(())
}

/// Reads a trimmed text into a field: empty text is [`Field::Empty`].
pub(crate) fn field_from_text<T: SisValue>(
    text: &str,
    path: &str,
) -> Result<Field<T>, ProtocolError> {
    if text.is_empty() {
        return Ok(Field::Empty);
    }
    T::parse_sis(text)
        .map(Field::Value)
        .ok_or_else(|| ProtocolError::BadValue {
            path: path.to_owned(),
            value: text.to_owned(),
            expected: T::EXPECTED,
        })
}

/// Fills `slot` from a text-only element; a second occurrence of the element is refused.
pub(crate) fn put<T: SisValue>(
    slot: &mut Field<T>,
    element: &Element,
    path: &str,
) -> Result<(), ProtocolError> {
    if !slot.is_absent() {
        return Err(ProtocolError::Duplicate {
            path: path.to_owned(),
        });
    }
    *slot = field_from_text(leaf_text(element, path)?, path)?;
    Ok(())
}

/// Reads an attribute: not there is [`Field::Absent`], `NAME=""` is [`Field::Empty`].
pub(crate) fn attribute<T: SisValue>(
    element: &Element,
    name: &str,
    path: &str,
) -> Result<Field<T>, ProtocolError> {
    match element.attribute(name) {
        None => Ok(Field::Absent),
        Some(value) => field_from_text(value, &format!("{path}/@{name}")),
    }
}

/// What a record carried that the typed value does not hold, so that nothing goes silently.
#[derive(Debug, Default)]
pub(crate) struct Notes {
    /// Names of elements (or `ELEMENT/@attribute`) that SIS does not define here.
    pub unknown: Vec<String>,
    /// Names of elements SIS defines but flightstate leaves out (SRVT, VIPF).
    pub ignored: Vec<String>,
}

impl Notes {
    /// Notes an unknown element or attribute once, by its name relative to the record.
    pub fn unknown(&mut self, name: String) {
        if !self.unknown.contains(&name) {
            self.unknown.push(name);
        }
    }

    /// Notes an out-of-scope element once.
    pub fn ignored(&mut self, name: &str) {
        if !self.ignored.iter().any(|n| n == name) {
            self.ignored.push(name.to_owned());
        }
    }

    /// Notes every attribute of `element` not in `known`, as `prefix@NAME`.
    pub fn unknown_attributes(&mut self, element: &Element, known: &[&str], prefix: &str) {
        for (name, _) in &element.attributes {
            if !known.contains(&name.as_str()) {
                self.unknown(format!("{prefix}@{name}"));
            }
        }
    }
}

/// One entry of a repeating group of the flight record. The group's element name is passed
/// in, as ROUT and ERUT share one entry type.
pub(crate) trait GroupItem: Sized {
    /// Reads one non-blank group element named `name` at `path`.
    fn parse(
        element: &Element,
        name: &str,
        path: &str,
        notes: &mut Notes,
    ) -> Result<Self, ProtocolError>;
    /// Writes the entry back as one element named `name`.
    fn write(&self, name: &str, out: &mut crate::protocol::write::XmlOut);
}

/// What an empty group element next to real entries would mean cannot be known.
const MIXED_GROUP: &str = "entries only, or one empty element that clears the collection";

/// Adds one group element to `group`, keeping "an empty element" apart from entries.
pub(crate) fn push_group<T: GroupItem>(
    group: &mut Group<T>,
    element: &Element,
    path: &str,
    notes: &mut Notes,
) -> Result<(), ProtocolError> {
    let name = element.name.as_str();
    let mixed = || ProtocolError::BadValue {
        path: path.to_owned(),
        value: if element.is_blank() {
            format!("<{name}></{name}>")
        } else {
            format!("<{name}>…</{name}>")
        },
        expected: MIXED_GROUP,
    };
    if element.is_blank() {
        match group {
            Group::Absent => *group = Group::Empty,
            Group::Empty => {}
            Group::Items(_) => return Err(mixed()),
        }
        return Ok(());
    }
    let item = T::parse(element, name, path, notes)?;
    match group {
        Group::Absent => *group = Group::Items(vec![item]),
        Group::Items(items) => items.push(item),
        Group::Empty => return Err(mixed()),
    }
    Ok(())
}
