//! Reading one element or attribute into a typed field, with the rules every message kind
//! shares: text-only leaves, duplicates refused, empty kept apart from absent, and nothing
//! unknown dropped without a note.

use std::fmt;

use crate::protocol::errors::ProtocolError;
use crate::protocol::reader::{Element, Segment};
use crate::protocol::values::{Field, Group, SisValue};
use crate::protocol::xml_text::XmlOut;

/// Where an element sits, from the root: a chain of borrowed elements, written out only
/// when an error names it. A snapshot has millions of elements and almost never an error,
/// so no path is formatted on the way down.
#[derive(Clone, Copy)]
pub(crate) struct Path<'p> {
    parent: Option<&'p Path<'p>>,
    element: &'p Element<'p>,
}

impl<'p> Path<'p> {
    /// The path of the document's root element.
    pub fn root(element: &'p Element<'p>) -> Path<'p> {
        Path {
            parent: None,
            element,
        }
    }

    /// The path of `child` below this one.
    pub fn child(&'p self, child: &'p Element<'p>) -> Path<'p> {
        Path {
            parent: Some(self),
            element: child,
        }
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(parent) = self.parent {
            write!(f, "{parent}/")?;
        }
        Segment(self.element).fmt(f)
    }
}

/// The trimmed text of an element that may hold only text.
pub(crate) fn leaf_text<'e>(element: &'e Element, path: &Path) -> Result<&'e str, ProtocolError> {
    match element.children.first() {
        Some(child) => Err(ProtocolError::UnexpectedChild {
            path: path.to_string(),
            child: child.name.to_string(),
        }),
        None => Ok(element.trimmed_text()),
    }
}

/// Refuses text in an element that may hold only elements (an element whose children are
/// all missing is the one case the reader cannot see as mixed content).
pub(crate) fn no_text(element: &Element, path: &Path) -> Result<(), ProtocolError> {
    let text = element.trimmed_text();
    if element.children.is_empty() && !text.is_empty() {
        return Err(ProtocolError::StrayText {
            path: path.to_string(),
            text: text.to_owned(),
        });
    }
    Ok(())
}

/// Reads a trimmed text into a field: empty text is [`Field::Empty`].
pub(crate) fn field_from_text<T: SisValue>(
    text: &str,
    path: impl fmt::Display,
) -> Result<Field<T>, ProtocolError> {
    if text.is_empty() {
        return Ok(Field::Empty);
    }
    T::parse_sis(text)
        .map(Field::Value)
        .ok_or_else(|| ProtocolError::BadValue {
            path: path.to_string(),
            value: text.to_owned(),
            expected: T::EXPECTED,
        })
}

/// Fills `slot` from a text-only element; a second occurrence of the element is refused.
pub(crate) fn put<T: SisValue>(
    slot: &mut Field<T>,
    element: &Element,
    path: &Path,
) -> Result<(), ProtocolError> {
    if !slot.is_absent() {
        return Err(ProtocolError::Duplicate {
            path: path.to_string(),
        });
    }
    *slot = field_from_text(leaf_text(element, path)?, path)?;
    Ok(())
}

/// Reads an attribute: not there is [`Field::Absent`], `NAME=""` is [`Field::Empty`].
pub(crate) fn attribute<T: SisValue>(
    element: &Element,
    name: &str,
    path: &Path,
) -> Result<Field<T>, ProtocolError> {
    match element.attribute(name) {
        None => Ok(Field::Absent),
        Some(value) => field_from_text(value, format_args!("{path}/@{name}")),
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

    /// Notes every attribute of `element` not in `known`, as `OWNER/@NAME`, or `@NAME`
    /// for the record's own attributes (`owner` `None`).
    pub fn unknown_attributes(&mut self, element: &Element, known: &[&str], owner: Option<&str>) {
        for (name, _) in &element.attributes {
            if !known.contains(&&**name) {
                self.unknown(match owner {
                    Some(owner) => format!("{owner}/@{name}"),
                    None => format!("@{name}"),
                });
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
        path: &Path,
        notes: &mut Notes,
    ) -> Result<Self, ProtocolError>;
    /// Writes the entry back as one element named `name`.
    fn write(&self, name: &str, out: &mut XmlOut);
}

/// What an empty group element next to real entries would mean cannot be known.
const MIXED_GROUP: &str = "entries only, or one empty element that clears the collection";

/// Adds one group element to `group`, keeping "an empty element" apart from entries.
///
/// An element that carries nothing the protocol defines (only unknown
/// attributes or children, which are noted) is an empty element too: read
/// as an entry it would be an entry of nothing, which no writer can write
/// back as one.
pub(crate) fn push_group<T: GroupItem + Default + PartialEq>(
    group: &mut Group<T>,
    element: &Element,
    path: &Path,
    notes: &mut Notes,
) -> Result<(), ProtocolError> {
    let name = &*element.name;
    let mixed = || ProtocolError::BadValue {
        path: path.to_string(),
        value: if element.is_blank() {
            format!("<{name}></{name}>")
        } else {
            format!("<{name}>…</{name}>")
        },
        expected: MIXED_GROUP,
    };
    let item = if element.is_blank() {
        None
    } else {
        Some(T::parse(element, name, path, notes)?).filter(|item| *item != T::default())
    };
    let Some(item) = item else {
        match group {
            Group::Absent => *group = Group::Empty,
            Group::Empty => {}
            Group::Items(_) => return Err(mixed()),
        }
        return Ok(());
    };
    match group {
        Group::Absent => *group = Group::Items(vec![item]),
        Group::Items(items) => items.push(item),
        Group::Empty => return Err(mixed()),
    }
    Ok(())
}

/// Writes a repeating group: nothing, one empty element, or every entry.
pub(crate) fn write_group<T: GroupItem>(out: &mut XmlOut, name: &str, group: &Group<T>) {
    match group {
        Group::Absent => {}
        Group::Empty => out.text_element(name, &[], ""),
        Group::Items(items) => {
            for item in items {
                item.write(name, out);
            }
        }
    }
}
