//! The XML layer: quick-xml events over `&str` into a small element tree.
//!
//! Owns well-formedness and the lexical rules of SIS: no DOCTYPE, no entities beyond the
//! predefined five, no text mixed with elements, bounded nesting. It must not know any SIS
//! element beyond the few names that repeat (for paths); typing is done in `message/`.
//! The tree is bounded by the size limit checked before this runs.

use std::collections::HashMap;

use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use super::errors::{Position, ProtocolError};

/// No SIS message nests deeper than 6 (MSG/FLOP/VIPF/VIPT/VSCD); the margin is generous,
/// and the bound keeps a hostile `<a><a><a>…` from building a deep tree.
pub(crate) const MAX_DEPTH: usize = 16;

/// Elements that repeat by design; their path segment always carries `[n]`.
const REPEATING: &[&str] = &[
    "FLTR", "FLOP", "GTDT", "CKDT", "CLDT", "PSDT", "CHDT", "CHOT", "ABTM", "DELY", "ROUT", "ERUT",
    "PSHT", "TIPT", "PORT", "SRVT", "VIPF", "VIPT",
];

/// One element of the document, with its text joined and its attributes unescaped.
#[derive(Debug)]
pub(crate) struct Element {
    pub name: String,
    /// 1-based position among the siblings of the same name.
    pub index: usize,
    pub attributes: Vec<(String, String)>,
    pub children: Vec<Element>,
    /// Character data; meaningful only for an element without children.
    pub text: String,
}

impl Element {
    fn new(name: String) -> Element {
        Element {
            name,
            index: 1,
            attributes: Vec::new(),
            children: Vec::new(),
            text: String::new(),
        }
    }

    /// This element's step in a path: `FLTR[2]`, `SODT`.
    pub fn segment(&self) -> String {
        segment(&self.name, self.index)
    }

    /// The text with the surrounding whitespace removed, as every SIS value is read.
    pub fn trimmed_text(&self) -> &str {
        trim_xml(&self.text)
    }

    /// Whether the element says nothing: no child, no text, no attribute with a value.
    pub fn is_blank(&self) -> bool {
        self.children.is_empty()
            && self.trimmed_text().is_empty()
            && self.attributes.iter().all(|(_, v)| trim_xml(v).is_empty())
    }

    /// The trimmed value of an attribute, if the attribute is there.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| trim_xml(v.as_str()))
    }
}

/// A path step: repeating elements, and any element after its first occurrence, get `[n]`.
pub(crate) fn segment(name: &str, index: usize) -> String {
    if index > 1 || REPEATING.contains(&name) {
        format!("{name}[{index}]")
    } else {
        name.to_owned()
    }
}

/// XML whitespace only (space, tab, CR, LF): an ideographic space is content.
pub(crate) fn trim_xml(s: &str) -> &str {
    s.trim_matches([' ', '\t', '\r', '\n'])
}

/// Sets up quick-xml the one way both entry points use.
fn configure(reader: &mut Reader<&[u8]>) {
    let config = reader.config_mut();
    config.check_end_names = true;
    config.allow_unmatched_ends = false;
    config.check_comments = true;
    config.allow_dangling_amp = false;
    config.expand_empty_elements = false;
    config.trim_markup_names_in_closing_tags = true;
    // Text is trimmed per value after entity references are put back in place; trimming
    // each text event would eat the spaces around `&amp;`.
    config.trim_text(false);
}

/// An element being read, with the counters that number its children.
struct Open {
    element: Element,
    seen: HashMap<String, usize>,
}

impl Open {
    fn new(element: Element) -> Open {
        Open {
            element,
            seen: HashMap::new(),
        }
    }
}

/// Reads a whole document into its root element.
///
/// # Errors
///
/// Not UTF-8, not well-formed, a DOCTYPE, an unknown entity, stray text between elements,
/// or nesting deeper than [`MAX_DEPTH`].
pub(crate) fn read_document(input: &[u8]) -> Result<Element, ProtocolError> {
    let input = match std::str::from_utf8(input) {
        Ok(text) => text,
        Err(e) => {
            let valid = &input[..e.valid_up_to()];
            // The valid prefix is UTF-8 by definition, so positions can be counted in it.
            let prefix = std::str::from_utf8(valid).unwrap_or_default();
            return Err(ProtocolError::NotWellFormed {
                at: Position::locate(prefix, e.valid_up_to()),
                reason: "the message is not UTF-8".into(),
            });
        }
    };
    let body = input.strip_prefix('\u{feff}').unwrap_or(input);
    let shift = input.len() - body.len();
    TreeBuilder::new(input, shift).run(body)
}

struct TreeBuilder<'a> {
    input: &'a str,
    shift: usize,
    stack: Vec<Open>,
    root: Option<Element>,
}

impl<'a> TreeBuilder<'a> {
    fn new(input: &'a str, shift: usize) -> Self {
        TreeBuilder {
            input,
            shift,
            stack: Vec::new(),
            root: None,
        }
    }

    fn at(&self, offset: u64) -> Position {
        Position::locate(self.input, offset as usize + self.shift)
    }

    fn run(mut self, body: &str) -> Result<Element, ProtocolError> {
        let mut reader = Reader::from_str(body);
        configure(&mut reader);
        loop {
            let before = reader.buffer_position();
            let event = match reader.read_event() {
                Ok(event) => event,
                Err(e) => return Err(self.xml_error(&reader, e)),
            };
            match event {
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
                Event::DocType(_) => {
                    return Err(ProtocolError::Doctype {
                        at: self.at(before),
                    });
                }
                Event::Start(start) => {
                    let element = self.element(&start, before)?;
                    self.open(element, before)?;
                }
                Event::Empty(start) => {
                    let element = self.element(&start, before)?;
                    self.open(element, before)?;
                    self.close(before)?;
                }
                Event::End(_) => self.close(before)?,
                Event::Text(text) => self.text(&text.xml10_content(), before)?,
                Event::CData(data) => self.text(&data.xml10_content(), before)?,
                Event::GeneralRef(reference) => {
                    let resolved = match reference.resolve_char_ref() {
                        Ok(Some(c)) => c.to_string(),
                        Ok(None) => match resolve_predefined_entity(&reference) {
                            Some(s) => s.to_owned(),
                            None => {
                                return Err(ProtocolError::UnknownEntity {
                                    at: self.at(before),
                                    name: format!("{};", &*reference),
                                });
                            }
                        },
                        Err(e) => return Err(self.xml_error(&reader, e)),
                    };
                    self.text(&resolved, before)?;
                }
                Event::Eof => break,
            }
        }
        match (self.stack.last(), self.root) {
            (None, Some(root)) => Ok(root),
            (Some(open), _) => Err(ProtocolError::NotWellFormed {
                at: Position::locate(self.input, self.input.len()),
                reason: format!("element <{}> is not closed", open.element.name),
            }),
            (None, None) => Err(ProtocolError::NotWellFormed {
                at: Position::locate(self.input, self.input.len()),
                reason: "the document has no root element".into(),
            }),
        }
    }

    fn xml_error(&self, reader: &Reader<&[u8]>, e: quick_xml::Error) -> ProtocolError {
        let at = self.at(reader.error_position());
        match e {
            quick_xml::Error::Escape(quick_xml::escape::EscapeError::UnrecognizedEntity(
                _,
                name,
            )) => ProtocolError::UnknownEntity {
                at,
                name: format!("{name};"),
            },
            other => ProtocolError::NotWellFormed {
                at,
                reason: other.to_string(),
            },
        }
    }

    fn path(&self) -> String {
        self.stack
            .iter()
            .map(|open| open.element.segment())
            .collect::<Vec<_>>()
            .join("/")
    }

    fn element(&self, start: &BytesStart<'_>, offset: u64) -> Result<Element, ProtocolError> {
        let mut element = Element::new(start.name().as_ref().to_owned());
        for attribute in start.attributes() {
            let attribute = attribute.map_err(|e| ProtocolError::NotWellFormed {
                at: self.at(offset),
                reason: e.to_string(),
            })?;
            let value = attribute
                .normalized_value_with(XmlVersion::Implicit1_0, 1, resolve_predefined_entity)
                .map_err(|e| match e {
                    quick_xml::Error::Escape(
                        quick_xml::escape::EscapeError::UnrecognizedEntity(_, name),
                    ) => ProtocolError::UnknownEntity {
                        at: self.at(offset),
                        name: format!("{name};"),
                    },
                    other => ProtocolError::NotWellFormed {
                        at: self.at(offset),
                        reason: other.to_string(),
                    },
                })?;
            element
                .attributes
                .push((attribute.key.as_ref().to_owned(), value.into_owned()));
        }
        Ok(element)
    }

    fn open(&mut self, mut element: Element, offset: u64) -> Result<(), ProtocolError> {
        match self.stack.last_mut() {
            None if self.root.is_some() => {
                return Err(ProtocolError::NotWellFormed {
                    at: self.at(offset),
                    reason: format!("element <{}> after the root element", element.name),
                });
            }
            None => {}
            Some(parent) => {
                let stray = trim_xml(&parent.element.text);
                if !stray.is_empty() {
                    let text = stray.to_owned();
                    return Err(ProtocolError::StrayText {
                        path: self.path(),
                        text,
                    });
                }
                let seen = parent.seen.entry(element.name.clone()).or_insert(0);
                *seen += 1;
                element.index = *seen;
            }
        }
        if self.stack.len() >= MAX_DEPTH {
            let path = format!("{}/{}", self.path(), element.segment());
            return Err(ProtocolError::TooDeep {
                path,
                limit: MAX_DEPTH,
            });
        }
        self.stack.push(Open::new(element));
        Ok(())
    }

    fn close(&mut self, offset: u64) -> Result<(), ProtocolError> {
        let Some(open) = self.stack.pop() else {
            // quick-xml reports unmatched end tags itself; this is a second line of defence.
            return Err(ProtocolError::NotWellFormed {
                at: self.at(offset),
                reason: "end tag without a start tag".into(),
            });
        };
        match self.stack.last_mut() {
            Some(parent) => parent.element.children.push(open.element),
            None => self.root = Some(open.element),
        }
        Ok(())
    }

    fn text(&mut self, text: &str, offset: u64) -> Result<(), ProtocolError> {
        let path = self.path();
        match self.stack.last_mut() {
            None => {
                if trim_xml(text).is_empty() {
                    Ok(())
                } else {
                    Err(ProtocolError::NotWellFormed {
                        at: self.at(offset),
                        reason: "text outside the root element".into(),
                    })
                }
            }
            Some(open) if !open.element.children.is_empty() => {
                let stray = trim_xml(text);
                if stray.is_empty() {
                    Ok(())
                } else {
                    Err(ProtocolError::StrayText {
                        path,
                        text: stray.to_owned(),
                    })
                }
            }
            Some(open) => {
                open.element.text.push_str(text);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Element, ProtocolError> {
        read_document(text.as_bytes())
    }

    #[test]
    fn entities_are_resolved_in_place() {
        let root = read("<MSG><R>a &amp; b &#x4E2D;</R></MSG>").unwrap();
        assert_eq!(root.children[0].trimmed_text(), "a & b 中");
    }

    #[test]
    fn repeated_children_are_numbered() {
        let root = read("<MSG><FLTR/><FLTR/><X/><X/></MSG>").unwrap();
        let segments: Vec<_> = root.children.iter().map(Element::segment).collect();
        assert_eq!(segments, ["FLTR[1]", "FLTR[2]", "X", "X[2]"]);
    }

    #[test]
    fn attributes_with_spaces_around_equals_are_read() {
        let root = read("<MSG><ROUT RTNO = \"1\" ></ROUT></MSG>").unwrap();
        assert_eq!(root.children[0].attribute("RTNO"), Some("1"));
    }

    #[test]
    fn a_second_root_is_rejected() {
        let err = read("<MSG></MSG></MSG>").unwrap_err();
        assert!(matches!(err, ProtocolError::NotWellFormed { .. }), "{err}");
    }

    #[test]
    fn deep_nesting_is_rejected() {
        let text = "<a>".repeat(MAX_DEPTH + 1);
        let err = read(&text).unwrap_err();
        assert!(matches!(err, ProtocolError::TooDeep { .. }), "{err}");
    }

    #[test]
    fn invalid_utf8_is_located() {
        let err = read_document(b"<MSG>\n\xff</MSG>").unwrap_err();
        assert_eq!(
            err.to_string(),
            "not well-formed XML at line 2, column 1: the message is not UTF-8"
        );
    }
}
